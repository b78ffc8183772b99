// SPDX-License-Identifier: Apache-2.0

import RetouchCore
import Testing

@testable import RetouchAI

/// The analysis copy's box reduction against a plain per-pixel block mean.
@Suite struct AnalysisCopyTests {
  /// A `width × height` image of `format` filled with pseudo-random components (fixed seed).
  static func noise(width: Int, height: Int, format: PixelFormat) -> Image {
    var state: UInt32 = 12345
    let count = width * height * format.channelCount * (format.bitDepth / 8)
    var bytes = [UInt8](repeating: 0, count: count)
    for i in 0..<count {
      state = state &* 1_664_525 &+ 1_013_904_223
      bytes[i] = UInt8(truncatingIfNeeded: state >> 24)
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
}
