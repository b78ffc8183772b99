// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchRender

/// Corrections: each fixes something the analysis measured, sized to invert it, and is nil when
/// the defect is not there.
extension Recipe {
  public static let corrections: [Recipe] = [
    brighten, darken, liftShadows, recoverHighlights, warmUp, coolDown, fixTint, cleanUp, crisp,
  ]

  /// Exposure up by the measured shortfall of the subject, or of the whole frame when its
  /// whites have room left (`ExposureAnalysis.suggestedEV`, bounded by the white point and
  /// already moderated for photos that are dark on purpose). Exposure is scene-linear
  /// (`× 2^EV`), so it undoes an underexposure exactly where nothing clipped.
  public static let brighten = Recipe(
    "brighten", LocalizedText("Brighten", zh: "提亮"), symbol: "sun.max", kind: .correction
  ) { a in
    let ev = a.exposure.suggestedEV
    guard ev >= 0.3 else { return nil }
    let stops = Sizing.step(min(ev, 3))
    return RecipeProposal(
      config: EditConfig(properties: [.exposure: stops]),
      need: Sizing.ramp(ev, from: 0.15, to: 1))
  }

  /// Exposure down by the measured excess of the subject. Not on a veiled photo: the veil
  /// makes it measure too bright, and removing it (Punch) sets the exposure that goes with it.
  public static let darken = Recipe(
    "darken", LocalizedText("Darken", zh: "压暗"), symbol: "moon", kind: .correction
  ) { a in
    let ev = a.exposure.suggestedEV
    let clear = 1 - a.veil
    guard ev <= -0.3, clear > 0.5 else { return nil }
    return RecipeProposal(
      config: EditConfig(properties: [.exposure: Sizing.step(max(ev, -3))]),
      need: Sizing.ramp(-ev, from: 0.15, to: 1) * clear)
  }

  /// Opens crushed blacks and dark shadows: the black level goes up by about what the clipped
  /// share suggests (the renderer's Blacks moves black to `0.15 × blacks` encoded), and local
  /// Shadows lifts dark regions when the subject is darker than the photo.
  ///
  /// A crushed black point (``ExposureAnalysis/crushedBlack``) is undone by its exact inverse
  /// (a negative Black Point, ``ToneFit/blackPointRestore(level:)``) instead of the clipped
  /// share's Blacks, at the level the share asks for when that is more.
  public static let liftShadows = Recipe(
    "lift-shadows", LocalizedText("Lift Shadows", zh: "提亮阴影"),
    symbol: "circle.lefthalf.filled.inverse", kind: .correction
  ) { a in
    let clipped = a.exposure.shadowClipping
    let p5 = a.lightness(percentile: 5)
    let subjectDark =
      a.exposure.subjectLuminance < 0.6 * a.exposure.meanLuminance
      && a.exposure.subjectLuminance < 0.1
    // Blacks clipped by underexposure are Brighten's to judge, not a crushed black level; and
    // when a quarter or more of the photo is pure black, that black is the scene's (night, low
    // key), not a clipped black level.
    let underexposed = a.exposure.suggestedEV >= 0.3
    let lowKey = Sizing.ramp(clipped, from: 0.15, to: 0.3)
    // Judged by the subject: beside a well-lit face the clipped black is the background's (a
    // studio portrait on black), not shadows the photo lost. Outside `dev` that left a NASA
    // portrait alone (given Blacks +0.35, ΔE2000 1.54) and let its degraded copies get their
    // own fixes, at the cost of a crushed sunny couple whose clipped share alone had been
    // read (crush ΔE2000 0.5 → 2.5 and 3.0 → 4.9).
    let litFace = a.faces.map { Sizing.ramp($0.luminance, from: 0.15, to: 0.3) }.max() ?? 0
    let crushed =
      Sizing.ramp(clipped, from: 0.06, to: 0.25) * (underexposed ? 0.3 : 1)
      * (1 - lowKey) * (1 - litFace)
    let deep =
      Sizing.ramp(8 - p5, from: 0, to: 8) * Sizing.ramp(clipped, from: 0.03, to: 0.1)
      * (1 - lowKey) * (1 - litFace)
    let crushLevel = a.exposure.crushedBlack ?? 0
    guard crushed > 0 || subjectDark || deep > 0 || crushLevel > 0 else { return nil }
    // The clipped share's own sizing: Blacks moving black to `0.15 × blacks`.
    let blacks = Sizing.step(0.7 * max(crushed, deep * 0.5))
    var p: [EditSettingType: Double] = [:]
    // The reading is capped (``ExposureMeasurement/maxCrushedBlack``); a larger clipped share
    // asks for more.
    let shareLevel = blacks * ColorToneTransform.blackWhiteReach
    if crushLevel > 0.005 {
      p = ToneFit.blackPointRestore(level: max(crushLevel, shareLevel))
    } else {
      p[.blacks] = blacks
    }
    var shadows = subjectDark ? 0.35 : 0
    shadows = max(shadows, 0.25 * crushed)
    p[.shadows] = Sizing.step(shadows)
    // The crush reading (spike over density) reads a crush under its size where the photo thins
    // out toward black: the harness's 0.05 crush of the 70 shared photos outside `dev` reads a
    // median 0.026. Needed in full from 0.025, as 0.04 left a city under clouds, read at 0.024,
    // and seven frames of a night scene at 0.026 crushed (ΔE2000 2.2 and 2.9 from the photo,
    // 1.2 and 1.5–1.7 restored); the untouched photos read under 0.01 (but a depth map).
    let need = max(
      crushed, deep * 0.6, subjectDark ? 0.5 : 0, Sizing.ramp(crushLevel, from: 0.005, to: 0.025))
    // The Black Point restore alone, at the level the clip at code 0 reads, is the crush's
    // exact inverse.
    let exact = p[.blackPoint] != nil && crushLevel >= shareLevel && shadows == 0
    return RecipeProposal(
      config: EditConfig(properties: p), need: need, isExactInverse: exact)
  }

