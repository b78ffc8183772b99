// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchTestSupport
import Testing

@testable import RetouchIO

/// TIFFs from other writers are fixtures (make_tiff_fixtures.py, whose pixel formulas are
/// repeated here); the rest are written by our encoder, or built byte by byte by
/// ``stripsFirstTIFF(_:rowsPerStrip:)``.
@Suite struct TIFFCodecTests {
  static func decode(_ name: String, _ change: (inout DecodeOptions) -> Void = { _ in }) throws
    -> DecodedImage
  {
    try ImageDecoder(options: codecRawOptions(change)).decode(
      codecFixtureData(name), source: name)
  }

  static func decodeRaw(_ data: Data, _ change: (inout DecodeOptions) -> Void = { _ in }) throws
    -> DecodedImage
  {
    try ImageDecoder(options: codecRawOptions(change)).decode(data, source: "t.tif")
  }

  // The fixtures' formulas (13 × 11).
  static func rgb8(_ x: Int, _ y: Int) -> [Int] { [20 * x % 256, 20 * y % 256, x * y % 256] }
  static func rgb16(_ x: Int, _ y: Int) -> [Int] {
    [4099 * x % 65536, 5003 * y % 65536, (257 * x * y + 1) % 65536]
  }
  static func alpha8(_ x: Int, _ y: Int) -> Int { (23 * y + 11 * x) % 256 }
  static func grey8(_ x: Int, _ y: Int) -> Int { (16 * x + 8 * y) % 256 }

  /// Every pixel of `image` against `expected`, stopping at the first difference.
  static func expectPixels(
    _ image: Image, _ expected: (Int, Int) -> [Int],
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    for (x, y) in codecAllPoints(image) where image.pixel(x: x, y: y) != expected(x, y) {
      Issue.record(
        "(\(x), \(y)): \(image.pixel(x: x, y: y)), expected \(expected(x, y))",
        sourceLocation: sourceLocation)
      return
    }
  }

  @Test func lzwWithPredictor() throws {
    let decoded = try Self.decode("rgb8-lzw-predictor.tif")
    #expect(decoded.format == .tiff)
    #expect(decoded.image.format == .rgb8)
    #expect(decoded.warnings.isEmpty, "\(decoded.warnings)")
    Self.expectPixels(decoded.image, Self.rgb8)
  }

  /// Big-endian 16-bit samples in 16 × 16 tiles, partial on both edges, stay 16-bit.
  @Test func sixteenBitBigEndianTiles() throws {
    let image = try Self.decode("rgb16-be-tiled.tif").image
    #expect(image.format == .rgb16)
    #expect(image.size == PixelSize(width: 13, height: 11))
    Self.expectPixels(image, Self.rgb16)
  }

  /// Premultiplied colour comes back straight: `round(c' × 255 / a)` of the stored `c'`.
  @Test func associatedAlphaIsUnpremultiplied() throws {
    let image = try Self.decode("rgba8-associated-packbits.tif").image
    #expect(image.format == .rgba8)
    Self.expectPixels(image) { x, y in
      let a = Self.alpha8(x, y)
      let colour = Self.rgb8(x, y).map { c -> Int in
        let stored = c * a / 255
        return a == 0 ? 0 : min(255, (stored * 255 + a / 2) / a)
      }
      return colour + [a]
    }
  }

  @Test func greyWithAlphaBecomesRGBA() throws {
    let image = try Self.decode("grey-alpha8.tif").image
    #expect(image.format == .rgba8)
    Self.expectPixels(image) { x, y in
      let g = Self.grey8(x, y)
      return [g, g, g, Self.alpha8(x, y)]
    }
  }

  /// Layouts that go through libtiff's RGBA interface: a palette, CMYK (no profile: inverted
  /// inks), white-is-zero grey.
  @Test func paletteCMYKAndWhiteIsZero() throws {
    let palette = try Self.decode("palette.tif").image
    #expect(palette.format == .rgb8)
    Self.expectPixels(palette) { x, y in
      let i = (x + y) % 4
      return [i * 60, 255 - i * 60, i * 37 % 256]
    }
    let cmyk = try Self.decode("cmyk8.tif")
    #expect(cmyk.image.format == .rgb8)
    Self.expectPixels(cmyk.image, Self.rgb8)
    let white = try Self.decode("grey8-miniswhite.tif").image
    Self.expectPixels(white) { x, y in Array(repeating: 255 - Self.grey8(x, y), count: 3) }
  }

