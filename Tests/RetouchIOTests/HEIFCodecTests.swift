// SPDX-License-Identifier: Apache-2.0

import CRetouchLoaders
import Foundation
import RetouchCore
import RetouchTestSupport
import Testing

@testable import RetouchIO

/// A smooth synthetic photo stand-in: gradients with a soft disc, easy for HEVC to keep.
func codecSmoothImage(width: Int, height: Int, format: PixelFormat) -> Image {
  var image = Image(width: width, height: height, format: format)
  let scale = format.maxValue
  for y in 0..<height {
    for x in 0..<width {
      let fx = Double(x) / Double(width - 1)
      let fy = Double(y) / Double(height - 1)
      let d = hypot(fx - 0.5, fy - 0.5)
      let disc = max(0, 1 - d * 3)
      var c = [fx, fy, 0.3 + 0.5 * disc].map { Int(($0 * Double(scale)).rounded()) }
      if format.hasAlpha { c.append(Int(((0.25 + 0.75 * fx) * Double(scale)).rounded())) }
      image.setPixel(x: x, y: y, c)
    }
  }
  return image
}

@Suite struct HEIFCodecTests {
  /// Every HEIC/HEIF in the manifest except g23 (200 MP, tested on its own below).
  static let sharedIDs = [
    "g16", "g17", "g18", "g21", "g22", "g36", "g37", "g38", "g39", "g40", "g60", "g87",
  ]

  @Test func sharedListCoversEveryManifestHEIF() {
    let manifestIDs = SharedPhotos.manifest.filter { ["HEIC", "HEIF"].contains($0.format) }.map(
      \.id)
    #expect(Set(manifestIDs) == Set(Self.sharedIDs + ["g23"]))
  }

