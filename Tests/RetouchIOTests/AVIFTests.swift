// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchTestSupport
import Testing

@testable import RetouchIO

/// AVIF (AV1 in HEIF) through libheif: dav1d decodes, libaom encodes.
@Suite struct AVIFTests {
  // MARK: Encoding and decoding

  @Test(arguments: [PixelFormat.rgb8, .rgba8, .rgb16])
  func encodeDecodeIsCloseToTheSource(format: PixelFormat) throws {
    let image = codecSmoothImage(width: 96, height: 64, format: format)
    let avif = try ImageEncoder().encode(image, as: .avif)
    #expect(ImageFormat.sniff(avif) == .avif)
    let decoded = try ImageDecoder(options: codecRawOptions()).decode(avif)
    #expect(decoded.format == .avif)
    #expect(decoded.image.size == image.size)
    #expect(decoded.image.format == format.withBitDepth(8))
    let error = ImageComparison.meanAbsoluteDifference(image, decoded.image)
    #expect(error < 2, "mean abs error \(error)")
  }

  @Test func qualityTradesSizeForError() throws {
    let image = codecSmoothImage(width: 128, height: 96, format: .rgb8)
    var low = EncodeOptions()
    low.quality = 30
    let small = try ImageEncoder(options: low).encode(image, as: .avif)
    let large = try ImageEncoder().encode(image, as: .avif)
    #expect(small.count < large.count, "q30 \(small.count) B, q90 \(large.count) B")
    let decoder = ImageDecoder(options: codecRawOptions())
    let smallError = ImageComparison.meanAbsoluteDifference(
      image, try decoder.decode(small).image)
    let largeError = ImageComparison.meanAbsoluteDifference(
      image, try decoder.decode(large).image)
    #expect(largeError < smallError, "q30 \(smallError), q90 \(largeError)")
  }

  @Test func alphaIsKept() throws {
    var image = Image(width: 40, height: 30, format: .rgba8)
    for (x, y) in codecAllPoints(image) {
      image.setPixel(x: x, y: y, [200, 80, 40, x < 20 ? 0 : 255])
    }
    let decoded = try ImageDecoder(options: codecRawOptions()).decode(
      ImageEncoder().encode(image, as: .avif))
    #expect(decoded.image.format == .rgba8)
    #expect(decoded.image.pixel(x: 5, y: 15)[3] <= 2)
    #expect(decoded.image.pixel(x: 35, y: 15)[3] >= 253)
  }

  /// The photo's EXIF goes along through the public encoder, corrected for the new image.
  @Test func exportCarriesTheCamera() throws {
    let decoded = try ImageDecoder().decode(SharedPhotos.url("g16"))
    let small = decoded.image.resized(to: PixelSize(width: 300, height: 400))
    let avif = try ImageEncoder().encode(small, as: .avif, metadata: decoded.metadata)
    let (format, metadata, _) = try ImageDecoder().readMetadata(avif)
    #expect(format == .avif)
    #expect(metadata.cameraMake != nil && metadata.cameraMake == decoded.metadata.cameraMake)
    #expect(metadata.orientation == .up)
    #expect(metadata.pixelSize == PixelSize(width: 300, height: 400))
  }

  // MARK: The shared HDR AVIF

  /// g29 is an HDR AVIF: BT.709 primaries with the PQ transfer (and a gain map, which libheif
  /// 1.15 does not read). Its code values shown as sRGB are grey and flat; tone-mapped they
  /// span much more of the range, and reference white (203 nits) comes out near white.
  @Test func sharedHDRAVIFIsToneMapped() throws {
    let entry = SharedPhotos.entry("g29")
    let decoded = try ImageDecoder().decode(entry.url)
    #expect(decoded.format == .avif)
    #expect(decoded.image.size == PixelSize(width: 400, height: 300))
    #expect(decoded.image.colorSpace == .sRGB)
    #expect(decoded.warnings.isEmpty, "\(decoded.warnings)")
    let nclx = try #require(decoded.metadata.blocks.nclx)
    #expect(nclx.transferCharacteristics == 16)
    #expect(decoded.metadata.cameraModel?.contains("Pixel 4a") == true)
    let raw = try HEIFCodec.decode(
      SharedPhotos.data("g29"), source: "g29", options: DecodeOptions())
    let codes = Self.lumaSpread(raw.image)
    let mapped = Self.lumaSpread(decoded.image)
    #expect(mapped.spread > 1.5 * codes.spread, "codes \(codes), tone-mapped \(mapped)")
    #expect(mapped.top > 0.9, "the brightest percent of the sky: \(mapped.top)")
  }

