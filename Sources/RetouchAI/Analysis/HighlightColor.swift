// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore

/// The colour of the photo's brightest detail: log2 R/B of the mean linear RGB of the brightest
/// 3 % of its pixels that have no channel clipped.
///
/// It tells a frame lit by warm light that is in the picture (a sunset, sun glare, lamps) from
/// a daylight frame under a bright sky that has a warm cast. Both read warm and backlit (their
/// brightest percent far above the median), but the first shows its light: its brightest
/// unclipped pixels are the glow around the sun or the lamp, strongly amber. The second's are
/// clouds, sky or a white wall, which a cast tints only by the cast. Measured on the analysis
/// copies (512 px) of the shared photos: sunsets and sun glare 0.54 (dandelions against a low
/// sun), 0.60 (boats at sunset), 0.91 (a sunset sky), 1.76 (sun glare on water), 3.5 (a
/// silhouette against a sunset); daylight landscapes −0.4…0.3, and under the harness's warm
/// casts (+0.40 and +0.76 on log2 R/B) 0.11–0.20 and 0.37–0.52 for the ones whose brightest
/// part is sky or cloud. Clipped pixels are left out: they are white whatever the light.
///
/// Cost: the brightest pixels' colours summed in a pass over the copy, after a count of the
/// unclipped pixels by luminance that ``PixelStatistics`` makes in its own pass. Deterministic.
enum HighlightColor {
  /// Share of the unclipped pixels counted as the brightest.
  static let share = 0.03
  /// Fewest pixels a reading is made from.
  static let minimumCount = 20

  /// log2 R/B of the brightest unclipped pixels of an 8-bit RGB copy whose linear luminance
  /// per pixel is `luminance` (in 0...1, row-major like the copy); nil when fewer than
  /// ``minimumCount`` pixels qualify or the image is not 8-bit RGB.
  ///
  /// The brightest are taken by whole bins of 1/1024 of luminance, from the top down until the
  /// share is reached, so the last bin may add a few more pixels than the share.
  ///
  /// - Parameter counts: the unclipped pixels' counts per bin
  ///   (``PixelStatistics/highlightCounts``, made with the same `luminance`).
  static func warmth(_ image: Image, luminance: [Float], counts: [Int]) -> Double? {
    guard image.format == .rgb8, luminance.count == image.width * image.height,
      counts.count == bins
    else {
      return nil
    }
    let scale = binScale
    let clipped = PixelStatistics.clippedCode
    // The counts fix the lowest bin the brightest share reaches; this pass adds up the colours
    // of only the pixels from that bin up (a few percent of the frame). Each bin's sum is taken
    // in pixel order and the bins from the top down, as a single pass summing every bin would.
    // One pass summing every pixel's colour into its bin cost about 2 ms of a 512 px analysis.
    var sums = [SIMD3<Double>](repeating: .zero, count: bins)
    var lowest = bins
    image.withUnsafeBytes { raw in
      let p = raw.bindMemory(to: UInt8.self)
      luminance.withUnsafeBufferPointer { lum in
        let unclipped = counts.reduce(0, +)
        let wanted = max(minimumCount, Int((share * Double(unclipped)).rounded()))
        guard unclipped >= wanted else { return }
        var taken = 0
        while taken < wanted {
          lowest -= 1
          taken += counts[lowest]
        }
        SRGBTables.decode8.withUnsafeBufferPointer { decode in
          sums.withUnsafeMutableBufferPointer { sum in
            // bin(y) >= lowest exactly when binPosition(y) >= lowest (the conversion truncates
            // a non-negative value): most pixels are left by a float comparison, without
            // converting.
            let first = Float(lowest)
            for i in 0..<lum.count {
              let position = Self.binPosition(lum[i], scale: scale)
              guard position >= first else { continue }
              let bin = Int(position)
              let q = 3 &* i
              let (r, g, b) = (p[q], p[q &+ 1], p[q &+ 2])
              guard max(r, g, b) < clipped else { continue }
              sum[bin] += SIMD3(
                Double(decode[Int(r)]), Double(decode[Int(g)]), Double(decode[Int(b)]))
            }
          }
        }
      }
    }
    guard lowest < bins else { return nil }
    var sum = SIMD3<Double>()
    for bin in stride(from: bins - 1, through: lowest, by: -1) { sum += sums[bin] }
    guard sum.x > 0, sum.z > 0 else { return nil }
    return log2(sum.x / sum.z)
  }

  /// Luminance bins the brightest pixels are taken by.
  static let bins = 1024
  /// A luminance times this, truncated, is its bin.
  static let binScale = Float(bins - 1)

  /// The bin of a linear luminance: ``binPosition(_:scale:)`` truncated.
  @inline(__always)
  static func bin(_ y: Float, scale: Float) -> Int {
    Int(binPosition(y, scale: scale))
  }

  /// A linear luminance clamped to 0...1 and scaled; `y >= 0` is false for NaN, so a NaN
  /// counts as black instead of trapping.
  @inline(__always)
  static func binPosition(_ y: Float, scale: Float) -> Float {
    (y >= 0 ? min(y, 1) : 0) * scale
  }
}