  @Test(arguments: sharedIDs)
  func sharedHEIFDecodesUpright(id: String) throws {
    let entry = SharedPhotos.entry(id)
    let decoded = try ImageDecoder().decode(entry.url)
    let size = try #require(entry.displaySize)
    #expect(decoded.format == .heif)
    #expect(decoded.image.size == PixelSize(width: size.width, height: size.height))
    #expect(decoded.image.format.bitDepth == 8)
    // The metadata is the file's own (the EXIF orientation mirrors `irot`); the pixels are upright.
    #expect(decoded.metadata.orientation.rawValue == entry.orientation ?? 1)
    #expect(
      decoded.metadata.pixelSize
        == PixelSize(
          width: Int(entry.fields["width"] ?? "") ?? 0,
          height: Int(entry.fields["height"] ?? "") ?? 0))
    let sum = decoded.image.withUnsafeBytes { raw in
      stride(from: 0, to: raw.count, by: 997).reduce(0) { $0 + Int(raw[$1]) }
    }
    #expect(sum > 0)
  }

  @Test func iPhoneHEICCarriesExifAndDisplayP3() throws {
    let decoded = try ImageDecoder(options: codecRawOptions()).decode(SharedPhotos.url("g16"))
    #expect(decoded.image.size == PixelSize(width: 3024, height: 4032))
    #expect(decoded.metadata.orientation == .right)
    let exif = try #require(decoded.metadata.blocks.exif)
    #expect(exif.prefix(4) == Data("MM\0*".utf8) || exif.prefix(4) == Data("II*\0".utf8))
    let icc = try #require(decoded.metadata.blocks.iccProfile)
    #expect(ICCProfileName.description(ofProfile: [UInt8](icc)) == "Display P3")
  }

  @Test func storedOrientationWhenNotApplied() throws {
    let options = codecRawOptions { $0.appliesOrientation = false }
    let decoded = try ImageDecoder(options: options).decode(SharedPhotos.url("g16"))
    #expect(decoded.image.size == PixelSize(width: 4032, height: 3024))
    let raw = try HEIFCodec.decode(SharedPhotos.data("g16"), source: "g16", options: options)
    #expect(!raw.orientationApplied)
    #expect(raw.storedSize == PixelSize(width: 4032, height: 3024))
  }

  @Test func readMetadataWithoutDecoding() throws {
    let (format, metadata, _) = try ImageDecoder().readMetadata(SharedPhotos.data("g16"))
    #expect(format == .heif)
    #expect(metadata.pixelSize == PixelSize(width: 4032, height: 3024))
    #expect(metadata.orientation == .right)
    #expect(metadata.blocks.exif != nil)
    #expect(metadata.blocks.iccProfile != nil)
  }

  @Test func nclxColourIsReported() throws {
    let header = try HEIFCodec.readHeader(
      SharedPhotos.data("g17"), source: "g17", options: DecodeOptions())
    let nclx = try #require(header.blocks.nclx)
    #expect(header.blocks.iccProfile == nil)
    #expect(nclx.colorPrimaries == 5)  // BT.470 System B, G
  }

  @Test func twoHundredMegapixelHEICIsRefusedUnderALowerLimit() throws {
    let error = #expect(throws: ImageDecodingError.self) {
      try ImageDecoder(options: codecRawOptions { $0.maxPixels = 100_000_000 }).decode(
        SharedPhotos.url("g23"))
    }
    #expect(error?.kind == .tooLarge)
    #expect(error?.detail.contains("16320×12240") == true)
  }

  @Test func twoHundredMegapixelHEICDecodes() throws {
    let decoded = try ImageDecoder(options: codecRawOptions()).decode(SharedPhotos.url("g23"))
    #expect(decoded.image.size == PixelSize(width: 12240, height: 16320))
    #expect(decoded.metadata.pixelSize == PixelSize(width: 16320, height: 12240))
  }

  // MARK: Damaged input

  @Test(arguments: [DecodeOptions.Strictness.lenient, .failOnTruncation])
  func truncatedHEICThrows(strictness: DecodeOptions.Strictness) throws {
    let data = try SharedPhotos.data("g36")
    let error = #expect(throws: ImageDecodingError.self) {
      try ImageDecoder(options: codecRawOptions { $0.strictness = strictness })
        .decode(data.prefix(data.count / 2), source: "cut.heic")
    }
    #expect(error?.kind == .truncated)
    #expect(error?.description.hasPrefix("cut.heic: truncated file: libheif") == true)
  }

  /// Random bytes after a HEIC or an AVIF file type.
  @Test(arguments: [("heic", ImageFormat.heif), ("avif", .avif)])
  func garbageAfterFtypIsRejected(brand: String, format: ImageFormat) throws {
    var rng = SeededRandom(seed: 11)
    let ftyp: [UInt8] =
      [0, 0, 0, 24] + Array("ftyp\(brand)".utf8) + [0, 0, 0, 0] + Array("mif1\(brand)".utf8)
    let garbage = Data(ftyp + (0..<4096).map { _ in UInt8(truncatingIfNeeded: rng.next()) })
    #expect(ImageFormat.sniff(garbage) == format)
    let error = #expect(throws: ImageDecodingError.self) { try ImageDecoder().decode(garbage) }
    #expect(error?.kind == .corrupt, "seed \(rng.seed)")
    #expect(error?.detail.hasPrefix("libheif, reading the container:") == true)
  }

  // MARK: Encoding

  @Test(arguments: [PixelFormat.rgb8, .rgba8, .rgb16])
  func encodeDecodeIsCloseToTheSource(format: PixelFormat) throws {
    let image = codecSmoothImage(width: 96, height: 64, format: format)
    let heic = try ImageEncoder().encode(image, as: .heif)
    #expect(ImageFormat.sniff(heic) == .heif)
    let decoded = try ImageDecoder(options: codecRawOptions()).decode(heic).image
    #expect(decoded.size == image.size)
    // A 16-bit image is written at 10 bits and read back at 16.
    #expect(decoded.format == format)
    // Quality 90 on a smooth image: HEVC error stays well under 2 levels on average.
    let error = ImageComparison.meanAbsoluteDifference(image, decoded)
    #expect(error < 2, "mean abs error \(error)")
  }

  /// A 16-bit ramp keeps more than 8 bits of levels through HEIC (10-bit HEVC).
  @Test func sixteenBitImagesKeepTenBits() throws {
    var ramp = Image(width: 1024, height: 8, format: .rgb16)
    for (x, y) in codecAllPoints(ramp) {
      ramp.setPixel(x: x, y: y, [x * 64, x * 64, x * 64])
    }
    var options = EncodeOptions()
    options.quality = 95
    let heic = try ImageEncoder(options: options).encode(ramp, as: .heif)
    let raw = try HEIFCodec.decode(heic, source: "<memory>", options: codecRawOptions())
    #expect(raw.sourceBitDepth == 10)
    let levels = raw.image.withUnsafeBytes { Set($0.bindMemory(to: UInt16.self)) }
    #expect(levels.count > 600, "\(levels.count) levels")
    #expect(ImageComparison.meanAbsoluteDifference(ramp, raw.image) < 0.5)
  }

  @Test func chromaFullResolutionKeepsColourEdges() throws {
    // One-pixel colour stripes: 4:2:0 must blur them, 4:4:4 keeps them much closer.
    var image = Image(width: 64, height: 64, format: .rgb8)
    for (x, y) in codecAllPoints(image) {
      image.setPixel(x: x, y: y, x % 2 == 0 ? [220, 40, 40] : [40, 40, 220])
    }
    var options = EncodeOptions()
    options.chromaSubsampling = .s444
    let full = try ImageDecoder(options: codecRawOptions()).decode(
      ImageEncoder(options: options).encode(image, as: .heif))
    options.chromaSubsampling = .s420
    let half = try ImageDecoder(options: codecRawOptions()).decode(
      ImageEncoder(options: options).encode(image, as: .heif))
    let fullError = ImageComparison.meanAbsoluteDifference(image, full.image)
    let halfError = ImageComparison.meanAbsoluteDifference(image, half.image)
    #expect(fullError < halfError / 2, "4:4:4 \(fullError), 4:2:0 \(halfError)")
  }

  /// ICC, EXIF and XMP survive a HEIC and an AVIF written by us.
  @Test(arguments: [HEIFCodec.Compression.hevc, .av1])
  func metadataBlocksRoundTrip(compression: HEIFCodec.Compression) throws {
    let source = try HEIFCodec.readHeader(
      SharedPhotos.data("g16"), source: "g16", options: DecodeOptions())
    let icc = try #require(source.blocks.iccProfile)
    let exif = try #require(source.blocks.exif)
    let blocks = MetadataBlocks(exif: exif, xmp: codecSampleXMP, iccProfile: icc)
    let image = codecSmoothImage(width: 64, height: 48, format: .rgb8)
    let file = try HEIFCodec.encode(
      image, options: EncodeOptions(), blocks: blocks, compression: compression)
    let raw = try HEIFCodec.decode(file, source: "<memory>", options: codecRawOptions())
    #expect(raw.blocks.iccProfile == icc)
    #expect(raw.blocks.exif == exif)
    #expect(raw.blocks.xmp == codecSampleXMP)
    // A small synthetic TIFF block too (libheif adds the item's offset field itself).
    let small = try HEIFCodec.encode(
      image, options: EncodeOptions(), blocks: MetadataBlocks(exif: codecSampleExif),
      compression: compression)
    #expect(
      try HEIFCodec.readHeader(small, source: "<memory>", options: DecodeOptions()).blocks.exif
        == codecSampleExif)
  }

  @Test func exifItemOffsetIsStripped() {
    #expect(
      HEIFCodec.tiffPart(ofExifItem: [0, 0, 0, 6] + Array("Exif\0\0".utf8) + [0x4D, 0x4D])
        == Data([0x4D, 0x4D]))
    #expect(HEIFCodec.tiffPart(ofExifItem: [0, 0, 0, 0, 0x49, 0x49]) == Data([0x49, 0x49]))
    #expect(HEIFCodec.tiffPart(ofExifItem: [0, 0, 0, 9, 1, 2]) == nil)
    #expect(HEIFCodec.tiffPart(ofExifItem: [0xFF, 0xFF, 0xFF, 0xFF, 1]) == nil)
  }
}

