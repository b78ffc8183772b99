// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchAI
import RetouchCore
import RetouchIO
import RetouchRender
import RetouchTestSupport
import Testing

/// Decodes a shared photo (upright), shrunk to at most 480 px on the long edge to keep the
/// tests quick.
func decodedPhoto(_ id: String, longEdge: Int = 480) throws -> Image {
  let image = try ImageDecoder().decode(SharedPhotos.url(id)).image
  return image.resized(toFitLongEdge: longEdge)
}

/// Mean CIELAB of the pixels inside `box` (unit coordinates of the image).
func meanLab(of image: Image, in box: NormalizedRect) -> (l: Double, a: Double, b: Double) {
  let converter = CIELab.Converter(colorSpace: image.colorSpace)
  let x0 = Int(box.x * Double(image.width)), y0 = Int(box.y * Double(image.height))
  let x1 = Int((box.x + box.width) * Double(image.width))
  let y1 = Int((box.y + box.height) * Double(image.height))
  let scale = image.format.bitDepth == 8 ? 257 : 1
  var sum = (0.0, 0.0, 0.0)
  for y in y0..<y1 {
    for x in x0..<x1 {
      let p = image.pixel(x: x, y: y)
      let lab = converter.lab(UInt16(p[0] * scale), UInt16(p[1] * scale), UInt16(p[2] * scale))
      sum = (sum.0 + lab.0, sum.1 + lab.1, sum.2 + lab.2)
    }
  }
  let n = Double((x1 - x0) * (y1 - y0))
  return (sum.0 / n, sum.1 / n, sum.2 / n)
}

/// CIELAB hue angle in degrees of a mean colour.
func hueDegrees(_ lab: (l: Double, a: Double, b: Double)) -> Double {
  atan2(lab.b, lab.a) * 180 / .pi
}

@Suite("Style matching")
struct StyleMatchingTests {
  @Test(arguments: ["g04", "s01", "d04"])
  func matchingAPhotoToItselfIsNotMeaningful(id: String) throws {
    let photo = try decodedPhoto(id)
    let stats = StyleMatcher.statistics(for: photo)
    let transform = StyleMatcher.transform(for: stats, matching: stats)
    #expect(!transform.isMeaningful)
    #expect(transform == .identity)
    // The percentiles describe a real photo, not a constant.
    #expect(stats.lightnessPercentiles.last! - stats.lightnessPercentiles.first! > 20)
  }

  /// A copy darkened by 0.8 stops (and flattened) matched back to the original: every L*
  /// percentile from 5 % to 95 % lands within 2.5 L* of the original's (before: 8 or more apart
  /// in the midtones), and mean chroma within 10 %. The tolerance allows for 8-bit
  /// quantisation of the darkened copy and the curve's smoothing (σ = 3 L*).
  @Test(arguments: ["g04", "d04"])
  func darkerCopyMatchedToTheOriginalGetsItsTones(id: String) throws {
    let original = try decodedPhoto(id)
    let darker = original.applyingEditConfig(
      EditConfig(properties: [.exposure: -0.8, .contrast: -0.2]))
    let reference = StyleMatcher.statistics(for: original)
    let before = StyleMatcher.statistics(for: darker)
    let transform = StyleMatcher.transform(for: before, matching: reference)
    #expect(transform.isMeaningful)
    let matched = darker.matched(to: transform)
    let after = StyleMatcher.statistics(for: matched)
    let levels = ToneStatistics.percentileLevels
    var worstBefore = 0.0, worstAfter = 0.0
    for (i, level) in levels.enumerated() where (5...95).contains(level) {
      worstBefore = max(
        worstBefore, abs(before.lightnessPercentiles[i] - reference.lightnessPercentiles[i]))
      worstAfter = max(
        worstAfter, abs(after.lightnessPercentiles[i] - reference.lightnessPercentiles[i]))
    }
    #expect(worstBefore >= 8, "the darker copy should start far off: \(worstBefore)")
    #expect(worstAfter <= 2.5, "after matching, worst percentile off by \(worstAfter) L*")
    #expect(abs(after.meanChroma / reference.meanChroma - 1) <= 0.1)
  }