  @Test func jpegInYCbCr() throws {
    let image = try Self.decode("rgb8-jpeg-ycbcr.tif").image
    #expect(image.format == .rgb8)
    var bytes: [UInt8] = []
    for (x, y) in codecAllPoints(image) {
      let pixel: [Int] = [10 * x + 100, 12 * y + 60, 5 * x + 5 * y + 30]
      bytes += pixel.map { UInt8($0) }
    }
    let expected = Image(width: 13, height: 11, format: .rgb8, bytes: bytes)
    let error = ImageComparison.meanAbsoluteDifference(image, expected)
    #expect(error < 3, "mean abs error \(error)")
  }

  /// Separate planes (colour, then alpha) are read plane by plane, at their own depth.
  @Test func separatePlanes() throws {
    let image = try Self.decode("rgba16-planar.tif").image
    #expect(image.format == .rgba16)
    Self.expectPixels(image) { x, y in Self.rgb16(x, y) + [Self.alpha8(x, y) * 257] }
  }

  /// The first of two pages is read, turned upright by its orientation (6), with a warning.
  @Test func firstPageIsReadUpright() throws {
    let decoded = try Self.decode("two-pages-orientation6.tif")
    #expect(decoded.metadata.orientation == .right)
    #expect(decoded.warnings.contains { $0.hasPrefix("a TIFF of 2 pages: only the first") })
    let stored = Image(
      width: 13, height: 11, format: .rgb8,
      bytes: (0..<11).flatMap { y in (0..<13).flatMap { x in Self.rgb8(x, y).map(UInt8.init) } })
    #expect(decoded.image.size == PixelSize(width: 11, height: 13))
    #expect(decoded.image.hasSamePixels(as: stored.applyingOrientation(.right)))
  }

  /// libtiff handles carry their own error state: files decoded on many threads at once, some
  /// of them broken, give each thread its own answer.
  @Test func decodesOnManyThreadsAtOnce() throws {
    let tiled = try codecFixtureData("rgb16-be-tiled.tif")
    let broken = tiled.prefix(tiled.count - 60)
    let expected = try Self.decodeRaw(tiled).image
    let outcomes = ParallelBands.map(count: 64, threads: 8) { i -> Bool in
      let decoded = try? ImageDecoder(options: codecRawOptions()).decode(
        i % 2 == 0 ? tiled : broken, source: "t.tif")
      return i % 2 == 0 ? decoded?.image.hasSamePixels(as: expected) == true : decoded == nil
    }
    #expect(outcomes.allSatisfy { $0 }, "\(outcomes)")
  }

  @Test func floatingPointIsRefused() throws {
    let error = #expect(throws: ImageDecodingError.self) { try Self.decode("float32.tif") }
    #expect(error?.kind == .unsupportedVariant)
  }

  // MARK: - Writing

  /// Every pixel format survives our writer and reader exactly, in both byte orders (the
  /// file takes the byte order of the EXIF block it starts with).
  @Test(arguments: [PixelFormat.rgb8, .rgba8, .rgb16, .rgba16])
  func roundTripKeepsEveryValue(format: PixelFormat) throws {
    let image = codecRandomImage(width: 301, height: 257, format: format, seed: 11)
    let littleEndian = ExportMetadata.typedEXIF(
      PhotoMetadata(), size: image.size, colorSpace: .sRGB, software: "t")
    for exif in [Data(littleEndian), codecSampleExif] {
      let tiff = try TIFFCodec.encode(image, blocks: MetadataBlocks(exif: exif))
      #expect(ImageFormat.sniff(tiff) == .tiff)
      #expect(tiff.prefix(2) == exif.prefix(2), "byte order")
      let decoded = try Self.decodeRaw(tiff)
      #expect(decoded.image.format == format)
      #expect(decoded.image.hasSamePixels(as: image))
      #expect(decoded.warnings.isEmpty, "\(decoded.warnings)")
    }
  }

