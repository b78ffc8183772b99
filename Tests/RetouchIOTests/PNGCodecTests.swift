// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchTestSupport
import Testing

@testable import RetouchIO

/// The bytes of a fixture in Tests/RetouchIOTests/Fixtures (see its README and
/// make_png_fixtures.py, whose pixel formulas the tests below repeat).
func codecFixtureData(_ name: String) throws -> Data {
  let url = try #require(
    Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Fixtures"))
  return try Data(contentsOf: url)
}

/// Options that leave pixel values exactly as stored.
func codecRawOptions(_ change: (inout DecodeOptions) -> Void = { _ in }) -> DecodeOptions {
  var options = DecodeOptions()
  options.convertsColor = false
  change(&options)
  return options
}

/// A seeded image whose every component is random.
func codecRandomImage(width: Int, height: Int, format: PixelFormat, seed: UInt64) -> Image {
  var rng = SeededRandom(seed: seed)
  let count = width * height * format.bytesPerPixel
  let bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
  return Image(width: width, height: height, format: format, bytes: bytes)
}

/// Every (x, y) of an image, row by row.
func codecAllPoints(_ image: Image) -> [(x: Int, y: Int)] {
  (0..<image.height).flatMap { y in (0..<image.width).map { x in (x, y) } }
}

/// A minimal big-endian TIFF structure: header plus one IFD holding Orientation = 1.
let codecSampleExif = Data([
  0x4D, 0x4D, 0x00, 0x2A, 0x00, 0x00, 0x00, 0x08,  // "MM", 42, IFD at 8
  0x00, 0x01,  // one entry
  0x01, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00,  // Orientation SHORT 1
  0x00, 0x00, 0x00, 0x00,  // no next IFD
])

let codecSampleXMP = Data(
  """
  <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?>
  <x:xmpmeta xmlns:x="adobe:ns:meta/">
  <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
  <rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/"
    xmp:CreatorTool="Retouch tests"/>
  </rdf:RDF></x:xmpmeta>
  <?xpacket end="w"?>
  """.utf8)

@Suite struct PNGCodecTests {
  static let sharedIDs = ["d24", "s01", "s02", "s03", "s05", "g19", "g30"]

  @Test func sharedListCoversEveryManifestPNG() {
    let manifestIDs = SharedPhotos.manifest.filter { $0.format == "PNG" }.map(\.id)
    #expect(Set(manifestIDs) == Set(Self.sharedIDs))
  }

  @Test(arguments: sharedIDs)
  func sharedPNGDecodesAtDisplaySize(id: String) throws {
    let entry = SharedPhotos.entry(id)
    let decoded = try ImageDecoder().decode(entry.url)
    let size = try #require(entry.displaySize)
    #expect(decoded.format == .png)
    #expect(decoded.image.width == size.width)
    #expect(decoded.image.height == size.height)
    #expect(decoded.image.format.bitDepth == Int(entry.fields["bit_depth"] ?? "") ?? 0)
    #expect(decoded.warnings.isEmpty, "\(decoded.warnings)")
    // Not all black: the pixels really were decoded.
    let sum = decoded.image.withUnsafeBytes { $0.reduce(0) { $0 + Int($1) } }
    #expect(sum > 0)
  }

  @Test func sixteenBitPNGStaysSixteenBit() throws {
    let decoded = try ImageDecoder(options: codecRawOptions()).decode(SharedPhotos.url("g30"))
    #expect(decoded.image.format == .rgb16)
    let levels = decoded.image.withUnsafeBytes { raw in Set(raw.bindMemory(to: UInt16.self)) }
    #expect(levels.count > 256, "only \(levels.count) distinct 16-bit values")
    // Reduced on request, rounding each value to the nearest 8-bit level.
    let reduced = try ImageDecoder(options: codecRawOptions { $0.keeps16Bit = false })
      .decode(SharedPhotos.url("g30"))
    #expect(reduced.image.format == .rgb8)
    for (x, y) in [(0, 0), (500, 300), (1023, 683)] {
      let wide = decoded.image.pixel(x: x, y: y)
      #expect(reduced.image.pixel(x: x, y: y) == wide.map { ($0 * 255 + 32767) / 65535 })
    }
  }

  @Test func readsICCProfileAndXMPFromSharedPNG() throws {
    let decoded = try ImageDecoder(options: codecRawOptions()).decode(SharedPhotos.url("s02"))
    let icc = try #require(decoded.metadata.blocks.iccProfile)
    #expect(icc.count > 128)
    #expect(icc[36..<40] == Data("acsp".utf8))  // ICC signature at byte 36
    let xmp = try #require(decoded.metadata.blocks.xmp)
    #expect(String(decoding: xmp, as: UTF8.self).hasPrefix("<x:xmpmeta"))
  }

