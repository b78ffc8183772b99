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

  /// Negative Black Point's ramp at black (``ColorToneTransform/crushToe``) spans the first
  /// cell of the 33-point table, so the table renders it as the transform does: within one
  /// 8-bit code value in the darkest codes, where the ramp is steepest.
  @Test func crushRestoreRampIsRenderedAsComputed() {
    let seed: UInt64 = 20_261_202
    let transform = ColorToneTransform(
      EditConfig(properties: [.blackPoint: -0.4]), colorSpace: .sRGB)
    let lut = ColorLUT3D(transform)
    var rng = SeededRandom(seed: seed)
    var worst: Float = 0
    for i in 0..<5000 {
      // Half the colours with every channel among the darkest 16 codes.
      let top: Float = i.isMultiple(of: 2) ? 16 / 255 : 1
      let (r, g, b) = (
        Float.random(in: 0...top, using: &rng), Float.random(in: 0...top, using: &rng),
        Float.random(in: 0...top, using: &rng)
      )
      let want = transform.apply(r, g, b)
      let got = lut.sample(r, g, b)
      worst = max(worst, abs(want.0 - got.0), abs(want.1 - got.1), abs(want.2 - got.2))
    }
    #expect(worst < 0.0039, "seed \(seed): max \(worst)")
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

  @Test(arguments: [PixelFormat.rgb8, .rgba8])
  func eightBitKernelMatchesScalarFixedPointReference(format: PixelFormat) {
    // The SIMD8 two-step kernel against a one-pixel-at-a-time version of the same fixed-point
    // maths written from the entries (the kernel it replaced): equal, pixel for pixel. Widths
    // cover whole groups of 8, a remainder, and rows shorter than one group.
    let seed: UInt64 = 4242
    for (config, space) in [(strongEdit, ColorSpace.sRGB), (strongEdit, .displayP3)] {
      for size in [2, 17, 33] {
        let lut = ColorLUT3D(ColorToneTransform(config, colorSpace: space), size: size)
        for (width, height) in [(64, 9), (97, 13), (5, 7), (1, 3)] {
          let image = noiseImage(width: width, height: height, format: format, seed: seed)
          let want = fixedPointReference(lut, image)
          for threads in [1, 2, 3] {
            let out = lut.applied(to: image, threads: threads, minimumBandHeight: 1)
            #expect(
              out.hasSamePixels(as: want),
              "seed \(seed), size \(size), \(width)×\(height), threads \(threads)")
          }
        }
      }
    }
  }

  @Test func eightBitKernelHandlesTiedFractions() {
    // Every colour whose channels share code values (greys, and two equal channels) exercises
    // the tie-breaks of the tetrahedron choice; the reference breaks ties differently, and the
    // results must still agree exactly (the corner in dispute has weight 0).
    let lut = ColorLUT3D(ColorToneTransform(strongEdit, colorSpace: .sRGB))
    var image = Image(width: 256, height: 4, format: .rgb8)
    for x in 0..<256 {
      image.setPixel(x: x, y: 0, [x, x, x])
      image.setPixel(x: x, y: 1, [x, x, 255 - x])
      image.setPixel(x: x, y: 2, [x, 255 - x, x])
      image.setPixel(x: x, y: 3, [(x * 7) % 256, x, x])
    }
    let out = lut.applied(to: image, threads: 1)
    #expect(out.hasSamePixels(as: fixedPointReference(lut, image)))
  }

  @Test func separatedBuildMatchesTheReferenceBitForBit() {
    // The build evaluates the per-channel start of the transform once per axis value; the
    // entries must be exactly what `apply` gives at every grid point.
    let configs: [(EditConfig, ColorSpace)] = [
      (strongEdit, .sRGB), (strongEdit, .displayP3),
      (EditConfig(properties: [.exposure: 1, .contrast: 1, .brightness: -0.5]), .sRGB),
      (EditConfig(properties: [.contrast: -0.6, .blacks: 0.4]), .sRGB),
      (EditConfig(properties: [.saturation: 0.8]), .displayP3),
      (EditConfig(look: LookSelection(.chrome, strength: 1)), .sRGB),
    ]
    for (config, space) in configs {
      let transform = ColorToneTransform(config, colorSpace: space)
      let n = 17
      let scale = 1 / Float(n - 1)
      var want: [SIMD4<Float>] = []
      for b in 0..<n {
        for g in 0..<n {
          for r in 0..<n {
            let c = transform.apply(Float(r) * scale, Float(g) * scale, Float(b) * scale)
            want.append(SIMD4(c.0, c.1, c.2, 0))
          }
        }
      }
      for threads in [1, 2] {
        let lut = ColorLUT3D(transform, size: n, threads: threads)
        #expect(lut.entries == ColorLUT3D(size: n, entries: want).entries, "\(config.properties)")
      }
    }
  }

  @Test func separatedStagesComposeToApply() {
    let seed: UInt64 = 99
    var rng = SeededRandom(seed: seed)
    for config in [strongEdit, EditConfig(properties: [.exposure: -0.8]), .neutral] {
      let transform = ColorToneTransform(config, colorSpace: .sRGB)
      for _ in 0..<2000 {
        let (r, g, b) = (
          Float.random(in: -0.1...1.1, using: &rng), Float.random(in: -0.1...1.1, using: &rng),
          Float.random(in: -0.1...1.1, using: &rng)
        )
        let whole = transform.apply(r, g, b)
        let split = transform.applySeparated(
          transform.channelStage(r), transform.channelStage(g), transform.channelStage(b))
        #expect(whole == split, "seed \(seed): (\(r), \(g), \(b))")
      }
    }
  }
}

