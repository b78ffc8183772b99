// SPDX-License-Identifier: Apache-2.0

import RetouchCore

/// A 3D lookup table of a ``ColorToneTransform``, sampled on an N×N×N grid of display-encoded
/// RGB and read back with tetrahedral interpolation.
///
/// Inputs and outputs are display-encoded values in `0...1` of the transform's working space.
/// Tetrahedral interpolation splits each grid cell into six tetrahedra along its grey diagonal,
/// so it reads 4 of the 8 corners, reproduces greys exactly at the grid points and beat
/// trilinear interpolation in speed (PLATFORM-NOTES); see Kasson, Nin, Plouffe & Hafner,
/// "Performing color space conversions with three-dimensional linear interpolation" (1995).
///
/// **Why 33 points.** Measured against the scalar reference on 20 000 seeded random colours
/// (max / 99th percentile / mean absolute error, encoded units; one 8-bit code value is 0.0039):
///
/// - tone only (exposure +1, contrast +1, brightness −0.5): N = 17: .0064 / .0064 / .0028;
///   N = 33: .0022 / .0022 / .0007; N = 65: .0007 / .0006 / .0002.
/// - every colour and tone slider at ±0.4…1 plus Chrome at 0.7 (the tests' `strongEdit`):
///   N = 17: .110 / .040 / .0063; N = 33: .051 / .016 / .0019; N = 65: .029 / .0061 / .0005.
///
/// At 33 a tone edit stays under one 8-bit code value everywhere and the strong colour edit
/// averages half a code value; its worst errors sit where a chroma boost meets the gamut edge
/// (the soft limit bends sharply there). 65 would cost 8× the memory (4.6 MB) and 8× the
/// build time for gains visible only at those edges; 17 is visibly off (0.11 max).
///
/// **Speed** (release, `-target-cpu haswell`; 2-vCPU AVX-512 VM shared with other builds at load
/// average 4–9, so one-thread figures are the thread's CPU time, best of 9–15 runs, with the
/// previous code (commit fff2d62) copied into the same timing program and run alternately):
/// - building a 33³ table on one thread: tests' strong edit (every stage on) 6.8 → 6.5 ms;
///   tone only (exposure, contrast, brightness) 1.9 → 1.4 ms; exposure, white balance and
///   saturation 2.8 → 2.2 ms. The gain is the per-axis first stage and packing in the same
///   pass; a strong edit's time is its colour stages (chroma limits, vibrance, mixer: ≈ 0.18 µs
///   per point), which only a multi-point (SIMD8) evaluation of the transform would cut.
///   `RenderPlan` keeps the last 4 tables, so undo, redo and repeated renders skip the build.
/// - 12 MP 8-bit RGB (4000×3000), one thread: random pixels 76 → 62 ms (≈ 5.2 ns per pixel),
///   a photo (4000×3000 crop of shared photo d04) 67 → 55 ms; 79 → 44 instructions per pixel
///   (callgrind). A 9-point table is only ~8% faster than 33, so the kernel is bound by
///   instruction and load throughput (≈ 16 loads per pixel), not by cache misses.
/// - 12 MP 16-bit RGB: ≈ 200 ms (unchanged); the float `sample` path: ≈ 17 ns per pixel.
/// - 2048×1536 8-bit colour-only render of the strong edit on 2 threads, wall clock at load ≈ 4:
///   19 ms with the table cached, 27 ms with a build.
/// Not met then: 12 MP in ≤ 20 ms on 2 threads (needs ≈ 3 ns per pixel per thread) and the
/// 5 ms colour-only render (needs the build under ≈ 1 ms and ≈ 2.5 ns per pixel per thread).
/// The 8-bit RGB path now has a C twin where the CPU has AVX-512 (≈ 2.5 ns per pixel per
/// thread on a real photo; see `FusedPixelKernel.swift`).
public struct ColorLUT3D: Sendable {
  /// Grid points per axis unless asked otherwise (``RenderOptions/lutSize``); why 33: see the
  /// type's discussion.
  public static let defaultSize = 33

