// SPDX-License-Identifier: Apache-2.0

import CLCMS2
import CRetouchShims
import Foundation
import RetouchCore

/// Brings decoded pixels into Retouch's working spaces (sRGB or Display P3).
package enum ColorConversion {
  /// Converts pixels described by `profile` (or `nclx`) into sRGB or Display P3, whichever holds
  /// the source's gamut, and tags the result.
  ///
  /// - nclx wins over a profile (a PNG's `cICP` outranks its `iCCP`; HEIF files carry one).
  /// - No profile and no nclx: treated as sRGB; returned unchanged.
  /// - An RGB profile equal in effect to sRGB or Display P3 (same colorants within 0.002 in PCS
  ///   XYZ, and tone curves within 0.002 of the sRGB curve at nine points): pixels unchanged,
  ///   tagged `.sRGB` / `.displayP3`.
  /// - Any other RGB profile: converted with lcms2 (relative colorimetric, black-point
  ///   compensation; 8- or 16-bit; alpha copied) to Display P3 when its gamut reaches outside
  ///   sRGB — probed by sending its six primaries and secondaries through an unbounded float
  ///   transform to sRGB and looking for components outside −0.002…1.002 — otherwise to sRGB.
  ///   Runs over row bands in parallel on one transform.
  /// - A CMYK or grey profile on RGB pixels (a CMYK JPEG already turned into RGB), or a profile
  ///   lcms cannot open or build a transform for: a warning, pixels unchanged (tagged sRGB).
  /// - nclx: primaries 1 (BT.709) → sRGB, 12 (P3-D65) → Display P3, unchanged values;
  ///   9 (BT.2020) → converted to Display P3 with ``RetouchCore/PlanarImage`` matrix math,
  ///   treating the transfer (1, 6, 13, 14, 15) as the sRGB curve. PQ (16) and HLG (18) are HDR:
  ///   tone-mapped to SDR (``HDRToneMapping``), into sRGB from BT.709 primaries, else into
  ///   Display P3.
  ///
  /// Cost: an 8-bit lcms transform is ~12 ns per pixel per thread (12 MP ≈ 140 ms on one core);
  /// 16-bit images use lcms's unoptimised (exact) pipeline, which is several times slower.
  package static func toWorkingSpace(
    _ image: Image, profile: Data?, nclx: NCLXColorInfo?, warnings: inout [String]
  ) -> Image {
    // Code points first: only a PNG carries both, and its cICP outranks its iCCP.
    if let nclx {
      return convert(image, nclx: nclx, warnings: &warnings)
    }
    if let profile, !profile.isEmpty {
      return convert(image, profile: profile, warnings: &warnings)
    }
    var result = image
    result.colorSpace = .sRGB
    return result
  }

  // MARK: - ICC

  static func convert(_ image: Image, profile: Data, warnings: inout [String]) -> Image {
    var unchanged = image
    unchanged.colorSpace = .sRGB
    let context = LCMSContext()
    guard let source = LCMSProfile(profile, context: context) else {
      let reason = context.lastError ?? "unknown error"
      warnings.append(
        "The embedded ICC profile (\(profile.count) bytes) could not be read (lcms2: \(reason)); "
          + "colours are shown as sRGB.")
      return unchanged
    }
    guard source.isRGB else {
      warnings.append(
        "The embedded ICC profile describes \(source.colorSpaceName) colour, not RGB; it was "
          + "ignored and the decoded RGB values are shown as sRGB.")
      return unchanged
    }
    for space in [ColorSpace.sRGB, .displayP3] where matches(source, space, context: context) {
      var tagged = image
      tagged.colorSpace = space
      return tagged
    }
    let target: ColorSpace = isWiderThanSRGB(source, context: context) ? .displayP3 : .sRGB
    guard let destination = LCMSProfile(ICCProfiles.data(for: target), context: context) else {
      warnings.append(
        "Could not open the built-in \(target.displayName) profile; colours are shown as sRGB.")
      return unchanged
    }
    let format: UInt32
    var flags = rt_lcms_FLAGS_BLACKPOINTCOMPENSATION
    switch image.format {
    case .rgb8: format = rt_lcms_TYPE_RGB_8
    case .rgba8: format = rt_lcms_TYPE_RGBA_8
    case .rgb16: format = rt_lcms_TYPE_RGB_16
    case .rgba16: format = rt_lcms_TYPE_RGBA_16
    }
    if image.format.hasAlpha { flags |= rt_lcms_FLAGS_COPY_ALPHA }
    // lcms optimises 16-bit matrix/shaper transforms into a 33³ grid; sRGB → P3 → sRGB through
    // it was off by 590 of 65535 in a dark red channel (2.3 8-bit codes). Evaluate the exact
    // pipeline for 16-bit instead; 8-bit transforms keep lcms's accurate matrix/shaper path.
    if image.format.bitDepth == 16 { flags |= rt_lcms_FLAGS_NOOPTIMIZE }
    guard
      let transform = LCMSTransform(
        from: source, format: format, to: destination, format: format, flags: flags)
    else {
      let name = source.profileDescription.map { "“\($0)”" } ?? "embedded"
      warnings.append(
        "The \(name) ICC profile cannot be converted to \(target.displayName) "
          + "(lcms2: \(context.lastError ?? "no transform")); colours are shown as sRGB.")
      return unchanged
    }
    var result = Image(
      uninitializedWidth: image.width, height: image.height, format: image.format,
      colorSpace: target)
    let rowBytes = image.bytesPerRow, width = image.width
    // The transform handle crosses into the band closures. Invariant: lcms's cmsDoTransform
    // only reads the transform (its cache is copied to the stack per call) and each band writes
    // only its own rows; `transform` outlives the parallel loop.
    let t = SendableRawPointer(transform.handle)
    image.withUnsafeBytes { src in
      result.withUnsafeMutableBytes { dst in
        let s = SendableRawPointer(src.baseAddress!), d = SendableRawPointer(dst.baseAddress!)
        ParallelBands.forEach(rows: image.height, minimumBandHeight: 32) { band in
          // Rows are packed, so a band is one run of pixels.
          cmsDoTransform(
            t.pointer, s.pointer + band.lowerBound * rowBytes,
            d.pointer + band.lowerBound * rowBytes,
            cmsUInt32Number(band.count * width))
        }
      }
    }
    withExtendedLifetime(transform) {}
    return result
  }

  /// Whether `profile` is a matrix/TRC profile that matches the built-in profile of `space`.
  static func matches(_ profile: LCMSProfile, _ space: ColorSpace, context: LCMSContext) -> Bool {
    guard !profile.hasLUT, let colorants = profile.colorants,
      let reference = LCMSProfile(ICCProfiles.data(for: space), context: context),
      let expected = reference.colorants
    else { return false }
    for (a, b) in zip(colorants, expected) {
      let d = a - b
      if max(abs(d.x), max(abs(d.y), abs(d.z))) > 0.002 { return false }
    }
    for x in stride(from: Float(0.1), through: 0.9, by: 0.1) {
      guard let curves = profile.toneCurves(at: x) else { return false }
      let expected = SRGBTransfer.decode(x)
      if curves.contains(where: { abs($0 - expected) > 0.002 }) { return false }
    }
    return true
  }

  /// Whether the profile's primaries or secondaries land outside sRGB.
  static func isWiderThanSRGB(_ profile: LCMSProfile, context: LCMSContext) -> Bool {
    guard let srgb = LCMSProfile(ICCProfiles.data(for: .sRGB), context: context),
      let probe = LCMSTransform(
        from: profile, format: rt_lcms_TYPE_RGB_FLT, to: srgb, format: rt_lcms_TYPE_RGB_FLT,
        flags: 0)
    else { return false }
    let colors: [SIMD3<Float>] = [
      [1, 0, 0], [0, 1, 0], [0, 0, 1], [0, 1, 1], [1, 0, 1], [1, 1, 0],
    ]
    return probe.transform(colors).contains { c in
      min(c.x, min(c.y, c.z)) < -0.002 || max(c.x, max(c.y, c.z)) > 1.002
    }
  }

  // MARK: - nclx

  static func convert(_ image: Image, nclx: NCLXColorInfo, warnings: inout [String]) -> Image {
    var result = image
    result.colorSpace = .sRGB
    if let transfer = HDRToneMapping.Transfer(nclxTransfer: nclx.transferCharacteristics) {
      // HDR is mastered in BT.2020 unless the file says BT.709 or P3.
      let primaries: RGBPrimaries =
        switch nclx.colorPrimaries {
        case 1: .sRGB
        case 12: .displayP3
        default: .bt2020
        }
      return HDRToneMapping.toneMapped(image, transfer: transfer, primaries: primaries)
    }
    switch nclx.colorPrimaries {
    case 12:
      result.colorSpace = .displayP3
      return result
    case 9:
      let planar = PlanarImage(image, encoding: .encoded)
        .converted(fromPrimaries: .bt2020, to: .displayP3)
      return planar.image(bitDepth: image.format.bitDepth)
    default:
      // 1 (BT.709), 2 (unspecified) and anything we do not know: sRGB.
      return result
    }
  }
}
