// SPDX-License-Identifier: Apache-2.0

import RetouchCore

/// The global colour-and-tone part of an edit, compiled once: maps one pixel's RGB to a new RGB
/// independently of where the pixel is.
///
/// Input and output are display-encoded values in `0...1` of the image's working space
/// (`ColorSpace`: sRGB or Display P3 primaries, both with the sRGB transfer
/// curve). Inputs outside `0...1` are clamped; the output is clamped to `0...1`.
///
/// Stages, in this order (each is skipped when its sliders are 0):
///
/// 1. **Linear light** (decode with the sRGB curve, then one 3×3 matrix):
///    - *White balance* (``EditSettingType/temperature``, ``EditSettingType/tint``): a Bradford
///      chromatic adaptation from a source white to D65, done as
///      `M = RGB←XYZ · B⁻¹ · diag(B·W_D65 / B·W_src) · B · XYZ←RGB`. The source white is D65
///      moved along the Planckian locus (Kim et al. 2002 cubic approximation, CIE 1960 uv) by
///      the difference between the locus at `T(t)` and at 6500 K, where `T(t)` runs from
///      3500 K (t = −1) through 6500 K to 9500 K (t = +1), quadratic in mired so it is smooth
///      and monotonic; tint moves it along the locus normal by `0.025 × tint` in uv (a greener
///      source white, so +1 turns the photo magenta and −1 green). A source white bluer than
///      D65 warms the photo, so positive temperature raises R/B of a grey. Exactly neutral at 0.
///    - *Dehaze* (``EditSettingType/dehaze``, −1…1), after the white balance: positive values
///      take away a grey veil of linear light `v = 0.5·dehaze` (``dehazeVeil``) from the
///      balanced colours, `c' = (c − v)/(1 − v)` (clipped at 0), which exactly inverts the
///      airlight model of haze, `I = t·J + (1 − t)·A`, for the part `(1 − t)·A` it names, and
///      keeps white white; negative values add one, `c' = (1 − v)·c + v`. After the balance,
///      because a camera's white balance scales the light the air scattered with the rest of
///      the picture: a veil tinted by a balance set wrong is grey again once the balance is
///      put right, and only then is it the grey this removes (taken off before the balance, the
///      grey veil left the shadows of the evaluation harness's hazy, cool copy of a living room
///      blue: 13.4 ΔE2000 from the photo with its veil and cast both removed, 3.0 after the
///      balance). Done per channel in linear light, so the colours under the veil come back
///      with their own hue (tone curves on encoded values twist it), and it folds into the
///      stage's matrix plus one offset per channel.
///    - *Exposure* (``EditSettingType/exposure``, stops −4…4): every linear component is
///      multiplied by `2^stops`, so +1 doubles the light (18 % grey becomes 36 %, to within
///      the interpolation of the 4096-entry tables).
///    - Values above 1 are compressed by a highlight roll-off that only touches encoded values
///      above 0.9: with `u = (e − 0.9)/0.1`, `e' = 0.9 + 0.1·u/(1 + a·u)`, where `a` is chosen
///      so that the largest reachable value lands exactly on 1. It is the identity when nothing
///      can exceed 1 (negative exposure, neutral white balance).
/// 2. **Tone** on encoded (perceptual) values, per channel, folded into one 4096-entry table
///    with linear interpolation:
///    - *Black point* (−1…1), first: levels on the black end with `k = 0.25·|blackPoint|`
///      (``blackPointReach``). Positive values map `k` to black and stretch the rest back to
///      white, `v' = (v − k)/(1 − k)` (clipped at 0): the exact inverse of blacks lifted in the
///      display values (a matte export, a faded print). Negative values lift black to `k`,
///      `v' = k + (1 − k)·v`: the exact inverse of a black point that was raised (crushed
///      shadows) for every value the crush left above black. What it clipped to black lay
///      anywhere between 0 and `k`, so black itself goes to `k/2`, the middle of that span,
///      and the first eight codes (``crushToe``) ramp from there to the inverse: on the
///      harness's crushed copies of 15 photos, given the true level, the ΔE2000 left after
///      the restore falls from 0.38 to 0.29 (crushed by 0.05) and from 1.27 to 0.82 (by
///      0.10) against lifting black to `k`. White stays white either way.
///    - *Blacks and whites* (−1…1): `v + β(1 − v)² + ω v²` with `β = 0.15·blacks`,
///      `ω = 0.15·whites`. Black moves to `β` and white to `1 + ω`: positive blacks lift the
///      black level, negative ones raise the input level that maps to black (crushing);
///      positive whites lower the input level that maps to white, negative ones dim white. The
///      move fades smoothly into the midtones, and the curve is monotonic. Clamped to `0...1`.
///    - *Brightness* (−1…1): `v^γ` with `γ = 2^(−0.75·brightness)`; keeps 0 and 1.
///    - *Contrast* (−1…1): `v + a·(S₂(v) − v)` around 18 % grey (encoded `p = 0.4614`), where
///      `S₂` is `p·(v/p)²` below the pivot and `1 − (1−p)·((1−v)/(1−p))²` above, and
///      `a = 0.8·contrast` (positive) or `0.6·contrast` (negative): slope `1 + a` at the pivot.
///      Maps 0→0 and 1→1 and is monotonic, so nothing new clips; negative values flatten.
/// 3. **Colour** on encoded values, with luma `Y' = wR·R' + wG·G' + wB·B'` from the working
///    space's `ColorSpace.lumaWeights`. Every chroma scale `f > 1` is
///    gamut-limited: with `m` the largest factor that keeps all channels in `0...1`,
///    the applied factor is `1 + e·h/(e + h)` for `e = f − 1`, `h = m − 1`, so it approaches the
///    gamut edge without clipping.
///    - *Saturation* (−1…1): `c' = Y' + (1 + saturation)·(c − Y')`; −1 is grey.
///    - *Vibrance* (−1…1): the same with `f = 1 + vibrance·(1 − S)·(1 − 0.9·skin)`, where `S`
///      is HSV saturation and `skin` is a plateau in hue (15°…45°, smoothstep edges out to 5° and
///      55°) times a plateau in saturation (0.1…0.7): muted colours move most, saturated ones
///      and skin least.
///    - *Colour mixer* (per ``ColorBand``, −1…1): HSV hue `h`; the two bands whose centres
///      bracket `h` get raised-cosine weights `w = ½(1 + cos πt)` and `1 − w`, so the adjustment
///      is smooth in hue. Hue shifts by `30°·Σwᵢ·hueᵢ`, chroma scales by `1 + 0.7·Σwᵢ·satᵢ`
///      (gamut-limited) and RGB scales by `1 + 0.35·Σwᵢ·lumᵢ` (gamut-limited). All three are
///      multiplied by `smoothstep(0, 0.15, max − min)` so greys do not move.
///    - *Shadow warmth* (−1…1): `R += s`, `B −= s` with `s = 0.12·warmth·13.5·Y'(1 − 2Y')²` for
///      `Y' < 0.5` (0 above): black stays black, the push peaks at `Y' = 1/6` and is gone by the
///      midtones. Negative values cool.
/// 4. **Look** (``LookSelection``): the look's recipe (see `LookFormulas.swift`) blended by
///    `strength` (clamped to `0...1`): `out = in + strength·(look(in) − in)`.
///
/// Cost: compiling builds a few 4096-entry tables (well under a millisecond). ``apply(_:_:_:)``
/// is a scalar reference of about 0.2 µs per pixel with every stage on (release build, 2-vCPU
/// VM), so it is meant for building a ``ColorLUT3D`` (33³ points in ~7 ms on one thread), not
/// for whole images.
public struct ColorToneTransform: Sendable {
  /// The working space the transform was compiled for.
  public let colorSpace: ColorSpace
  /// True when no colour or tone setting and no look (with non-zero strength) is set; the
  /// transform is then the identity and renderers skip it.
  public let isIdentity: Bool