/// The cache of built tables that renders use (each test makes its own cache, since other
/// suites render concurrently through the shared one).
@Suite("ColorLUTCache")
struct ColorLUTCacheTests {
  @Test func hitReturnsTheSameTableAsABuild() {
    let cache = ColorLUTCache(capacity: 2)
    let first = cache.lut(for: strongEdit, colorSpace: .sRGB, size: 17, threads: 2)
    let again = cache.lut(for: strongEdit, colorSpace: .sRGB, size: 17, threads: 1)
    let fresh = ColorLUT3D(ColorToneTransform(strongEdit, colorSpace: .sRGB), size: 17)
    #expect(first?.entries == fresh.entries)
    #expect(again?.entries == fresh.entries)
    #expect(cache.keys.count == 1)
    // Settings the transform does not read (crop, sharpness) share the table.
    let detail = strongEdit.with(
      properties: strongEdit.properties.merging([.sharpness: 0.5]) { $1 })
    _ = cache.lut(for: detail, colorSpace: .sRGB, size: 17, threads: 1)
    #expect(cache.keys.count == 1)
  }

  @Test func keyCoversSpaceSizeLookAndSettings() {
    let cache = ColorLUTCache(capacity: 8)
    let variants: [(EditConfig, ColorSpace, Int)] = [
      (strongEdit, .sRGB, 9), (strongEdit, .displayP3, 9), (strongEdit, .sRGB, 5),
      (strongEdit.with(look: .some(LookSelection(.chrome, strength: 0.3))), .sRGB, 9),
      (
        strongEdit.with(properties: strongEdit.properties.merging([.contrast: 0.1]) { $1 }),
        .sRGB, 9
      ),
    ]
    for (config, space, size) in variants {
      let lut = cache.lut(for: config, colorSpace: space, size: size, threads: 1)
      let fresh = ColorLUT3D(ColorToneTransform(config, colorSpace: space), size: size)
      #expect(lut?.entries == fresh.entries)
    }
    #expect(cache.keys.count == variants.count)
  }

  @Test func keepsTheMostRecentlyUsedAndNilForNeutral() {
    let cache = ColorLUTCache(capacity: 2)
    let a = EditConfig(properties: [.exposure: 0.5])
    let b = EditConfig(properties: [.exposure: -0.5])
    let c = EditConfig(properties: [.contrast: 0.5])
    _ = cache.lut(for: a, colorSpace: .sRGB, size: 5, threads: 1)
    _ = cache.lut(for: b, colorSpace: .sRGB, size: 5, threads: 1)
    _ = cache.lut(for: a, colorSpace: .sRGB, size: 5, threads: 1)  // a is now the newest
    _ = cache.lut(for: c, colorSpace: .sRGB, size: 5, threads: 1)  // evicts b
    #expect(cache.keys.map { $0.settings } == [c.properties, a.properties])
    #expect(cache.lut(for: .neutral, colorSpace: .sRGB, size: 5, threads: 1) == nil)
  }
}

/// The 8-bit fixed-point tetrahedral interpolation one pixel at a time, from the table's
/// entries: fractions of 256 per axis, entries rounded to 1/4080, the tetrahedron from a
/// six-way comparison, rounding with +2048 and `>> 12` (as `ColorLUT3D.apply8` documents).
private func fixedPointReference(_ lut: ColorLUT3D, _ image: Image) -> Image {
  let n = lut.size
  let q = lut.entries.map { e in (e * 4080).rounded(.toNearestOrEven) }
  var out = image
  for y in 0..<image.height {
    for x in 0..<image.width {
      var c = image.pixel(x: x, y: y)
      var index = [0, 0, 0]
      var fraction = [0, 0, 0]
      for k in 0..<3 {
        let v = Double(c[k]) / 255 * Double(n - 1)
        index[k] = min(Int(v), n - 2)
        fraction[k] = Int(((v - Double(index[k])) * 256).rounded())
      }
      let step = [1, n, n * n]
      let base = (index[2] * n + index[1]) * n + index[0]
      // Axes by decreasing fraction (stable: red before green before blue on ties).
      let order = [0, 1, 2].sorted { fraction[$0] > fraction[$1] }
      let weights = [
        256 - fraction[order[0]], fraction[order[0]] - fraction[order[1]],
        fraction[order[1]] - fraction[order[2]], fraction[order[2]],
      ]
      let cornersAt = [
        base, base + step[order[0]], base + step[order[0]] + step[order[1]],
        base + step[0] + step[1] + step[2],
      ]
      for k in 0..<3 {
        var sum = 2048
        for i in 0..<4 { sum += Int(q[cornersAt[i]][k]) * weights[i] }
        c[k] = sum >> 12
      }
      out.setPixel(x: x, y: y, c)
    }
  }
  return out
}
