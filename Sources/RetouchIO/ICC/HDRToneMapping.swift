// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore

/// Brings HDR pixels (BT.2100 PQ or HLG, as AVIF and HEIF files signal them in `nclx`) down to
/// an SDR working space, so that an HDR photo looks like itself instead of grey and flat.
///
/// 1. The code values go through the transfer's inverse to light: PQ's EOTF (SMPTE ST 2084) in
///    nits; HLG's inverse OETF, then its OOTF for a 1,000-nit display (γ 1.2, ITU-R BT.2100).
/// 2. Light is measured against HDR reference white, 203 nits (ITU-R BT.2408), which is SDR
///    white. When the photo's brightest sample goes beyond it, everything up to
///    ``shoulderStart`` of reference white stays as it is and the light above rolls off along an
///    extended Reinhard curve (slope 1 where it starts) that brings the brightest sample to
///    white, so highlights keep their gradation. The curve acts on the largest of the three
///    channels and scales all three alike, so hues and saturation stay.
/// 3. The linear colour moves from the file's primaries into Display P3 (BT.2020 and P3 sources)
///    or sRGB (BT.709 sources), colours outside it clipped, and is encoded with the sRGB curve.
///
/// Costs a pass for the brightest sample, then one table look-up per sample and a division per
/// pixel above the shoulder, over row bands in parallel.
package enum HDRToneMapping {
  /// The two HDR transfers of ITU-R BT.2100.
  package enum Transfer: Sendable {
    /// Perceptual quantizer (SMPTE ST 2084), `nclx` transfer 16: absolute, up to 10,000 nits.
    case pq
    /// Hybrid log-gamma (ARIB STD-B67), `nclx` transfer 18: relative to the display's peak.
    case hlg

    /// The transfer of `nclx` transfer characteristics `code`, or nil when it is not HDR.
    package init?(nclxTransfer code: Int) {
      switch code {
      case 16: self = .pq
      case 18: self = .hlg
      default: return nil
      }
    }
  }

  /// HDR reference (diffuse) white in nits (ITU-R BT.2408), mapped to SDR white.
  static let referenceWhite = 203.0
  /// The peak luminance HLG is displayed at (the BT.2100 reference display).
  static let hlgDisplayPeak = 1000.0
  /// The share of reference white up to which light is kept as it is (see the type's notes).
  static let shoulderStart: Float = 0.8

  /// `image` (code values of `transfer` over `primaries`) tone-mapped to SDR, in Display P3 or
  /// sRGB (see the type's notes), at the image's own bit depth. Alpha is copied.
  package static func toneMapped(
    _ image: Image, transfer: Transfer, primaries: RGBPrimaries
  ) -> Image {
    let target: ColorSpace = primaries == .sRGB ? .sRGB : .displayP3
    let m = ColorSpace.linearMatrix(from: primaries, to: target).elements.map { Float($0) }
    let rows = (SIMD3(m[0], m[1], m[2]), SIMD3(m[3], m[4], m[5]), SIMD3(m[6], m[7], m[8]))
    let luma = lumaWeights(primaries)
    let sixteen = image.format.bitDepth == 16
    let maxCode = sixteen ? 65535 : 255
    let light = lightTable(transfer: transfer, maxCode: maxCode)
    var out = Image(
      uninitializedWidth: image.width, height: image.height, format: image.format,
      colorSpace: target)
    let channels = image.format.channelCount
    let width = image.width
    let hlg = transfer == .hlg
    let hlgGain = Float(hlgDisplayPeak / referenceWhite)
    // The brightest light in the photo: its largest code value, as a grey on HLG's display.
    let brightest = light[image.maxColourCode()]
    let peak = hlg ? hlgGain * Float(pow(Double(brightest), 1.2)) : brightest
    let curve = Shoulder(peak: peak)
    let scale = Float(maxCode)
    image.withUnsafeBytes { source in
      out.withUnsafeMutableBytes { destination in
        let s = SendableRawPointer(source.baseAddress!)
        let d = SendableRawPointer(destination.baseAddress!)
        light.withUnsafeBufferPointer { table in
          let lut = SendableRawPointer(UnsafeRawPointer(table.baseAddress!))
          ParallelBands.forEach(rows: image.height) { band in
            let t = lut.pointer.assumingMemoryBound(to: Float.self)
            SRGBTables.encodeTable.withUnsafeBufferPointer { encode in
              let e = encode.baseAddress!
              for i in (band.lowerBound * width)..<(band.upperBound * width) {
                let base = i * channels
                var rgb: SIMD3<Float>
                var alpha = 0
                if sixteen {
                  let p = s.pointer.assumingMemoryBound(to: UInt16.self) + base
                  rgb = SIMD3(t[Int(p[0])], t[Int(p[1])], t[Int(p[2])])
                  if channels == 4 { alpha = Int(p[3]) }
                } else {
                  let p = s.pointer.assumingMemoryBound(to: UInt8.self) + base
                  rgb = SIMD3(t[Int(p[0])], t[Int(p[1])], t[Int(p[2])])
                  if channels == 4 { alpha = Int(p[3]) }
                }
                if hlg {
                  // OOTF: display light = peak × Ys^(γ − 1) × scene light, γ = 1.2.
                  let ys = max((rgb * luma).sum(), 1e-6)
                  rgb *= hlgGain * Float(pow(Double(ys), 0.2))
                }
                rgb = curve.applied(to: rgb)
                let mapped = SIMD3<Float>(
                  (rows.0 * rgb).sum(), (rows.1 * rgb).sum(), (rows.2 * rgb).sum())
                let encoded =
                  SIMD3(
                    SRGBTables.encodeClamped(mapped.x, table: e),
                    SRGBTables.encodeClamped(mapped.y, table: e),
                    SRGBTables.encodeClamped(mapped.z, table: e)) * scale
                let codes = (encoded + 0.5).rounded(.down)
                if sixteen {
                  let q = d.pointer.assumingMemoryBound(to: UInt16.self) + base
                  q[0] = UInt16(codes.x)
                  q[1] = UInt16(codes.y)
                  q[2] = UInt16(codes.z)
                  if channels == 4 { q[3] = UInt16(alpha) }
                } else {
                  let q = d.pointer.assumingMemoryBound(to: UInt8.self) + base
                  q[0] = UInt8(codes.x)
                  q[1] = UInt8(codes.y)
                  q[2] = UInt8(codes.z)
                  if channels == 4 { q[3] = UInt8(alpha) }
                }
              }
            }
          }
        }
      }
    }
    return out
  }

  /// The highlight roll-off for a photo whose brightest light is `peak` (reference white 1).
  struct Shoulder {
    /// Where the roll-off starts (``shoulderStart``); `.infinity` when nothing needs it.
    let start: Float
    /// The brightest light's distance above `start`, in units of the room left below white.
    let reach: Float

    init(peak: Float) {
      let k = shoulderStart
      start = peak > 1 ? k : .infinity
      reach = max((peak - k) / (1 - k), 1)
    }

    /// `rgb` (linear, reference white 1) with its largest channel `m` taken from above
    /// ``start`` toward 1 by `k + (1 − k)·g(t)`, `t = (m − k)/(1 − k)`,
    /// `g(t) = t·(1 + t/reach²)/(1 + t)`: `g(0) = 0`, `g′(0) = 1`, `g(reach) = 1`.
    func applied(to rgb: SIMD3<Float>) -> SIMD3<Float> {
      let m = rgb.max()
      guard m > start else { return rgb }
      let k = start
      let t = (m - k) / (1 - k)
      let g = min(1, t * (1 + t / (reach * reach)) / (1 + t))
      return rgb * ((k + (1 - k) * g) / m)
    }
  }

  /// For every code value `0...maxCode`: the light it stands for, relative to reference white
  /// (PQ), or HLG's scene light (0...1, before the OOTF).
  static func lightTable(transfer: Transfer, maxCode: Int) -> [Float] {
    (0...maxCode).map { code in
      let e = Double(code) / Double(maxCode)
      switch transfer {
      case .pq: return Float(pqNits(e) / referenceWhite)
      case .hlg: return Float(hlgSceneLight(e))
      }
    }
  }

  /// SMPTE ST 2084's EOTF: a code value in `0...1` to nits.
  static func pqNits(_ e: Double) -> Double {
    let m1 = 2610.0 / 16384, m2 = 2523.0 / 4096 * 128
    let c1 = 3424.0 / 4096, c2 = 2413.0 / 4096 * 32, c3 = 2392.0 / 4096 * 32
    let p = pow(max(e, 0), 1 / m2)
    return 10000 * pow(max(p - c1, 0) / (c2 - c3 * p), 1 / m1)
  }

  /// HLG's inverse OETF (ITU-R BT.2100): a code value in `0...1` to scene light in `0...1`.
  static func hlgSceneLight(_ e: Double) -> Double {
    let a = 0.17883277, b = 1 - 4 * 0.17883277, c = 0.5 - a * log(4 * a)
    return e <= 0.5 ? e * e / 3 : (exp((e - c) / a) + b) / 12
  }

  /// The luminance weights (the Y row of RGB → XYZ) of `primaries`.
  static func lumaWeights(_ primaries: RGBPrimaries) -> SIMD3<Float> {
    let m = primaries.toXYZ
    return SIMD3(Float(m[1, 0]), Float(m[1, 1]), Float(m[1, 2]))
  }
}

extension Image {
  /// The largest red, green or blue sample (alpha left out), as a code value.
  fileprivate func maxColourCode() -> Int {
    let channels = format.channelCount
    let count = width * height
    return withUnsafeBytes { raw in
      var top = 0
      if format.bitDepth == 16 {
        let p = raw.bindMemory(to: UInt16.self)
        for i in 0..<count {
          let base = i * channels
          top = Swift.max(top, Int(Swift.max(p[base], Swift.max(p[base + 1], p[base + 2]))))
        }
      } else {
        let p = raw.bindMemory(to: UInt8.self)
        for i in 0..<count {
          let base = i * channels
          top = Swift.max(top, Int(Swift.max(p[base], Swift.max(p[base + 1], p[base + 2]))))
        }
      }
      return top
    }
  }
}