  // Linear stage.
  let hasLinearStage: Bool
  let matrix: [Float]  // row-major 3×3, exposure gain folded in
  let offset: [Float]  // subtracted after the matrix (dehaze); zeros without it
  let decodeTable: [Float]  // encoded → linear, uniform in encoded
  let toneScale: Float  // linear → table index domain: u = sqrt(l · toneScale)
  // Tone stage (encoded → encoded; indexed by sqrt(linear / Lmax) when hasLinearStage).
  let hasToneTable: Bool
  let toneTable: [Float]
  /// The clamped settings the tone table depends on (exposure, white balance, dehaze, tone);
  /// with ``colorSpace``, what ``init(_:colorSpace:reusingTablesOf:)`` compares.
  let tableInputs: [Double]
  // Colour stage.
  let lumaR: Float, lumaG: Float, lumaB: Float
  let saturationFactor: Float  // 1 = off
  let vibrance: Float  // 0 = off
  let hasMixer: Bool
  let mixerHue: [Float]  // per band, degrees of shift at full weight
  let mixerSaturation: [Float]  // per band, chroma-scale offset
  let mixerLuminance: [Float]  // per band, RGB-scale offset
  let shadowWarmth: Float  // 0 = off
  // Look.
  let lookStrength: Float  // 0 = off
  let lookMono: Bool
  let lookSaturation: Float
  let lookRed: [Float], lookGreen: [Float], lookBlue: [Float]

