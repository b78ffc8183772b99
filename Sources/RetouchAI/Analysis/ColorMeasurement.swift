// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Turns the fused pass's colour sums into a ``ColorAnalysis``.
///
/// The illuminant is the mean, in log space, of two estimates over trusted pixels (not clipped,
/// not very dark, not very saturated) in linear light:
/// - shades of gray (Finlayson & Trezzi 2004): `e_c = (mean c⁶)^(1/6)`;
/// - gray edge (van de Weijer, Gevers & Gijsenij 2007), first order, p = 2:
///   `e_c = (mean |∇c|²)^(1/2)` over neighbouring trusted pixels. A large uniformly coloured
///   object adds only its outline here, which is what makes the pair robust to it.
enum ColorMeasurement {
  /// - Parameters:
  ///   - lights: how clearly the photo is dark by its own lights (a night street, a lamp-lit
  ///     room; ``ExposureMeasurement/darkIntent(hist:total:medianL:p99L:sceneEV:flashFired:)``).
  ///   - blueLight: how clearly it is dark by blue light all over it (twilight, a storm;
  ///     ``ExposureMeasurement/blueLight(_:medianL:sceneEV:flashFired:highlightWarmth:)``).
  ///   - greyPixels: the grey-pixel estimate of the same copy (``GreyPixels``), kept as
  ///     ``ColorAnalysis/greyPixelTint`` and ``ColorAnalysis/greyPixelWarmth``.
  ///   - highlightWarmth: the colour of the brightest detail (``HighlightColor``), kept as
  ///     ``ColorAnalysis/highlightWarmth``.
  ///   - clippedWhite: the colour of the clipped white (``ClippedWhite``), kept as
  ///     ``ColorAnalysis/clippedWhiteWarmth`` and ``ColorAnalysis/clippedWhiteTint``.
  ///   - veil: the colour of the darkest pixels of a frame without blacks (``VeilColour``):
  ///     in a veiled frame, the light's colour (see ``veiled(_:)``).
  static func measure(
    _ stats: PixelStatistics, exposure: ExposureAnalysis, lights: Double, blueLight: Double,
    greyPixels: GreyPixels.Estimate? = nil, highlightWarmth: Double? = nil,
    clippedWhite: ClippedWhite.Reading? = nil, veil: VeilColour.Reading? = nil
  ) -> ColorAnalysis {
    let n = Double(max(1, stats.pixelCount))
    let trustedShare = Double(stats.totals.trustedCount) / n
    let hueShares = stats.totals.hueShares
    let meanChroma = stats.totals.meanChroma

    guard stats.totals.trustedCount >= 64 else {
      return ColorAnalysis(
        illuminant: [1, 1, 1], warmth: 0, greenTint: 0, confidence: 0, meanChroma: meanChroma,
        hueShares: hueShares, clippedWhiteWarmth: clippedWhite?.warmth,
        clippedWhiteTint: clippedWhite?.tint)
    }
    let sog = logRelativeToGreen(
      pow(stats.totals.shadesOfGray / Double(stats.totals.trustedCount), SIMD3(repeating: 1 / 6)))
    var estimate = sog
    var agreement = 1.0
    if stats.totals.edgeCount >= 64,
      let ge = optionalLog(
        (stats.totals.grayEdge / Double(stats.totals.edgeCount)).squareRoot())
    {
      estimate = 0.5 * (sog + ge)
      let d = sog - ge
      agreement = 1 - ExposureMeasurement.smoothstep(0.25, 0.9, (d * d).sum().squareRoot())
    }
    // In fog or mist (the darkest percent at L* 25–40 and up) most of what the camera saw is
    // light scattered by the air. Judged at the exposure Brighten would give: an underexposed
    // copy lowers its black level.
    let p = exposure.lightnessPercentiles
    let p1 = exposure.lightnessOnceExposed(p[0])
    let fog = ExposureMeasurement.smoothstep(
      mistyLightness.lowerBound, mistyLightness.upperBound, p1)
    // Where the darkest pixels are one colour, that veil shows the light's colour better than
    // the washed-out scene can (``VeilColour``): the estimate moves to it.
    let veiled = Self.veiled(veil)
    let veilShown = fog * veiled
    if let veil {
      estimate += (veil.logRelativeToGreen - estimate) * veilShown
    }
    // Keep the estimate to what a real light does (about ±3 EV between channels).
    estimate = estimate.clamped(lowerBound: SIMD3(repeating: -3), upperBound: SIMD3(repeating: 3))
    let illuminant = [exp2(estimate.x), 1, exp2(estimate.z)]
    let axes = Self.warmthAndTint(estimate)
    let warmth = axes.x
    let greenTint = axes.y
    // The other readings, kept to the same ±3 as the estimate.
    let greyWarmth = greyPixels.map { min(max($0.warmth, -3), 3) }
    let brightestWarmth = highlightWarmth.map { min(max($0, -3), 3) }

    // Confidence: enough trusted pixels, the two estimates agree, the photo is not one colour,
    // and the light is not the subject (a night scene's warm lamps are the scene, not a cast).
    // Few trusted pixels make the estimate a sample of whatever escaped clipping, unless the
    // grey pixels and the brightest detail read the same blue–amber cast
    // (``trustedCoverage(share:readingsAgree:)``).
    let readingsAgree = Self.readingsAgree(
      warmth: warmth, greyPixelWarmth: greyWarmth, highlightWarmth: brightestWarmth)
    let coverage = Self.trustedCoverage(share: trustedShare, readingsAgree: readingsAgree)
    let dominant = hueShares.max() ?? 0
    let colourful = min(1, meanChroma / 40)
    let oneColour = 1 - 0.6 * ExposureMeasurement.smoothstep(0.45, 0.85, dominant) * colourful
    // A warm estimate in a backlit photo with the light in frame (sunset, sun glare, lamps):
    // bright highlights far above the median, and the brightest detail coloured like warm
    // light. The warmth there is the light being shown; such photos measure 0.3–0.9 when they
    // are right, so the doubt starts at 0.3 (a cool cast on one only brings its estimate down
    // into that range, and must not make it trusted). A daylight frame under a bright sky is
    // as backlit, but its brightest detail is cloud or sky, which a warm cast tints only by
    // the cast: its estimate keeps the trust a cast needs to be removed.
    // Less when the three readings of the warmth agree, as a cast makes them (see
    // ``readingsAgree(warmth:greyPixelWarmth:highlightWarmth:)``).
    let backlit =
      Self.backlitByShownLight(exposure, highlightWarmth: highlightWarmth) * (1 - readingsAgree)
    let warmLight = ExposureMeasurement.smoothstep(0.3, 0.7, warmth)
    let darkByItsLight = max(
      blueLight, lights * lampColoured(warmth: warmth, greenTint: greenTint))
    let lightIsScene = (1 - 0.7 * darkByItsLight) * (1 - 0.7 * backlit * warmLight)
    // A frame without blacks whose darkest pixels are not one colour is a bright scene or a
    // veil over many colours: what the estimate reads there may be the weather's or the
    // scene's, not a cast to remove, unless the veil shows it. A frame made mostly of its
    // brightest material (snow, a white wall) has a high black level too, but it is lit, not
    // veiled: its colour is the light's like any other scene's (snow given a magenta or warm
    // cast kept confidence 0.13–0.15 and was left cast). Blue snow in shade keeps its own
    // protection (``Recipe/warmUp``).
    let misty = 1 - 0.85 * fog * (1 - exposure.brightDominated) * (1 - veiled)
    let confidence = coverage * (0.4 + 0.6 * agreement) * oneColour * lightIsScene * misty
    return ColorAnalysis(
      illuminant: illuminant, warmth: warmth, greenTint: greenTint,
      confidence: min(1, max(0, confidence)), meanChroma: meanChroma, hueShares: hueShares,
      greyPixelTint: greyPixels.map { min(max($0.greenTint, -3), 3) },
      greyPixelWarmth: greyWarmth, highlightWarmth: brightestWarmth,
      clippedWhiteWarmth: clippedWhite?.warmth, clippedWhiteTint: clippedWhite?.tint,
      veilShare: veil == nil ? nil : veilShown,
      veilFloor: veil.map { PixelStatistics.lightness(Self.veilLevel($0, veiled: veiled)) })
  }

