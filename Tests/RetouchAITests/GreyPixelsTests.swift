// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchTestSupport
import Testing

@testable import RetouchAI

/// The grey-pixel estimate finds the light's tint on the grey surfaces of a scene whatever the
/// coloured ones do, and its agreement with the two-estimate mean moves the tint ramp.
@Suite("Grey pixels")
struct GreyPixelsTests {
  /// A textured scene under a light with green gain `green` (linear light, normalised like the
  /// harness's casts): a grey half whose texture is shading (random grey levels in 2 × 2 blocks:
  /// the same contrast in every channel) and a colourful half whose texture is material
  /// (each channel's level drawn on its own, so the channels' contrasts differ).
  static func scene(green: Double) -> Image {
    var random = SeededRandom(seed: 5)
    func next() -> Double { Double(random.next() >> 11) / Double(1 << 53) }
    var grey: [Double] = []
    var colour: [(Double, Double, Double)] = []
    for _ in 0..<(48 * 48) {
      grey.append(0.08 + 0.5 * next())
      colour.append((0.2 + 0.6 * next(), 0.05 + 0.2 * next(), 0.05 + 0.15 * next()))
    }
    let k = 0.2126 + 0.7152 * green + 0.0722
    return AnalysisTestPhotos.synthetic(width: 96, height: 96) { x, y in
      let block = (y / 2) * 48 + (x / 2)
      let v = grey[block]
      let rgb = x < 48 ? (v, v, v) : colour[block]
      func code(_ c: Double, _ gain: Double) -> UInt8 {
        UInt8((SRGBTables.encodeExact(min(1, c * gain / k)) * 255).rounded())
      }
      return (code(rgb.0, 1), code(rgb.1, green), code(rgb.2, 1))
    }
  }

  @Test(arguments: [1.0, 1.1, 1 / 1.1])
  func readsTheTintOfTheGreySurfaces(green: Double) throws {
    let estimate = try #require(GreyPixels.estimate(Self.scene(green: green)))
    #expect(abs(estimate.greenTint - log2(green)) < 0.02, "\(estimate)")
    #expect(abs(estimate.warmth) < 0.05, "\(estimate)")
    #expect(estimate.count >= GreyPixels.minimumCount)
  }

  @Test func flatImageHasNoEstimate() {
    let flat = AnalysisTestPhotos.synthetic(width: 64, height: 64) { _, _ in (120, 130, 110) }
    #expect(GreyPixels.estimate(flat) == nil)
  }

  /// A mild green tint (0.13) is removed when the grey pixels read the same, and left alone
  /// when they read the photo as neutral or when there is no second opinion.
  @Test func agreementLowersTheTintRamp() throws {
    var a = balancedAnalysis()
    a.color.greenTint = 0.13
    a.color.confidence = 0.9
    a.color.greyPixelTint = 0.12
    let fix = try #require(Recipe.fixTint.config(for: a))
    #expect(fix.value(of: .tint) > 0, "magenta against green: \(fix)")
    a.color.greyPixelTint = 0.0
    #expect(Recipe.fixTint.config(for: a) == nil)
    a.color.greyPixelTint = nil
    #expect(Recipe.fixTint.config(for: a) == nil)
  }
}