  /// The veil of linear light (0...1 of white) that Dehaze ±1 takes away or adds; a value `d`
  /// moves `dehazeVeil · |d|`.
  public static let dehazeVeil = 0.5
  /// The black level Black Point ±1 takes away or adds, in encoded values.
  public static let blackPointReach = 0.25
  /// The encoded span over which negative Black Point ramps from half its level at black up to
  /// the crush's exact inverse: what a crush sent to black lay anywhere under its level. It is
  /// the first cell of the default 33-point table (``ColorLUT3D/defaultSize``), which therefore
  /// renders the ramp as computed, and over its eight codes a JPEG's scatter of the clip (codes
  /// 0–3) is spread by a slope of 2.5 at a level of 0.10 (4 over four codes).
  public static let crushToe = 1 / Double(ColorLUT3D.defaultSize - 1)
  /// How far Blacks ±1 moves black (and Whites ±1 white), in encoded values.
  public static let blackWhiteReach = 0.15
  /// Brightness `b` is the gamma `2^(−brightnessSpan·b)`.
  public static let brightnessSpan = 0.75

  /// The settings this transform implements; any other setting is left to other stages.
  public static let coveredSettings: Set<EditSettingType> = {
    var s: Set<EditSettingType> = [
      .exposure, .brightness, .contrast, .whites, .blacks, .blackPoint, .dehaze, .saturation,
      .vibrance, .temperature, .tint, .shadowWarmth,
    ]
    for t in EditSettingType.allCases where t.group == .colorMixer { s.insert(t) }
    return s
  }()

  /// Compiles the colour-and-tone settings and the look of `config` for images in `colorSpace`.
  ///
  /// Slider values outside their ranges (``EditSetting``) are clamped; the look strength is
  /// clamped to `0...1`. Settings not in ``coveredSettings`` are ignored.
  public init(_ config: EditConfig, colorSpace: ColorSpace) {
    self.init(config, colorSpace: colorSpace, reusingTablesOf: nil)
  }

