// SPDX-License-Identifier: Apache-2.0

import Dispatch

/// Per-channel histograms (R, G, B and luma) of an 8- or 16-bit ``Image``.
///
/// Bins split the code range evenly: value `v` of an image with maximum `M` (255 or 65535) falls
/// in bin `⌊v × binCount / (M + 1)⌋`, so with 256 bins an 8-bit image has one bin per code and a
/// 16-bit one 256 codes per bin. Luma is `Y' = wr·R' + wg·G' + wb·B'` on the *encoded* values with
/// the weights of the image's colour space (``ColorSpace/lumaWeights``: Rec. 709 for sRGB, P3 for
/// Display P3), rounded to the nearest code in fixed point (weights × 2¹⁴). Alpha is ignored.
///
/// Counting is one pass, parallel over row bands, each band filling its own partial histogram;
/// the partials are summed in band order, so counts do not depend on the thread count.
public struct Histogram: Hashable, Sendable {
  /// The channel a histogram describes.
  public enum Channel: Int, Hashable, Sendable, CaseIterable {
    case red, green, blue, luminance
  }

  /// Bins per channel.
  public let binCount: Int
  /// Number of pixels counted (each channel's counts sum to this).
  public let pixelCount: Int
  /// Counts for ``Channel/red``, ``Channel/green``, ``Channel/blue``, ``Channel/luminance``.
  public let red: [Int]
  public let green: [Int]
  public let blue: [Int]
  public let luminance: [Int]

  /// Counts the pixels of `image` into `binCount` bins per channel (`1...65536`, traps outside).
  ///
  /// Cost: one pass over the pixels plus a merge of `4 × threads` partial histograms.
  public init(_ image: Image, binCount: Int = 256, threads: Int? = nil) {
    precondition(binCount >= 1 && binCount <= 65536, "binCount must be in 1...65536")
    let w = image.width, h = image.height, n = image.format.channelCount
    let eight = image.format.bitDepth == 8
    let codes = eight ? 256 : 65536
    // Map codes to bins with a table (exact integer arithmetic, no division per pixel).
    let binOf: [UInt32] = (0..<codes).map { UInt32($0 * binCount / codes) }
    let lw = image.colorSpace.lumaWeights
    let wr = UInt32((lw.r * 16384).rounded()), wg = UInt32((lw.g * 16384).rounded())
    let wb = 16384 - wr - wg  // weights sum to exactly 2¹⁴ so white stays white
    let bandCount = min(h, max(1, (threads ?? ParallelBands.defaultThreadCount) * 4))
    let bands = ParallelBands.bandRanges(rows: h, count: bandCount)
    let stride = 4 * binCount
    let partial = UnsafeMutablePointer<Int>.allocate(capacity: bands.count * stride)
    partial.initialize(repeating: 0, count: bands.count * stride)
    defer { partial.deallocate() }
    let partialPtr = SendableRawPointer(UnsafeMutableRawPointer(partial))
    image.withUnsafeBytes { raw in
      let src = SendableRawPointer(raw.baseAddress!)
      // Each "row" of this loop is one band of image rows, so band i writes only partial i.
      ParallelBands.forEach(rows: bands.count, minimumBandHeight: 1, threads: threads) { range in
        binOf.withUnsafeBufferPointer { bins in
          for b in range {
            let hist = partialPtr.pointer.assumingMemoryBound(to: Int.self) + b * stride
            let hr = hist, hg = hist + binCount, hb = hist + 2 * binCount, hy = hist + 3 * binCount
            let rows = bands[b]
            let count = rows.count * w
            if eight {
              let p = src.pointer.assumingMemoryBound(to: UInt8.self) + rows.lowerBound * w * n
              for i in 0..<count {
                let r = UInt32(p[i * n]), g = UInt32(p[i * n + 1]), bl = UInt32(p[i * n + 2])
                let y = (wr * r + wg * g + wb * bl + 8192) >> 14
                hr[Int(bins[Int(r)])] += 1
                hg[Int(bins[Int(g)])] += 1
                hb[Int(bins[Int(bl)])] += 1
                hy[Int(bins[Int(y)])] += 1
              }
            } else {
              let p = src.pointer.assumingMemoryBound(to: UInt16.self) + rows.lowerBound * w * n
              for i in 0..<count {
                let r = UInt32(p[i * n]), g = UInt32(p[i * n + 1]), bl = UInt32(p[i * n + 2])
                let y = (UInt64(wr * r) + UInt64(wg * g) + UInt64(wb * bl) + 8192) >> 14
                hr[Int(bins[Int(r)])] += 1
                hg[Int(bins[Int(g)])] += 1
                hb[Int(bins[Int(bl)])] += 1
                hy[Int(bins[Int(y)])] += 1
              }
            }
          }
        }
      }
    }
    var total = [Int](repeating: 0, count: stride)
    for b in 0..<bands.count {
      for i in 0..<stride { total[i] += partial[b * stride + i] }
    }
    self.binCount = binCount
    self.pixelCount = w * h
    red = Array(total[0..<binCount])
    green = Array(total[binCount..<2 * binCount])
    blue = Array(total[2 * binCount..<3 * binCount])
    luminance = Array(total[3 * binCount..<4 * binCount])
  }

  /// The counts of one channel.
  public func counts(_ channel: Channel) -> [Int] {
    switch channel {
    case .red: red
    case .green: green
    case .blue: blue
    case .luminance: luminance
    }
  }

  /// The value below which a fraction `p` (`0...1`, clamped) of the pixels lie, in `0...1`.
  ///
  /// Linear interpolation inside the bin where the cumulative count crosses `p × pixelCount`,
  /// treating each bin as covering `[i, i + 1) / binCount` evenly; 0 → the lower edge of the first
  /// occupied bin, 1 → the upper edge of the last one.
  public func percentile(_ p: Double, of channel: Channel) -> Double {
    let c = counts(channel)
    let target = min(max(p, 0), 1) * Double(pixelCount)
    var cumulative = 0.0
    for (i, count) in c.enumerated() where count > 0 {
      let next = cumulative + Double(count)
      if next >= target {
        let inside = target <= cumulative ? 0 : (target - cumulative) / Double(count)
        return (Double(i) + inside) / Double(binCount)
      }
      cumulative = next
    }
    return 1
  }

  /// The mean value of a channel in `0...1`: `Σ countᵢ · i / (N · (binCount − 1))`.
  ///
  /// Bin `i` stands for the value `i / (binCount − 1)`, so black is 0 and white is 1, and for an
  /// 8-bit image with 256 bins this is exactly the mean code value / 255.
  public func mean(of channel: Channel) -> Double {
    guard pixelCount > 0, binCount > 1 else { return 0 }
    let c = counts(channel)
    var sum = 0.0
    for (i, count) in c.enumerated() { sum += Double(count) * Double(i) }
    return sum / (Double(pixelCount) * Double(binCount - 1))
  }

  /// The fractions of pixels in the lowest and highest bins (`0...1`): for an 8-bit image with
  /// 256 bins, exactly the pixels at 0 and at 255 (clipped shadows and highlights).
  public func clippedFractions(of channel: Channel) -> (low: Double, high: Double) {
    guard pixelCount > 0 else { return (0, 0) }
    let c = counts(channel)
    return (Double(c[0]) / Double(pixelCount), Double(c[binCount - 1]) / Double(pixelCount))
  }
}
