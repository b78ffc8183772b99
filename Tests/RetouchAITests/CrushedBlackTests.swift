// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchRender
import Testing

@testable import RetouchAI

/// A crushed black point (`(v − b)/(1 − b)`, clipped) is read from the spike it leaves at code
/// 0 of the darkest channel, and Lift Shadows undoes it with its inverse.
@Suite("Crushed black point: read and undone")
struct CrushedBlackTests {
  let engine = SuggestionEngine()

  static func crushed(_ image: Image, _ b: Double) -> Image {
    AnalysisFixtures.mapped(image) { _, v in max(0, (v - b) / (1 - b)) }
  }

  /// Darkest-channel histogram with `spike` of the pixels at 0 and `density` per code value
  /// over the next 64 codes, the rest at mid-grey.
  static func floors(spike: Double, density: Double, total: Int = 100_000) -> [Int] {
    var h = [Int](repeating: 0, count: 256)
    h[0] = Int(spike * Double(total))
    for i in 1...64 { h[i] = Int(density * Double(total)) }
    h[128] = total - h.reduce(0, +)
    return h
  }

  @Test func spikeAgainstTheDensityAboveIt() {
    // 4 % at 0 over 0.2 % per code: 20 codes' worth, about 0.08, capped at 0.06.
    let clear = ExposureMeasurement.crushedBlack(
      Self.floors(spike: 0.04, density: 0.002), total: 100_000)
    #expect(abs(clear - ExposureMeasurement.maxCrushedBlack) < 1e-9, "\(clear)")
    // 1 % over 0.1 % per code: 10 codes, halfway up the ramp, so less than 10/255.
    let weak = ExposureMeasurement.crushedBlack(
      Self.floors(spike: 0.01, density: 0.001), total: 100_000)
    #expect(weak > 0 && weak < 10.0 / 255, "\(weak)")
    // Black as dense as the codes above it is the photo's own: nothing.
    #expect(
      ExposureMeasurement.crushedBlack(Self.floors(spike: 0.02, density: 0.004), total: 100_000)
        == 0)
    // Too few pixels at 0, or a frame nearly all black: nothing.
    #expect(
      ExposureMeasurement.crushedBlack(Self.floors(spike: 0.005, density: 0.0001), total: 100_000)
        == 0)
    #expect(
      ExposureMeasurement.crushedBlack(Self.floors(spike: 0.95, density: 0.0001), total: 100_000)
        == 0)
  }

  /// A dragonfly on a twig against a deep blue sky (d04) and a red flower (d15): untouched, no
  /// crush is read and the photo is left alone; crushed by the harness's 0.10, Lift Shadows
  /// leads and puts back the black level it read (a negative Black Point, `read / 0.25`), and
  /// its edit brings the copy closer to the photo.
  @Test(arguments: ["d04", "d15"])
  func crushIsReadAndUndone(id: String) throws {
    let photo = try AnalysisFixtures.decode(id).image
    let original = engine.analysis(of: photo).exposure
    #expect((original.crushedBlack ?? 1) < 0.01, "\(id): \(original.crushedBlack ?? -1)")
    let copy = Self.crushed(photo, 0.10)
    let read = try #require(engine.analysis(of: copy).exposure.crushedBlack)
    #expect(read >= 0.04, "\(id): \(read)")
    let config = try #require(engine.topSuggestion(for: copy), "\(id)")
    #expect(abs(config.value(of: .blackPoint) + read / 0.25) <= 0.01, "\(id): \(config)")
    let (before, after) = AnalysisFixtures.difference(of: copy, from: photo, fixedBy: config)
    #expect(after < 0.75 * before, "\(id): ΔE*ab \(before) → \(after)")
  }
}
