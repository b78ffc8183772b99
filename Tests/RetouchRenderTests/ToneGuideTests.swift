// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchTestSupport
import Testing

@testable import RetouchRender

@Suite struct ToneGuideTests {
  /// A smooth colourful test image with an edge, seeded noise on top.
  static func scene(_ w: Int, _ h: Int, format: PixelFormat, seed: UInt64) -> Image {
    var rng = SeededRandom(seed: seed)
    let noise = (0..<(w * h)).map { _ in SpatialTest.gaussian(&rng) * 0.02 }
    return SpatialTest.image(w, h, format: format) { x, y in
      let base = x < w / 3 ? 0.1 : 0.7
      let v = base + 0.2 * sin(Double(y) / 7) + noise[y * w + x]
      return (v, v * 0.8 + 0.1, 1 - v)
    }
  }

  @Test(arguments: [(PixelFormat.rgb8, 3), (.rgba16, 4), (.rgb8, 1)])
  func downscaleMatchesReference(format: PixelFormat, factor: Int) {
    let image = Self.scene(61, 47, format: format, seed: 11)
    let reference = ToneGuide.downscaledLog2LuminanceReference(image, factor: factor)
    for threads in [1, 2] {
      let fast = ToneGuide.downscaledLog2Luminance(image, factor: factor, threads: threads)
      let worst = zip(fast, reference).map { abs($0 - $1) }.max() ?? .infinity
      // Float sums and the fast log2 (error < 2e-5) against Double: 1e-3 stops is invisible.
      #expect(fast.count == reference.count)
      #expect(worst < 1e-3, "threads \(threads): worst \(worst) stops")
    }
  }

  @Test func layersMatchGuidedFilterReference() {
    let image = Self.scene(90, 70, format: .rgb8, seed: 12)
    let guide = ToneGuide(image: image, maxLongEdge: 45)
    #expect(guide.factor == 2 && guide.width == 45 && guide.height == 35)
    for layer in [ToneGuide.Layer.tone, .clarity] {
      let fast = guide.values(layer)
      let reference = guide.layerReference(layer)
      let worst = zip(fast, reference).map { abs($0 - $1) }.max() ?? .infinity
      // Running Float box sums against Double windows: 2e-3 stops.
      #expect(worst < 2e-3, "\(layer): worst \(worst) stops")
      // The filter must actually smooth: the base differs from the luminance somewhere.
      let change = zip(fast, guide.values(.luminance)).map { abs($0 - $1) }.max() ?? 0
      #expect(change > 0.05, "\(layer) barely differs from its input (\(change))")
    }
  }

  @Test func samplerMatchesReferenceAtAnyScale() {
    let image = Self.scene(80, 60, format: .rgb8, seed: 13)
    let guide = ToneGuide(image: image, maxLongEdge: 20)
    let cases: [(Int, Int, NormalizedRect)] = [
      (80, 60, .full), (20, 15, .full),
      (33, 17, NormalizedRect(x: 0.25, y: 0.1, width: 0.5, height: 0.6)),
      // Fewer output columns than guide columns: some guide columns are no pixel's left tap.
      (7, 5, .full), (1, 1, .full),
      (6, 4, NormalizedRect(x: 0.6, y: 0.5, width: 0.4, height: 0.5)),
    ]
    for (w, h, region) in cases {
      let sampler = ToneGuide.Sampler(guide: guide, outputWidth: w, outputHeight: h, region: region)
      let row = UnsafeMutablePointer<Float>.allocate(capacity: w)
      defer { row.deallocate() }
      var worst: Float = 0
      for y in 0..<h {
        sampler.fillRow(y: y, layer: .clarity, into: row)
        for x in 0..<w {
          worst = max(worst, abs(row[x] - sampler.valueReference(x: x, y: y, layer: .clarity)))
        }
      }
      #expect(worst < 1e-4, "\(w)×\(h) \(region): worst \(worst)")
    }
  }

  /// Two fields sampled in one pass give exactly what two separate passes give.
  @Test func twoFieldsAtOnceEqualOneAtATime() {
    let image = Self.scene(80, 60, format: .rgb8, seed: 14)
    let guide = ToneGuide(image: image, maxLongEdge: 20)
    let (tone, clarity) = (guide.values(.tone), guide.values(.clarity))
    for (w, h) in [(80, 60), (7, 5), (33, 17), (1, 1)] {
      let sampler = ToneGuide.Sampler(guide: guide, outputWidth: w, outputHeight: h)
      let rows = UnsafeMutablePointer<Float>.allocate(capacity: 4 * w)
      defer { rows.deallocate() }
      for y in 0..<h {
        sampler.fillRow(y: y, values: tone, into: rows)
        sampler.fillRow(y: y, values: clarity, into: rows + w)
        sampler.fillRows(y: y, tone, into: rows + 2 * w, clarity, into: rows + 3 * w)
        for x in 0..<w {
          #expect(
            rows[x] == rows[2 * w + x] && rows[w + x] == rows[3 * w + x], "\(w)×\(h) (\(x), \(y))")
        }
      }
    }
    #expect(tone != clarity)
  }

  @Test func guideDoesNotDependOnTheRenderScale() {
    // The guide of a half-size copy, sampled onto the same output grid, matches the full one.
    let full = Self.scene(256, 192, format: .rgb8, seed: 14)
    let half = SpatialTest.shrink(full, by: 2)
    let a = ToneGuide.Sampler(
      guide: ToneGuide(image: full, maxLongEdge: 64), outputWidth: 64, outputHeight: 48)
    let b = ToneGuide.Sampler(
      guide: ToneGuide(image: half, maxLongEdge: 64), outputWidth: 64, outputHeight: 48)
    let ra = UnsafeMutablePointer<Float>.allocate(capacity: 64)
    let rb = UnsafeMutablePointer<Float>.allocate(capacity: 64)
    defer {
      ra.deallocate()
      rb.deallocate()
    }
    var worst: Float = 0
    var total: Float = 0
    for y in 0..<48 {
      a.fillRow(y: y, layer: .tone, into: ra)
      b.fillRow(y: y, layer: .tone, into: rb)
      for x in 0..<64 {
        worst = max(worst, abs(ra[x] - rb[x]))
        total += abs(ra[x] - rb[x])
      }
    }
    // The test's shrink averages encoded values, not linear light, which darkens pixels that
    // straddle the 0.1 → 0.7 edge by up to ~0.8 stop: 0.35 stop worst there, 0.03 on average.
    #expect(worst < 0.35, "worst \(worst) stops")
    #expect(total / Float(64 * 48) < 0.03, "mean \(total / Float(64 * 48)) stops")
  }

  @Test func fastLogAndExpAreAccurate() {
    var worstLog: Float = 0
    var worstExp: Float = 0
    var x: Float = 1e-6
    while x < 1e3 {
      worstLog = max(worstLog, abs(SpatialMath.log2(x) - Foundation.log2(x)))
      x *= 1.013
    }
    var e: Float = -20
    while e < 20 {
      worstExp = max(worstExp, abs(SpatialMath.exp2(e) / Foundation.exp2(e) - 1))
      e += 0.0137
    }
    #expect(worstLog < 2e-5)
    #expect(worstExp < 1e-6)
    #expect(SpatialMath.exp2(0) == 1)
  }
}