  /// ``init(_:colorSpace:)`` that takes the tone table from `other` when it would come out the
  /// same (same exposure, white balance, dehaze and tone settings, same colour space) instead
  /// of computing its 4,096 entries again: for callers that try one edit at several colour
  /// strengths (skin protection). The same transform, bit for bit.
  package init(
    _ config: EditConfig, colorSpace: ColorSpace, reusingTablesOf other: ColorToneTransform?
  ) {
    self.colorSpace = colorSpace
    func value(_ t: EditSettingType) -> Double {
      let v = config.value(of: t)
      // Every range holds 0, so an unset setting needs no clamping.
      if v == 0 { return v }
      return v.isFinite ? t.setting.clamp(v) : 0
    }
    let exposure = value(.exposure)
    let temperature = value(.temperature)
    let tint = value(.tint)
    let blackPoint = value(.blackPoint)
    let blacks = value(.blacks)
    let whites = value(.whites)
    let brightness = value(.brightness)
    let contrast = value(.contrast)

    // Linear stage.
    var m: [Double] = [1, 0, 0, 0, 1, 0, 0, 0, 1]
    if temperature != 0 || tint != 0 {
      m = WhiteBalance.rgbAdaptation(temperature: temperature, tint: tint, colorSpace: colorSpace)
    }
    let gain = exposure != 0 ? pow(2, exposure) : 1
    m = m.map { $0 * gain }
    // Dehaze after the white balance and before the exposure: with W the white balance,
    // c' = gain·(a·W·c − b), a grey veil taken off the balanced colours.
    let dehaze = value(.dehaze)
    let veil = Self.dehazeVeil * abs(dehaze)
    let (scale, shift) = dehaze > 0 ? (1 / (1 - veil), veil / (1 - veil)) : (1 - veil, -veil)
    var o = [0.0, 0.0, 0.0]
    if dehaze != 0 {
      o = [shift * gain, shift * gain, shift * gain]
      m = m.map { $0 * scale }
    }
    let linear = temperature != 0 || tint != 0 || exposure != 0 || dehaze != 0
    hasLinearStage = linear
    matrix = m.map { Float($0) }
    offset = o.map { Float($0) }
    // The largest linear value any channel can reach from inputs in 0...1.
    var maxLinear = 1.0
    for row in 0..<3 {
      let reach = (0..<3).reduce(0.0) { $0 + max(0, m[row * 3 + $1]) } - o[row]
      maxLinear = max(maxLinear, reach)
    }
    let tableDomain = linear ? maxLinear : 1
    toneScale = Float(1 / tableDomain)
    // Everything the tables below are computed from (the matrix and offset follow from these).
    let inputs = [
      exposure, temperature, tint, dehaze, blackPoint, blacks, whites, brightness, contrast,
    ]
    tableInputs = inputs
    let reused = other.flatMap { o in
      o.tableInputs == inputs && o.colorSpace == colorSpace ? o : nil
    }
    decodeTable = linear ? Self.uniformDecodeTable : []

    // Tone stage.
    let rolloffTop = Double(SRGBTransfer.encode(Float(maxLinear)))
    let beta = Self.blackWhiteReach * blacks
    let omega = Self.blackWhiteReach * whites
    let gamma = pow(2, -Self.brightnessSpan * brightness)
    let contrastAmount = Float(contrast > 0 ? 0.8 * contrast : 0.6 * contrast)
    let level = Self.blackPointReach * abs(blackPoint)
    let hasTone =
      blackPoint != 0 || blacks != 0 || whites != 0 || brightness != 0 || contrast != 0
    func tone(_ encoded: Double) -> Double {
      var v = encoded
      if linear && rolloffTop > 1 && v > 0.9 {
        let knee = 0.9
        let top = (rolloffTop - knee) / (1 - knee)
        let a = (top - 1) / top
        let u = (v - knee) / (1 - knee)
        v = knee + (1 - knee) * u / (1 + a * u)
      }
      v = min(max(v, 0), 1)
      if blackPoint > 0 {
        v = max(v - level, 0) / (1 - level)
      } else if blackPoint < 0 {
        let toe = Self.crushToe
        v =
          v < toe
          ? level / 2 + (level / 2 + (1 - level) * toe) * v / toe
          : level + (1 - level) * v
      }
      if beta != 0 || omega != 0 {
        v = v + beta * (1 - v) * (1 - v) + omega * v * v
        v = min(max(v, 0), 1)
      }
      if brightness != 0 { v = pow(v, gamma) }
      if contrast != 0 { v = Double(contrastCurve(Float(v), amount: contrastAmount)) }
      return min(max(v, 0), 1)
    }
    hasToneTable = linear || hasTone
    if let reused {
      toneTable = reused.toneTable
    } else if linear {
      // Indexed by sqrt(linear / domain): dense near black, where the sRGB curve is steep.
      toneTable = Self.table { u in
        tone(Double(SRGBTransfer.encode(Float(u * u * tableDomain))))
      }
    } else if hasTone {
      toneTable = Self.table(tone)
    } else {
      toneTable = []
    }

    // Colour stage.
    let w = colorSpace.lumaWeights
    (lumaR, lumaG, lumaB) = (w.r, w.g, w.b)
    saturationFactor = Float(1 + value(.saturation))
    vibrance = Float(value(.vibrance))
    var mh = [Float](repeating: 0, count: 8)
    var ms = mh
    var ml = mh
    for (i, band) in ColorBand.allCases.enumerated() {
      mh[i] = Float(30 * value(.mixer(band, .hue)))
      ms[i] = Float(0.7 * value(.mixer(band, .saturation)))
      ml[i] = Float(0.35 * value(.mixer(band, .luminance)))
    }
    hasMixer = (mh + ms + ml).contains { $0 != 0 }
    (mixerHue, mixerSaturation, mixerLuminance) = (mh, ms, ml)
    shadowWarmth = Float(value(.shadowWarmth))

    // Look.
    let strength = config.look.map { min(max($0.strength, 0), 1) } ?? 0
    lookStrength = strength.isFinite ? Float(strength) : 0
    if lookStrength > 0, let look = config.look?.look {
      let r = look.recipe
      lookMono = r.mono
      lookSaturation = r.saturation
      lookRed = Self.table(size: 1024) { Double(r.red(Float($0))) }
      lookGreen = Self.table(size: 1024) { Double(r.green(Float($0))) }
      lookBlue = Self.table(size: 1024) { Double(r.blue(Float($0))) }
    } else {
      (lookMono, lookSaturation, lookRed, lookGreen, lookBlue) = (false, 1, [], [], [])
    }

    isIdentity =
      !linear && !hasTone && saturationFactor == 1 && vibrance == 0 && !hasMixer
      && shadowWarmth == 0 && lookStrength == 0
  }

