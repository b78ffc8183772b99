// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchRender
import Testing

@testable import RetouchAI

@Suite("Picture border")
struct PictureBorderTests {
  /// A textured 8-bit picture (a diagonal gradient with a ripple, nothing flat).
  static func picture(width: Int, height: Int) -> Image {
    AnalysisTestPhotos.synthetic(width: width, height: height) { x, y in
      let v = 40 + (x * 150) / width + (y * 50) / height
      let ripple = Int(12 * sin(Double(x) * 0.3) + 9 * cos(Double(y) * 0.21))
      return (UInt8(min(255, v + ripple)), UInt8(min(255, v / 2 + 30)), UInt8(max(0, v - 30)))
    }
  }

  /// `image` inside bars of `colour`: `top` and `bottom` rows, `left` and `right` columns.
  static func framed(
    _ image: Image, top: Int, bottom: Int, left: Int = 0, right: Int = 0,
    colour: (UInt8, UInt8, UInt8) = (0, 0, 0)
  ) -> Image {
    let w = image.width + left + right, h = image.height + top + bottom
    return AnalysisTestPhotos.synthetic(width: w, height: h) { x, y in
      let (ix, iy) = (x - left, y - top)
      guard ix >= 0, iy >= 0, ix < image.width, iy < image.height else { return colour }
      let p = image.pixel(x: ix, y: iy)
      return (UInt8(p[0]), UInt8(p[1]), UInt8(p[2]))
    }
  }

  @Test func letterboxAndPillarboxBarsAreFound() throws {
    let inner = Self.picture(width: 400, height: 240)
    let letterbox = try #require(PictureBorder.content(of: Self.framed(inner, top: 40, bottom: 41)))
    #expect(letterbox == (x: 0, y: 40, width: 400, height: 240))
    let pillarbox = try #require(
      PictureBorder.content(of: Self.framed(inner, top: 0, bottom: 0, left: 60, right: 60)))
    #expect(pillarbox == (x: 60, y: 0, width: 400, height: 240))
    let mount = try #require(
      PictureBorder.content(
        of: Self.framed(inner, top: 20, bottom: 20, left: 24, right: 23, colour: (250, 250, 246))))
    #expect(mount == (x: 24, y: 20, width: 400, height: 240))
  }

  /// A dark sky or a wall reaching one edge is part of the picture: bars come in pairs of one
  /// colour and about one thickness, thick enough to be a frame and leaving most of the photo.
  @Test func onlyFramesAreBorders() {
    let inner = Self.picture(width: 400, height: 240)
    #expect(PictureBorder.content(of: inner) == nil)
    #expect(PictureBorder.content(of: Self.framed(inner, top: 40, bottom: 0)) == nil)
    #expect(PictureBorder.content(of: Self.framed(inner, top: 40, bottom: 20)) == nil)
    #expect(PictureBorder.content(of: Self.framed(inner, top: 2, bottom: 2)) == nil)
    #expect(PictureBorder.content(of: Self.framed(inner, top: 200, bottom: 200)) == nil)
    let black = Self.framed(inner, top: 40, bottom: 0)
    let twoColours = Self.framed(black, top: 0, bottom: 40, colour: (255, 255, 255))
    #expect(PictureBorder.content(of: twoColours) == nil)
    #expect(PictureBorder.content(of: Self.picture(width: 10, height: 10)) == nil)
  }

  /// Black bars made every `dev` photo read as crushed (Lift Shadows, black point −0.2 to −0.4,
  /// which greys the bars). The photo inside them is measured as it is without them, and its
  /// faces and subject are placed in the whole frame.
  @Test(arguments: ["g68", "g63"])
  func barsChangeNothingButThePlace(id: String) throws {
    let photo = try AnalysisFixtures.decode(id).image
    let bar = photo.height / 8
    let boxed = Self.framed(photo, top: bar, bottom: bar)
    let analyzer = PhotoAnalyzer()
    let plain = analyzer.analyze(photo, metadata: nil, measureNoise: false)
    let framed = analyzer.analyze(boxed, metadata: nil, measureNoise: false)
    #expect(framed.pixelSize == boxed.size)
    #expect((framed.exposure.crushedBlack ?? 0) == 0)
    #expect(abs(framed.exposure.keyLuminance - plain.exposure.keyLuminance) < 0.01)
    #expect(framed.exposure.isDarkOnPurpose == plain.exposure.isDarkOnPurpose)
    #expect(abs(framed.color.warmth - plain.color.warmth) < 0.03)
    #expect(framed.faces.count == plain.faces.count)
    let scale = Double(photo.height) / Double(boxed.height)
    let offset = Double(bar) / Double(boxed.height)
    for (f, p) in zip(framed.faces, plain.faces) {
      #expect(abs(f.bounds.y - (offset + p.bounds.y * scale)) < 0.01, "\(f.bounds) \(p.bounds)")
      #expect(abs(f.bounds.height - p.bounds.height * scale) < 0.01)
      #expect(abs(f.bounds.x - p.bounds.x) < 0.01)
    }
    let top = SuggestionEngine().topSuggestion(for: boxed)
    #expect(top?.value(of: .blackPoint) ?? 0 >= 0, "\(top?.properties ?? [:])")
  }
}