  /// The L* of the darkest percent (once exposed) over which a frame reads as seen through
  /// fog or mist, fading in to the upper end.
  static let mistyLightness = 25.0...40.0
  /// The spread of the darkest pixels' colours (``VeilColour/Reading/spread``, log2 units)
  /// under which they are one veil, fading out to the upper end.
  static let veilSpread = 0.06...0.12
  /// The distance between the darkest pixels' colour and that of the channels' own floors
  /// (``VeilColour/Reading/floorDistance``, log2 units) under which the darkest pixels show
  /// the veil alone, fading out to the upper end.
  static let veilFloorDistance = 0.05...0.15

  /// How surely the darkest pixels of a frame without blacks are one veil (0...1): 1 when
  /// their colours spread less than ``veilSpread`` and read what each channel's own floor
  /// reads (``veilFloorDistance``), 0 from either's upper end or without a reading.
  ///
  /// The harness's hazy copies spread 0.06 at most where the photo has dark parts; with a cast
  /// laid over the haze, the estimate from the whole frame read it −0.85…+0.24 for a cool
  /// cast of −0.53 (the scene's colours, washed out, still pull it), and was given a doubt
  /// that left every such cast in place (confidence 0.15; 15 `dev` photos under haze and a
  /// cool cast kept 70 % of their ΔE2000, under haze and a green one 66 %). Bright scenes
  /// without blacks spread more: hazy copies of snow, a sky or a pale cloth 0.12–0.39, and the
  /// photos as they were 0.27 and up.
  ///
  /// A veil over a frame of one colour is one colour too, but its darkest pixels are that
  /// colour washed out, not the veil: a kite in a deep blue sky under the harness's mildest
  /// haze spread 0.02 and read −0.67 (log2 R/B), and was warmed by 0.66, 2.1 → 10.1 ΔE2000
  /// from the photo. Each channel's own floor finds the veil wherever something is dark in
  /// that channel (here the kite), 0.69 away from that reading. Where the darkest pixels are
  /// the veil, both read alike: of the 308 hazy copies of the 85 photos (with and without a
  /// cast) that spread under 0.06, 295 lie within 0.05 of their floors.
  static func veiled(_ veil: VeilColour.Reading?) -> Double {
    guard let veil else { return 0 }
    let alone =
      1
      - ExposureMeasurement.smoothstep(
        veilFloorDistance.lowerBound, veilFloorDistance.upperBound, veil.floorDistance)
    let oneColour =
      1
      - ExposureMeasurement.smoothstep(veilSpread.lowerBound, veilSpread.upperBound, veil.spread)
    return alone * oneColour
  }

