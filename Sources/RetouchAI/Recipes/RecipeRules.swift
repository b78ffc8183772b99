// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchRender

/// The rules every recipe follows, applied after it sized its edit (themes restyle on purpose
/// and only get the grain rule):
/// 1. skin keeps a natural hue and saturation;
/// 2. a dark, naturally lit face is lifted slightly (local Shadows);
/// 3. a clearly blurred face near the centre gets slight sharpening (not in Clean Up or Soft);
/// 4. on a night, high-ISO or overexposed photo, an edit that makes grain more visible adds
///    noise reduction for it (and sharpens less);
/// 5. a black-and-white photo stays black and white: the colour settings are left out, so a
///    recipe that is only colour (Vivid, the cast corrections) is not offered.
enum RecipeRules {
  /// Largest skin hue change a recipe may cause, in degrees of CIELAB hue.
  static let maxSkinHueShift = 2.5
  /// Allowed skin chroma ratio (edited / original).
  static let skinChromaRange = 0.88...1.15

  static func adjust(_ config: EditConfig, recipe: Recipe, analysis a: PhotoAnalysis) -> EditConfig
  {
    var config = config
    if recipe.kind != .theme {
      if a.isMonochrome { config = withoutColour(config) }
      config = liftDarkFaces(config, recipe: recipe, analysis: a)
      config = sharpenBlurredFace(config, recipe: recipe, analysis: a)
      config = protectSkin(config, recipe: recipe, analysis: a)
    }
    return limitGrain(config, recipe: recipe, analysis: a)
  }

  /// The white balance of `c` that removes a measured cast (``EditSettingType/temperature``
  /// and ``EditSettingType/tint``), which is meant to move skin back and which skin protection
  /// therefore leaves alone: all of it in a cast correction (Warm Up, Cool Down, Fix Tint,
  /// Enhance); in True Color, which removes the whole measured cast, only as much as the cast
  /// corrections would remove (``castCorrectionBalance(_:)``), in the same direction.
  ///
  /// True Color had been exempt whole: on a couple before sunlit rock (g48), whose cast no
  /// correction removes, it moved their skin 4.9° and 6.6° in hue.
  static func castRemoval(_ c: EditConfig, recipe: Recipe, analysis a: PhotoAnalysis)
    -> [EditSettingType: Double]
  {
    let balance: [EditSettingType] = [.temperature, .tint]
    var exempt: [EditSettingType: Double] = [:]
    if [Recipe.warmUp, .coolDown, .fixTint, .enhance].map(\.id).contains(recipe.id) {
      for t in balance where c.value(of: t) != 0 { exempt[t] = c.value(of: t) }
    } else if recipe.id == Recipe.trueColor.id {
      let corrected = castCorrectionBalance(a)
      for t in balance {
        let own = c.value(of: t), cast = corrected.value(of: t)
        guard own * cast > 0 else { continue }
        exempt[t] = abs(own) < abs(cast) ? own : cast
      }
    }
    return exempt
  }

  /// The white balance the cast corrections give `a`: Warm Up's or Cool Down's (which take the
  /// green–magenta part with them), else Fix Tint's.
  static func castCorrectionBalance(_ a: PhotoAnalysis) -> EditConfig {
    let cast = Recipe.warmUp.propose(a) ?? Recipe.coolDown.propose(a) ?? Recipe.fixTint.propose(a)
    return cast?.config ?? .neutral
  }

  /// `c` without its colour settings (``isColorShift(_:)``). On a black-and-white photo those
  /// either do nothing and only clutter the edit, or colour it: Matte's warm shadows tinted a
  /// historical portrait.
  static func withoutColour(_ c: EditConfig) -> EditConfig {
    c.with(properties: c.properties.filter { !isColorShift($0.key) })
  }

  // MARK: Faces

  static func liftDarkFaces(_ c: EditConfig, recipe: Recipe, analysis a: PhotoAnalysis)
    -> EditConfig
  {
    guard !["darken", "recover-highlights"].contains(recipe.id) else { return c }
    guard let face = a.naturallyLitFaces.first else { return c }
    // After the recipe's own exposure move.
    let lum = face.luminance * pow(2, c.value(of: .exposure))
    let darkness = Sizing.ramp(0.1 - lum, from: 0, to: 0.07)
    guard darkness > 0 else { return c }
    let lift = (a.exposure.isDarkOnPurpose ? 0.1 : 0.15) + 0.15 * darkness
    return c.setting(.shadows, to: Sizing.step(max(c.value(of: .shadows), 0) + lift))
  }

  static func sharpenBlurredFace(_ c: EditConfig, recipe: Recipe, analysis a: PhotoAnalysis)
    -> EditConfig
  {
    guard !["clean-up", "soft"].contains(recipe.id) else { return c }
    let central = a.faces.contains { f in
      let cx = f.bounds.x + f.bounds.width / 2, cy = f.bounds.y + f.bounds.height / 2
      return f.isBlurred && abs(cx - 0.5) < 0.25 && abs(cy - 0.5) < 0.3
    }
    guard central, c.value(of: .sharpness) < 0.2 else { return c }
    return c.setting(.sharpness, to: 0.2)
  }

  // MARK: Skin