// MARK: - 10-bit sources (made with libheif directly; the manifest has only 8-bit HEICs)

/// Encodes a 10-bit HEIC: a horizontal grey ramp over the full 0...1023 range, white on the right,
/// with an `nclx` colour box when `nclx` is given (primaries, transfer, matrix code points).
func codecTenBitHEIC(width: Int, height: Int, nclx: (Int, Int, Int)? = nil) throws -> Data {
  // Loads libheif (on first use, see rt_loaders.h) and initialises it, as the codec does.
  #expect(HEIFLibrary.initialize() == nil)
  let context = try #require(heif_context_alloc())
  defer { heif_context_free(context) }
  var encoder: OpaquePointer?
  #expect(
    heif_context_get_encoder_for_format(context, heif_compression_HEVC, &encoder).code
      == heif_error_Ok)
  let hevc = try #require(encoder)
  defer { heif_encoder_release(hevc) }
  #expect(heif_encoder_set_lossy_quality(hevc, 95).code == heif_error_Ok)
  var image: OpaquePointer?
  #expect(
    heif_image_create(
      Int32(width), Int32(height), heif_colorspace_RGB, heif_chroma_interleaved_RRGGBB_LE, &image
    )
    .code == heif_error_Ok)
  let picture = try #require(image)
  defer { heif_image_release(picture) }
  #expect(
    heif_image_add_plane(picture, heif_channel_interleaved, Int32(width), Int32(height), 10).code
      == heif_error_Ok)
  var stride: Int32 = 0
  let plane = try #require(heif_image_get_plane(picture, heif_channel_interleaved, &stride))
  for y in 0..<height {
    let row = UnsafeMutableRawPointer(plane + y * Int(stride))
    for x in 0..<width {
      let v = UInt16(x * 1023 / (width - 1))
      for c in 0..<3 {
        row.storeBytes(of: v.littleEndian, toByteOffset: (x * 3 + c) * 2, as: UInt16.self)
      }
    }
  }
  if let (primaries, transfer, matrix) = nclx {
    var profile = heif_color_profile_nclx()
    profile.version = 1
    profile.color_primaries = heif_color_primaries(UInt32(primaries))
    profile.transfer_characteristics = heif_transfer_characteristics(UInt32(transfer))
    profile.matrix_coefficients = heif_matrix_coefficients(UInt32(matrix))
    profile.full_range_flag = 1
    #expect(heif_image_set_nclx_color_profile(picture, &profile).code == heif_error_Ok)
  }
  // libheif leaves the nclx box out by default (an old macOS could not read it).
  let options = try #require(heif_encoding_options_alloc())
  defer { heif_encoding_options_free(options) }
  options.pointee.macOS_compatibility_workaround_no_nclx_profile = 0
  #expect(heif_context_encode_image(context, picture, hevc, options, nil).code == heif_error_Ok)
  final class Sink { var data = Data() }
  let sink = Sink()
  var writer = heif_writer(writer_api_version: 1) { _, bytes, count, user in
    if let bytes, let user {
      Unmanaged<Sink>.fromOpaque(user).takeUnretainedValue().data.append(
        bytes.assumingMemoryBound(to: UInt8.self), count: count)
    }
    return heif_error(code: heif_error_Ok, subcode: heif_suberror_Unspecified, message: nil)
  }
  #expect(
    heif_context_write(context, &writer, Unmanaged.passUnretained(sink).toOpaque()).code
      == heif_error_Ok)
  return sink.data
}