  /// Maps one display-encoded colour (components in `0...1`; clamped, NaN as 0) to its edited
  /// colour (clamped to `0...1`). The scalar reference of every faster path.
  public func apply(_ r: Float, _ g: Float, _ b: Float) -> (Float, Float, Float) {
    applySeparated(channelStage(r), channelStage(g), channelStage(b))
  }

  /// The part of ``apply(_:_:_:)`` that works on each channel alone, before any channel mixes:
  /// the clamp, then the sRGB decode when there is a linear stage, else the tone table (or
  /// nothing). Every channel uses the same function, so a grid builder evaluates it once per
  /// axis value instead of once per grid point.
  @inline(__always)
  func channelStage(_ v: Float) -> Float {
    let v = Self.clamp01(v)
    if isIdentity { return v }
    if hasLinearStage { return Self.lookup(decodeTable, v) }
    return hasToneTable ? Self.lookup(toneTable, v) : v
  }

  /// The rest of ``apply(_:_:_:)`` for values that went through ``channelStage(_:)``:
  /// `apply(r, g, b) == applySeparated(channelStage(r), channelStage(g), channelStage(b))`,
  /// bit for bit.
  @inline(__always)
  func applySeparated(_ r: Float, _ g: Float, _ b: Float) -> (Float, Float, Float) {
    var r = r
    var g = g
    var b = b
    if isIdentity { return (r, g, b) }

    if hasLinearStage {
      let (lr, lg, lb) = (r, g, b)
      let m = matrix
      let o = offset
      let s = toneScale
      r = Self.lookup(
        toneTable, (max(0, m[0] * lr + m[1] * lg + m[2] * lb - o[0]) * s).squareRoot())
      g = Self.lookup(
        toneTable, (max(0, m[3] * lr + m[4] * lg + m[5] * lb - o[1]) * s).squareRoot())
      b = Self.lookup(
        toneTable, (max(0, m[6] * lr + m[7] * lg + m[8] * lb - o[2]) * s).squareRoot())
    }

    if saturationFactor != 1 {
      (r, g, b) = scaleChroma(r, g, b, by: saturationFactor)
    }
    if vibrance != 0 {
      (r, g, b) = applyVibrance(r, g, b)
    }
    if hasMixer {
      (r, g, b) = applyMixer(r, g, b)
    }
    if shadowWarmth != 0 {
      let y = lumaR * r + lumaG * g + lumaB * b
      if y < 0.5 {
        let k = 1 - 2 * y
        let s = 0.12 * shadowWarmth * 13.5 * y * k * k
        r = min(max(r + s, 0), 1)
        b = min(max(b - s, 0), 1)
      }
    }
    if lookStrength > 0 {
      var (lr, lg, lb) = (r, g, b)
      if lookMono {
        let y = min(max(lumaR * r + lumaG * g + lumaB * b, 0), 1)
        (lr, lg, lb) = (y, y, y)
      } else if lookSaturation != 1 {
        (lr, lg, lb) = scaleChroma(r, g, b, by: lookSaturation)
      }
      lr = Self.lookup(lookRed, lr)
      lg = Self.lookup(lookGreen, lg)
      lb = Self.lookup(lookBlue, lb)
      r += lookStrength * (lr - r)
      g += lookStrength * (lg - g)
      b += lookStrength * (lb - b)
    }
    return (min(max(r, 0), 1), min(max(g, 0), 1), min(max(b, 0), 1))
  }

  // MARK: Colour stages

  /// `Y' + f·(c − Y')`, with factors above 1 softly limited to the gamut (see the type's
  /// discussion).
  func scaleChroma(_ r: Float, _ g: Float, _ b: Float, by f: Float) -> (Float, Float, Float) {
    let y = lumaR * r + lumaG * g + lumaB * b
    var f = f
    if f > 1 {
      // The largest factor that keeps every channel inside 0...1.
      @inline(__always) func headroom(_ c: Float) -> Float {
        let d = c - y
        return d > 1e-6 ? (1 - y) / d : d < -1e-6 ? y / -d : .infinity
      }
      let limit = min(headroom(r), headroom(g), headroom(b))
      guard limit.isFinite else { return (r, g, b) }
      let e = f - 1
      let h = max(limit - 1, 0)
      f = 1 + (h > 0 ? e * h / (e + h) : 0)
    }
    return (
      min(max(y + f * (r - y), 0), 1), min(max(y + f * (g - y), 0), 1),
      min(max(y + f * (b - y), 0), 1)
    )
  }

