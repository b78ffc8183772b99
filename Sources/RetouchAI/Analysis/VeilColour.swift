// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore

/// The colour of a veil over the whole frame (haze, fog, mist): the mean linear RGB of the
/// darkest 2 % of the pixels, read when even those lie well above black.
///
/// In haze each pixel is the scene times the air's transmission plus the light the air
/// scatters toward the camera (Koschmieder: `I = J·t + A·(1 − t)`). Where the scene is dark
/// (shadows, dark foliage, a distant treeline) only `A·(1 − t)` is left, so the darkest pixels
/// of a veiled frame show the colour of the scattered light, which is the colour of the light
/// itself: water droplets and fine dust scatter every wavelength alike. A white balance set
/// wrong after that (a camera's, an editor's, or the evaluation harness's casts, gains on the
/// finished photo) tints the veil with everything else, so the veil reads the cast directly,
/// where the scene's own colours no longer can: the veil washes them out, and the estimates
/// that look at the whole frame read what is left of them.
///
/// A veil is told from a bright scene without blacks (a sky, a white wall, a pale cloth) by
/// how alike its darkest pixels are in colour (``Reading/spread``), and from a veil over a
/// frame of one colour (a deep blue sky, whose darkest pixels are that blue washed out) by
/// whether each channel's own floor reads the same colour (``Reading/floorDistance``; see
/// ``ColorMeasurement/veiled(_:)``). Measured on the analysis copies of the harness's 85
/// photos: 8 of them as they are have no blacks and are read, spreading 0.27–2.3 (log2
/// units). Under its haze (`t` 0.75 and 0.55, a grey `A` of 0.75), and under haze (`t` 0.7)
/// with a cool (−0.53 log2 R/B) or a green (0.20) cast laid over it, 73–76 of the 85 read as
/// one veil (spread 0.06 at most, the floors within 0.05), and read the cast to within 0.08
/// and the haze alone as neutral to within 0.11; the others are snow, skies, a pale cloth and
/// sunsets seen through the haze.
///
/// Cost: nothing unless the darkest 2 % lie at L* ``minimumLightness`` or above (a frame with
/// blacks has no veil); then one pass counting each channel's codes, one comparing each
/// pixel's luminance with a threshold, and the colours of the darkest pixels summed in pixel
/// order. Deterministic.
enum VeilColour {
  /// Share of the frame, from the darkest pixel up, whose colour is read.
  static let share = 0.02
  /// L* the darkest ``share`` must reach for the frame to be read at all: under it the
  /// darkest pixels are the scene's blacks, not a veil. Below the lower end of the doubt in
  /// fog that ``ColorMeasurement`` applies (25).
  static let minimumLightness = 20.0

  /// What the darkest pixels read, in ``ColorAnalysis/warmth``'s and
  /// ``ColorAnalysis/greenTint``'s units (log2 R/B and log2 G/√(R·B) of their mean linear RGB).
  struct Reading: Sendable, Hashable {
    /// The darkest pixels' mean linear RGB as log2 R/G, 0, log2 B/G (the form of the
    /// illuminant estimate in ``ColorMeasurement``).
    var logRelativeToGreen: SIMD3<Double>
    /// How far the darkest pixels' own colours lie apart: the root of the summed variances of
    /// each pixel's log2 R/B and log2 G/√(R·B). A veil is one colour; a scene's darkest things
    /// are many.
    var spread: Double
    /// How far (log2 units, the root of the summed squares) the darkest pixels' colour lies from
    /// that of each channel's own floor (the mean of its lowest ``floorShare`` of values,
    /// wherever they lie): infinity when a channel's floor is black.
    var floorDistance: Double
    /// Each channel's own floor (the mean of its lowest ``floorShare`` of values), linear.
    var floors: SIMD3<Double>
    /// The relative luminance weights of the copy's colour space
    /// (``RetouchCore/ColorSpace/lumaWeights``).
    var lumaWeights: SIMD3<Double>

    var warmth: Double { ColorMeasurement.warmthAndTint(logRelativeToGreen).x }
    var tint: Double { ColorMeasurement.warmthAndTint(logRelativeToGreen).y }
  }

