// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchRender
import Testing

@testable import RetouchAI

/// A tint correction goes no further than the grey pixels read: the mean estimate is pulled by
/// the scene's dominant colours, a cast tints the grey things too.
@Suite("Tint bounded by the grey pixels")
struct GreyPixelTintBoundTests {
  let engine = SuggestionEngine()

  @Test func boundFollowsTheGreyPixels() {
    // Both read the same cast: kept.
    #expect(CastRemoval.boundedByGreyPixels(0.14, 0.13) == 0.14)
    // The grey pixels read less: cut to their reading plus the tolerance.
    #expect(abs(CastRemoval.boundedByGreyPixels(0.2, 0.06) - 0.09) < 1e-12)
    #expect(abs(CastRemoval.boundedByGreyPixels(-0.2, -0.06) + 0.09) < 1e-12)
    // They read nothing, or the other way: nothing is removed.
    #expect(CastRemoval.boundedByGreyPixels(-0.3, 0.02) == 0)
    #expect(CastRemoval.boundedByGreyPixels(0.3, -0.1) == 0)
  }

  /// Clouds over Paris (g27): the mean reads 0.21 magenta, the grey pixels 0.04 green. The
  /// photo is left alone (it was given Tint −0.13), and the same photo under the harness's mild
  /// magenta cast (+10 % red and blue in linear light) still has most of the cast taken out.
  @Test func cloudsAreNotRetintedButAMagentaCastIs() throws {
    let clouds = try AnalysisFixtures.decode("g27").image
    #expect(engine.topSuggestion(for: clouds) == nil)
    let cast = AnalysisFixtures.cast(clouds, .magenta, strength: 0.1)
    let config = try #require(engine.topSuggestion(for: cast))
    let fixed = cast.applyingEditConfig(config)
    let castTint = Self.tint(cast) - Self.tint(clouds)
    let left = Self.tint(fixed) - Self.tint(clouds)
    #expect(castTint < -0.1, "\(castTint)")
    #expect(abs(left) < 0.5 * abs(castTint), "left \(left) of \(castTint): \(config)")
  }

  /// log2(G / √(R·B)) of the mean linear light.
  static func tint(_ image: Image) -> Double {
    let m = AnalysisFixtures.channelMeans(image)
    return log2(m.g / (m.r * m.b).squareRoot())
  }
}