  func applyVibrance(_ r: Float, _ g: Float, _ b: Float) -> (Float, Float, Float) {
    let mx = max(r, g, b)
    let mn = min(r, g, b)
    let c = mx - mn
    guard c > 1e-6 else { return (r, g, b) }
    let s = c / mx
    let h = Self.hue(r, g, b, max: mx, chroma: c)
    // Skin: hue plateau 15°…45° with smoothstep edges to 5° and 55°, saturation 0.1…0.7.
    var skin: Float = 0
    if h > 5 && h < 55 {
      let hueWeight = Self.smoothstep(5, 15, h) * (1 - Self.smoothstep(45, 55, h))
      let satWeight = Self.smoothstep(0.05, 0.15, s) * (1 - Self.smoothstep(0.6, 0.8, s))
      skin = hueWeight * satWeight
    }
    let f = 1 + vibrance * (1 - s) * (1 - 0.9 * skin)
    return scaleChroma(r, g, b, by: f)
  }

  /// The index (in ``ColorBand/allCases`` order) of the band whose centre is at or below `h`
  /// (degrees, `0..<360`), with that centre and the next one (red again at 360). Hard-coded
  /// from ``ColorBand/centerHue`` so the per-pixel path reads no global; a test checks that
  /// the two agree.
  @inline(__always)
  static func bandIndex(_ h: Float) -> (Int, lower: Float, upper: Float) {
    if h < 120 {
      if h < 30 { return (0, 0, 30) }
      return h < 60 ? (1, 30, 60) : (2, 60, 120)
    }
    if h < 225 { return h < 180 ? (3, 120, 180) : (4, 180, 225) }
    if h < 270 { return (5, 225, 270) }
    return h < 315 ? (6, 270, 315) : (7, 315, 360)
  }

  func applyMixer(_ r: Float, _ g: Float, _ b: Float) -> (Float, Float, Float) {
    let mx = max(r, g, b)
    let mn = min(r, g, b)
    let c = mx - mn
    guard c > 1e-6 else { return (r, g, b) }
    let weight = Self.smoothstep(0, 0.15, c)
    let h = Self.hue(r, g, b, max: mx, chroma: c)
    let (i, lower, upper) = Self.bandIndex(h)
    let j = (i + 1) & 7
    let t = (h - lower) / (upper - lower)
    let wi = 0.5 + 0.5 * cosf(Float.pi * t)
    let wj = 1 - wi
    let dHue = (wi * mixerHue[i] + wj * mixerHue[j]) * weight
    let dSat = (wi * mixerSaturation[i] + wj * mixerSaturation[j]) * weight
    let dLum = (wi * mixerLuminance[i] + wj * mixerLuminance[j]) * weight
    var (r2, g2, b2) = (r, g, b)
    if dHue != 0 {
      (r2, g2, b2) = Self.rgb(hue: h + dHue, chroma: c, min: mn)
    }
    if dSat != 0 {
      (r2, g2, b2) = scaleChroma(r2, g2, b2, by: 1 + dSat)
    }
    if dLum != 0 {
      var f = 1 + dLum
      let top = max(r2, g2, b2)
      if f > 1, top > 0 {
        let e = f - 1
        let h = max(1 / top - 1, 0)
        f = 1 + (h > 0 ? e * h / (e + h) : 0)
      }
      (r2, g2, b2) = (min(r2 * f, 1), min(g2 * f, 1), min(b2 * f, 1))
    }
    return (r2, g2, b2)
  }

  // MARK: Helpers

  /// HSV hue in degrees, `0..<360`, of a colour with the given maximum and chroma (> 0).
  static func hue(_ r: Float, _ g: Float, _ b: Float, max mx: Float, chroma c: Float) -> Float {
    var h: Float
    if mx == r {
      h = (g - b) / c
      if h < 0 { h += 6 }
    } else if mx == g {
      h = (b - r) / c + 2
    } else {
      h = (r - g) / c + 4
    }
    return h * 60
  }