  /// The level (linear luminance) of the veil a reading shows, as it will be once its colour
  /// is balanced to grey: the least of the channels' floors, each divided by that channel's
  /// share of the veil's colour (the darkest pixels' colour scaled to luminance 1, by how
  /// surely they are one veil, `veiled`). A veil adds the same light to every pixel of a
  /// channel, so the channel in which the scene had something black reads it exactly; a
  /// white balance keeps the luminance of the light's colour, and a cast scales each channel's
  /// veil by its gain, so the darkest channel alone reads less veil than is balanced (the
  /// harness's cool cast: the red floor 0.85 of it).
  static func veilLevel(_ veil: VeilColour.Reading, veiled: Double) -> Double {
    let log = veil.logRelativeToGreen * veiled
    let colour = SIMD3(exp2(log.x), exp2(log.y), exp2(log.z))
    let luminance = (colour * veil.lumaWeights).sum()
    return (veil.floors * luminance / colour).min()
  }

  /// The share of the frame trusted for the estimate (``PixelStatistics`` leaves out clipped,
  /// very dark and very saturated pixels) over which it counts as a fair sample of the light.
  static let trustedShareRange = 0.03...0.3
  /// The trusted share over which a sample whose three blue–amber readings agree counts whole.
  static let agreedTrustedShareRange = 0.001...0.01

