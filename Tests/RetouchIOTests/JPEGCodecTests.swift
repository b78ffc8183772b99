// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchTestSupport
import Testing

@testable import RetouchIO

// MARK: - Helpers

/// A 8-bit RGB test picture: smooth gradients, a few hard-edged patches and seeded noise, so
/// that both flat areas and detail are exercised.
private func makePicture(width: Int, height: Int, seed: UInt64 = 42) -> Image {
  var rng = SeededRandom(seed: seed)
  var bytes = [UInt8](repeating: 0, count: width * height * 3)
  for y in 0..<height {
    for x in 0..<width {
      let i = (y * width + x) * 3
      let noise = Int(rng.next() % 9) - 4
      var r = x * 255 / max(width - 1, 1)
      var g = y * 255 / max(height - 1, 1)
      var b = (x + y) * 255 / max(width + height - 2, 1)
      if (x / 40 + y / 40) % 5 == 0 { (r, g, b) = (230, 40, 50) }
      bytes[i] = UInt8(clamping: r + noise)
      bytes[i + 1] = UInt8(clamping: g + noise)
      bytes[i + 2] = UInt8(clamping: 255 - b + noise)
    }
  }
  return Image(width: width, height: height, format: .rgb8, bytes: bytes)
}

/// `image` shrunk by box-averaging `factor`×`factor` blocks (edge blocks average what exists).
private func boxShrunk(_ image: Image, by factor: Int) -> Image {
  let w = (image.width + factor - 1) / factor
  let h = (image.height + factor - 1) / factor
  var out = Image(width: w, height: h, format: .rgb8)
  for y in 0..<h {
    for x in 0..<w {
      var sum = [0, 0, 0]
      var n = 0
      for sy in (y * factor)..<min((y + 1) * factor, image.height) {
        for sx in (x * factor)..<min((x + 1) * factor, image.width) {
          let p = image.pixel(x: sx, y: sy)
          for c in 0..<3 { sum[c] += p[c] }
          n += 1
        }
      }
      out.setPixel(x: x, y: y, sum.map { ($0 + n / 2) / n })
    }
  }
  return out
}

/// The marker segments of a JPEG up to SOS: (marker byte, offset of the 0xFF, total length
/// including the marker).
private func segments(_ data: Data) -> [(marker: UInt8, offset: Int, length: Int)] {
  let b = [UInt8](data)
  var result: [(UInt8, Int, Int)] = []
  var i = 2
  while i + 4 <= b.count, b[i] == 0xFF {
    let marker = b[i + 1]
    let length = Int(b[i + 2]) << 8 | Int(b[i + 3])
    result.append((marker, i, length + 2))
    if marker == 0xDA { break }
    i += length + 2
  }
  return result
}

/// `data` without the marker segments for which `drop` is true.
private func removingSegments(
  _ data: Data, where drop: (_ marker: UInt8, _ payload: Data) -> Bool
) -> Data {
  var out = data
  for s in segments(data).reversed() {
    let payload = data.subdata(in: (s.offset + 4)..<(s.offset + s.length))
    if drop(s.marker, payload) { out.removeSubrange(s.offset..<(s.offset + s.length)) }
  }
  return out
}

/// A minimal JPEG header (SOI, SOFn, SOS) claiming the given size; no tables, a little scan data.
private func forgedHeader(sof: UInt8 = 0xC0, precision: UInt8 = 8, width: Int, height: Int) -> Data
{
  var b: [UInt8] = [0xFF, 0xD8]
  b += [
    0xFF, sof, 0x00, 0x0B, precision, UInt8(height >> 8), UInt8(height & 0xFF),
    UInt8(width >> 8), UInt8(width & 0xFF), 0x01, 0x01, 0x11, 0x00,
  ]
  b += [0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3F, 0x00]
  b += [UInt8](repeating: 0x55, count: 64) + [0xFF, 0xD9]
  return Data(b)
}

private func decode(_ data: Data, _ configure: (inout DecodeOptions) -> Void = { _ in })
  throws(ImageDecodingError) -> RawDecode
{
  var options = DecodeOptions()
  configure(&options)
  return try JPEGCodec.decode(data, source: "test.jpg", options: options)
}

private func encode(
  _ image: Image, _ configure: (inout EncodeOptions) -> Void = { _ in },
  blocks: MetadataBlocks = MetadataBlocks()
) throws(ImageEncodingError) -> Data {
  var options = EncodeOptions()
  configure(&options)
  return try JPEGCodec.encode(image, options: options, blocks: blocks)
}