  /// Pulls blown or nearly blown highlights down.
  ///
  /// Overexposure is a linear gain, so exposure is what undoes it: a subject measured too bright
  /// (`ExposureAnalysis.suggestedEV`, already bounded by what the clipping shows) comes down by
  /// all of it. The local Highlights control adds what the exposure cannot do (compress what is
  /// left near white), less when exposure already pulls, and less the more of the frame is
  /// bright (median L* 65–85): on a bright frame it darkens nearly everything, a second
  /// exposure pull on top of the first.
  ///
  /// What is blown white has no detail left to bring back, and the pull only greys it: at
  /// Highlights −0.75 a blown lamp or sky goes from white to L* 73, a flat grey patch. So the
  /// larger the blown share, the less the pull (``blownPull``), down to −0.25 (white kept at
  /// about L* 90) where a fifth of the frame or more is blown. Ceiling lamps filling a fifth
  /// of a photo were given −0.75 under the harness's crush and came out with grey globes
  /// (ΔE2000 from the photo 3.9 as given, 11.0 after).
  public static let recoverHighlights = Recipe(
    "recover-highlights", LocalizedText("Recover Highlights", zh: "恢复高光"),
    symbol: "circle.righthalf.filled.inverse", kind: .correction
  ) { a in
    let clip = a.exposure.highlightClipping
    let p99 = a.lightness(percentile: 99)
    guard clip >= 0.01 || p99 >= 98.5 else { return nil }
    let size = Sizing.ramp(clip, from: 0.005, to: 0.12)
    let pull = a.exposure.suggestedEV <= -0.1 ? max(a.exposure.suggestedEV, -1.5) : 0
    let brightFrame = Sizing.ramp(a.lightness(percentile: 50), from: 65, to: 85)
    // Only white without detail counts as blown (a cast or a saturated colour clips one
    // channel).
    let blown = min(clip, a.exposure.blownShare ?? clip)
    let share = blownPull.share
    let greying = Sizing.ramp(blown, from: share.lowerBound, to: share.upperBound)
    let highlights = min(
      (0.25 + 0.5 * size) * (1 - brightFrame) * (pull < 0 ? 0.4 : 1),
      blownPull.most - (blownPull.most - blownPull.least) * greying)
    var p: [EditSettingType: Double] = [:]
    if highlights >= 0.05 { p[.highlights] = Sizing.step(-highlights) }
    if pull < 0 { p[.exposure] = Sizing.step(pull) }
    guard !p.isEmpty else { return nil }
    // Some blown sky or lamps is normal in a good photo: only a large blown share is a defect.
    return RecipeProposal(
      config: EditConfig(properties: p), need: 0.8 * Sizing.ramp(blown, from: 0.12, to: 0.3),
      appeal: 0.1)
  }

  /// The largest Highlights pull (magnitude) Recover Highlights gives as the blown share
  /// (``ExposureAnalysis/blownShare``) goes from the lower to the upper end of `share`: `most`
  /// (its own largest) down to `least`, which keeps blown white at about L* 90.
  static let blownPull = (share: 0.05...0.2, most: 0.75, least: 0.25)

  /// Removes a measured warm cast (never adds one).
  public static let coolDown = Recipe(
    "cool-down", LocalizedText("Cool Down", zh: "冷色调"), symbol: "snowflake", kind: .correction
  ) { a in castCorrection(a, warm: true) }

  /// Removes a measured cool (blue) cast (never adds one).
  public static let warmUp = Recipe(
    "warm-up", LocalizedText("Warm Up", zh: "暖色调"), symbol: "flame", kind: .correction
  ) { a in castCorrection(a, warm: false) }

  /// Removes a measured green or magenta cast.
  public static let fixTint = Recipe(
    "fix-tint", LocalizedText("Fix Tint", zh: "校正色调"), symbol: "eyedropper.halffull",
    kind: .correction
  ) { a in
    let removed = CastRemoval.removedTint(a)
    guard removed != 0 else { return nil }
    let s = WhiteBalanceSliders.shared.sliders(warmthChange: 0, greenTintChange: -removed)
    guard abs(s.tint) >= 0.02 else { return nil }
    return RecipeProposal(
      config: EditConfig(properties: [.tint: Sizing.step(s.tint)]),
      need: Sizing.ramp(abs(removed), from: 0.02, to: 0.15), correctsCast: true)
  }

