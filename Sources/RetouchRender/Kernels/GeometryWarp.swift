// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore

/// A 2-D affine map `(x, y) ↦ (m00·x + m01·y + m02, m10·x + m11·y + m12)`.
public struct AffineMap: Sendable, Hashable {
  public var m00, m01, m02, m10, m11, m12: Double

  public init(
    _ m00: Double, _ m01: Double, _ m02: Double, _ m10: Double, _ m11: Double, _ m12: Double
  ) {
    (self.m00, self.m01, self.m02, self.m10, self.m11, self.m12) = (m00, m01, m02, m10, m11, m12)
  }

  public static let identity = AffineMap(1, 0, 0, 0, 1, 0)

  public func apply(_ x: Double, _ y: Double) -> (x: Double, y: Double) {
    (m00 * x + m01 * y + m02, m10 * x + m11 * y + m12)
  }

  /// `self` after `first`: `(self ∘ first)(p) = self(first(p))`.
  public func after(_ first: AffineMap) -> AffineMap {
    AffineMap(
      m00 * first.m00 + m01 * first.m10, m00 * first.m01 + m01 * first.m11,
      m00 * first.m02 + m01 * first.m12 + m02,
      m10 * first.m00 + m11 * first.m10, m10 * first.m01 + m11 * first.m11,
      m10 * first.m02 + m11 * first.m12 + m12)
  }

  public var inverse: AffineMap {
    let det = m00 * m11 - m01 * m10
    let i00 = m11 / det, i01 = -m01 / det, i10 = -m10 / det, i11 = m00 / det
    return AffineMap(i00, i01, -(i00 * m02 + i01 * m12), i10, i11, -(i10 * m02 + i11 * m12))
  }
}

/// Where every output pixel of a full render comes from: quarter turns and flips, then the crop,
/// then straightening about the crop's centre with the zoom that leaves no empty corners.
///
/// Coordinates are continuous, with pixel centres at half-integers. The map from output pixel
/// centres to source positions is one affine transform, so the whole geometry is one resampling
/// pass (or an exact copy when the map only permutes whole pixels).
public struct GeometryTransform: Sendable, Hashable {
  /// Output pixel centre → position in the upright source image.
  public let outputToSource: AffineMap
  public let outputSize: PixelSize
  /// The zoom applied to fill the crop after straightening (1 when not straightened).
  public let straightenZoom: Double

  /// The geometry of `config` for an upright source of `sourceSize` pixels.
  public init(config: EditConfig, sourceSize: PixelSize) {
    let W = Double(sourceSize.width), H = Double(sourceSize.height)
    // Forward map upright → rotated/flipped ("shown") image, built step by step.
    var forward = AffineMap.identity
    var w = W, h = H
    if config.editRotation.isFlipped { forward = AffineMap(-1, 0, w, 0, 1, 0).after(forward) }
    for _ in 0..<config.editRotation.quarterTurns {
      forward = AffineMap(0, -1, h, 1, 0, 0).after(forward)  // 90° clockwise: (x, y) ↦ (h − y, x)
      swap(&w, &h)
    }
    let shownW = Int(w.rounded()), shownH = Int(h.rounded())
    let crop = config.crop.isValid ? config.crop : .full
    let px = crop.pixelRect(width: shownW, height: shownH)
    let cw = Double(px.width), ch = Double(px.height)
    let cx = Double(px.x) + cw / 2, cy = Double(px.y) + ch / 2
    let theta = config.straightenDegrees * .pi / 180
    let zoom =
      theta == 0
      ? 1 : Self.zoom(theta: theta, cropCenter: (cx, cy), cropSize: (cw, ch), shown: (w, h))
    let c = cos(theta) / zoom, s = sin(theta) / zoom
    // Output (u, v) → shown: centre + R(−θ)·(p − crop centre) / zoom.
    let ox = cw / 2, oy = ch / 2
    let toShown = AffineMap(c, s, cx - c * ox - s * oy, -s, c, cy + s * ox - c * oy)
    outputToSource = forward.inverse.after(toShown)
    outputSize = PixelSize(width: px.width, height: px.height)
    straightenZoom = zoom
  }

  /// The least zoom ≥ 1 about the crop centre so that the crop, turned by −θ into the shown
  /// image, stays inside it.
  static func zoom(
    theta: Double, cropCenter: (Double, Double), cropSize: (Double, Double), shown: (Double, Double)
  ) -> Double {
    let c = cos(theta), s = sin(theta)
    var z = 1.0
    for (dx, dy) in [(-1.0, -1.0), (1, -1), (1, 1), (-1, 1)] {
      let px = dx * cropSize.0 / 2, py = dy * cropSize.1 / 2
      let qx = c * px + s * py, qy = -s * px + c * py
      if qx > 0 { z = max(z, qx / max(1e-9, shown.0 - cropCenter.0)) }
      if qx < 0 { z = max(z, -qx / max(1e-9, cropCenter.0)) }
      if qy > 0 { z = max(z, qy / max(1e-9, shown.1 - cropCenter.1)) }
      if qy < 0 { z = max(z, -qy / max(1e-9, cropCenter.1)) }
    }
    return z
  }

