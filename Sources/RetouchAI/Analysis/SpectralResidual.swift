// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Visual saliency by the spectral residual (Hou & Zhang, "Saliency Detection: A Spectral
/// Residual Approach", CVPR 2007).
///
/// The photo's grey levels, squeezed to 64 × 64 with their mean removed, are Fourier
/// transformed; the log amplitude spectrum minus its 3 × 3 local mean (the "residual": what the
/// average natural-image spectrum does not explain) is recombined with the original phase and
/// transformed back; the squared magnitude, smoothed with a Gaussian (σ = 2.5 cells), is the
/// saliency map. Cost: 256 64-point FFTs and a few passes over 4096 cells; 2.3 % of the
/// analysis's CPU samples on a 512-px copy (perf, 200 analyses, startup left out; 2.5 % before
/// the FFT plan and the blur's taps-outer loop).
package enum SpectralResidual {
  package static let size = 64

  /// The saliency map (row-major `size × size`, non-negative) of a grey plane, or nil when the
  /// plane is smaller than `size` on a side.
  package static func saliency(of plane: GreyPlane) -> [Float]? {
    let n = size
    guard plane.width >= n, plane.height >= n else { return nil }
    let small = plane.areaResized(width: n, height: n)
    // Zero mean: otherwise the flattened spectrum gives the DC term as much weight as any
    // structure, and the squared map becomes a near-constant offset with small ripples.
    let mean = small.values.reduce(0, +) / Float(n * n)
    var re = small.values.map { Double($0 - mean) }
    var im = [Double](repeating: 0, count: n * n)
    fft2D(&re, &im, inverse: false)
    var logAmp = [Double](repeating: 0, count: n * n)
    for i in 0..<(n * n) {
      logAmp[i] = log((re[i] * re[i] + im[i] * im[i]).squareRoot() + 1e-9)
    }
    for y in 0..<n {
      for x in 0..<n {
        var mean = 0.0
        for dy in -1...1 {
          for dx in -1...1 { mean += logAmp[((y + dy + n) % n) * n + (x + dx + n) % n] }
        }
        let i = y * n + x
        let amp = (re[i] * re[i] + im[i] * im[i]).squareRoot()
        // exp(residual) with the original phase: F / |F| × exp(log|F| − mean).
        let scale = amp > 1e-12 ? exp(logAmp[i] - mean / 9) / amp : 0
        re[i] *= scale
        im[i] *= scale
      }
    }
    fft2D(&re, &im, inverse: true)
    var map = [Float](repeating: 0, count: n * n)
    for i in 0..<(n * n) { map[i] = Float(re[i] * re[i] + im[i] * im[i]) }
    return gaussianBlurred(map, width: n, height: n, sigma: 2.5)
  }

  /// In-place 2-D FFT of a `size × size` complex array (rows, then columns); the inverse is
  /// scaled by 1/size².
  static func fft2D(_ re: inout [Double], _ im: inout [Double], inverse: Bool) {
    let n = size
    let plan = Plan(length: n, inverse: inverse)
    var lineRe = [Double](repeating: 0, count: n), lineIm = lineRe
    // Rows (line start y·n, step 1), then columns (line start x, step n).
    for (lineStride, step) in [(n, 1), (1, n)] {
      for line in 0..<n {
        for k in 0..<n {
          lineRe[k] = re[line * lineStride + k * step]
          lineIm[k] = im[line * lineStride + k * step]
        }
        fft(&lineRe, &lineIm, plan: plan)
        for k in 0..<n {
          re[line * lineStride + k * step] = lineRe[k]
          im[line * lineStride + k * step] = lineIm[k]
        }
      }
    }
    if inverse {
      let s = 1 / Double(n * n)
      for i in 0..<(n * n) {
        re[i] *= s
        im[i] *= s
      }
    }
  }

  /// What every line's FFT of one length and direction shares: the bit-reversal swaps and each
  /// stage's unit step `(cos, sin)` of its angle (worked out once per 2-D transform, not once per
  /// line).
  struct Plan {
    let length: Int
    let swaps: [(Int, Int)]
    let steps: [(re: Double, im: Double)]

    init(length n: Int, inverse: Bool) {
      precondition(n > 0 && n & (n - 1) == 0)
      length = n
      var swaps: [(Int, Int)] = []
      var j = 0
      for i in 1..<n {
        var bit = n >> 1
        while j & bit != 0 {
          j ^= bit
          bit >>= 1
        }
        j |= bit
        if i < j { swaps.append((i, j)) }
      }
      self.swaps = swaps
      var steps: [(re: Double, im: Double)] = []
      var length = 2
      while length <= n {
        let angle = (inverse ? 2 : -2) * Double.pi / Double(length)
        steps.append((cos(angle), sin(angle)))
        length <<= 1
      }
      self.steps = steps
    }
  }

  /// Iterative radix-2 Cooley–Tukey FFT (unscaled) of one line of `plan.length` values.
  static func fft(_ re: inout [Double], _ im: inout [Double], plan: Plan) {
    let n = plan.length
    precondition(re.count == n && im.count == n)
    for (i, j) in plan.swaps {
      re.swapAt(i, j)
      im.swapAt(i, j)
    }
    var length = 2
    for (wRe, wIm) in plan.steps {
      var start = 0
      while start < n {
        var cRe = 1.0, cIm = 0.0
        for k in 0..<(length / 2) {
          let a = start + k, b = a + length / 2
          let tRe = re[b] * cRe - im[b] * cIm, tIm = re[b] * cIm + im[b] * cRe
          re[b] = re[a] - tRe
          im[b] = im[a] - tIm
          re[a] += tRe
          im[a] += tIm
          let nRe = cRe * wRe - cIm * wIm
          cIm = cRe * wIm + cIm * wRe
          cRe = nRe
        }
        start += length
      }
      length <<= 1
    }
  }

  /// Separable Gaussian blur with clamped edges (radius 3σ). Every output adds its taps in
  /// order from 0, as a loop over the taps per output would; the taps are the outer loop here,
  /// so the adds of neighbouring outputs do not wait on each other.
  static func gaussianBlurred(_ v: [Float], width: Int, height: Int, sigma: Float) -> [Float] {
    let r = Int((3 * sigma).rounded(.up))
    var k = (-r...r).map { d in expf(-Float(d * d) / (2 * sigma * sigma)) }
    let sum = k.reduce(0, +)
    k = k.map { $0 / sum }
    var tmp = [Float](repeating: 0, count: v.count), out = tmp
    k.withUnsafeBufferPointer { k in
      v.withUnsafeBufferPointer { v in
        tmp.withUnsafeMutableBufferPointer { tmp in
          for y in 0..<height {
            let row = y * width
            for d in -r...r {
              let w = k[d + r]
              for x in 0..<width { tmp[row + x] += w * v[row + min(width - 1, max(0, x + d))] }
            }
          }
        }
      }
      tmp.withUnsafeBufferPointer { tmp in
        out.withUnsafeMutableBufferPointer { out in
          for y in 0..<height {
            let row = y * width
            for d in -r...r {
              let w = k[d + r], source = min(height - 1, max(0, y + d)) * width
              for x in 0..<width { out[row + x] += w * tmp[source + x] }
            }
          }
        }
      }
    }
    return out
  }
}