  /// Share of each channel's values, from its lowest up, whose mean is that channel's floor
  /// (at least ``minimumFloorCount`` values).
  static let floorShare = 0.001
  static let minimumFloorCount = 20

  /// The reading of an 8-bit RGB copy whose linear luminance per pixel is `luminance` and whose
  /// luminance histogram (over 0...1, as ``PixelStatistics/histogram``) is `histogram`; nil
  /// when the darkest pixels are darker than ``minimumLightness`` or have no colour to read.
  static func reading(_ image: Image, luminance: [Float], histogram: [Int]) -> Reading? {
    let n = image.width * image.height
    guard image.format == .rgb8, luminance.count == n, n > 0, histogram.count > 1 else {
      return nil
    }
    let wanted = max(1, Int((share * Double(n)).rounded()))
    var taken = 0
    var top = -1
    while taken < wanted, top + 1 < histogram.count {
      top += 1
      taken += histogram[top]
    }
    let scale = Float(histogram.count - 1)
    let ceiling = Double(top) / Double(scale)
    guard PixelStatistics.lightness(ceiling) >= minimumLightness else { return nil }
    // Every pixel whose bin is at or under `top`: its luminance rounds to that bin or lower.
    let limit = (Float(top) + 0.5) / scale

    var sum = SIMD3<Double>(repeating: 0)
    var colourSum = SIMD2<Double>(repeating: 0), colourSquares = SIMD2<Double>(repeating: 0)
    var count = 0
    var codes = [Int](repeating: 0, count: 3 * 256)
    image.withUnsafeBytes { raw in
      let p = raw.bindMemory(to: UInt8.self)
      codes.withUnsafeMutableBufferPointer { codes in
        for i in 0..<n {
          let q = 3 &* i
          codes[Int(p[q])] &+= 1
          codes[256 &+ Int(p[q &+ 1])] &+= 1
          codes[512 &+ Int(p[q &+ 2])] &+= 1
        }
      }
      SRGBTables.decode8.withUnsafeBufferPointer { decode in
        luminance.withUnsafeBufferPointer { lum in
          for i in 0..<n where lum[i] < limit {
            let q = 3 &* i
            let rgb = SIMD3(
              Double(decode[Int(p[q])]), Double(decode[Int(p[q &+ 1])]),
              Double(decode[Int(p[q &+ 2])]))
            let floored = rgb.replacing(with: 1e-4, where: rgb .< 1e-4)
            let colour = ColorMeasurement.warmthAndTint(
              ColorMeasurement.logRelativeToGreen(floored))
            sum += rgb
            colourSum += colour
            colourSquares += colour * colour
            count += 1
          }
        }
      }
    }
    guard count > 0, let mean = ColorMeasurement.optionalLog(sum) else { return nil }
    let k = Double(count)
    let variance = pointwiseMax(colourSquares / k - (colourSum / k) * (colourSum / k), .zero)
    let floors = SIMD3((0..<3).map { floorMean(codes[($0 * 256)..<($0 * 256 + 256)], total: n) })
    let w = image.colorSpace.lumaWeights
    var floorDistance = Double.infinity
    if let floor = ColorMeasurement.optionalLog(floors) {
      let d = ColorMeasurement.warmthAndTint(floor) - ColorMeasurement.warmthAndTint(mean)
      floorDistance = (d * d).sum().squareRoot()
    }
    return Reading(
      logRelativeToGreen: mean, spread: variance.sum().squareRoot(), floorDistance: floorDistance,
      floors: floors, lumaWeights: SIMD3(Double(w.r), Double(w.g), Double(w.b)))
  }

  /// The mean linear value of the lowest ``floorShare`` (at least ``minimumFloorCount``) of
  /// `total` values counted by 8-bit code in `counts`.
  private static func floorMean(_ counts: ArraySlice<Int>, total: Int) -> Double {
    let wanted = min(total, max(minimumFloorCount, Int((floorShare * Double(total)).rounded())))
    guard wanted > 0 else { return 0 }
    var left = wanted
    var sum = 0.0
    for (code, c) in zip(0..., counts) where c > 0 {
      let taken = min(c, left)
      sum += Double(taken) * Double(SRGBTables.decode8[code])
      left -= taken
      if left == 0 { break }
    }
    return sum / Double(wanted)
  }
}
