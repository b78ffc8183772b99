// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore

/// The colour the photo's blown white was given after it clipped: the cast read from a patch of
/// clipped highlights whose channels are not all at the top.
///
/// Where a camera's sensor clips, every channel clips: a blown sky, window or lamp is rendered
/// pure white whatever the light, as it is in 23 of the 25 shared photos that have one (see
/// below).
/// A colour balance changed after that (an editor's or a filter's, or the harness's casts,
/// which are gains on the finished photo) moves the white with everything else, and, unlike
/// anything in the scene, the whole patch moves to one exact colour: 255, 250, 223 under the
/// harness's strong warm cast, 230, 255, 255 under its strong cool one. So a large, flat patch
/// of one such colour is the white point of the rendering, and making it white again is the
/// balance the photo had.
///
/// The patch is the most common colour (in steps of two codes) among the pixels with a channel
/// at 254 or 255, taken when at least ``minimumShare`` of the frame lies within two codes of it
/// and at least ``minimumPeak`` of the clipped pixels within ten codes do: clouds, skies and
/// flowers that clip in one or two channels spread over many colours (a pale sky clipping in
/// green and blue a peak of 0.26–0.45 on the shared set), a clipped white 0.5–1. Its middle
/// channel must lie at 235 or above and its lowest at 180 or above, as any white within about
/// ±1.2 in log2 R/B does: a colour clipped in one channel only, like a bright blue sky, is
/// further from white.
///
/// Blue–amber is read assuming the cast moves red and blue apart around green, as a colour
/// temperature does (the harness's casts exactly): with green not clipped, log2 R/B is twice
/// the colour's channel against green (`2 · log2 G/B` when red clipped; exact for the
/// harness's warm casts, 0.75 for its 0.76), otherwise twice the unclipped channel against the
/// top (`2 · log2 R` when green and blue clipped, −0.68 for the cool cast's −0.76: what clipped
/// green hides is not counted). A patch clipped in red and blue only has no blue–amber
/// reading (0).
///
/// Measured on the analysis copies of the harness's 79 photos: 24 have a clipped-white patch,
/// all pure white but two (coffee cups on a table, −0.17; a compact camera's white, faintly
/// magenta, −0.05). Under the harness's casts the photos with a patch read 0.35–0.44 for the
/// mild warm cast (0.40) and 0.70–0.77 for the strong one (0.76), −0.29…−0.41 for the mild cool
/// cast (−0.40) and −0.68…−0.80 for the strong one (−0.76), the coffee cups their own −0.17
/// further. Of the 102 shared photos at their own size, 25 have a patch: 23 pure white and the
/// same two tinted ones.
///
/// Cost: one pass over the copy collects the pixels with a clipped channel (a few percent of
/// most frames); only those are counted, once by colour and once near the most common one.
/// Deterministic.
enum ClippedWhite {
  /// Least share of the frame the patch covers.
  static let minimumShare = 0.0015
  /// Least share of the clipped pixels within ten codes of the patch's colour that lie within
  /// two codes of it.
  static let minimumPeak = 0.5
  /// Lowest codes the patch's middle and lowest channels may have.
  static let lowestMiddle = 235.0
  static let lowestLowest = 180.0
  /// A channel at or above this code (in the patch's mean) counts as clipped.
  static let clippedCode = 253.5

  /// What a clipped white reads, in ``ColorAnalysis/warmth``'s and ``ColorAnalysis/greenTint``'s
  /// units; both 0 for a white patch.
  struct Reading: Sendable, Hashable {
    var warmth: Double
    var tint: Double
  }

  /// The reading of the clipped white of an 8-bit RGB copy; nil when it has no such patch.
  static func reading(_ image: Image) -> Reading? {
    patchColour(image).flatMap(reading(ofPatch:))
  }