private func contains(_ data: Data, _ bytes: [UInt8]) -> Bool {
  data.range(of: Data(bytes)) != nil
}

// MARK: - Real photos

@Suite struct JPEGCodecTests {
  @Test(arguments: ["g12", "g63", "g04", "d16", "g44", "g58", "g26"])
  func realPhotoDecodesAtStoredSize(id: String) throws {
    let entry = SharedPhotos.entry(id)
    let raw = try decode(try SharedPhotos.data(id))
    let width = try #require(Int(entry.fields["width"] ?? ""))
    let height = try #require(Int(entry.fields["height"] ?? ""))
    #expect(raw.storedSize == PixelSize(width: width, height: height))
    #expect(raw.image.size == raw.storedSize)
    #expect(raw.image.format == .rgb8)
    #expect(raw.image.colorSpace == .sRGB)
    #expect(raw.scaleEighths == 8)
    #expect(raw.sourceBitDepth == 8)
    #expect(!raw.convertedFromCMYK)
    // A photo is not one flat colour: a broken decode (all zero, all grey) would be.
    let corners = [
      raw.image.pixel(x: 0, y: 0), raw.image.pixel(x: width / 2, y: height / 2),
      raw.image.pixel(x: width - 1, y: height - 1),
    ]
    #expect(Set(corners).count > 1)
  }

  @Test func publicDecoderReportsFullSizeOfUprightPhoto() throws {
    let decoded = try ImageDecoder().decode(SharedPhotos.url("g12"))
    #expect(decoded.format == .jpeg)
    #expect(decoded.image.size == PixelSize(width: 4032, height: 3024))
    #expect(decoded.metadata.pixelSize == PixelSize(width: 4032, height: 3024))
  }

  @Test func greyscalePhotoIsExpandedToEqualChannels() throws {
    let raw = try decode(try SharedPhotos.data("g58"))  // one-component SOF
    for (x, y) in [(10, 10), (350, 420), (699, 839)] {
      let p = raw.image.pixel(x: x, y: y)
      #expect(p[0] == p[1] && p[1] == p[2], "pixel (\(x), \(y)) = \(p)")
    }
  }

  @Test func metadataSegmentsOfRealPhotos() throws {
    // g25: EXIF + ICC; g26: MPF index of an Ultra HDR file.
    let dog = try decode(try SharedPhotos.data("g25"))
    let exif = try #require(dog.blocks.exif)
    #expect(exif.starts(with: Data("II*\0".utf8)) || exif.starts(with: Data("MM\0*".utf8)))
    let icc = try #require(dog.blocks.iccProfile)
    #expect(icc.count >= 128)
    #expect(icc.subdata(in: 36..<40) == Data("acsp".utf8))  // ICC.1 header signature
    let header = try JPEGCodec.readHeader(
      try SharedPhotos.data("g25"), source: "g25", options: DecodeOptions())
    #expect(header.storedSize == PixelSize(width: 4032, height: 3024))
    #expect(header.blocks == dog.blocks)
    #expect(header.orientationApplied == false)

    let mpf = try #require(try decode(try SharedPhotos.data("g26")).blocks.mpf)
    #expect(mpf.starts(with: Data("II*\0".utf8)) || mpf.starts(with: Data("MM\0*".utf8)))
  }

  // MARK: - Progressive, restart markers

  @Test func progressiveOutputIsProgressiveAndDecodesLikeBaseline() throws {
    let picture = makePicture(width: 320, height: 240)
    let baseline = try encode(picture)
    let progressive = try encode(picture) { $0.progressive = true }
    let markers = segments(progressive).map(\.marker)
    #expect(markers.contains(0xC2))
    #expect(!markers.contains(0xC0))
    #expect(segments(baseline).map(\.marker).contains(0xC0))
    // Same quantisation, so the same coefficients and, decoded, the same pixels.
    let a = try decode(baseline).image
    let b = try decode(progressive).image
    #expect(a.hasSamePixels(as: b))
  }