  /// Whether the geometry changes nothing.
  public func isIdentity(for sourceSize: PixelSize) -> Bool {
    outputSize == sourceSize && outputToSource == .identity
  }

  /// Whether every output pixel centre lands exactly on a source pixel centre (quarter turns,
  /// flips and whole-pixel crops): the warp is then an exact copy.
  public var isWholePixelPermutation: Bool {
    let m = outputToSource
    func isUnit(_ v: Double) -> Bool { abs(abs(v) - 1) < 1e-12 || abs(v) < 1e-12 }
    func isHalfInt(_ v: Double) -> Bool { abs(v - v.rounded()) < 1e-9 }
    guard isUnit(m.m00), isUnit(m.m01), isUnit(m.m10), isUnit(m.m11) else { return false }
    // Centre (0.5, 0.5) must map to a centre.
    let p = m.apply(0.5, 0.5)
    return isHalfInt(p.x - 0.5) && isHalfInt(p.y - 0.5)
  }
}

extension Image {
  /// The output of `transform`: an exact pixel copy for whole-pixel permutations, otherwise
  /// bilinear resampling (edges clamped), over row bands in parallel.
  ///
  /// Bilinear is what straightening by a few degrees needs at export sizes (the zoom is ≥ 1, so
  /// no antialiasing is required). Cost: one pass over the output.
  public func warped(by transform: GeometryTransform) -> Image {
    if transform.isIdentity(for: size) { return self }
    let out = transform.outputSize
    var result = Image(
      uninitializedWidth: out.width, height: out.height, format: format, colorSpace: colorSpace)
    let m = transform.outputToSource
    let exact = transform.isWholePixelPermutation
    let n = format.channelCount
    let sw = width, sh = height
    let eight = format.bitDepth == 8
    withUnsafeBytes { src in
      result.withUnsafeMutableBytes { dst in
        let s = SendableRawPointer(src.baseAddress!)
        let d = SendableRawPointer(dst.baseAddress!)
        ParallelBands.forEach(rows: out.height, minimumBandHeight: 32) { band in
          if exact {
            let bpp = n * (eight ? 1 : 2)
            for v in band {
              let row = d.pointer + v * out.width * bpp
              for u in 0..<out.width {
                let p = m.apply(Double(u) + 0.5, Double(v) + 0.5)
                let x = min(sw - 1, max(0, Int(p.x))), y = min(sh - 1, max(0, Int(p.y)))
                (row + u * bpp).copyMemory(from: s.pointer + (y * sw + x) * bpp, byteCount: bpp)
              }
            }
          } else if eight {
            Self.bilinearRows(
              band, m: m, src: s.pointer.assumingMemoryBound(to: UInt8.self),
              sw: sw, sh: sh, dst: d.pointer.assumingMemoryBound(to: UInt8.self), ow: out.width,
              n: n)
          } else {
            Self.bilinearRows(
              band, m: m, src: s.pointer.assumingMemoryBound(to: UInt16.self),
              sw: sw, sh: sh, dst: d.pointer.assumingMemoryBound(to: UInt16.self), ow: out.width,
              n: n)
          }
        }
      }
    }
    return result
  }

  /// Bilinear resampling of `rows` of the output, for 8- or 16-bit components.
  static func bilinearRows<T: FixedWidthInteger & UnsignedInteger>(
    _ rows: Range<Int>, m: AffineMap, src: UnsafeMutablePointer<T>, sw: Int, sh: Int,
    dst: UnsafeMutablePointer<T>, ow: Int, n: Int
  ) {
    let maxX = Float(sw - 1), maxY = Float(sh - 1)
    for v in rows {
      // Incremental evaluation of the affine map along the row, in Float (sub-pixel error far
      // below a code value for rows up to 65k pixels).
      let start = m.apply(0.5, Double(v) + 0.5)
      var x = Float(start.x) - 0.5, y = Float(start.y) - 0.5
      let dx = Float(m.m00), dy = Float(m.m10)
      var o = dst + v * ow * n
      for _ in 0..<ow {
        let cx = min(max(x, 0), maxX), cy = min(max(y, 0), maxY)
        let x0 = Int(truncatingIfNeeded: Int32(cx)), y0 = Int(truncatingIfNeeded: Int32(cy))
        let fx = cx - Float(x0), fy = cy - Float(y0)
        let x1 = min(x0 + 1, sw - 1), y1 = min(y0 + 1, sh - 1)
        let p00 = src + (y0 * sw + x0) * n, p01 = src + (y0 * sw + x1) * n
        let p10 = src + (y1 * sw + x0) * n, p11 = src + (y1 * sw + x1) * n
        let w00 = (1 - fx) * (1 - fy), w01 = fx * (1 - fy), w10 = (1 - fx) * fy, w11 = fx * fy
        for c in 0..<n {
          let value =
            Float(p00[c]) * w00 + Float(p01[c]) * w01 + Float(p10[c]) * w10 + Float(p11[c]) * w11
          o[c] = T(truncatingIfNeeded: Int32(value + 0.5))
        }
        o += n
        x += dx
        y += dy
      }
    }
  }
}