  /// The colour settings that can move skin hue or saturation.
  static func isColorShift(_ t: EditSettingType) -> Bool {
    switch t {
    case .saturation, .vibrance, .temperature, .tint, .shadowWarmth: true
    default: t.group == .colorMixer
    }
  }

  /// Scales the colour settings down until every naturally lit face's skin colour (and a
  /// lighter and darker shade of it) keeps its hue within ``maxSkinHueShift`` and its chroma in
  /// ``skinChromaRange``, measured through the renderer's own colour transform. White balance
  /// that removes a cast (``castRemoval(_:recipe:analysis:)``) is meant to move skin back: it is
  /// left out of the measurement, and only what goes past it is scaled.
  static func protectSkin(_ c: EditConfig, recipe: Recipe, analysis a: PhotoAnalysis)
    -> EditConfig
  {
    let faces = a.naturallyLitFaces.prefix(3)
    guard !faces.isEmpty, c.look == nil else { return c }
    let exempt = castRemoval(c, recipe: recipe, analysis: a)
    let keys = c.properties.keys.filter { isColorShift($0) && c.value(of: $0) != exempt[$0] }
    guard !keys.isEmpty else { return c }
    var samples: [SIMD3<Double>] = []
    for f in faces where f.skinLab.count == 3 {
      let lab = SIMD3(f.skinLab[0], f.skinLab[1], f.skinLab[2])
      for dl in [-12.0, 0, 12] {
        let shade = SIMD3(min(max(lab.x + dl, 15), 90), lab.y, lab.z)
        samples.append(LabColor.rgb(lab: shade))
      }
    }
    // The part of the edit that is judged: everything but an exempt white balance, whose
    // effect is applied to the "before" colours so only the rest is measured.
    let judged = c.properties.filter { !$0.key.isSpatial }
    // The "before" colours: the edit without its colour shifts (which `factor` scales), so the
    // same for every factor: made once, not once per factor (each transform builds 4,096-entry
    // tables).
    let tone = ColorToneTransform(
      EditConfig(properties: judged.filter { !isColorShift($0.key) }.merging(exempt) { $1 }),
      colorSpace: .sRGB)
    let before = samples.map { s in
      let (r0, g0, b0) = tone.apply(Float(s.x), Float(s.y), Float(s.z))
      let l0 = LabColor.lab(r: Double(r0), g: Double(g0), b: Double(b0))
      return (lab: l0, chroma: LabColor.chroma(l0))
    }
    // A setting scaled toward its exempt part (0 for most).
    func scaled(_ k: EditSettingType, by factor: Double) -> Double {
      let from = exempt[k] ?? 0
      return from + (c.value(of: k) - from) * factor
    }
    func withinLimits(_ factor: Double) -> Bool {
      var p = judged
      for k in keys { p[k] = scaled(k, by: factor) }
      // Unless white balance is among the scaled settings, its tables are the "before" ones.
      let after = ColorToneTransform(
        EditConfig(properties: p), colorSpace: .sRGB, reusingTablesOf: tone)
      for (s, (l0, c0)) in zip(samples, before) {
        let (r1, g1, b1) = after.apply(Float(s.x), Float(s.y), Float(s.z))
        let l1 = LabColor.lab(r: Double(r1), g: Double(g1), b: Double(b1))
        guard c0 > 3 else { continue }
        if abs(LabColor.hueDifference(LabColor.hue(l0), LabColor.hue(l1))) > maxSkinHueShift {
          return false
        }
        if !skinChromaRange.contains(LabColor.chroma(l1) / c0) { return false }
      }
      return true
    }
    if withinLimits(1) { return c }
    var lo = 0.0, hi = 1.0
    for _ in 0..<6 {
      let mid = (lo + hi) / 2
      if withinLimits(mid) { lo = mid } else { hi = mid }
    }
    var p = c.properties
    for k in keys { p[k] = Sizing.step(scaled(k, by: lo)) }
    return c.with(properties: p)
  }

  // MARK: Grain

  /// Whether `c` makes grain more visible: it brightens, lifts shadows, sharpens or adds local
  /// contrast noticeably.
  static func amplifiesGrain(_ c: EditConfig) -> Bool {
    c.value(of: .exposure) > 0.3 || c.value(of: .shadows) > 0.2 || c.value(of: .sharpness) > 0
      || c.value(of: .clarity) > 0.2 || c.value(of: .contrast) > 0.25
  }

  static func limitGrain(_ c: EditConfig, recipe: Recipe, analysis a: PhotoAnalysis) -> EditConfig {
    guard a.grainIsExposed, amplifiesGrain(c), recipe.id != "clean-up" else { return c }
    var out = c
    let sigma = a.noise?.sigma ?? ((a.capture.iso ?? 0) >= 3200 ? 4 : 3)
    let nr = Sizing.clamp(0.1 + (sigma - 2) / 10, 0.15, 0.5)
    out = out.setting(.noiseReduction, to: Sizing.step(max(c.value(of: .noiseReduction), nr)))
    if c.value(of: .sharpness) > 0 {
      out = out.setting(.sharpness, to: Sizing.step(c.value(of: .sharpness) * 0.6))
    }
    return out
  }
}