  /// Grid points per axis (2…129).
  public let size: Int
  /// The grid, red fastest, then green, then blue: entry `(b·N + g)·N + r` holds the output
  /// for input `(r, g, b) / (N − 1)` in lanes 0…2; lane 3 is 0.
  public let entries: [SIMD4<Float>]

  // 8-bit fast path: per axis (red, green, blue: 3 × 256 words) and code value, the offset of
  // the cell along that axis in entries, shifted left by 10, plus the fraction in it (0…256);
  // the grid in fixed point, three 21-bit fields per entry (see `apply8`).
  let axis8: [UInt32]
  let packed8: [UInt64]
  /// Per order code of the fractions (bit 0: r ≥ g, bit 1: r ≥ b, bit 2: g ≥ b), the offsets
  /// of the tetrahedron's two middle corners: along the largest fraction's axis, and along the
  /// two largest. Codes 2 and 5 are not transitive and never occur.
  @usableFromInline let corners: [Int32]

  /// Samples `transform` on a `size`³ grid, slices of blue in parallel.
  ///
  /// Entries equal `transform.apply` at each grid point bit for bit; the per-channel first
  /// stage is evaluated once per axis value. Cost: see the type's discussion (≈ 6.5 ms for 33³
  /// with every stage on, ≈ 1.4 ms for tone only, one thread).
  ///
  /// - Parameters:
  ///   - size: grid points per axis, 2…129 (traps outside; 33 by default, see the type's
  ///     discussion for the error it gives).
  ///   - threads: worker threads; `nil` uses every core.
  public init(_ transform: ColorToneTransform, size: Int = defaultSize, threads: Int? = nil) {
    precondition((2...129).contains(size), "LUT size must be 2…129, got \(size)")
    let n = size
    let scale = 1 / Float(n - 1)
    // The per-channel start of the transform (clamp, then decode or tone table) depends on one
    // axis value only: evaluate it once per axis point, not once per grid point.
    let axis = (0..<n).map { transform.channelStage(Float($0) * scale) }
    var packed = [UInt64](repeating: 0, count: n * n * n)
    let entries = [SIMD4<Float>](unsafeUninitializedCapacity: n * n * n) { buffer, count in
      guard let base = buffer.baseAddress else { return }
      let target = SendableRawPointer(UnsafeMutableRawPointer(base))
      packed.withUnsafeMutableBufferPointer { packedBuffer in
        guard let packedBase = packedBuffer.baseAddress else { return }
        let packedTarget = SendableRawPointer(UnsafeMutableRawPointer(packedBase))
        ParallelBands.forEach(rows: n, minimumBandHeight: 1, threads: threads) { blues in
          let p = target.pointer.assumingMemoryBound(to: SIMD4<Float>.self)
          let q = packedTarget.pointer.assumingMemoryBound(to: UInt64.self)
          for bi in blues {
            let b = axis[bi]
            for gi in 0..<n {
              let g = axis[gi]
              let row = (bi * n + gi) * n
              for ri in 0..<n {
                let (r2, g2, b2) = transform.applySeparated(axis[ri], g, b)
                let e = Self.clampedEntry(SIMD4(r2, g2, b2, 0))
                (p + row + ri).initialize(to: e)
                q[row + ri] = Self.packed(e)
              }
            }
          }
        }
      }
      count = n * n * n
    }
    self.init(size: n, clampedEntries: entries, packed: packed)
  }

