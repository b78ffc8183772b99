// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchRender

/// Finds global tone slider values (Exposure, Blacks, Whites, Brightness, Contrast) whose curve
/// takes a photo's measured grey levels to wanted ones, through the renderer's own transform.
///
/// Used to undo a raised black level (haze, a washed-out print): the wanted levels are the
/// measured ones with a veil of linear light removed. The fit is a coordinate descent on a
/// 0.05 grid over the sliders, minimising the squared difference of display-encoded levels;
/// each trial compiles one ``ColorToneTransform`` (tens of microseconds), and a fit takes a
/// few hundred trials at most (a few milliseconds). Deterministic.
enum ToneFit {
  static let settings: [EditSettingType] = [.exposure, .blacks, .whites, .brightness, .contrast]

  /// Slider values (missing = 0) mapping each of `levels` (display-encoded greys, 0...1) as
  /// close as the sliders allow to the matching `targets`, each slider within `limits`.
  static func fit(
    levels: [Double], targets: [Double], weights: [Double],
    limits: [EditSettingType: ClosedRange<Double>]
  ) -> [EditSettingType: Double] {
    var values: [EditSettingType: Double] = [:]
    func cost(_ v: [EditSettingType: Double]) -> Double {
      let t = ColorToneTransform(EditConfig(properties: v), colorSpace: .sRGB)
      var sum = 0.0
      for i in levels.indices {
        let out = Double(t.apply(Float(levels[i]), Float(levels[i]), Float(levels[i])).0)
        sum += weights[i] * (out - targets[i]) * (out - targets[i])
      }
      return sum
    }
    var best = cost(values)
    for step in [0.2, 0.1, 0.05] {
      var improved = true
      var rounds = 0
      while improved && rounds < 12 {
        improved = false
        rounds += 1
        for s in settings {
          guard let range = limits[s] else { continue }
          for dir in [1.0, -1.0] {
            var trial = values
            let v = Sizing.clamp((values[s] ?? 0) + dir * step, range.lowerBound, range.upperBound)
            trial[s] = v
            let c = cost(trial)
            if c < best - 1e-9 {
              best = c
              values = trial
              improved = true
              break
            }
          }
        }
      }
    }
    return values.filter { abs($0.value) >= 0.01 }.mapValues { Sizing.step($0) }
  }

  /// Linear luminance of an L* value.
  static func luminance(lightness l: Double) -> Double {
    let fy = (l + 16) / 116
    return fy * fy * fy > 216.0 / 24389 ? fy * fy * fy : l * 27 / 24389
  }

  /// Sliders that lower a raised black level in the display values, `y' = (y − k)/(1 − k)`
  /// (levels), which inverts a lifted-blacks curve `y = k + (1 − k)·x`. `k` is how far the
  /// encoded 1st percentile sits above where a clean photo keeps it (L* 2), or, when less, how
  /// far the channel floor (``ExposureAnalysis/channelFloor``) sits above a clean photo's (L*
  /// 1), times `strength` (0...1); the fit keeps the whites where they are.
  ///
  /// The lift puts every pixel that had a black channel at `k` in that channel, so the floor
  /// reads `k` itself, while the darkest percent also holds the photo's own dark tones lifted
  /// with it: on the harness's lifted copies (`k` = 0.08) the 1st percentile read up to L* 20
  /// (encoded 0.19) where the floor read L* 6.3 (0.08). A photo whose darkest percent is light
  /// by its content, with a floor only a little raised (a lamp-lit ceiling: L* 27.6 and 6.8),
  /// is moved by what its floor shows, not by a quarter of its range. Nor is `k` more than the
  /// level under which only 0.02 % of the photo has its darkest channel
  /// (``ExposureAnalysis/blackBottom``): the lift moved the photo's blackest pixel there, while
  /// the 0.5th percentile also holds dark tones lifted with it (on the harness's lifted
  /// portrait, codes 31 and 51 for lifts of 20 and 41).
  ///
  /// A black level read from the pile the lift leaves (``ExposureAnalysis/liftedBlack``) is
  /// the lift itself: at least that much is removed, whatever the strength.
  static func blackLevelRemoval(_ a: PhotoAnalysis, strength: Double) -> [EditSettingType: Double] {
    let levels = ExposureAnalysis.percentileKeys.map {
      SRGBTables.encodeExact(luminance(lightness: a.lightness(percentile: $0)))
    }
    let cleanBlack = SRGBTables.encodeExact(luminance(lightness: 2))
    var lift = max(levels[0] - cleanBlack, 0) / (1 - cleanBlack)
    if let floor = a.exposure.channelFloor {
      let encoded = SRGBTables.encodeExact(luminance(lightness: floor))
      let cleanFloor = SRGBTables.encodeExact(luminance(lightness: 1))
      lift = min(lift, max(encoded - cleanFloor, 0) / (1 - cleanFloor))
    }
    if let bottom = a.exposure.blackBottom { lift = min(lift, bottom) }
    let k = max(lift * strength, a.exposure.liftedBlack ?? 0)
    guard k > 0.01 else { return [:] }
    let targets = levels.map { max(($0 - k) / (1 - k), 0) }
    return fit(
      levels: levels, targets: targets, weights: [2, 1.5, 1, 1, 1, 1, 1.5],
      limits: [
        .blacks: -1...0, .whites: -0.3...0.3, .brightness: -0.5...0.5, .contrast: -0.2...0.5,
      ])
  }

