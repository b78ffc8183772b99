// SPDX-License-Identifier: Apache-2.0

import RetouchCore
import RetouchTestSupport
import Testing

@testable import RetouchRender

@Suite struct GrainTests {
  static func field(_ g: GrainField, height: Int) -> [[Float]] {
    let row = UnsafeMutablePointer<Float>.allocate(capacity: g.outputWidth)
    defer { row.deallocate() }
    return (0..<height).map { y in
      g.fillRow(y: y, into: row)
      return Array(UnsafeBufferPointer(start: row, count: g.outputWidth))
    }
  }

  static func grey(_ v: Double, _ w: Int = 128, _ h: Int = 128) -> Image {
    SpatialTest.image(w, h) { _, _ in (v, v, v) }
  }

  @Test func neutralLeavesTheImage() {
    let image = ToneGuideTests.scene(40, 30, format: .rgb8, seed: 21)
    var out = image
    GrainField(amount: 0, outputWidth: 40).apply(to: &out)
    #expect(out.hasSamePixels(as: image))
  }

  @Test func isDeterministicAndSeeded() {
    let a = Self.field(GrainField(amount: 1, outputWidth: 96, seed: 5), height: 40)
    let b = Self.field(GrainField(amount: 1, outputWidth: 96, seed: 5), height: 40)
    let c = Self.field(GrainField(amount: 1, outputWidth: 96, seed: 6), height: 40)
    #expect(a == b)
    #expect(a != c)
  }

  @Test(arguments: [1.0, 0.5, 0.3, 0.25, 0.07])
  func matchesReference(scale: Double) {
    let g = GrainField(amount: 0.8, renderScale: scale, outputWidth: 70, seed: 3)
    let f = Self.field(g, height: 30)
    var worst: Float = 0
    for y in 0..<30 {
      for x in 0..<70 { worst = max(worst, abs(f[y][x] - g.noiseReference(x: x, y: y))) }
    }
    #expect(worst < 1e-6, "scale \(scale): worst \(worst)")
  }

  @Test func isZeroMeanUnitScaleAndClumped() {
    let g = GrainField(amount: 1, outputWidth: 512)
    let f = Self.field(g, height: 512)
    let values = f.flatMap { $0 }.map { Double($0) / Double(GrainField.fullStrength) }
    let mean = values.reduce(0, +) / Double(values.count)
    let std = (values.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(values.count))
      .squareRoot()
    #expect(abs(mean) < 0.01)
    #expect(abs(std - 1) < 0.01)
    // Neighbours are correlated (clumps of ~2 px), unlike white noise (≈ 0).
    var c = 0.0
    for y in 0..<512 { for x in 0..<511 { c += Double(f[y][x] * f[y][x + 1]) } }
    let lag1 =
      c / Double(512 * 511)
      / (std * std * Double(GrainField.fullStrength * GrainField.fullStrength))
    #expect(lag1 > 0.5, "lag-1 correlation \(lag1)")
  }

  @Test func strongestInMidtonesAbsentAtBlackAndWhite() {
    let g = GrainField(amount: 1, outputWidth: 128, seed: 9)
    var stds: [Double] = []
    for v in [0.0, 0.25, 0.5, 0.75, 1.0] {
      var image = Self.grey(v)
      g.apply(to: &image)
      stds.append(SpatialTest.stats(image, x: 0..<128, y: 0..<128).std)
    }
    #expect(stds[0] == 0 && stds[4] == 0)
    #expect(stds[2] > stds[1] && stds[2] > stds[3])
    #expect(stds[2] > 10 && stds[2] < 16, "mid-grey σ \(stds[2]) of 255")
  }

  @Test func previewMatchesShrunkExport() {
    // Float fields: the 0.25× grain is the export grain box-averaged over 4 × 4, exactly.
    let export = Self.field(GrainField(amount: 1, outputWidth: 256, seed: 4), height: 256)
    let preview = Self.field(
      GrainField(amount: 1, renderScale: 0.25, outputWidth: 64, seed: 4), height: 64)
    var worst: Float = 0
    for y in 0..<64 {
      for x in 0..<64 {
        var s: Float = 0
        for yy in 0..<4 { for xx in 0..<4 { s += export[4 * y + yy][4 * x + xx] } }
        worst = max(worst, abs(s / 16 - preview[y][x]))
      }
    }
    #expect(worst < 1e-5, "worst \(worst)")
    // 8-bit images: σ of the shrunk export and of the preview agree within 10 % (rounding to
    // 8 bits adds ≈ 0.29 of 255 in quadrature to the preview only).
    var full = Self.grey(0.5, 512, 512)
    GrainField(amount: 1, outputWidth: 512, seed: 4).apply(to: &full)
    let shrunk = SpatialTest.shrink(full, by: 4)
    var small = Self.grey(0.5)
    GrainField(amount: 1, renderScale: 0.25, outputWidth: 128, seed: 4).apply(to: &small)
    let a = SpatialTest.stats(shrunk, x: 0..<128, y: 0..<128).std
    let b = SpatialTest.stats(small, x: 0..<128, y: 0..<128).std
    #expect(abs(b / a - 1) < 0.1, "shrunk export σ \(a), preview σ \(b)")
    // And it is not simply the export's grain left unscaled (4 × 4 averaging of grain with
    // neighbour correlation 2/3 keeps about 0.54 of σ).
    let exportStd = SpatialTest.stats(full, x: 0..<512, y: 0..<512).std
    #expect(b < 0.7 * exportStd, "preview σ \(b), export σ \(exportStd)")
  }
}
