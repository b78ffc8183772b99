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
    // A daylight frame whose brightest detail is pale (its bright top percent is not the light).
    a.color.highlightWarmth = 0
    let fix = try #require(Recipe.fixTint.config(for: a))
    #expect(fix.value(of: .tint) > 0, "magenta against green: \(fix)")
    // Removed nearly whole: the harness's mild +10 % green reads 0.13–0.14 in both methods,
    // and keeping a third of it (as the ramp did while full only at 0.16) left a portrait's
    // skin 3.5° off in hue.
    let removed = -WhiteBalanceSliders.response(fix).y
    #expect(removed > 0.85 * 0.13, "removes \(removed) of 0.13")
    a.color.greyPixelTint = 0.0
    #expect(Recipe.fixTint.config(for: a) == nil)
    a.color.greyPixelTint = nil
    #expect(Recipe.fixTint.config(for: a) == nil)
  }

  /// Two readings of a magenta cast that differ (−0.14 and −0.21, too far apart to count as
  /// agreeing) still both see it: the part both read, the smaller, is removed, not more; a
  /// grey-pixel reading of the other sign leaves the mild mean reading alone.
  @Test func castBothMethodsSeeIsRemovedUpToTheSmallerReading() throws {
    var a = balancedAnalysis()
    a.color.greenTint = -0.14
    a.color.greyPixelTint = -0.21
    a.color.confidence = 0.9
    a.color.highlightWarmth = 0
    let fix = try #require(Recipe.fixTint.config(for: a))
    let removed = WhiteBalanceSliders.response(fix).y
    #expect(removed > 0.85 * 0.14 && removed < 0.16, "adds \(removed) green against 0.14–0.21")
    a.color.greyPixelTint = 0.05
    #expect(Recipe.fixTint.config(for: a) == nil)
  }

  /// A balanced daylight analysis without the light in frame (the brightest percent 30 L*
  /// above the median) and the given blue–amber readings.
  static func daylight(warmth: Double, confidence: Double, greyPixelWarmth: Double?)
    -> PhotoAnalysis
  {
    var a = balancedAnalysis()
    a.exposure.lightnessPercentiles = [3, 8, 30, 50, 66, 76, 80]
    a.color.warmth = warmth
    a.color.confidence = confidence
    a.color.greyPixelWarmth = greyPixelWarmth
    return a
  }

  /// A mild warm estimate (0.18) of a trusted daylight photo is removed when the grey pixels
  /// read the same, and left alone when they read the photo as neutral or give no opinion; the
  /// same holds for a cool one.
  @Test(arguments: [0.18, -0.18])
  func warmthAgreementLowersTheWarmthRamp(warmth: Double) throws {
    let recipe = warmth > 0 ? Recipe.coolDown : Recipe.warmUp
    var a = Self.daylight(warmth: warmth, confidence: 0.9, greyPixelWarmth: warmth - 0.02)
    let fix = try #require(recipe.config(for: a))
    #expect(fix.value(of: .temperature) * warmth < 0, "against the cast: \(fix)")
    a.color.greyPixelWarmth = 0
    #expect(recipe.config(for: a) == nil)
    a.color.greyPixelWarmth = nil
    #expect(recipe.config(for: a) == nil)
  }

  /// A warm estimate whose confidence a dominant orange lowered (0.4) is removed more fully
  /// when the grey pixels agree; a distrusted one (0.2) stays left alone however they read.
  @Test func warmthAgreementRaisesTheShareRemoved() throws {
    var a = Self.daylight(warmth: 0.5, confidence: 0.4, greyPixelWarmth: nil)
    let alone = try #require(Recipe.coolDown.config(for: a))
    a.color.greyPixelWarmth = 0.52
    let agreed = try #require(Recipe.coolDown.config(for: a))
    let removedAlone = -WhiteBalanceSliders.response(alone).x
    let removedAgreed = -WhiteBalanceSliders.response(agreed).x
    #expect(removedAgreed > removedAlone + 0.1, "\(removedAlone) → \(removedAgreed)")
    #expect(removedAgreed < 0.55, "does not overshoot: \(removedAgreed)")
    a.color.confidence = 0.2
    #expect(Recipe.coolDown.config(for: a) == nil)
  }

  /// A scene that is nearly all blue (sky, sea) is not warmed on a middling estimate even when
  /// the grey pixels read it as cool too: the blue-scene rule asks for the colour confidence
  /// itself, not the one raised by agreement.
  @Test func blueSceneIsNotWarmedOnAgreement() {
    var a = balancedAnalysis()
    a.color.warmth = -0.45
    a.color.greyPixelWarmth = -0.45
    a.color.confidence = 0.45
    a.color.hueShares = [0, 0.02, 0.01, 0, 0.35, 0.62, 0, 0]
    #expect(Recipe.warmUp.config(for: a) == nil)
  }

  /// End to end: a made-up face close-up (g63) given the harness's mild warm cast (linear
  /// gains 1.15, 1, 1/1.15). Both methods read the cast (0.3–0.4 above the original), and with
  /// their agreement Cool Down takes the photo most of the way back; on the mean alone it
  /// removes no more. (It removed about half while the cast also raised the indoor score, as
  /// it did on the harness's copy, 0.13 → 0.24; since that score is read with the cast
  /// removed, the mean alone removes about 0.36 of 0.40 here.)
  @Test func agreedMildWarmCastIsMostlyRemoved() throws {
    let engine = SuggestionEngine()
    let original = try AnalysisFixtures.decode("g63").image
    let warm = AnalysisFixtures.gained(original, 1.15, 1, 1 / 1.15)
    let before = engine.analysis(of: original).color
    var a = engine.analysis(of: warm)
    let cast = a.color.warmth - before.warmth
    let greyCast = try #require(a.color.greyPixelWarmth) - (before.greyPixelWarmth ?? 0)
    #expect(cast > 0.3 && greyCast > 0.3, "mean \(cast), grey pixels \(greyCast)")
    let agreed = try #require(Recipe.coolDown.config(for: a))
    a.color.greyPixelWarmth = nil
    let alone = try #require(Recipe.coolDown.config(for: a))
    let removedAgreed = -WhiteBalanceSliders.response(agreed).x
    let removedAlone = -WhiteBalanceSliders.response(alone).x
    #expect(removedAgreed > 0.8 * cast, "removes \(removedAgreed) of \(cast)")
    #expect(removedAlone <= removedAgreed, "alone removes \(removedAlone) of \(cast)")
  }
}
