// SPDX-License-Identifier: Apache-2.0

import RetouchCore
import RetouchTestSupport
import Testing

@testable import RetouchAI

/// The ranking's measuring copy (``BoxReduction``) and its Lab pixels (``LabPixels``), which
/// decide how much each suggestion visibly changes a photo.
@Suite("Measuring copy")
struct MeasuringCopyTests {
  /// A seeded noise image, so every code value and every sub-pixel weight is exercised.
  static func noise(width: Int, height: Int, seed: UInt64) -> Image {
    var rng = SeededRandom(seed: seed)
    var image = Image(width: width, height: height, format: .rgb8)
    image.withUnsafeMutableBytes { raw in
      for i in 0..<raw.count { raw[i] = UInt8(truncatingIfNeeded: rng.next()) }
    }
    return image
  }

  static func bytes(_ image: Image) -> [UInt8] {
    image.withUnsafeBytes { Array($0) }
  }

  @Test func averagesTheSourcesWhoseCentresItCovers() {
    // 8 → 3 columns (each output 2⅔ sources wide): the centres 0.5–2.5, 3.5–4.5 and 5.5–7.5.
    var image = Image(width: 8, height: 1, format: .rgb8)
    let red: [UInt8] = [10, 20, 30, 100, 50, 1, 2, 3]
    image.withUnsafeMutableBytes { raw in
      for x in 0..<8 { raw[3 * x] = red[x] }
    }
    let out = BoxReduction.rgb8(image, width: 3, height: 1)
    #expect(Self.bytes(out) == [20, 0, 0, 75, 0, 0, 2, 0, 0])
    // Same size: the image itself.
    #expect(Self.bytes(BoxReduction.rgb8(image, width: 8, height: 1)) == Self.bytes(image))
  }

  @Test func matchesTheGeneralBoxResampler() throws {
    // What the measuring copy was made with before: the general resampler's box filter, the
    // same weights summed in a different order. Codes may differ by one where an average lands
    // on a half.
    let (photo, _) = try AnalysisTestPhotos.load("d08")
    let odd = Self.noise(width: 517, height: 389, seed: 5)
    for image in [photo, odd] {
      let ours = BoxReduction.rgb8(image, toFitLongEdge: SuggestionRanker.measureLongEdge)
      let general = image.resized(
        toFitLongEdge: SuggestionRanker.measureLongEdge, filter: .box, threads: 1)
      #expect(ours.size == general.size)
      let a = Self.bytes(ours), b = Self.bytes(general)
      let worst = zip(a, b).map { abs(Int($0) - Int($1)) }.max() ?? 0
      let differing = zip(a, b).filter { $0 != $1 }.count
      #expect(worst <= 1, "largest difference \(worst) codes")
      #expect(
        Double(differing) / Double(a.count) < 0.01,
        "\(differing) of \(a.count) components differ")
    }
  }

  @Test func vectorisedLabIsTheScalarLabBitForBit() {
    // 23 × 7 = 161 pixels: twenty groups of eight and a tail of one.
    let image = Self.noise(width: 23, height: 7, seed: 11)
    let lab = LabPixels(image)
    let table = LabPixels.decode8
    let raw = Self.bytes(image)
    for i in 0..<image.pixelCount {
      let want = LabPixels.lab(
        table[Int(raw[3 * i])], table[Int(raw[3 * i + 1])], table[Int(raw[3 * i + 2])])
      #expect(lab.values[i] == want, "pixel \(i)")
    }
  }

  @Test func vectorisedCubeRootIsTheScalarOne() {
    var rng = SeededRandom(seed: 3)
    for _ in 0..<1_000 {
      var x = SIMD8<Float>()
      for k in 0..<8 { x[k] = Float(rng.next() % 1_000_000 + 1) / 100_000 }
      let root = CubeRoot.of(x)
      for k in 0..<8 { #expect(root[k] == CubeRoot.of(x[k]), "x = \(x[k])") }
    }
  }
}