  /// Luma (0...1) between the 1st and 99th percentile, and at the 99th.
  static func lumaSpread(_ image: Image) -> (spread: Double, top: Double) {
    var values: [Double] = []
    let scale = Double(image.format.maxValue)
    for y in stride(from: 0, to: image.height, by: 2) {
      for x in stride(from: 0, to: image.width, by: 2) {
        let p = image.pixel(x: x, y: y)
        values.append(
          (0.2126 * Double(p[0]) + 0.7152 * Double(p[1]) + 0.0722 * Double(p[2])) / scale)
      }
    }
    values.sort()
    let low = values[values.count / 100], high = values[values.count * 99 / 100]
    return (high - low, high)
  }

  // MARK: Damaged input

  @Test(arguments: [DecodeOptions.Strictness.lenient, .failOnTruncation])
  func truncatedAVIFThrows(strictness: DecodeOptions.Strictness) throws {
    let data = try ImageEncoder().encode(
      codecSmoothImage(width: 256, height: 192, format: .rgb8), as: .avif)
    for cut in [data.count / 2, data.count - 10, 40] {
      let error = #expect(throws: ImageDecodingError.self) {
        try ImageDecoder(options: codecRawOptions { $0.strictness = strictness })
          .decode(data.prefix(cut), source: "cut.avif")
      }
      #expect(
        error?.kind == .truncated || error?.kind == .corrupt,
        "cut at \(cut): \(String(describing: error))")
      #expect(error?.description.hasPrefix("cut.avif: ") == true)
    }
  }
}

/// HDR code values (BT.2100 PQ and HLG) brought down to SDR.
@Suite struct HDRToneMappingTests {
  /// A one-row 16-bit image of PQ code values for `nits` (grey, or the given colours).
  static func pqRow(_ colours: [SIMD3<Double>]) -> Image {
    var image = Image(width: colours.count, height: 1, format: .rgb16)
    for (x, c) in colours.enumerated() {
      image.setPixel(x: x, y: 0, [c.x, c.y, c.z].map { Int((pqCode($0) * 65535).rounded()) })
    }
    return image
  }

  /// SMPTE ST 2084's inverse EOTF: nits to a code value in 0...1.
  static func pqCode(_ nits: Double) -> Double {
    let m1 = 2610.0 / 16384, m2 = 2523.0 / 4096 * 128
    let c1 = 3424.0 / 4096, c2 = 2413.0 / 4096 * 32, c3 = 2392.0 / 4096 * 32
    let y = pow(nits / 10000, m1)
    return pow((c1 + c2 * y) / (1 + c3 * y), m2)
  }

  /// Linear light (0...1) of an sRGB-encoded 16-bit sample.
  static func linear(_ code: Int) -> Double { Double(SRGBTransfer.decode(Float(code) / 65535)) }

  @Test func pqEOTFInvertsItsEncoding() {
    for nits in [0.0, 0.05, 1, 100, 203, 1000, 4000, 10000] {
      let back = HDRToneMapping.pqNits(Self.pqCode(nits))
      #expect(abs(back - nits) <= max(1e-6, nits * 1e-6), "\(nits) → \(back)")
    }
  }

