// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchTestSupport
import Testing

@testable import RetouchRender

/// Shorthand: the transform of `properties` for sRGB.
private func transform(
  _ properties: [EditSettingType: Double], look: LookSelection? = nil,
  colorSpace: ColorSpace = .sRGB
) -> ColorToneTransform {
  ColorToneTransform(EditConfig(properties: properties, look: look), colorSpace: colorSpace)
}

private func grey(_ t: ColorToneTransform, _ v: Float) -> Float { t.apply(v, v, v).0 }

/// Max − min of the components: the HSV chroma of an encoded colour.
private func chroma(_ c: (Float, Float, Float)) -> Float { max(c.0, c.1, c.2) - min(c.0, c.1, c.2) }

@Suite("ColorToneTransform")
struct ColorToneTests {
  @Test func neutralAndSpatialOnlyEditsAreTheIdentity() {
    let neutral = ColorToneTransform(.neutral, colorSpace: .sRGB)
    #expect(neutral.isIdentity)
    #expect(transform([.sharpness: 0.5, .grain: 0.3, .straighten: 4]).isIdentity)
    #expect(!transform([.exposure: 0.01]).isIdentity)
    #expect(!transform([.mixer(.aqua, .luminance): 0.2]).isIdentity)
    #expect(!transform([:], look: LookSelection(.mono, strength: 0.1)).isIdentity)
    #expect(transform([:], look: LookSelection(.mono, strength: 0)).isIdentity)
    var rng = SeededRandom(seed: 11)
    for _ in 0..<1000 {
      let c = (
        Float.random(in: 0...1, using: &rng), Float.random(in: 0...1, using: &rng),
        Float.random(in: 0...1, using: &rng)
      )
      let out = neutral.apply(c.0, c.1, c.2)
      #expect(out == c, "seed 11")
    }
  }

  @Test(arguments: [ColorSpace.sRGB, .displayP3])
  func exposureOfOneStopDoublesLinearLight(colorSpace: ColorSpace) {
    let plus = transform([.exposure: 1], colorSpace: colorSpace)
    let minus = transform([.exposure: -1], colorSpace: colorSpace)
    for linear: Float in [0.02, 0.18, 0.3] {
      let e = SRGBTransfer.encode(linear)
      let up = SRGBTransfer.decode(grey(plus, e))
      let down = SRGBTransfer.decode(grey(minus, e))
      #expect(abs(up / (2 * linear) - 1) < 0.01, "\(linear) → \(up)")
      #expect(abs(down / (linear / 2) - 1) < 0.01, "\(linear) → \(down)")
    }
    // The roll-off keeps highlights below clipping and in order.
    #expect(grey(plus, 0.95) < grey(plus, 1))
    #expect(grey(plus, 1) <= 1)
  }