  @Test func restartMarkersDecodeToTheSamePixels() throws {
    let picture = makePicture(width: 256, height: 200)
    let plain = try JPEGCodec.encode(
      picture, options: EncodeOptions(), blocks: MetadataBlocks(), restartInterval: 0)
    let restarts = try JPEGCodec.encode(
      picture, options: EncodeOptions(), blocks: MetadataBlocks(), restartInterval: 2)
    #expect(segments(restarts).map(\.marker).contains(0xDD))  // DRI
    #expect(contains(restarts, [0xFF, 0xD3]))  // RST3 in the scan
    let a = try decode(plain)
    let b = try decode(restarts)
    #expect(b.warnings.isEmpty)
    #expect(a.image.hasSamePixels(as: b.image))
  }

  @Test func garbageBeforeRestartMarkerIsCorruptDataWarning() throws {
    let picture = makePicture(width: 256, height: 200)
    var data = try JPEGCodec.encode(
      picture, options: EncodeOptions(), blocks: MetadataBlocks(), restartInterval: 2)
    let rst = try #require(data.range(of: Data([0xFF, 0xD3])))
    data.insert(contentsOf: [0x12, 0x34, 0x56], at: rst.lowerBound)

    let lenient = try decode(data)
    #expect(lenient.image.size == picture.size)
    #expect(lenient.warnings.contains { $0.hasPrefix("corrupt data: libjpeg: Corrupt JPEG data") })

    let error = #expect(throws: ImageDecodingError.self) {
      try decode(data) { $0.strictness = .failOnError }
    }
    #expect(error?.kind == .corrupt)
    #expect(error?.detail.contains("extraneous bytes") == true)
  }

  // MARK: - Greyscale and CMYK files

  @Test func greyscaleFileDecodesToRGB() throws {
    let (w, h) = (64, 48)
    let samples = (0..<(w * h)).map { UInt8(($0 % w) * 4) }
    let data = try JPEGCodec.encode(
      samples: samples, width: w, height: h, layout: .grey, options: EncodeOptions())
    let raw = try decode(data)
    #expect(raw.image.size == PixelSize(width: w, height: h))
    var worst = 0
    for y in stride(from: 0, to: h, by: 7) {
      for x in 0..<w {
        let p = raw.image.pixel(x: x, y: y)
        #expect(p[0] == p[1] && p[1] == p[2])
        worst = max(worst, abs(p[0] - x * 4))
      }
    }
    // q90 on a horizontal ramp: ringing stays within a few code values.
    #expect(worst <= 6, "worst difference \(worst)")
  }

  /// Four patches of pure ink (C, M, Y, K) and one of no ink, as Photoshop stores them (inverted).
  private func cmykPatches(width: Int, height: Int) -> [UInt8] {
    let inks: [[UInt8]] = [
      [255, 0, 0, 0], [0, 255, 0, 0], [0, 0, 255, 0], [0, 0, 0, 255], [0, 0, 0, 0],
    ]
    var samples: [UInt8] = []
    for _ in 0..<height {
      for x in 0..<width { samples += inks[x * inks.count / width].map { 255 - $0 } }
    }
    return samples
  }

  private let expectedPatchRGB = [
    [0, 255, 255], [255, 0, 255], [255, 255, 0], [0, 0, 0], [255, 255, 255],
  ]

  @Test(arguments: [JPEGSampleLayout.cmyk, .ycck])
  func adobeCMYKConvertsToRGB(layout: JPEGSampleLayout) throws {
    let (w, h) = (160, 32)
    let data = try JPEGCodec.encode(
      samples: cmykPatches(width: w, height: h), width: w, height: h, layout: layout,
      options: EncodeOptions())
    #expect(segments(data).contains { $0.marker == 0xEE })  // Adobe APP14
    let raw = try decode(data)
    #expect(raw.convertedFromCMYK)
    #expect(raw.image.format == .rgb8)
    for (i, expected) in expectedPatchRGB.enumerated() {
      let p = raw.image.pixel(x: i * 32 + 16, y: 16)
      for c in 0..<3 { #expect(abs(p[c] - expected[c]) <= 8, "patch \(i): \(p) vs \(expected)") }
    }
  }

  @Test func cmykWithoutAdobeMarkerIsNotInverted() throws {
    let (w, h) = (160, 32)
    let adobe = try JPEGCodec.encode(
      samples: cmykPatches(width: w, height: h), width: w, height: h, layout: .cmyk,
      options: EncodeOptions())
    let plain = removingSegments(adobe) { marker, _ in marker == 0xEE }
    let raw = try decode(plain)
    #expect(raw.convertedFromCMYK)
    // The stored values are now read as ink amounts: the "no ink" patch (stored 255s) is black
    // and the cyan patch (stored 0, 255, 255, 255) is black too, since K = 255.
    #expect(raw.image.pixel(x: 4 * 32 + 16, y: 16).allSatisfy { $0 <= 8 })
  }

  // MARK: - DCT scaling

  @Test(arguments: [
    (300, 4, 300, 225), (150, 2, 150, 113), (75, 1, 75, 57), (10, 1, 75, 57), (301, 5, 375, 282),
    (600, 8, 600, 450), (450, 6, 450, 338),
  ])
  func dctScalingPicksLargestReduction(minimum: Int, eighths: Int, width: Int, height: Int)
    throws
  {
    let data = try SharedPhotos.data("g04")  // 600×450
    let full = try decode(data).image
    let scaled = try decode(data) { $0.minimumLongEdge = minimum }
    #expect(scaled.scaleEighths == eighths)
    #expect(scaled.image.size == PixelSize(width: width, height: height))
    #expect(scaled.storedSize == PixelSize(width: 600, height: 450))
    // DCT scaling is close to averaging the full decode over blocks, not equal: its
    // reconstruction filter differs from a box at edges (measured 0.43–0.55 code values on
    // average at 1/2–1/8). Fractional scales are compared with a Lanczos shrink of the full
    // decode, a different filter again (no antialiasing in the DCT, Lanczos ringing), measured
    // 4.2 at 6/8 and 6.1 at 5/8 on this busy test photo. Both bounds still fail for a shifted,
    // flipped or wrongly scaled result, which differs by tens of code values (checked below).
    if 8 % eighths == 0 {
      let factor = 8 / eighths
      let error = ImageComparison.meanAbsoluteDifference(scaled.image, boxShrunk(full, by: factor))
      #expect(error < 1.5, "mean abs error \(error) at 1/\(factor)")
    } else {
      let shrunk = full.resized(to: scaled.image.size)
      let error = ImageComparison.meanAbsoluteDifference(scaled.image, shrunk)
      #expect(error < 8, "mean abs error \(error) at \(eighths)/8")
      let mirrored = ImageComparison.meanAbsoluteDifference(
        scaled.image.applyingOrientation(.upMirrored), shrunk)
      #expect(mirrored > 3 * error, "a mirrored result (\(mirrored)) must be told apart")
    }
  }

  @Test func publicDecoderReportsScaleAndFullSize() throws {
    var options = DecodeOptions()
    options.minimumLongEdge = 500
    let decoded = try ImageDecoder(options: options).decode(SharedPhotos.url("g12"))  // 4032×3024
    #expect(decoded.scale == 1.0 / 8)
    #expect(decoded.image.size == PixelSize(width: 504, height: 378))
    #expect(decoded.metadata.pixelSize == PixelSize(width: 4032, height: 3024))
  }

  // MARK: - Damage

  @Test(arguments: [false, true])
  func truncatedFileIsLenientOrRefused(progressive: Bool) throws {
    let picture = makePicture(width: 320, height: 240)
    let data = try encode(picture) { $0.progressive = progressive }
    let cut = data.prefix(data.count * 6 / 10)

    let lenient = try decode(cut)
    #expect(lenient.image.size == picture.size)
    let warning = try #require(lenient.warnings.first { $0.hasPrefix("truncated file:") })
    #expect(warning.contains("scan data stops at byte \(cut.count)"))
    // The top of the picture came through intact.
    let top = lenient.image.pixel(x: 100, y: 2)
    let source = picture.pixel(x: 100, y: 2)
    for c in 0..<3 { #expect(abs(top[c] - source[c]) <= 24, "\(top) vs \(source)") }

    let error = #expect(throws: ImageDecodingError.self) {
      try decode(cut) { $0.strictness = .failOnTruncation }
    }
    #expect(error?.kind == .truncated)
    #expect(
      error?.description.hasPrefix("test.jpg: truncated file: scan data stops at byte") == true)
    // Stricter levels still name the damage for what it is.
    let strictest = #expect(throws: ImageDecodingError.self) {
      try decode(cut) { $0.strictness = .failOnWarning }
    }
    #expect(strictest?.kind == .truncated)
  }

  @Test func sequentialTruncationNamesTheRow() throws {
    let picture = makePicture(width: 320, height: 240)
    let data = try encode(picture)
    let raw = try decode(data.prefix(data.count / 2))
    let warning = try #require(raw.warnings.first { $0.hasPrefix("truncated file:") })
    let row = try #require(
      warning.split(separator: " ").drop { $0 != "row" }.dropFirst().first.flatMap { Int($0) })
    #expect(row > 0 && row < 240, "\(warning)")
  }

  @Test func missingEndMarkerAloneIsAWarningNotTruncation() throws {
    let data = try encode(makePicture(width: 64, height: 64))
    #expect(data.suffix(2) == Data([0xFF, 0xD9]))
    let cut = data.dropLast(2)
    let raw = try decode(Data(cut)) { $0.strictness = .failOnError }
    #expect(raw.warnings.contains { $0.contains("EOI") })
    #expect(!raw.warnings.contains { $0.hasPrefix("truncated file:") })
    let error = #expect(throws: ImageDecodingError.self) {
      try decode(Data(cut)) { $0.strictness = .failOnWarning }
    }
    #expect(error?.kind == .warning)
  }

  @Test func damagedFilesThrowOrDecodeAtTheirSize() throws {
    // Seeded byte flips (mostly in the headers and tables) and cuts of a small file: every
    // outcome must be an image of the header's size or an ImageDecodingError, never a crash.
    let seed: UInt64 = 20_240_601
    var rng = SeededRandom(seed: seed)
    let original = [UInt8](try encode(makePicture(width: 96, height: 64)))
    var decoded = 0
    for trial in 0..<300 {
      var bytes = original
      for _ in 0..<(1 + Int(rng.next() % 6)) {
        let limit = trial % 2 == 0 ? min(bytes.count, 700) : bytes.count
        bytes[Int(rng.next() % UInt64(limit))] = UInt8(truncatingIfNeeded: rng.next())
      }
      if trial % 3 == 0 { bytes = Array(bytes.prefix(1 + Int(rng.next() % UInt64(bytes.count)))) }
      for strictness in [DecodeOptions.Strictness.lenient, .failOnWarning] {
        do {
          let raw = try decode(Data(bytes)) { $0.strictness = strictness }
          #expect(raw.image.size == raw.storedSize, "seed \(seed), trial \(trial)")
          decoded += 1
        } catch {
          #expect(!error.detail.isEmpty, "seed \(seed), trial \(trial)")
        }
      }
    }
    #expect(decoded > 0)
  }

  @Test func garbageAfterSOIIsCorruptWithLibjpegMessage() throws {
    let data = Data([0xFF, 0xD8, 0xFF]) + Data("hello, this is not an image at all".utf8)
    let error = #expect(throws: ImageDecodingError.self) { try decode(data) }
    #expect(error?.kind == .corrupt)
    #expect(error?.detail.contains("libjpeg") == true)
    #expect(error?.detail.contains("Unsupported marker type 0x68") == true)
  }

  @Test func nonJPEGIsUnsupportedFormat() throws {
    let error = #expect(throws: ImageDecodingError.self) {
      try decode(Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]))
    }
    #expect(error?.kind == .unsupportedFormat)
    #expect(error?.detail.contains("Not a JPEG file") == true)
  }

  @Test func headerCutShortIsTruncated() throws {
    let data = try encode(makePicture(width: 64, height: 64))
    let sos = try #require(segments(data).first { $0.marker == 0xDA })
    let error = #expect(throws: ImageDecodingError.self) {
      try decode(data.prefix(sos.offset - 30))
    }
    #expect(error?.kind == .truncated)
  }

  @Test func forgedHugeHeaderIsTooLargeBeforeAllocating() throws {
    // 60000×60000 RGB would need 10.8 GB; the check must come before any pixel allocation.
    let error = #expect(throws: ImageDecodingError.self) {
      try decode(forgedHeader(width: 60000, height: 60000))
    }
    #expect(error?.kind == .tooLarge)
    #expect(error?.detail.contains("60000×60000") == true)

    let small = #expect(throws: ImageDecodingError.self) {
      try decode(try SharedPhotos.data("g04")) { $0.maxPixels = 600 * 450 - 1 }
    }
    #expect(small?.kind == .tooLarge)
  }

  @Test(arguments: [(UInt8(0xC1), UInt8(12)), (0xC3, 8)])
  func twelveBitAndLosslessAreUnsupportedVariants(sof: UInt8, precision: UInt8) throws {
    let error = #expect(throws: ImageDecodingError.self) {
      try decode(forgedHeader(sof: sof, precision: precision, width: 16, height: 16))
    }
    #expect(error?.kind == .unsupportedVariant)
    #expect(error?.detail.contains("libjpeg") == true)
  }

  // MARK: - Encoding

  @Test func roundTripAtQuality95IsClose() throws {
    let picture = makePicture(width: 320, height: 240)
    let q444 = try decode(
      try encode(picture) {
        $0.quality = 95
        $0.chromaSubsampling = .s444
      }
    ).image
    let q420 = try decode(
      try encode(picture) {
        $0.quality = 95
        $0.chromaSubsampling = .s420
      }
    ).image
    let error444 = ImageComparison.meanAbsoluteDifference(picture, q444)
    let error420 = ImageComparison.meanAbsoluteDifference(picture, q420)
    // Measured 1.41 (4:4:4) and 2.29 (4:2:0) code values on average: q95 keeps the ±4 noise
    // mostly, and 4:2:0 also blurs the colour edges of the red patches, 4:4:4 does not.
    #expect(error444 < 2.0, "4:4:4 error \(error444)")
    #expect(error420 < 3.0, "4:2:0 error \(error420)")
    #expect(error444 < error420)
  }

  @Test(arguments: [(EncodeOptions.ChromaSubsampling.s420, UInt8(0x22)), (.s444, 0x11)])
  func chromaSubsamplingIsWrittenInSOF(
    subsampling: EncodeOptions.ChromaSubsampling, lumaFactors: UInt8
  ) throws {
    let data = try encode(makePicture(width: 64, height: 64)) { $0.chromaSubsampling = subsampling }
    let sof = try #require(segments(data).first { $0.marker == 0xC0 })
    let bytes = [UInt8](data)
    // SOF: marker, length(2), precision, height(2), width(2), count, then id/factors/table.
    #expect(bytes[sof.offset + 9] == 3)
    #expect(bytes[sof.offset + 11] == lumaFactors)
    #expect(bytes[sof.offset + 14] == 0x11)
  }

  @Test func qualityChangesTheFile() throws {
    let picture = makePicture(width: 128, height: 128)
    let low = try encode(picture) { $0.quality = 30 }
    let high = try encode(picture) { $0.quality = 98 }
    #expect(low.count < high.count)
    let optimized = try encode(picture) { $0.optimizesHuffman = true }
    let standard = try encode(picture)
    #expect(optimized.count < standard.count)
    #expect(try decode(optimized).image.hasSamePixels(as: decode(standard).image))
  }

  @Test func metadataBlocksRoundTripByteForByte() throws {
    var rng = SeededRandom(seed: 7)
    let exif =
      Data("MM\0*".utf8) + Data((0..<3000).map { _ in UInt8(truncatingIfNeeded: rng.next()) })
    let xmp = Data("<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF/></x:xmpmeta>".utf8)
    let icc = Data((0..<5000).map { _ in UInt8(truncatingIfNeeded: rng.next()) })
    let blocks = MetadataBlocks(exif: exif, xmp: xmp, iccProfile: icc)
    let data = try encode(makePicture(width: 64, height: 48), blocks: blocks)

    // After SOI: EXIF, XMP, ICC, in that order, and no JFIF since EXIF is there.
    let app = segments(data).filter { (0xE0...0xEF).contains($0.marker) }
    #expect(app.map(\.marker) == [0xE1, 0xE1, 0xE2])
    #expect(app.first?.offset == 2)
    #expect(!contains(data, Array("JFIF\0".utf8)))

    let raw = try decode(data)
    #expect(raw.blocks.exif == exif)
    #expect(raw.blocks.xmp == xmp)
    #expect(raw.blocks.iccProfile == icc)
    #expect(raw.warnings.isEmpty)
  }

  @Test func withoutEXIFTheFileStartsWithJFIF() throws {
    let data = try encode(
      makePicture(width: 32, height: 32), blocks: MetadataBlocks(xmp: Data("<x/>".utf8)))
    #expect(segments(data).first?.marker == 0xE0)
    #expect(contains(data, Array("JFIF\0".utf8)))
  }

  @Test func largeICCProfileIsChunkedAndReassembled() throws {
    var rng = SeededRandom(seed: 11)
    let icc = Data((0..<150_000).map { _ in UInt8(truncatingIfNeeded: rng.next()) })
    let data = try encode(
      makePicture(width: 32, height: 32), blocks: MetadataBlocks(iccProfile: icc))
    let chunks = segments(data).filter { $0.marker == 0xE2 }
    // 150000 = 65519 + 65519 + 18962; each segment adds marker, length, identifier and counters.
    #expect(chunks.map(\.length) == [65519 + 18, 65519 + 18, 18962 + 18])
    let bytes = [UInt8](data)
    #expect(chunks.map { bytes[$0.offset + 16] } == [1, 2, 3])
    #expect(chunks.map { bytes[$0.offset + 17] } == [3, 3, 3])
    #expect(try decode(data).blocks.iccProfile == icc)
  }

  @Test func brokenICCChunkSetIsDroppedWithWarning() throws {
    var rng = SeededRandom(seed: 12)
    let icc = Data((0..<100_000).map { _ in UInt8(truncatingIfNeeded: rng.next()) })
    let data = try encode(
      makePicture(width: 32, height: 32), blocks: MetadataBlocks(iccProfile: icc))
    var seen = 0
    let broken = removingSegments(data) { marker, _ in
      guard marker == 0xE2 else { return false }
      seen += 1
      return seen == 1  // drop chunk 1 of 2
    }
    let raw = try decode(broken)
    #expect(raw.blocks.iccProfile == nil)
    #expect(raw.warnings.contains { $0.contains("ICC profile is damaged") })
    let error = #expect(throws: ImageDecodingError.self) {
      try decode(broken) { $0.strictness = .failOnWarning }
    }
    #expect(error?.kind == .warning)
  }

  @Test func otherPixelFormatsAreReducedAndCompositedOverWhite() throws {
    let (w, h) = (32, 32)
    let rgba8 = Image(width: w, height: h, format: .rgba8)  // transparent black everywhere
    var rgb16 = Image(width: w, height: h, format: .rgb16)
    var rgba16 = Image(width: w, height: h, format: .rgba16)
    for y in 0..<h {
      for x in 0..<w {
        rgb16.setPixel(x: x, y: y, [0x2020, 0x8080, 0xC0C0])
        rgba16.setPixel(x: x, y: y, [0, 0, 0, 32768])  // black at half opacity
      }
    }
    let cases: [(Image, [Int])] = [
      (rgba8, [255, 255, 255]), (rgb16, [32, 128, 192]), (rgba16, [128, 128, 128]),
    ]
    for (image, expected) in cases {
      let decoded = try decode(try encode(image) { $0.chromaSubsampling = .s444 }).image
      let p = decoded.pixel(x: 16, y: 16)
      for c in 0..<3 {
        #expect(abs(p[c] - expected[c]) <= 2, "\(image.format): \(p) vs \(expected)")
      }
    }
  }

  @Test func reductionRoundsSixteenBitValues() {
    var image = Image(width: 4, height: 1, format: .rgb16)
    let values = [0, 128, 65535, 257 * 100 + 128]  // 128/257 rounds down, 100.498 → 100
    for x in 0..<4 { image.setPixel(x: x, y: 0, [values[x], values[x], values[x]]) }
    var out = [UInt8](repeating: 0, count: 12)
    image.withUnsafeBytes { raw in
      out.withUnsafeMutableBufferPointer { buffer in
        JPEGCodec.reduceToRGB8(
          raw, format: .rgb16, width: 4, rows: 0..<1, into: buffer.baseAddress!)
      }
    }
    #expect(out == [0, 0, 0, 0, 0, 0, 255, 255, 255, 100, 100, 100])
  }

  @Test func oversizeImageIsInvalidParameter() throws {
    let wide = Image(width: 65501, height: 1, format: .rgb8)
    let error = #expect(throws: ImageEncodingError.self) { try encode(wide) }
    #expect(error?.kind == .invalidParameter)
    let quality = #expect(throws: ImageEncodingError.self) {
      try encode(makePicture(width: 8, height: 8)) { $0.quality = 0 }
    }
    #expect(quality?.kind == .invalidParameter)
  }

  @Test func publicEncoderWritesAJPEG() throws {
    let picture = makePicture(width: 100, height: 60)
    let data = try ImageEncoder().encode(picture, as: .jpeg)
    #expect(ImageFormat.sniff(data) == .jpeg)
    let decoded = try ImageDecoder().decode(data)
    #expect(decoded.image.size == picture.size)
    #expect(ImageComparison.meanAbsoluteDifference(decoded.image, picture) < 4)
  }
}
