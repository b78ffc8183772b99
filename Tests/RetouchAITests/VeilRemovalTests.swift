// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchRender
import Testing

@testable import RetouchAI

/// How much veil Dehaze takes off, and when a bright or partly blown frame still counts as
/// veiled.
@Suite("Veil removal")
struct VeilRemovalTests {
  let engine = SuggestionEngine()

  /// The Dehaze slider that removes a veil of linear light `v` exactly
  /// (``ColorToneTransform/dehazeVeil`` per unit).
  static func exactDehaze(veil v: Double) -> Double { v / ColorToneTransform.dehazeVeil }

  /// A street lamp at night (g01) whose darkest percent lies at L* 27 but whose floor is near
  /// black, under the harness's mild haze (a veil of 0.1875): the floor reads the veil, so
  /// Dehaze takes off that much and not the 0.21 the darkest percent read (Dehaze 0.42, which
  /// took the street's own shadows with it: ΔE2000 1.3 → 4.3 in the harness).
  @Test func theVeilIsReadFromTheChannelFloor() throws {
    let photo = try AnalysisFixtures.decode("g01").image
    let analysis = engine.analysis(of: photo)
    #expect(analysis.lightness(percentile: 1) > 20, "\(analysis.exposure.lightnessPercentiles)")
    #expect(try #require(analysis.exposure.channelFloor) < 3)
    let hazy = VeilColourTests.hazed(photo, transmission: 0.75)
    let config = try #require(engine.autoEdit(for: hazy))
    let exact = Self.exactDehaze(veil: 0.25 * 0.75)
    #expect(abs(config.value(of: .dehaze) - exact) <= 0.02, "\(config) against \(exact)")
    let (before, after) = AnalysisFixtures.difference(of: hazy, from: photo, fixedBy: config)
    #expect(after < 0.2 * before, "ΔE*ab \(before) → \(after)")
  }

  /// A cast laid over the haze scales each channel's veil by its gain, so the darkest channel
  /// reads less veil than there is; the channels' floors together keep its luminance, which is
  /// the veil's level once the cast is balanced. Under haze and the harness's cool or green
  /// cast, Dehaze takes off the whole veil (0.225) and not the cool cast's red floor (0.19:
  /// Dehaze 0.38, which left the flowers and the living room 1.3 and 3.3 ΔE2000 further from
  /// the photo).
  @Test(arguments: ["g77", "d01"])
  func aCastDoesNotLowerTheVeil(id: String) throws {
    let photo = try AnalysisFixtures.decode(id).image
    let hazy = VeilColourTests.hazed(photo, transmission: 0.7)
    let exact = Self.exactDehaze(veil: 0.3 * 0.75)
    for (cast, s) in [(AnalysisFixtures.Cast.cool, 0.2), (.green, 0.15)] {
      let copy = AnalysisFixtures.cast(hazy, cast, strength: s)
      let config = try #require(engine.autoEdit(for: copy))
      #expect(abs(config.value(of: .dehaze) - exact) <= 0.03, "\(cast): \(config)")
    }
  }

  /// A veiled photo given half a stop too much light, as the harness's over + haze pair makes
  /// it: a sky over parked cars (g31) reads a median of L* 83, and a nuthatch on a tree trunk
  /// (d11) has two fifths of it blown. Neither is one bright material, so both are dehazed by
  /// about the veil (0.32 after the gain), not given Black Point or Darken in its place (which
  /// left them grey: 17.0 and 13.3 of 23.4 and 19.5 ΔE2000 in the harness).
  @Test(arguments: ["g31", "d11"])
  func aWashedOutPhotoIsDehazed(id: String) throws {
    let photo = try AnalysisFixtures.decode(id).image
    let gain = pow(2, 0.5)
    let washed = AnalysisFixtures.gained(
      VeilColourTests.hazed(photo, transmission: 0.7), gain, gain, gain)
    let analysis = engine.analysis(of: washed)
    #expect(analysis.lightness(percentile: 50) > 80 || (analysis.exposure.blownShare ?? 0) > 0.3)
    #expect(analysis.brightMaterial == 0, "\(analysis.exposure.lightnessPercentiles)")
    let config = try #require(engine.autoEdit(for: washed))
    let exact = Self.exactDehaze(veil: 0.3 * 0.75 * gain)
    #expect(abs(config.value(of: .dehaze) - exact) <= 0.03, "\(config) against \(exact)")
    #expect(config.value(of: .blackPoint) == 0, "\(config)")
    let (before, after) = AnalysisFixtures.difference(of: washed, from: photo, fixedBy: config)
    #expect(after < 0.45 * before, "ΔE*ab \(before) → \(after)")
  }

  /// A nearly all-white minimal photo (g45) has a bright median over a span of 8 L*: one bright
  /// material, not a veil, and it is left as it is (it was dehazed fully while only a median
  /// near the top of the span counted, since a span that narrow has no top to be near).
  @Test func aWhiteFrameIsOneBrightMaterial() throws {
    let white = try AnalysisFixtures.decode("g45").image
    let analysis = engine.analysis(of: white)
    #expect(analysis.exposure.medianNearTop == 0)
    #expect(analysis.brightMaterial > 0.9, "\(analysis.exposure.lightnessPercentiles)")
    #expect(analysis.veil == 0)
    #expect(engine.topSuggestion(for: white) == nil)
  }
}
