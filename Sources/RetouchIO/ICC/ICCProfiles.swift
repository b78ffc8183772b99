// SPDX-License-Identifier: Apache-2.0

import CLCMS2
import CRetouchShims
import Foundation
import RetouchCore

/// The ICC profiles Retouch tags its outputs with, built with lcms2.
///
/// Each is an ICC v4.3 matrix/TRC display profile: D65 white (adapted to the D50 PCS by lcms with
/// Bradford, `chad` tag included), the primaries of ``RetouchCore/RGBPrimaries``, and the sRGB
/// curve as parametric curve type 4 (γ 2.4, a 1/1.055, b 0.055/1.055, c 1/12.92, d 0.04045). The
/// header's creation date is fixed (2025-01-01 00:00:00) and the profile ID left zero, so the
/// bytes are the same on every run and machine with the same lcms.
package enum ICCProfiles {
  /// The tone curve of a profile built by ``rgbProfile(primaries:curve:description:)``.
  package enum ToneCurve: Hashable, Sendable {
    /// The sRGB transfer curve (IEC 61966-2-1) as parametric type 4.
    case sRGB
    /// A pure power `y = x^γ` (parametric type 1), e.g. 563/256 for Adobe RGB (1998).
    case gamma(Double)
  }

  private static let sRGBData: Data =
    rgbProfile(primaries: .sRGB, curve: .sRGB, description: ColorSpace.sRGB.displayName) ?? Data()
  private static let displayP3Data: Data =
    rgbProfile(primaries: .displayP3, curve: .sRGB, description: ColorSpace.displayP3.displayName)
    ?? Data()

  /// The ICC bytes describing `space` (built once on first use; thread-safe through
  /// Swift's lazy `static let`). Empty only if lcms cannot allocate, which does not happen.
  package static func data(for space: ColorSpace) -> Data {
    switch space {
    case .sRGB: sRGBData
    case .displayP3: displayP3Data
    }
  }

  /// Builds a matrix/TRC RGB profile with the given primaries (D65 white), curve and English
  /// description, and returns its bytes (deterministic, see the type's notes), or `nil` when lcms
  /// fails.
  package static func rgbProfile(
    primaries: RGBPrimaries, curve: ToneCurve, description: String
  ) -> Data? {
    let context = LCMSContext()
    guard let ctx = context.handle else { return nil }
    var white = cmsCIExyY(x: primaries.white.x, y: primaries.white.y, Y: 1)
    var triple = cmsCIExyYTRIPLE(
      Red: cmsCIExyY(x: primaries.red.x, y: primaries.red.y, Y: 1),
      Green: cmsCIExyY(x: primaries.green.x, y: primaries.green.y, Y: 1),
      Blue: cmsCIExyY(x: primaries.blue.x, y: primaries.blue.y, Y: 1))
    var params: [Double]
    let type: Int32
    switch curve {
    case .sRGB:
      params = [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045]
      type = 4
    case .gamma(let g):
      params = [g]
      type = 1
    }
    guard let tone = cmsBuildParametricToneCurve(ctx, type, &params) else { return nil }
    defer { cmsFreeToneCurve(tone) }
    var curves: [OpaquePointer?] = [tone, tone, tone]
    guard let h = cmsCreateRGBProfileTHR(ctx, &white, &triple, &curves) else { return nil }
    let profile = LCMSProfile(owning: h, context: context)
    guard let mlu = cmsMLUalloc(ctx, 1) else { return nil }
    defer { cmsMLUfree(mlu) }
    guard cmsMLUsetASCII(mlu, "en", "US", description) != 0,
      cmsWriteTag(profile.handle, cmsSigProfileDescriptionTag, UnsafeRawPointer(mlu)) != 0
    else { return nil }
    var size: cmsUInt32Number = 0
    guard cmsSaveProfileToMem(profile.handle, nil, &size) != 0, size >= 128 else { return nil }
    var bytes = [UInt8](repeating: 0, count: Int(size))
    guard cmsSaveProfileToMem(profile.handle, &bytes, &size) != 0 else { return nil }
    // lcms stamps the creation time (header bytes 24..<36, six big-endian UInt16s); fix it so
    // the bytes are reproducible. The profile ID (bytes 84..<100) stays zero ("not computed").
    let date: [UInt16] = [2025, 1, 1, 0, 0, 0]
    for (i, v) in date.enumerated() {
      bytes[24 + 2 * i] = UInt8(v >> 8)
      bytes[25 + 2 * i] = UInt8(v & 0xFF)
    }
    for i in 84..<100 { bytes[i] = 0 }
    return Data(bytes[0..<Int(size)])
  }
}
