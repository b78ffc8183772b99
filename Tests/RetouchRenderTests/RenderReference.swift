// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchIO
import RetouchTestSupport

@testable import RetouchRender

/// A plain scalar renderer of an ``EditConfig``, pixel by pixel in Float/Double, built only from
/// the kernels' scalar references: the yardstick for ``RenderPlan``'s fused pass.
///
/// Stages, as ``RenderPlan`` documents them:
/// 1. geometry with ``Image/warped(by:)`` (its own tests pin it), then
///    ``NoiseReduction/appliedReference(to:)`` and ``Sharpening/appliedReference(to:)``;
/// 2. per pixel, on exact sRGB-decoded linear light (no tables, no rounding between stages):
///    - local gain `k` = ``LocalToneCurve/gainReference(base:shadows:highlights:)`` of each guide
///      pixel's tone base plus the exposure in stops, bilinearly interpolated
///      (``ToneGuide/Sampler/valueReference(x:y:values:)``), times
///      ``Clarity/gainReference(log2Luminance:base:)`` of the pixel's log2 luminance (floor
///      2⁻¹²) over the clarity base; linear R, G, B × k, encoded and clamped to 0…1;
///    - ``ColorToneTransform/apply(_:_:_:)`` (the transform itself, not the LUT);
///    - the vignette's ``VignetteMask/multiplierReference(x:y:)`` on linear light;
///    - grain: ``GrainField/apply(_:noise:)`` with ``GrainField/noiseReference(x:y:)``;
///    - one rounding to the output's code values at the end.
///
/// The tone guide is the production ``ToneGuide`` (its build has its own reference tests); only
/// its sampling is taken from the reference. Slow (every pixel through `Image.pixel`, arrays
/// and `Double` transfer curves): for images of a few hundred pixels across.
enum RenderReference {
  static func render(
    _ image: Image, with config: EditConfig, renderScale: Double = 1,
    options: RenderOptions = RenderOptions(), includesGeometry: Bool = true
  ) -> Image {
    var img = image
    if includesGeometry {
      let g = GeometryTransform(config: config, sourceSize: image.size)
      if !g.isIdentity(for: image.size) { img = img.warped(by: g) }
    }
    let guideSource = img  // the guide describes the photo before noise reduction and sharpening
    let nr = config.value(of: .noiseReduction)
    if nr > 0 {
      img = NoiseReduction(amount: min(nr, 1), renderScale: renderScale).appliedReference(to: img)
    }
    let sharp = config.value(of: .sharpness)
    if sharp > 0 {
      img = Sharpening(amount: min(sharp, 1), renderScale: renderScale).appliedReference(to: img)
    }
    return fused(
      img, config: config, renderScale: renderScale, options: options, guideSource: guideSource)
  }

  /// The fused per-pixel pass alone (stage 2 above).
  static func fused(
    _ image: Image, config: EditConfig, renderScale: Double, options: RenderOptions,
    guideSource: Image? = nil
  ) -> Image {
    let width = image.width
    let height = image.height
    let tone = LocalToneCurve(
      shadows: config.value(of: .shadows), highlights: config.value(of: .highlights))
    let clarity = Clarity(amount: config.value(of: .clarity))
    let exposure = Float(config.value(of: .exposure))
    var sampler: ToneGuide.Sampler?
    var toneGains: [Float] = []
    if !tone.isNeutral || !clarity.isNeutral {
      let guide = ToneGuide(image: guideSource ?? image, threads: 1)
      toneGains = guide.values(.tone).map { tone.gainReference(base: $0 + exposure) }
      sampler = ToneGuide.Sampler(guide: guide, outputWidth: width, outputHeight: height)
    }
    let transform = ColorToneTransform(config, colorSpace: image.colorSpace)
    let vignetteAmount = options.includesVignette ? max(-1, min(1, config.value(of: .vignette))) : 0
    let vignette = VignetteMask(amount: vignetteAmount, width: width, height: height)
    let grain = GrainField(
      amount: max(0, min(1, config.value(of: .grain))), renderScale: renderScale,
      outputWidth: width, seed: options.grainSeed)
    let luma = image.colorSpace.lumaWeights
    let maxValue = Double(image.format.maxValue)
    let n = image.format.channelCount
    var out = image
    for y in 0..<height {
      for x in 0..<width {
        let p = image.pixel(x: x, y: y)
        var e = (0..<3).map { Double(p[$0]) / maxValue }
        if let sampler {
          var lin = e.map(SRGBTables.decodeExact)
          var k: Double = 1
          if !tone.isNeutral {
            // The gain of each guide pixel, interpolated (the renderer's definition).
            k = Double(sampler.valueReference(x: x, y: y, values: toneGains))
          }
          if !clarity.isNeutral {
            let lum = Double(luma.r) * lin[0] + Double(luma.g) * lin[1] + Double(luma.b) * lin[2]
            let l = Float(Foundation.log2(max(lum, 1.0 / 4096)))
            let base = sampler.valueReference(x: x, y: y, layer: .clarity)
            k *= Double(clarity.gainReference(log2Luminance: l, base: base))
          }
          lin = lin.map { $0 * k }
          e = lin.map { min(max(SRGBTables.encodeExact($0), 0), 1) }
        }
        if !transform.isIdentity {
          let c = transform.apply(Float(e[0]), Float(e[1]), Float(e[2]))
          e = [Double(c.0), Double(c.1), Double(c.2)]
        }
        if !vignette.isNeutral {
          let m = Double(vignette.multiplierReference(x: x, y: y))
          e = e.map { min(max(SRGBTables.encodeExact(SRGBTables.decodeExact($0) * m), 0), 1) }
        }
        if !grain.isNeutral {
          let noise = grain.noiseReference(x: x, y: y)
          e = e.map { Double(GrainField.apply(Float($0), noise: noise)) }
        }
        var q = e.map { Int((min(max($0, 0), 1) * maxValue).rounded()) }
        if n == 4 { q.append(p[3]) }
        out.setPixel(x: x, y: y, q)
      }
    }
    return out
  }
}

/// Real photos from the shared set, decoded small for render tests.
enum TestPhoto {
  /// Photo `id` decoded with shrink-on-load to at least `minimumLongEdge`, then resized
  /// (Lanczos-3, encoded values) to exactly `longEdge` pixels on its long edge when given.
  static func load(_ id: String, minimumLongEdge: Int, longEdge: Int? = nil) throws -> Image {
    var options = DecodeOptions()
    options.minimumLongEdge = minimumLongEdge
    let decoded = try ImageDecoder(options: options).decode(SharedPhotos.url(id))
    guard let longEdge else { return decoded.image }
    return decoded.image.resized(toFitLongEdge: longEdge)
  }
}
