// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchTestSupport
import Testing

@testable import RetouchIO

/// WebP files are made here with our own encoder (the shared photos have none), then taken
/// apart and damaged through ``WebPContainer``.
@Suite struct WebPCodecTests {
  static func lossless() -> EncodeOptions {
    var options = EncodeOptions()
    options.webpLossless = true
    return options
  }

  static func decodeRaw(_ data: Data, _ change: (inout DecodeOptions) -> Void = { _ in }) throws
    -> DecodedImage
  {
    try ImageDecoder(options: codecRawOptions(change)).decode(data, source: "t.webp")
  }

  /// ``codecSampleExif`` with another orientation (its SHORT value, big-endian, sits 8 bytes
  /// from the end, before the next-IFD offset).
  static func exif(orientation: UInt8) -> Data {
    var exif = codecSampleExif
    exif[exif.count - 7] = orientation
    return exif
  }

  /// `file`'s chunks as (code, payload) pairs.
  static func chunks(_ file: Data) throws -> [(code: String, payload: Data)] {
    try file.withUnsafeBytes { bytes in
      let container = try #require(WebPContainer(bytes))
      return container.chunks.map { ($0.code, Data(bytes[$0.payload])) }
    }
  }

  @Test(arguments: [PixelFormat.rgb8, .rgba8])
  func losslessKeepsEveryValue(format: PixelFormat) throws {
    let image = codecRandomImage(width: 37, height: 23, format: format, seed: 5)
    let webp = try ImageEncoder(options: Self.lossless()).encode(image, as: .webp)
    #expect(ImageFormat.sniff(webp) == .webp)
    let decoded = try Self.decodeRaw(webp)
    #expect(decoded.format == .webp)
    #expect(decoded.image.format == format)
    #expect(decoded.image.hasSamePixels(as: image))
  }

  /// Lossy at quality 90 stays close on a smooth image; its alpha is kept exactly (libwebp
  /// compresses the alpha plane losslessly), and 16-bit components are rounded to 8.
  @Test(arguments: [PixelFormat.rgb8, .rgba8, .rgb16])
  func lossyIsCloseToTheSource(format: PixelFormat) throws {
    let image = codecSmoothImage(width: 96, height: 64, format: format)
    let webp = try ImageEncoder().encode(image, as: .webp)
    let decoded = try Self.decodeRaw(webp).image
    #expect(decoded.size == image.size)
    #expect(decoded.format == format.withBitDepth(8))
    let error = ImageComparison.meanAbsoluteDifference(image, decoded)
    #expect(error < 2, "mean abs error \(error)")
    if format.hasAlpha {
      for (x, y) in codecAllPoints(image) {
        let (a, b) = (image.pixel(x: x, y: y), decoded.pixel(x: x, y: y))
        guard a[3] == b[3] else {
          Issue.record("alpha at (\(x), \(y)): \(a) → \(b)")
          return
        }
      }
    }
  }

