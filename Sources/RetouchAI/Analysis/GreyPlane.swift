// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore

/// A single-channel Float raster for the cheap analysis passes (faces, focus, saliency).
///
/// `values` are gamma-encoded grey levels in 0...255 (the image's own encoding, weighted with
/// its colour space's luma coefficients), row-major and tightly packed.
package struct GreyPlane: Sendable, Hashable {
  package let width: Int
  package let height: Int
  package var values: [Float]

  package init(width: Int, height: Int, values: [Float]) {
    precondition(width > 0 && height > 0 && values.count == width * height)
    self.width = width
    self.height = height
    self.values = values
  }

  /// The grey levels of `image` (8- or 16-bit, with or without alpha; alpha is ignored).
  /// Cost: one pass, ~0.3 ms for 512×384.
  package init(image: Image) {
    let (wr, wg, wb) = image.colorSpace.lumaWeights
    let channels = image.format.channelCount
    let count = image.pixelCount
    var out = [Float](repeating: 0, count: count)
    image.withUnsafeBytes { raw in
      out.withUnsafeMutableBufferPointer { dst in
        if image.format.bitDepth == 8 {
          let src = raw.bindMemory(to: UInt8.self)
          for i in 0..<count {
            let p = i * channels
            dst[i] = wr * Float(src[p]) + wg * Float(src[p + 1]) + wb * Float(src[p + 2])
          }
        } else {
          let src = raw.bindMemory(to: UInt16.self)
          let s: Float = 255.0 / 65535.0
          for i in 0..<count {
            let p = i * channels
            dst[i] = s * (wr * Float(src[p]) + wg * Float(src[p + 1]) + wb * Float(src[p + 2]))
          }
        }
      }
    }
    self.init(width: image.width, height: image.height, values: out)
  }

  /// The plane shrunk to exactly `width` × `height` by area averaging (each output pixel is the
  /// coverage-weighted mean of the source pixels under it). Returns `self` when the size is
  /// unchanged; never enlarges (traps on a larger size: a programming error).
  package func areaResized(width newWidth: Int, height newHeight: Int) -> GreyPlane {
    precondition(newWidth > 0 && newHeight > 0 && newWidth <= width && newHeight <= height)
    if newWidth == width && newHeight == height { return self }
    let wx = Self.areaWeights(from: width, to: newWidth)
    let wy = Self.areaWeights(from: height, to: newHeight)
    // Horizontal pass into a newWidth × height buffer, then vertical.
    var mid = [Float](repeating: 0, count: newWidth * height)
    values.withUnsafeBufferPointer { src in
      mid.withUnsafeMutableBufferPointer { dst in
        for y in 0..<height {
          let row = y * width
          for x in 0..<newWidth {
            let (start, weights) = wx[x]
            var acc: Float = 0
            for k in 0..<weights.count { acc += weights[k] * src[row + start + k] }
            dst[y * newWidth + x] = acc
          }
        }
      }
    }
    var out = [Float](repeating: 0, count: newWidth * newHeight)
    mid.withUnsafeBufferPointer { src in
      out.withUnsafeMutableBufferPointer { dst in
        for y in 0..<newHeight {
          let (start, weights) = wy[y]
          for k in 0..<weights.count {
            let w = weights[k]
            let row = (start + k) * newWidth
            for x in 0..<newWidth { dst[y * newWidth + x] += w * src[row + x] }
          }
        }
      }
    }
    return GreyPlane(width: newWidth, height: newHeight, values: out)
  }

  /// The plane shrunk so its long edge is at most `longEdge` (aspect kept, each side >= 1).
  package func areaResized(toFitLongEdge longEdge: Int) -> GreyPlane {
    let long = max(width, height)
    if long <= longEdge { return self }
    let s = Double(longEdge) / Double(long)
    return areaResized(
      width: max(1, Int((Double(width) * s).rounded())),
      height: max(1, Int((Double(height) * s).rounded())))
  }

  /// For each output index, the first source index and the coverage weights (summing to 1).
  private static func areaWeights(from n: Int, to m: Int) -> [(Int, [Float])] {
    let scale = Double(n) / Double(m)
    return (0..<m).map { i in
      let lo = Double(i) * scale, hi = min(Double(n), Double(i + 1) * scale)
      let first = Int(lo), last = min(n - 1, Int((hi - 1e-9).rounded(.down)))
      var weights: [Float] = []
      for j in first...max(first, last) {
        let cover = min(hi, Double(j + 1)) - max(lo, Double(j))
        weights.append(Float(max(0, cover) / scale))
      }
      return (first, weights)
    }
  }

  /// Packs the plane into 8-bit values (rounded, clamped), for the face detector.
  package func bytes() -> [UInt8] {
    values.map { v in UInt8(max(0, min(255, v + 0.5))) }
  }
}

/// Colour conversions for the analysis: encoded RGB → linear → CIE XYZ → CIELAB (D65 white).
package struct LabConverter: Sendable {
  private let matrix: [Float]
  private let decode: [Float]

  package init(colorSpace: ColorSpace) {
    matrix = colorSpace.toXYZ.map(Float.init)
    decode = SRGBTables.decode8
  }

  /// Linear RGB (0...1) of an 8-bit encoded pixel.
  @inline(__always)
  package func linear(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> (Float, Float, Float) {
    (decode[Int(r)], decode[Int(g)], decode[Int(b)])
  }

  /// CIELAB (L* 0...100, a*, b*) of linear RGB in the converter's colour space, D65 white.
  package func lab(linear r: Float, _ g: Float, _ b: Float) -> (Float, Float, Float) {
    let m = matrix
    let x = (m[0] * r + m[1] * g + m[2] * b) / 0.95047
    let y = m[3] * r + m[4] * g + m[5] * b
    let z = (m[6] * r + m[7] * g + m[8] * b) / 1.08883
    let fx = Self.f(x), fy = Self.f(y), fz = Self.f(z)
    return (116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz))
  }

  @inline(__always)
  private static func f(_ t: Float) -> Float {
    t > 216.0 / 24389.0 ? cbrtf(t) : (24389.0 / 27.0 * t + 16) / 116
  }
}

/// Reads 8-bit RGB components of any ``Image`` format (16-bit is reduced to its high byte).
package struct PixelReader {
  private let bytes: UnsafeRawBufferPointer
  private let channels: Int
  private let sixteen: Bool
  package let width: Int

  package init(_ bytes: UnsafeRawBufferPointer, image: Image) {
    self.bytes = bytes
    channels = image.format.channelCount
    sixteen = image.format.bitDepth == 16
    width = image.width
  }

  @inline(__always)
  package func rgb(x: Int, y: Int) -> (UInt8, UInt8, UInt8) {
    let p = (y * width + x) * channels
    if sixteen {
      let s = bytes.bindMemory(to: UInt16.self)
      return (UInt8(s[p] >> 8), UInt8(s[p + 1] >> 8), UInt8(s[p + 2] >> 8))
    }
    return (bytes[p], bytes[p + 1], bytes[p + 2])
  }
}
