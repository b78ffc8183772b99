// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchTestSupport
import Testing

@testable import RetouchRender

@Suite("Geometry: turns, flips, crop, straighten")
struct GeometryWarpTests {
  /// An image whose every pixel is different: R = x, G = y, B = x + y (8-bit).
  static func labelled(width: Int, height: Int, format: PixelFormat = .rgb8) -> Image {
    var image = Image(width: width, height: height, format: format)
    for y in 0..<height {
      for x in 0..<width {
        image.setPixel(x: x, y: y, [x, y, (x * 7 + y * 13) % 256] + (format.hasAlpha ? [255] : []))
      }
    }
    return image
  }

  /// Each edit rotation equals the EXIF orientation that describes the same transform.
  @Test(arguments: [
    (EditRotation.original, ImageOrientation.up), (.flipped, .upMirrored), (.rotate90, .right),
    (.rotate180, .down), (.rotate270, .left), (.rotate90Flipped, .rightMirrored),
    (.rotate180Flipped, .downMirrored), (.rotate270Flipped, .leftMirrored),
  ])
  func quarterTurnsAndFlipsMatchEXIFOrientations(
    rotation: EditRotation, orientation: ImageOrientation
  ) {
    let image = Self.labelled(width: 7, height: 5)
    let t = GeometryTransform(config: EditConfig(editRotation: rotation), sourceSize: image.size)
    #expect(t.isWholePixelPermutation)
    let warped = image.warped(by: t)
    #expect(warped.hasSamePixels(as: image.applyingOrientation(orientation)), "\(rotation)")
  }

  @Test func cropTakesTheRightPixels() {
    let image = Self.labelled(width: 100, height: 80)
    let config = EditConfig(crop: NormalizedRect(x: 0.25, y: 0.5, width: 0.5, height: 0.25))
    let out = image.warped(by: GeometryTransform(config: config, sourceSize: image.size))
    #expect(out.size == PixelSize(width: 50, height: 20))
    #expect(out.pixel(x: 0, y: 0) == image.pixel(x: 25, y: 40))
    #expect(out.pixel(x: 49, y: 19) == image.pixel(x: 74, y: 59))
  }

  @Test func cropIsInTheRotatedFrame() {
    // After a 90° turn the shown image is 80 wide and 100 tall; crop its top-left quarter.
    let image = Self.labelled(width: 100, height: 80)
    let config = EditConfig(
      crop: NormalizedRect(x: 0, y: 0, width: 0.5, height: 0.5), editRotation: .rotate90)
    let out = image.warped(by: GeometryTransform(config: config, sourceSize: image.size))
    let turned = image.applyingOrientation(.right)
    #expect(out.size == PixelSize(width: 40, height: 50))
    for (x, y) in [(0, 0), (39, 0), (0, 49), (17, 23)] {
      #expect(out.pixel(x: x, y: y) == turned.pixel(x: x, y: y))
    }
  }

  @Test(arguments: [-45.0, -12.5, -1, 0.5, 3, 10, 30, 45])
  func straighteningLeavesNoEmptyCorners(degrees: Double) {
    for crop in [NormalizedRect.full, NormalizedRect(x: 0.05, y: 0.3, width: 0.6, height: 0.5)] {
      let size = PixelSize(width: 400, height: 300)
      let t = GeometryTransform(
        config: EditConfig(properties: [.straighten: degrees], crop: crop), sourceSize: size)
      let o = t.outputSize
      // Every output corner samples inside the source (within rounding).
      for (u, v) in [
        (0.0, 0.0), (Double(o.width), 0), (0, Double(o.height)),
        (Double(o.width), Double(o.height)),
      ] {
        let p = t.outputToSource.apply(u, v)
        #expect(
          p.x >= -1e-6 && p.x <= 400 + 1e-6 && p.y >= -1e-6 && p.y <= 300 + 1e-6,
          "\(degrees)° crop \(crop): corner (\(u), \(v)) samples (\(p.x), \(p.y))")
      }
      #expect(t.straightenZoom >= 1)
    }
  }

  @Test func straightenRotatesAboutTheCropCentre() {
    let size = PixelSize(width: 400, height: 300)
    let t = GeometryTransform(config: EditConfig(properties: [.straighten: 8]), sourceSize: size)
    let centre = t.outputToSource.apply(200, 150)
    #expect(abs(centre.x - 200) < 1e-9 && abs(centre.y - 150) < 1e-9)
    // A point right of the centre in the output comes from below-right in the source when the
    // photo is turned clockwise (y grows downwards).
    let right = t.outputToSource.apply(300, 150)
    #expect(right.x > 200 && right.y < 150)
  }

  @Test func straightenedConstantImageStaysConstant() {
    var image = Image(width: 64, height: 48, format: .rgba16)
    for y in 0..<48 { for x in 0..<64 { image.setPixel(x: x, y: y, [40000, 20000, 1000, 65535]) } }
    let out = image.warped(
      by: GeometryTransform(
        config: EditConfig(properties: [.straighten: -17]), sourceSize: image.size))
    for y in stride(from: 0, to: out.height, by: 5) {
      for x in stride(from: 0, to: out.width, by: 5) {
        #expect(out.pixel(x: x, y: y) == [40000, 20000, 1000, 65535])
      }
    }
  }
}

@Suite("NormalizedRect pixel rectangles")
struct NormalizedRectPixelTests {
  @Test func floatingPointNoiseDoesNotWidenACrop() {
    let r = NormalizedRect(x: 0.1, y: 0.2, width: 0.3, height: 0.4).pixelRect(
      width: 600, height: 450)
    #expect(r.x == 60 && r.y == 90 && r.width == 180 && r.height == 180)
  }

  @Test func partialPixelsRoundOutwards() {
    let r = NormalizedRect(x: 0.101, y: 0, width: 0.5, height: 0.333).pixelRect(
      width: 100, height: 100)
    #expect(r.x == 10 && r.width == 51 && r.height == 34)
  }
}
