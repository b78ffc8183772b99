// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchRender

/// Slider values that undo a measured tone edit: a lifted or crushed black point, a veil of
/// linear light. Each is the exact inverse of the edit it names, built from the renderer's own
/// constants, so nothing is fitted per photo (closed forms cost nothing in `topSuggestion`).
enum ToneFit {
  /// Linear luminance of an L* value.
  static func luminance(lightness l: Double) -> Double {
    let fy = (l + 16) / 116
    return fy * fy * fy > 216.0 / 24389 ? fy * fy * fy : l * 27 / 24389
  }

  /// Black Point that lowers a raised black level in the display values, `y' = (y − k)/(1 − k)`
  /// (levels, ``ColorToneTransform/blackPointReach``), the exact inverse of a lifted-blacks
  /// curve `y = k + (1 − k)·x` on every channel. `k` is how far the encoded 1st percentile
  /// sits above where a clean photo keeps it (L* 2), or, when less, how far the channel floor
  /// (``ExposureAnalysis/channelFloor``) sits above a clean photo's (L* 1), times `strength`
  /// (0...1).
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
  ///
  /// Until this used Black Point it fitted Blacks, Whites, Brightness and Contrast to the
  /// photo's grey levels; their curves cannot make a straight line of the inverse, and the
  /// harness's lifted copies it corrected kept 0.4–2.2 ΔE2000 of the lift (the exact inverse
  /// at the right `k` left 0.1–0.2 on the three checked).
  static func blackLevelRemoval(_ a: PhotoAnalysis, strength: Double) -> [EditSettingType: Double] {
    let cleanBlack = SRGBTables.encodeExact(luminance(lightness: 2))
    let darkest = SRGBTables.encodeExact(luminance(lightness: a.lightness(percentile: 1)))
    var lift = max(darkest - cleanBlack, 0) / (1 - cleanBlack)
    if let floor = a.exposure.channelFloor {
      let encoded = SRGBTables.encodeExact(luminance(lightness: floor))
      let cleanFloor = SRGBTables.encodeExact(luminance(lightness: 1))
      lift = min(lift, max(encoded - cleanFloor, 0) / (1 - cleanFloor))
    }
    if let bottom = a.exposure.blackBottom { lift = min(lift, bottom) }
    let k = max(lift * strength, a.exposure.liftedBlack ?? 0)
    guard k > 0.01 else { return [:] }
    return [.blackPoint: blackPoint(level: k)]
  }

  /// Black Point that puts back a black point crushed at encoded level `b` (as
  /// ``ExposureAnalysis/crushedBlack`` reads it): the crush's inverse `y' = b + (1 − b)·y`,
  /// exactly (negative Black Point).
  static func blackPointRestore(level b: Double) -> [EditSettingType: Double] {
    guard b > 0.005 else { return [:] }
    return [.blackPoint: -blackPoint(level: b)]
  }

  /// The Black Point magnitude that moves black by the encoded level `k`
  /// (``ColorToneTransform/blackPointReach``), on the slider's step, at most 1.
  static func blackPoint(level k: Double) -> Double {
    Sizing.step(min(k / ColorToneTransform.blackPointReach, 1))
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
  ///
  /// The veil is added to every channel of every pixel, so the channels' floors
  /// (``ColorAnalysis/veilFloor``, else ``ExposureAnalysis/channelFloor``, less the L* 1 a clean
  /// photo keeps there) read it exactly wherever the scene had something black in a channel, and
  /// the darkest percent's lightness only when the scene's darkest percent was black: a street lamp
  /// at night, dune grass under a blue sky or a ladybird on grass, whose darkest percent lies at L*
  /// 14–31 but whose floor is at L* 0–1.4, keeps that much over its veil. The lower of the two
  /// readings is used. On the harness's hazy copies of 70 photos outside `dev` (mean ΔE2000 24.4
  /// from the photos) the edit left 4.6 when it took 95 % of the darkest percent's reading (less
  /// the L* 3 a clean photo keeps there), 3.4 when it took all of it, and 2.9 read from the floor.
  /// All of it darkened 40 of the 210 hazy and over + hazy copies, by up to 4.4, all of them photos
  /// with no black in their darkest percent. On the over + hazy copies alone the floor leaves 7.2
  /// of 30.0 against 7.1: taking off more than the veil there made up, by chance, for the half stop
  /// of extra light, which the veil fit does not remove.
  static func veilRemoval(_ a: PhotoAnalysis) -> [EditSettingType: Double] {
    let ls = ExposureAnalysis.percentileKeys.map { a.lightness(percentile: $0) }
    let ys = ls.map { luminance(lightness: $0) }
    var veil = ys[0] - luminance(lightness: 3)
    if let floor = a.color.veilFloor ?? a.exposure.channelFloor {
      veil = min(veil, luminance(lightness: floor) - luminance(lightness: 1))
    }
    let most = ColorToneTransform.dehazeVeil
    let k = min(max(veil, 0), most)
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