  /// The file is what other readers expect: Deflate with the horizontal predictor, strips of
  /// about 256 KiB, unassociated alpha, orientation 1 and a resolution.
  @Test func writesABaselineDirectory() throws {
    let image = codecRandomImage(width: 400, height: 300, format: .rgba8, seed: 1)
    let tiff = try ImageEncoder().encode(image, as: .tiff)
    let header = try TIFFCodec.readHeader(tiff, source: "t")
    let layout = header.layout
    #expect(layout.compression == 8)
    #expect(layout.samplesPerPixel == 4 && layout.bitsPerSample == 8)
    #expect(layout.photometric == 2 && layout.extraSamples == [2])
    #expect(layout.rowsPerStrip == (256 << 10) / 1600)
    let entry = { (tag: UInt16) in header.ifd0.entry(tag)?.integer(bigEndian: false) }
    #expect(entry(TIFFCodec.Tag.predictor) == 2)
    #expect(entry(TIFFCodec.Tag.orientation) == 1)
    #expect(entry(TIFFCodec.Tag.resolutionUnit) == 2)
    #expect(header.ifd0.entry(TIFFCodec.Tag.exifIFD) != nil)
  }

  /// ICC profile, XMP and EXIF go out and come back; the camera photo's maker note keeps its
  /// bytes, and everything `info` shows about the camera survives.
  @Test func metadataRoundTrip() throws {
    let source = try ImageDecoder().decode(SharedPhotos.data("d13"))
    let small = source.image.resized(to: PixelSize(width: 96, height: 64))
    let tiff = try ImageEncoder().encode(small, as: .tiff, metadata: source.metadata)
    let read = try ImageDecoder().readMetadata(tiff)
    #expect(read.format == .tiff)
    let (a, b) = (source.metadata, read.metadata)
    #expect(b.cameraMake == a.cameraMake && b.cameraModel == a.cameraModel)
    #expect(b.exposureTime == a.exposureTime && b.fNumber == a.fNumber && b.iso == a.iso)
    #expect(b.dateTimeOriginal == a.dateTimeOriginal)
    #expect(b.orientation == .up)
    #expect(b.colorProfile?.iccProfile == ICCProfiles.data(for: small.colorSpace))
    func makerNote(_ exif: Data?) throws -> [UInt8]? {
      let block = try #require(exif)
      let reader = try #require(TIFFReader(block))
      let ifd0 = try #require(reader.directory(at: reader.firstIFDOffset))
      let p = try #require(ifd0.entry(0x8769)?.integer(bigEndian: reader.bigEndian))
      return reader.directory(at: Int(p))?.entry(0x927C)?.value
    }
    let note = try makerNote(source.metadata.blocks.exif)
    #expect(note != nil && (note?.count ?? 0) > 1000)
    #expect(try makerNote(read.metadata.blocks.exif) == note)

    let blocks = MetadataBlocks(exif: codecSampleExif, xmp: codecSampleXMP)
    let header = try TIFFCodec.readHeader(
      TIFFCodec.encode(small, blocks: blocks), source: "t", options: DecodeOptions())
    #expect(header.blocks.xmp == codecSampleXMP)
    #expect(header.storedSize == small.size)
  }

  /// A TIFF's ICC profile is honoured: the Adobe RGB values of a JPEG, written to a TIFF with
  /// that profile, come out exactly as the JPEG does.
  @Test func iccProfileIsApplied() throws {
    let data = try SharedPhotos.data("s04")  // rocket.jpg, Adobe RGB (1998)
    let stored = try Self.decodeRaw(data)
    let icc = try #require(stored.metadata.colorProfile?.iccProfile)
    let tiff = try TIFFCodec.encode(stored.image, blocks: MetadataBlocks(iccProfile: icc))
    let viaTIFF = try ImageDecoder().decode(tiff, source: "t.tif").image
    let viaJPEG = try ImageDecoder().decode(data, source: "rocket.jpg").image
    #expect(viaTIFF.colorSpace == viaJPEG.colorSpace)
    #expect(viaTIFF.hasSamePixels(as: viaJPEG))
    #expect(!viaTIFF.hasSamePixels(as: stored.image))
  }

  // MARK: - Damage

