// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchRender
import Testing

@testable import RetouchAI

/// Corrections act on evidence, sized to it: bright photos that are bright on purpose are not
/// darkened, an overexposure is pulled back by about what it was, blue scenes are not warmed on
/// a weak estimate, and a confident cast in daylight is removed rather than nudged.
@Suite("Corrections: evidence and size")
struct CorrectionEvidenceTests {
  let engine = SuggestionEngine()

  /// The photo at the harness's size, without its metadata (the harness feeds PNGs).
  static func photo(_ id: String) throws -> Image {
    try AnalysisFixtures.decode(id).image
  }

  /// Snow (g84, bright on purpose, nothing blown) given +0.5 EV in linear light, clipped: the
  /// pull back is about half a stop, and it is not a full exposure pull with a full Highlights
  /// pull stacked on top (which turned the snow grey).
  @Test func overexposedSnowIsPulledBackByAboutTheOverexposure() throws {
    let snow = try Self.photo("g84")
    #expect(engine.topSuggestion(for: snow) == nil, "the untouched snow is good as it is")
    let over = AnalysisFixtures.gained(snow, pow(2, 0.5), pow(2, 0.5), pow(2, 0.5))
    let config = try #require(engine.topSuggestion(for: over))
    let ev = config.value(of: .exposure)
    #expect(ev <= -0.15 && ev >= -0.8, "exposure \(ev) for a +0.5 EV overexposure")
    // Together the two pulls stay near the overexposure (Highlights −1 darkens bright tones by
    // roughly a stop on a frame that is nearly all highlights).
    #expect(-ev - config.value(of: .highlights) < 1.0, "\(config)")
    #expect(config.value(of: .blacks) >= 0, "overexposed snow is not a veil: \(config)")
    #expect(config.value(of: .blackPoint) <= 0, "overexposed snow is not a veil: \(config)")
  }