  /// The colour with HSV hue `hue` (degrees, any value), chroma `c` and minimum `mn`.
  static func rgb(hue: Float, chroma c: Float, min mn: Float) -> (Float, Float, Float) {
    var hp = hue / 60
    hp -= 6 * (hp / 6).rounded(.down)
    let x = c * (1 - abs(hp - 2 * (hp / 2).rounded(.down) - 1))
    let (r, g, b): (Float, Float, Float)
    switch hp {
    case ..<1: (r, g, b) = (c, x, 0)
    case ..<2: (r, g, b) = (x, c, 0)
    case ..<3: (r, g, b) = (0, c, x)
    case ..<4: (r, g, b) = (0, x, c)
    case ..<5: (r, g, b) = (x, 0, c)
    default: (r, g, b) = (c, 0, x)
    }
    return (min(r + mn, 1), min(g + mn, 1), min(b + mn, 1))
  }

  /// `x` clamped to `0...1`, with NaN mapped to 0 (so table indices stay in range).
  @inline(__always)
  static func clamp01(_ x: Float) -> Float { min(1, max(0, x)) }  // max(0, NaN) is 0

  static func smoothstep(_ e0: Float, _ e1: Float, _ x: Float) -> Float {
    let t = min(max((x - e0) / (e1 - e0), 0), 1)
    return t * t * (3 - 2 * t)
  }

  /// The sRGB decode sampled at 4,096 encoded values, the same for every transform with a
  /// linear stage: built once, not once per edit (each build was 4,096 `pow` calls, which
  /// skin protection's trial transforms and every measuring render paid).
  static let uniformDecodeTable = table { Double(SRGBTransfer.decode(Float($0))) }

  /// A table of `size` samples of `f` on `0...1`.
  static func table(size: Int = 4096, _ f: (Double) -> Double) -> [Float] {
    (0..<size).map { Float(f(Double($0) / Double(size - 1))) }
  }

  /// Linear interpolation in a table sampled uniformly on `0...1`; `x` is clamped.
  @inline(__always)
  static func lookup(_ table: [Float], _ x: Float) -> Float {
    let n = table.count - 1
    let pos = clamp01(x) * Float(n)
    let i = min(ColorLUT3D.floorIndex(pos), n - 1)
    let f = pos - Float(i)
    let a = table[i]
    return a + f * (table[i + 1] - a)
  }
}

/// White-balance maths: the Planckian locus and Bradford adaptation.
///
/// Why Bradford, and not a gain per channel of the working RGB: a camera whose white balance
/// was set wrong scaled each channel of its own RGB, which is neither. Simulated in linear light
/// with the published XYZ-to-camera matrices of five Canon bodies (EOS 5D Mark II and III, 6D,
/// 7D, D60) on ten shared photos at 768 px, such a cast taken out by bringing its grey back to
/// white left a mean ΔE2000 of 0.8–0.9 with Bradford against 1.7–2.5 with per-channel gains
/// for green casts, 1.7–2.1 against 2.1–2.6 for magenta ones, and within 0.4 of each other for
/// warm and cool ones (1.5–3.7, clipping included). The evaluation harness makes its casts as
/// gains of linear sRGB, which per-channel gains undo exactly (its strong warm and cool casts:
/// 0.4 and 0.7 left, against 1.4 and 1.7 with Bradford), so this choice costs its cast
/// families about 1 ΔE2000 per corrected copy, for the casts cameras make.
enum WhiteBalance {
  /// The Bradford cone-response matrix (Lam 1985, as used in ICC v4 and CIECAM97s).
  static let bradford: [Double] = [
    0.8951, 0.2664, -0.1614,
    -0.7502, 1.7135, 0.0367,
    0.0389, -0.0685, 1.0296,
  ]

  /// CIE 1931 xy of a blackbody at `kelvin` (1667…25000 K), from the cubic approximation of
  /// Kim et al. (2002).
  static func planckianXY(kelvin t: Double) -> (x: Double, y: Double) {
    let (t1, t2, t3) = (1e3 / t, 1e6 / (t * t), 1e9 / (t * t * t))
    let x =
      t <= 4000
      ? -0.2661239 * t3 - 0.2343589 * t2 + 0.8776956 * t1 + 0.179910
      : -3.0258469 * t3 + 2.1070379 * t2 + 0.2226347 * t1 + 0.240390
    let y: Double
    if t <= 2222 {
      y = -1.1063814 * x * x * x - 1.34811020 * x * x + 2.18555832 * x - 0.20219683
    } else if t <= 4000 {
      y = -0.9549476 * x * x * x - 1.37418593 * x * x + 2.09137015 * x - 0.16748867
    } else {
      y = 3.0817580 * x * x * x - 5.87338670 * x * x + 3.75112997 * x - 0.37001483
    }
    return (x, y)
  }