  @Test func pqGreysKeepTheirLevelUnderTheShoulderAndRollOffAbove() {
    let nits = [0.0, 20, 100, 150, 203, 400, 700, 1000]
    let out = HDRToneMapping.toneMapped(
      Self.pqRow(nits.map { SIMD3(repeating: $0) }), transfer: .pq, primaries: .sRGB)
    #expect(out.colorSpace == .sRGB)
    var previous = -1.0
    for (x, n) in nits.enumerated() {
      let p = out.pixel(x: x, y: 0)
      #expect(p[0] == p[1] && p[1] == p[2], "grey stays grey: \(p)")
      let l = Self.linear(p[0])
      let relative = n / HDRToneMapping.referenceWhite
      if relative <= Double(HDRToneMapping.shoulderStart) {
        #expect(abs(l - relative) < 2e-4, "\(n) nits → \(l), expected \(relative)")
      } else if n < 1000 {
        #expect(l < 0.995 && l > Double(HDRToneMapping.shoulderStart), "\(n) nits → \(l)")
      }
      #expect(l > previous, "monotonic at \(n) nits")
      previous = l
    }
    // The brightest sample (1,000 nits) lands on white, and the highlights keep their steps.
    #expect(out.pixel(x: 7, y: 0)[0] == 65535)
    let steps = [4, 5, 6, 7].map { Self.linear(out.pixel(x: $0, y: 0)[0]) }
    for i in 1..<steps.count {
      #expect(steps[i] - steps[i - 1] > 0.008, "\(steps)")
    }
  }

  @Test func aPhotoWithinReferenceWhiteIsNotCompressed() {
    // Nothing above 203 nits: every level is kept, reference white is SDR white.
    let nits = [5.0, 100, 180, 203]
    let out = HDRToneMapping.toneMapped(
      Self.pqRow(nits.map { SIMD3(repeating: $0) }), transfer: .pq, primaries: .sRGB)
    for (x, n) in nits.enumerated() {
      let l = Self.linear(out.pixel(x: x, y: 0)[0])
      #expect(abs(l - n / HDRToneMapping.referenceWhite) < 3e-4, "\(n) nits → \(l)")
    }
  }

  @Test func highlightsKeepTheirHue() {
    // A 400-nit orange under a 1,000-nit white: all three channels scale alike, so the ratios
    // stay.
    let out = HDRToneMapping.toneMapped(
      Self.pqRow([SIMD3(400, 200, 100), SIMD3(repeating: 1000)]), transfer: .pq,
      primaries: .sRGB)
    let p = out.pixel(x: 0, y: 0).map(Self.linear)
    #expect(abs(p[0] / p[1] - 2) < 0.01 && abs(p[1] / p[2] - 2) < 0.02, "\(p)")
    #expect(p[0] < 0.99 && p[0] > Double(HDRToneMapping.shoulderStart), "\(p)")
  }

  @Test func bt2020GoesToDisplayP3() {
    // BT.2020's green is outside P3: it stays the greenest it can, red and blue clipped to 0.
    let out = HDRToneMapping.toneMapped(
      Self.pqRow([SIMD3(0, 100, 0), SIMD3(repeating: 100)]), transfer: .pq, primaries: .bt2020)
    #expect(out.colorSpace == .displayP3)
    let green = out.pixel(x: 0, y: 0)
    #expect(green[1] > 30000 && green[0] == 0 && green[2] == 0, "\(green)")
    let grey = out.pixel(x: 1, y: 0)
    #expect(abs(grey[0] - grey[1]) <= 2 && abs(grey[1] - grey[2]) <= 2, "\(grey)")
  }

  @Test func hlgReferenceWhiteIsTheSameAsPQs() {
    // HLG 75 % is 203 nits on the 1,000-nit reference display, as PQ's reference white is;
    // with nothing brighter it is SDR white.
    var hlg = Image(width: 2, height: 1, format: .rgb16)
    hlg.setPixel(x: 0, y: 0, [49151, 49151, 49151])  // 0.75
    hlg.setPixel(x: 1, y: 0, [32768, 32768, 32768])  // 0.5: scene light 1/12
    let out = HDRToneMapping.toneMapped(hlg, transfer: .hlg, primaries: .sRGB)
    let white = Self.linear(out.pixel(x: 0, y: 0)[0])
    #expect(abs(white - 1) < 3e-3, "\(white)")
    // 1000 × (1/12)^1.2 nits, below the shoulder: kept.
    let expected = 1000 * pow(1.0 / 12, 1.2) / HDRToneMapping.referenceWhite
    let mid = Self.linear(out.pixel(x: 1, y: 0)[0])
    #expect(abs(mid - expected) < 1e-3, "\(mid), expected \(expected)")
  }

