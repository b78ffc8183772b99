// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchTestSupport
import Testing

@testable import RetouchRender

/// The tone guide measured while a photo arrives: the guided filter fed a few rows at a time,
/// and a render that starts its pixel pass before the last row is measured.
@Suite struct ToneGuideStreamTests {
  /// Rows given in uneven chunks give the whole-plane filter's output bit for bit, and each
  /// output row is written as soon as the input reaches `2r` rows below it.
  @Test(arguments: [(37, 29, 3), (50, 8, 5), (9, 40, 1), (12, 1, 2)])
  func filterFedInChunksEqualsTheWholePlane(width: Int, height: Int, radius: Int) {
    var rng = SeededRandom(seed: UInt64(width * 1000 + height))
    let input = (0..<(width * height)).map { _ in Float(Double.random(in: -10 ... -2, using: &rng))
    }
    var whole = [Float](repeating: .nan, count: input.count)
    input.withUnsafeBufferPointer { i in
      whole.withUnsafeMutableBufferPointer { o in
        GuidedFilter.smooth(
          i.baseAddress!, into: o.baseAddress!, width: width, height: height, radius: radius,
          epsilon: 0.25)
      }
    }
    var streamed = [Float](repeating: .nan, count: input.count)
    let stream = GuidedFilter.Stream(width: width, height: height, radius: radius, epsilon: 0.25)
    var given = 0
    var chunk = 1
    input.withUnsafeBufferPointer { i in
      streamed.withUnsafeMutableBufferPointer { o in
        while given < height {
          given = min(height, given + chunk)
          chunk = chunk % 4 + 1
          stream.advance(input: i.baseAddress!, availableRows: given, output: o.baseAddress!)
          let expected =
            given == height ? height : max(0, given - GuidedFilter.Stream.lookahead(radius: radius))
          #expect(stream.finishedRows == expected, "after \(given) rows")
        }
      }
    }
    let differing = zip(whole, streamed).filter { $0.0.bitPattern != $0.1.bitPattern }.count
    #expect(differing == 0, "\(differing) of \(input.count) values differ")
    // And it filters: the output is not the input.
    #expect(zip(whole, input).contains { abs($0.0 - $0.1) > 0.05 })
  }

  /// A streaming render of local tone measured band by band has rows ready long before the
  /// photo is measured, and its output equals the plan's (which builds the guide from the
  /// whole photo), byte for byte.
  @Test func streamedLocalToneEqualsThePlan() {
    let (w, h) = (400, 900)
    let image = ToneGuideTests.scene(w, h, format: .rgb8, seed: 21)
    let config = EditConfig(properties: [
      .shadows: 0.5, .highlights: -0.4, .exposure: 0.1, .sharpness: 0.4, .vignette: 0.3,
    ])
    let expected = image.rendered(with: config)
    let renderer = StreamingRender(
      config, width: w, height: h, colorSpace: image.colorSpace, guide: nil)
    #expect(renderer.measuresGuide)
    let lookahead = renderer.guideLookaheadRows
    #expect(lookahead > 0 && lookahead < h / 2, "lookahead \(lookahead) rows")
    var pixels = [UInt8](repeating: 0, count: w * h * 3)
    image.withUnsafeBytes { src in
      pixels.withUnsafeMutableBytes { $0.copyMemory(from: src) }
    }
    var rendered = 0
    var earliest: Int?
    pixels.withUnsafeMutableBufferPointer { buffer in
      let base = buffer.baseAddress!
      let band = 32
      for top in stride(from: 0, to: h, by: band) {
        let bottom = min(h, top + band)
        renderer.measureGuide(covering: bottom, in: base)
        renderer.sharpen(rows: top..<bottom, in: base)
        let ready = min(bottom, renderer.pixelRowsReady)
        #expect(ready >= min(bottom, max(0, bottom - lookahead - band)), "at band \(top)")
        if ready > rendered {
          if earliest == nil { earliest = bottom }
          renderer.applyPixelStages(rows: rendered..<ready, in: base)
          rendered = ready
        }
      }
      renderer.applyPixelStages(rows: rendered..<h, in: base)
    }
    // The first pixel rows ran while most of the photo was still to come.
    #expect((earliest ?? h) < h / 2, "first pixel pass after row \(earliest ?? h)")
    let differing = expected.withUnsafeBytes { e in
      zip(e, pixels).filter { $0.0 != $0.1 }.count
    }
    #expect(differing == 0, "\(differing) of \(pixels.count) bytes differ from the plan")
  }

  /// With clarity the guide is whole only at the last row: nothing is ready before.
  @Test func clarityWaitsForTheWholeGuide() {
    let (w, h) = (120, 200)
    let image = ToneGuideTests.scene(w, h, format: .rgb8, seed: 22)
    let renderer = StreamingRender(
      EditConfig(properties: [.clarity: 0.5, .shadows: 0.2]), width: w, height: h,
      colorSpace: image.colorSpace, guide: nil)
    #expect(renderer.guideLookaheadRows == h)
    var pixels = [UInt8](repeating: 0, count: w * h * 3)
    image.withUnsafeBytes { src in pixels.withUnsafeMutableBytes { $0.copyMemory(from: src) } }
    pixels.withUnsafeMutableBufferPointer { buffer in
      renderer.measureGuide(covering: h - 1, in: buffer.baseAddress!)
      #expect(renderer.pixelRowsReady == 0)
      renderer.measureGuide(covering: h, in: buffer.baseAddress!)
      #expect(renderer.pixelRowsReady == h)
    }
  }
}
