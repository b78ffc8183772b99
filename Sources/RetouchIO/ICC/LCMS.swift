// SPDX-License-Identifier: Apache-2.0

import CLCMS2
import CRetouchShims
import Foundation
import RetouchCore

/// An lcms2 context whose errors are recorded (never printed), with the profiles opened in it.
///
/// Identity and a C resource: not `Sendable`; create one per conversion and keep it in one task.
/// lcms reports errors through the context's log handler (see `rt_lcms.c`), so the first message
/// of a failed call is in ``lastError``.
package final class LCMSContext {
  let log: UnsafeMutablePointer<rt_lcms_log>
  let raw: UnsafeMutableRawPointer?

  package init() {
    log = .allocate(capacity: 1)
    log.initialize(to: rt_lcms_log())
    raw = rt_lcms_context_create(log)
  }

  deinit {
    rt_lcms_context_delete(raw)
    log.deallocate()
  }

  var handle: cmsContext? { raw.map { OpaquePointer($0) } }

  /// The first error lcms logged in this context, if any.
  package var lastError: String? {
    guard log.pointee.count > 0 else { return nil }
    return withUnsafeBytes(of: log.pointee.message) { bytes in
      let chars = bytes.prefix { $0 != 0 }
      return String(decoding: chars, as: UTF8.self)
    }
  }

  /// Forgets recorded errors.
  func clearErrors() {
    log.pointee.count = 0
    log.pointee.error_code = 0
  }
}

/// An open ICC profile (an lcms `cmsHPROFILE`), closed on deinit.
package final class LCMSProfile {
  let context: LCMSContext
  let handle: cmsHPROFILE

  /// Opens a profile from its bytes; `nil` when lcms rejects them (the reason is in
  /// `context.lastError`).
  package init?(_ data: Data, context: LCMSContext) {
    guard !data.isEmpty, data.count <= Int(UInt32.max) else { return nil }
    let h = data.withUnsafeBytes { raw in
      cmsOpenProfileFromMemTHR(context.handle, raw.baseAddress, cmsUInt32Number(raw.count))
    }
    guard let h else { return nil }
    self.context = context
    self.handle = h
  }

  init(owning handle: cmsHPROFILE, context: LCMSContext) {
    self.context = context
    self.handle = handle
  }

  deinit { cmsCloseProfile(handle) }

  /// Whether the profile describes RGB device values.
  package var isRGB: Bool { cmsGetColorSpace(handle) == cmsSigRgbData }

  /// The colour space signature as its four characters (`RGB `, `CMYK`, `GRAY`).
  package var colorSpaceName: String {
    let v = cmsGetColorSpace(handle).rawValue
    let bytes = [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: v >> $0) }
    return String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespaces)
  }

  /// The profile description (`desc` tag) in English, if present.
  package var profileDescription: String? {
    var buffer = [CChar](repeating: 0, count: 256)
    let n = cmsGetProfileInfoASCII(handle, cmsInfoDescription, "en", "US", &buffer, 256)
    guard n > 0 else { return nil }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// The red, green and blue colorant tags (PCS XYZ, D50-adapted), when all three are present.
  package var colorants: [SIMD3<Double>]? {
    var out: [SIMD3<Double>] = []
    for sig in [cmsSigRedColorantTag, cmsSigGreenColorantTag, cmsSigBlueColorantTag] {
      guard let p = cmsReadTag(handle, sig) else { return nil }
      let xyz = p.assumingMemoryBound(to: cmsCIEXYZ.self).pointee
      out.append(SIMD3(xyz.X, xyz.Y, xyz.Z))
    }
    return out
  }

  /// Evaluates the red, green and blue tone curves (`rTRC`…) at `x`, when all three are present.
  package func toneCurves(at x: Float) -> [Float]? {
    var out: [Float] = []
    for sig in [cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag] {
      guard let p = cmsReadTag(handle, sig) else { return nil }
      out.append(cmsEvalToneCurveFloat(OpaquePointer(p), x))
    }
    return out
  }

  /// Whether the profile holds a LUT-based transform (`A2B0`), which lcms prefers over the
  /// matrix/TRC tags.
  package var hasLUT: Bool { cmsIsTag(handle, cmsSigAToB0Tag) != 0 }
}

/// An lcms transform between two profiles, deleted on deinit.
///
/// `cmsDoTransform` may run concurrently on one transform with distinct buffers: lcms copies the
/// transform's one-pixel cache to the stack on each call and otherwise only reads it.
package final class LCMSTransform {
  let handle: cmsHTRANSFORM
  let source: LCMSProfile
  let destination: LCMSProfile

  /// Creates a transform (relative colorimetric by default); `nil` when lcms refuses.
  package init?(
    from source: LCMSProfile, format inFormat: UInt32, to destination: LCMSProfile,
    format outFormat: UInt32, intent: UInt32 = rt_lcms_INTENT_RELATIVE_COLORIMETRIC,
    flags: UInt32 = rt_lcms_FLAGS_BLACKPOINTCOMPENSATION
  ) {
    guard
      let t = cmsCreateTransformTHR(
        source.context.handle, source.handle, inFormat, destination.handle, outFormat, intent, flags
      )
    else { return nil }
    self.handle = t
    self.source = source
    self.destination = destination
  }

  deinit { cmsDeleteTransform(handle) }

  /// Transforms `count` pixels.
  package func transform(_ input: UnsafeRawPointer, _ output: UnsafeMutableRawPointer, count: Int) {
    cmsDoTransform(handle, input, output, cmsUInt32Number(count))
  }

  /// Transforms RGB float triples (for probing a handful of colours; lcms float paths are slow).
  package func transform(_ rgb: [SIMD3<Float>]) -> [SIMD3<Float>] {
    var input = rgb.flatMap { [$0.x, $0.y, $0.z] }
    var output = [Float](repeating: 0, count: input.count)
    cmsDoTransform(handle, &input, &output, cmsUInt32Number(rgb.count))
    return (0..<rgb.count).map { SIMD3(output[3 * $0], output[3 * $0 + 1], output[3 * $0 + 2]) }
  }
}
