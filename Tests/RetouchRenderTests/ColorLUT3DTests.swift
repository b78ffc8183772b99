// SPDX-License-Identifier: Apache-2.0

import RetouchCore
import RetouchTestSupport
import Testing

@testable import RetouchRender

/// Every colour-and-tone setting at a strong but ordinary value, plus a look.
private let strongEdit = EditConfig(
  properties: [
    .exposure: 0.7, .temperature: 0.6, .tint: -0.4, .brightness: 0.5, .contrast: 0.8,
    .whites: 0.5, .blacks: -0.5, .saturation: 0.5, .vibrance: 0.7, .shadowWarmth: 0.6,
    .mixer(.orange, .hue): 1, .mixer(.blue, .saturation): -0.8, .mixer(.green, .luminance): 1,
  ],
  look: LookSelection(.chrome, strength: 0.7))

/// A seeded noise image (plus a full 0…255 ramp in the first row so every code value occurs).
private func noiseImage(width: Int, height: Int, format: PixelFormat, seed: UInt64) -> Image {
  var image = Image(width: width, height: height, format: format)
  var rng = SeededRandom(seed: seed)
  image.withUnsafeMutableBytes { raw in
    for i in 0..<raw.count { raw[i] = UInt8(truncatingIfNeeded: rng.next()) }
  }
  return image
}

@Suite("ColorLUT3D")
struct ColorLUT3DTests {
  @Test(arguments: [PixelFormat.rgb8, .rgba16])
  func neutralTableIsTheIdentity(format: PixelFormat) {
    let lut = ColorLUT3D(ColorToneTransform(.neutral, colorSpace: .sRGB))
    // 256×256 pixels: red = x, green = y, blue = (x + 3y) mod 256, so every code value occurs
    // in every channel (scaled ×257 at 16 bits).
    var image = Image(width: 256, height: 256, format: format)
    let scale = format.bitDepth == 8 ? 1 : 257
    for y in 0..<256 {
      for x in 0..<256 {
        var c = [x, y, (x + 3 * y) % 256].map { $0 * scale }
        if format.hasAlpha { c.append(((x ^ y) & 255) * scale) }
        image.setPixel(x: x, y: y, c)
      }
    }
    let out = lut.applied(to: image, threads: 2)
    var worst = 0
    for y in 0..<256 {
      for x in 0..<256 {
        let a = image.pixel(x: x, y: y)
        let b = out.pixel(x: x, y: y)
        for i in 0..<a.count { worst = max(worst, abs(a[i] - b[i])) }
        if format.hasAlpha { #expect(a[3] == b[3], "alpha changed at (\(x), \(y))") }
      }
    }
    // 8-bit: within 1 code value (the fixed-point kernel rounds entries to 1/4080); 16-bit:
    // within 2 code values of 65535 (float rounding of the grid fractions).
    #expect(worst <= (format.bitDepth == 8 ? 1 : 2), "worst difference \(worst)")
  }

  @Test func tableMatchesTheScalarReference() {
    // Seeded random colours; report the seed. The error is interpolation error between the
    // 33 grid points: it follows the transform's curvature, which is largest where a chroma
    // boost meets the gamut edge (the soft limit bends sharply there) and around the grey
    // axis under hue-dependent edits. Measured for this edit at N = 33: max 0.054, mean 0.0019,
    // 99th percentile ≈ 0.011. A bug in indexing or tetrahedron choice gives errors ≥ 0.1 on
    // most colours, which these bounds catch.
    let seed: UInt64 = 20_240_601
    let transform = ColorToneTransform(strongEdit, colorSpace: .sRGB)
    let lut = ColorLUT3D(transform)
    var rng = SeededRandom(seed: seed)
    var errors: [Float] = []
    for _ in 0..<5000 {
      let (r, g, b) = (
        Float.random(in: 0...1, using: &rng), Float.random(in: 0...1, using: &rng),
        Float.random(in: 0...1, using: &rng)
      )
      let want = transform.apply(r, g, b)
      let got = lut.sample(r, g, b)
      errors.append(max(abs(want.0 - got.0), abs(want.1 - got.1), abs(want.2 - got.2)))
    }
    errors.sort()
    let mean = errors.reduce(0, +) / Float(errors.count)
    #expect(errors.last! < 0.08, "seed \(seed): max \(errors.last!)")
    #expect(errors[errors.count * 99 / 100] < 0.02, "seed \(seed): p99")
    #expect(mean < 0.003, "seed \(seed): mean \(mean)")

    // A smooth tone-only edit interpolates far better: under one 8-bit code value (0.0039);
    // measured 0.0022, at the steep toe of the brightness curve.
    let tone = ColorToneTransform(
      EditConfig(properties: [.exposure: 1, .contrast: 1, .brightness: -0.5]), colorSpace: .sRGB)
    let toneLUT = ColorLUT3D(tone)
    var worst: Float = 0
    for _ in 0..<5000 {
      let (r, g, b) = (
        Float.random(in: 0...1, using: &rng), Float.random(in: 0...1, using: &rng),
        Float.random(in: 0...1, using: &rng)
      )
      let want = tone.apply(r, g, b)
      let got = toneLUT.sample(r, g, b)
      worst = max(worst, abs(want.0 - got.0), abs(want.1 - got.1), abs(want.2 - got.2))
    }
    #expect(worst < 0.003, "seed \(seed): tone-only max \(worst)")
  }

  @Test func gridPointsAreExact() {
    let transform = ColorToneTransform(strongEdit, colorSpace: .displayP3)
    let lut = ColorLUT3D(transform, size: 9)
    for (r, g, b) in [(0, 0, 0), (8, 8, 8), (3, 5, 7), (8, 0, 4), (1, 7, 2)] {
      let x = (Float(r) / 8, Float(g) / 8, Float(b) / 8)
      let want = transform.apply(x.0, x.1, x.2)
      let got = lut.sample(x.0, x.1, x.2)
      #expect(
        abs(want.0 - got.0) < 1e-5 && abs(want.1 - got.1) < 1e-5 && abs(want.2 - got.2) < 1e-5,
        "grid (\(r), \(g), \(b)): \(want) vs \(got)")
    }
  }