  /// Noise reduction sized to the measured grain (only when grain was measured, and only from
  /// σ 2.5 code values of luma, which none of the 78 shared JPEGs but an ISO 3200 one reaches).
  ///
  /// The filter already adapts to the noise (its luma gain subtracts the measured noise
  /// variance, so texture well above it keeps its contrast), so the amount says how far to go,
  /// not how much noise there is: from 0.5 at σ 2.5 to 0.9 from σ 4.5. Measured on the
  /// harness's noisy copies (mean ΔE2000 against the clean photo, three references): amount 0.8
  /// to 1.0 was best at both noise levels (e.g. 4.03 → 1.70 at 0.8, 2.64 at 0.4), while the
  /// earlier `(σ − 1.5)/8` gave 0.2–0.45 to copies measuring σ 3–5 and left half the noise.
  public static let cleanUp = Recipe(
    "clean-up", LocalizedText("Clean Up", zh: "降噪"), symbol: "circle.dotted", kind: .correction
  ) { a in
    guard let noise = a.noise, noise.sigma >= 2.5 else { return nil }
    let amount = 0.5 + 0.4 * Sizing.ramp(noise.sigma, from: 2.5, to: 4.5)
    return RecipeProposal(
      config: EditConfig(properties: [.noiseReduction: Sizing.step(amount)]),
      need: Sizing.ramp(noise.sigma, from: 2.5, to: 6))
  }

  /// Sharpening (and a little clarity) for a subject that measures soft, stronger as less
  /// detail is left. Its need is as large as the photo is clearly soft
  /// (``SharpnessMeasurement/softness(_:)``): a phone's photo of flowers whose subject falls
  /// off just past the soft mark (1.60) is offered it, but not sharpened unasked.
  ///
  /// A clearly soft subject is no faint defect, whatever detail it keeps: its need starts at
  /// 0.5 (up to 0.8 as detail is lost). From 0.35, most of the harness's copies blurred by
  /// σ 1–2 px stayed as given: sharpening a blurred photo changes its edges by only 2–3
  /// ΔE*ab, under the bar at that need, and `retouch auto` called a mountain view blurred by
  /// 2 px "already good". The blurred copies of the 15 `dev` photos went from 99.3 % to 97.4 %
  /// of their input ΔE2000, those of the 70 outside `dev` from 112.1 % to 107.0 %: each of the
  /// 29 copies that changed came closer to its photo, seven of them losing a wrong fix. No
  /// untouched photo changed, nor any copy of the exposure, cast and contrast families outside
  /// `dev`, nor the noisy and underexposed copies and their pairs with blur on `dev`.
  public static let crisp = Recipe(
    "crisp", LocalizedText("Crisp", zh: "清晰"), symbol: "triangle", kind: .correction
  ) { a in
    guard a.sharpness.isSoft else { return nil }
    let lost = Sizing.ramp(-a.sharpness.subjectSharpness, from: 3, to: 6)
    let p: [EditSettingType: Double] = [
      .sharpness: Sizing.step(0.35 + 0.4 * lost), .clarity: Sizing.step(0.1 + 0.1 * lost),
    ]
    return RecipeProposal(
      config: EditConfig(properties: p),
      need: SharpnessMeasurement.softness(a.sharpness) * (0.5 + 0.3 * lost))
  }

  static func castCorrection(_ a: PhotoAnalysis, warm: Bool) -> RecipeProposal? {
    // A clipped white that is not white shows the cast itself, whatever the scene's light.
    if let white = CastRemoval.clippedWhiteCast(a) {
      guard warm ? white > 0 : white < 0 else { return nil }
      return castProposal(removing: white, tint: CastRemoval.clippedWhiteTintCast(a) ?? 0, a)
    }
    var w = a.color.warmth
    guard warm ? w > 0 : w < 0 else { return nil }
    let trust = CastRemoval.trust(a)
    // Sky, sea, ice, snow in shade: when blue and aqua colour most of the photo, a cool estimate
    // is usually the colour of the scene, not of the light. Warming it needs a trusted estimate:
    // the confidence required rises from the usual minimum to 0.6 as blue and aqua go from 60 %
    // to 90 % of the photo's colour. The rise is less as the three readings agree
    // (``CastRemoval/blueScene(_:from:to:)``).
    //
    // A frame made mostly of its brightest material that is blue (snow in shade, a pale sky;
    // ``PhotoAnalysis/brightDominated``) is read by both estimates as the light. Only an
    // estimate trusted beyond that much more (the required confidence raised by the material's
    // share) is acted on whole; otherwise the material's own blue, up to
    // ``CastRemoval/blueMaterialWarmth``, counts as the scene's and only what lies beyond it
    // as a cast. Underexposed snow in shade measured −0.59 with confidence 0.96 and was warmed
    // by +0.7 when all of it counted; the same snow under the harness's cool casts reads −1.00
    // and −1.37 and was left that blue when none of it did. Snow reads apart (−0.59 in the
    // mean, −0.14 in the grey pixels, −0.41 in its brightest detail), a cast on a grey scene
    // alike, so the material counts less as the readings agree
    // (``CastRemoval/materialReadingsAgree(_:)``).
    if !warm {
      let blueMaterial =
        a.brightDominated * Sizing.ramp(a.color.blueShare, from: 0.5, to: 0.7)
        * (1 - CastRemoval.materialReadingsAgree(a))
      let required =
        CastRemoval.minimumConfidence
        + (0.6 - CastRemoval.minimumConfidence) * CastRemoval.blueScene(a, from: 0.6, to: 0.9)
      guard trust >= required else { return nil }
      if trust < required + blueMaterial {
        w = min(0, w - CastRemoval.blueMaterialWarmth * blueMaterial)
        guard w < 0 else { return nil }
      }
    }
    guard trust >= CastRemoval.minimumConfidence else { return nil }
    let removed = CastRemoval.removedShare(
      of: w, confidence: CastRemoval.warmthTrust(a), ramp: CastRemoval.warmthRamp(for: a))
    guard removed != 0 else { return nil }
    return castProposal(removing: removed, tint: CastRemoval.removedTint(a), a)
  }

