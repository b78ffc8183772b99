// SPDX-License-Identifier: Apache-2.0

import RetouchCore
import RetouchTestSupport
import Testing

@_spi(Benchmarks) @testable import RetouchRender

/// Colour and tone at strong values, so the table is far from the identity.
private let colourEdit = EditConfig(properties: [
  .exposure: 0.4, .contrast: 0.6, .temperature: 0.5, .tint: -0.3, .saturation: 0.4, .vibrance: 0.5,
  .blacks: -0.3, .mixer(.blue, .saturation): -0.6,
])

/// One random row for the fused kernel: pixels, gains (0.3…3) and vignette multipliers (0.25…4).
private struct FusedRow {
  var pixels: [UInt8]
  let gains: [Float]
  let vignette: [Float]

  init(count: Int, rng: inout SeededRandom) {
    pixels = (0..<(3 * count)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
    // Every code value once in the first row long enough, so table ends are covered.
    if count >= 256 { for v in 0..<256 { pixels[3 * v + v % 3] = UInt8(v) } }
    gains = (0..<count).map { _ in 0.3 + 2.7 * Float(rng.next() % 10_000) / 10_000 }
    vignette = (0..<count).map { _ in 0.25 + 3.75 * Float(rng.next() % 10_000) / 10_000 }
  }

  func rendered(
    _ lut: ColorLUT3D, gains useGains: Bool, vignette useVignette: Bool
  ) -> [UInt8] {
    var out = pixels
    out.withUnsafeMutableBufferPointer { p in
      gains.withUnsafeBufferPointer { g in
        vignette.withUnsafeBufferPointer { v in
          lut.apply8Fused(
            p.baseAddress!, count: gains.count, channels: 3, gains: useGains ? g.baseAddress : nil,
            vignette: useVignette ? v.baseAddress : nil)
        }
      }
    }
    return out
  }

  /// The float reference of pixel `i`: gain in linear light, the table's float interpolation,
  /// vignette in linear light, one rounding at the end.
  func reference(_ lut: ColorLUT3D, _ i: Int, gains useGains: Bool, vignette useVignette: Bool)
    -> [Double]
  {
    let k = useGains ? Double(gains[i]) : 1
    let input = (0..<3).map { c in
      Float(
        min(SRGBTables.encodeExact(SRGBTables.decodeExact(Double(pixels[3 * i + c]) / 255) * k), 1))
    }
    let s = lut.sample(input[0], input[1], input[2])
    let m = useVignette ? Double(vignette[i]) : 1
    return [s.0, s.1, s.2].map { v in
      min(SRGBTables.encodeExact(SRGBTables.decodeExact(Double(v)) * m), 1) * 255
    }
  }
}

@Suite("Fused 8-bit pixel kernel")
struct FusedPixelKernelTests {
  static let cases: [(gains: Bool, vignette: Bool)] = [
    (false, false), (true, false), (false, true), (true, true),
  ]

  @Test(arguments: 0..<4)
  func matchesTheFloatReference(variant: Int) {
    let (useGains, useVignette) = Self.cases[variant]
    let lut = ColorLUT3D(ColorToneTransform(colourEdit, colorSpace: .sRGB))
    var rng = SeededRandom(seed: 4242 + UInt64(variant))
    let row = FusedRow(count: 4099, rng: &rng)
    let out = row.rendered(lut, gains: useGains, vignette: useVignette)
    var worst = 0.0, sum = 0.0, at = 0
    for i in 0..<row.gains.count {
      let want = row.reference(lut, i, gains: useGains, vignette: useVignette)
      for c in 0..<3 {
        let d = abs(Double(out[3 * i + c]) - want[c])
        sum += d
        if d > worst { (worst, at) = (d, i) }
      }
    }
    let mean = sum / Double(out.count)
    // Fixed point (1/256 of a cell, entries at 1/4080, 16384 steps of linear light) plus the
    // final rounding (≤ 0.5): measured max 0.55–0.75, mean 0.14–0.23 code values. A wrong
    // tetrahedron or an unscaled table gives errors of many code values.
    #expect(
      worst <= 1.0 && mean <= 0.3,
      "gains \(useGains), vignette \(useVignette): max \(worst) at pixel \(at), mean \(mean)")
  }

