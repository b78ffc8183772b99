// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore

/// Display-encoded RGB of a working space ↔ CIELAB (D65 white), in `Float`, for the analysis
/// (skin colour) and style matching.
///
/// RGB → linear (the sRGB curve, which both working spaces use) → XYZ through
/// `ColorSpace.toXYZ` → L*a*b* (CIE 15:2004, white D65 = (0.95047, 1, 1.08883)). The way back
/// inverts each step; out-of-gamut results are left for the caller to clamp.
package struct LabConverter: Sendable {
  let toXYZ: [Float]
  let fromXYZ: [Float]
  private let decode8 = SRGBTables.decode8
  static let white: SIMD3<Float> = [0.95047, 1, 1.08883]

  package init(colorSpace: ColorSpace) {
    let m = colorSpace.toXYZ
    toXYZ = m.map(Float.init)
    let inverse = ColorMatrix(m).inverse ?? .identity
    fromXYZ = inverse.elements.map(Float.init)
  }

  /// Linear RGB (0...1) of an 8-bit encoded pixel.
  @inline(__always)
  package func linear(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> (Float, Float, Float) {
    (decode8[Int(r)], decode8[Int(g)], decode8[Int(b)])
  }

  /// L* (0...100), a*, b* of linear RGB.
  @inline(__always)
  package func lab(linear r: Float, _ g: Float, _ b: Float) -> SIMD3<Float> {
    let m = toXYZ
    let x = (m[0] * r + m[1] * g + m[2] * b) / Self.white.x
    let y = m[3] * r + m[4] * g + m[5] * b
    let z = (m[6] * r + m[7] * g + m[8] * b) / Self.white.z
    let fx = Self.f(x), fy = Self.f(y), fz = Self.f(z)
    return SIMD3(116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz))
  }

  /// L* a* b* of display-encoded RGB in `0...1`.
  @inline(__always)
  func lab(encoded v: SIMD3<Float>) -> SIMD3<Float> {
    lab(linear: SRGBTransfer.decode(v.x), SRGBTransfer.decode(v.y), SRGBTransfer.decode(v.z))
  }

  /// Display-encoded RGB (not clamped) of L* a* b*.
  @inline(__always)
  func encoded(lab v: SIMD3<Float>) -> SIMD3<Float> {
    let fy = (v.x + 16) / 116
    let fx = fy + v.y / 500
    let fz = fy - v.z / 200
    let x = Self.fInverse(fx) * Self.white.x
    let y = Self.fInverse(fy)
    let z = Self.fInverse(fz) * Self.white.z
    let m = fromXYZ
    let r = m[0] * x + m[1] * y + m[2] * z
    let g = m[3] * x + m[4] * y + m[5] * z
    let b = m[6] * x + m[7] * y + m[8] * z
    return SIMD3(SRGBTransfer.encode(r), SRGBTransfer.encode(g), SRGBTransfer.encode(b))
  }

  @inline(__always)
  static func f(_ t: Float) -> Float {
    t > 216.0 / 24389 ? CubeRoot.of(t) : (24389.0 / 27 * t + 16) / 116
  }

  @inline(__always)
  static func fInverse(_ t: Float) -> Float {
    t > 6.0 / 29 ? t * t * t : (116 * t - 16) * 27 / 24389
  }
}