  /// Cool Down or Warm Up taking `removed` (log2 R/B, signed) and `g` (log2 G/√(R·B)) out of
  /// the photo; nil when the temperature would barely move.
  ///
  /// The green–magenta part comes along when the estimate reads it clearly off too, so the
  /// grey ends up grey (``CastRemoval/removedTint(_:)``); when a clipped white shows the cast,
  /// only what the white shows of green–magenta: there the estimate's tint is the scene's (a
  /// ladybird on leaves under the harness's strong cool cast was given +0.46 of tint with the
  /// warming, 2.95 → 4.03 ΔE2000 from the photo, where the warming alone gives 1.51).
  private static func castProposal(removing removed: Double, tint g: Double, _ a: PhotoAnalysis)
    -> RecipeProposal?
  {
    let s = WhiteBalanceSliders.shared.sliders(warmthChange: -removed, greenTintChange: -g)
    guard abs(s.temperature) >= 0.02 else { return nil }
    var p: [EditSettingType: Double] = [.temperature: Sizing.step(s.temperature)]
    p[.tint] = Sizing.step(s.tint)
    return RecipeProposal(
      config: EditConfig(properties: p), need: Sizing.ramp(abs(removed), from: 0.05, to: 0.35),
      correctsCast: true)
  }
}

extension ColorAnalysis {
  /// The share of the photo's colour that is blue or aqua (``hueShares`` bands 4 and 5): sky,
  /// sea, ice, snow in shade. 0 without hue shares.
  var blueShare: Double { Self.blueShare(of: hueShares) }

  /// How alike the three blue–amber readings (``warmth``, ``greyPixelWarmth``,
  /// ``highlightWarmth``) are:
  /// ``ColorMeasurement/readingsAgree(warmth:greyPixelWarmth:highlightWarmth:)`` of them.
  var readingsAgree: Double {
    ColorMeasurement.readingsAgree(
      warmth: warmth, greyPixelWarmth: greyPixelWarmth, highlightWarmth: highlightWarmth)
  }

  /// The blue-and-aqua share of eight hue shares (0 for any other count).
  static func blueShare(of hueShares: [Double]) -> Double {
    hueShares.count == 8 ? hueShares[4] + hueShares[5] : 0
  }
}

/// How much of a measured cast a correction removes.
///
/// A photo's own light is rarely exactly neutral (golden hour, shade, lamps), and the illuminant
/// estimate itself scatters by about ±0.2 in log2 R/B on good daylight photos, so small casts are
/// left alone and large ones removed: the removed share of the cast rises smoothly from 0 at
/// `start` to all of it at `full`, scaled by the estimate's confidence.
enum CastRemoval {
  /// The blue–amber axis (log2 R/B of the illuminant) in a plain daylight scene: a good photo
  /// measures within about ±0.2 there, so what lies beyond is mostly cast and a confident
  /// estimate of 0.35 is removed whole.
  static let warmthRamp = (start: 0.15, full: 0.35)
  /// Where the warm ramp moves in a scene lit by warm light that is part of the picture (sunset
  /// or sun in frame, night lights, lamp-lit rooms): such photos measure 0.3–0.9 warm when they
  /// are right, so only warmth beyond that is treated as a cast.
  static let warmLightRamp = (start: 0.65, full: 0.95)
  /// Where the cool ramp moves when blue and aqua colour most of the photo (sky, sea, snow in
  /// shade): the scene's own blue pulls the estimate cool by about 0.3.
  static let blueSceneRamp = (start: 0.25, full: 0.55)
  /// The blue–amber reading of a frame made mostly of bright blue material that is the scene's
  /// own colour, not a cast: snow in shade, lit by the blue sky alone (a colour temperature far
  /// above daylight's, which a camera's white balance only partly neutralises), measured
  /// −0.59 on the shared set's snow. Only a reading beyond it is removed
  /// (``Recipe/castCorrection(_:warm:)``).
  static let blueMaterialWarmth = -0.6
  /// The green–magenta axis (log2 G/√(R·B)); narrower, as cameras and scenes vary less there.
  static let tintRamp = (start: 0.12, full: 0.3)
  /// Where the tint ramp moves when the grey pixels (``ColorAnalysis/greyPixelTint``) read the
  /// same tint as the two-estimate mean (within 0.03; no move beyond 0.08 apart). Each method
  /// alone scatters by up to 0.2 on good photos, but mostly on different photos (a leafy
  /// scene against sky, food, a green-lit subject), so agreement is what tells a mild cast
  /// (0.14 for the harness's +10 % green, read within 0.01 by both) from a photo's own colour.
  /// Not in a scene lit by its own light (sunset, lamps, night; ``tintLightScene(_:)``), whose
  /// pink or green is the light's.
  ///
  /// A cast both methods read at 0.11 and beyond is removed whole: with the ramp full only at
  /// 0.16, such a mild cast kept a third of itself (0.13 read, 0.09 removed), which left the
  /// skin of the harness's portrait 3.5° (green) and 3.7° (magenta) off in hue after the fix
  /// (1.0° and 1.4° now). Moving the full end from 0.16 to 0.11 (and the
  /// start from 0.06 to 0.05) took the harness's green family from 53.7 % to 50.2 % of its input
  /// ΔE2000 and magenta from 53.5 % to 51.0 %, with the untouched photos still left alone; of
  /// the 85 shared photos only one `retouch auto` result changed, an airliner seen through a
  /// green-tinted window (tint 0.17 → 0.22).
  static let agreedTintRamp = (start: 0.05, full: 0.11)

