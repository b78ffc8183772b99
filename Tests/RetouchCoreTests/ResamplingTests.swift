// SPDX-License-Identifier: Apache-2.0

import RetouchCore
import RetouchTestSupport
import Testing

@Suite struct ResamplingTests {
  func constant(_ size: PixelSize, format: PixelFormat, value: [Int]) -> Image {
    var image = Image(width: size.width, height: size.height, format: format)
    for y in 0..<size.height { for x in 0..<size.width { image.setPixel(x: x, y: y, value) } }
    return image
  }

  /// Min and max of channel `c` over the image.
  func range(_ image: Image, channel c: Int) -> ClosedRange<Int> {
    var lo = Int.max, hi = Int.min
    for y in 0..<image.height {
      for x in 0..<image.width {
        let v = image.pixel(x: x, y: y)[c]
        lo = min(lo, v)
        hi = max(hi, v)
      }
    }
    return lo...hi
  }

  func checkerboard(_ n: Int, format: PixelFormat = .rgb8) -> Image {
    var image = Image(width: n, height: n, format: format)
    let m = format.maxValue
    for y in 0..<n {
      for x in 0..<n {
        let v = (x + y) % 2 == 0 ? m : 0
        image.setPixel(x: x, y: y, format.hasAlpha ? [v, v, v, m] : [v, v, v])
      }
    }
    return image
  }

  @Test(arguments: ResamplingFilter.allCases)
  func constantImageStaysConstant(filter: ResamplingFilter) {
    for format in [PixelFormat.rgb8, .rgba8, .rgb16, .rgba16] {
      let value = format.bitDepth == 8 ? [37, 200, 91, 255] : [9000, 40000, 65535, 65535]
      let c = Array(value.prefix(format.channelCount))
      let image = constant(PixelSize(width: 97, height: 61), format: format, value: c)
      for target in [(40, 25), (13, 7), (200, 130), (97, 20), (5, 61)] {
        let out = image.resized(to: PixelSize(width: target.0, height: target.1), filter: filter)
        #expect(out.size == PixelSize(width: target.0, height: target.1))
        #expect(out.format == format)
        for ch in 0..<format.channelCount {
          #expect(range(out, channel: ch) == c[ch]...c[ch], "\(format) → \(target), channel \(ch)")
        }
      }
    }
  }

  @Test(arguments: ResamplingFilter.allCases)
  func rampKeepsMeanAndMonotonicity(filter: ResamplingFilter) {
    var image = Image(width: 256, height: 8, format: .rgb8)
    for y in 0..<8 { for x in 0..<256 { image.setPixel(x: x, y: y, [x, 255 - x, 128]) } }
    for width in [100, 37, 300] {
      let out = image.resized(to: PixelSize(width: width, height: 5), filter: filter)
      var sum = 0
      for x in 0..<width {
        let p = out.pixel(x: x, y: 2)
        sum += p[0]
        if x > 0 {
          let prev = out.pixel(x: x - 1, y: 2)
          #expect(p[0] >= prev[0] && p[1] <= prev[1], "\(filter) width \(width) x \(x)")
        }
        #expect(p[2] == 128)
      }
      let mean = Double(sum) / Double(width)
      // The ramp's mean is 127.5; edge renormalisation and rounding move it by well under 1.
      #expect(abs(mean - 127.5) < 1, "\(filter) width \(width): mean \(mean)")
    }
  }

  @Test func outputSizeForOddAndTinyImages() {
    let cases: [((Int, Int), (Int, Int))] = [
      ((1, 1), (7, 5)), ((7, 1), (3, 1)), ((1, 9), (1, 4)), ((333, 217), (101, 66)),
      ((5, 3), (1, 1)), ((1000, 3), (17, 1)), ((2, 2), (1, 1)),
    ]
    for (from, to) in cases {
      let image = randomImage(width: from.0, height: from.1, format: .rgb8, seed: 3)  // seed 3
      for filter in ResamplingFilter.allCases {
        let out = image.resized(to: PixelSize(width: to.0, height: to.1), filter: filter)
        #expect(out.size == PixelSize(width: to.0, height: to.1), "\(from) → \(to) \(filter)")
      }
    }
    let one = constant(PixelSize(width: 1, height: 1), format: .rgb8, value: [10, 20, 30])
    let big = one.resized(to: PixelSize(width: 4, height: 3))
    #expect(range(big, channel: 1) == 20...20)
    let photo = randomImage(width: 400, height: 300, format: .rgb8, seed: 5)  // seed 5
    #expect(photo.resized(toFitLongEdge: 108).size == PixelSize(width: 108, height: 81))
    #expect(photo.resized(toFitLongEdge: 1000).size == photo.size)
    let enlarged = photo.resized(toFitLongEdge: 800, allowingUpscale: true)
    #expect(enlarged.size == PixelSize(width: 800, height: 600))
  }