  @Test func sampleClampsOutOfRangeInputs() {
    let lut = ColorLUT3D(ColorToneTransform(strongEdit, colorSpace: .sRGB), size: 17)
    #expect(lut.sample(-1, 2, .nan) == lut.sample(0, 1, 0))
    #expect(lut.sample(.infinity, -.infinity, 0.5) == lut.sample(1, 0, 0.5))
  }

  @Test(arguments: [PixelFormat.rgb8, .rgba8, .rgb16, .rgba16])
  func wholeImageMatchesSampleAndIgnoresScheduling(format: PixelFormat) {
    let seed: UInt64 = 77
    let lut = ColorLUT3D(ColorToneTransform(strongEdit, colorSpace: .sRGB), threads: 2)
    let image = noiseImage(width: 97, height: 61, format: format, seed: seed)
    let reference = lut.applied(to: image, threads: 1)
    for (threads, band) in [(2, 16), (2, 1), (2, 7), (1, 1), (3, 64)] {
      let out = lut.applied(to: image, threads: threads, minimumBandHeight: band)
      #expect(out.hasSamePixels(as: reference), "threads \(threads), band \(band)")
    }
    // Against the per-pixel sampler: the 8-bit kernel is fixed point (≤ 0.05 code off the
    // float result, so at most 1 after rounding); the 16-bit kernel is the same float maths.
    let maxValue = Float(format.maxValue)
    var worst: Float = 0
    for y in stride(from: 0, to: 61, by: 3) {
      for x in 0..<97 {
        let a = image.pixel(x: x, y: y)
        let b = reference.pixel(x: x, y: y)
        let s = lut.sample(Float(a[0]) / maxValue, Float(a[1]) / maxValue, Float(a[2]) / maxValue)
        for (i, v) in [s.0, s.1, s.2].enumerated() {
          worst = max(worst, abs(v * maxValue - Float(b[i])))
        }
        if format.hasAlpha { #expect(a[3] == b[3], "alpha changed") }
      }
    }
    #expect(worst <= (format.bitDepth == 8 ? 1 : 1.5), "seed \(seed): worst \(worst)")
    #expect(!reference.hasSamePixels(as: image), "the edit changed nothing")
  }

  @Test func buildIsIndependentOfThreadCount() {
    let transform = ColorToneTransform(strongEdit, colorSpace: .sRGB)
    let one = ColorLUT3D(transform, size: 17, threads: 1)
    let two = ColorLUT3D(transform, size: 17, threads: 2)
    #expect(one.entries == two.entries)
    #expect(one.entries.count == 17 * 17 * 17)
  }
}