  /// The reading of a clipped patch of mean codes `colour` (see the type's comment); nil when
  /// it cannot be a clipped white.
  ///
  /// Green–magenta is read only where green alone or red and blue alone clipped: with green
  /// clipped, green is at least the top, so the tint is at least what red and blue lack of it
  /// (`−½ · log2 R·B`); with red and blue clipped, at most green's own (`log2 G`). On the
  /// analysis copies of the harness's 79 photos the patches read 0.105–0.16 under its mild
  /// green cast (0.14) and 0.20–0.24 under the strong one (0.26), −0.04…−0.14 under its mild
  /// magenta cast (−0.14) and −0.08…−0.20 under the strong one (−0.26): a bound, as what
  /// clipped is not counted. None of the 79 originals' patches, nor any of the 102 shared
  /// photos' at their own size, reads a tint. A temperature's patch, one channel clipped or
  /// green with a second, has no tint reading.
  static func reading(ofPatch colour: SIMD3<Double>) -> Reading? {
    let sorted = [colour.x, colour.y, colour.z].sorted()
    guard sorted[1] >= lowestMiddle, sorted[0] >= lowestLowest else { return nil }
    let linear = SIMD3(
      SRGBTables.decodeExact(colour.x / 255), SRGBTables.decodeExact(colour.y / 255),
      SRGBTables.decodeExact(colour.z / 255))
    let clipped = (
      r: colour.x >= clippedCode, g: colour.y >= clippedCode, b: colour.z >= clippedCode
    )
    switch clipped {
    case (false, true, false):
      return Reading(warmth: log2(linear.x / linear.z), tint: -0.5 * log2(linear.x * linear.z))
    case (true, false, true):
      return Reading(warmth: 0, tint: log2(linear.y))
    default: break
    }
    // A colour temperature keeps green between red and blue; green lowest by more than the
    // codes' noise is magenta, whose white (or a pink colour clipped in red) says nothing
    // about blue–amber.
    guard colour.y + 2 >= min(colour.x, colour.z) else { return Reading(warmth: 0, tint: 0) }
    let warmth: Double
    switch clipped {
    case (true, false, false): warmth = -2 * log2(linear.z / linear.y)
    case (false, false, true): warmth = 2 * log2(linear.x / linear.y)
    case (true, true, false): warmth = -2 * log2(linear.z)
    case (false, true, true): warmth = 2 * log2(linear.x)
    default: warmth = 0
    }
    return Reading(warmth: warmth, tint: 0)
  }

  /// The mean codes of the copy's clipped patch, or nil when none qualifies.
  static func patchColour(_ image: Image) -> SIMD3<Double>? {
    guard image.format == .rgb8 else { return nil }
    let count = image.width * image.height
    guard count > 0 else { return nil }
    let clipped = image.withUnsafeBytes { raw in
      clippedPixels(raw.bindMemory(to: UInt8.self), count: count)
    }
    guard let mode = modeBin(of: clipped) else { return nil }
    // Twice the mode bin's centre, in codes: bin k holds codes 2k and 2k + 1.
    let centre = SIMD3(4 &* mode.x &+ 1, 4 &* mode.y &+ 1, 4 &* mode.z &+ 1)
    var near = 0
    var wide = 0
    var sum = SIMD3<Int>()
    for c in clipped {
      let d = c &* 2 &- centre
      let distance = max(abs(d.x), abs(d.y), abs(d.z))
      guard distance <= 20 else { continue }
      wide &+= 1
      guard distance <= 4 else { continue }
      near &+= 1
      sum &+= c
    }
    guard Double(near) >= minimumShare * Double(count),
      Double(near) >= minimumPeak * Double(wide)
    else { return nil }
    return SIMD3(Double(sum.x), Double(sum.y), Double(sum.z)) / Double(near)
  }

  /// The codes of the pixels with a channel at 254 or 255, in pixel order.
  private static func clippedPixels(_ p: UnsafeBufferPointer<UInt8>, count: Int) -> [SIMD3<Int>] {
    var clipped: [SIMD3<Int>] = []
    for i in 0..<count {
      let q = 3 &* i
      let (r, g, b) = (p[q], p[q &+ 1], p[q &+ 2])
      if max(r, g, b) >= 254 { clipped.append(SIMD3(Int(r), Int(g), Int(b))) }
    }
    return clipped
  }

  /// The most common colour bin (codes halved) among `clipped` (each with a channel at 254 or
  /// 255); nil when there are none. Ties go to the first bin in a fixed order.
  private static func modeBin(of clipped: [SIMD3<Int>]) -> SIMD3<Int>? {
    guard !clipped.isEmpty else { return nil }
    // One plane per channel that is clipped, taken as the first clipped one in R, G, B order,
    // indexed by the other two channels' bins.
    var counts = [Int32](repeating: 0, count: 3 * 128 * 128)
    counts.withUnsafeMutableBufferPointer { h in
      for c in clipped {
        let (r, g, b) = (c.x, c.y, c.z)
        let index: Int
        if r >= 254 {
          index = (g >> 1) &<< 7 | b >> 1
        } else if g >= 254 {
          index = 16384 | (r >> 1) &<< 7 | b >> 1
        } else {
          index = 32768 | (r >> 1) &<< 7 | g >> 1
        }
        h[index] &+= 1
      }
    }
    guard let best = counts.indices.max(by: { counts[$0] < counts[$1] }) else { return nil }
    let plane = best >> 14
    let u = (best >> 7) & 127
    let v = best & 127
    switch plane {
    case 0: return SIMD3(127, u, v)
    case 1: return SIMD3(u, 127, v)
    default: return SIMD3(u, v, 127)
    }
  }
}