  @Test func averagingReferencesIsOrderIndependent() throws {
    let stats = try ["g04", "d04", "s01", "g63"].map {
      StyleMatcher.statistics(for: try decodedPhoto($0, longEdge: 400))
    }
    let forward = StyleMatcher.average(of: stats)
    for order in [[3, 2, 1, 0], [1, 3, 0, 2], [2, 0, 3, 1]] {
      #expect(StyleMatcher.average(of: order.map { stats[$0] }) == forward)
    }
    #expect(StyleMatcher.average(of: [stats[0]]) == stats[0])
    // The average lies between the extremes at every level.
    for i in ToneStatistics.percentileLevels.indices {
      let column = stats.map { $0.lightnessPercentiles[i] }
      #expect((column.min()!...column.max()!).contains(forward.lightnessPercentiles[i]))
    }
  }

  /// Skin under a face keeps its hue (≤ 3°) when the photo is matched to a strongly warm or cool
  /// reference (the photo itself with its white balance moved), although greys move a lot.
  @Test(arguments: [
    // Face boxes picked by eye on the upright photos.
    ("s01", NormalizedRect(x: 0.36, y: 0.17, width: 0.12, height: 0.13)),
    ("g63", NormalizedRect(x: 0.25, y: 0.55, width: 0.55, height: 0.15)),
    ("g47", NormalizedRect(x: 0.38, y: 0.28, width: 0.17, height: 0.2)),
  ])
  func skinHueHoldsUnderWarmAndCoolReferences(id: String, face: NormalizedRect) throws {
    let photo = try decodedPhoto(id)
    let target = StyleMatcher.statistics(for: photo)
    let skinBefore = meanLab(of: photo, in: face)
    for temperature in [0.7, -0.7] {
      let reference = photo.applyingEditConfig(EditConfig(properties: [.temperature: temperature]))
      let transform = StyleMatcher.transform(
        for: target, matching: StyleMatcher.statistics(for: reference))
      #expect(transform.maxColorShift >= 2, "the reference should ask for a colour shift")
      let matched = photo.matched(to: transform)
      let skinAfter = meanLab(of: matched, in: face)
      let moved = abs(hueDegrees(skinAfter) - hueDegrees(skinBefore))
      #expect(moved <= 3, "\(id) at temperature \(temperature): skin hue moved \(moved)°")
    }
  }

  /// The render stage samples the transform's own per-pixel function: a render matches the
  /// function on every pixel within 2 code values (the 33-point table's interpolation), and
  /// composing with an edit equals rendering the matched photo with the edit within 3.
  @Test func renderStageFollowsTheTransform() throws {
    let photo = try decodedPhoto("g04", longEdge: 300)
    let darker = photo.applyingEditConfig(EditConfig(properties: [.exposure: -0.7]))
    let transform = StyleMatcher.transform(
      for: StyleMatcher.statistics(for: darker), matching: StyleMatcher.statistics(for: photo))
    let rendered = darker.matched(to: transform)
    let reference = transform.referenceRender(of: darker)
    var worst = 0
    for y in 0..<darker.height {
      for x in 0..<darker.width {
        let a = rendered.pixel(x: x, y: y), b = reference.pixel(x: x, y: y)
        worst = max(worst, zip(a, b).map { abs($0 - $1) }.max()!)
      }
    }
    #expect(worst <= 2, "worst channel difference \(worst)")
    let edit = EditConfig(properties: [.saturation: 0.4, .contrast: 0.3])
    let combined = darker.matched(to: transform, with: edit)
    let twoStep = reference.applyingEditConfig(edit)
    #expect(ImageComparison.meanAbsoluteDifference(combined, twoStep) < 1.5)
    #expect(!combined.hasSamePixels(as: rendered))
  }
}
