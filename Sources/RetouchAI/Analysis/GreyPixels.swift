// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore

/// The light's colour from the photo's grey pixels (Yang, Gao & Li, "Efficient illuminant
/// estimation for color constancy using grey pixels", CVPR 2015).
///
/// Under one light, a grey surface's local contrast is the same in every channel once taken in
/// log space (the light's colour is a per-channel factor, which a logarithm turns into an offset
/// that the contrast removes). So each pixel gets a greyness index, the spread of the three
/// channels' log-contrast (the absolute 4-neighbour Laplacian of `log(c + 10⁻⁴)` in linear
/// light) over their mean, averaged over a neighbourhood; the 0.1 % of pixels with the smallest
/// index (at least 50) among the trusted ones (no channel clipped or near black, some contrast)
/// are the grey ones, and their mean linear RGB is the light.
///
/// Measured on the shared set against the two-estimate mean ``ColorMeasurement`` uses (52
/// photos its confidence trusts, 0.7 and up): the median distance of a good photo from neutral
/// on the green–magenta axis is 0.017 against 0.029 (log2 G/√(R·B)), and on the harness's green
/// and magenta casts it reads 0.8–1.05 of the cast, against about 0.8. On the blue–amber axis it
/// reads the light's own colour more fully (a sunset 2.1 where the mean reads 1.2), so that axis
/// keeps the two-estimate mean, whose ramps are set for it, and uses this reading only as a
/// check on it (``ColorAnalysis/greyPixelWarmth``, ``CastRemoval/warmthAgreement(_:)``).
///
/// A blur moves this reading more than the others: the contrast of neighbouring pixels is what it
/// takes first, and what is left is partly 8-bit rounding. On the harness's copies of the 85
/// shared photos blurred by σ 1 and 2 px at 768 px, the blue–amber reading moves from the photo's
/// own by a median of 0.047 and 0.077 (a tenth of the photos by 0.28 and 0.70 or more; the
/// two-estimate mean's, on the 70 outside `dev`, by 0.021 and 0.032). Taking the Laplacian from
/// pixels 2 px apart halves that (0.026 and 0.035) and keeps the reading of a cast, but the cast
/// rules were set on this reading: `retouch auto` over the harness went from 34.5 to 29.7 % on
/// `dev`'s green casts and 42.7 to 40.7 % on its cool ones, while outside `dev` 80 copies changed
/// by over 0.3 ΔE2000 in both directions and the families moved by −1.5 to +1.1 points (the
/// blurred ones 112.1 to 111.4 %). It was left as it is.
///
/// Cost: a quarter of the copy's pixels judged, 15 table look-ups each, and a 3 × 3 box filter
/// on them. Deterministic (one thread, fixed order).
enum GreyPixels {
  /// The estimate: log2 R/B and log2 G/√(R·B) of the grey pixels' mean, and how many there were.
  struct Estimate: Sendable, Hashable {
    var warmth: Double
    var greenTint: Double
    var count: Int
  }

  /// Share of the copy's pixels taken as grey (at least ``minimumCount``).
  static let share = 0.001
  /// Fewest grey pixels an estimate is made from.
  static let minimumCount = 50
  /// Least mean log-contrast a pixel needs: flat areas say nothing about the light.
  static let minimumContrast: Float = 0.05
  /// Codes (8-bit) a trusted pixel stays within: not near black (linear 0.004), not clipped.
  static let trustedCodes = 12...248

  /// `log(decode(code) + 10⁻⁴)` for every 8-bit code.
  static let logOfCode: [Float] = SRGBTables.decode8.map { Float(log(Double($0) + 1e-4)) }