  @Test func eightBitAndAlphaAreHandled() {
    var image = Image(width: 2, height: 1, format: .rgba8)
    image.setPixel(x: 0, y: 0, [0, 0, 0, 7])
    image.setPixel(x: 1, y: 0, [255, 255, 255, 200])
    let out = HDRToneMapping.toneMapped(image, transfer: .pq, primaries: .bt2020)
    #expect(out.format == .rgba8)
    #expect(out.pixel(x: 0, y: 0) == [0, 0, 0, 7])
    let top = out.pixel(x: 1, y: 0)
    #expect(top[3] == 200 && top[0] == 255 && top[1] == 255 && top[2] == 255, "\(top)")
  }
}

/// PNG's `cICP` chunk (code points, PNG third edition), which HDR PNGs carry.
@Suite struct PNGCodePointTests {
  /// `png` with a chunk of `type` and `data` inserted right after IHDR.
  static func inserting(_ type: String, _ data: [UInt8], into png: Data) -> Data {
    let body = Array(type.utf8) + data
    let length = withUnsafeBytes(of: UInt32(data.count).bigEndian, Array.init)
    let crc = withUnsafeBytes(of: crc32(body).bigEndian, Array.init)
    var out = png
    out.insert(contentsOf: length + body + crc, at: 33)  // signature 8 + IHDR 25
    return out
  }

  /// CRC-32 as PNG computes it (ISO 3309, reflected, polynomial 0xEDB88320).
  static func crc32(_ bytes: [UInt8]) -> UInt32 {
    var c: UInt32 = 0xFFFF_FFFF
    for b in bytes {
      c ^= UInt32(b)
      for _ in 0..<8 { c = c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
    }
    return ~c
  }

  /// A 16-bit PNG of PQ code values (100 and 203 nits grey, a 400-nit orange), written with an
  /// sRGB `iCCP` chunk by our encoder.
  static func pqPNG() throws -> Data {
    let row = HDRToneMappingTests.pqRow([
      SIMD3(repeating: 100), SIMD3(repeating: 203), SIMD3(400, 200, 100),
    ])
    let png = try ImageEncoder().encode(row, as: .png)
    #expect(try ImageDecoder().readMetadata(png).metadata.blocks.iccProfile != nil)
    return png
  }

  @Test func cICPOutranksTheProfileAndHDRIsToneMapped() throws {
    let png = Self.inserting("cICP", [9, 16, 0, 1], into: try Self.pqPNG())
    let metadata = try ImageDecoder().readMetadata(png).metadata
    // The code points name the colour, not the sRGB profile they outrank.
    #expect(metadata.colorProfile?.description == "BT.2100 PQ")
    let header = metadata.blocks
    #expect(
      header.nclx
        == NCLXColorInfo(
          colorPrimaries: 9, transferCharacteristics: 16, matrixCoefficients: 0, fullRange: true))
    let decoded = try ImageDecoder().decode(png)
    #expect(decoded.warnings.isEmpty, "\(decoded.warnings)")
    #expect(decoded.image.colorSpace == .displayP3)
    // The brightest light is 400 nits: 100 nits stays at 100/203 of white (below the shoulder).
    let grey = decoded.image.pixel(x: 0, y: 0)
    let level = HDRToneMappingTests.linear(grey[1])
    #expect(abs(level - 100 / HDRToneMapping.referenceWhite) < 1e-3, "\(grey)")
    #expect(abs(grey[0] - grey[2]) <= 2, "grey stays grey: \(grey)")
  }

  @Test func aCICPChunkThatIsNotRGBOrTooShortIsIgnored() throws {
    let base = try Self.pqPNG()
    for data: [UInt8] in [[9, 16, 1, 1], [9, 16, 0, 7], [9, 16, 0]] {
      let png = Self.inserting("cICP", data, into: base)
      #expect(try ImageDecoder().readMetadata(png).metadata.blocks.nclx == nil, "\(data)")
      // Without usable code points the sRGB profile stands: the codes are shown as they are.
      let decoded = try ImageDecoder().decode(png)
      #expect(decoded.image.colorSpace == .sRGB)
      #expect(decoded.image.hasSamePixels(as: try ImageDecoder().decode(base).image))
    }
  }
}
