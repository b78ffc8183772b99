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
    let width = image.width, eightBit = image.format.bitDepth == 8
    // Rows in parallel bands; each pixel's value depends on that pixel alone.
    let out = [Float](unsafeUninitializedCapacity: count) { dst, initialized in
      image.withUnsafeBytes { raw in
        guard let base = raw.baseAddress, let d = dst.baseAddress else { return }
        let src = SendableRawPointer(base)
        let out = SendableRawPointer(UnsafeMutableRawPointer(d))
        ParallelBands.forEach(rows: image.height) { rows in
          let dst = out.pointer.assumingMemoryBound(to: Float.self)
          let range = (rows.lowerBound * width)..<(rows.upperBound * width)
          // Wrapping index arithmetic (the indices are within the image): with checked
          // arithmetic the loop is not vectorised.
          if eightBit {
            let src = src.pointer.assumingMemoryBound(to: UInt8.self)
            for i in range {
              let p = i &* channels
              dst[i] = wr * Float(src[p]) + wg * Float(src[p &+ 1]) + wb * Float(src[p &+ 2])
            }
          } else {
            let src = src.pointer.assumingMemoryBound(to: UInt16.self)
            let s: Float = 255.0 / 65535.0
            for i in range {
              let p = i &* channels
              dst[i] =
                s * (wr * Float(src[p]) + wg * Float(src[p &+ 1]) + wb * Float(src[p &+ 2]))
            }
          }
        }
      }
      initialized = count
    }
    self.init(width: image.width, height: image.height, values: out)
  }

  /// The plane shrunk to exactly `width` × `height` by area averaging (each output pixel is the
  /// coverage-weighted mean of the source pixels under it). Returns `self` when the size is
  /// unchanged; never enlarges (traps on a larger size: a programming error).
  /// Cost: two passes over flat weight tables; with `bytes()`, about a quarter of the face
  /// detector's C++ scan for 512×384 → 448×336 (~1 ms of CPU on the loaded 2-vCPU machine).
  package func areaResized(width newWidth: Int, height newHeight: Int) -> GreyPlane {
    precondition(newWidth > 0 && newHeight > 0 && newWidth <= width && newHeight <= height)
    if newWidth == width && newHeight == height { return self }
    let wx = AreaWeights(from: width, to: newWidth)
    let wy = AreaWeights(from: height, to: newHeight)
    let width = width, height = height
    // Horizontal pass into a newWidth × height buffer, then vertical. Each output of the
    // horizontal pass reads the same number of taps (the most any output needs, 2–3 when
    // shrinking by less than 2×): the extra taps have weight 0 and read an in-bounds pixel, and
    // adding 0 · s (+0) leaves the non-negative sum unchanged, so the values are those of
    // variable-length sums; the fixed count lets the compiler unroll the loop. The face
    // detector's grey copy (this reduction and `bytes()`), in perf samples relative to its C++
    // scan: 0.32 → 0.24.
    let taps = wx.count.max() ?? 1
    var tapIndex = [Int](repeating: 0, count: newWidth * taps)
    var tapWeight = [Float](repeating: 0, count: newWidth * taps)
    wx.withPointers { first, count, offset, weight in
      for x in 0..<newWidth {
        for k in 0..<taps {
          tapIndex[x * taps + k] = k < count[x] ? first[x] + k : first[x]
          tapWeight[x * taps + k] = k < count[x] ? weight[offset[x] + k] : 0
        }
      }
    }
    var mid = [Float](repeating: 0, count: newWidth * height)
    values.withUnsafeBufferPointer { src in
      mid.withUnsafeMutableBufferPointer { dst in
        tapIndex.withUnsafeBufferPointer { index in
          tapWeight.withUnsafeBufferPointer { weight in
            for y in 0..<height {
              let row = src.baseAddress! + y * width
              let out = dst.baseAddress! + y * newWidth
              switch taps {
              // Wrapping index arithmetic (indices stay within the tables): checked
              // multiplications kept these loops from being vectorised.
              case 2:
                for x in 0..<newWidth {
                  let t = 2 &* x
                  var acc: Float = 0
                  acc += weight[t] * row[index[t]]
                  acc += weight[t &+ 1] * row[index[t &+ 1]]
                  out[x] = acc
                }
              case 3:
                for x in 0..<newWidth {
                  let t = 3 &* x
                  var acc: Float = 0
                  acc += weight[t] * row[index[t]]
                  acc += weight[t &+ 1] * row[index[t &+ 1]]
                  acc += weight[t &+ 2] * row[index[t &+ 2]]
                  out[x] = acc
                }
              default:
                for x in 0..<newWidth {
                  var acc: Float = 0
                  for k in 0..<taps { acc += weight[x * taps + k] * row[index[x * taps + k]] }
                  out[x] = acc
                }
              }
            }
          }
        }
      }
    }
    var out = [Float](repeating: 0, count: newWidth * newHeight)
    mid.withUnsafeBufferPointer { src in
      out.withUnsafeMutableBufferPointer { dst in
        wy.withPointers { first, count, offset, weight in
          for y in 0..<newHeight {
            let d = dst.baseAddress! + y * newWidth
            for k in 0..<count[y] {
              let w = weight[offset[y] + k]
              let s = src.baseAddress! + (first[y] + k) * newWidth
              for x in 0..<newWidth { d[x] += w * s[x] }
            }
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

  /// Packs the plane into 8-bit values (rounded, clamped), for the face detector.
  package func bytes() -> [UInt8] {
    [UInt8](unsafeUninitializedCapacity: values.count) { out, initialized in
      values.withUnsafeBufferPointer { src in
        for i in 0..<src.count {
          // Clamped to 0.5...255, then rounded down (which rounds the value); the integer
          // is read from the float's bits once 2²³ is added (exact below 2²³), a conversion
          // that cannot trap, so the loop is vectorised.
          let v = max(0, min(255, src[i] + 0.5)).rounded(.down)
          out[i] = UInt8(truncatingIfNeeded: (v + 8_388_608).bitPattern)
        }
      }
      initialized = values.count
    }
  }
}

/// Area-averaging weights from `n` source samples to `m` outputs, in flat tables: output `i`
/// reads `count[i]` sources from `first[i]`, weighted by `weight[offset[i]...]` (summing to 1).
private struct AreaWeights {
  var first: [Int] = [], count: [Int] = [], offset: [Int] = []
  var weight: [Float] = []

  init(from n: Int, to m: Int) {
    let scale = Double(n) / Double(m)
    for i in 0..<m {
      let lo = Double(i) * scale, hi = min(Double(n), Double(i + 1) * scale)
      let start = Int(lo), last = min(n - 1, Int((hi - 1e-9).rounded(.down)))
      first.append(start)
      offset.append(weight.count)
      for j in start...max(start, last) {
        let cover = min(hi, Double(j + 1)) - max(lo, Double(j))
        weight.append(Float(max(0, cover) / scale))
      }
      count.append(weight.count - offset[i])
    }
  }

  func withPointers<R>(
    _ body: (
      UnsafePointer<Int>, UnsafePointer<Int>, UnsafePointer<Int>, UnsafePointer<Float>
    ) -> R
  ) -> R {
    first.withUnsafeBufferPointer { f in
      count.withUnsafeBufferPointer { c in
        offset.withUnsafeBufferPointer { o in
          weight.withUnsafeBufferPointer { w in
            body(f.baseAddress!, c.baseAddress!, o.baseAddress!, w.baseAddress!)
          }
        }
      }
    }
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
    // Wrapping arithmetic: callers pass coordinates inside the image, and overflow checks in
    // this index kept the analysis's pixel loops from being optimised.
    let p = (y &* width &+ x) &* channels
    if sixteen {
      let s = bytes.bindMemory(to: UInt16.self)
      return (UInt8(s[p] >> 8), UInt8(s[p &+ 1] >> 8), UInt8(s[p &+ 2] >> 8))
    }
    return (bytes[p], bytes[p &+ 1], bytes[p &+ 2])
  }
}