  /// Samples any colour function of display-encoded RGB on a `size`³ grid, slices of blue in
  /// parallel (outputs are clamped to `0...1`, NaN becomes 0).
  ///
  /// For functions that are not a ``ColorToneTransform`` alone, such as an edit combined with a
  /// ``ColorStage``. Cost: `size`³ calls of `function` split over `threads` workers.
  ///
  /// - Parameters:
  ///   - size: grid points per axis, 2…129 (traps outside).
  ///   - threads: worker threads; `nil` uses every core.
  public init(
    size: Int = defaultSize, threads: Int? = nil,
    evaluating function: @Sendable (SIMD3<Float>) -> SIMD3<Float>
  ) {
    precondition((2...129).contains(size), "LUT size must be 2…129, got \(size)")
    let n = size
    let scale = 1 / Float(n - 1)
    let entries = [SIMD4<Float>](unsafeUninitializedCapacity: n * n * n) { buffer, count in
      guard let base = buffer.baseAddress else { return }
      let target = SendableRawPointer(UnsafeMutableRawPointer(base))
      ParallelBands.forEach(rows: n, minimumBandHeight: 1, threads: threads) { blues in
        let p = target.pointer.assumingMemoryBound(to: SIMD4<Float>.self)
        for bi in blues {
          for gi in 0..<n {
            for ri in 0..<n {
              let v = function(SIMD3(Float(ri) * scale, Float(gi) * scale, Float(bi) * scale))
              (p + (bi * n + gi) * n + ri).initialize(to: Self.clampedEntry(SIMD4(v, 0)))
            }
          }
        }
      }
      count = n * n * n
    }
    self.init(size: n, clampedEntries: entries, packed: entries.map(Self.packed))
  }

  /// A table from precomputed grid entries (layout as in ``entries``; values in `0...1`).
  public init(size: Int, entries: [SIMD4<Float>]) {
    precondition((2...129).contains(size), "LUT size must be 2…129, got \(size)")
    precondition(entries.count == size * size * size, "expected \(size)³ entries")
    let clamped = entries.map(Self.clampedEntry)
    self.init(size: size, clampedEntries: clamped, packed: clamped.map(Self.packed))
  }

  private init(size: Int, clampedEntries: [SIMD4<Float>], packed: [UInt64]) {
    self.size = size
    entries = clampedEntries
    packed8 = packed
    var axis = [UInt32](repeating: 0, count: 3 * 256)
    for v in 0..<256 {
      let x = Double(v) / 255 * Double(size - 1)
      let i = min(Int(x), size - 2)
      let fraction = UInt32(((x - Double(i)) * 256).rounded())
      axis[v] = UInt32(i) << 10 | fraction
      axis[256 + v] = UInt32(i * size) << 10 | fraction
      axis[512 + v] = UInt32(i * size * size) << 10 | fraction
    }
    axis8 = axis
    let (r, g, b) = (Int32(1), Int32(size), Int32(size * size))
    corners = [
      b, b + g,  // 0: b > g > r
      b, b + r,  // 1: b > r ≥ g
      r, r + g,  // 2: cannot occur
      r, r + b,  // 3: r ≥ b > g
      g, g + b,  // 4: g ≥ b > r
      r, r + g,  // 5: cannot occur
      g, g + r,  // 6: g > r ≥ b
      r, r + g,  // 7: r ≥ g ≥ b
    ]
  }

  /// Keeps an entry finite and in range (NaN becomes 0), so interpolation never leaves 0...1.
  @inline(__always)
  static func clampedEntry(_ e: SIMD4<Float>) -> SIMD4<Float> {
    SIMD4(e.x > 0 ? min(e.x, 1) : 0, e.y > 0 ? min(e.y, 1) : 0, e.z > 0 ? min(e.z, 1) : 0, 0)
  }

  /// A clamped entry in the 8-bit kernel's fixed point: `round(4080·c)` per channel (ties to
  /// even, through the 1.5·2²³ magic number), in three 21-bit fields.
  @inline(__always)
  static func packed(_ e: SIMD4<Float>) -> UInt64 {
    let q = roundedLanes(e, scale: 4080)
    return UInt64(q.x) | UInt64(q.y) << 21 | UInt64(q.z) << 42
  }

  // MARK: Per pixel