extension HEIFCodecTests {
  @Test func tenBitHEICScalesToTheFull16BitRange() throws {
    let data = try codecTenBitHEIC(width: 256, height: 32)
    let raw = try HEIFCodec.decode(data, source: "<memory>", options: codecRawOptions())
    #expect(raw.sourceBitDepth == 10)
    #expect(raw.image.format == .rgb16)
    let values = raw.image.withUnsafeBytes { Set($0.bindMemory(to: UInt16.self)) }
    #expect(values.count > 200, "\(values.count) levels")
    #expect((values.max() ?? 0) >= 65000)
    // Every value is a 10-bit code stretched by v × 65535 / 1023 (rounded), not shifted left.
    let offGrid = values.filter { u in
      let code = (Int(u) * 1023 + 32767) / 65535
      return (code * 65535 + 511) / 1023 != Int(u)
    }
    #expect(offGrid.isEmpty, "\(offGrid.sorted().prefix(5))")
  }

  /// A 10-bit HLG HEIC in BT.2020, as cameras write them, comes out tone-mapped in Display P3:
  /// the 50 % code (scene light 1/12, 51 nits on the 1,000-nit reference display) keeps its
  /// level, 75 % (reference white, 203 nits) sits on the shoulder, the top code is white.
  @Test func hlgHEICIsToneMapped() throws {
    let width = 1024
    let data = try codecTenBitHEIC(width: width, height: 16, nclx: (9, 18, 9))
    let decoded = try ImageDecoder().decode(data)
    #expect(decoded.warnings.isEmpty, "\(decoded.warnings)")
    #expect(decoded.metadata.blocks.nclx?.transferCharacteristics == 18)
    #expect(decoded.image.colorSpace == .displayP3)
    #expect(decoded.image.format == .rgb16)
    func light(atCode code: Int) -> Double {
      let x = code * (width - 1) / 1023
      let p = decoded.image.pixel(x: x, y: 8)
      return Double(SRGBTransfer.decode(Float(p[1]) / 65535))
    }
    let mid = 1000 * pow(1.0 / 12, 1.2) / HDRToneMapping.referenceWhite
    #expect(abs(light(atCode: 512) - mid) < 0.01, "\(light(atCode: 512)), expected \(mid)")
    // Reference white on a 1,000-nit peak: 0.8 + 0.2 × g(1) with reach (4.93 − 0.8) / 0.2.
    let reach = (1000 / HDRToneMapping.referenceWhite - 0.8) / 0.2
    let white = 0.8 + 0.2 * (1 + 1 / (reach * reach)) / 2
    #expect(abs(light(atCode: 767) - white) < 0.01, "\(light(atCode: 767)), expected \(white)")
    #expect(light(atCode: 1023) > 0.99)
    #expect(light(atCode: 0) < 0.001)
  }

  @Test func tenBitHEICReducedTo8BitOnRequest() throws {
    let data = try codecTenBitHEIC(width: 64, height: 16)
    let decoded = try ImageDecoder(options: codecRawOptions { $0.keeps16Bit = false }).decode(data)
    #expect(decoded.image.format == .rgb8)
    #expect(decoded.image.pixel(x: 63, y: 8).allSatisfy { $0 >= 250 })
    #expect(decoded.image.pixel(x: 0, y: 8).allSatisfy { $0 <= 5 })
  }
}
