// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchRender
import Testing

@testable import RetouchAI

/// A photo dark by its own lights is coloured by them, and lamps are amber or green: the doubt
/// that a dark, lamp-lit scene casts on the colour estimate covers warm and green readings, not
/// a cool or magenta one (``ColorMeasurement/lampColoured(warmth:greenTint:)``).
@Suite("Casts unlike lamp light in a lamp-lit scene")
struct LampSceneCastTests {
  let engine = SuggestionEngine()

  /// `id` under the harness's strong cool (linear gains 1/1.3, 1, 1.3) or magenta (1.2, 1, 1.2)
  /// cast, scaled to keep a grey's luminance, without metadata; then what the top suggestion
  /// leaves of the cast (log2 R/B for cool, log2 G/√(R·B) for magenta) against the cast itself,
  /// both read over the pixels the cast left unclipped.
  static func castLeft(_ id: String, cool: Bool, engine: SuggestionEngine) throws
    -> (cast: Double, left: Double, config: EditConfig?)
  {
    let original = try CorrectionEvidenceTests.photo(id)
    let g = cool ? (1 / 1.3, 1.0, 1.3) : (1.2, 1.0, 1.2)
    let luma = ColorSpace.sRGB.lumaWeights
    let k = Double(luma.r) * g.0 + Double(luma.g) * g.1 + Double(luma.b) * g.2
    let cast = AnalysisFixtures.gained(original, g.0 / k, g.1 / k, g.2 / k)
    let config = engine.topSuggestion(for: cast)
    let fixed = config.map { cast.applyingEditConfig($0) } ?? cast
    func reading(_ image: Image) -> Double {
      let c = ClippedWhiteTests.colour(of: image, unclippedIn: cast)
      return cool ? c.warmth : c.tint
    }
    let own = reading(original)
    return (reading(cast) - own, reading(fixed) - own, config)
  }

  /// A dim room before a sunlit window (g28, read as dark on purpose) under the strong magenta
  /// cast: the estimate's trust was halved by the lamp-lit scene (0.51) and a third of the cast
  /// stayed; at full trust all but a sixth goes.
  @Test func magentaCastInALampLitRoomIsRemoved() throws {
    let (cast, left, config) = try Self.castLeft("g28", cool: false, engine: engine)
    #expect(abs(left) < 0.25 * abs(cast), "tint \(cast) → \(left) by \(String(describing: config))")
  }

  /// A crowd at a party (g85, read as dark on purpose) under the strong magenta cast, which the
  /// estimate and the grey pixels read alike: with the lamp-lit scene's wide tint ramp half the
  /// cast stayed; magenta is not lamp light, and the agreed ramp leaves about a third.
  @Test func magentaCastAtANightPartyIsRemoved() throws {
    let (cast, left, config) = try Self.castLeft("g85", cool: false, engine: engine)
    #expect(abs(left) < 0.42 * abs(cast), "tint \(cast) → \(left) by \(String(describing: config))")
  }

  /// A waterfall in a dark forest under a white sky (g04, read as dark on purpose and backlit)
  /// under the harness's mild magenta cast, which the estimate and the grey pixels read alike
  /// (−0.10): the dark frame counted as light shown and the cast was left whole. Its brightest
  /// detail is white, so no pink light is shown: most of the cast goes, and the photo itself
  /// is still left as it is.
  @Test func mildMagentaCastUnderAWhiteSkyIsRemoved() throws {
    let original = try CorrectionEvidenceTests.photo("g04")
    #expect(engine.topSuggestion(for: original) == nil)
    let cast = AnalysisFixtures.cast(original, .magenta, strength: 0.1)
    let config = try #require(engine.topSuggestion(for: cast))
    let fixed = cast.applyingEditConfig(config)
    let own = ClippedWhiteTests.colour(of: original, unclippedIn: cast).tint
    let given = ClippedWhiteTests.colour(of: cast, unclippedIn: cast).tint - own
    let left = ClippedWhiteTests.colour(of: fixed, unclippedIn: cast).tint - own
    #expect(given < -0.1, "\(given)")
    #expect(abs(left) < 0.4 * abs(given), "tint \(given) → \(left) by \(config)")
  }

  /// A father on a lawn at dusk (g64, flash, read as dark on purpose without its EXIF) under the
  /// strong cool cast: at the lamp-lit scene's trust (0.63) nearly half the cast stayed, at
  /// 0.92 under a third does.
  @Test func coolCastInADuskSceneIsRemoved() throws {
    let (cast, left, config) = try Self.castLeft("g64", cool: true, engine: engine)
    #expect(
      abs(left) < 0.4 * abs(cast), "warmth \(cast) → \(left) by \(String(describing: config))")
  }
}
