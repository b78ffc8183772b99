// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchTestSupport
import Testing

@testable import RetouchRender

/// `expectMatchesGolden` with this target's bundle.
func expectMatchesGolden(
  _ image: Image, named name: String, tolerance: ImageTolerance,
  sourceLocation: SourceLocation = #_sourceLocation
) {
  RetouchTestSupport.expectMatchesGolden(
    image, named: name, tolerance: tolerance, bundle: Bundle.module, sourceLocation: sourceLocation)
}

@Suite("Looks: goldens on a real photo")
struct LookGoldenTests {
  /// d08 (Picos de Europa by Aitzol Berasategi, CC BY 4.0) at 160×120, widened to 16 bits so the
  /// golden shows the look's math rather than 8-bit rounding.
  static let photo: Image? = try? TestPhoto.load("d08", minimumLongEdge: 200, longEdge: 160)
    .widenedTo16Bit()

  // 128/65535 per component (half an 8-bit step) and ΔE2000 0.5 (half a just-noticeable
  // difference), 1 % of pixels excepted: the goldens are recorded on Linux/glibc; another libm
  // rounds pow/exp2/cbrt differently in the last bit, which moves LUT entries by far less than
  // one 16-bit step, and another libjpeg-turbo build may round a few decoded pixels by one 8-bit
  // code value (257 here, times the look's slope), hence the outliers. A changed look formula
  // moves nearly every pixel by several ΔE.
  static let tolerance = ImageTolerance(
    maxChannelDelta: 128, maxDeltaE2000: 0.5, outlierFraction: 0.01)

  @Test(arguments: Look.allCases)
  func lookMatchesGolden(look: Look) throws {
    let photo = try #require(Self.photo, "d08 must decode")
    #expect(photo.size == PixelSize(width: 160, height: 120) && photo.format == .rgb16)
    let out = photo.rendered(with: EditConfig(look: LookSelection(look)))
    expectMatchesGolden(out, named: "look-\(look.rawValue)", tolerance: Self.tolerance)
  }

  @Test func goldensAreSmall() throws {
    let folder = try #require(Bundle.module.url(forResource: "Golden", withExtension: nil))
    let files = try FileManager.default.contentsOfDirectory(
      at: folder, includingPropertiesForKeys: [.fileSizeKey])
    #expect(files.count >= Look.allCases.count)
    for file in files {
      let size = try file.resourceValues(forKeys: [.fileSizeKey]).fileSize ?? .max
      #expect(size < 200_000, "\(file.lastPathComponent) is \(size) bytes")
    }
  }
}

