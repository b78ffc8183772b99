// SPDX-License-Identifier: Apache-2.0

import RetouchCore
import RetouchTestSupport
import Testing

@Suite struct HistogramTests {
  /// A horizontal grey ramp 0…255, `rows` rows high.
  func ramp8(rows: Int) -> Image {
    var image = Image(width: 256, height: rows, format: .rgb8)
    for y in 0..<rows { for x in 0..<256 { image.setPixel(x: x, y: y, [x, x, x]) } }
    return image
  }

  @Test(arguments: [PixelFormat.rgb8, .rgba8, .rgb16, .rgba16])
  func countsSumToPixelCount(format: PixelFormat) {
    let image = randomImage(width: 123, height: 77, format: format, seed: 7)  // seed 7
    for bins in [256, 64, 1] {
      let h = Histogram(image, binCount: bins, threads: 2)
      for channel in Histogram.Channel.allCases {
        #expect(h.counts(channel).count == bins)
        #expect(h.counts(channel).reduce(0, +) == image.pixelCount, "\(channel) \(bins) bins")
      }
    }
  }

  @Test func countsAreIndependentOfThreads() {
    let image = randomImage(width: 301, height: 203, format: .rgb8, seed: 11)  // seed 11
    let one = Histogram(image, threads: 1)
    for t in [2, 3, 8] { #expect(Histogram(image, threads: t) == one) }
  }

  @Test func rampPercentilesMeanAndClipping() {
    let h = Histogram(ramp8(rows: 4))
    #expect(h.red.allSatisfy { $0 == 4 })
    #expect(h.luminance.allSatisfy { $0 == 4 })  // grey: luma equals the code
    #expect(abs(h.percentile(0.5, of: .green) - 0.5) < 1.0 / 256)
    #expect(abs(h.percentile(0.1, of: .green) - 0.1) < 1.0 / 256)
    #expect(abs(h.percentile(0.9, of: .luminance) - 0.9) < 1.0 / 256)
    #expect(h.percentile(0, of: .red) == 0)
    #expect(h.percentile(1, of: .red) == 1)
    #expect(abs(h.mean(of: .blue) - 0.5) < 1e-12)
    let clip = h.clippedFractions(of: .red)
    #expect(clip.low == 1.0 / 256 && clip.high == 1.0 / 256)
  }

  @Test func lumaUsesTheColourSpaceWeights() {
    var image = Image(width: 1, height: 1, format: .rgb8)
    image.setPixel(x: 0, y: 0, [0, 255, 0])
    let srgb = Histogram(image)
    // Rec. 709 green weight 0.7152 → code 182.4 → 182.
    #expect(srgb.luminance[182] == 1)
    image.colorSpace = .displayP3
    // P3 green weight 0.6917 → code 176.4 → 176.
    #expect(Histogram(image).luminance[176] == 1)
  }

  @Test func sixteenBitBins() {
    var image = Image(width: 3, height: 1, format: .rgb16)
    image.setPixel(x: 0, y: 0, [0, 0, 0])
    image.setPixel(x: 1, y: 0, [255, 256, 65535])
    image.setPixel(x: 2, y: 0, [65535, 65535, 65535])
    let h = Histogram(image)
    #expect(h.red[0] == 2 && h.red[255] == 1)
    #expect(h.green[0] == 1 && h.green[1] == 1)
    #expect(h.clippedFractions(of: .blue).high == 2.0 / 3)
  }
}