  /// A photo given +1 EV in linear light whose key reads it near the target and whose blown
  /// white (11–12 % on the harness's copies) good photos also have: its bright colours clipped
  /// in two channels prove it overexposed, and it is darkened. A strong warm cast clips one
  /// channel of the same photos and is not taken for overexposure.
  @Test(arguments: ["g77", "d02"])
  func clippedColoursAreTooMuchLight(id: String) throws {
    let original = try Self.photo(id)
    #expect(engine.topSuggestion(for: original) == nil, "the untouched photo is good as it is")
    let over = AnalysisFixtures.gained(original, 2, 2, 2)
    let a = PhotoAnalyzer().analyze(over, metadata: nil, measureNoise: false)
    #expect((a.exposure.clippedColourShare ?? 0) > 0.006, "\(a.exposure)")
    let config = try #require(engine.topSuggestion(for: over))
    #expect(config.value(of: .exposure) <= -0.5, "\(config)")
    let warm = AnalysisFixtures.gained(original, 1.3, 1, 1 / 1.3)
    let w = PhotoAnalyzer().analyze(warm, metadata: nil, measureNoise: false)
    #expect(
      (w.exposure.clippedColourShare ?? 1) < 0.25 * (a.exposure.clippedColourShare ?? 0),
      "\(w.exposure)")
    #expect((engine.topSuggestion(for: warm)?.value(of: .exposure) ?? 0) > -0.3)
  }

  /// A light in the picture whose amber glow clips (sun glare on water, d17: two channels of
  /// the glow over 1 % of the frame; an ornate street lamp at night, g01: its globes blown
  /// over several percent) is not darkened: the clipping is the light's. The same photo given
  /// more light (a stop, half a stop) clips far more and is darkened.
  @Test(arguments: [("d17", 1.0), ("g01", 0.5)])
  func glowOfTheLightInThePictureIsNotOverexposure(id: String, overEV: Double) throws {
    let original = try Self.photo(id)
    let a = PhotoAnalyzer().analyze(original, metadata: nil, measureNoise: false)
    #expect(
      (a.exposure.clippedColourShare ?? 0) > 0.006 || (a.exposure.blownShare ?? 0) > 0.05,
      "the light clips: \(a.exposure)")
    #expect((a.color.highlightWarmth ?? 0) > 1, "\(a.color)")
    #expect(a.exposure.suggestedEV > -0.3, "\(a.exposure)")
    #expect((engine.topSuggestion(for: original)?.value(of: .exposure) ?? 0) > -0.3)
    let gain = pow(2, overEV)
    let over = AnalysisFixtures.gained(original, gain, gain, gain)
    let config = try #require(engine.topSuggestion(for: over))
    #expect(config.value(of: .exposure) <= -0.3, "\(config)")
  }

  /// A sunset (sun glare on water, d17) given too little light keeps its light: once its
  /// measured underexposure is undone its brightest percent sits as far above its median as the
  /// photo's, so the doubt its warm light puts on the colour estimate stays, and it is
  /// brightened without a Temperature pull. Read as given, the copies 0.7–2 EV under lost that
  /// doubt and were cooled by about 0.6 with the brightening.
  @Test(arguments: [0.7, 1.3, 2.0])
  func anUnderexposedSunsetKeepsItsLight(underEV: Double) throws {
    let original = try Self.photo("d17")
    let gain = pow(2, -underEV)
    let under = AnalysisFixtures.gained(original, gain, gain, gain)
    let config = try #require(engine.topSuggestion(for: under))
    #expect(abs(config.value(of: .exposure) - underEV) <= 0.2, "\(config)")
    #expect(config.value(of: .temperature) > -0.1, "\(config)")
  }

  /// A daylight beach under a bright sky (g76) given too little light and a warm cast is a
  /// daylight frame once its exposure is undone, so its pale brightest detail (sky, not a
  /// light) keeps the warm estimate trusted and the cast is removed with the brightening, as it
  /// is without the underexposure. Read as given, its median made it a dark frame whose light
  /// might be shown, and the cast was only half removed (Temperature −0.12).
  @Test func anUnderexposedDaylightFrameKeepsItsCastTrusted() throws {
    let original = try Self.photo("g76")
    let gain = pow(2, -1.3)
    let under = AnalysisFixtures.gained(original, gain, gain, gain)
    let copy = AnalysisFixtures.cast(under, .warm, strength: 0.2)
    let config = try #require(engine.topSuggestion(for: copy))
    #expect(config.value(of: .exposure) > 0.8, "\(config)")
    #expect(config.value(of: .temperature) < -0.2, "\(config)")
  }

  /// The glow's warmth, the blown share and the clipped-colour share decide together: a
  /// daylight highlight, a large blown part or colours clipped over much of the frame leave the
  /// clipped colours counted.
  @Test func glowExplainsClippingOnlyWhenWarmAndLittleClipped() {
    typealias E = ExposureMeasurement
    #expect(E.glowExplainsClipping(1.75, blownShare: 0.015, clipped: 0.0095) == 1)
    #expect(E.glowExplainsClipping(0.3, blownShare: 0.015, clipped: 0.0095) == 0)
    #expect(E.glowExplainsClipping(nil, blownShare: 0.015, clipped: 0.0095) == 0)
    #expect(E.glowExplainsClipping(1.75, blownShare: 0.12, clipped: 0.0095) == 0)
    #expect(E.glowExplainsClipping(1.75, blownShare: 0.015, clipped: 0.02) == 0)
    let quarter = E.glowExplainsClipping(0.8, blownShare: 0.08, clipped: 0.005)
    #expect(quarter > 0.2 && quarter < 0.3, "\(quarter)")
  }

  /// The clipping bounds what the key asks for: a frame with nothing blown measures no excess,
  /// however bright it is.
  @Test func clippedEVNeedsBlownPixels() {
    let bins = PixelStatistics.histogramBins
    var bright = [Int](repeating: 0, count: bins)
    // Everything at linear 0.7 (L* ≈ 87): bright, nothing blown.
    bright[Int(0.7 * Double(bins - 1))] = 1000
    #expect(ExposureMeasurement.clippedEV(bright, blownShare: 0, total: 1000) == 0)
    // A third blown over a thin shoulder: clearly overexposed.
    var over = [Int](repeating: 0, count: bins)
    over[bins - 1] = 330
    over[Int(0.8 * Double(bins - 1))] = 100
    over[Int(0.3 * Double(bins - 1))] = 570
    let ev = ExposureMeasurement.clippedEV(over, blownShare: 0.33, total: 1000)
    #expect(ev > 1, "\(ev)")
  }

  /// A correctly exposed bright photo with a bright, partly blown background (d11: a bird on a
  /// tree in front of a pale out-of-focus street) is left alone, and a small warm cast on it
  /// does not make it "overexposed".
  @Test(arguments: [(1.0, 1.0), (1.15, 1 / 1.15)])
  func brightPhotoIsNotDarkened(red: Double, blue: Double) throws {
    let base = try Self.photo("d11")
    let image = red == 1 ? base : AnalysisFixtures.gained(base, red, 1, blue)
    let config = engine.topSuggestion(for: image)
    if red == 1 { #expect(config == nil, "\(String(describing: config))") }
    #expect((config?.value(of: .exposure) ?? 0) > -0.3, "\(String(describing: config))")
  }

  /// A blue scene (snow in shade, g84) whose darkest tones were crushed: the crush makes its
  /// cool estimate look more trustworthy, but a scene that is mostly blue is not warmed on a
  /// middling estimate.
  @Test func crushedBlueSceneIsNotWarmed() throws {
    let snow = try Self.photo("g84")
    let crushed = AnalysisFixtures.mapped(snow) { _, v in max(0, (v - 0.1) / 0.9) }
    let config = engine.topSuggestion(for: crushed)
    #expect((config?.value(of: .temperature) ?? 0) <= 0, "\(String(describing: config))")
  }

  /// The same rule on a hand-made analysis: a cool estimate of middling confidence is warmed
  /// in a mixed scene but not when blue and aqua are nearly all of the colour, unless the
  /// estimate is trusted.
  @Test func blueSceneNeedsATrustedEstimateToBeWarmed() throws {
    var a = balancedAnalysis()
    a.color.warmth = -0.6
    a.color.confidence = 0.45
    #expect(Recipe.warmUp.config(for: a) != nil)
    a.color.hueShares = [0, 0.02, 0.01, 0, 0.35, 0.62, 0, 0]
    #expect(Recipe.warmUp.config(for: a) == nil)
    a.color.confidence = 0.8
    #expect(Recipe.warmUp.config(for: a) != nil)
  }

  /// A confident warm estimate of 0.35 in a daylight scene is mostly cast: Cool Down removes
  /// most of it. The same estimate in a scene lit by lamps or night lights is the light's, and
  /// is left alone.
  @Test func confidentDaylightCastIsRemovedButWarmLightStays() throws {
    var a = balancedAnalysis()
    // No light in frame: the brightest percent 30 L* above the median.
    a.exposure.lightnessPercentiles = [3, 8, 30, 50, 66, 76, 80]
    a.color.warmth = 0.35
    a.color.confidence = 0.85
    let config = try #require(Recipe.coolDown.config(for: a))
    let response = WhiteBalanceSliders.response(config)
    #expect(response.x < -0.25, "removes \(-response.x) of a 0.35 cast")
    #expect(response.x > -0.4, "does not overshoot: \(response.x)")
    a.sceneScores[.light] = 0.8
    #expect(Recipe.coolDown.config(for: a) == nil)
    a.sceneScores[.light] = 0
    a.sceneScores[.indoor] = 0.6
    #expect(Recipe.coolDown.config(for: a) == nil)
  }

  /// End to end: a daylight photo without the light in frame (g47) given a mild warm cast
  /// (linear gains 1.15, 1, 1/1.15) comes back most of the way to its own colour, not just a
  /// tenth of it.
  @Test func mildWarmCastOnDaylightPhotoIsMostlyRemoved() throws {
    let original = try Self.photo("g47")
    let warm = AnalysisFixtures.gained(original, 1.15, 1, 1 / 1.15)
    let config = try #require(engine.topSuggestion(for: warm))
    #expect(config.value(of: .temperature) < 0, "\(config)")
    expectCast(of: warm, from: original, undoneBy: config, toWithin: 0.5)
  }

  /// Expects `config` to bring the warmth the analysis reads on `castCopy` back to within
  /// `share` of the cast it was given (the difference from `original`'s own reading).
  func expectCast(
    of castCopy: Image, from original: Image, undoneBy config: EditConfig,
    toWithin share: Double, sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let before = engine.analysis(of: original).color.warmth
    let cast = engine.analysis(of: castCopy).color.warmth
    let after = engine.analysis(of: castCopy.applyingEditConfig(config)).color.warmth
    #expect(
      abs(after - before) < share * abs(cast - before),
      "warmth \(before) → cast \(cast) → after \(after)", sourceLocation: sourceLocation)
  }

  /// The harness's strong cast (linear gains `1 + 0.3` and `1/(1 + 0.3)`, scaled so a grey
  /// keeps its luminance) toward warm or cool.
  static func strongCast(_ image: Image, warm: Bool) -> Image {
    let (r, b) = warm ? (1.3, 1 / 1.3) : (1 / 1.3, 1.3)
    let luma = ColorSpace.sRGB.lumaWeights
    let k = Double(luma.r) * r + Double(luma.g) + Double(luma.b) * b
    return AnalysisFixtures.gained(image, r / k, 1 / k, b / k)
  }

  /// Backlit frames with a uniform warm cast (g59, an animal indoors against a bright window;
  /// g92, a landscape against the sky): the mean, the grey pixels and the brightest detail
  /// read the cast alike, so it is not the warm light of a sunset shown in the frame, and Cool
  /// Down takes most of it off. Both were left cast, with a colour confidence of 0.21.
  @Test(arguments: ["g59", "g92"])
  func uniformWarmCastOnBacklitPhotoIsRemoved(id: String) throws {
    let original = try Self.photo(id)
    #expect(engine.topSuggestion(for: original) == nil, "\(id) is good as it is")
    let warm = Self.strongCast(original, warm: true)
    let config = try #require(engine.topSuggestion(for: warm))
    #expect(config.value(of: .temperature) < 0, "\(config)")
    expectCast(of: warm, from: original, undoneBy: config, toWithin: 0.5)
  }

  /// A flash photo at night (g85) given a strong cool cast turns from 41 % to 87 % blue and
  /// aqua, like sky or sea; its three readings of the cast agree, so it is warmed back. It
  /// was offered no Warm Up at all.
  @Test func uniformCoolCastIsNotTakenForABlueScene() throws {
    let original = try Self.photo("g85")
    let cool = Self.strongCast(original, warm: false)
    let config = try #require(Recipe.warmUp.config(for: engine.analysis(of: cool)))
    expectCast(of: cool, from: original, undoneBy: config, toWithin: 0.6)
  }

  /// Snow in shade (g84) underexposed by 0.7, 1.3 and 2 EV in linear light: the grey, flat
  /// frame keeps its median near its own whites, so its darkest percent (the leaf) is not a
  /// lifted black level to pull down, nor a veil, and its blue is the snow's, not a cast. The
  /// suggestion must not darken it further or warm it (it darkened by brightness −0.5 and
  /// blacks −1, or warmed by +0.7).
  @Test(arguments: [-0.7, -1.3, -2.0])
  func underexposedSnowIsNotDarkenedOrWarmed(ev: Double) throws {
    let snow = try Self.photo("g84")
    let k = pow(2, ev)
    let under = AnalysisFixtures.gained(snow, k, k, k)
    #expect(engine.analysis(of: under).brightDominated > 0.9)
    let config = engine.topSuggestion(for: under)
    let c = config ?? .neutral
    #expect(c.value(of: .blacks) >= 0, "\(c)")
    #expect(c.value(of: .blackPoint) <= 0, "\(c)")
    #expect(c.value(of: .brightness) >= 0, "\(c)")
    #expect(c.value(of: .exposure) >= 0, "\(c)")
    #expect(c.value(of: .temperature) <= 0, "\(c)")
  }

  /// Snow in shade (g84) under the harness's mild and strong cool casts: its own blue (−0.6) is
  /// the scene's and stays, the blue beyond it is a cast and Warm Up takes it off, back to
  /// within 0.25 of the snow's own reading and never to a neutral grey. Both casts were left
  /// whole when none of a blue material's reading counted as cast.
  @Test(arguments: [0.15, 0.3])
  func coolCastOnSnowInShadeIsRemovedDownToTheSnowsBlue(strength: Double) throws {
    let snow = try Self.photo("g84")
    let own = engine.analysis(of: snow).color.warmth
    #expect(own < -0.45, "the snow is blue: \(own)")
    let (r, b) = (1 / (1 + strength), 1 + strength)
    let luma = ColorSpace.sRGB.lumaWeights
    let k = Double(luma.r) * r + Double(luma.g) + Double(luma.b) * b
    let cool = AnalysisFixtures.gained(snow, r / k, 1 / k, b / k)
    let config = try #require(engine.topSuggestion(for: cool))
    #expect(config.value(of: .temperature) > 0, "\(config)")
    let after = engine.analysis(of: cool.applyingEditConfig(config)).color.warmth
    #expect(abs(after - own) < 0.25, "warmth \(own) → after \(after)")
  }

  /// A pale overcast river bank (g26, its grey sky over a third of the frame, so it reads as a
  /// frame of bright material) under the harness's mild and strong cool casts: its three
  /// readings agree on the cast (−0.34, −0.43 and −0.49 under the mild one), where snow in
  /// shade reads apart, so Warm Up takes the cast off, back to within 0.15 of the photo's own
  /// reading. Both casts were left (the mild one whole) while all blue up to the snow's counted
  /// as the material's.
  @Test(arguments: [0.15, 0.3])
  func coolCastOnAPaleOvercastSceneIsRemoved(strength: Double) throws {
    let photo = try Self.photo("g26")
    let own = engine.analysis(of: photo).color.warmth
    let cool = AnalysisFixtures.cast(photo, .cool, strength: strength)
    let analysis = engine.analysis(of: cool)
    #expect(analysis.brightDominated > 0.9, "a frame of its brightest material")
    #expect(analysis.color.blueShare > 0.7, "blue: \(analysis.color.blueShare)")
    let config = try #require(engine.topSuggestion(for: cool))
    #expect(config.value(of: .temperature) > 0, "\(config)")
    let after = engine.analysis(of: cool.applyingEditConfig(config)).color.warmth
    #expect(abs(after - own) < 0.15, "warmth \(own) → cast \(analysis.color.warmth) → \(after)")
  }

  /// A nearly all-white frame (g45) under the harness's strong warm and magenta casts: the cast
  /// clips the channel it raises nearly everywhere, leaving a tenth of the frame to the
  /// estimate, which alone is too few to trust; the grey pixels and the brightest detail read
  /// the same warmth as those few, so the frame keeps its trust and the top suggestion takes the
  /// cast off, back to within 0.08 of the photo's own readings. Without that, the warm cast was
  /// left whole and the magenta one lost only part of its tint (0.13 of it left; 0.01 now).
  @Test(arguments: [AnalysisFixtures.Cast.warm, .magenta])
  func castOnAWhiteFrameIsRemoved(cast: AnalysisFixtures.Cast) throws {
    let photo = try Self.photo("g45")
    #expect(engine.topSuggestion(for: photo) == nil, "the untouched frame is good as it is")
    let own = engine.analysis(of: photo).color
    let copy = AnalysisFixtures.cast(photo, cast, strength: cast == .warm ? 0.3 : 0.2)
    let analysis = engine.analysis(of: copy)
    #expect(analysis.color.confidence >= 0.5, "trust \(analysis.color.confidence)")
    let config = try #require(engine.topSuggestion(for: copy))
    let after = engine.analysis(of: copy.applyingEditConfig(config)).color
    #expect(
      abs(after.warmth - own.warmth) < 0.08 && abs(after.greenTint - own.greenTint) < 0.08,
      """
      \(own.warmth), \(own.greenTint) → cast \(analysis.color.warmth), \
      \(analysis.color.greenTint) → \(after.warmth), \(after.greenTint) by \(config)
      """)
  }

  /// Few trusted pixels are a fair sample only as far as the three readings agree: a tenth of
  /// the frame counts whole with agreeing readings and little without them; a hundredth of a
  /// percent never does, and a third of the frame always does.
  @Test func fewTrustedPixelsCountAsTheReadingsAgree() {
    #expect(ColorMeasurement.trustedCoverage(share: 0.09, readingsAgree: 1) == 1)
    #expect(ColorMeasurement.trustedCoverage(share: 0.09, readingsAgree: 0) < 0.15)
    #expect(ColorMeasurement.trustedCoverage(share: 0.0001, readingsAgree: 1) == 0)
    #expect(ColorMeasurement.trustedCoverage(share: 0.3, readingsAgree: 0) == 1)
  }

  /// Two blue scenes whose readings come to agree without a cast: the snow in shade (g84)
  /// under the harness's strong sensor noise (grain passes random pixels as grey), and a blue
  /// sky with clouds (g31) a stop over, a sixth of it blown (what is left to read is the
  /// unclipped rest). Their blue stays the scene's: neither is warmed.
  @Test func grainOrABlownSkyDoNotMakeABlueSceneACast() throws {
    let grainy = AnalysisFixtures.sensorNoise(
      try Self.photo("g84"), a: 0.008, b: 1e-4, seed: 42)
    let noisy = PhotoAnalyzer().analyze(grainy, metadata: nil, measureNoise: true)
    let sigma = noisy.noise?.sigma ?? 0
    #expect(sigma > 4.5, "grain σ \(sigma)")
    #expect(Recipe.warmUp.config(for: noisy) == nil, "\(noisy.color)")

    let over = AnalysisFixtures.gained(try Self.photo("g31"), 2, 2, 2)
    let bright = engine.analysis(of: over)
    let blown = bright.exposure.blownShare ?? 0
    #expect(blown > 0.15, "blown \(blown)")
    #expect(Recipe.warmUp.config(for: bright) == nil, "\(bright.color)")
  }

  /// The same snow metered down by 1.3 and 2 EV has no highlight left (its brightest percent
  /// under L* 62), while its key still reads as well exposed: the missing whites ask for light,
  /// at least half of what it lost and no more than a quarter stop past it (it got nothing
  /// before the rule; the photo's own whites top out at code 240, 0.2 EV under white, which the
  /// brightest channel's reading adds). Said to be shot in a dim scene (EXIF EV100 5), the same
  /// grey frame asks for the same light: a camera meters snow to grey in any light, and a dim
  /// scene's EXIF does not make a frame dark on purpose unless the frame shows it (the lights
  /// of a night picture, ``ExposureAnalysisTests/nightPhotoWithAndWithoutEXIF()``) or the light
  /// was night's: said to be exposed for 8 s at f/2 (EV100 −1), it is left to the key. The dim
  /// EXIF used to leave it to the key under EV100 10, which left copies of photos shot in dim
  /// light 0.7–2 EV under, whose EXIF recorded the shorter exposure, as dark as they were.
  @Test(arguments: [-1.3, -2.0])
  func greyMeteredSnowIsBrightenedInAnyLight(ev: Double) throws {
    let decoded = try AnalysisFixtures.decode("g84", longEdge: 1024)
    let k = pow(2, ev)
    let under = AnalysisFixtures.gained(decoded.image, k, k, k)
    let analyzer = PhotoAnalyzer()
    let measured = analyzer.analyze(under, metadata: decoded.metadata, measureNoise: false)
    #expect(measured.exposure.lightnessPercentiles[6] < 62)
    let lifted = measured.exposure.suggestedEV
    #expect(lifted >= 0.5 * -ev && lifted <= -ev + 0.25, "suggested \(lifted) for \(ev) EV")
    let config = try #require(engine.topSuggestion(for: under, metadata: decoded.metadata))
    #expect(config.value(of: .exposure) >= 0.4 * -ev, "\(config)")

    var dim = decoded.metadata
    dim.exposureTime = 1.0 / 8
    dim.fNumber = 2
    dim.iso = 100
    let dimEV = analyzer.analyze(under, metadata: dim, measureNoise: false).exposure.suggestedEV
    #expect(abs(dimEV - lifted) < 0.05, "dim scene: \(dimEV), \(lifted) with its own EXIF")
    var night = dim
    night.exposureTime = 8
    let nightEV = analyzer.analyze(under, metadata: night, measureNoise: false).exposure
      .suggestedEV
    #expect(nightEV < 0.2, "night's light (EV100 -1): \(nightEV)")
  }

  /// Snow (g84) has a black level as high as fog's (its darkest percent near L* 40), but it is a
  /// lit scene, not a veil: given a green cast (+20 % green in linear light), its colour
  /// estimate is trusted and the cast comes off (its confidence was 0.15, as in mist, and the
  /// green stayed). The untouched snow, blue as snow in shade is, stays as it is.
  @Test func snowIsNotMistForTheColourEstimate() throws {
    let snow = try Self.photo("g84")
    #expect(engine.topSuggestion(for: snow) == nil, "the untouched snow is good as it is")
    let green = AnalysisFixtures.gained(snow, 1 / 1.143, 1.2 / 1.143, 1 / 1.143)
    let analysis = engine.analysis(of: green)
    #expect(analysis.color.confidence > 0.5, "confidence \(analysis.color.confidence)")
    let config = try #require(engine.topSuggestion(for: green))
    #expect(config.value(of: .tint) != 0, "\(config)")
    func greenness(_ image: Image) -> Double {
      let s = AnalysisFixtures.channelMeans(image)
      return s.g / (s.r * s.b).squareRoot()
    }
    let fixed = green.rendered(with: config)
    #expect(
      greenness(fixed) < greenness(green) - 0.03,
      "green \(greenness(green)) → \(greenness(fixed)) (untouched \(greenness(snow)))")
  }

  /// A landscape whose salient region is its bright sky (g77) underexposed by 0.7 and 1.3 EV:
  /// the sky still reads bright, but the frame's key is under the target and its whites have
  /// lost their place, so it is brightened by most of what it lost and no more (the subject
  /// alone asked for nothing: it was left dark). The untouched photo stays as it is.
  @Test(arguments: [-0.7, -1.3])
  func brightSkyDoesNotHideAnUnderexposure(ev: Double) throws {
    let photo = try Self.photo("g77")
    #expect(engine.topSuggestion(for: photo) == nil, "the untouched photo is good as it is")
    let k = pow(2, ev)
    let under = AnalysisFixtures.gained(photo, k, k, k)
    let analysis = engine.analysis(of: under)
    #expect(analysis.exposure.subjectLuminance > 0.2, "the subject is the bright sky")
    let lifted = analysis.exposure.suggestedEV
    #expect(lifted >= 0.6 * -ev && lifted <= -ev + 0.1, "suggested \(lifted) for \(ev) EV")
    let config = try #require(engine.topSuggestion(for: under))
    #expect(config.value(of: .exposure) >= 0.5 * -ev, "\(config)")
  }

  /// The bright-dominated measure does not mistake a lifted black level on an ordinary photo
  /// (d11, display values `0.1 + 0.9·x`) for snow: its median stays well inside its span.
  @Test func liftedOrdinaryPhotoIsNotBrightDominated() throws {
    let lifted = AnalysisFixtures.mapped(try Self.photo("d11")) { _, v in 0.1 + 0.9 * v }
    #expect(engine.analysis(of: lifted).brightDominated < 0.1)
  }

  /// A night shop front (g56, half of the frame black) exported with lifted blacks (display
  /// values `0.08 + 0.92·x`, the harness's mild lift): the black base now sits at L* 6, but it
  /// is still the night, so the photo is not brightened (it got +0.95 EV, which turned the
  /// night grey).
  @Test func liftedNightIsNotBrightened() throws {
    let night = try Self.photo("g56")
    let lifted = AnalysisFixtures.mapped(night) { _, v in 0.08 + 0.92 * v }
    let config = engine.topSuggestion(for: lifted) ?? .neutral
    #expect(config.value(of: .exposure) < 0.2, "\(config)")
    #expect(config.value(of: .brightness) <= 0, "\(config)")
  }

  /// The floor share counts what lies within 5 L* above the darkest percent, and nothing else.
  @Test func floorShareCountsTheBlackFloor() {
    let bins = PixelStatistics.histogramBins
    let lOfBin = PixelStatistics.lightnessOfBin
    func bin(_ l: Float) -> Int { lOfBin.firstIndex { $0 >= l } ?? bins - 1 }
    var hist = [Int](repeating: 0, count: bins)
    hist[bin(6)] = 400  // a lifted black base at L* 6
    hist[bin(10.5)] = 100  // just inside the floor (6 + 5)
    hist[bin(12)] = 100  // above it
    hist[bin(60)] = 400
    let share = ExposureMeasurement.floorShare(hist, above: 6, total: 1000)
    #expect(abs(share - 0.5) < 1e-9, "\(share)")
    #expect(ExposureMeasurement.floorShare(hist, above: 0, total: 1000) == 0)
  }

  /// The same night scene with sensor noise (the harness's mild level): its black base is no
  /// longer pure black anywhere, but it is grainy black, so the photo is still not brightened
  /// (it got +1.05 EV). A sunset silhouette (g74) underexposed by 2 EV has as large a dark
  /// floor, but a smooth one, and is brightened.
  @Test func noisyNightIsNotBrightenedButDarkSunsetIs() throws {
    let night = try Self.photo("g56")
    let noisy = AnalysisFixtures.sensorNoise(night, a: 0.002, b: 2e-5, seed: 7)
    let config = engine.topSuggestion(for: noisy) ?? .neutral
    #expect(config.value(of: .exposure) < 0.2, "\(config)")
    let sunset = try Self.photo("g74")
    let dark = AnalysisFixtures.gained(sunset, 0.25, 0.25, 0.25)
    let brightened = try #require(engine.topSuggestion(for: dark))
    #expect(brightened.value(of: .exposure) > 1, "\(brightened)")
  }
}