@Suite("Golden infrastructure")
struct GoldenInfrastructureTests {
  /// Every 16-bit value, written and read back through libpng, comes back unchanged.
  @Test func pngRoundTripIsVerbatim() throws {
    var bytes = [UInt8]()
    for i in 0..<65536 {
      for v in [UInt16(i), UInt16(65535 - i), UInt16((i &* 40503) & 0xFFFF)] {
        withUnsafeBytes(of: v) { bytes.append(contentsOf: $0) }
      }
    }
    let ramp = Image(width: 256, height: 256, format: .rgb16, bytes: bytes)
    let data = GoldenPNG.encode(ramp)
    // IHDR: 16 bits per component, colour type 2 (RGB); no colour chunk that would convert.
    let header = [UInt8](data.prefix(33))
    #expect(header[24] == 16 && header[25] == 2)
    let chunks = GoldenPNG.chunkTypes(data)
    #expect(chunks.first == "IHDR" && chunks.last == "IEND")
    #expect(!chunks.contains("gAMA") && !chunks.contains("sRGB") && !chunks.contains("iCCP"))
    let back = try GoldenPNG.decode(data)
    #expect(back.hasSamePixels(as: ramp))
    // 8-bit images are widened exactly.
    let eight = Image(width: 2, height: 1, format: .rgb8, bytes: [0, 1, 127, 128, 254, 255])
    #expect(
      try GoldenPNG.decode(GoldenPNG.encode(eight)).pixel(x: 1, y: 0) == [
        128 * 257, 254 * 257, 65535,
      ])
  }

  @Test func readingRejectsWhatIsNotAGolden() {
    #expect(throws: GoldenPNG.FileError.self) { try GoldenPNG.decode(Data("not a png".utf8)) }
    // A gAMA chunk would make libpng convert the values.
    var data = GoldenPNG.encode(Image(width: 1, height: 1, format: .rgb16))
    let gama: [UInt8] = [0, 0, 0, 4] + Array("gAMA".utf8) + [0, 0, 0xB1, 0x8F, 0, 0, 0, 0]
    data.insert(contentsOf: gama, at: 33)
    let error = #expect(throws: GoldenPNG.FileError.self) { try GoldenPNG.decode(data) }
    #expect(error?.detail.contains("gAMA") == true)
  }

  /// The 34 test pairs published with Sharma, Wu and Dalal (2005), Table 1: L*a*b* of both
  /// samples and ΔE00 to four decimals.
  static let sharmaPairs: [(Double, Double, Double, Double, Double, Double, Double)] = [
    (50.0000, 2.6772, -79.7751, 50.0000, 0.0000, -82.7485, 2.0425),
    (50.0000, 3.1571, -77.2803, 50.0000, 0.0000, -82.7485, 2.8615),
    (50.0000, 2.8361, -74.0200, 50.0000, 0.0000, -82.7485, 3.4412),
    (50.0000, -1.3802, -84.2814, 50.0000, 0.0000, -82.7485, 1.0000),
    (50.0000, -1.1848, -84.8006, 50.0000, 0.0000, -82.7485, 1.0000),
    (50.0000, -0.9009, -85.5211, 50.0000, 0.0000, -82.7485, 1.0000),
    (50.0000, 0.0000, 0.0000, 50.0000, -1.0000, 2.0000, 2.3669),
    (50.0000, -1.0000, 2.0000, 50.0000, 0.0000, 0.0000, 2.3669),
    (50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0009, 7.1792),
    (50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0010, 7.1792),
    (50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0011, 7.2195),
    (50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0012, 7.2195),
    (50.0000, -0.0010, 2.4900, 50.0000, 0.0009, -2.4900, 4.8045),
    (50.0000, -0.0010, 2.4900, 50.0000, 0.0010, -2.4900, 4.8045),
    (50.0000, -0.0010, 2.4900, 50.0000, 0.0011, -2.4900, 4.7461),
    (50.0000, 2.5000, 0.0000, 50.0000, 0.0000, -2.5000, 4.3065),
    (50.0000, 2.5000, 0.0000, 73.0000, 25.0000, -18.0000, 27.1492),
    (50.0000, 2.5000, 0.0000, 61.0000, -5.0000, 29.0000, 22.8977),
    (50.0000, 2.5000, 0.0000, 56.0000, -27.0000, -3.0000, 31.9030),
    (50.0000, 2.5000, 0.0000, 58.0000, 24.0000, 15.0000, 19.4535),
    (50.0000, 2.5000, 0.0000, 50.0000, 3.1736, 0.5854, 1.0000),
    (50.0000, 2.5000, 0.0000, 50.0000, 3.2972, 0.0000, 1.0000),
    (50.0000, 2.5000, 0.0000, 50.0000, 1.8634, 0.5757, 1.0000),
    (50.0000, 2.5000, 0.0000, 50.0000, 3.2592, 0.3350, 1.0000),
    (60.2574, -34.0099, 36.2677, 60.4626, -34.1751, 39.4387, 1.2644),
    (63.0109, -31.0961, -5.8663, 62.8187, -29.7946, -4.0864, 1.2630),
    (61.2901, 3.7196, -5.3901, 61.4292, 2.2480, -4.9620, 1.8731),
    (35.0831, -44.1164, 3.7933, 35.0232, -40.0716, 1.5901, 1.8645),
    (22.7233, 20.0904, -46.6940, 23.0331, 14.9730, -42.5619, 2.0373),
    (36.4612, 47.8580, 18.3852, 36.2715, 50.5065, 21.2231, 1.4146),
    (90.8027, -2.0831, 1.4410, 91.1528, -1.6435, 0.0447, 1.4441),
    (90.9257, -0.5406, -0.9208, 88.6381, -0.8985, -0.7239, 1.5381),
    (6.7747, -0.2908, -2.4247, 5.8714, -0.0985, -2.2286, 0.6377),
    (2.0776, 0.0795, -1.1350, 0.9033, -0.0636, -0.5514, 0.9082),
  ]

  @Test func deltaE2000MatchesThePublishedPairs() {
    for (i, p) in Self.sharmaPairs.enumerated() {
      let forward = CIELab.deltaE2000((p.0, p.1, p.2), (p.3, p.4, p.5))
      let backward = CIELab.deltaE2000((p.3, p.4, p.5), (p.0, p.1, p.2))
      // The table rounds to four decimals.
      #expect(abs(forward - p.6) < 0.5e-4, "pair \(i + 1): \(forward), published \(p.6)")
      #expect(abs(backward - forward) < 1e-9, "pair \(i + 1) is not symmetric")
    }
  }

  @Test func labOfKnownColours() {
    let lab = CIELab.Converter(colorSpace: .sRGB)
    func close(_ a: (Double, Double, Double), _ b: (Double, Double, Double)) -> Bool {
      abs(a.0 - b.0) < 0.02 && abs(a.1 - b.1) < 0.02 && abs(a.2 - b.2) < 0.02
    }
    let white = lab.lab(65535, 65535, 65535)
    #expect(close(white, (100, 0, 0)), "\(white)")
    // sRGB red and mid grey (128/255) in CIELAB D65, from the sRGB matrix and CIE 15.
    let red = lab.lab(65535, 0, 0)
    #expect(close(red, (53.2408, 80.0925, 67.2032)), "\(red)")
    let grey = lab.lab(128 * 257, 128 * 257, 128 * 257)
    #expect(close(grey, (53.5850, 0, 0)), "\(grey)")
  }

  /// A mismatch reports count, maximum and worst pixel, and leaves expected/actual/diff images.
  @Test func mismatchIsReportedWithArtifacts() throws {
    let expected = syntheticImage(width: 24, height: 16, format: .rgb16, seed: 41)
    var actual = expected
    actual.setPixel(x: 5, y: 7, [0, 65535, 0])
    let tolerance = ImageTolerance(maxChannelDelta: 0, maxDeltaE2000: 0.1, outlierFraction: 0)
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("golden-\(UUID())")
    defer { try? FileManager.default.removeItem(at: dir) }
    #expect(
      Golden.compare(
        expected, expected: expected, named: "same", tolerance: tolerance, artifacts: dir) == nil)
    let message = try #require(
      Golden.compare(
        actual, expected: expected, named: "probe", tolerance: tolerance, artifacts: dir))
    #expect(message.contains("1 of 384 pixels"), "\(message)")
    #expect(message.contains("at (5, 7)"), "\(message)")
    #expect(message.contains("actual [0, 65535, 0]"), "\(message)")
    for suffix in ["expected", "actual", "diff"] {
      let image = try GoldenPNG.read(dir.appendingPathComponent("probe-\(suffix).png"))
      #expect(image.size == expected.size)
    }
    // One outlier in 384 pixels is allowed by a fraction of 1/384.
    let loose = ImageTolerance(maxChannelDelta: 0, maxDeltaE2000: 0.1, outlierFraction: 1.0 / 384)
    #expect(
      Golden.compare(actual, expected: expected, named: "probe", tolerance: loose, artifacts: dir)
        == nil)
  }

  @Test(.disabled(if: Golden.recordingRequested, "would record the missing golden"))
  func missingGoldenFails() {
    withKnownIssue {
      expectMatchesGolden(
        Image(width: 2, height: 2, format: .rgb16), named: "no-such-golden",
        tolerance: ImageTolerance(maxChannelDelta: 0, maxDeltaE2000: 0, outlierFraction: 0))
    } matching: { issue in
      issue.comments.contains { $0.rawValue.contains("Missing golden Golden/no-such-golden.png") }
    }
  }
}
