// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchTestSupport
import Testing

@testable import RetouchRender

@Suite("Background blur from depth")
struct BackgroundBlurTests {
  /// Seeded texture: every pixel random, so blur shows as a large drop in local variance.
  static func texture(width: Int = 200, height: Int = 120, seed: UInt64 = 7) -> Image {
    var rng = SeededRandom(seed: seed)
    let bytes = (0..<(width * height * 3)).map { _ in UInt8.random(in: 0...255, using: &rng) }
    return Image(width: width, height: height, format: .rgb8, bytes: bytes)
  }

  /// Left half near (1), right half far (0).
  static let splitDepth = DepthMap(width: 2, height: 1, values: [1, 0])

  /// Mean absolute difference between horizontal neighbours in columns `xs`.
  static func roughness(_ image: Image, columns xs: Range<Int>) -> Double {
    var sum = 0.0, count = 0
    for y in 0..<image.height {
      for x in xs.dropLast() {
        sum += Double(abs(image.pixel(x: x, y: y)[1] - image.pixel(x: x + 1, y: y)[1]))
        count += 1
      }
    }
    return sum / Double(count)
  }

  @Test func farBackgroundBlursNearSubjectStaysSharp() {
    let image = Self.texture()
    var options = RenderOptions()
    options.depthMap = DepthMap(width: 4, height: 1, values: [1, 1, 0, 0])
    let out = image.rendered(with: EditConfig(properties: [.backgroundBlur: 1]), options: options)
    // Left quarter (near, the focus depth): untouched.
    for y in stride(from: 0, to: 120, by: 7) {
      for x in stride(from: 0, to: 40, by: 3) {
        #expect(out.pixel(x: x, y: y) == image.pixel(x: x, y: y))
      }
    }
    let before = Self.roughness(image, columns: 160..<200)
    let after = Self.roughness(out, columns: 160..<200)
    #expect(after < before / 5, "far side roughness \(before) → \(after)")
  }

  @Test func withoutADepthMapNothingChanges() {
    let image = Self.texture()
    let out = image.rendered(with: EditConfig(properties: [.backgroundBlur: 1]))
    #expect(out.hasSamePixels(as: image))
  }

  @Test func strengthGrowsWithTheSlider() {
    let image = Self.texture()
    var options = RenderOptions()
    options.depthMap = Self.splitDepth
    let weak = image.rendered(
      with: EditConfig(properties: [.backgroundBlur: 0.3]), options: options)
    let strong = image.rendered(
      with: EditConfig(properties: [.backgroundBlur: 1]), options: options)
    #expect(Self.roughness(strong, columns: 160..<200) < Self.roughness(weak, columns: 160..<200))
  }

  @Test func radiusFollowsTheImageSoPreviewsMatch() {
    let blur = BackgroundBlur(amount: 1)
    // Proportional to the long edge, up to whole-pixel rounding.
    #expect(abs(blur.radius(longEdge: 4000) - 4 * blur.radius(longEdge: 1000)) <= 2)
    #expect(blur.radius(longEdge: 4000) > 3 * blur.radius(longEdge: 1000))
    #expect(BackgroundBlur(amount: 0).radius(longEdge: 4000) == 0)
  }

  @Test func depthBlurDoesNotStream() {
    var options = RenderOptions()
    options.depthMap = Self.splitDepth
    #expect(
      !StreamingRender.canStream(EditConfig(properties: [.backgroundBlur: 0.5]), options: options))
    #expect(StreamingRender.canStream(EditConfig(properties: [.backgroundBlur: 0.5])))
  }
}
