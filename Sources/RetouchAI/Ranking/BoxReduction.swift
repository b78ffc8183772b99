// SPDX-License-Identifier: Apache-2.0

import RetouchCore

/// Box reduction of an 8-bit RGB image: each output pixel is the mean of the source pixels
/// whose centres lie in its area (the box filter of
/// ``RetouchCore/Image/resized(to:filter:inLinearLight:threads:)``, with its own weight
/// table, `ResamplingWeights`), in the encoded values (no light-linear conversion), rounded to
/// nearest.
///
/// What the ranking's measuring copy is made with. The general resampler gave the same copy
/// (codes within one, where an average lands on a half) in 0.96 ms median for a 512×384
/// analysis copy to 160×120 (`retouch-bench ai`, one thread, 2-vCPU Xeon), the largest part of
/// `topSuggestion`'s serial work after the analysis: it converts every source pixel to a
/// four-float vector and filters both axes generically. Here the source rows an output row
/// covers are summed first (one contiguous loop over bytes), then the few columns each output
/// pixel covers: 0.31 ms.
enum BoxReduction {
  /// `image` (8-bit RGB) reduced to `width` × `height`, each no larger than the source's and
  /// positive; the image itself when the size is unchanged.
  static func rgb8(_ image: Image, width newWidth: Int, height newHeight: Int) -> Image {
    precondition(image.format == .rgb8, "box reduction reads 8-bit RGB")
    precondition(
      newWidth > 0 && newHeight > 0 && newWidth <= image.width && newHeight <= image.height)
    if newWidth == image.width && newHeight == image.height { return image }
    let width = image.width
    // The resampler's own box weights: a fixed `taps` per output, windows at the edges
    // shifted inward with zero weights (adding 0 · s leaves a non-negative sum unchanged).
    let wx = ResamplingWeights(
      filter: .box, inCount: width, outCount: newWidth,
      scale: Double(width) / Double(newWidth))
    let wy = ResamplingWeights(
      filter: .box, inCount: image.height, outCount: newHeight,
      scale: Double(image.height) / Double(newHeight))
    var result = Image(
      uninitializedWidth: newWidth, height: newHeight, format: .rgb8, colorSpace: image.colorSpace)
    let rowFloats = width * 3
    // One float of padding: the last pixel's vector load reads past its three sums.
    var column = [Float](repeating: 0, count: rowFloats + 1)
    image.withUnsafeBytes { raw in
      result.withUnsafeMutableBytes { out in
        column.withUnsafeMutableBufferPointer { acc in
          wx.starts.withUnsafeBufferPointer { xStarts in
            wx.weights.withUnsafeBufferPointer { xWeights in
              wy.starts.withUnsafeBufferPointer { yStarts in
                wy.weights.withUnsafeBufferPointer { yWeights in
                  let src = raw.bindMemory(to: UInt8.self).baseAddress!
                  let dst = out.bindMemory(to: UInt8.self).baseAddress!
                  let sum = acc.baseAddress!
                  let sums = UnsafeRawPointer(sum)
                  let xTaps = wx.taps, yTaps = wy.taps
                  for y in 0..<newHeight {
                    // The covered rows, weighted, summed column by column.
                    let first = yStarts[y]
                    let w = yWeights.baseAddress! + y &* yTaps
                    for i in 0..<rowFloats { sum[i] = w[0] * Float(src[first &* rowFloats &+ i]) }
                    for k in 1..<yTaps {
                      let row = src + (first &+ k) &* rowFloats
                      for i in 0..<rowFloats { sum[i] += w[k] * Float(row[i]) }
                    }
                    // Then the covered columns of each output pixel, a pixel's three sums
                    // loaded as one vector (its fourth lane, the next pixel's red or the
                    // padding, is dropped).
                    let line = dst + y &* newWidth &* 3
                    for x in 0..<newWidth {
                      var v = SIMD4<Float>()
                      let start = xStarts[x] &* 12
                      let wxs = xWeights.baseAddress! + x &* xTaps
                      for k in 0..<xTaps {
                        v +=
                          wxs[k]
                          * sums.loadUnaligned(
                            fromByteOffset: start &+ 12 &* k, as: SIMD4<Float>.self)
                      }
                      let c = codes(v)
                      line[3 &* x] = UInt8(truncatingIfNeeded: c[0])
                      line[3 &* x &+ 1] = UInt8(truncatingIfNeeded: c[1])
                      line[3 &* x &+ 2] = UInt8(truncatingIfNeeded: c[2])
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
    return result
  }

  /// `image` reduced so its long edge is `longEdge` pixels (each side at least one, rounded to
  /// nearest), sized as
  /// ``RetouchCore/Image/resized(toFitLongEdge:allowingUpscale:filter:inLinearLight:threads:)``
  /// sizes it; the image itself when it already fits.
  static func rgb8(_ image: Image, toFitLongEdge longEdge: Int) -> Image {
    let long = max(image.width, image.height)
    if long <= longEdge { return image }
    let s = Double(longEdge) / Double(long)
    return rgb8(
      image, width: max(1, Int((Double(image.width) * s).rounded())),
      height: max(1, Int((Double(image.height) * s).rounded())))
  }

  /// Code values rounded to nearest, clamped to 0...255 (the float-mantissa trick: no
  /// trapping conversion).
  @inline(__always)
  private static func codes(_ v: SIMD4<Float>) -> SIMD4<UInt32> {
    let clamped = pointwiseMin(pointwiseMax(v, SIMD4(repeating: 0)), SIMD4(repeating: 255))
    // 1.5 · 2²³: adding it leaves the rounded integer in the mantissa.
    let magic = SIMD4<Float>(repeating: 12_582_912)
    return unsafeBitCast(clamped + magic, to: SIMD4<UInt32>.self)
      &- unsafeBitCast(magic, to: SIMD4<UInt32>.self)
  }
}