  @Test func whiteBalanceIsNeutralAtZeroAndWarmsWithTemperature() {
    for space in ColorSpace.allCases {
      let m = WhiteBalance.rgbAdaptation(temperature: 0, tint: 0, colorSpace: space)
      let identity: [Double] = [1, 0, 0, 0, 1, 0, 0, 0, 1]
      for i in 0..<9 { #expect(abs(m[i] - identity[i]) < 1e-6, "\(space) entry \(i): \(m[i])") }
    }
    let g: Float = 0.5
    let warm = transform([.temperature: 0.5]).apply(g, g, g)
    let cool = transform([.temperature: -0.5]).apply(g, g, g)
    #expect(warm.0 / warm.2 > 1.05, "warm grey \(warm)")
    #expect(cool.0 / cool.2 < 0.95, "cool grey \(cool)")
    let magenta = transform([.tint: 0.5]).apply(g, g, g)
    let green = transform([.tint: -0.5]).apply(g, g, g)
    #expect((magenta.0 + magenta.2) / 2 > magenta.1 + 0.01, "magenta \(magenta)")
    #expect((green.0 + green.2) / 2 < green.1 - 0.01, "green \(green)")
    // The slider maps to 3500…9500 K, 6500 K at 0, monotonic.
    #expect(abs(WhiteBalance.kelvin(temperature: -1) - 3500) < 1e-6)
    #expect(abs(WhiteBalance.kelvin(temperature: 0) - 6500) < 1e-6)
    #expect(abs(WhiteBalance.kelvin(temperature: 1) - 9500) < 1e-6)
  }

  @Test(arguments: [-1.0, -0.5, 0.5, 1.0])
  func contrastKeepsEndsIsMonotonicAndDoesNotClip(amount: Double) {
    let t = transform([.contrast: amount])
    #expect(grey(t, 0) == 0)
    #expect(abs(grey(t, 1) - 1) < 1e-6)
    var previous: Float = -1
    for i in 0...1000 {
      let v = Float(i) / 1000
      let out = grey(t, v)
      #expect(out >= previous, "not monotonic at \(v)")
      if i > 0 && i < 1000 { #expect(out > 0 && out < 1, "\(v) clipped to \(out)") }
      previous = out
    }
    let spread = grey(t, 0.6) - grey(t, 0.35)
    if amount > 0 { #expect(spread > 0.27, "midtone spread \(spread)") }
    if amount < 0 { #expect(spread < 0.23, "midtone spread \(spread)") }
  }

  @Test func brightnessKeepsEndsAndMovesMidtones() {
    let up = transform([.brightness: 1])
    let down = transform([.brightness: -1])
    #expect(grey(up, 0) == 0 && abs(grey(up, 1) - 1) < 1e-6)
    #expect(grey(down, 0) == 0 && abs(grey(down, 1) - 1) < 1e-6)
    #expect(grey(up, 0.5) > 0.6)
    #expect(grey(down, 0.5) < 0.4)
  }

  @Test func blacksAndWhitesMoveTheEndPoints() {
    #expect(abs(grey(transform([.blacks: 1]), 0) - 0.15) < 0.002)
    #expect(grey(transform([.blacks: -1]), 0.1) == 0, "negative blacks crush deep shadows")
    #expect(abs(grey(transform([.whites: -1]), 1) - 0.85) < 0.002)
    #expect(abs(grey(transform([.whites: 1]), 0.9) - 1) < 0.002, "positive whites reach white")
    // The far end barely moves.
    #expect(abs(grey(transform([.blacks: 1]), 1) - 1) < 1e-4)
    #expect(abs(grey(transform([.whites: 1]), 0)) < 1e-4)
  }

  /// Black Point is levels on the black end: positive maps `k = 0.25·value` to black and keeps
  /// white, a straight line between (the exact inverse of lifted blacks, per channel, so a
  /// colour keeps its hue); negative is the inverse of a raised black point above black.
  @Test func blackPointIsLevelsOnTheBlackEnd() {
    let lower = transform([.blackPoint: 0.4])  // k = 0.1
    let raise = transform([.blackPoint: -0.4])
    for v in stride(from: 0.05, through: 1.0, by: 0.05) {
      let lifted = 0.1 + 0.9 * v
      #expect(abs(grey(lower, Float(lifted)) - Float(v)) < 0.002, "lowered \(lifted)")
      #expect(abs(grey(raise, Float(v)) - Float(lifted)) < 0.002, "raised \(v)")
    }
    #expect(abs(grey(lower, 0.1)) < 0.002 && grey(lower, 0.05) == 0, "clips under k")
    let colour = lower.apply(0.1 + 0.9 * 0.7, 0.1 + 0.9 * 0.3, 0.1 + 0.9 * 0.05)
    #expect(abs(colour.0 - 0.7) < 0.002 && abs(colour.1 - 0.3) < 0.002)
    #expect(abs(colour.2 - 0.05) < 0.002)
  }

  /// What a crush clipped to black lay anywhere under its level, so negative Black Point puts
  /// black at half the level and ramps over the first eight codes up to the exact inverse:
  /// continuous and rising, with no step a clipped region's edge would show.
  @Test func negativeBlackPointPutsBlackInTheMiddleOfTheClip() {
    let raise = transform([.blackPoint: -0.4])  // k = 0.1
    #expect(abs(grey(raise, 0) - 0.05) < 0.002, "black goes to k/2: \(grey(raise, 0))")
    let toe = Float(ColorToneTransform.crushToe)
    #expect(abs(grey(raise, toe) - Float(0.1 + 0.9 * Double(toe))) < 0.002)
    #expect(abs(grey(raise, toe / 2) - (0.05 + grey(raise, toe)) / 2) < 0.002, "a straight ramp")
    var previous = grey(raise, 0)
    for code in 1...12 {
      let next = grey(raise, Float(code) / 255)
      #expect(next > previous && next - previous < 0.02, "code \(code): \(previous) → \(next)")
      previous = next
    }
  }

  @Test func saturationMinusOneGivesGrey() {
    let t = transform([.saturation: -1])
    var rng = SeededRandom(seed: 21)
    for _ in 0..<500 {
      let c = t.apply(
        Float.random(in: 0...1, using: &rng), Float.random(in: 0...1, using: &rng),
        Float.random(in: 0...1, using: &rng))
      #expect(abs(c.0 - c.1) < 1e-5 && abs(c.1 - c.2) < 1e-5, "seed 21: \(c)")
    }
    // The grey is the luma of the image's own working space.
    for space in ColorSpace.allCases {
      let g = transform([.saturation: -1], colorSpace: space).apply(0, 1, 0)
      #expect(abs(g.1 - space.lumaWeights.g) < 1e-5, "\(space): \(g)")
    }
    // Positive saturation adds chroma without clipping an in-gamut colour.
    let boosted = transform([.saturation: 1]).apply(0.7, 0.4, 0.3)
    #expect(chroma(boosted) > 0.45)
    #expect(max(boosted.0, boosted.1, boosted.2) < 1 && min(boosted.0, boosted.1, boosted.2) > 0)
  }

  @Test func vibranceFavoursMutedColoursAndSparesSkin() {
    let t = transform([.vibrance: 1])
    func gain(_ c: (Float, Float, Float)) -> Float { chroma(t.apply(c.0, c.1, c.2)) / chroma(c) }
    let muted = gain((0.45, 0.5, 0.58))  // greyish blue
    let saturated = gain((0.1, 0.2, 0.8))  // vivid blue
    let skin = gain((0.85, 0.64, 0.52))  // hue ≈ 22°, HSV saturation ≈ 0.39
    #expect(muted > saturated + 0.2, "muted \(muted), saturated \(saturated)")
    #expect(skin < saturated, "skin \(skin), saturated \(saturated)")
    #expect(skin >= 1 && skin < 1.1, "skin \(skin)")
  }

  /// HSV hue in degrees of an encoded colour.
  private func hue(_ c: (Float, Float, Float)) -> Float {
    let mx = max(c.0, c.1, c.2)
    return ColorToneTransform.hue(c.0, c.1, c.2, max: mx, chroma: mx - min(c.0, c.1, c.2))
  }

  private func colour(hue: Float) -> (Float, Float, Float) {
    ColorToneTransform.rgb(hue: hue, chroma: 0.6, min: 0.2)
  }

  @Test func mixerHueMovesEachBandAtItsCentre() {
    for band in ColorBand.allCases {
      let t = transform([.mixer(band, .hue): 1])
      let h = Float(band.centerHue)
      var shift = hue(t.apply(colour(hue: h).0, colour(hue: h).1, colour(hue: h).2)) - h
      if shift < -180 { shift += 360 }
      #expect(abs(shift - 30) < 0.5, "\(band): shift \(shift)°")
      // Other bands are untouched at this band's centre.
      let other = transform([.mixer(band, .saturation): 1])
      let opposite = colour(hue: h + 180)
      let out = other.apply(opposite.0, opposite.1, opposite.2)
      #expect(abs(chroma(out) - 0.6) < 1e-4, "\(band) moved the opposite hue")
    }
  }

  @Test func mixerIsSmoothAcrossBandBoundaries() {
    // Orange (30°) fades out towards yellow (60°): 0.1° either side of the midpoint the shift
    // differs by the raised cosine's slope (at most π/2 degrees per degree, so ≤ 0.32°), where
    // hard band edges would jump by up to 30°.
    let t = transform([.mixer(.orange, .hue): 1])
    func shift(at h: Float) -> Float {
      let c = colour(hue: h)
      return hue(t.apply(c.0, c.1, c.2)) - h
    }
    for edge: Float in [45, 30.2, 59.8, 15, 90] {
      let below = shift(at: edge - 0.1)
      let above = shift(at: edge + 0.1)
      #expect(abs(below - above) < 0.35, "jump of \(below - above)° at \(edge)°")
    }
    #expect(abs(shift(at: 45) - 15) < 0.5, "half weight midway")
    // Greys do not move however strong the mixer is.
    let all = transform([.mixer(.red, .luminance): 1, .mixer(.blue, .hue): 1])
    #expect(all.apply(0.4, 0.4, 0.4) == (0.4, 0.4, 0.4))
    // Nearly grey colours move only a little (the chroma weight fades the mixer out).
    let nearGrey = all.apply(0.41, 0.4, 0.4)
    #expect(abs(nearGrey.0 - 0.41) < 0.005 && abs(nearGrey.1 - 0.4) < 0.005, "\(nearGrey)")
    let vivid = all.apply(0.8, 0.2, 0.2)
    #expect(vivid.0 > 0.85, "full-chroma red brightens: \(vivid)")
  }

  @Test func mixerLuminanceAndSaturationStayInGamut() {
    let t = transform([.mixer(.yellow, .luminance): 1, .mixer(.yellow, .saturation): 1])
    let c = colour(hue: 60)
    let out = t.apply(c.0, c.1, c.2)
    #expect(max(out.0, out.1, out.2) > max(c.0, c.1, c.2))
    #expect(max(out.0, out.1, out.2) < 1, "clipped: \(out)")
  }

  @Test func shadowWarmthWarmsShadowsOnly() {
    let t = transform([.shadowWarmth: 1])
    let dark = t.apply(0.15, 0.15, 0.15)
    #expect(dark.0 > dark.2 + 0.05, "\(dark)")
    #expect(t.apply(0, 0, 0) == (0, 0, 0))
    #expect(t.apply(0.8, 0.8, 0.8) == (0.8, 0.8, 0.8))
    let cool = transform([.shadowWarmth: -1]).apply(0.15, 0.15, 0.15)
    #expect(cool.2 > cool.0 + 0.05, "\(cool)")
  }

  /// A grey veil of linear light, `I = t·J + (1 − t)·A` (airlight A = 0.75, t = 0.55, the
  /// harness's strong haze), is taken off by Dehaze `(1 − t)·A / 0.5` and exposure
  /// `log2(1/t)` − the veil's own scale: colours come back within 1.5 % of linear light
  /// (the tables' interpolation), hue included. Negative Dehaze adds a veil.
  @Test func dehazeTakesOffAGreyVeilOfLinearLight() {
    let t = 0.55, airlight = 0.75
    let veil = (1 - t) * airlight
    // (I − veil)/(1 − veil) = t·J/(1 − veil), so exposure multiplies by (1 − veil)/t.
    let dehazed = transform([
      .dehaze: veil / ColorToneTransform.dehazeVeil, .exposure: log2((1 - veil) / t),
    ])
    for j in [SIMD3<Double>(0.6, 0.35, 0.25), SIMD3(0.05, 0.2, 0.6), SIMD3(0.3, 0.3, 0.3)] {
      let hazy = j * t + SIMD3(repeating: veil)
      let out = dehazed.apply(
        SRGBTransfer.encode(Float(hazy.x)), SRGBTransfer.encode(Float(hazy.y)),
        SRGBTransfer.encode(Float(hazy.z)))
      let back = SIMD3(
        Double(SRGBTransfer.decode(out.0)), Double(SRGBTransfer.decode(out.1)),
        Double(SRGBTransfer.decode(out.2)))
      for c in 0..<3 {
        #expect(abs(back[c] - j[c]) < 0.015 * max(j[c], 0.1), "\(j) → \(back)")
      }
    }
    // White stays white, black gets darker; a negative value lifts black to the veil.
    #expect(grey(transform([.dehaze: 0.6]), 1) > 0.9999)
    #expect(grey(transform([.dehaze: 0.6]), 0.5) < 0.5)
    let hazier = transform([.dehaze: -0.6])
    #expect(abs(SRGBTransfer.decode(grey(hazier, 0)) - 0.3) < 0.005)
    #expect(grey(hazier, 1) > 0.9999)
  }

  /// Dehaze takes its grey veil off the balanced colours: a veil a cast tinted comes off whole
  /// once Temperature has balanced it, so the two together give what Temperature and then
  /// Dehaze, applied one after the other, give (taken off before the balance, the veil
  /// subtracted was the balance's colour, 0.03–0.05 of linear light off here).
  @Test func dehazeTakesTheVeilOffAfterTheWhiteBalance() {
    let both = transform([.temperature: 0.5, .dehaze: 0.4])
    let balance = transform([.temperature: 0.5])
    let dehaze = transform([.dehaze: 0.4])
    let colours: [(Float, Float, Float)] = [(0.45, 0.5, 0.6), (0.6, 0.62, 0.7), (0.3, 0.4, 0.55)]
    for c in colours {
      let once = both.apply(c.0, c.1, c.2)
      let balanced = balance.apply(c.0, c.1, c.2)
      let twice = dehaze.apply(balanced.0, balanced.1, balanced.2)
      let pairs = [(once.0, twice.0), (once.1, twice.1), (once.2, twice.2)]
      for (a, b) in pairs {
        let (la, lb) = (SRGBTransfer.decode(a), SRGBTransfer.decode(b))
        #expect(abs(la - lb) < 0.004, "\(c): \(once) against \(twice)")
      }
    }
  }

  @Test func outputStaysInRangeForExtremeEdits() {
    let t = transform(
      [
        .exposure: 4, .contrast: 1, .saturation: 1, .vibrance: 1, .whites: 1, .blacks: -1,
        .temperature: 1, .tint: 1, .shadowWarmth: 1, .dehaze: 1,
      ], look: LookSelection(.chrome))
    var rng = SeededRandom(seed: 31)
    for _ in 0..<2000 {
      let c = t.apply(
        Float.random(in: -0.5...1.5, using: &rng), Float.random(in: 0...1, using: &rng),
        Float.random(in: 0...1, using: &rng))
      #expect((0...1).contains(c.0) && (0...1).contains(c.1) && (0...1).contains(c.2), "\(c)")
    }
    #expect(t.apply(.nan, .infinity, -.infinity) == t.apply(0, 1, 0))
  }

  /// Taking the tables of another transform gives the transform made from scratch, bit for
  /// bit, whether the donor's tables fit (same tone settings, other colour settings) or not
  /// (another exposure, contrast, white balance or colour space: then nothing may be taken).
  @Test func reusedTablesGiveTheSameTransform() {
    let edit: [EditSettingType: Double] = [
      .exposure: 0.4, .contrast: 0.3, .temperature: 0.2, .saturation: 0.25, .vibrance: 0.2,
      .mixer(.orange, .saturation): -0.3,
    ]
    var donors: [(String, ColorToneTransform)] = [
      ("same tone, no colour", transform(edit.filter { $0.key.group != .color })),
      ("same tone, other colour", transform(edit.merging([.saturation: -0.5]) { $1 })),
    ]
    for (name, change) in [
      ("exposure", [EditSettingType.exposure: 0.5]), ("contrast", [.contrast: -0.2]),
      ("temperature", [.temperature: 0.1]), ("dehaze", [.dehaze: 0.2]),
    ] {
      donors.append((name, transform(edit.merging(change) { $1 })))
    }
    donors.append(("display P3", transform(edit, colorSpace: .displayP3)))
    let fresh = transform(edit)
    var rng = SeededRandom(seed: 41)
    let colours = (0..<500).map { _ in
      (
        Float.random(in: 0...1, using: &rng), Float.random(in: 0...1, using: &rng),
        Float.random(in: 0...1, using: &rng)
      )
    }
    for (name, donor) in donors {
      let reused = ColorToneTransform(
        EditConfig(properties: edit), colorSpace: .sRGB, reusingTablesOf: donor)
      let differing = colours.filter { c in
        reused.apply(c.0, c.1, c.2) != fresh.apply(c.0, c.1, c.2)
      }
      #expect(differing.count == 0, "donor \(name): \(differing.count) of 500 colours differ")
    }
  }
}