  /// The part of the green–magenta cast to remove (``removedShare(of:confidence:ramp:)``): of
  /// the two-estimate mean's reading on ``tintRamp(for:)``, or, when more, of the part both
  /// methods read (the smaller of the two readings when they have the same sign) on
  /// ``agreedTintRamp``, outside a scene lit by its own light.
  ///
  /// The second answers two readings that differ but both see a cast: the harness's mild
  /// magenta on a mountain landscape reads −0.14 in the mean and −0.21 in the grey pixels, too
  /// far apart to count as agreeing (0.07), so the photo kept the cast whole, while neither
  /// reading alone says less than the cast it was given (−0.14). Harness singles: green 50.2 %
  /// → 46 % of the input ΔE2000, magenta 51.0 % → 42 %, the untouched photos still left alone.
  /// Of the 85 shared photos, 20 have two readings of one sign beyond 0.05 (sunsets, night
  /// scenes and lamps, leaves and flowers, rooms, cats, tinted glass); `retouch auto` changed
  /// on one of them, an aloe before a green cloth in studio light (tint 0.02 → 0.13, the cloth
  /// a little less green): the others were already corrected by agreement, or are not
  /// trusted, or are lit by their own light.
  static func removedTint(_ a: PhotoAnalysis) -> Double {
    let estimated = estimatedTint(a)
    guard let white = clippedWhiteTintCast(a) else { return estimated }
    return estimated * white > 0 && abs(estimated) > abs(white) ? estimated : white
  }

  /// ``removedTint(_:)`` as the estimates read it, without the clipped white.
  static func estimatedTint(_ a: PhotoAnalysis) -> Double {
    let confidence = tintConfidence(a)
    let own = removedShare(of: a.color.greenTint, confidence: confidence, ramp: tintRamp(for: a))
    guard let grey = a.color.greyPixelTint else { return own }
    var removed = own
    if grey * a.color.greenTint > 0 {
      let both = abs(grey) < abs(a.color.greenTint) ? grey : a.color.greenTint
      let ramp = blend(tintRamp, toward: agreedTintRamp, by: 1 - tintLightScene(a))
      let agreed = removedShare(of: both, confidence: confidence, ramp: ramp)
      if abs(agreed) > abs(own) { removed = agreed }
    }
    return boundedByGreyPixels(removed, grey)
  }

  /// The smallest green–magenta reading of a clipped white (``ColorAnalysis/clippedWhiteTint``)
  /// taken as a cast: the harness's green casts read 0.105 and more there, its magenta casts
  /// −0.04…−0.20 (``ClippedWhite``); no good photo's clipped white among the shared ones reads
  /// a tint at all.
  static let clippedWhiteTintMinimum = 0.06

  /// The green–magenta cast a clipped white shows (signed), or nil when it shows none beyond
  /// ``clippedWhiteTintMinimum``. The reading is a bound (the cast is at least as green, or as
  /// magenta), so a larger removal the estimates agree on stands (``removedTint(_:)``).
  static func clippedWhiteTintCast(_ a: PhotoAnalysis) -> Double? {
    guard let t = a.color.clippedWhiteTint, abs(t) >= clippedWhiteTintMinimum else { return nil }
    return t
  }

  /// How far past the grey pixels' own reading a tint correction may go (log2 units).
  static let greyPixelTintTolerance = 0.03

  /// `removed` (a tint to take out, signed) cut to what the grey pixels read in its direction,
  /// plus ``greyPixelTintTolerance``; 0 when that leaves less than a correction's smallest step.
  ///
  /// The two-estimate mean is pulled by dominant colours, and along green–magenta those are
  /// the scene's own far more often than a cast: ivy filling the frame read 0.22 green (grey
  /// pixels 0.06), dune grass under a deep sky 0.56 magenta and Paris clouds 0.21 magenta
  /// (grey pixels −0.02 and +0.04), and each was given a visible tint correction. A cast tints
  /// the grey things in the picture too, so the harness's green and magenta casts are read by
  /// both methods alike.
  static func boundedByGreyPixels(_ removed: Double, _ grey: Double) -> Double {
    guard removed != 0 else { return 0 }
    let direction: Double = removed > 0 ? 1 : -1
    let limit = max(0, direction * grey + greyPixelTintTolerance)
    let bounded = min(abs(removed), limit)
    return bounded >= 0.04 ? direction * bounded : 0
  }

  /// The tint ramp for this photo: ``tintRamp`` moved toward ``agreedTintRamp`` as the two
  /// methods agree, and out by ``softTintDrift`` as the photo measures soft.
  static func tintRamp(for a: PhotoAnalysis) -> (start: Double, full: Double) {
    let drift = softTintDrift * SharpnessMeasurement.softness(a.sharpness)
    guard let grey = a.color.greyPixelTint else { return widened(tintRamp, by: drift) }
    let agree =
      (1 - Sizing.ramp(abs(grey - a.color.greenTint), from: 0.03, to: 0.08))
      * (1 - tintLightScene(a))
    return widened(blend(tintRamp, toward: agreedTintRamp, by: agree), by: drift)
  }