  /// How far the trusted pixels represent the light (0...1): ``trustedShareRange`` of the
  /// trusted share, or, when the three readings agree
  /// (``readingsAgree(warmth:greyPixelWarmth:highlightWarmth:)``), ``agreedTrustedShareRange``
  /// of it by that agreement, whichever is more.
  ///
  /// A frame of white material given a cast clips the channel the cast raises nearly
  /// everywhere, so only the few pixels that escaped are trusted; the grey pixels and the
  /// brightest detail, read apart from them, say whether those few show the light. A nearly
  /// all-white outside photo under the harness's strong warm cast kept 9 % of its pixels, read
  /// 0.61, 0.62 and 0.62 (a cast of 0.76) and was left cast for a trust of 0.09 (ΔE2000 12.4
  /// from the photo); its trust is now 0.78, and 2.9 is left after Cool Down. Under the strong
  /// magenta cast it went 8.7 → 2.9. Of the other 1,680 outside and 360 `dev` harness cases,
  /// one blurred copy moved by more than 0.05 (+0.16); the untouched photos with few trusted
  /// pixels (night streets, the moon, an aurora, string lights, a flower in bokeh) kept their
  /// suggestions.
  static func trustedCoverage(share: Double, readingsAgree: Double) -> Double {
    let alone = ExposureMeasurement.smoothstep(
      trustedShareRange.lowerBound, trustedShareRange.upperBound, share)
    let agreed = ExposureMeasurement.smoothstep(
      agreedTrustedShareRange.lowerBound, agreedTrustedShareRange.upperBound, share)
    return max(alone, agreed * readingsAgree)
  }

  /// How much an estimate reads like the light of lamps (0...1), by its blue–amber and
  /// green–magenta readings (log2 units): 1 from 0.1 warm or green, 0 from 0.1 cool and
  /// magenta.
  ///
  /// A photo dark by its own lights is coloured by them, and lamps (tungsten, sodium,
  /// fluorescent, mercury) are amber or green. Of the shared photos read as dark by their
  /// lights, none reads both cool and magenta beyond 0.05: they run from a snowy night under
  /// street lamps (1.10 warm, 0.21 green) to a waterfall at dusk (0.04, 0.01). So an estimate
  /// neither warm nor green there is not the lamps' and keeps its trust; a storm, whose darkness
  /// is its blue light, keeps that doubt
  /// (``ExposureMeasurement/blueLight(_:medianL:sceneEV:flashFired:highlightWarmth:)``). Under the
  /// harness's strong casts, a dim room before a sunlit window kept a third of its magenta cast
  /// (trust 0.51, now 1.0) and a father on a lawn at dusk nearly half of its cool cast (0.63,
  /// now 0.92).
  static func lampColoured(warmth: Double, greenTint: Double) -> Double {
    ExposureMeasurement.smoothstep(-0.1, 0.1, max(warmth, greenTint))
  }

  /// Where the brightest detail's warmth (``HighlightColor``) says the light itself is in the
  /// picture: from 0.25 (log2 R/B) to 0.55, where the shared sunsets begin.
  static let shownLightWarmth = 0.25...0.55
  /// The median lightness (L*, measured above the black level) over which a frame reads as a
  /// daylight scene, whose brightest detail can be trusted to be cloud, sky or a wall: sunsets
  /// and backlit silhouettes have dark frames (medians 17–33 on the shared set), and a night
  /// street's brightest detail is white lamps above a frame that is warm for their light
  /// (median 3). Above the black level, because lifted (matte) blacks raise the median of a
  /// sunset as much as daylight would (the dandelions against a low sun: 27 → 34 under the
  /// harness's mildest lift, 24 once measured from its raised darkest percent).
  static let daylightMedian = 25.0...40.0

  /// How clearly the light is shown in the picture (0...1), for a backlit frame: 0 when its
  /// brightest detail is pale (cloud, sky or a wall under a cast, ``HighlightColor``) in a frame
  /// lit like daylight, 1 when that detail is coloured like warm light, when the frame is dark
  /// (a sunset, a night street), or without a reading (the doubt is kept).
  ///
  /// - Parameter percentiles: ``ExposureAnalysis/lightnessPercentiles`` (the 1st and the 50th
  ///   are used).
  static func lightShown(_ highlightWarmth: Double?, percentiles p: [Double]) -> Double {
    guard let w = highlightWarmth, p.count == 7 else { return 1 }
    let pale = 1 - lightColoured(w)
    let black = min(max(p[0], 0), 90)
    let median = (p[3] - black) / (1 - black / 100)
    return 1
      - pale
      * ExposureMeasurement.smoothstep(daylightMedian.lowerBound, daylightMedian.upperBound, median)
  }