  /// The table's colour for display-encoded `(r, g, b)` (each clamped to `0...1`; NaN counts
  /// as 0). No allocation; meant to be inlined into fused per-pixel loops.
  @inlinable @inline(__always)
  public func sample(_ r: Float, _ g: Float, _ b: Float) -> (Float, Float, Float) {
    let n = size
    let top = Float(n &- 1)
    // `max(0, x)` is `x >= 0 ? x : 0`, so NaN becomes 0 and the indices below stay in range;
    // written this way it compiles to min/max instructions rather than branches.
    let x = min(1, max(0, r)) * top
    let y = min(1, max(0, g)) * top
    let z = min(1, max(0, b)) * top
    let ir = min(Self.floorIndex(x), n &- 2)
    let ig = min(Self.floorIndex(y), n &- 2)
    let ib = min(Self.floorIndex(z), n &- 2)
    let c = entries.withUnsafeBufferPointer { buffer in
      corners.withUnsafeBufferPointer { corners in
        Self.tetrahedral(
          buffer.baseAddress.unsafelyUnwrapped + ((ib &* n &+ ig) &* n &+ ir),
          corners.baseAddress.unsafelyUnwrapped, 1 &+ n &+ n &* n,
          x - Float(ir), y - Float(ig), z - Float(ib))
      }
    }
    return (c.x, c.y, c.z)
  }

  /// `floor(x)` for `0 ≤ x < 2²²` without a trapping float-to-integer conversion: adding
  /// 1.5·2²³ rounds `x − 0.5` to an integer in the low mantissa bits. At exact integers it may
  /// return `x − 1`, which callers handle (the fraction is then 1, giving the same value).
  @inlinable @inline(__always)
  static func floorIndex(_ x: Float) -> Int {
    let t = (x - 0.5) + 12_582_912
    return Int(Int32(bitPattern: t.bitPattern &- 0x4B40_0000))
  }

  /// The order code of three non-negative values (bit 0: r ≥ g, bit 1: r ≥ b, bit 2: g ≥ b).
  ///
  /// `x ≥ y` is the sign bit of `y − x − 1`; for non-negative floats the bit patterns order
  /// like the values. Integer maths, so the compiler cannot turn the tetrahedron choice into
  /// branches, which are unpredictable on noisy images (12 MP random RGB, one thread: 141 ms
  /// with a six-way branch, 75 ms branch-free, same loaded VM).
  @inlinable @inline(__always)
  static func orderCode(_ r: Int32, _ g: Int32, _ b: Int32) -> Int {
    Int(
      UInt32(bitPattern: g &- r &- 1) >> 31 | (UInt32(bitPattern: b &- r &- 1) >> 31) << 1
        | (UInt32(bitPattern: b &- g &- 1) >> 31) << 2)
  }

  /// Tetrahedral interpolation in the cell whose corner (0, 0, 0) is at `p`, with fractions
  /// `dr`, `dg`, `db` in `0...1` and the table of ``corners``.
  ///
  /// The tetrahedron is the path from corner 000 along the axis of the largest fraction (`A`),
  /// then the second largest (`B`), to 111, and the result is
  /// `(1 − max)·c000 + (max − mid)·cA + (mid − min)·cB + min·c111`.
  @inlinable @inline(__always)
  static func tetrahedral(
    _ p: UnsafePointer<SIMD4<Float>>, _ corners: UnsafePointer<Int32>, _ diagonal: Int,
    _ dr: Float, _ dg: Float, _ db: Float
  ) -> SIMD4<Float> {
    let order = orderCode(
      Int32(bitPattern: dr.bitPattern), Int32(bitPattern: dg.bitPattern),
      Int32(bitPattern: db.bitPattern))
    let wMax = max(dr, max(dg, db))
    let wMin = min(dr, min(dg, db))
    let wMid = dr + dg + db - wMax - wMin
    // Barycentric form with broadcast weights, so the four corners combine as whole vectors.
    var c = p[0] * SIMD4(repeating: 1 - wMax)
    c += p[Int(corners[order &* 2])] * SIMD4(repeating: wMax - wMid)
    c += p[Int(corners[order &* 2 &+ 1])] * SIMD4(repeating: wMid - wMin)
    c += p[diagonal] * SIMD4(repeating: wMin)
    return c
  }

  // MARK: Whole images

  /// Applies the table to every pixel of `image` in place, in parallel row bands; alpha is
  /// kept. Works on all four `PixelFormat`s; output is rounded to nearest.
  ///
  /// The result does not depend on `threads` or `minimumBandHeight` (pixels are independent).
  /// Cost: one pass over the pixels, no allocation beyond un-sharing the image's storage.
  public func apply(to image: inout Image, threads: Int? = nil, minimumBandHeight: Int = 16) {
    apply(to: &image, threads: threads, minimumBandHeight: minimumBandHeight, vectorKernel: true)
  }

