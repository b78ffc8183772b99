// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchRender
import Testing

@testable import RetouchAI

/// The analysis copy's box reduction against a plain per-pixel block mean.
@Suite struct AnalysisCopyTests {
  /// A `width × height` image of `format` filled with pseudo-random colour components (fixed
  /// seed), opaque.
  static func noise(width: Int, height: Int, format: PixelFormat) -> Image {
    var state: UInt32 = 12345
    let componentBytes = format.bitDepth / 8
    let count = width * height * format.channelCount * componentBytes
    var bytes = [UInt8](repeating: 0, count: count)
    for i in 0..<count {
      state = state &* 1_664_525 &+ 1_013_904_223
      let isAlpha = format.hasAlpha && (i / componentBytes) % 4 == 3
      bytes[i] = isAlpha ? 0xFF : UInt8(truncatingIfNeeded: state >> 24)
    }
    return Image(width: width, height: height, format: format, bytes: bytes)
  }

  /// The rounded mean of each `k × k` block of the encoded components, as 8-bit RGB.
  static func reference(_ image: Image, factor k: Int) -> [Int] {
    let outW = image.width / k, outH = image.height / k
    let sixteen = image.format.bitDepth == 16
    let scale = 1 / (Double(k * k) * (sixteen ? 257 : 1))
    var out: [Int] = []
    for oy in 0..<outH {
      for ox in 0..<outW {
        var sums = [0, 0, 0]
        for y in oy * k..<(oy + 1) * k {
          for x in ox * k..<(ox + 1) * k {
            let p = image.pixel(x: x, y: y)
            for c in 0..<3 { sums[c] += p[c] }
          }
        }
        out += sums.map { Int(Double($0) * scale + 0.5) }
      }
    }
    return out
  }

  @Test(arguments: [
    (PixelFormat.rgb8, 1100, 700, 2), (.rgba8, 1600, 900, 3), (.rgb16, 1250, 900, 2),
    (.rgba16, 700, 1100, 2), (.rgb8, 3700, 200, 7),
  ])
  func boxReductionIsTheBlockMean(format: PixelFormat, width: Int, height: Int, k: Int) {
    let image = Self.noise(width: width, height: height, format: format)
    let copy = AnalysisCopy.make(from: image)
    #expect(copy.format == .rgb8)
    #expect(copy.width == width / k && copy.height == height / k)
    var values: [Int] = []
    copy.withUnsafeBytes { raw in values = raw.map { Int($0) } }
    #expect(values == Self.reference(image, factor: k))
  }

  /// Transparent pixels (alpha under one half) are filled from the opaque pixels of their row
  /// as mirrored from the nearest one (the left one at equal distance); a row with none takes
  /// the nearest such row, the upper one at equal distance. The stored colour of a
  /// transparent pixel is not read.
  @Test(arguments: [PixelFormat.rgba8, .rgba16])
  func transparentPixelsAreFilledByMirroring(format: PixelFormat) throws {
    let unit = format.bitDepth == 16 ? 257 : 1
    var image = Image(width: 6, height: 4, format: format)
    let red = [200, 10, 10], blue = [10, 10, 200]
    // Row 1: red at x 1, blue at x 4 (x 2 and 3 between them), the rest transparent with
    // stored colours of their own; rows 0, 2 and 3 transparent.
    for y in 0..<4 {
      for x in 0..<6 { image.setPixel(x: x, y: y, [77 * unit, 33 * unit, 99 * unit, 0]) }
    }
    image.setPixel(x: 1, y: 1, red.map { $0 * unit } + [255 * unit])
    image.setPixel(x: 4, y: 1, blue.map { $0 * unit } + [128 * unit])
    image.setPixel(x: 2, y: 1, [0, 0, 0, 127 * unit])
    let filled = try #require(TransparentFill.filled(image))
    #expect(filled.format == (format == .rgba8 ? .rgb8 : .rgb16))
    let expected = [red, red, red, blue, blue, blue]
    for y in 0..<4 {
      for x in 0..<6 {
        let p = filled.pixel(x: x, y: y).map { $0 / unit }
        #expect(p == expected[x], "(\(x), \(y)): \(p)")
      }
    }
    // Three opaque pixels in a row of eight: mirrored outward from each end.
    var row = Image(width: 8, height: 1, format: format)
    let (a, b, c) = ([40, 50, 60], [70, 80, 90], [100, 110, 120])
    for (x, colour) in [(2, a), (3, b), (4, c)] {
      row.setPixel(x: x, y: 0, colour.map { $0 * unit } + [255 * unit])
    }
    let mirrored = try #require(TransparentFill.filled(row))
    let filledRow = (0..<8).map { x in mirrored.pixel(x: x, y: 0).map { $0 / unit } }
    #expect(filledRow == [b, a, a, b, c, c, b, a], "\(filledRow)")
    // The analysis copy is made from the filled photo.
    let copy = AnalysisCopy.make(from: image)
    #expect(copy.pixel(x: 0, y: 3) == red && copy.pixel(x: 5, y: 0) == blue)
    // Nothing to fill: no alpha, every pixel opaque, or none.
    #expect(TransparentFill.filled(Self.noise(width: 5, height: 3, format: .rgb8)) == nil)
    #expect(TransparentFill.filled(Self.noise(width: 5, height: 3, format: format)) == nil)
    #expect(TransparentFill.filled(Image(width: 5, height: 3, format: format)) == nil)
  }

