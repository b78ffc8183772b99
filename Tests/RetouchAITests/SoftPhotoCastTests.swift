// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import Testing

@testable import RetouchAI

/// A blur moves the colour estimate (its gray-edge half most), so a photo that measures soft
/// needs a larger reading before it is given a cast correction
/// (``CastRemoval/softWarmthDrift``, ``CastRemoval/softTintDrift``).
@Suite("Cast removal on a soft photo")
struct SoftPhotoCastTests {
  let engine = SuggestionEngine()

  /// A cake on a plate (g50) and a room before a sunlit window (g28) are left alone as they
  /// are; blurred by 2 px at 768 px, the first read 0.1 cooler and was warmed by 0.33, the
  /// second 0.1 greener and was given Fix Tint. Neither moves white balance now.
  @Test(arguments: ["g50", "g28"])
  func aBlurredGoodPhotoKeepsItsColour(id: String) throws {
    let photo = try AnalysisFixtures.decode(id).image
    #expect(engine.topSuggestion(for: photo) == nil, "\(id)")
    let blurred = AnalysisFixtures.blurred(photo, sigma: 2)
    let analysis = engine.analysis(of: blurred)
    #expect(SharpnessMeasurement.softness(analysis.sharpness) > 0.9, "\(analysis.sharpness)")
    let config = engine.topSuggestion(for: blurred) ?? .neutral
    #expect(config.value(of: .temperature) == 0, "\(id): \(config.properties)")
    #expect(config.value(of: .tint) == 0, "\(id): \(config.properties)")
  }

  /// A clear cast is still removed from a blurred photo: the harness's strong warm cast on a
  /// room (d05) and on a portrait (g25), which read 0.61–0.70 blurred, is cooled as far
  /// blurred as sharp. The cost is on mild casts: under the harness's mild warm cast the same
  /// two photos, blurred, read 0.27 and 0.37 and are cooled by 0 and 0.16 where sharp they
  /// are cooled by 0.15 and 0.24.
  @Test(arguments: ["d05", "g25"])
  func aBlurredPhotoUnderAClearCastIsStillCorrected(id: String) throws {
    let photo = try AnalysisFixtures.decode(id).image
    let sharp = AnalysisFixtures.cast(photo, .warm, strength: 0.3)
    let blurred = AnalysisFixtures.blurred(sharp, sigma: 2)
    let analysis = engine.analysis(of: blurred)
    #expect(SharpnessMeasurement.softness(analysis.sharpness) > 0.9, "\(analysis.sharpness)")
    #expect(analysis.color.clippedWhiteWarmth == nil, "read from the estimate, not a white")
    let fixSharp = try #require(Recipe.coolDown.proposal(for: engine.analysis(of: sharp)))
    let fix = try #require(Recipe.coolDown.proposal(for: analysis))
    let t = fix.config.value(of: .temperature)
    #expect(t < -0.3, "\(id): \(fix.config.properties)")
    #expect(abs(t - fixSharp.config.value(of: .temperature)) <= 0.05, "\(id): \(t)")
  }
}
