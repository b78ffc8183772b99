// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchTestSupport
import Testing

@testable import RetouchRender

@Suite struct NoiseReductionTests {
  /// Left half flat grey, right half vertical stripes 2 px wide (±`stripe`), with seeded
  /// luminance noise of `sigma` and chroma noise of `chroma` (encoded units).
  static func patch(
    _ w: Int, _ h: Int, sigma: Double, chroma: Double = 0, stripe: Double = 0.08, seed: UInt64,
    format: PixelFormat = .rgb8
  ) -> Image {
    var rng = SeededRandom(seed: seed)
    let n = (0..<(w * h * 3)).map { _ in SpatialTest.gaussian(&rng) }
    return SpatialTest.image(w, h, format: format) { x, y in
      let i = (y * w + x) * 3
      let base = x < w / 2 ? 0.5 : ((x / 2) % 2 == 0 ? 0.5 + stripe : 0.5 - stripe)
      let l = base + sigma * n[i]
      return (l + chroma * n[i + 1], l, l + chroma * n[i + 2])
    }
  }

  @Test func neutralLeavesTheImage() {
    let image = Self.patch(40, 30, sigma: 0.03, seed: 41)
    var out = image
    NoiseReduction(amount: 0).apply(to: &out)
    #expect(out.hasSamePixels(as: image))
  }

  @Test(arguments: [(PixelFormat.rgb8, 1.0), (.rgba16, 1.0), (.rgb8, 0.5), (.rgb8, 2.0)])
  func matchesReference(format: PixelFormat, scale: Double) {
    let image = Self.patch(61, 45, sigma: 0.02, chroma: 0.02, seed: 42, format: format)
    let nr = NoiseReduction(amount: 0.9, renderScale: scale, noiseSigma: 0.02)
    let reference = nr.appliedReference(to: image)
    for threads in [1, 2] {
      for bandHeight in [1, 8, 64] {
        var out = image
        nr.apply(to: &out, threads: threads, bandHeight: bandHeight)
        let d = SpatialTest.difference(out, reference)
        // Float vs Double sums: at most one code value, rarely.
        #expect(d.max <= 1, "threads \(threads) band \(bandHeight): \(d)")
        #expect(d.count <= image.pixelCount / 20, "threads \(threads) band \(bandHeight): \(d)")
      }
    }
    #expect(SpatialTest.difference(reference, image).max >= 5)
  }

  @Test func estimatesTheNoiseLevel() {
    for sigma in [0.01, 0.03] {
      let image = Self.patch(200, 120, sigma: sigma, seed: 43)
      let estimate = Double(NoiseReduction.estimateNoise(in: image))
      // Median-based estimate on 8-bit data; stripes are one-directional, so the mask ignores them.
      #expect(abs(estimate / sigma - 1) < 0.15, "σ \(sigma): estimated \(estimate)")
    }
    let clean = Self.patch(200, 120, sigma: 0, seed: 44)
    #expect(NoiseReduction.estimateNoise(in: clean) < 0.002)
  }

  @Test func smoothsNoiseAndKeepsFineTexture() {
    let image = Self.patch(128, 96, sigma: 0.03, chroma: 0.03, stripe: 0.1, seed: 45)
    var out = image
    NoiseReduction(amount: 1).apply(to: &out)
    // Flat half: the noise drops a lot.
    let before = SpatialTest.stats(image, x: 8..<56, y: 8..<88).std
    let after = SpatialTest.stats(out, x: 8..<56, y: 8..<88).std
    #expect(after < 0.4 * before, "flat σ \(before) → \(after)")
    // Chroma noise (R − G) drops even more.
    func chromaStd(_ im: Image) -> Double {
      var s = 0.0
      var s2 = 0.0
      for y in 8..<88 {
        for x in 8..<56 {
          let p = im.pixel(x: x, y: y)
          let d = Double(p[0] - p[1])
          s += d
          s2 += d * d
        }
      }
      let n = 48.0 * 80
      return (s2 / n - (s / n) * (s / n)).squareRoot()
    }
    #expect(chromaStd(out) < 0.3 * chromaStd(image))
    // Stripe half: the 2-px stripes keep most of their contrast (bright minus dark columns).
    func contrast(_ im: Image) -> Double {
      var hi = 0.0
      var lo = 0.0
      for y in 8..<88 {
        for x in 72..<120 {
          let v = Double(im.pixel(x: x, y: y)[1])
          if (x / 2) % 2 == 0 { hi += v } else { lo += v }
        }
      }
      return (hi - lo) / (80 * 24)
    }
    let kept = contrast(out) / contrast(image)
    #expect(kept > 0.8, "stripe contrast kept \(kept)")
  }
}
