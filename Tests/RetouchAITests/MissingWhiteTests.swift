// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchRender
import Testing

@testable import RetouchAI

/// An exposure cut lowers a photo's whites by the lost gain: the brightest channel's top
/// (``ExposureAnalysis/missingWhiteEV``) reads the cut, and Brighten undoes it even where the
/// key reads the photo bright enough, when the clipped whites pile up at the lowered top.
@Suite("Missing whites: read and undone")
struct MissingWhiteTests {
  let engine = SuggestionEngine()

  /// Brightest-channel histogram: `top` share at code `code`, `white` share at 255, the rest
  /// spread over codes 40–119.
  static func ceilings(code: Int, top: Double, white: Double = 0, total: Int = 100_000) -> [Int] {
    var h = [Int](repeating: 0, count: 256)
    h[code] += Int(top * Double(total))
    h[255] += Int(white * Double(total))
    let rest = total - h.reduce(0, +)
    for i in 40..<120 { h[i] += rest / 80 }
    h[40] += rest - rest / 80 * 80
    return h
  }

  /// The missing white read from a brightest-channel histogram.
  static func missingWhite(_ ceilings: [Int], total: Int) -> Double {
    ExposureMeasurement.missingWhiteEV(
      atCode: ExposureMeasurement.whiteTop(ceilings, total: total).code)
  }

  static func stops(belowWhite code: Int) -> Double {
    log2(1 / SRGBTables.decodeExact(Double(code) / 255))
  }

