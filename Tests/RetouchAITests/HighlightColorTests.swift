// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchRender
import RetouchTestSupport
import Testing

@testable import RetouchAI

/// The colour of the brightest detail tells a sunset (its light in the picture, amber) from a
/// daylight frame under a bright sky with a warm cast (its clouds tinted only by the cast), so
/// the cast of the second is removed and the light of the first is kept.
@Suite("Highlight colour")
struct HighlightColorTests {
  /// The 8-bit code of linear light `v`.
  static func code(_ v: Double) -> UInt8 {
    UInt8((SRGBTables.encodeExact(min(1, max(0, v))) * 255).rounded())
  }

  /// A 100 × 100 frame: mid grey, a band of 5 rows (5 %) of amber glow, and 10 rows of
  /// clipped white above it (brighter, but white whatever the light).
  static let glowFrame = AnalysisTestPhotos.synthetic(width: 100, height: 100) { _, y in
    switch y {
    case 0..<10: (255, 255, 255)
    case 10..<15: (code(0.8), code(0.6), code(0.3))
    default: (code(0.18), code(0.18), code(0.18))
    }
  }

  @Test func readsTheBrightestUnclippedDetail() throws {
    let stats = PixelStatistics(Self.glowFrame)
    let warmth = try #require(
      HighlightColor.warmth(
        Self.glowFrame, luminance: stats.luminancePlane, counts: stats.highlightCounts))
    // Exact up to the 8-bit codes of the glow.
    let expected = log2(
      SRGBTables.decodeExact(Double(Self.code(0.8)) / 255)
        / SRGBTables.decodeExact(Double(Self.code(0.3)) / 255))
    #expect(abs(warmth - expected) < 0.01, "\(warmth) against \(expected)")
    // The pixel statistics count every pixel but the 10 clipped rows, the glow in the bin of
    // its luminance.
    #expect(stats.highlightCounts.reduce(0, +) == 100 * 90, "\(stats.highlightCounts)")
    let glow = stats.luminancePlane[12 * 100]
    let glowBin = Int(glow * HighlightColor.binScale)
    #expect(stats.highlightCounts[glowBin] == 5 * 100, "bin \(glowBin)")
  }

  /// A NaN in the luminance plane counts as black: the reading is the same, no trap.
  @Test func nanLuminanceCountsAsBlack() throws {
    let stats = PixelStatistics(Self.glowFrame)
    var luminance = stats.luminancePlane
    let counts = stats.highlightCounts
    let clean = try #require(
      HighlightColor.warmth(Self.glowFrame, luminance: luminance, counts: counts))
    luminance[50 * 100 + 50] = .nan
    luminance[50 * 100 + 51] = -.infinity
    let dirty = try #require(
      HighlightColor.warmth(Self.glowFrame, luminance: luminance, counts: counts))
    #expect(dirty == clean)
  }

  @Test func clippedOrMismatchedInputGivesNoReading() {
    let white = AnalysisTestPhotos.synthetic(width: 40, height: 40) { _, _ in (255, 252, 250) }
    let whiteStats = PixelStatistics(white)
    #expect(
      HighlightColor.warmth(
        white, luminance: whiteStats.luminancePlane, counts: whiteStats.highlightCounts) == nil)
    let counts = PixelStatistics(Self.glowFrame).highlightCounts
    #expect(HighlightColor.warmth(Self.glowFrame, luminance: [0.5, 0.5], counts: counts) == nil)
    #expect(HighlightColor.warmth(Self.glowFrame, luminance: [], counts: []) == nil)
  }

  /// The rule itself: a backlit daylight frame (median L* 45 above a black level of 3) whose
  /// brightest detail is pale counts as lit by ordinary light; the same frame with an amber
  /// glow, a dark frame (a sunset's median of 20) or no reading keeps the doubt.
  @Test func paleHighlightsInADaylightFrameDoNotShowTheLight() {
    let daylight: [Double] = [3, 10, 30, 45, 60, 90, 99]
    #expect(ColorMeasurement.lightShown(0.1, percentiles: daylight) < 0.01)
    #expect(ColorMeasurement.lightShown(0.8, percentiles: daylight) == 1)
    #expect(ColorMeasurement.lightShown(nil, percentiles: daylight) == 1)
    let sunset: [Double] = [1, 4, 10, 20, 40, 85, 99]
    #expect(ColorMeasurement.lightShown(0.1, percentiles: sunset) == 1)
    // Lifted blacks raise the median, not the frame's light: a sunset whose black level sits
    // at L* 13 is judged from there.
    let liftedSunset: [Double] = [13, 16, 24, 33, 48, 88, 99]
    #expect(ColorMeasurement.lightShown(0.1, percentiles: liftedSunset) > 0.9)
  }

  /// A warm estimate of 0.4 in a backlit daylight frame is removed when its brightest detail
  /// is pale, and treated as the light's own colour when that detail glows amber.
  @Test func castUnderABrightSkyIsRemovedAndASunsetKept() throws {
    var a = balancedAnalysis()
    a.exposure.lightnessPercentiles = [3, 10, 30, 45, 60, 90, 99]
    a.color.warmth = 0.4
    a.color.confidence = 0.9
    a.color.highlightWarmth = 0.1
    let fix = try #require(Recipe.coolDown.config(for: a))
    #expect(fix.value(of: .temperature) < -0.1, "\(fix)")
    a.color.highlightWarmth = 0.8
    #expect(Recipe.coolDown.config(for: a) == nil)
  }

  /// End to end on real photos at the harness's size (768 px): a mountain landscape under a
  /// bright sky (d08) given the harness's mild warm cast (linear gains 1.15 and 1/1.15,
  /// normalised to keep grey's luminance) gets Cool Down from `autoEdit`, which takes back
  /// most of the cast; before the highlight colour was read, its backlit frame made the cast
  /// pass for golden light and the photo was left as it was (ΔE2000 3.5 against the original
  /// in the harness, 1.9 after). The dandelions against a low sun (d02), as they are and with
  /// their blacks lifted as the harness lifts them, keep their warm light.
  @Test func realCastIsRemovedAndRealSunsetKept() throws {
    let engine = SuggestionEngine()
    let landscape = try AnalysisFixtures.decode("d08").image
    let warm = AnalysisFixtures.cast(landscape, .warm, strength: 0.15)
    let before = engine.analysis(of: landscape).color.warmth
    let cast = engine.analysis(of: warm).color.warmth - before
    let edit = try #require(engine.autoEdit(for: warm, metadata: nil), "cast \(cast)")
    #expect(edit.value(of: .temperature) < 0, "\(edit)")
    let fixed = warm.applyingEditConfig(edit)
    let left = engine.analysis(of: fixed).color.warmth - before
    #expect(abs(left) < 0.5 * cast, "cast \(cast) → \(left)")

    let sunset = try AnalysisFixtures.decode("d02").image
    let lifted = AnalysisFixtures.mapped(sunset) { _, v in 0.08 + 0.92 * v }
    for photo in [sunset, lifted] {
      let a = engine.analysis(of: photo)
      #expect((a.color.highlightWarmth ?? 0) > 0.4, "\(a.color)")
      let looks = engine.suggestions(for: photo, isCancelled: { false }).map(\.lookID)
      #expect(!looks.contains("cool-down"), "\(looks)")
    }
  }
}