  /// ``apply(to:threads:minimumBandHeight:)`` with the 8-bit RGB kernel chosen by the caller:
  /// `vectorKernel` false keeps to the Swift kernel where its C twin would run
  /// (``vectorKernelAvailable``). Both give the same bytes; the benchmark compares their speed.
  @_spi(Benchmarks)
  public func apply(
    to image: inout Image, threads: Int? = nil, minimumBandHeight: Int = 16, vectorKernel: Bool
  ) {
    let width = image.width
    let height = image.height
    let format = image.format
    image.withUnsafeMutableBytes { raw in
      guard let base = raw.baseAddress else { return }
      let pixels = SendableRawPointer(base)
      ParallelBands.forEach(
        rows: height, minimumBandHeight: minimumBandHeight, threads: threads
      ) { rows in
        if format.bitDepth == 8 {
          self.apply8(
            pixels.pointer, width: width, rows: rows, channels: format.channelCount,
            vectorKernel: vectorKernel)
        } else {
          self.apply16(pixels.pointer, width: width, rows: rows, channels: format.channelCount)
        }
      }
    }
  }

  /// A copy of `image` with the table applied (see ``apply(to:threads:minimumBandHeight:)``).
  public func applied(to image: Image, threads: Int? = nil, minimumBandHeight: Int = 16) -> Image {
    var copy = image
    apply(to: &copy, threads: threads, minimumBandHeight: minimumBandHeight)
    return copy
  }

  /// Rounds `v × scale` (with `v` in `0...1`, `scale ≤ 65535`) to the nearest integer lanes,
  /// through the 1.5·2²³ magic number instead of a trapping conversion.
  @inline(__always)
  static func roundedLanes(_ v: SIMD4<Float>, scale: Float) -> SIMD4<UInt32> {
    let t = v * scale + 12_582_912
    return unsafeBitCast(t, to: SIMD4<UInt32>.self) &- 0x4B40_0000
  }

  /// The 8-bit kernel: ``apply8Fused(_:count:channels:gains:vignette:source:vectorKernel:)``
  /// without a gain or a vignette, over the band's rows as one run of pixels (the rows are
  /// packed; see there for the fixed point and the measurements).
  func apply8(
    _ base: UnsafeMutableRawPointer, width: Int, rows: Range<Int>, channels: Int,
    vectorKernel: Bool = true
  ) {
    guard !rows.isEmpty else { return }
    apply8Fused(
      base.assumingMemoryBound(to: UInt8.self) + rows.lowerBound * width * channels,
      count: rows.count * width, channels: channels, gains: nil, vignette: nil,
      vectorKernel: vectorKernel)
  }

  func apply16(
    _ base: UnsafeMutableRawPointer, width: Int, rows: Range<Int>, channels: Int
  ) {
    let n = size
    let scale = Float(n - 1) / 65535
    let limit = n - 2
    entries.withUnsafeBufferPointer { table in
      corners.withUnsafeBufferPointer { cornerBuffer in
        let lut = table.baseAddress.unsafelyUnwrapped
        let corners = cornerBuffer.baseAddress.unsafelyUnwrapped
        for y in rows {
          var p = base.assumingMemoryBound(to: UInt16.self) + y * width * channels
          for _ in 0..<width {
            let x = Float(p[0]) * scale
            let yy = Float(p[1]) * scale
            let z = Float(p[2]) * scale
            let ir = min(Self.floorIndex(x), limit)
            let ig = min(Self.floorIndex(yy), limit)
            let ib = min(Self.floorIndex(z), limit)
            let c = Self.tetrahedral(
              lut + ((ib * n + ig) * n + ir), corners, 1 + n + n * n,
              x - Float(ir), yy - Float(ig), z - Float(ib))
            let q = Self.roundedLanes(c, scale: 65535)
            p[0] = UInt16(truncatingIfNeeded: q.x)
            p[1] = UInt16(truncatingIfNeeded: q.y)
            p[2] = UInt16(truncatingIfNeeded: q.z)
            p += channels
          }
        }
      }
    }
  }
}