  @Test(arguments: [
    (256, 37, ResamplingFilter.lanczos3), (256, 64, .lanczos3), (240, 101, .lanczos3),
    (256, 37, .bilinear), (240, 101, .bilinear), (256, 64, .box), (240, 60, .box), (240, 20, .box),
  ])
  func fineCheckerboardBecomesFlatGrey(from: Int, to: Int, filter: ResamplingFilter) {
    // A 1-pixel checkerboard is pure Nyquist: an antialiased shrink flattens it to mid grey,
    // where point sampling would keep 0 and 255. The box filter only does so at even integer
    // factors (elsewhere its windows hold unequal counts of black and white, as in Pillow);
    // Lanczos and the triangle need a factor of 2 or more. Edge windows are renormalised and
    // Lanczos has small side lobes: allow ±4 around 127.5.
    let out = checkerboard(from).resized(to: PixelSize(width: to, height: to), filter: filter)
    let r = range(out, channel: 0)
    #expect(r.lowerBound >= 124 && r.upperBound <= 131, "\(from) → \(to) \(filter): \(r)")
  }

  @Test func linearLightAveragesLight() {
    // Half the pixels at full light: the linear-light average is 0.5 of the light, which the
    // sRGB curve encodes as 187.5; averaging the codes gives 127.5.
    let board = checkerboard(64)
    let gamma = board.resized(to: PixelSize(width: 16, height: 16))
    let linear = board.resized(to: PixelSize(width: 16, height: 16), inLinearLight: true)
    #expect(
      range(gamma, channel: 0).lowerBound >= 126 && range(gamma, channel: 0).upperBound <= 129)
    #expect(
      range(linear, channel: 1).lowerBound >= 186 && range(linear, channel: 1).upperBound <= 189)
  }

  @Test(arguments: [ResamplingFilter.bilinear, .lanczos3])
  func upscaleInterpolates(filter: ResamplingFilter) {
    var image = Image(width: 2, height: 1, format: .rgb16)
    image.setPixel(x: 0, y: 0, [0, 0, 0])
    image.setPixel(x: 1, y: 0, [60000, 60000, 60000])
    let out = image.resized(to: PixelSize(width: 8, height: 3), filter: filter)
    let row = (0..<8).map { out.pixel(x: $0, y: 1)[0] }
    // Lanczos rings a little at a step: its ends may sit up to ~3% inside the source values.
    let slack = filter == .lanczos3 ? 2000 : 0
    #expect(row.first! <= slack && row.last! >= 60000 - slack, "\(row)")
    #expect(zip(row, row.dropFirst()).allSatisfy { $0 <= $1 }, "\(row)")
    // Pixels between the two source centres take in-between values (not a copy of either).
    #expect(row[3] > 0 && row[3] < 60000 && row[4] > row[3], "\(row)")
    if filter == .bilinear {
      // Output pixel 3 has its centre at 3.5 / 4 = 0.875 source px, 0.375 of the way: 22500.
      #expect(abs(row[3] - 22500) <= 1, "\(row)")
    }
  }

  @Test func alphaWeightingKeepsTransparentColourOut() {
    var image = Image(width: 40, height: 4, format: .rgba8)
    for y in 0..<4 {
      for x in 0..<40 { image.setPixel(x: x, y: y, x < 20 ? [255, 0, 0, 0] : [0, 255, 0, 255]) }
    }
    let out = image.resized(to: PixelSize(width: 7, height: 2))
    for x in 0..<7 {
      let p = out.pixel(x: x, y: 1)
      if p[3] > 0 { #expect(p[0] <= 1 && p[1] >= 254, "x \(x): \(p)") }
    }
    #expect(out.pixel(x: 3, y: 0)[3] > 0 && out.pixel(x: 3, y: 0)[3] < 255)
  }

  @Test func sixteenBitKeepsPrecision() {
    var image = Image(width: 64, height: 2, format: .rgb16)
    for y in 0..<2 {
      for x in 0..<64 { image.setPixel(x: x, y: y, [1000 + x, 1000 + x, 1000 + x]) }
    }
    let out = image.resized(to: PixelSize(width: 32, height: 1), filter: .box)
    // Box halving averages neighbour pairs: 1000.5, 1002.5, … (±1 for rounding), each distinct.
    for x in 0..<32 { #expect(abs(out.pixel(x: x, y: 0)[0] - (1000 + 2 * x)) <= 1) }
    #expect(Set((0..<32).map { out.pixel(x: $0, y: 0)[0] }).count == 32)
  }

  @Test(arguments: [PixelFormat.rgb8, .rgba8, .rgb16, .rgba16])
  func resultsAreIndependentOfThreadCount(format: PixelFormat) {
    let image = randomImage(width: 301, height: 203, format: format, seed: 42)  // seed 42
    let cases = [
      (PixelSize(width: 97, height: 61), false), (PixelSize(width: 40, height: 29), true),
      (PixelSize(width: 450, height: 300), false),
    ]
    for (size, linear) in cases {
      let one = image.resized(to: size, inLinearLight: linear, threads: 1)
      for t in [2, 3, 8] {
        let other = image.resized(to: size, inLinearLight: linear, threads: t)
        #expect(other.hasSamePixels(as: one), "\(format) \(size) threads \(t)")
      }
    }
  }
}