  /// `ramp` with both ends moved out by `amount`.
  static func widened(_ ramp: (start: Double, full: Double), by amount: Double)
    -> (start: Double, full: Double)
  {
    (ramp.start + amount, ramp.full + amount)
  }

  /// How far the blue–amber ramp moves out on a photo that measures clearly soft
  /// (``SharpnessMeasurement/softness(_:)``), in proportion to that softness.
  ///
  /// A blur takes away the fine detail whose edges the gray-edge estimate averages, and leaves
  /// the outlines of large coloured areas to weigh more: on the 70 photos outside `dev`
  /// blurred by the harness (σ 1 and 2 px at 768 px), the two-estimate mean moved by up to
  /// 0.09 and 0.13 (90th percentile; the gray edge alone 0.17 and 0.25, shades of gray 0.05
  /// and 0.09) along blue–amber, and 0.07 and 0.10 along green–magenta. Good photos so moved
  /// past the ramps' start were given a cast correction: a cake on a plate, sharp and left
  /// alone, was warmed by 0.33 once blurred (ΔE2000 1.77 → 3.97 from the photo; 1.77 now),
  /// a room before a sunlit window given Fix Tint (1.91 → 3.97; 1.91 now).
  static let softWarmthDrift = 0.1
  /// The same for the green–magenta ramp (``softWarmthDrift``).
  static let softTintDrift = 0.1

  /// `ramp` moved toward `target` by `amount` (0: `ramp`, 1: `target`), both ends alike.
  static func blend(
    _ ramp: (start: Double, full: Double), toward target: (start: Double, full: Double),
    by amount: Double
  ) -> (start: Double, full: Double) {
    (
      ramp.start + (target.start - ramp.start) * amount,
      ramp.full + (target.full - ramp.full) * amount
    )
  }

  /// The smallest blue–amber reading of a clipped white (``ColorAnalysis/clippedWhiteWarmth``)
  /// taken as a cast. The harness's mildest warm and cool casts (±0.40) read 0.29–0.44 there;
  /// the most tinted clipped white among the shared photos reads −0.17.
  static let clippedWhiteMinimum = 0.25

  /// The cast a clipped white shows (log2 R/B, signed), removed whole and before any other
  /// reading, or nil when it shows none beyond ``clippedWhiteMinimum``. The photo's white was
  /// white before the colour was changed, so no doubt about the scene's own light applies.
  ///
  /// A white that reads green (``clippedWhiteTintCast(_:)``) clipped in green alone: its red
  /// and blue are both below the top, and their ratio is the blue–amber part of the change
  /// exactly, however small (``ClippedWhite``). That reading then stands for the cast on this
  /// axis, 0 included, and the estimates are not asked: a green cast moves them along it, as
  /// it changes which pixels count as too saturated. Under the harness's green casts a
  /// ladybird on grass (d14) read −0.37 and −0.40 against the photo's −0.25 while its white
  /// read 0.00, and was warmed by 0.33 and 0.39 with the tint fix (ΔE2000 from the photo
  /// 1.7 → 3.2 and 3.1 → 4.0; the tint fix alone leaves 0.4 and 0.7).
  static func clippedWhiteCast(_ a: PhotoAnalysis) -> Double? {
    guard let w = a.color.clippedWhiteWarmth else { return nil }
    if abs(w) >= clippedWhiteMinimum { return w }
    guard let tint = clippedWhiteTintCast(a), tint > 0 else { return nil }
    return w
  }

  /// Below this confidence the estimate is not acted on: a sunset or lamp-lit photo whose
  /// light is the scene measures about 0.2, a photo with a strong cast 0.3 and up.
  static let minimumConfidence = 0.25
  /// The confidence from which the removed share (``removedShare(of:confidence:ramp:)``) is no
  /// longer held back by nearness to ``minimumConfidence``: it fades in from there, so a
  /// reading just over the threshold removes little, as one just under it removes nothing.
  ///
  /// Without the fade a large reading flipped from nothing to a third of itself as the
  /// confidence crossed 0.25. A wooden bench by the water in sun glare reads 2.0 warm at 0.24
  /// and is left as it is; its harness copies given a blur or a cool, green or magenta cast
  /// read 0.25–0.3 and had a cool-down of −0.3 to −0.5 in temperature laid over the sunset
  /// (ΔE2000 from the photo 1.9 → 6.6 for the mild blur, 3.7 → 8.4 for the mild cool cast;
  /// 2.8 and 3.7 with the fade). Its noisy copies read 0.39 and 0.67 (grain passes for grey
  /// pixels) and keep their cool-down.
  static let fullConfidence = 0.3

  /// How clearly the light is part of the scene (0...1): a photo dark on purpose or scored as
  /// a light scene (night lights), a room lit by lamps (indoor score 0.2–0.5), or, for half, a
  /// backlit frame with the light in it (the brightest percent 35–50 L* above the median, and
  /// its brightest detail coloured like warm light,
  /// ``ColorMeasurement/backlitByShownLight(_:highlightWarmth:)``; half,
  /// because a daylight landscape under a bright sky at golden hour measures the same).
  static func warmLightScene(_ a: PhotoAnalysis) -> Double {
    return max(
      a.score(.light), a.exposure.isDarkOnPurpose ? 1 : 0,
      0.5 * backlitByShownLight(a), Sizing.ramp(a.score(.indoor), from: 0.2, to: 0.5))
  }