  /// An uncompressed 8-bit RGB TIFF with its directory before the strips (as some writers
  /// do), so that a cut keeps the directory and loses rows.
  static func stripsFirstTIFF(_ image: Image, rowsPerStrip: Int) -> Data {
    let order = ByteOrder(bigEndian: false)
    let strips = (image.height + rowsPerStrip - 1) / rowsPerStrip
    let entryCount = 9
    let directorySize = 2 + entryCount * 12 + 4
    let arrays = 8 + directorySize  // StripOffsets, StripByteCounts, BitsPerSample
    let dataStart = arrays + strips * 8 + 6
    let bytes = image.withUnsafeBytes { Array($0) }
    var offsets: [UInt8] = [], counts: [UInt8] = []
    for s in 0..<strips {
      let rows = min(rowsPerStrip, image.height - s * rowsPerStrip)
      offsets += order.u32(UInt32(dataStart + s * rowsPerStrip * image.bytesPerRow))
      counts += order.u32(UInt32(rows * image.bytesPerRow))
    }
    func entry(_ tag: UInt16, _ type: UInt16, _ count: Int, _ value: [UInt8]) -> [UInt8] {
      order.u16(tag) + order.u16(type) + order.u32(UInt32(count)) + value
        + [UInt8](repeating: 0, count: max(0, 4 - value.count))
    }
    var file: [UInt8] = [0x49, 0x49, 0x2A, 0] + order.u32(8) + order.u16(UInt16(entryCount))
    file += entry(256, 4, 1, order.u32(UInt32(image.width)))
    file += entry(257, 4, 1, order.u32(UInt32(image.height)))
    file += entry(258, 3, 3, order.u32(UInt32(arrays + strips * 8)))
    file += entry(259, 3, 1, order.u16(1))
    file += entry(262, 3, 1, order.u16(2))
    file += entry(273, 4, strips, strips == 1 ? offsets : order.u32(UInt32(arrays)))
    file += entry(277, 3, 1, order.u16(3))
    file += entry(278, 4, 1, order.u32(UInt32(rowsPerStrip)))
    file += entry(279, 4, strips, strips == 1 ? counts : order.u32(UInt32(arrays + strips * 4)))
    file += [0, 0, 0, 0]
    file += offsets + counts + order.u16(8) + order.u16(8) + order.u16(8)
    return Data(file + bytes)
  }

  /// A file cut short keeps its first rows when lenient, with a warning; stricter options
  /// refuse it. A file cut before its directory (where our writer and libtiff put it) is a
  /// typed error.
  @Test func truncatedFileGivesItsFirstRows() throws {
    let image = codecRandomImage(width: 64, height: 96, format: .rgb8, seed: 9)
    let tiff = Self.stripsFirstTIFF(image, rowsPerStrip: 8)
    #expect(try Self.decodeRaw(tiff).image.hasSamePixels(as: image))
    let cut = tiff.prefix(tiff.count * 6 / 10)
    let partial = try Self.decodeRaw(cut)
    let warning = try #require(partial.warnings.first { $0.hasPrefix("truncated file:") })
    #expect(warning.contains("row 56 of 96"), "\(warning)")
    #expect(partial.image.pixel(x: 17, y: 55) == image.pixel(x: 17, y: 55))
    #expect(partial.image.pixel(x: 17, y: 95) == [0, 0, 0])
    let strict = #expect(throws: ImageDecodingError.self) {
      try Self.decodeRaw(cut) { $0.strictness = .failOnTruncation }
    }
    #expect(strict?.kind == .truncated)