  /// `photo` with the left half of its frame transparent, stored as `ground` (grey level).
  static func cutout(_ photo: Image, ground: Int) -> Image {
    var cutout = Image(width: photo.width, height: photo.height, format: .rgba8)
    for y in 0..<photo.height {
      for x in 0..<photo.width {
        let transparent = x < photo.width / 2
        let opaque = photo.pixel(x: x, y: y) + [255]
        cutout.setPixel(x: x, y: y, transparent ? [ground, ground, ground, 0] : opaque)
      }
    }
    return cutout
  }

  /// A cut-out: the rocket launch (s04) with the left half of its frame made transparent and
  /// stored black, as cut-outs often store their ground. The ground is not measured as black
  /// (it read as half the photo clipped to black, and the top suggestion moved the black
  /// point by −0.24); like the photo, the cut-out is left as it is. Darkened by 1.5 EV, with
  /// its ground stored black or white, it is brightened as its opaque half alone is, and its
  /// colour is left alone as that half's is (it had Black Point −0.24, or Highlights −0.25
  /// with Shadows +0.35, and no brightening; filled with its edge's colours, a cool-down).
  @Test func transparentGroundIsNotMeasuredAsBlack() throws {
    let photo = try AnalysisFixtures.decode("s04").image
    let engine = SuggestionEngine()
    #expect(engine.topSuggestion(for: photo) == nil, "no baseline to compare with")
    let cutout = Self.cutout(photo, ground: 0)
    let analysis = engine.analysis(of: cutout)
    #expect(analysis.exposure.shadowClipping < 0.01, "\(analysis.exposure)")
    #expect((analysis.exposure.crushedBlack ?? 0) == 0)
    let top = engine.topSuggestion(for: cutout)
    #expect(top == nil, "\(String(describing: top))")

    let dark = AnalysisFixtures.gained(photo, 0.35, 0.35, 0.35)
    let left = photo.width / 2
    let half = AnalysisTestPhotos.synthetic(width: photo.width - left, height: photo.height) {
      x, y in
      let p = dark.pixel(x: x + left, y: y)
      return (UInt8(p[0]), UInt8(p[1]), UInt8(p[2]))
    }
    let alone = try #require(engine.topSuggestion(for: half))
    #expect(alone.value(of: .exposure) >= 1, "\(alone)")
    for ground in [0, 255] {
      let edit = try #require(engine.topSuggestion(for: Self.cutout(dark, ground: ground)))
      let ev = edit.value(of: .exposure)
      #expect(abs(ev - alone.value(of: .exposure)) <= 0.1, "\(ground): \(edit)")
      for setting in [EditSettingType.temperature, .tint, .blackPoint, .highlights] {
        #expect(edit.value(of: setting) == alone.value(of: setting), "\(ground): \(edit)")
      }
    }
  }

  /// The suggestions' thumbnails of a cut-out show it as it is, transparent where it is: the
  /// analysis copy they were taken from had neither its alpha nor its ground (filled, or
  /// before the fill stored black).
  @Test func cutoutThumbnailsKeepTheirTransparency() async throws {
    let cutout = Self.cutout(try AnalysisFixtures.decode("s04").image, ground: 0)
    let list = await SuggestionEngine().suggestions(
      for: cutout, options: .init(maxSuggestions: 3, thumbnailMaxDimension: 256))
    #expect(!list.isEmpty)
    for suggestion in list {
      let thumbnail = try #require(suggestion.thumbnail)
      #expect(thumbnail.format.hasAlpha, "\(suggestion.lookID): \(thumbnail.format)")
      guard thumbnail.format.hasAlpha else { continue }
      let y = thumbnail.height / 2
      #expect(thumbnail.pixel(x: 2, y: y)[3] == 0, "\(suggestion.lookID)")
      #expect(thumbnail.pixel(x: thumbnail.width - 3, y: y)[3] == 255, "\(suggestion.lookID)")
    }
  }
}
