// SPDX-License-Identifier: Apache-2.0

/// The per-pixel recipe of a preset ``Look``: an optional greyscale or saturation step, then one
/// tone curve per channel.
///
/// Runs on display-encoded values in `0...1` of the image's working space (sRGB transfer curve,
/// sRGB or Display P3 primaries), after every slider (see ``ColorToneTransform``):
///
/// 1. `mono`: each channel becomes the luma `Y' = wR·R' + wG·G' + wB·B'` of the working space
///    (``RetouchCore/ColorSpace/lumaWeights``); otherwise, when `saturation ≠ 1`, the colour
///    is scaled away from or towards its luma by `saturation` (gamut-limited, never clipping).
/// 2. `curves`: channel `c` becomes `curve_c(c)`; every curve is monotonic on `0...1`.
///
/// The look is then blended with the input by the selection's strength:
/// `out = in + strength × (look(in) − in)`.
///
/// The looks are modelled on the photo-effect filters of Apple's Core Image
/// (`CIPhotoEffectChrome`, `…Fade`, `…Instant`, `…Noir`, `…Mono`, `…Tonal`, `…Process`,
/// `…Transfer` and `CISepiaTone`) as photographers commonly describe their character; the curves
/// here are our own and are not fitted to Apple's output.
struct LookRecipe: Sendable {
  /// Replace the colour by its luma before the curves.
  var mono: Bool
  /// Chroma scale around luma (1 = unchanged); ignored when `mono`.
  var saturation: Float
  /// Tone curves for R, G and B on encoded `0...1`.
  var red: @Sendable (Float) -> Float
  var green: @Sendable (Float) -> Float
  var blue: @Sendable (Float) -> Float

  init(
    mono: Bool = false, saturation: Float = 1, red: @escaping @Sendable (Float) -> Float,
    green: @escaping @Sendable (Float) -> Float, blue: @escaping @Sendable (Float) -> Float
  ) {
    self.mono = mono
    self.saturation = saturation
    self.red = red
    self.green = green
    self.blue = blue
  }

  init(mono: Bool = false, saturation: Float = 1, all curve: @escaping @Sendable (Float) -> Float) {
    self.init(mono: mono, saturation: saturation, red: curve, green: curve, blue: curve)
  }
}

/// The encoded value of 18 % grey (linear 0.18 through the sRGB curve): the pivot of every
/// contrast curve in the looks and in ``ColorToneTransform``.
let midGreyEncoded: Float = 0.461_356

/// A power S-curve through `(0, 0)`, `(pivot, pivot)` and `(1, 1)`.
///
/// Below the pivot `p·(v/p)^g`, above it `1 − (1−p)·((1−v)/(1−p))^g`: the slope at the pivot
/// is `g` on both sides. Monotonic for every `g > 0` and maps `0...1` onto `0...1`.
func pivotedSCurve(_ v: Float, gamma g: Float, pivot p: Float = midGreyEncoded) -> Float {
  let x = min(max(v, 0), 1)
  if x < p { return p * powf(x / p, g) }
  return 1 - (1 - p) * powf((1 - x) / (1 - p), g)
}

/// A contrast curve around 18 % grey: `v + a·(S₂(v) − v)`, where `S₂` is
/// ``pivotedSCurve(_:gamma:pivot:)`` with `g = 2`.
///
/// `a > 0` adds contrast (slope `1 + a` at the pivot, `1 − a` at the ends), `a < 0` removes it
/// (slope `1 + a` at the pivot, `1 − a` at the ends); `a = 0` is the identity. Valid for
/// `−1 ≤ a ≤ 1`: monotonic, keeps 0 and 1 and maps `0...1` onto itself, so it never clips, and
/// its slope stays finite (unlike a power curve below 1), which keeps 3D-LUT error low.
func contrastCurve(_ v: Float, amount a: Float) -> Float {
  let x = min(max(v, 0), 1)
  return x + a * (pivotedSCurve(x, gamma: 2) - x)
}

extension Look {
  /// The recipe of this look (see ``LookRecipe``).
  var recipe: LookRecipe {
    switch self {
    case .chrome: Self.chromeRecipe
    case .fade: Self.fadeRecipe
    case .instant: Self.instantRecipe
    case .noir: Self.noirRecipe
    case .mono: Self.monoRecipe
    case .tonal: Self.tonalRecipe
    case .process: Self.processRecipe
    case .transfer: Self.transferRecipe
    case .sepia: Self.sepiaRecipe
    }
  }

