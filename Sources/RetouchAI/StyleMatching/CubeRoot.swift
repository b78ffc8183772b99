// SPDX-License-Identifier: Apache-2.0

/// The cube root of CIE Lab's `f(t)` without a library call.
///
/// `cbrtf` was the largest single libm cost of ranking suggestions (a 160-px Lab image per
/// candidate: three cube roots per pixel; 3.7 % of `retouch-bench ai` in `perf`), and as a call
/// it keeps the per-pixel loops scalar. This is plain arithmetic: an initial guess from the
/// float's bit pattern (the exponent divided by three, with fdlibm's constant for `cbrtf`;
/// within a few per cent), then three Newton steps `y ← (2y + x / y²) / 3`, each roughly
/// squaring the relative error. For `x` in
/// `1e-3…10` the result is within 2 ulp of `cbrt` (tests), far below what an 8-bit colour
/// difference can show.
enum CubeRoot {
  /// `∛x` for finite `x > 0` (callers pass CIE's `t > 216/24389`).
  @inline(__always)
  static func of(_ x: Float) -> Float {
    var y = Float(bitPattern: x.bitPattern / 3 &+ 709_958_130)
    y = (2 * y + x / (y * y)) * (1 / 3)
    y = (2 * y + x / (y * y)) * (1 / 3)
    y = (2 * y + x / (y * y)) * (1 / 3)
    return y
  }

  /// ``of(_:)`` of eight values, lane by lane the same operations (the same results).
  @inline(__always)
  static func of(_ x: SIMD8<Float>) -> SIMD8<Float> {
    let bits = unsafeBitCast(x, to: SIMD8<UInt32>.self) / 3 &+ 709_958_130
    var y = unsafeBitCast(bits, to: SIMD8<Float>.self)
    y = (2 * y + x / (y * y)) * (1 / 3)
    y = (2 * y + x / (y * y)) * (1 / 3)
    y = (2 * y + x / (y * y)) * (1 / 3)
    return y
  }
}