  /// Sliders that put back a crushed black point (``ExposureAnalysis/crushedBlack`` `b`): the
  /// crush's inverse `y' = b + (1 − b)·y`. Blacks moves black to `b` (`y + b(1 − y)²`), and
  /// Brightness adds the rest of the lift in the mid-tones, `b·y(1 − y)`, with the gamma that
  /// makes the two exact at mid-grey; both from the renderer's own constants.
  ///
  /// Not fitted with ``fit(levels:targets:weights:limits:)``: over the photo's grey levels that
  /// gave the same harness results (crush family 79 against 80 % on `dev`, 92 % on 59 other
  /// photos) but cost 4–8 ms of `topSuggestion` on a crushed 12 MP photo (12.6–14.3 →
  /// 17.0–22.5 ms, over its 15 ms goal).
  static func blackPointRestore(_ a: PhotoAnalysis) -> [EditSettingType: Double] {
    let b = a.exposure.crushedBlack ?? 0
    guard b > 0.005 else { return [:] }
    let blacks = b / ColorToneTransform.blackWhiteReach
    let gamma = log(0.5 + b / 2) / log(0.5 + b / 4)
    let brightness = -log2(gamma) / ColorToneTransform.brightnessSpan
    return [.blacks: Sizing.step(blacks), .brightness: Sizing.step(brightness)]
  }

  /// Sliders that take away a veil of linear light (haze, lifted blacks): the measured black
  /// level `k` (at the 1st percentile, less what a clean photo keeps there) is subtracted in
  /// linear light and the rest stretched back so the white level `w` (99th percentile) stays
  /// where it is, `Y' = (Y − k)·w/(w − k)`. That inverts an airlight veil
  /// `I = t·J + (1 − t)·A` whatever the airlight's brightness `A`: the veil adds the same light
  /// to black and white, and the contrast it took is the ratio of the two spans (`1/t`).
  ///
  /// Done exactly, on every channel in linear light: Dehaze removes `k` keeping white at 1,
  /// `(Y − k)/(1 − k)`, and Exposure scales by `w·(1 − k)/(w − k)` to put `w` back. Tone curves
  /// on encoded values (Blacks, Brightness, Contrast) only approximated it and twisted hues:
  /// on the shared set's two face photos they moved skin hue by a further 2–5° beyond the
  /// haze's own.
  static func veilRemoval(_ a: PhotoAnalysis, strength: Double) -> [EditSettingType: Double] {
    let ls = ExposureAnalysis.percentileKeys.map { a.lightness(percentile: $0) }
    let ys = ls.map { luminance(lightness: $0) }
    let cleanBlack = luminance(lightness: 3)
    let most = ColorToneTransform.dehazeVeil
    let k = min(max(ys[0] - cleanBlack, 0) * strength, most)
    // A veil over a frame with no span of its own (all one grey) shows no white level: the
    // white is taken at least 0.4 above the black level.
    let w = max(ys[6], min(1, k + 0.4))
    guard k > 0.002, w - k > 0.05 else { return [:] }
    let dehaze = Sizing.step(k / most)
    let removed = most * dehaze
    let exposure = Sizing.step(log2(w * (1 - removed) / (w - removed)))
    var p: [EditSettingType: Double] = [.dehaze: dehaze]
    if exposure != 0 { p[.exposure] = exposure }
    return p
  }
}
