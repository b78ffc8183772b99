// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchRender
import Testing

@testable import RetouchAI

/// A lifted black level or a veil raises every channel; a photo whose darkest percent is light
/// by its content (a deep blue sky, a lamp-lit ceiling) keeps a dark channel. The channel floor
/// tells the two apart, and sizes the black-level fix.
@Suite("Channel floor: lifted blacks and veils against light content")
struct ChannelFloorTests {
  let engine = SuggestionEngine()

  /// The floor is the L* of the 0.5th percentile of the per-pixel darkest channel.
  @Test func floorReadsTheDarkestChannel() {
    var floors = [Int](repeating: 0, count: 256)
    floors[0] = 4  // 0.4 %: under the percentile
    floors[20] = 96
    floors[200] = 900
    let l = ExposureMeasurement.channelFloor(floors, total: 1000)
    let expected = PixelStatistics.lightness(SRGBTables.decodeExact(20.0 / 255))
    #expect(abs(l - expected) < 1e-4, "\(l) against \(expected)")
    floors[0] = 6  // 0.6 %: now the floor is black
    floors[20] = 94
    #expect(ExposureMeasurement.channelFloor(floors, total: 1000) == 0)
  }

  /// The harness's mildest lift (`0.08 + 0.92·x` in display values) puts the floor at the lift,
  /// L* 6.3, on a photo whose own floor is black.
  @Test func liftRaisesTheFloor() throws {
    let photo = try AnalysisFixtures.decode("d08").image
    let before = try #require(engine.analysis(of: photo).exposure.channelFloor)
    let lifted = AnalysisFixtures.mapped(photo) { _, v in 0.08 + 0.92 * v }
    let after = try #require(engine.analysis(of: lifted).exposure.channelFloor)
    #expect(before < 3, "\(before)")
    #expect(after >= 6 && after < 8, "\(after)")
  }

  /// A kite in a deep blue sky (d21): the darkest percent reads L* 20, where Punch's lifted
  /// ramp is well under way, but the red channel of the sky reaches black. It is left alone
  /// (it was given Blacks −1 and Contrast +0.25), and the same photo with its blacks lifted by
  /// 0.12 is given them back: Black Point takes most of that level off (all of it would be
  /// 0.12 / 0.25 = 0.48; without a pile at the bottom to prove the lift, Punch takes 70–100 %).
  @Test func deepSkyIsNotALiftedBlackLevel() throws {
    let sky = try AnalysisFixtures.decode("d21").image
    let analysis = engine.analysis(of: sky)
    #expect(analysis.lightness(percentile: 1) > 15)
    #expect(try #require(analysis.exposure.channelFloor) < 1)
    #expect(engine.topSuggestion(for: sky) == nil)
    let lifted = AnalysisFixtures.mapped(sky) { _, v in 0.12 + 0.88 * v }
    let config = try #require(engine.topSuggestion(for: lifted))
    let blackPoint = config.value(of: .blackPoint)
    #expect(blackPoint >= 0.7 * 0.48 && blackPoint <= 0.48 + 0.02, "\(config)")
  }

  /// Bright cables against a deep blue sky (d10): the darkest percent reads L* 50, a veil's, but
  /// its floor is L* 34. It is not dehazed (it was, by 0.35), while the same photo under a veil
  /// of scattered light (the harness's mild haze, `0.75·x + 0.1875` in linear light) is.
  @Test func brightSkyIsNotAVeil() throws {
    let sky = try AnalysisFixtures.decode("d10").image
    #expect(engine.analysis(of: sky).lightness(percentile: 1) > 45)
    #expect((engine.topSuggestion(for: sky) ?? .neutral).value(of: .dehaze) == 0)
    let hazy = AnalysisFixtures.mapped(sky) { _, v in
      SRGBTables.encodeExact(0.75 * SRGBTables.decodeExact(v) + 0.1875)
    }
    let config = try #require(engine.topSuggestion(for: hazy))
    #expect(config.value(of: .dehaze) > 0.2, "\(config)")
  }

  /// The same cables under a warm or magenta cast (linear gains, scaled so a grey keeps its
  /// luminance): the cast raises the sky's red floor into the veil's range, but the floor stays
  /// well under the sky's darkest percent, where a veil puts it within a few L*. They are not
  /// dehazed (both were, by 0.35), and the floor gap is what tells them from the hazy copy.
  @Test(arguments: [(1.15, 1.0, 1 / 1.15), (1.1, 1.0, 1.1)])
  func castSkyIsNotAVeil(gains: (Double, Double, Double)) throws {
    let sky = try AnalysisFixtures.decode("d10").image
    let luma = ColorSpace.sRGB.lumaWeights
    let k = Double(luma.r) * gains.0 + Double(luma.g) * gains.1 + Double(luma.b) * gains.2
    let cast = AnalysisFixtures.gained(sky, gains.0 / k, gains.1 / k, gains.2 / k)
    let analysis = engine.analysis(of: cast)
    #expect(analysis.greyFloor(from: 33, to: 43) > 0, "the cast raised the floor")
    #expect(analysis.floorGap > 13, "\(analysis.floorGap)")
    #expect(analysis.veil == 0, "\(analysis.veil)")
    let config = engine.topSuggestion(for: cast) ?? .neutral
    #expect(config.value(of: .dehaze) == 0, "\(config)")
    let hazy = AnalysisFixtures.mapped(cast) { _, v in
      SRGBTables.encodeExact(0.75 * SRGBTables.decodeExact(v) + 0.1875)
    }
    #expect(engine.analysis(of: hazy).floorGap < 8)
  }