  /// ``ColorMeasurement/backlitByShownLight(_:highlightWarmth:)`` of `a`.
  static func backlitByShownLight(_ a: PhotoAnalysis) -> Double {
    ColorMeasurement.backlitByShownLight(a.exposure, highlightWarmth: a.color.highlightWarmth)
  }

  /// ``warmLightScene(_:)`` as it bears on a green–magenta reading: lamps (tungsten, sodium,
  /// fluorescent) read green on this axis, as amber light does, so a magenta reading (from −0.1,
  /// fading in to 0.1 green) is not theirs, and for it only coloured light shown in a backlit
  /// frame (a sky pink at sunset: its brightest detail coloured like warm light,
  /// ``ColorMeasurement/lightColoured(_:)``) still counts, at half as in
  /// ``warmLightScene(_:)``.
  ///
  /// Under the harness's strong magenta cast, which the estimate and the grey pixels read
  /// alike, a waterfall in a dark forest read as dark on purpose kept most of the cast (ΔE2000
  /// from the photo 4.62 as given, 2.90 after; 1.70 now) and a crowd at a party kept half of
  /// it (5.49, 2.89; 2.07 now). The waterfall's sky is white (its brightest detail reads 0.00
  /// in log2 R/B), but its frame is dark, which alone counted as light shown
  /// (``ColorMeasurement/lightShown(_:percentiles:)``), so its mild cast (−0.10, read alike by
  /// both methods) was left whole. Counting coloured light alone, the mild magenta copies of
  /// six of the 70 shared photos outside `dev` are corrected (ΔE2000 from the photo 2.0–3.0
  /// as given, 0.5–1.5 after; the waterfall 2.79 → 0.60), two other copies gain a little and
  /// none is worse; the untouched photos and `dev` are unchanged.
  static func tintLightScene(_ a: PhotoAnalysis) -> Double {
    let shown = 0.5 * a.exposure.backlit * ColorMeasurement.lightColoured(a.color.highlightWarmth)
    return shown + (warmLightScene(a) - shown) * Sizing.ramp(a.color.greenTint, from: -0.1, to: 0.1)
  }

  /// The confidence of the green–magenta estimate: the colour confidence, less in a warm-light
  /// scene whose estimate is warm (warmth 0.2–0.5 and up). Amber light (sunset, sodium or
  /// tungsten lamps) has so little blue that its estimate also reads green; that green is the
  /// light's, like its warmth.
  static func tintConfidence(_ a: PhotoAnalysis) -> Double {
    trust(a) * (1 - warmLightScene(a) * Sizing.ramp(a.color.warmth, from: 0.2, to: 0.5))
  }

  /// The colour confidence, less when a tenth to three tenths of the photo is blown
  /// (``ExposureAnalysis/blownShare``): the light's colour cannot be read where it clipped, and
  /// what is left of an overexposed photo is its darker, unrepresentative part.
  static func trust(_ a: PhotoAnalysis) -> Double {
    a.color.confidence * (1 - Sizing.ramp(a.exposure.blownShare ?? 0, from: 0.1, to: 0.3))
  }

  /// How clearly blue and aqua colour the photo because its scene is blue (0...1): the share
  /// of blue and aqua (``ColorAnalysis/blueShare``) on a ramp from `from` to `to`, less as the
  /// two-estimate mean, the grey pixels and the brightest detail read the same blue–amber cast
  /// (``ColorMeasurement/readingsAgree(warmth:greyPixelWarmth:highlightWarmth:)``).
  ///
  /// Sky and sea colour the mean more than the grey things and the brightest detail: the
  /// shared set's storm clouds read −0.74, −0.97 and −0.74, a blue sky −0.59, −0.14 and −0.41,
  /// an aurora 0.01, −0.25 and −1.39. A cool cast makes every photo blue and every reading
  /// alike: under the harness's strong cool cast a flash photo at night went from 41 % to 87 %
  /// blue and aqua and read −0.48, −0.63 and −0.54, and was offered no Warm Up; a backlit sky
  /// (86 % to 100 %, −0.44, −0.43, −0.60) was warmed by 0.25 where 0.44 now brings it back.
  /// A frame made mostly of bright blue material (snow in shade, a pale sky) has its own
  /// doubt (``materialReadingsAgree(_:)``, ``Recipe/warmUp``).
  static func blueScene(_ a: PhotoAnalysis, from: Double, to: Double) -> Double {
    Sizing.ramp(a.color.blueShare, from: from, to: to) * (1 - a.color.readingsAgree)
  }

  /// How far the three blue–amber readings agree
  /// (``ColorMeasurement/readingsAgree(warmth:greyPixelWarmth:highlightWarmth:)``) where that
  /// can tell a cast from a frame of bright blue material: less as the blown share grows from
  /// 5 to 15 % (``ExposureAnalysis/blownShare``; the readings then all come from the darker,
  /// unclipped rest), and as measured grain grows from σ 2.5 to 4.5 code values (where Clean
  /// Up begins; grain makes random pixels pass as grey and pulls the grey pixels' reading to
  /// the mean's). Without a grain measurement (`topSuggestion` makes none) only the blown
  /// share counts.
  ///
  /// A pale overcast river bank under the harness's cool casts reads −0.34, −0.43, −0.49
  /// (mild) and −0.65, −0.79, −0.82 (strong): counted as blue material, it kept the whole
  /// mild cast (ΔE2000 5.5 from the photo) and most of the strong one (9.3); so did a pier in
  /// fog (5.1, 8.6). The `dev` snow under strong grain (σ 6.9) reads −0.38, −0.44, −0.41,
  /// and a blue sky a stop over with 18 % blown −0.61, −0.57, −0.47: both are the scene's blue
  /// and are left as they are.
  static func materialReadingsAgree(_ a: PhotoAnalysis) -> Double {
    let blown = Sizing.ramp(a.exposure.blownShare ?? 0, from: 0.05, to: 0.15)
    let grain = Sizing.ramp(a.noise?.sigma ?? 0, from: 2.5, to: 4.5)
    return a.color.readingsAgree * (1 - blown) * (1 - grain)
  }

