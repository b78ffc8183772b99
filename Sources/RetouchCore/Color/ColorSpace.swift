// SPDX-License-Identifier: Apache-2.0

/// The RGB colour space that an image's component values are encoded in.
///
/// Retouch works in one of two display-referred working spaces, chosen by the source photo:
/// sRGB (IEC 61966-2-1) or Display P3 (P3 primaries, D65 white, sRGB transfer curve). Both share
/// the sRGB transfer function, so tone operations behave the same in either; only the primaries
/// differ. Decoders convert anything else (Adobe RGB, camera profiles, CMYK) into one of these.
public enum ColorSpace: String, Hashable, Sendable, Codable, CaseIterable {
  case sRGB
  case displayP3

  /// A human-readable name, as it appears in an ICC profile's description.
  public var displayName: String {
    switch self {
    case .sRGB: "sRGB IEC61966-2.1"
    case .displayP3: "Display P3"
    }
  }

  /// Linear RGB → CIE XYZ (D65) matrix, row-major.
  ///
  /// From the primaries in IEC 61966-2-1 (sRGB) and SMPTE EG 432-1 (P3-D65), computed with the
  /// standard primaries-to-matrix derivation; values to 7 decimals.
  public var toXYZ: [Double] {
    switch self {
    case .sRGB:
      [
        0.4123908, 0.3575843, 0.1804808,
        0.2126390, 0.7151687, 0.0721923,
        0.0193308, 0.1191948, 0.9505322,
      ]
    case .displayP3:
      [
        0.4865709, 0.2656677, 0.1982173,
        0.2289746, 0.6917385, 0.0792869,
        0.0000000, 0.0451134, 1.0439444,
      ]
    }
  }

  /// Relative luminance weights (the Y row of ``toXYZ``).
  public var lumaWeights: (r: Float, g: Float, b: Float) {
    let m = toXYZ
    return (Float(m[3]), Float(m[4]), Float(m[5]))
  }
}

/// The sRGB transfer function (IEC 61966-2-1), also used by Display P3.
public enum SRGBTransfer {
  /// Encoded value in `0...1` → linear light in `0...1`. Values outside the range are mirrored
  /// through the curve (extended sRGB), so negative and >1 values survive round trips.
  @inlinable
  public static func decode(_ v: Float) -> Float {
    let a = abs(v)
    let l = a <= 0.04045 ? a / 12.92 : powf((a + 0.055) / 1.055, 2.4)
    return v < 0 ? -l : l
  }

  /// Linear light → encoded value; the inverse of ``decode(_:)``.
  @inlinable
  public static func encode(_ l: Float) -> Float {
    let a = abs(l)
    let v = a <= 0.0031308 ? a * 12.92 : 1.055 * powf(a, 1 / 2.4) - 0.055
    return l < 0 ? -v : v
  }
}

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#elseif canImport(Musl)
  import Musl
#endif
