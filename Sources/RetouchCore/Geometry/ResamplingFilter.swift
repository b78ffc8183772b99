// SPDX-License-Identifier: Apache-2.0

/// A reconstruction filter for ``Image/resized(to:filter:inLinearLight:threads:)``.
public enum ResamplingFilter: String, Hashable, Sendable, Codable, CaseIterable {
  /// Lanczos windowed sinc with 3 lobes, `sinc(x)·sinc(x/3)` for `|x| < 3`: sharp, slight ringing.
  case lanczos3
  /// The triangle (tent) filter, `1 − |x|` for `|x| < 1`: bilinear when enlarging, a smooth
  /// triangle-weighted average when shrinking.
  case bilinear
  /// The box filter, `1` for `−½ ≤ x < ½`: nearest neighbour when enlarging, an area average
  /// when shrinking (exact for integer factors).
  case box

  /// Half-width of the kernel in source pixels at scale 1.
  var support: Double {
    switch self {
    case .lanczos3: 3
    case .bilinear: 1
    case .box: 0.5
    }
  }

  /// The kernel at `x` (in output-pixel units; already divided by the shrink factor).
  func weight(_ x: Double) -> Double {
    switch self {
    case .box:
      return x >= -0.5 && x < 0.5 ? 1 : 0
    case .bilinear:
      let a = abs(x)
      return a < 1 ? 1 - a : 0
    case .lanczos3:
      let a = abs(x)
      if a < 1e-9 { return 1 }
      if a >= 3 { return 0 }
      let px = Double.pi * a
      return 3 * sin(px) * sin(px / 3) / (px * px)
    }
  }
}

/// Per-output-pixel filter weights for one axis, padded to a fixed tap count.
///
/// Output pixel `i` is `Σₖ weights[i·taps + k] × input[starts[i] + k]`. Every window lies inside
/// `0..<inCount`; windows near the edges are shifted inward with zero weights, so kernels loop a
/// fixed `taps` times. Weights of each output sum to 1 (edge pixels renormalise the clipped
/// kernel, which is the same as extending the image by reflection-free clamping of the support).
package struct ResamplingWeights {
  package let inCount: Int
  package let outCount: Int
  package let taps: Int
  package let starts: [Int]
  package let weights: [Float]
  /// The weights in pairs for the horizontal kernel: for output `i`, pair `p` is
  /// `(w₂ₚ ×4, w₂ₚ₊₁ ×4)`, so one `SIMD8` multiply covers two RGBA pixels. `(taps + 1) / 2` pairs
  /// per output; a missing last weight is zero.
  let pairedWeights: [SIMD8<Float>]
  var pairCount: Int { (taps + 1) / 2 }

  /// Builds the table for output pixel centres `(i + ½) × scale` in input coordinates.
  ///
  /// When shrinking (`scale > 1`) the kernel is stretched by `scale`, so it low-pass filters at
  /// the output's Nyquist frequency (antialiasing); when enlarging it is used as is.
  package init(filter: ResamplingFilter, inCount: Int, outCount: Int, scale: Double) {
    let fs = max(scale, 1)
    let support = filter.support * fs
    var lows = [Int](repeating: 0, count: outCount)
    var rows: [[Double]] = []
    rows.reserveCapacity(outCount)
    var maxCount = 1
    for i in 0..<outCount {
      let center = (Double(i) + 0.5) * scale
      var lo = max(0, Int((center - support + 0.5).rounded(.down)))
      var hi = min(inCount, Int((center + support + 0.5).rounded(.down)))
      if hi <= lo {  // a sliver of support between pixel centres: take the nearest pixel
        lo = min(max(0, Int(center.rounded(.down))), inCount - 1)
        hi = lo + 1
      }
      var w = (lo..<hi).map { filter.weight((Double($0) + 0.5 - center) / fs) }
      var sum = w.reduce(0, +)
      if abs(sum) < 1e-12 {
        w = [Double](repeating: 0, count: hi - lo)
        w[min(max(0, Int(center.rounded(.down)) - lo), hi - lo - 1)] = 1
        sum = 1
      }
      lows[i] = lo
      rows.append(w.map { $0 / sum })
      maxCount = max(maxCount, hi - lo)
    }
    let taps = min(maxCount, inCount)
    var starts = [Int](repeating: 0, count: outCount)
    var weights = [Float](repeating: 0, count: outCount * taps)
    for i in 0..<outCount {
      let start = max(0, min(lows[i], inCount - taps))
      starts[i] = start
      for (j, w) in rows[i].enumerated() {
        weights[i * taps + lows[i] - start + j] = Float(w)
      }
    }
    self.inCount = inCount
    self.outCount = outCount
    self.taps = taps
    self.starts = starts
    self.weights = weights
    let pairs = (taps + 1) / 2
    var paired = [SIMD8<Float>](repeating: SIMD8(), count: outCount * pairs)
    for i in 0..<outCount {
      for p in 0..<pairs {
        let a = weights[i * taps + 2 * p]
        let b = 2 * p + 1 < taps ? weights[i * taps + 2 * p + 1] : 0
        paired[i * pairs + p] = SIMD8(a, a, a, a, b, b, b, b)
      }
    }
    pairedWeights = paired
  }

  /// The range of input indices any output reads.
  var inputRange: Range<Int> {
    guard let first = starts.first, let last = starts.last else { return 0..<0 }
    return first..<(last + taps)
  }
}

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#elseif canImport(Musl)
  import Musl
#endif