  /// The warmth ramp for this photo: ``warmthRamp`` moved toward ``warmLightRamp`` (a warm
  /// estimate) by ``warmLightScene(_:)``, or toward ``blueSceneRamp`` (a cool estimate) as
  /// blue and aqua go from 50 % to 80 % of the photo's colour (``blueScene(_:from:to:)``);
  /// then, for what is left of the plain-scene ramp, toward ``agreedWarmthRamp`` by
  /// ``warmthAgreement(_:)``; last, out by ``softWarmthDrift`` as the photo measures soft.
  static func warmthRamp(for a: PhotoAnalysis) -> (start: Double, full: Double) {
    let toward: (start: Double, full: Double)
    let amount: Double
    if a.color.warmth > 0 {
      toward = warmLightRamp
      amount = warmLightScene(a)
    } else {
      toward = blueSceneRamp
      amount = blueScene(a, from: 0.5, to: 0.8)
    }
    let scene = blend(warmthRamp, toward: toward, by: amount)
    let ramp = blend(scene, toward: agreedWarmthRamp, by: warmthAgreement(a) * (1 - amount))
    return widened(ramp, by: softWarmthDrift * SharpnessMeasurement.softness(a.sharpness))
  }

  /// Where the warmth ramp moves when the grey pixels (``ColorAnalysis/greyPixelWarmth``) read
  /// the same blue–amber cast as the two-estimate mean (``warmthAgreement(_:)``), in a scene
  /// neither lit by its own light nor mostly blue.
  ///
  /// The two methods are fooled by different things: the mean by bright and dominant colours
  /// (shades of grey weights bright pixels as the sixth power), the grey pixels by textured
  /// coloured material (wood, leaves, fruit read as grey under a warm light). Of the 96 shared
  /// photos with a grey-pixel estimate, 56 read beyond ±0.15 in one of the two; their readings
  /// lie a median 0.26 apart (cups 0.23 against 0.36, fruit 0.26 against 0.48, leaves against
  /// sky 0.26 against 0.97) and only 2 within 0.05 (food under flash, a portrait). The
  /// harness's +0.40 cast moves both by about as much (+0.31 to +0.42 each on photos whose
  /// pixels do not clip), so a reading both make is a cast more often than a colour of the
  /// scene.
  static let agreedWarmthRamp = (start: 0.08, full: 0.25)

  /// How closely the grey pixels' warmth matches the two-estimate mean's (0...1): 1 within
  /// 0.05 (log2 R/B), 0 from 0.15 apart or without a grey-pixel estimate. Wider than the tint's
  /// 0.03–0.08 because both methods scatter two to three times as much along this axis (median
  /// distance from neutral of the shared set's trusted photos: 0.09 and 0.04, against 0.03 and
  /// 0.02 for tint).
  static func warmthAgreement(_ a: PhotoAnalysis) -> Double {
    guard let grey = a.color.greyPixelWarmth else { return 0 }
    return 1 - Sizing.ramp(abs(grey - a.color.warmth), from: 0.05, to: 0.15)
  }

  /// The confidence a blue–amber cast is removed with: ``trust(_:)``, raised toward
  /// 1.6 × that (at most 1) by ``warmthAgreement(_:)``.
  ///
  /// The colour confidence lowers what is removed for reasons that make the estimate doubtful
  /// (one dominant colour, shades of grey and grey edge apart, a warm reading in a backlit
  /// frame), and a warm cast itself raises those doubts: the photo turns more orange, and a
  /// backlit frame's reading enters the warm-light range (under the harness's +0.40, a sunlit
  /// portrait goes from 0.87 to 0.71, tomatoes against a bright sky from 0.99 to 0.36). An
  /// independent method that reads the same cast answers part of that doubt. Acting at all
  /// still needs ``trust(_:)`` to reach ``minimumConfidence``, so a photo whose estimate was
  /// not trusted stays left alone.
  static func warmthTrust(_ a: PhotoAnalysis) -> Double {
    let t = trust(a)
    return t + (min(1, 1.6 * t) - t) * warmthAgreement(a)
  }

  /// The part of `cast` (log2 units, signed) to remove; 0 when that is too small to matter or
  /// the estimate is not trusted (confidence 0...1, fading in from ``minimumConfidence`` to
  /// ``fullConfidence``).
  static func removedShare(
    of cast: Double, confidence: Double, ramp: (start: Double, full: Double)
  ) -> Double {
    let share =
      abs(cast) * Sizing.ramp(abs(cast), from: ramp.start, to: ramp.full)
      * Sizing.clamp(confidence * 1.25, 0, 1)
      * Sizing.ramp(confidence, from: minimumConfidence, to: fullConfidence)
    guard share >= 0.04 else { return 0 }
    return cast < 0 ? -share : share
  }
}