  @Test func agreesWithTheSeparatePasses() {
    // Gain, table and vignette as three 8-bit passes (each rounding to a code) against the
    // fused pass (rounding once): measured max 3 code values where the table is steep (a gain
    // pass's rounding magnified by contrast), mean 0.1–0.38, for row lengths around the 8-pixel
    // groups. A fused stage applied twice, or skipped, moves most pixels by far more.
    let lut = ColorLUT3D(ColorToneTransform(colourEdit, colorSpace: .sRGB))
    let stages = PixelStages(
      config: colourEdit, width: 1, height: 1, colorSpace: .sRGB, guide: nil, renderScale: 1,
      vignette: 0, options: RenderOptions())
    var rng = SeededRandom(seed: 7)
    for count in [1, 7, 8, 9, 16, 33, 1000] {
      let row = FusedRow(count: count, rng: &rng)
      let fused = row.rendered(lut, gains: true, vignette: true)
      var separate = row.pixels
      separate.withUnsafeMutableBufferPointer { p in
        row.gains.withUnsafeBufferPointer { g in
          row.vignette.withUnsafeBufferPointer { v in
            let base = p.baseAddress!
            stages.localGain8(base, count, 3, UnsafeMutablePointer(mutating: g.baseAddress!))
            lut.apply8(UnsafeMutableRawPointer(base), width: count, rows: 0..<1, channels: 3)
            stages.vignette8(base, count, 3, UnsafeMutablePointer(mutating: v.baseAddress!))
          }
        }
      }
      let worst = zip(fused, separate).map { abs(Int($0) - Int($1)) }.max() ?? 0
      let mean =
        Double(zip(fused, separate).map { abs(Int($0) - Int($1)) }.reduce(0, +))
        / Double(fused.count)
      #expect(worst <= 4 && mean <= 0.45, "count \(count): max \(worst), mean \(mean)")
    }
  }

  /// The table alone on RGB runs the C twin where the CPU has it: byte for byte the Swift
  /// kernel, for every run length around its 32-pixel steps and a few long ones, in place and
  /// from another buffer, leaving the bytes after the run alone; and on a whole image in bands.
  @Test(.enabled(if: ColorLUT3D.vectorKernelAvailable))
  func vectorTwinGivesTheSwiftKernelsBytes() {
    let lut = ColorLUT3D(ColorToneTransform(colourEdit, colorSpace: .sRGB))
    var rng = SeededRandom(seed: 99)
    for count in Array(1...70) + [255, 256, 4099] {
      let row = FusedRow(count: count, rng: &rng)
      let n = 3 * count
      var swift = row.pixels
      swift.withUnsafeMutableBufferPointer { p in
        lut.apply8Fused(
          p.baseAddress!, count: count, channels: 3, gains: nil, vignette: nil,
          vectorKernel: false)
      }
      var inPlace = row.pixels + [UInt8](repeating: 77, count: 96)
      inPlace.withUnsafeMutableBufferPointer { p in
        lut.apply8Fused(p.baseAddress!, count: count, channels: 3, gains: nil, vignette: nil)
      }
      var copied = [UInt8](repeating: 77, count: n + 96)
      row.pixels.withUnsafeBufferPointer { src in
        copied.withUnsafeMutableBufferPointer { p in
          lut.apply8Fused(
            p.baseAddress!, count: count, channels: 3, gains: nil, vignette: nil,
            source: src.baseAddress)
        }
      }
      // The first byte that differs, if any (printing whole rows would bury it).
      func firstDifference(_ a: ArraySlice<UInt8>) -> Int? {
        zip(a, swift).enumerated().first { $0.element.0 != $0.element.1 }?.offset
      }
      #expect(firstDifference(inPlace[..<n]) == nil, "in place, \(count) pixels")
      #expect(firstDifference(copied[..<n]) == nil, "from another buffer, \(count) pixels")
      #expect(
        inPlace[n...].allSatisfy { $0 == 77 } && copied[n...].allSatisfy { $0 == 77 },
        "the bytes after \(count) pixels")
    }
    let bytes = (0..<(3 * 333 * 77)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
    let image = Image(width: 333, height: 77, format: .rgb8, bytes: bytes)
    var vector = image
    lut.apply(to: &vector, threads: 2, minimumBandHeight: 16, vectorKernel: true)
    var scalar = image
    lut.apply(to: &scalar, threads: 2, minimumBandHeight: 16, vectorKernel: false)
    let (v, w) = (vector.withUnsafeBytes { Array($0) }, scalar.withUnsafeBytes { Array($0) })
    #expect(v.indices.first { v[$0] != w[$0] } == nil, "whole image in bands")
    #expect(v != bytes, "the table changes the image")
  }

  @Test func staysWithinTheRowItIsGiven() {
    // The vector kernel reads and writes 16 pixels at a time: a short row in the middle of a
    // buffer must leave its neighbours alone.
    let lut = ColorLUT3D(ColorToneTransform(colourEdit, colorSpace: .sRGB))
    var buffer = [UInt8](repeating: 77, count: 3 * 64)
    let gains = [Float](repeating: 2, count: 64)
    buffer.withUnsafeMutableBufferPointer { p in
      gains.withUnsafeBufferPointer { g in
        lut.apply8Fused(
          p.baseAddress! + 3 * 20, count: 5, channels: 3, gains: g.baseAddress,
          vignette: g.baseAddress)
      }
    }
    #expect(buffer[0..<60].allSatisfy { $0 == 77 } && buffer[75...].allSatisfy { $0 == 77 })
    #expect(buffer[60..<75].allSatisfy { $0 != 77 })
  }
}
