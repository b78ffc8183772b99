// SPDX-License-Identifier: Apache-2.0

import Foundation

/// The vignette as a per-pixel multiplier for an output of `width × height`, centred on it.
///
/// The renderer applies it last, after cropping, as a multiplier of linear R, G, B, so it is
/// centred on the crop. With pixel centres normalised to the frame, `u = (2x + 1 − W)/W`,
/// `v = (2y + 1 − H)/H` (−1…1 at the edges), the elliptical radius fitted to the frame is
/// `ρ² = (u² + v²)/2` (0 at the centre, 1 at the corners, 0.5 at the edge midpoints) and
/// `multiplier = 2^(−2 · amount · smoothstep((ρ² − 0.2)/0.8))`: a cubic Hermite falloff in `ρ²`
/// (close to a raised cosine) that leaves the inner ellipse `ρ² ≤ 0.2` untouched and reaches
/// ±2 stops in the corners at `amount` ±1. Positive amounts darken, negative ones lighten.
///
/// Separable: `ρ²` is a column term plus a row term, so there is no square root, and the falloff
/// is plain arithmetic with ``SpatialMath/exp2(_:)`` (no look-ups), so a row vectorises. Cost
/// (release, shared 2-core AVX-512 VM, one thread): 4000×3000 rows in ≈ 10 ms; creating the
/// mask costs O(width).
public struct VignetteMask: Sendable {
  public let amount: Float
  public let width: Int
  public let height: Int
  @usableFromInline let columnTerm: [Float]

  /// `amount` in −1…1 (clamped); `width × height` is the output being vignetted.
  public init(amount: Double, width: Int, height: Int) {
    precondition(width > 0 && height > 0)
    let a = Float(min(max(amount, -1), 1))
    self.amount = a
    self.width = width
    self.height = height
    columnTerm = (0..<width).map { x in VignetteMask.halfSquare(x, width) }
  }

  public var isNeutral: Bool { amount == 0 }

  /// `u²/2` for pixel `i` of `n` (exact: the offset is an integer).
  @usableFromInline
  static func halfSquare(_ i: Int, _ n: Int) -> Float {
    let d = Float(2 * i + 1 - n) / Float(n)
    return d * d * 0.5
  }

  /// Writes the multipliers of output row `y` into `row[0..<width]` and returns the columns
  /// where they are exactly 1 (``unitRange(y:)``, empty at `width` when there are none).
  ///
  /// Inside the inner ellipse the multiplier is 1 without evaluating the falloff (the same
  /// value: `exp2(0)` is exactly 1).
  @inlinable @discardableResult
  public func fillRow(y: Int, into row: UnsafeMutablePointer<Float>) -> Range<Int> {
    fill(y: y, row, roots: nil)
  }

  /// ``fillRow(y:into:)``, and the multipliers' 2.4th roots into `roots` (the same falloff
  /// with the exponent divided by 2.4: `2^(e/2.4)` is `(2^e)^(1/2.4)`), for the fused pass.
  @inlinable @discardableResult
  public func fillRow(
    y: Int, into row: UnsafeMutablePointer<Float>, roots: UnsafeMutablePointer<Float>
  ) -> Range<Int> {
    fill(y: y, row, roots: roots)
  }

  /// Both fills in one pass over the falloff; returns the unit range.
  @inlinable
  func fill(
    y: Int, _ row: UnsafeMutablePointer<Float>, roots: UnsafeMutablePointer<Float>?
  ) -> Range<Int> {
    let rowTerm = VignetteMask.halfSquare(y, height)
    let k = -2 * amount
    let inner = unitRange(y: y) ?? width..<width
    columnTerm.withUnsafeBufferPointer { c in
      @inline(__always) func falloff(_ range: Range<Int>) {
        for x in range {
          let t = SpatialMath.clamp((c[x] + rowTerm - 0.2) * 1.25, 0, 1)
          row[x] = SpatialMath.exp2(k * (t * t * (3 - 2 * t)))
        }
      }
      @inline(__always) func falloffAndRoots(
        _ range: Range<Int>, _ roots: UnsafeMutablePointer<Float>
      ) {
        for x in range {
          let t = SpatialMath.clamp((c[x] + rowTerm - 0.2) * 1.25, 0, 1)
          let e = k * (t * t * (3 - 2 * t))
          row[x] = SpatialMath.exp2(e)
          roots[x] = SpatialMath.exp2(e / 2.4)
        }
      }
      // Mirror-symmetric about the centre column (`columnTerm[x] == columnTerm[width − 1 − x]`
      // exactly, and so is the inner range): the right part copies the left one, which halves
      // the falloff's exp2 calls (6.1 % → 4.7 % of a typical 2048-px preview render's time).
      let half = (width + 1) / 2
      let left = 0..<Swift.min(inner.lowerBound, half)
      let right = inner.isEmpty ? half : inner.upperBound
      if let roots {
        falloffAndRoots(left, roots)
        for x in right..<width { roots[x] = roots[width - 1 - x] }
        for x in inner { roots[x] = 1 }
      } else {
        falloff(left)
      }
      for x in right..<width { row[x] = row[width - 1 - x] }
    }
    for x in inner { row[x] = 1 }
    return inner
  }

  /// The columns of row `y` whose multiplier is exactly 1 (inside the inner ellipse, where
  /// ``fillRow(y:into:)`` computes `exp2(0)`), as one range, or nil when there are none.
  /// `columnTerm` is symmetric and decreasing towards the centre, so they are contiguous.
  public func unitRange(y: Int) -> Range<Int>? {
    let rowTerm = VignetteMask.halfSquare(y, height)
    // Same test as fillRow's clamp: t ≤ 0 exactly when (c + rowTerm − 0.2) · 1.25 ≤ 0.
    func inside(_ x: Int) -> Bool { (columnTerm[x] + rowTerm - 0.2) * 1.25 <= 0 }
    let mid = (width - 1) / 2
    guard inside(mid) else { return nil }
    var lo = 0, hi = mid  // first inside column in lo...mid
    while lo < hi {
      let m = (lo + hi) / 2
      if inside(m) { hi = m } else { lo = m + 1 }
    }
    var a = mid, b = width - 1  // last inside column in mid...width-1
    while a < b {
      let m = (a + b + 1) / 2
      if inside(m) { a = m } else { b = m - 1 }
    }
    return lo..<(a + 1)
  }

  /// Scalar reference for one pixel, straight from the formula in Double.
  public func multiplierReference(x: Int, y: Int) -> Float {
    if amount == 0 { return 1 }
    let u = Double(2 * x + 1 - width) / Double(width)
    let v = Double(2 * y + 1 - height) / Double(height)
    let t = min(max(((u * u + v * v) / 2 - 0.2) / 0.8, 0), 1)
    return Float(Foundation.exp2(-2 * Double(amount) * t * t * (3 - 2 * t)))
  }
}