    let ours = try ImageEncoder().encode(image, as: .tiff)
    let noDirectory = #expect(throws: ImageDecodingError.self) {
      try Self.decodeRaw(ours.prefix(ours.count - 40))
    }
    #expect(noDirectory?.kind == .truncated, "\(String(describing: noDirectory))")
    let header = #expect(throws: ImageDecodingError.self) { try Self.decodeRaw(ours.prefix(6)) }
    #expect(header?.kind == .truncated)
  }

  /// Broken compressed data: lenient keeps the rows before it (with a warning), strict refuses.
  @Test func brokenStripIsReported() throws {
    let image = codecRandomImage(width: 512, height: 600, format: .rgb8, seed: 4)
    var tiff = try TIFFCodec.encode(image, blocks: MetadataBlocks())
    let header = try TIFFCodec.readHeader(tiff, source: "t")
    #expect(header.layout.rowsPerStrip == 170)
    // The third strip's zlib header: an invalid compression method.
    let offsets = try #require(header.ifd0.entry(TIFFCodec.Tag.stripOffsets))
      .integers(bigEndian: false)
    tiff[Int(offsets[2])] = 0xFF
    let lenient = try Self.decodeRaw(tiff)
    let warning = try #require(lenient.warnings.first { $0.hasPrefix("damaged image data:") })
    #expect(warning.contains("row 340 of 600"), "\(warning)")
    #expect(lenient.image.pixel(x: 3, y: 339) == image.pixel(x: 3, y: 339))
    #expect(lenient.image.pixel(x: 3, y: 599) == [0, 0, 0])
    let strict = #expect(throws: ImageDecodingError.self) {
      try Self.decodeRaw(tiff) { $0.strictness = .failOnTruncation }
    }
    #expect(strict?.kind == .corrupt)
  }

  /// Through libtiff's RGBA interface (white-is-zero here), a file whose only strip is cut
  /// decodes nothing: an error, not a black image with a warning.
  @Test func nothingDecodedIsAnError() throws {
    let data = try codecFixtureData("grey8-miniswhite.tif")  // directory first, one strip
    let error = #expect(throws: ImageDecodingError.self) { try Self.decodeRaw(data.prefix(300)) }
    #expect(error?.kind == .truncated, "\(String(describing: error))")
  }

  /// Forged layouts are refused before anything large is allocated: more samples per pixel
  /// than any photo has, and tiles far larger than the image.
  @Test func forgedLayoutsAreRefused() throws {
    let order = ByteOrder(bigEndian: false)
    func file(_ entries: [(UInt16, UInt16, [UInt8])]) -> Data {
      var bytes: [UInt8] = [0x49, 0x49, 0x2A, 0] + order.u32(8) + order.u16(UInt16(entries.count))
      for (tag, type, value) in entries {
        bytes +=
          order.u16(tag) + order.u16(type) + order.u32(1) + value
          + [UInt8](repeating: 0, count: 4 - value.count)
      }
      return Data(bytes + [0, 0, 0, 0] + [UInt8](repeating: 0, count: 64))
    }
    let size: [(UInt16, UInt16, [UInt8])] = [(256, 4, order.u32(13)), (257, 4, order.u32(11))]
    let samples = #expect(throws: ImageDecodingError.self) {
      try Self.decodeRaw(file(size + [(262, 3, order.u16(1)), (277, 3, order.u16(64))]))
    }
    #expect(samples?.kind == .unsupportedVariant)
    #expect(samples?.detail == "64 samples per pixel; at most 16 are read.")
    let tiles = #expect(throws: ImageDecodingError.self) {
      try Self.decodeRaw(
        file(
          size + [
            (258, 3, order.u16(8)), (262, 3, order.u16(1)), (322, 4, order.u32(16384)),
            (323, 4, order.u32(16384)), (324, 4, order.u32(8)), (325, 4, order.u32(64)),
          ]))
    }
    #expect(tiles?.kind == .tooLarge)
  }

  @Test func sizeIsCheckedBeforeDecoding() throws {
    let tiff = try ImageEncoder().encode(
      codecSmoothImage(width: 64, height: 64, format: .rgb8), as: .tiff)
    let error = #expect(throws: ImageDecodingError.self) {
      try Self.decodeRaw(tiff) { $0.maxPixels = 4095 }
    }
    #expect(error?.kind == .tooLarge)
    #expect(error?.detail.contains("64×64") == true)
  }

  /// A directory without a size, and one that points outside the file.
  @Test func directoryWithoutSizeIsCorrupt() throws {
    let order = ByteOrder(bigEndian: false)
    let noSize = Data(
      [0x49, 0x49, 0x2A, 0] + order.u32(8) + order.u16(1)
        + order.u16(262) + order.u16(3) + order.u32(1) + order.u32(2) + [0, 0, 0, 0])
    let error = #expect(throws: ImageDecodingError.self) { try Self.decodeRaw(noSize) }
    #expect(error?.kind == .corrupt)
    let outside = Data([0x4D, 0x4D, 0, 0x2A, 0x7F, 0, 0, 0] + [UInt8](repeating: 0, count: 32))
    let far = #expect(throws: ImageDecodingError.self) { try Self.decodeRaw(outside) }
    #expect(far?.kind == .truncated)
  }
}
