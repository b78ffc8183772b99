// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchRender

/// The change that gives one photo the tones and colour grade of a reference: a tone curve on
/// L*, colour shifts of near-neutral shadows and highlights (split toning), and a chroma factor.
///
/// Made by ``StyleMatcher/transform(for:matching:)``. Works in CIELAB (D65) on display-encoded
/// pixels of the image's working space; apply it with ``colorStage`` (folded into the render's
/// colour table, before an `EditConfig`'s own sliders) or `Image.matched(to:with:renderScale:)`.
///
/// Per pixel, with its L*, a*, b*, chroma `C` and hue `h`:
/// - `L' = curve(L)` (linear interpolation in ``curve``);
/// - chroma scales by `1 + (saturation − 1)·(1 − 0.8·skin)`;
/// - `(a, b)` moves by the shadow shift times `1 − smoothstep(20, 40, L)` plus the highlight
///   shift times `smoothstep(65, 85, L)`, times `1 − 0.7·smoothstep(10, 40, C)` (neutrals move
///   most) and `1 − skin`. Midtones, where faces mostly sit, keep their colour: correcting a
///   midtone cast is white balance, the suggestions' job, and a near-grey face (pale or painted
///   skin, chroma ≈ 2) would change hue under any midtone shift;
/// - `skin` is 1 for hues 20°…80° (smoothstep edges out to 5° and 95°) at chroma above 12
///   (fading in from 6): skin keeps its hue, whatever the reference's grade.
public struct StyleTransform: Sendable, Hashable, Codable {
  /// Output L* for input L* 0, 1, …, 100 (101 values, non-decreasing).
  public var curve: [Double]
  /// The (Δa*, Δb*) shift of near-neutral pixels in shadows and in highlights.
  public var colorShifts: [[Double]]
  /// Chroma factor (1 = unchanged), 0.8…1.25.
  public var saturation: Double

  /// The transform that changes nothing.
  public static let identity = StyleTransform(
    curve: (0...100).map(Double.init), colorShifts: [[0, 0], [0, 0]], saturation: 1)

  public init(curve: [Double], colorShifts: [[Double]], saturation: Double) {
    precondition(curve.count == 101, "the curve needs 101 values")
    precondition(colorShifts.count == 2 && colorShifts.allSatisfy { $0.count == 2 })
    self.curve = curve
    self.colorShifts = colorShifts
    self.saturation = saturation
  }

  /// The largest change the curve makes to any L*, in L* units.
  public var maxCurveDeviation: Double {
    curve.enumerated().map { abs($0.element - Double($0.offset)) }.max() ?? 0
  }

  /// The largest colour shift, as a length in the a*b* plane.
  public var maxColorShift: Double {
    colorShifts.map { hypot($0[0], $0[1]) }.max() ?? 0
  }

  /// False when applying the transform would barely change the photo: the curve moves no L* by
  /// 1.5 or more, no colour shift reaches 1 ΔE, and chroma changes by less than 3 %.
  public var isMeaningful: Bool {
    maxCurveDeviation >= 1.5 || maxColorShift >= 1 || abs(saturation - 1) >= 0.03
  }

  /// The transform as a render stage before the edit's own colour and tone (see
  /// `RenderOptions.colorStage`).
  public var colorStage: ColorStage {
    let parameters = curve + colorShifts.flatMap { $0 } + [saturation]
    let transform = self
    return ColorStage(identity: parameters, placement: .beforeEdit) { space in
      let kernel = Kernel(transform, colorSpace: space)
      return { kernel.apply($0) }
    }
  }

  /// The scalar reference: the per-pixel function on every pixel, without a colour table
  /// (about 1 µs per pixel; for tests). 8- or 16-bit; alpha kept.
  package func referenceRender(of image: Image) -> Image {
    let kernel = Kernel(self, colorSpace: image.colorSpace)
    var out = image
    let maxValue = Float(image.format.maxValue)
    for y in 0..<image.height {
      for x in 0..<image.width {
        var p = image.pixel(x: x, y: y)
        let v = kernel.apply(SIMD3(Float(p[0]), Float(p[1]), Float(p[2])) / maxValue) * maxValue
        (p[0], p[1], p[2]) = (Int(v.x.rounded()), Int(v.y.rounded()), Int(v.z.rounded()))
        out.setPixel(x: x, y: y, p)
      }
    }
    return out
  }

  /// The per-pixel function, compiled for one working space.
  struct Kernel: Sendable {
    let lab: LabConverter
    let curve: [Float]
    let shifts: [SIMD2<Float>]
    let saturation: Float

    init(_ t: StyleTransform, colorSpace: ColorSpace) {
      lab = LabConverter(colorSpace: colorSpace)
      curve = t.curve.map(Float.init)
      shifts = t.colorShifts.map { SIMD2(Float($0[0]), Float($0[1])) }
      saturation = Float(t.saturation)
    }

    /// Display-encoded RGB in 0...1 → the same, clamped.
    func apply(_ rgb: SIMD3<Float>) -> SIMD3<Float> {
      let v = lab.lab(encoded: rgb)
      let l = v.x, a = v.y, b = v.z
      let t = min(max(l, 0), 100)
      let i = min(Int(t), 99)
      let newL = curve[i] + (t - Float(i)) * (curve[i + 1] - curve[i]) + (l - t)
      let chroma = (a * a + b * b).squareRoot()
      var hue = atan2f(b, a) * (180 / .pi)
      if hue < 0 { hue += 360 }
      let skin =
        Self.smoothstep(5, 20, hue) * (1 - Self.smoothstep(80, 95, hue))
        * Self.smoothstep(6, 12, chroma)
      let k = 1 + (saturation - 1) * (1 - 0.8 * skin)
      let shadow = 1 - Self.smoothstep(20, 40, l)
      let highlight = Self.smoothstep(65, 85, l)
      let shift = shifts[0] * shadow + shifts[1] * highlight
      let reach = (1 - 0.7 * Self.smoothstep(10, 40, chroma)) * (1 - skin)
      let out = lab.encoded(lab: SIMD3(newL, a * k + shift.x * reach, b * k + shift.y * reach))
      return out.replacing(with: 0, where: .!(out .> 0)).replacing(with: 1, where: out .> 1)
    }

    @inline(__always)
    static func smoothstep(_ e0: Float, _ e1: Float, _ x: Float) -> Float {
      let t = min(max((x - e0) / (e1 - e0), 0), 1)
      return t * t * (3 - 2 * t)
    }
  }
}

extension Image {
  /// The photo with `transform` applied before `config`'s colour and tone (and the rest of
  /// `config`: geometry, detail, vignette), in one render.
  ///
  /// The transform is folded into the colour table the renderer builds for `config`, so the
  /// pixels see one pass, as in a colour-only render; the table build costs ≈ 36 000 CIELAB
  /// round trips (a few ms on 2 cores; cached for re-renders). `renderScale` is as in
  /// `rendered(with:renderScale:options:)`.
  public consuming func matched(
    to transform: StyleTransform, with config: EditConfig = .neutral, renderScale: Double = 1,
    options: RenderOptions = RenderOptions()
  ) -> Image {
    var options = options
    options.colorStage = transform.colorStage
    return (consume self).rendered(with: config, renderScale: renderScale, options: options)
  }
}