  /// The harness's mildest lift (`0.08 + 0.92·x`) on camera photos with black in them puts the
  /// darkest percent at L* 7–11, under or at the start of where the lifted-blacks ramp started
  /// (L* 10–22), and both of these kept the whole lift. Their floors read the lift (every
  /// channel raised), so most of it is taken off (all of it: Black Point 0.08 / 0.25 = 0.32;
  /// up to 0.36 where a photo's own blackest pixels sat a few codes over black and the lift's
  /// sharp floor makes the fix whole), while the photos themselves are left alone.
  @Test func mildLiftIsTakenOff() throws {
    for id in ["g77", "g74"] {
      let photo = try AnalysisFixtures.decode(id).image
      #expect(engine.topSuggestion(for: photo) == nil, "\(id)")
      let lifted = AnalysisFixtures.mapped(photo) { _, v in 0.08 + 0.92 * v }
      // What Punch's ramp reads: the darkest percent as the suggested exposure would leave it.
      let p1 = engine.analysis(of: lifted).lightnessOnceExposed(percentile: 1)
      #expect(p1 < 12, "\(id): \(p1)")
      let config = try #require(engine.topSuggestion(for: lifted), "\(id)")
      let blackPoint = config.value(of: .blackPoint)
      #expect(blackPoint >= 0.7 * 0.32 && blackPoint <= 0.32 + 0.05, "\(id): \(config)")
      let (before, after) = AnalysisFixtures.difference(of: lifted, from: photo, fixedBy: config)
      #expect(after < 0.2 * before, "\(id): ΔE*ab \(before) → \(after)")
    }
  }

  /// The black-level fix takes away what the floor shows when the darkest percent says more: a
  /// lamp-lit ceiling's darkest percent at L* 27.6 (encoded 0.24 over a clean photo's) over a
  /// floor at L* 6.8 (0.06 over) asked for Blacks −1.
  @Test func blackLevelRemovalIsBoundedByTheFloor() {
    var a = balancedAnalysis()
    a.exposure.lightnessPercentiles = [27.6, 35, 45, 56, 70, 90, 99]
    let byPercentile = ToneFit.blackLevelRemoval(a, strength: 1)
    a.exposure.channelFloor = 6.8
    let byFloor = ToneFit.blackLevelRemoval(a, strength: 1)
    #expect((byPercentile[.blackPoint] ?? 0) > 0.85, "\(byPercentile)")
    #expect(abs((byFloor[.blackPoint] ?? 0) - 0.25) < 0.05, "\(byFloor)")
    // A floor as high as the darkest percent changes nothing.
    a.exposure.channelFloor = 27.6
    #expect(ToneFit.blackLevelRemoval(a, strength: 1) == byPercentile)
  }
}

/// A veil needs a picture under it: a frame whose percentiles lie within a few L* has none to
/// bring out.
@Suite("Veil: a flat frame has no picture to dehaze")
struct FlatFrameVeilTests {
  let engine = SuggestionEngine()

  /// A nearly all-white minimal photo (g45) 0.7 EV under is a flat light grey (L* 73–80). It
  /// is not dehazed (it was, by 0.85, into dark grey), while the same photo under the
  /// harness's strong haze of an ordinary photo (d08) still is.
  @Test func underexposedWhiteFrameIsNotDehazed() throws {
    let white = try AnalysisFixtures.decode("g45").image
    let k = pow(2, -0.7)
    let under = AnalysisFixtures.gained(white, k, k, k)
    let analysis = engine.analysis(of: under)
    #expect(analysis.lightness(percentile: 99) - analysis.lightness(percentile: 1) < 8)
    #expect(analysis.veil < 0.1, "\(analysis.veil)")
    #expect((engine.topSuggestion(for: under) ?? .neutral).value(of: .dehaze) == 0)
    let photo = try AnalysisFixtures.decode("d08").image
    let hazy = AnalysisFixtures.mapped(photo) { _, v in
      SRGBTables.encodeExact(0.55 * SRGBTables.decodeExact(v) + 0.3375)
    }
    let config = try #require(engine.topSuggestion(for: hazy))
    #expect(config.value(of: .dehaze) > 0.3, "\(config)")
  }
}