  @Test func readFromTheBrightestChannelsTop() {
    // A clipped white lowered to code 206 (−0.7 EV): read exactly.
    let lowered = Self.missingWhite(
      Self.ceilings(code: 206, top: 0.02), total: 100_000)
    #expect(abs(lowered - Self.stops(belowWhite: 206)) < 1e-6, "\(lowered)")
    #expect(abs(lowered - 0.7) < 0.02, "\(lowered)")
    // Some channel at white in 0.05 % of the photo: its whites are in place.
    #expect(
      Self.missingWhite(
        Self.ceilings(code: 171, top: 0.02, white: 0.0005), total: 100_000) == 0)
    // A hundredth of a percent at white is stray pixels: the top below it is read.
    let stray = Self.missingWhite(
      Self.ceilings(code: 171, top: 0.02, white: 0.0001), total: 100_000)
    #expect(abs(stray - Self.stops(belowWhite: 171)) < 1e-6, "\(stray)")
  }

  @Test func clippedWhitesPileUpAtTheTop() {
    let total = 100_000
    // 2 % at the top code: clipped whites lowered together (the pile holds the code either
    // side too; the spread puts a few pixels at 119 and under, far below).
    let piled = ExposureMeasurement.whiteTop(Self.ceilings(code: 206, top: 0.02), total: total)
    #expect(piled.code == 206 && abs(piled.pile - 0.02) < 1e-3, "\(piled)")
    #expect(piled.pile >= ExposureMeasurement.minimumTopPile)
    // A top reached by a few pixels only (the rest spread lower): no pile.
    let spread = ExposureMeasurement.whiteTop(
      Self.ceilings(code: 206, top: 0.0005), total: total)
    #expect(spread.pile < ExposureMeasurement.minimumTopPile, "\(spread)")
    // A Lanczos resize overshoots the pile's edges: 0.1 % spread over the 8 codes above it is
    // more than the stray share, but the pile under it is still where the whites are.
    var ringing = Self.ceilings(code: 206, top: 0.02)
    for code in 207...214 { ringing[code] += 12 }
    ringing[40] -= 96
    let read = ExposureMeasurement.whiteTop(ringing, total: total)
    #expect(read.code == 206 && read.pile >= ExposureMeasurement.minimumTopPile, "\(read)")
  }

  @Test func aLargePileMustStandOutToReadAsAClip() {
    let total = 100_000
    // 13 % of the photo clipped, then lowered to code 183 together: a spike over the codes
    // under it.
    let spike = Self.ceilings(code: 183, top: 0.13)
    let lowered = ExposureMeasurement.whiteTop(spike, total: total)
    #expect(lowered.code == 183 && lowered.pile > 0.12, "\(lowered)")
    #expect(ExposureMeasurement.readsAsClip(lowered, ceilings: spike, total: total))
    // 60 % of the photo spread evenly over codes 160–183 (a smooth fog, 2.5 % a code), the rest
    // over 40–119: its top three codes hold 5 %, as much as any three codes under them.
    var smooth = [Int](repeating: 0, count: 256)
    for code in 160...183 { smooth[code] = 2_500 }
    for code in 40...119 { smooth[code] = 500 }
    let fog = ExposureMeasurement.whiteTop(smooth, total: total)
    #expect(fog.code == 183 && fog.pile >= ExposureMeasurement.largeTopPile, "\(fog)")
    #expect(!ExposureMeasurement.readsAsClip(fog, ceilings: smooth, total: total))
    // A smaller pile on the same slope is read as before: too little to judge by its step.
    var small = [Int](repeating: 0, count: 256)
    small[183] = 2_000
    for code in 170...181 { small[code] = 1_000 }
    for code in 40...119 { small[code] = 1_075 }
    let pile = ExposureMeasurement.whiteTop(small, total: total)
    #expect(pile.pile < ExposureMeasurement.largeTopPile, "\(pile)")
    #expect(ExposureMeasurement.readsAsClip(pile, ceilings: small, total: total))
    #expect(ExposureMeasurement.standsOut(pile, ceilings: small, total: total))
    // The thin top edge of a smooth grey (9 % a code over four codes, then 2.4 % on the top
    // code): a small pile too, but an eighth of what the codes under it hold.
    var edge = [Int](repeating: 0, count: 256)
    for code in 178...181 { edge[code] = 9_000 }
    edge[183] = 2_400
    for code in 40...119 { edge[code] = 770 }
    let plateau = ExposureMeasurement.whiteTop(edge, total: total)
    #expect(plateau.code == 183 && plateau.pile < ExposureMeasurement.largeTopPile, "\(plateau)")
    #expect(ExposureMeasurement.readsAsClip(plateau, ceilings: edge, total: total))
    #expect(!ExposureMeasurement.standsOut(plateau, ceilings: edge, total: total))
  }

  /// A thin pile proves only a cut past ``ExposureMeasurement/thinPileCut``. The pier in fog
  /// (d20) half a stop over, as the harness overexposes it, ends its grey top in a thin edge
  /// 0.57 EV under white, which had read as whites lowered by a cut: the copy was brightened
  /// by 0.54 EV (ΔE2000 6.2 → 12.6 from the photo). It is not brightened now. A leaf on
  /// snow (g84) 1.3 EV under ends its whites in a thin pile too, 1.5 EV under white, with a
  /// key as bright as the fog's: it is still brightened by about the cut.
  @Test func aThinPileProvesOnlyALargeCut() throws {
    let fog = try AnalysisFixtures.decode("d20").image
    let over = pow(2, 0.5)
    let brighter = AnalysisFixtures.gained(fog, over, over, over)
    let exposure = engine.analysis(of: brighter).exposure
    #expect(exposure.suggestedEV <= 0, "\(exposure.suggestedEV)")
    #expect((engine.topSuggestion(for: brighter)?.value(of: .exposure) ?? 0) <= 0)
    let snow = try AnalysisFixtures.decode("g84").image
    let under = pow(2, -1.3)
    let darker = AnalysisFixtures.gained(snow, under, under, under)
    let analysis = engine.analysis(of: darker).exposure
    #expect(analysis.keyLuminance > ExposureMeasurement.brightKey, "\(analysis.keyLuminance)")
    let config = try #require(engine.topSuggestion(for: darker))
    #expect(config.value(of: .exposure) > 1.0, "\(config)")
  }

  /// A bright scene metered to grey. The leaf on snow (g84) 0.7 EV under, as the harness
  /// underexposes it, reads a key as bright as a good photo's (over
  /// ``ExposureMeasurement/brightKey``) and no pile at its top, so neither the key nor the top
  /// had proof of a cut, and it was left ΔE2000 10.7 from the photo. It is even (its L*
  /// deviation about 7) with its shadows near black: Brighten takes it back by about the cut.
  /// The same frame under a haze (its blacks lifted to L* 65) is as even and as short of
  /// white, but it is a veil, and the photo itself keeps its exposure.
  @Test func aBrightSceneMeteredToGreyIsBrightened() throws {
    let snow = try AnalysisFixtures.decode("g84").image
    #expect((engine.topSuggestion(for: snow)?.value(of: .exposure) ?? 0) <= 0)
    let k = pow(2, -0.7)
    let under = AnalysisFixtures.gained(snow, k, k, k)
    let exposure = engine.analysis(of: under).exposure
    #expect(exposure.keyLuminance > 0.3, "\(exposure.keyLuminance)")
    #expect(exposure.lightnessDeviation < ExposureMeasurement.meteredFlatDeviation.lowerBound)
    let config = try #require(engine.topSuggestion(for: under))
    #expect((0.55...1.0).contains(config.value(of: .exposure)), "\(config)")
    let (before, after) = AnalysisFixtures.difference(of: under, from: snow, fixedBy: config)
    #expect(after < 0.35 * before, "ΔE*ab \(before) → \(after)")
    let hazed = AnalysisFixtures.mapped(snow) { _, v in
      SRGBTables.encodeExact(0.55 * SRGBTables.decodeExact(v) + 0.75 * 0.45)
    }
    #expect(engine.analysis(of: hazed).exposure.suggestedEV < 0.05)
    #expect((engine.topSuggestion(for: hazed)?.value(of: .exposure) ?? 0) <= 0)
  }

  /// The reading of a metered scene: an even frame with its blacks in place reads fully, an
  /// uneven one (the fog pier: L* deviation 23) or a veiled one (blacks at code 120) not.
  @Test func aMeteredSceneIsEvenWithItsBlacksInPlace() {
    #expect(ExposureMeasurement.meteredGrey(deviation: 7, bottomCode: 5) == 1)
    #expect(ExposureMeasurement.meteredGrey(deviation: 23, bottomCode: 5) == 0)
    #expect(ExposureMeasurement.meteredGrey(deviation: 7, bottomCode: 120) == 0)
    let between = ExposureMeasurement.meteredGrey(deviation: 9.5, bottomCode: 5)
    #expect(between > 0 && between < 1, "\(between)")
  }

  /// Bright frames without a lowered clip at their top, whose key reads them bright: the top
  /// alone does not brighten them. A cat in warm light (s02) has no white in it (its
  /// brightest channel tops out at code 211, 0.6 EV under white) and no pile there. A pier in
  /// fog (d20) has the top half of its frame one smooth grey at L* 74, 1.1 EV under white: a
  /// pile, but no step above the codes under it (it was brightened by 1.1 EV, ΔE2000 12.9
  /// from the photo).
  @Test(arguments: [("s02", 0.5), ("d20", 1.0)])
  func aBrightFrameWithoutWhitesIsNotBrightenedByItsTop(id: String, missing: Double) throws {
    let photo = try AnalysisFixtures.decode(id).image
    let exposure = engine.analysis(of: photo).exposure
    #expect((exposure.missingWhiteEV ?? 0) > missing, "\(exposure)")
    #expect(exposure.keyLuminance > ExposureMeasurement.brightKey, "\(exposure.keyLuminance)")
    #expect(exposure.suggestedEV < 0.3, "\(exposure.suggestedEV)")
    #expect((engine.topSuggestion(for: photo)?.value(of: .exposure) ?? 0) <= 0)
  }

  /// A colourful or dark frame whose brightest channel is already near white was exposed for
  /// what it shows: its luminance white point reads it dark (saturated colours carry little
  /// luminance, and a forest path's brightest percent sits at L* 59), but brightening
  /// stops at the brightest channel's room. A dark forest path showing sky through its canopy
  /// (d19) and cut fruit (d25) had been brightened by 1 EV and 0.5 EV; their copies 0.7 EV
  /// under are still brought back by about the cut, which lowered that channel with the rest.
  @Test(arguments: ["d19", "d25"])
  func brighteningStopsAtTheBrightestChannel(id: String) throws {
    let photo = try AnalysisFixtures.decode(id).image
    let exposure = engine.analysis(of: photo).exposure
    let room = try #require(exposure.missingWhiteEV)
    #expect(room < 0.25, "\(room)")
    #expect(exposure.suggestedEV <= room + 1e-9, "\(exposure.suggestedEV)")
    #expect((engine.topSuggestion(for: photo)?.value(of: .exposure) ?? 0) <= 0.25)
    let k = pow(2, -0.7)
    let copy = AnalysisFixtures.gained(photo, k, k, k)
    let config = try #require(engine.topSuggestion(for: copy))
    #expect(config.value(of: .exposure) > 0.45, "\(config)")
    let (before, after) = AnalysisFixtures.difference(of: copy, from: photo, fixedBy: config)
    #expect(after < 0.35 * before, "ΔE*ab \(before) → \(after)")
  }

  /// A blur is not an exposure cut. Spreading the small bright details that set the brightest
  /// channel's top (highlights on cut fruit, white lettering on a print) lowers the top by
  /// about as much as a cut of a third to half a stop, and the harness's blurred copies of
  /// both photos (σ 1 and 2 px at 768 px) had been brightened by 0.5–0.8 EV (ΔE2000 from the
  /// photo 1.5 → 6.7, 1.8 → 6.4). A copy a stop under is still brightened after the blur.
  @Test(arguments: ["d25", "g58"])
  func aBlurredCopyIsNotBrightenedByItsLoweredTop(id: String) throws {
    let photo = try AnalysisFixtures.decode(id).image
    let own = engine.analysis(of: photo).exposure
    let soft = AnalysisFixtures.blurred(photo, sigma: 1.5)
    let analysis = engine.analysis(of: soft)
    #expect(analysis.sharpness.isSoft, "\(analysis.sharpness)")
    // The blur lowered the top: without the softness it would read as a cut.
    let room = try #require(analysis.exposure.missingWhiteEV)
    #expect(room > (own.missingWhiteEV ?? 0) + 0.2, "\(own.missingWhiteEV ?? 0) → \(room)")
    #expect(
      analysis.exposure.suggestedEV < own.suggestedEV + 0.15,
      "\(own.suggestedEV) → \(analysis.exposure.suggestedEV)")
    #expect((engine.topSuggestion(for: soft)?.value(of: .exposure) ?? 0) < 0.3)
    let k = pow(2, -1.0)
    let under = AnalysisFixtures.gained(soft, k, k, k)
    let config = try #require(engine.topSuggestion(for: under))
    #expect(config.value(of: .exposure) > 0.5, "\(config)")
  }

  /// A veil is not underexposure. The fog pier (d20) under the harness's haze (linear light
  /// times 0.55, plus 0.75 of the rest) spans under a stop between its darkest and brightest
  /// percent, the darkest at L* 65, while its fog still piles up 0.7 EV under white: that
  /// read as lowered whites and brightened it by 0.6 EV. It has no picture to expose
  /// (``ExposureMeasurement/minimumContentStops``), so Brighten is not offered, and the top
  /// suggestion takes out most of the veil instead.
  @Test func aHazedFogIsNotBrightenedByItsTop() throws {
    let photo = try AnalysisFixtures.decode("d20").image
    let hazed = AnalysisFixtures.mapped(photo) { _, v in
      SRGBTables.encodeExact(0.55 * SRGBTables.decodeExact(v) + 0.75 * 0.45)
    }
    let exposure = engine.analysis(of: hazed).exposure
    #expect((exposure.missingWhiteEV ?? 0) > 0.5, "\(exposure)")
    #expect(exposure.lightnessPercentiles[0] > 55, "\(exposure.lightnessPercentiles)")
    #expect(abs(exposure.suggestedEV) < 0.05, "\(exposure.suggestedEV)")
    let looks = engine.suggestions(for: hazed, isCancelled: { false }).map(\.lookID)
    #expect(!looks.contains("brighten"), "\(looks)")
    let config = try #require(engine.topSuggestion(for: hazed))
    let (before, after) = AnalysisFixtures.difference(of: hazed, from: photo, fixedBy: config)
    #expect(after < 0.5 * before, "ΔE*ab \(before) → \(after)")
  }

  /// A nuthatch against a bright, partly blown background (d11): its key reads it bright, so
  /// only its whites tell a copy 0.7 EV under from the photo. The photo reads no missing
  /// white and gets no exposure; the copy reads the 0.7 EV, Brighten leads with it, and its edit
  /// brings the copy back to within a fraction of the difference.
  @Test func highKeyPhotoUnderexposed() throws {
    let photo = try AnalysisFixtures.decode("d11").image
    let original = engine.analysis(of: photo).exposure
    #expect((original.missingWhiteEV ?? 1) < 0.05, "\(original.missingWhiteEV ?? -1)")
    #expect((engine.topSuggestion(for: photo)?.value(of: .exposure) ?? 0) <= 0)
    let k = pow(2, -0.7)
    let copy = AnalysisFixtures.gained(photo, k, k, k)
    let read = try #require(engine.analysis(of: copy).exposure.missingWhiteEV)
    #expect(abs(read - 0.7) < 0.05, "\(read)")
    #expect(engine.analysis(of: copy).exposure.keyLuminance > ExposureMeasurement.brightKey)
    let config = try #require(engine.topSuggestion(for: copy))
    #expect(abs(config.value(of: .exposure) - 0.7) <= 0.1, "\(config)")
    let (before, after) = AnalysisFixtures.difference(of: copy, from: photo, fixedBy: config)
    #expect(after < 0.25 * before, "ΔE*ab \(before) → \(after)")
  }

  /// A face close-up whose brightest channel tops out at code 217 (g63): the face is already
  /// as bright as skin should be, so the missing whites do not brighten it.
  @Test func aWellLitFaceBoundsTheLift() throws {
    let photo = try AnalysisFixtures.decode("g63").image
    let analysis = engine.analysis(of: photo)
    #expect(!analysis.faces.isEmpty)
    #expect((analysis.exposure.missingWhiteEV ?? 0) > 0.4, "\(analysis.exposure)")
    #expect(analysis.exposure.suggestedEV < 0.3, "\(analysis.exposure.suggestedEV)")
  }
}
