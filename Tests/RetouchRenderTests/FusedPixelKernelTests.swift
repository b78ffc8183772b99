// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchTestSupport
import Testing

@_spi(Benchmarks) @testable import RetouchRender

/// Colour and tone at strong values, so the table is far from the identity.
private let colourEdit = EditConfig(properties: [
  .exposure: 0.4, .contrast: 0.6, .temperature: 0.5, .tint: -0.3, .saturation: 0.4, .vibrance: 0.5,
  .blacks: -0.3, .mixer(.blue, .saturation): -0.6,
])

/// One random row for the fused kernel: pixels, gains (0.3…3, and 6.5) and vignette multipliers
/// (0.25…4).
private struct FusedRow {
  var pixels: [UInt8]
  let gains: [Float]
  let vignette: [Float]
  /// The multipliers' 2.4th roots, as the renderer passes them (``FusedFactors``).
  var gainRoots: [Float] { gains.map { Foundation.pow($0, FusedFactors.rootExponent) } }
  var vignetteRoots: [Float] { vignette.map { Foundation.pow($0, FusedFactors.rootExponent) } }

  init(count: Int, rng: inout SeededRandom) {
    pixels = (0..<(3 * count)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
    // Every code value once in the first row long enough, so table ends are covered.
    if count >= 256 { for v in 0..<256 { pixels[3 * v + v % 3] = UInt8(v) } }
    // Every 37th gain above 5.2, where the C twin takes the tables instead of the root.
    gains = (0..<count).map { i in
      i % 37 == 36 ? 6.5 : 0.3 + 2.7 * Float(rng.next() % 10_000) / 10_000
    }
    vignette = (0..<count).map { _ in 0.25 + 3.75 * Float(rng.next() % 10_000) / 10_000 }
  }

  /// The gains and the vignette as the kernel takes them, for the duration of `body`.
  func withFactors<T>(
    _ gainRoots: [Float], _ vignetteRoots: [Float],
    _ body: (FusedFactors, FusedFactors) -> T
  ) -> T {
    gains.withUnsafeBufferPointer { g in
      gainRoots.withUnsafeBufferPointer { gr in
        vignette.withUnsafeBufferPointer { v in
          vignetteRoots.withUnsafeBufferPointer { vr in
            body(
              FusedFactors(linear: g.baseAddress!, root: gr.baseAddress!),
              FusedFactors(linear: v.baseAddress!, root: vr.baseAddress!))
          }
        }
      }
    }
  }

  func rendered(
    _ lut: ColorLUT3D, gains useGains: Bool, vignette useVignette: Bool,
    vectorKernel: Bool = true
  ) -> [UInt8] {
    var out = pixels
    let (gainRoots, vignetteRoots) = (self.gainRoots, self.vignetteRoots)
    out.withUnsafeMutableBufferPointer { p in
      withFactors(gainRoots, vignetteRoots) { g, v in
        lut.apply8Fused(
          p.baseAddress!, count: gains.count, channels: 3, gains: useGains ? g : nil,
          vignette: useVignette ? v : nil, vectorKernel: vectorKernel)
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

  /// Both kernels (the Swift one, and the C twin where the CPU has it).
  @Test(arguments: 0..<4, [false, true])
  func matchesTheFloatReference(variant: Int, vectorKernel: Bool) {
    let (useGains, useVignette) = Self.cases[variant]
    let lut = ColorLUT3D(ColorToneTransform(colourEdit, colorSpace: .sRGB))
    var rng = SeededRandom(seed: 4242 + UInt64(variant))
    let row = FusedRow(count: 4099, rng: &rng)
    let out = row.rendered(
      lut, gains: useGains, vignette: useVignette, vectorKernel: vectorKernel)
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
    // final rounding (≤ 0.5): measured max 0.55–0.69, mean 0.15–0.23 code values for the Swift
    // kernel, 0.55–0.64 and 0.14–0.23 for the C twin's integers. A wrong tetrahedron or an
    // unscaled table gives errors of many code values.
    let what = "gains \(useGains), vignette \(useVignette), vector \(vectorKernel)"
    #expect(worst <= 1.0 && mean <= 0.3, "\(what): max \(worst) at pixel \(at), mean \(mean)")
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

  /// RGB runs the C twin where the CPU has it: byte for byte the Swift kernel for the table
  /// alone, within one code value of it with gains or vignette (the twin computes those in
  /// integers where the Swift kernel reads tables; pixels near black and huge gains included),
  /// for every run length around its 32-pixel steps and a few long ones, in place and from
  /// another buffer (the same bytes), leaving the bytes after the run alone; and on a whole
  /// image in bands.
  @Test(.enabled(if: ColorLUT3D.vectorKernelAvailable), arguments: 0..<4)
  func vectorTwinGivesTheSwiftKernelsBytes(variant: Int) {
    let (useGains, useVignette) = Self.cases[variant]
    let lut = ColorLUT3D(ColorToneTransform(colourEdit, colorSpace: .sRGB))
    var rng = SeededRandom(seed: 99)
    var (nearBlack, hugeGains, differing, total) = (0, 0, 0, 0)
    for count in Array(1...70) + [255, 256, 4099] {
      let row = FusedRow(count: count, rng: &rng)
      let n = 3 * count
      let (gainRoots, vignetteRoots) = (row.gainRoots, row.vignetteRoots)
      func run(
        into p: UnsafeMutablePointer<UInt8>, from source: UnsafePointer<UInt8>?, vector: Bool
      ) {
        row.withFactors(gainRoots, vignetteRoots) { g, v in
          lut.apply8Fused(
            p, count: count, channels: 3, gains: useGains ? g : nil,
            vignette: useVignette ? v : nil, source: source, vectorKernel: vector)
        }
      }
      var swift = row.pixels
      swift.withUnsafeMutableBufferPointer { run(into: $0.baseAddress!, from: nil, vector: false) }
      var inPlace = row.pixels + [UInt8](repeating: 77, count: 96)
      inPlace.withUnsafeMutableBufferPointer { run(into: $0.baseAddress!, from: nil, vector: true) }
      var copied = [UInt8](repeating: 77, count: n + 96)
      row.pixels.withUnsafeBufferPointer { src in
        copied.withUnsafeMutableBufferPointer {
          run(into: $0.baseAddress!, from: src.baseAddress, vector: true)
        }
      }
      // The first byte that differs by more than allowed, if any (printing whole rows would
      // bury it).
      let allowed = useGains || useVignette ? 1 : 0
      func firstDifference(_ a: ArraySlice<UInt8>, _ b: [UInt8]) -> Int? {
        zip(a, b).enumerated().first { abs(Int($0.element.0) - Int($0.element.1)) > allowed }?
          .offset
      }
      #expect(firstDifference(inPlace[..<n], swift) == nil, "in place, \(count) pixels")
      #expect(firstDifference(copied[..<n], swift) == nil, "from another buffer, \(count) pixels")
      #expect(inPlace[..<n] == copied[..<n], "in place and from another buffer, \(count) pixels")
      #expect(
        inPlace[n...].allSatisfy { $0 == 77 } && copied[n...].allSatisfy { $0 == 77 },
        "the bytes after \(count) pixels")
      differing += zip(inPlace[..<n], swift).filter { $0 != $1 }.count
      total += n
      // Pixels near black (done in integers on the curve's linear segment, some by the
      // tables) and huge gains (by the tables): the test must cover them.
      for i in 0..<count {
        let p = row.pixels[(3 * i)..<(3 * i + 3)]
        if useGains && p.contains(where: { $0 < 11 }) { nearBlack += 1 }
        if useGains && row.gains[i] > 5.2 { hugeGains += 1 }
        if useVignette && swift[(3 * i)..<(3 * i + 3)].contains(where: { $0 < 11 }) {
          nearBlack += 1
        }
      }
    }
    if useGains || useVignette { #expect(nearBlack > 100, "\(nearBlack) near black") }
    if useGains { #expect(hugeGains > 10, "\(hugeGains) huge gains") }
    // Off by one only where the two roundings fall either side of a half (measured 0.8–1.8 % of
    // the bytes); a term of the integers wrong by a few code values moves many more.
    #expect(differing * 20 <= total, "\(differing) of \(total) bytes differ by one")
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

  /// The kernels read 32 pixels' worth of every input at a time: with each input ending right
  /// before memory that is not mapped (as a row's gains can, at the end of an allocation), a
  /// read past the row's end stops the process instead of passing unnoticed.
  @Test(arguments: 0..<4, [false, true])
  func readsNothingPastTheEndOfItsInputs(variant: Int, vectorKernel: Bool) throws {
    let (useGains, useVignette) = Self.cases[variant]
    let lut = ColorLUT3D(ColorToneTransform(colourEdit, colorSpace: .sRGB))
    var rng = SeededRandom(seed: 7)
    for count in Array(1...70) + [4099] {
      let row = FusedRow(count: count, rng: &rng)
      let want = row.rendered(
        lut, gains: useGains, vignette: useVignette, vectorKernel: vectorKernel)
      let pixels = try PageEndBuffer(row.pixels), out = try PageEndBuffer(row.pixels)
      let gains = try PageEndBuffer(row.gains), gainRoots = try PageEndBuffer(row.gainRoots)
      let vignette = try PageEndBuffer(row.vignette)
      let vignetteRoots = try PageEndBuffer(row.vignetteRoots)
      lut.apply8Fused(
        out.start, count: count, channels: 3,
        gains: useGains ? FusedFactors(linear: gains.start, root: gainRoots.start) : nil,
        vignette: useVignette
          ? FusedFactors(linear: vignette.start, root: vignetteRoots.start) : nil,
        source: pixels.start, vectorKernel: vectorKernel)
      #expect(out.contents == want, "\(count) pixels")
    }
  }

  @Test func staysWithinTheRowItIsGiven() {
    // The vector kernel reads and writes 16 pixels at a time: a short row in the middle of a
    // buffer must leave its neighbours alone.
    let lut = ColorLUT3D(ColorToneTransform(colourEdit, colorSpace: .sRGB))
    var buffer = [UInt8](repeating: 77, count: 3 * 64)
    let gains = [Float](repeating: 2, count: 64)
    let roots = [Float](repeating: Foundation.pow(2, FusedFactors.rootExponent), count: 64)
    buffer.withUnsafeMutableBufferPointer { p in
      gains.withUnsafeBufferPointer { g in
        roots.withUnsafeBufferPointer { r in
          let factors = FusedFactors(linear: g.baseAddress!, root: r.baseAddress!)
          lut.apply8Fused(
            p.baseAddress! + 3 * 20, count: 5, channels: 3, gains: factors, vignette: factors)
        }
      }
    }
    #expect(buffer[0..<60].allSatisfy { $0 == 77 } && buffer[75...].allSatisfy { $0 == 77 })
    #expect(buffer[60..<75].allSatisfy { $0 != 77 })
  }
}

/// A copy of some values that ends where a page that is not mapped begins, so that reading
/// past the last value faults.
private final class PageEndBuffer<Element: BitwiseCopyable> {
  private let mapping: UnsafeMutableRawPointer
  private let mappedBytes: Int
  private let count: Int
  /// The first value.
  let start: UnsafeMutablePointer<Element>

  struct MappingFailed: Error { let errno: Int32 }

  init(_ values: [Element]) throws {
    let page = Int(sysconf(Int32(_SC_PAGESIZE)))
    let bytes = values.count * MemoryLayout<Element>.stride
    let dataPages = (bytes + page - 1) / page
    mappedBytes = (dataPages + 1) * page
    guard
      let p = mmap(nil, mappedBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
      p != MAP_FAILED
    else { throw MappingFailed(errno: errno) }
    mapping = p
    guard mprotect(p + dataPages * page, page, PROT_NONE) == 0 else {
      munmap(p, mappedBytes)
      throw MappingFailed(errno: errno)
    }
    count = values.count
    start = (p + dataPages * page - bytes).bindMemory(to: Element.self, capacity: count)
    start.initialize(from: values, count: count)
  }

  var contents: [Element] { Array(UnsafeBufferPointer(start: start, count: count)) }

  deinit { munmap(mapping, mappedBytes) }
}