  /// Chrome: punchier colour and contrast, modelled on Core Image's Chrome photo effect.
  ///
  /// Saturation × 1.3 around luma, then ``contrastCurve(_:amount:)`` with `a = 0.3`
  /// on every channel.
  static let chromeRecipe = LookRecipe(saturation: 1.3, all: { contrastCurve($0, amount: 0.3) })

  /// Fade: muted colour and lifted blacks, modelled on Core Image's Fade photo effect.
  ///
  /// Saturation × 0.7, then `0.10 + 0.84·S(v)` with the gently flattening
  /// `S = contrastCurve(v, a = −0.1)`: black becomes 0.10 and white 0.94, like a print whose
  /// inks have faded.
  static let fadeRecipe = LookRecipe(
    saturation: 0.7, all: { 0.10 + 0.84 * contrastCurve($0, amount: -0.1) })

  /// Instant: warm, faded and gentle, modelled on Core Image's Instant photo effect (an
  /// instant-film print).
  ///
  /// Saturation × 0.85, a soft curve `s = contrastCurve(v, a = −0.15)`, then per channel
  /// `R = 0.06 + 0.93·s`, `G = 0.05 + 0.90·s`, `B = 0.04 + 0.80·s`: lifted, warm blacks and
  /// creamy highlights.
  static let instantRecipe = LookRecipe(
    saturation: 0.85,
    red: { 0.06 + 0.93 * contrastCurve($0, amount: -0.15) },
    green: { 0.05 + 0.90 * contrastCurve($0, amount: -0.15) },
    blue: { 0.04 + 0.80 * contrastCurve($0, amount: -0.15) })

  /// Noir: black and white with high contrast, modelled on Core Image's Noir photo effect.
  ///
  /// Luma, then `contrastCurve(v, a = 0.9)`, then `v^1.1` to deepen the midtones a little.
  static let noirRecipe = LookRecipe(
    mono: true, all: { powf(contrastCurve($0, amount: 0.9), 1.1) })

  /// Mono: neutral black and white, modelled on Core Image's Mono photo effect.
  ///
  /// Luma with the identity curve.
  static let monoRecipe = LookRecipe(mono: true, all: { $0 })

  /// Tonal: soft, low-contrast black and white, modelled on Core Image's Tonal photo effect.
  ///
  /// Luma, then `0.03 + 0.94·S(v)` with the flattening `S = contrastCurve(v, a = −0.3)`.
  static let tonalRecipe = LookRecipe(
    mono: true, all: { 0.03 + 0.94 * contrastCurve($0, amount: -0.3) })

  /// Process: cross-processed colour with cool shadows and yellow-green highlights, modelled on
  /// Core Image's Process photo effect (slide film developed as negative).
  ///
  /// Saturation × 1.05; `R = 0.96·C(v, 0.15)`, `G = C(v, 0.1)` with `C` =
  /// ``contrastCurve(_:amount:)``, and `B = 0.12 + 0.72·v`: blue is raised in the shadows (black
  /// becomes (0, 0, 0.12)) and held down in the highlights (white becomes (0.96, 1, 0.84)).
  static let processRecipe = LookRecipe(
    saturation: 1.05,
    red: { 0.96 * contrastCurve($0, amount: 0.15) },
    green: { contrastCurve($0, amount: 0.1) },
    blue: { 0.12 + 0.72 * $0 })

  /// Transfer: warm vintage colour with reduced contrast, modelled on Core Image's Transfer photo
  /// effect.
  ///
  /// Saturation × 0.85, a flattening curve `s = contrastCurve(v, a = −0.2)`, then
  /// `R = 0.05 + 0.93·s`, `G = 0.03 + 0.90·s`, `B = 0.02 + 0.80·s^1.05`.
  static let transferRecipe = LookRecipe(
    saturation: 0.85,
    red: { 0.05 + 0.93 * contrastCurve($0, amount: -0.2) },
    green: { 0.03 + 0.90 * contrastCurve($0, amount: -0.2) },
    blue: { 0.02 + 0.80 * powf(contrastCurve($0, amount: -0.2), 1.05) })

  /// Sepia: brown toning, modelled on Core Image's Sepia Tone filter (whose intensity is the
  /// selection's strength here).
  ///
  /// Luma `Y'`, then `R = Y'^0.78`, `G = Y'^0.95`, `B = Y'^1.35`: black stays black, white stays
  /// white and everything between is brown (R > G > B).
  static let sepiaRecipe = LookRecipe(
    mono: true, red: { powf($0, 0.78) }, green: { powf($0, 0.95) }, blue: { powf($0, 1.35) })
}

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#elseif canImport(Musl)
  import Musl
#endif