  @Test func readMetadataStopsAtImageData() throws {
    // Everything after the first IDAT's length and type is gone: the header still reads.
    let data = try SharedPhotos.data("s02")
    let idat = try #require(data.range(of: Data("IDAT".utf8)))
    let cut = data.prefix(upTo: idat.upperBound)
    let (format, metadata, _) = try ImageDecoder().readMetadata(cut)
    #expect(format == .png)
    #expect(metadata.pixelSize == PixelSize(width: 451, height: 300))
    #expect(metadata.blocks.iccProfile != nil)
    let error = #expect(throws: ImageDecodingError.self) {
      try ImageDecoder(options: codecRawOptions { $0.strictness = .failOnTruncation }).decode(cut)
    }
    #expect(error?.kind == .truncated)
  }

  // MARK: Colour types and layouts (synthetic fixtures)

  @Test func paletteWithTransparencyBecomesRGBA() throws {
    let image = try ImageDecoder(options: codecRawOptions()).decode(
      codecFixtureData("palette-2bit-trns.png")
    )
    .image
    #expect(image.format == .rgba8)
    #expect(image.size == PixelSize(width: 13, height: 11))
    let alphas = [0, 85, 170, 255]
    for (x, y) in codecAllPoints(image) {
      let i = (x + y) % 4
      #expect(image.pixel(x: x, y: y) == [i * 60, 255 - i * 60, (i * 37) % 256, alphas[i]])
    }
  }

  @Test func greyBecomesRGB() throws {
    let eight = try ImageDecoder(options: codecRawOptions()).decode(codecFixtureData("grey8.png"))
      .image
    #expect(eight.format == .rgb8)
    for (x, y) in codecAllPoints(eight) {
      let v = (x * 16 + y * 8) % 256
      #expect(eight.pixel(x: x, y: y) == [v, v, v])
    }
    let four = try ImageDecoder(options: codecRawOptions()).decode(codecFixtureData("grey4.png"))
      .image
    #expect(four.format == .rgb8)
    for (x, y) in codecAllPoints(four) {
      let v = (x + y) % 16 * 17
      #expect(four.pixel(x: x, y: y) == [v, v, v])
    }
  }

  @Test func greyAlphaBecomesRGBA() throws {
    let image = try ImageDecoder(options: codecRawOptions()).decode(
      codecFixtureData("grey-alpha8.png")
    ).image
    #expect(image.format == .rgba8)
    for (x, y) in codecAllPoints(image) {
      let g = x * 19 % 256
      #expect(image.pixel(x: x, y: y) == [g, g, g, y * 23 % 256])
    }
  }

  @Test func interlacedImageDecodes() throws {
    let image = try ImageDecoder(options: codecRawOptions()).decode(
      codecFixtureData("adam7-rgb8.png")
    ).image
    #expect(image.format == .rgb8)
    for (x, y) in codecAllPoints(image) {
      #expect(image.pixel(x: x, y: y) == [x * 20 % 256, y * 20 % 256, x * y % 256])
    }
  }

  /// An APNG decodes as its default image, with a warning that its animation is not kept;
  /// a still PNG has no such warning.
  @Test func animatedPNGWarnsThatOnlyItsStillImageIsRead() throws {
    let decoder = ImageDecoder(options: codecRawOptions())
    let animated = try decoder.decode(codecFixtureData("apng-2frames.png"), source: "a.png")
    for (x, y) in codecAllPoints(animated.image) {
      #expect(animated.image.pixel(x: x, y: y) == [x * 20 % 256, y * 20 % 256, x * y % 256])
    }
    #expect(
      animated.warnings.contains { $0.hasPrefix("an animated PNG (2 frames): only its still") },
      "\(animated.warnings)")
    let still = try decoder.decode(codecFixtureData("adam7-rgb8.png"))
    #expect(!still.warnings.contains { $0.contains("animated") }, "\(still.warnings)")
  }

  @Test func sixteenBitRGBAIsExactOrRounded() throws {
    let data = try codecFixtureData("rgba16.png")
    func expected(_ x: Int, _ y: Int) -> [Int] {
      [x * 4099 % 65536, y * 5003 % 65536, (x * y * 257 + 1) % 65536, 65535 - x * 1000]
    }
    let wide = try ImageDecoder(options: codecRawOptions()).decode(data).image
    #expect(wide.format == .rgba16)
    for (x, y) in codecAllPoints(wide) { #expect(wide.pixel(x: x, y: y) == expected(x, y)) }
    let narrow = try ImageDecoder(options: codecRawOptions { $0.keeps16Bit = false }).decode(data)
      .image
    #expect(narrow.format == .rgba8)
    for (x, y) in codecAllPoints(narrow) {
      #expect(narrow.pixel(x: x, y: y) == expected(x, y).map { ($0 * 255 + 32767) / 65535 })
    }
  }

  @Test func xmpInCompressedTextAfterImageData() throws {
    let data = try codecFixtureData("xmp-ztxt-after-idat.png")
    let decoded = try ImageDecoder(options: codecRawOptions()).decode(data)
    let xmp = try #require(decoded.metadata.blocks.xmp)
    #expect(String(decoding: xmp, as: UTF8.self).hasPrefix("<x:xmpmeta"))
    // The header reader stops at IDAT, so it does not see the chunk.
    #expect(try ImageDecoder().readMetadata(data).metadata.blocks.xmp == nil)
  }

  // MARK: Damaged and hostile input

  @Test func truncatedPNGLenientKeepsDecodedRows() throws {
    let data = try SharedPhotos.data("s03")
    let cut = data.prefix(data.count / 2)
    let decoded = try ImageDecoder(options: codecRawOptions { $0.strictness = .lenient }).decode(
      cut)
    #expect(decoded.image.size == PixelSize(width: 600, height: 400))
    #expect(decoded.warnings.contains { $0.hasPrefix("truncated file:") })
    let full = try ImageDecoder(options: codecRawOptions()).decode(data).image
    // The first rows match the whole file's; the last row is black.
    let rowBytes = full.bytesPerRow
    let firstRowsMatch = full.withUnsafeBytes { a in
      decoded.image.withUnsafeBytes { b in
        a.prefix(rowBytes * 10).elementsEqual(b.prefix(rowBytes * 10))
      }
    }
    #expect(firstRowsMatch)
    let lastRowBlack = decoded.image.withUnsafeBytes { $0.suffix(rowBytes).allSatisfy { $0 == 0 } }
    #expect(lastRowBlack)
  }

  @Test(arguments: [DecodeOptions.Strictness.failOnTruncation, .failOnError, .failOnWarning])
  func truncatedPNGStrictThrows(strictness: DecodeOptions.Strictness) throws {
    let data = try SharedPhotos.data("s03")
    let error = #expect(throws: ImageDecodingError.self) {
      try ImageDecoder(options: codecRawOptions { $0.strictness = strictness })
        .decode(data.prefix(data.count / 2), source: "cut.png")
    }
    #expect(error?.kind == .truncated)
    #expect(
      error?.description.hasPrefix("cut.png: truncated file: image data stops at byte") == true)
  }

  @Test func truncatedInterlacedPNGThrowsEvenWhenLenient() throws {
    let data = try codecFixtureData("adam7-rgb8.png")
    let error = #expect(throws: ImageDecodingError.self) {
      try ImageDecoder(options: codecRawOptions { $0.strictness = .lenient }).decode(
        data.prefix(data.count - 40))
    }
    #expect(error?.kind == .truncated)
  }

  @Test func truncatedHeaderThrows() throws {
    let data = try codecFixtureData("grey8.png")
    let error = #expect(throws: ImageDecodingError.self) {
      try ImageDecoder(options: codecRawOptions { $0.strictness = .lenient }).decode(
        data.prefix(20))
    }
    #expect(error?.kind == .truncated)
  }

  @Test func forgedHugeIHDRIsTooLarge() throws {
    let error = #expect(throws: ImageDecodingError.self) {
      try ImageDecoder().decode(codecFixtureData("huge-ihdr.png"), source: "huge-ihdr.png")
    }
    #expect(error?.kind == .tooLarge)
    #expect(
      error?.description.hasPrefix("huge-ihdr.png: image too large: IHDR says 100000×100000")
        == true)
  }

  @Test func pixelLimitIsChecked() throws {
    let error = #expect(throws: ImageDecodingError.self) {
      try ImageDecoder(options: codecRawOptions { $0.maxPixels = 512 * 512 - 1 }).decode(
        SharedPhotos.url("s01"))
    }
    #expect(error?.kind == .tooLarge)
    #expect(
      try ImageDecoder(options: codecRawOptions { $0.maxPixels = 512 * 512 }).decode(
        SharedPhotos.url("s01")
      )
      .image.width == 512)
  }

  @Test func badCRCIsCorrupt() throws {
    let error = #expect(throws: ImageDecodingError.self) {
      try ImageDecoder(options: codecRawOptions { $0.strictness = .lenient }).decode(
        codecFixtureData("bad-crc.png"))
    }
    #expect(error?.kind == .corrupt)
    #expect(error?.detail.contains("CRC") == true)
  }

  @Test func garbageAfterSignatureIsCorrupt() throws {
    var rng = SeededRandom(seed: 7)
    let garbage =
      Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
      + Data((0..<4096).map { _ in UInt8(truncatingIfNeeded: rng.next()) })
    let error = #expect(throws: ImageDecodingError.self) { try ImageDecoder().decode(garbage) }
    #expect(error?.kind == .corrupt, "seed \(rng.seed)")
    let noSignature = #expect(throws: ImageDecodingError.self) {
      try ImageDecoder().decode(Data("not a picture at all".utf8))
    }
    #expect(noSignature?.kind == .unsupportedFormat)
  }

  // MARK: Encoding

  @Test(arguments: PixelFormat.allCases)
  func encodeDecodeRoundTripsExactly(format: PixelFormat) throws {
    let image = codecRandomImage(width: 37, height: 23, format: format, seed: 42)
    let png = try ImageEncoder().encode(image, as: .png)
    #expect(ImageFormat.sniff(png) == .png)
    let decoded = try ImageDecoder(options: codecRawOptions()).decode(png)
    #expect(decoded.image.format == format)
    #expect(decoded.image.hasSamePixels(as: image), "seed 42")
  }

  @Test func forcedBitDepthConvertsBothWays() throws {
    let eight = codecRandomImage(width: 9, height: 5, format: .rgba8, seed: 3)
    var options = EncodeOptions()
    options.pngBitDepth = 16
    let widened = try ImageDecoder(options: codecRawOptions())
      .decode(ImageEncoder(options: options).encode(eight, as: .png)).image
    #expect(widened.format == .rgba16)
    for (x, y) in codecAllPoints(eight) {
      #expect(widened.pixel(x: x, y: y) == eight.pixel(x: x, y: y).map { $0 * 257 })
    }
    let sixteen = codecRandomImage(width: 9, height: 5, format: .rgb16, seed: 4)
    options.pngBitDepth = 8
    let narrowed = try ImageDecoder(options: codecRawOptions())
      .decode(ImageEncoder(options: options).encode(sixteen, as: .png)).image
    #expect(narrowed.format == .rgb8)
    for (x, y) in codecAllPoints(sixteen) {
      #expect(
        narrowed.pixel(x: x, y: y) == sixteen.pixel(x: x, y: y).map { ($0 * 255 + 32767) / 65535 })
    }
    options.pngBitDepth = 12
    let error = #expect(throws: ImageEncodingError.self) {
      try ImageEncoder(options: options).encode(sixteen, as: .png)
    }
    #expect(error?.kind == .invalidParameter)
  }

  @Test func metadataBlocksRoundTripByteIdentically() throws {
    let icc = try #require(
      ImageDecoder(options: codecRawOptions()).decode(SharedPhotos.url("s01")).metadata.blocks
        .iccProfile
    )
    let blocks = MetadataBlocks(exif: codecSampleExif, xmp: codecSampleXMP, iccProfile: icc)
    let image = codecRandomImage(width: 8, height: 8, format: .rgb8, seed: 9)
    let png = try PNGCodec.encode(image, options: EncodeOptions(), blocks: blocks)
    let raw = try PNGCodec.decode(
      png, source: "<memory>", options: codecRawOptions { $0.strictness = .failOnWarning })
    #expect(raw.blocks.iccProfile == icc)
    #expect(raw.blocks.exif == codecSampleExif)
    #expect(raw.blocks.xmp == codecSampleXMP)
    #expect(raw.image.hasSamePixels(as: image))
    let header = try PNGCodec.readHeader(png, source: "<memory>", options: DecodeOptions())
    #expect(header.blocks == raw.blocks)
    #expect(header.storedSize == PixelSize(width: 8, height: 8))
  }

  @Test func iccProfileNameComesFromTheDescription() throws {
    let icc = try #require(
      ImageDecoder(options: codecRawOptions()).decode(SharedPhotos.url("s01")).metadata.blocks
        .iccProfile
    )
    #expect(ICCProfileName.pngKeyword(forProfile: [UInt8](icc)) == "sRGB IEC61966-2.1")
    #expect(ICCProfileName.pngKeyword(forProfile: [1, 2, 3]) == "ICC Profile")
  }
}
