// SPDX-License-Identifier: Apache-2.0

/// Table-driven versions of ``SRGBTransfer`` for pixel loops.
///
/// Accuracy (measured against the `Double` formula over every code value and a dense sweep):
/// - ``decode8``: exact to `Float` rounding (each entry is the `Double` result rounded once).
/// - ``decode16``: the same, 65,536 entries (256 KB, built on first use, ~2 ms).
/// - ``encodeClamped(_:table:)``: inputs are clamped to `0...1`. Below 2⁻⁹ it uses the exact linear
///   segment; from 2⁻⁹ up it
///   interpolates linearly in a table with 512 entries per octave indexed by the float's exponent
///   and top 9 mantissa bits (4,610 entries, 18 KB). The interpolation error bound is
///   `h²/8·|f''| ≈ 1.2e-7 · l^0.42`, under 1.3e-7 everywhere: 0.008 of a 16-bit code value.
public enum SRGBTables {
  /// Encoded 8-bit code value → linear light in `0...1`.
  public static let decode8: [Float] = (0..<256).map { Float(decodeExact(Double($0) / 255)) }

  /// Encoded 16-bit code value → linear light in `0...1`.
  public static let decode16: [Float] = (0..<65536).map { Float(decodeExact(Double($0) / 65535)) }

  /// Code value / 255 for the 256 8-bit codes (the "keep encoded values" input table).
  public static let unit8: [Float] = (0..<256).map { Float(Double($0) / 255) }

  /// Bit pattern of 2⁻⁹, the first table knot of ``encodeTable``.
  /// (A literal, not a stored `let`: a lazy global would cost an accessor call in hot loops.)
  @inlinable public static var encodeBase: UInt32 { 0x3B00_0000 }

  /// Knots of the encode table: 9 octaves × 512 entries (+2 so `idx + 1` is always in range).
  public static let encodeTable: [Float] = {
    let count = 9 * 512 + 2
    return (0..<count).map { i in
      let bits = encodeBase &+ UInt32(i) << 14
      return Float(encodeExact(Double(Float(bitPattern: bits))))
    }
  }()

  /// Bit pattern of 2⁻⁵, the first knot of ``decodeTable``.
  @inlinable public static var decodeBase: UInt32 { 0x3D00_0000 }

  /// Knots of the float decode table: 5 octaves (2⁻⁵…1) × 512 entries (+2).
  public static let decodeTable: [Float] = {
    let count = 5 * 512 + 2
    return (0..<count).map { i in
      let bits = decodeBase &+ UInt32(i) << 14
      return Float(decodeExact(Double(Float(bitPattern: bits))))
    }
  }()

  /// Encoded value → linear light for any `Float` (extended sRGB: mirrored below 0, the power
  /// curve continued above 1).
  ///
  /// In `0...1` it interpolates ``decodeTable`` (512 knots per octave from 2⁻⁵; below 2⁻⁵ the
  /// curve is the exact `v / 12.92` segment); error under 4e-7. Outside it falls back to `powf`.
  @inlinable @inline(__always)
  public static func decodeExtended(_ v: Float, table: UnsafePointer<Float>) -> Float {
    if v < 1.0 / 32.0 {
      return v >= 0 ? v * (1 / 12.92) : -Float(decodeExact(Double(-v)))
    }
    if !(v <= 1) { return Float(decodeExact(Double(v))) }  // also NaN: never index with it
    let bits = v.bitPattern &- decodeBase
    let idx = Int(truncatingIfNeeded: bits >> 14)
    let frac = Float(bits & 0x3FFF) * (1.0 / 16384.0)
    let a = table[idx]
    return a + frac * (table[idx + 1] - a)
  }

  /// Linear light → encoded value for any `Float` (extended sRGB), via ``encodeTable`` in `0...1`
  /// and `pow` outside it.
  @inlinable @inline(__always)
  public static func encodeExtended(_ l: Float, table: UnsafePointer<Float>) -> Float {
    if l >= 0 && l <= 1 { return encodeClamped(l, table: table) }  // NaN takes the exact path
    return Float(encodeExact(Double(l)))
  }

  /// Linear light → encoded value in `0...1` (clamping the input to `0...1`), via ``encodeTable``.
  ///
  /// `table` must be ``encodeTable``'s buffer; passing it in keeps the lazy global out of hot loops.
  @inlinable @inline(__always)
  public static func encodeClamped(_ l: Float, table: UnsafePointer<Float>) -> Float {
    let x = l > 0 ? min(l, 1) : 0  // NaN → 0, so a NaN can never index the table
    // Below 2⁻⁹ (< 0.0031308) the curve is the exact linear segment.
    if x < 1.0 / 512.0 { return x * 12.92 }
    let bits = x.bitPattern &- encodeBase
    let idx = Int(truncatingIfNeeded: bits >> 14)
    let frac = Float(bits & 0x3FFF) * (1.0 / 16384.0)
    let a = table[idx]
    return a + frac * (table[idx + 1] - a)
  }

  /// The exact sRGB decode in `Double` (IEC 61966-2-1), for table building and tests.
  public static func decodeExact(_ v: Double) -> Double {
    let a = abs(v)
    let l = a <= 0.04045 ? a / 12.92 : pow((a + 0.055) / 1.055, 2.4)
    return v < 0 ? -l : l
  }

  /// The exact sRGB encode in `Double`, the inverse of ``decodeExact(_:)``.
  public static func encodeExact(_ l: Double) -> Double {
    let a = abs(l)
    let v = a <= 0.0031308 ? a * 12.92 : 1.055 * pow(a, 1 / 2.4) - 0.055
    return l < 0 ? -v : v
  }
}

/// Rounds `v` (in `0...4_194_304`) to the nearest integer, ties to even, without `Int(Float)`.
///
/// Adding 1.5 × 2²³ pushes the integer part into the low mantissa bits (the FPU does the rounding);
/// subtracting the sum's bit pattern for 0 leaves the integer. Callers clamp first.
@inlinable @inline(__always)
func roundToUInt32(_ v: Float) -> UInt32 {
  (v + 12_582_912.0).bitPattern &- 0x4B40_0000
}

/// ``roundToUInt32(_:)`` for eight lanes.
@inlinable @inline(__always)
func roundToUInt32(_ v: SIMD8<Float>) -> SIMD8<UInt32> {
  unsafeBitCast(v + SIMD8<Float>(repeating: 12_582_912.0), to: SIMD8<UInt32>.self)
    &- SIMD8<UInt32>(repeating: 0x4B40_0000)
}

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#elseif canImport(Musl)
  import Musl
#endif