  /// How clearly the brightest detail (``HighlightColor``) is coloured like warm light
  /// (0...1, ``shownLightWarmth``); 1 without a reading (the doubt is kept).
  static func lightColoured(_ highlightWarmth: Double?) -> Double {
    guard let w = highlightWarmth else { return 1 }
    return ExposureMeasurement.smoothstep(
      shownLightWarmth.lowerBound, shownLightWarmth.upperBound, w)
  }

  /// How backlit the frame is with its own light in the picture: ``ExposureAnalysis/backlit``
  /// times ``lightShown(_:percentiles:)``. The colour estimate's trust and the cast rules'
  /// "light in the scene" both read it.
  ///
  /// Both read the percentiles at the exposure a measured underexposure will be given
  /// (``ExposureAnalysis/lightnessPercentilesOnceExposed``). Read as given, a beach under a
  /// bright sky 1.3 EV under had a median of a dark frame whose light might be in the picture,
  /// and the harness's warm cast on it was only half removed (Temperature −0.12 against −0.28).
  static func backlitByShownLight(_ exposure: ExposureAnalysis, highlightWarmth: Double?)
    -> Double
  {
    let percentiles = exposure.lightnessPercentilesOnceExposed
    return exposure.backlit * lightShown(highlightWarmth, percentiles: percentiles)
  }

  /// Where the three readings of the blue–amber axis count as one: 1 when they lie within
  /// 0.12 (log2 R/B) of each other, 0 from 0.25.
  static let agreeingReadings = 0.12...0.25

  /// How alike the blue–amber readings of the two-estimate mean, the grey pixels and the
  /// brightest detail are (0...1, ``agreeingReadings``); 0 without both other readings.
  ///
  /// Light shown in the picture colours it unevenly: the sky by the sun, the lamps and what
  /// they light are warmer than the shade lit by the rest of the sky. Of the shared set's
  /// backlit photos that read warmer than 0.3 (sunsets, lamp-lit rooms, night streets), nine
  /// have readings 0.28–2.2 apart and one, a shop front lit by its lamps, 0.21. A white balance
  /// off by a gain per channel shifts every pixel alike: under the harness's strong warm cast
  /// an animal indoors against a bright window read 0.77, 0.76 and 0.79 and a landscape
  /// against the sky 0.77, 0.83 and 0.71 (0.09, 0.00, 0.03 and 0.04, 0.04, −0.04 without the
  /// cast); both lost their trust to the light-in-frame doubt (0.80 → 0.21, 0.79 → 0.21) and
  /// were left cast as if lit by a sunset. The estimate's trust uses this; the cast rules'
  /// "light in the scene" does not (a daylight photo warm by choice reads alike too: a dev
  /// photo at 0.21, 0.26 and 0.30 lost its warmth when it did).
  static func readingsAgree(warmth: Double, greyPixelWarmth: Double?, highlightWarmth: Double?)
    -> Double
  {
    guard let grey = greyPixelWarmth, let highlight = highlightWarmth else { return 0 }
    let spread = max(warmth, grey, highlight) - min(warmth, grey, highlight)
    return 1
      - ExposureMeasurement.smoothstep(
        agreeingReadings.lowerBound, agreeingReadings.upperBound, spread)
  }

  /// Log2 R/B (``ColorAnalysis/warmth``'s units) and log2 G/√(R·B)
  /// (``ColorAnalysis/greenTint``'s) of a colour given as log2 R/G, 0, log2 B/G.
  static func warmthAndTint(_ l: SIMD3<Double>) -> SIMD2<Double> {
    SIMD2(l.x - l.z, -0.5 * (l.x + l.z))
  }

  /// log2 of each channel divided by green.
  static func logRelativeToGreen(_ v: SIMD3<Double>) -> SIMD3<Double> {
    optionalLog(v) ?? SIMD3(repeating: 0)
  }

  static func optionalLog(_ v: SIMD3<Double>) -> SIMD3<Double>? {
    guard v.x > 1e-9, v.y > 1e-9, v.z > 1e-9 else { return nil }
    return SIMD3(log2(v.x / v.y), 0, log2(v.z / v.y))
  }
}

private func pow(_ v: SIMD3<Double>, _ e: SIMD3<Double>) -> SIMD3<Double> {
  SIMD3(Foundation.pow(v.x, e.x), Foundation.pow(v.y, e.y), Foundation.pow(v.z, e.z))
}