  @Test func metadataBlocksRoundTrip() throws {
    let icc = try #require(
      try ImageDecoder().readMetadata(SharedPhotos.data("g52")).metadata.colorProfile?.iccProfile)
    let blocks = MetadataBlocks(exif: codecSampleExif, xmp: codecSampleXMP, iccProfile: icc)
    for options in [EncodeOptions(), Self.lossless()] {
      let image = codecSmoothImage(width: 33, height: 21, format: .rgba8)
      let webp = try WebPCodec.encode(image, options: options, blocks: blocks)
      // Extended layout: VP8X first, the profile before the image, EXIF and XMP after it.
      let codes = try Self.chunks(webp).map(\.code)
      #expect(codes.first == "VP8X" && codes[1] == "ICCP", "\(codes)")
      #expect(Array(codes.suffix(2)) == ["EXIF", "XMP "], "\(codes)")
      let flags = try #require(try Self.chunks(webp).first?.payload.first)
      #expect(flags == 0x20 | 0x10 | 0x08 | 0x04, "VP8X flags \(String(flags, radix: 16))")
      let header = try WebPCodec.readHeader(webp, source: "t", options: DecodeOptions())
      #expect(header.storedSize == PixelSize(width: 33, height: 21))
      #expect(header.blocks == blocks)
      let raw = try WebPCodec.decode(webp, source: "t", options: codecRawOptions())
      #expect(raw.blocks == blocks)
      #expect(raw.image.format == .rgba8)
    }
  }

  /// Some writers put the JPEG-style `Exif\0\0` in front of the TIFF structure: it is dropped,
  /// and the EXIF behind it is read (its orientation, 6, is not the default).
  @Test func exifPrefixIsDropped() throws {
    let exif = Self.exif(orientation: 6)
    let plain = try ImageEncoder(options: Self.lossless()).encode(
      codecSmoothImage(width: 8, height: 8, format: .rgb8), as: .webp)
    let image = try #require(try Self.chunks(plain).first { $0.code == "VP8L" })
    let file = WebPContainer.assemble(
      size: (8, 8), flags: WebPContainer.exifFlag,
      chunks: [image, ("EXIF", Data("Exif\0\0".utf8) + exif)])
    let read = try ImageDecoder().readMetadata(file)
    #expect(read.format == .webp)
    #expect(read.metadata.orientation == .right)
    #expect(
      try WebPCodec.readHeader(file, source: "t", options: DecodeOptions()).blocks.exif == exif)
  }

  /// The EXIF orientation turns the pixels upright on decode, as for every other format.
  @Test func orientationIsApplied() throws {
    let exif = Self.exif(orientation: 6)
    let image = codecRandomImage(width: 6, height: 4, format: .rgb8, seed: 2)
    let webp = try WebPCodec.encode(
      image, options: Self.lossless(), blocks: MetadataBlocks(exif: exif))
    let upright = try Self.decodeRaw(webp)
    #expect(upright.metadata.orientation == .right)
    #expect(upright.image.size == PixelSize(width: 4, height: 6))
    #expect(upright.image.hasSamePixels(as: image.applyingOrientation(.right)))
    let stored = try Self.decodeRaw(webp) { $0.appliesOrientation = false }
    #expect(stored.image.hasSamePixels(as: image))
  }

  /// A file cut short gives, when lenient, the rows decoded so far and black below them with a
  /// warning; stricter options refuse it.
  @Test func truncatedFileGivesItsFirstRows() throws {
    var options = EncodeOptions()
    options.quality = 95
    let image = codecRandomImage(width: 64, height: 96, format: .rgb8, seed: 9)
    let webp = try ImageEncoder(options: options).encode(image, as: .webp)
    let cut = webp.prefix(webp.count * 6 / 10)
    let partial = try Self.decodeRaw(cut)
    let warning = try #require(partial.warnings.first { $0.hasPrefix("truncated file:") })
    let rows = try #require(
      Int(warning.split(separator: " ").drop { $0 != "row" }.dropFirst().first ?? ""))
    #expect(rows > 0 && rows < 96, "\(warning)")
    let full = try Self.decodeRaw(webp).image
    for y in [0, rows - 1] {
      #expect(partial.image.pixel(x: 17, y: y) == full.pixel(x: 17, y: y), "row \(y)")
    }
    #expect(partial.image.pixel(x: 17, y: 95) == [0, 0, 0])
    let error = #expect(throws: ImageDecodingError.self) {
      try Self.decodeRaw(cut) { $0.strictness = .failOnTruncation }
    }
    #expect(error?.kind == .truncated)
    // Only the RIFF header: nothing to read.
    let header = #expect(throws: ImageDecodingError.self) { try Self.decodeRaw(webp.prefix(20)) }
    #expect(header?.kind == .truncated)
  }

  /// An animated file of two frames, the first `frame` at (`x`, `y`) on a `canvas`-sized
  /// canvas (offsets even, as WebP stores them halved).
  static func animation(
    frame: Image, x: Int = 0, y: Int = 0, canvas: (width: Int, height: Int)
  ) throws -> Data {
    let still = try ImageEncoder(options: Self.lossless()).encode(frame, as: .webp)
    let image = try #require(try Self.chunks(still).first { $0.code == "VP8L" })
    var anmf = Data(WebPContainer.uint24(x / 2) + WebPContainer.uint24(y / 2))
    anmf += Data(WebPContainer.uint24(frame.width - 1) + WebPContainer.uint24(frame.height - 1))
    anmf += Data([100, 0, 0, 0])  // 100 ms, no blending flags
    anmf += Data("VP8L".utf8) + Data(WebPContainer.uint32Bytes(UInt32(image.payload.count)))
    anmf += image.payload + Data(repeating: 0, count: image.payload.count & 1)
    return WebPContainer.assemble(
      size: canvas, flags: WebPContainer.animationFlag | WebPContainer.alphaFlag,
      chunks: [("ANIM", Data(repeating: 0, count: 6)), ("ANMF", anmf), ("ANMF", anmf)])
  }

  /// Of an animation, the first frame is read with a warning; a frame smaller than the canvas
  /// sits at its offset on transparency.
  @Test func animationGivesItsFirstFrame() throws {
    let frame = codecRandomImage(width: 8, height: 6, format: .rgb8, seed: 21)
    let whole = try Self.decodeRaw(Self.animation(frame: frame, canvas: (8, 6)))
    #expect(whole.image.hasSamePixels(as: frame))
    #expect(
      whole.warnings.contains(
        "an animated WebP (2 frames in the file): only its first frame is read; the animation "
          + "is not carried into what is written."), "\(whole.warnings)")
    let placed = try Self.decodeRaw(Self.animation(frame: frame, x: 4, y: 2, canvas: (16, 10)))
    #expect(placed.image.size == PixelSize(width: 16, height: 10))
    #expect(placed.image.format == .rgba8)
    #expect(placed.image.pixel(x: 3, y: 2) == [0, 0, 0, 0])
    #expect(placed.image.pixel(x: 4, y: 2) == frame.pixel(x: 0, y: 0) + [255])
    #expect(placed.image.pixel(x: 11, y: 7) == frame.pixel(x: 7, y: 5) + [255])
    #expect(placed.image.pixel(x: 12, y: 8) == [0, 0, 0, 0])
    // A frame that overflows its canvas is broken.
    let error = #expect(throws: ImageDecodingError.self) {
      try Self.decodeRaw(Self.animation(frame: frame, x: 10, y: 0, canvas: (16, 10)))
    }
    #expect(error?.kind == .corrupt)
  }

  @Test func sizeIsCheckedBeforeDecoding() throws {
    let webp = try ImageEncoder().encode(
      codecSmoothImage(width: 64, height: 64, format: .rgb8), as: .webp)
    let error = #expect(throws: ImageDecodingError.self) {
      try Self.decodeRaw(webp) { $0.maxPixels = 4095 }
    }
    #expect(error?.kind == .tooLarge)
    #expect(error?.detail.contains("64×64") == true)
  }

  /// A broken bitstream is a typed error: the lossless signature byte replaced, and random
  /// bytes after a valid RIFF header.
  @Test func brokenBitstreamIsCorrupt() throws {
    // Without metadata the file is simple: its VP8L payload starts at byte 20.
    let webp = try WebPCodec.encode(
      codecSmoothImage(width: 16, height: 16, format: .rgb8), options: Self.lossless(),
      blocks: MetadataBlocks())
    #expect(try Self.chunks(webp).map(\.code) == ["VP8L"])
    var broken = webp
    #expect(broken[20] == 0x2F)
    broken[20] = 0x00
    let error = #expect(throws: ImageDecodingError.self) { try Self.decodeRaw(broken) }
    #expect(error?.kind == .corrupt, "\(String(describing: error))")

    var rng = SeededRandom(seed: 3)
    let noise = (0..<512).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
    let garbage =
      Data("RIFF".utf8) + Data(WebPContainer.uint32Bytes(UInt32(4 + 8 + noise.count)))
      + Data("WEBPVP8 ".utf8) + Data(WebPContainer.uint32Bytes(UInt32(noise.count))) + Data(noise)
    let garbled = #expect(throws: ImageDecodingError.self) { try Self.decodeRaw(garbage) }
    #expect(garbled?.kind == .corrupt, "\(String(describing: garbled))")
  }

  @Test func sidesOverTheFormatsLimitAreRefused() throws {
    let wide = Image(width: WebPCodec.maxSide + 1, height: 1, format: .rgb8)
    let error = #expect(throws: ImageEncodingError.self) {
      try ImageEncoder().encode(wide, as: .webp)
    }
    #expect(error?.kind == .invalidParameter)
  }
}