  static func uv(_ xy: (x: Double, y: Double)) -> (u: Double, v: Double) {
    let d = -2 * xy.x + 12 * xy.y + 3
    return (4 * xy.x / d, 6 * xy.y / d)
  }

  static func xy(_ uv: (u: Double, v: Double)) -> (x: Double, y: Double) {
    let d = 2 * uv.u - 8 * uv.v + 4
    return (3 * uv.u / d, 2 * uv.v / d)
  }

  /// The source-white temperature for a slider value: 3500 K at −1, 6500 K at 0, 9500 K at +1,
  /// quadratic in mired (monotonic on −1…1).
  static func kelvin(temperature t: Double) -> Double {
    let (lo, mid, hi) = (1e6 / 3500, 1e6 / 6500, 1e6 / 9500)
    let a = (hi - lo) / 2
    let b = (hi + lo) / 2 - mid
    return 1e6 / (mid + a * t + b * t * t)
  }

  /// The linear-RGB matrix (row-major) that adapts the source white for `temperature` and
  /// `tint` (each −1…1) to the working space's D65 white with the Bradford transform.
  static func rgbAdaptation(temperature: Double, tint: Double, colorSpace: ColorSpace) -> [Double] {
    let toXYZ = colorSpace.toXYZ
    let fromXYZ = invert3x3(toXYZ)
    let white = [
      toXYZ[0] + toXYZ[1] + toXYZ[2], toXYZ[3] + toXYZ[4] + toXYZ[5],
      toXYZ[6] + toXYZ[7] + toXYZ[8],
    ]
    let whiteUV = uv(
      (white[0] / (white[0] + white[1] + white[2]), white[1] / (white[0] + white[1] + white[2])))
    let k = kelvin(temperature: temperature)
    let p = uv(planckianXY(kelvin: k))
    let p0 = uv(planckianXY(kelvin: 6500))
    // Locus normal at k, pointing to green (larger v).
    let ahead = uv(planckianXY(kelvin: 1e6 / (1e6 / k - 1)))
    let behind = uv(planckianXY(kelvin: 1e6 / (1e6 / k + 1)))
    var (tu, tv) = (ahead.u - behind.u, ahead.v - behind.v)
    let len = (tu * tu + tv * tv).squareRoot()
    (tu, tv) = (tu / len, tv / len)
    var (nu, nv) = (-tv, tu)
    if nv < 0 { (nu, nv) = (-nu, -nv) }
    let shift = 0.025 * tint
    let src = xy((whiteUV.u + p.u - p0.u + shift * nu, whiteUV.v + p.v - p0.v + shift * nv))
    let srcXYZ = [src.x / src.y * white[1], white[1], (1 - src.x - src.y) / src.y * white[1]]
    let coneSrc = multiply(bradford, srcXYZ)
    let coneDst = multiply(bradford, white)
    var scale = [Double](repeating: 0, count: 9)
    for i in 0..<3 { scale[i * 4] = coneDst[i] / coneSrc[i] }
    let adapt = multiply3x3(invert3x3(bradford), multiply3x3(scale, bradford))
    return multiply3x3(fromXYZ, multiply3x3(adapt, toXYZ))
  }

  static func multiply(_ m: [Double], _ v: [Double]) -> [Double] {
    (0..<3).map { r in m[r * 3] * v[0] + m[r * 3 + 1] * v[1] + m[r * 3 + 2] * v[2] }
  }

  static func multiply3x3(_ a: [Double], _ b: [Double]) -> [Double] {
    var out = [Double](repeating: 0, count: 9)
    for r in 0..<3 {
      for c in 0..<3 {
        out[r * 3 + c] = (0..<3).reduce(0) { $0 + a[r * 3 + $1] * b[$1 * 3 + c] }
      }
    }
    return out
  }

  static func invert3x3(_ m: [Double]) -> [Double] {
    let (a, b, c, d, e, f, g, h, i) = (m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8])
    let co0 = e * i - f * h
    let co1 = -(d * i - f * g)
    let co2 = d * h - e * g
    let det = a * co0 + b * co1 + c * co2
    return [
      co0 / det, -(b * i - c * h) / det, (b * f - c * e) / det,
      co1 / det, (a * i - c * g) / det, -(a * f - c * d) / det,
      co2 / det, -(a * h - b * g) / det, (a * e - b * d) / det,
    ]
  }
}

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#elseif canImport(Musl)
  import Musl
#endif
