// SPDX-License-Identifier: Apache-2.0

import RetouchCore
import Testing

@testable @_spi(Benchmarks) import RetouchAI

/// The analysis's pixel loops against plain per-pixel references written the obvious way: the
/// loops are tuned for speed (wrapping index arithmetic, per-row scratch terms, edge columns
/// apart), and must still give the same values, bit for bit, at every size including the
/// smallest.
@Suite struct AnalysisKernelTests {
  /// A reproducible plane of grey values in 0...255 with some fine detail.
  func plane(width: Int, height: Int, seed: UInt64) -> GreyPlane {
    var state = seed &* 6_364_136_223_846_793_005 &+ 1
    let values = (0..<(width * height)).map { _ -> Float in
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Float(state >> 40 & 0xFFFF) / 257
    }
    return GreyPlane(width: width, height: height, values: values)
  }

  static let sizes = [(1, 1), (2, 3), (3, 3), (5, 4), (9, 7), (37, 23), (64, 96)]

  @Test func boxFilterMatchesPerPixelMeans() {
    for (w, h) in Self.sizes {
      let p = plane(width: w, height: h, seed: UInt64(w * 1000 + h)).values
      let fast = GreyPixels.boxFilter3(p, width: w, height: h)
      var expected = [Float](repeating: 0, count: w * h)
      for y in 0..<h {
        for x in 0..<w {
          let (u, d) = (max(0, y - 1), min(h - 1, y + 1))
          let (l, r) = (max(0, x - 1), min(w - 1, x + 1))
          var s = p[u * w + l] + p[u * w + x]
          s += p[u * w + r]
          s += p[y * w + l]
          s += p[y * w + x]
          s += p[y * w + r]
          s += p[d * w + l]
          s += p[d * w + x]
          s += p[d * w + r]
          expected[y * w + x] = s / 9
        }
      }
      #expect(fast == expected, "\(w)×\(h)")
    }
  }

  @Test func focusTilesMatchPerPixelSums() {
    for (w, h) in Self.sizes + [(120, 80), (80, 120), (5, 200)] {
      let p = plane(width: w, height: h, seed: UInt64(w * 7 + h))
      let map = FocusMap(plane: p)
      let (cols, rows) = (map.columns, map.rows)
      var lap = [Double](repeating: 0, count: cols * rows)
      var grad = lap
      var count = [Int](repeating: 0, count: cols * rows)
      if w >= 3 && h >= 3 {
        for y in 1..<(h - 1) {
          let ty = min(rows - 1, y * rows / h)
          var rowLap = [Double](repeating: 0, count: cols), rowGrad = rowLap
          for x in 1..<(w - 1) {
            let v = p.values, i = y * w + x, c = v[i]
            let l = 4 * c - v[i - 1] - v[i + 1] - v[i - w] - v[i + w]
            let gx = v[i + 1] - c, gy = v[i + w] - c
            let tx = min(cols - 1, x * cols / w)
            rowLap[tx] += Double(l * l)
            rowGrad[tx] += Double(gx * gx + gy * gy)
            count[ty * cols + tx] += 1
          }
          for tx in 0..<cols {
            lap[ty * cols + tx] += rowLap[tx]
            grad[ty * cols + tx] += rowGrad[tx]
          }
        }
      }
      for i in 0..<(cols * rows) where count[i] > 0 {
        lap[i] /= Double(count[i])
        grad[i] /= Double(count[i])
      }
      #expect(map.laplacianEnergy == lap, "\(w)×\(h)")
      #expect(map.gradientEnergy == grad, "\(w)×\(h)")
    }
  }

  /// The detector's 8-bit copy: rounded half up, clamped to 0...255 (NaN reads as white).
  @Test func greyBytesRoundAndClamp() {
    let values: [Float] = [
      -3, -0.5, 0, 0.25, 0.49, 0.5, 0.75, 1.5, 99.5, 127.49999, 254.4, 254.5, 255, 255.4, 300,
      .infinity, -.infinity, .nan,
    ]
    let expected: [UInt8] = [
      0, 0, 0, 0, 0, 1, 1, 2, 100, 127, 254, 255, 255, 255, 255, 255, 0, 255,
    ]
    let bytes = GreyPlane(width: values.count, height: 1, values: values).bytes()
    #expect(bytes == expected)
  }
}

/// The statistics pass splits its bands into one group per thread, each group counting into
/// its own histograms while every band keeps float sums of its own: what it measures must not
/// depend on how many threads ran it.
@Suite struct StatisticsPassThreadTests {
  @Test func samePassOnAnyThreadCount() throws {
    let photo = try AnalysisTestPhotos.load("s01").image
    let one = StatisticsPassBenchmark.digest(of: PixelStatistics(photo, threads: 1))
    // 8 bands in 2, 3, 5 and 8 groups (uneven ones included), and more threads than bands.
    for threads in [2, 3, 5, 8, 12] {
      let many = StatisticsPassBenchmark.digest(of: PixelStatistics(photo, threads: threads))
      #expect(many == one, "\(threads) threads")
    }
    // Not a digest that ignores its input: a changed pixel changes it.
    var other = photo
    other.withUnsafeMutableBytes { $0[0] = $0[0] &+ 40 }
    #expect(StatisticsPassBenchmark.digest(of: PixelStatistics(other, threads: 1)) != one)
  }
}