  /// The estimate for an 8-bit RGB copy, nil when it has too few trusted pixels with contrast.
  ///
  /// Every other pixel of every other row is judged (its Laplacian still taken from its full-
  /// resolution neighbours) and the index is averaged over 3 × 3 judged pixels (a 6-pixel
  /// window): a quarter of the work of judging every pixel, which cost ~8 ms of CPU at 512 px.
  static func estimate(_ image: Image) -> Estimate? {
    guard image.format == .rgb8, image.width >= 9, image.height >= 9 else { return nil }
    let w = image.width, h = image.height
    // Judged pixels (2x + 1, 2y + 1): at most row h − 2 and column w − 2, so all four
    // neighbours exist.
    let gw = (w - 1) / 2, gh = (h - 1) / 2
    let n = gw * gh
    var index = [Float](repeating: 0, count: n)
    var trusted = [UInt8](repeating: 0, count: n)
    image.withUnsafeBytes { raw in
      let p = raw.bindMemory(to: UInt8.self).baseAddress.unsafelyUnwrapped
      logOfCode.withUnsafeBufferPointer { table in
        index.withUnsafeMutableBufferPointer { gi in
          trusted.withUnsafeMutableBufferPointer { ok in
            let t = table.baseAddress.unsafelyUnwrapped
            let stride = 3 &* w
            for gy in 0..<gh {
              let y = 2 &* gy &+ 1
              for gx in 0..<gw {
                let x = 2 &* gx &+ 1
                let q = p + (y &* w &+ x) &* 3
                @inline(__always) func laplacian(_ c: Int) -> Float {
                  abs(
                    4 * t[Int(q[c])] - t[Int(q[c &- 3])] - t[Int(q[c &+ 3])]
                      - t[Int(q[c &- stride])] - t[Int(q[c &+ stride])])
                }
                let lr = laplacian(0), lg = laplacian(1), lb = laplacian(2)
                let mean = (lr + lg + lb) / 3
                let (dr, dg, db) = (lr - mean, lg - mean, lb - mean)
                let i = gy &* gw &+ gx
                gi[i] = ((dr * dr + dg * dg + db * db) / 3).squareRoot() / (mean + 1e-6)
                let lo = Swift.min(q[0], q[1], q[2]), hi = Swift.max(q[0], q[1], q[2])
                ok[i] =
                  mean > minimumContrast && lo >= UInt8(trustedCodes.lowerBound)
                    && hi <= UInt8(trustedCodes.upperBound) ? 1 : 0
              }
            }
          }
        }
      }
    }
    let smoothed = boxFilter3(index, width: gw, height: gh)
    // The threshold: the `count`-th smallest smoothed index among trusted pixels, found on a
    // histogram of 4096 bins over 0...2 (indexes above 2 are never among the greyest).
    let wanted = max(minimumCount, Int((share * Double(n)).rounded()))
    let bins = 4096
    var histogram = [Int](repeating: 0, count: bins)
    var available = 0
    for i in 0..<n where trusted[i] != 0 && smoothed[i] < 2 {
      histogram[min(bins - 1, Int(smoothed[i] * Float(bins / 2)))] += 1
      available += 1
    }
    guard available >= wanted else { return nil }
    var cumulative = 0
    var lastBin = bins - 1
    for b in 0..<bins {
      cumulative += histogram[b]
      if cumulative >= wanted {
        lastBin = b
        break
      }
    }
    let limit = Float(lastBin + 1) / Float(bins / 2)
    // The grey pixels' linear RGB, decoded again for the few chosen (keeping every judged
    // pixel's colour cost a 0.8 MB array at 512 px).
    var sum = SIMD3<Double>()
    var count = 0
    image.withUnsafeBytes { raw in
      let p = raw.bindMemory(to: UInt8.self).baseAddress.unsafelyUnwrapped
      let d = SRGBTables.decode8
      for i in 0..<n where trusted[i] != 0 && smoothed[i] < limit {
        let y = 2 * (i / gw) + 1, x = 2 * (i % gw) + 1
        let q = p + (y * w + x) * 3
        sum += SIMD3(Double(d[Int(q[0])]), Double(d[Int(q[1])]), Double(d[Int(q[2])]))
        count += 1
      }
    }
    guard count >= minimumCount, sum.x > 0, sum.y > 0, sum.z > 0 else { return nil }
    return Estimate(
      warmth: log2(sum.x / sum.z), greenTint: -0.5 * log2(sum.x * sum.z / (sum.y * sum.y)),
      count: count)
  }

  /// The mean over a 3 × 3 window (edges clamped).
  static func boxFilter3(_ v: [Float], width w: Int, height h: Int) -> [Float] {
    var out = [Float](repeating: 0, count: v.count)
    v.withUnsafeBufferPointer { src in
      out.withUnsafeMutableBufferPointer { dst in
        guard let s0 = src.baseAddress, let d0 = dst.baseAddress else { return }
        for y in 0..<h {
          let up = s0 + max(0, y - 1) * w, mid = s0 + y * w, down = s0 + min(h - 1, y + 1) * w
          let d = d0 + y * w
          // Columns l, x, r (clamped at the edges), summed in one fixed order.
          @inline(__always) func one(_ x: Int, _ l: Int, _ r: Int) {
            let sum =
              up[l] + up[x] + up[r] + mid[l] + mid[x] + mid[r] + down[l] + down[x] + down[r]
            d[x] = sum / 9
          }
          one(0, 0, min(w - 1, 1))
          // The inner columns with wrapping index arithmetic, which the compiler vectorises
          // (with checked arithmetic it did not: ~4× slower).
          var x = 1
          while x < w &- 1 {
            one(x, x &- 1, x &+ 1)
            x &+= 1
          }
          if w > 1 { one(w - 1, w - 2, w - 1) }
        }
      }
    }
    return out
  }
}
