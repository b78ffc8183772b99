// SPDX-License-Identifier: Apache-2.0

import CRetouchKernels
import Foundation
import RetouchCore

/// The 8-bit per-pixel stages of a render in one pass: the local tone gain (a multiplier of
/// linear R, G, B), the colour table, and the vignette (a multiplier of linear light applied
/// after it), without rounding to 8 bits between them. With neither gain nor vignette it is the
/// table's own 8-bit kernel (``ColorLUT3D/apply(to:threads:minimumBandHeight:)``).
///
/// Done as three passes, each stage decodes its input byte, works, encodes and stores a byte that
/// the next one loads and decodes again: 31 loads and 9 stores per pixel, and two roundings to
/// 8 bits that the final result inherits. Fused, a pixel costs 19 loads and 3 stores:
///
/// - gain: `l = decode(c) · k` (the decode table pre-scaled to 16383 steps of linear light), then
///   ``linearToAxis33`` turns `l` straight into the grid coordinate in 1/256 of a cell, so the
///   gained value is never rounded to a code (33-point tables only, ``supportsFused8``);
/// - table, in fixed point: entries are `round(4080·c)` (12 bits) packed into three 21-bit fields
///   of a `UInt64`, weights are fractions of 256 summing to 256, so one 64-bit multiply-add per
///   corner interpolates all three channels without carries between fields
///   (`4080 × 256 + 2048 < 2²¹`). Without a gain, one load per channel from ``axis8`` gives the
///   cell offset and the fraction. `SIMD8<Int32>` maths picks 8 pixels' tetrahedra and weights
///   at once (max/min and lane selects); ties between fractions may pick either tetrahedron: the
///   corner they disagree on gets weight 0, so the result is the same integer;
/// - vignette: the interpolated value is kept at 1/4080 (12 bits), decoded by
///   ``decode4080Scaled``, multiplied and encoded by ``PixelStages/linearToCode8``; without it,
///   `(sum + 2048) >> 12` rounds to 8 bits. Either way the result is rounded once.
///
/// Against the float reference (gain, the table's float interpolation, vignette, one rounding)
/// the result is within 0.75 code values, mean ≤ 0.23 (tests).
///
/// **Speed, and why it is Swift.** The work is table look-ups (decode, grid coordinate, four
/// corners, decode, encode) with a little integer maths around each, run as scalar loads; the
/// two steps of a group are software-pipelined (see the loop) because a vector load of lanes
/// stored one by one just before stalls on store forwarding. 12 MP of random pixels, one
/// thread, best of 5 (release, 2-core AVX-512 VM, other work on the other core): table alone
/// 44 ms, with gains 64, with vignette 70, all three 94 ms (before the pipelining: 67, 82, 94,
/// 108). On the typical edit's 12 MP `retouch apply`, callgrind counted 1.07 G instructions in
/// this pass against 1.17 G for the three separate passes it replaced.
///
/// **The table alone has a C twin.** RGB pixels through a 33-point table with neither gain nor
/// vignette take `rt_lut33_apply_rgb8` (`CRetouchKernels`) where the CPU has AVX-512 F, BW,
/// VL, DQ and VBMI (``vectorKernelAvailable``): 32 pixels a step in 16-bit lanes (the bytes
/// split into channels by one byte permute each, the grid coordinate computed as
/// `32v + (((32v + 128)·257) >> 16)` instead of read from ``axis8``, the tetrahedra picked
/// with lane masks), then per 8 pixels four 64-bit gathers of the packed corners, four
/// multiply-adds, one multishift for the three rounded bytes and a byte permute to pack them.
/// It gives this kernel's bytes (tests). Swift has no gathers, byte permutes or multishifts,
/// and its version of the same work stays 1.89× behind on two threads (7.9 against 4.2 ms)
/// and 1.88× on one (15.1 against 8.0 ms): `retouch-bench preview`, 2048×1536 of a real
/// photo, same round robin. That takes the colour-only preview from 8.2 to 4.7 ms. A first C
/// twin, which also gathered the axis words and the 8-bit codes (11 gathers per 16 pixels,
/// and a 16-lane gather on this CPU costs about what 16 scalar loads do), was only
/// 1.14–1.26× faster than this kernel was then and was not kept.
///
/// **With a gain or a vignette the twin computes instead of reading tables**
/// (`rt_lut33_apply_rgb8_factors`). On the power segment of the sRGB curve a multiplier `k`
/// of linear light moves an encoded value `e` to `a · (e + 0.055) − 0.055` with
/// `a = k^(1/2.4)`, an affine map: the renderer samples the roots alongside the multipliers
/// (``FusedFactors``, the tone guide's gains and the vignette's falloff at `1/2.4` of its
/// exponent), and the twin turns codes into grid coordinates and interpolated values into
/// codes with 16-bit multiplies; near black (either end on the curve's linear segment) the
/// multiplier itself and two small step tables do it, and what is left (a very dark result
/// from a bright code, a lightened value leaving the linear segment, gains above 5.2) is
/// gathered from this kernel's tables. It is within 0.64 code values of the float reference
/// (this kernel 0.69), so the two differ by at most one code value (0.8–1.8 % of the bytes in
/// the tests), not byte for byte as the table alone. `retouch-bench preview`, the typical
/// edit's gains and vignette on every pixel of 2048×1536 of a real photo: 14.1 against 22.4
/// ms on one thread (1.59×), 7.4 against 11.5 ms on two (1.55×); the typical preview went
/// from 14.8–15.1 to 9.6–10.4 ms and the 12 MP `JPEGEditPipeline` from 114–115 to 101–102 ms
/// (`retouch-bench render`, alternating with the previous build). The
/// same integers in this Swift kernel (scalar, three channels interleaved) made it 1.7×
/// slower than its tables, so it keeps them.
///
/// **Also measured and not kept: the vignette on encoded values, 8 lanes at a time.** On each
/// segment of the sRGB curve a linear-light multiplier `k` is exact in encoded terms
/// (`k^(1/2.4)·(e + 0.055) − 0.055` on the power segment, `k·e` on the linear one), which would
/// drop the two look-ups per channel; lanes crossing segments would take the tables. It ran the
/// vignette at 2× its current cost. The Swift traps found on the way: Float `pointwiseMin`/`Max`
/// on `SIMD8<Float>` stayed generic calls, and setting lanes of a `SIMD8<UInt64>` one by one
/// spilled the vector and stalled on store forwarding for every pixel.
///
/// **Also measured and not kept: less work per pixel for the table alone.** The cell, the order
/// code and the three fractions planned once per source pixel and kept for the slider moves of
/// a preview (8 bytes a pixel): 2048×1536 synthetic pixels in 12.8 ms on one thread and 6.5 ms
/// on two, against 6.8 ms on two for this kernel in the preview bench; the four corner loads,
/// multiplies and byte stores left are most of the work. Beside a copy of this kernel's table
/// path without its pipelining (2048×1536 of a real photo, one thread, medians of 21): reading
/// a pixel with one 4-byte load and taking the first weight from the vector step, 15.1 →
/// 15.0 ms; writing it with one 4-byte store, 15.2 → 17.0 ms. The vignette done exactly in
/// encoded values on the sRGB power segment (`a·(e + 0.055) − 0.055`, the tables for pixels
/// near black), scalar: 51 ms per 12 M synthetic pixels against 25 ms for the two look-ups.
extension ColorLUT3D {
  /// The grid size the fused kernel's input table is built for.
  static let fusedSize = 33

  /// `round(4 · 8192 · 1.055 · decode(c)^(1/2.4))` for codes 0…10 (on the sRGB curve's linear
  /// segment), padded to 32 entries: the C twin's gained grid coordinate is
  /// `(round(k^(1/2.4) · 32768) · P(c)) >> 17 − 450` with this `P` for those codes.
  static let darkCodeSteps: [UInt16] = (0..<32).map { c in
    c > 10
      ? 0
      : UInt16(
        (4 * 8192 * 1.055 * Foundation.pow(SRGBTables.decodeExact(Double(c) / 255), 1 / 2.4))
          .rounded())
  }

  /// `round(8 · 8192 · 12.92 · decode(c))` for codes 0…63: the grid coordinate of code `c`'s
  /// light times `k` on the linear segment is `k` times this over 8 (at most 42,104); the C
  /// twin computes it as `(round(k · 8192) · L(c)) >> 16`.
  static let darkLinearSteps: [UInt16] = (0..<64).map { c in
    UInt16((8 * 8192 * 12.92 * SRGBTables.decodeExact(Double(c) / 255)).rounded())
  }

  /// Whether ``apply8Fused(_:count:channels:gains:vignette:source:vectorKernel:)`` can take
  /// gains with this table.
  var supportsFused8: Bool { size == Self.fusedSize }

  /// Linear light in 16384 steps (the index of ``PixelStages/linearToCode8``) → the encoded
  /// value as a 33-point grid coordinate in 1/256 of a cell: `round(encode(i/16383) · 32 · 256)`,
  /// 0…8192. Near black one step of linear light is 0.2 code values, so nothing is lost against
  /// an 8-bit input.
  static let linearToAxis33: [UInt16] = (0..<16384).map { i in
    UInt16((SRGBTables.encodeExact(Double(i) / 16383) * Double(fusedSize - 1) * 256).rounded())
  }

  /// An encoded value in 1/4080 steps (the packed entries' scale) → linear light × 16383.
  static let decode4080Scaled: [Float] = (0...4080).map { v in
    Float(SRGBTables.decodeExact(Double(v) / 4080) * 16383)
  }

  /// The fused pass with a gain and a vignette on every pixel of an 8-bit RGB image: `gains`
  /// and `vignette` are one multiplier per column (each row takes the same ones), their roots
  /// are taken here, outside the timed work a caller measures around it. For the benchmark,
  /// which compares the C twin with this Swift kernel on the typical edit's per-pixel work.
  @_spi(Benchmarks)
  public func applyFused(
    to image: inout Image, gains: [Float], vignette: [Float], threads: Int? = nil,
    vectorKernel: Bool
  ) {
    precondition(image.format == .rgb8 && supportsFused8)
    precondition(gains.count == image.width && vignette.count == image.width)
    let roots = (
      gains.map { Foundation.pow($0, FusedFactors.rootExponent) },
      vignette.map { Foundation.pow($0, FusedFactors.rootExponent) }
    )
    let (width, height) = (image.width, image.height)
    image.withUnsafeMutableBytes { raw in
      guard let base = raw.baseAddress else { return }
      let pixels = SendableRawPointer(base)
      gains.withUnsafeBufferPointer { g in
        roots.0.withUnsafeBufferPointer { gr in
          vignette.withUnsafeBufferPointer { v in
            roots.1.withUnsafeBufferPointer { vr in
              let factors = SendableFactors(
                gains: FusedFactors(linear: g.baseAddress!, root: gr.baseAddress!),
                vignette: FusedFactors(linear: v.baseAddress!, root: vr.baseAddress!))
              ParallelBands.forEach(rows: height, minimumBandHeight: 16, threads: threads) {
                rows in
                for y in rows {
                  self.apply8Fused(
                    pixels.pointer.assumingMemoryBound(to: UInt8.self) + y * width * 3,
                    count: width, channels: 3, gains: factors.gains, vignette: factors.vignette,
                    vectorKernel: vectorKernel)
                }
              }
            }
          }
        }
      }
    }
  }

  /// Factor rows that the bands of ``applyFused(to:gains:vignette:threads:vectorKernel:)`` read.
  private struct SendableFactors: @unchecked Sendable {
    // Invariant: read only, while the arrays they point into are alive.
    let gains: FusedFactors
    let vignette: FusedFactors
  }

  /// The look-up tables the C twin takes for the few pixels it does not do in integers (the
  /// ones this kernel reads; the 16- and 8-bit ones padded, as its gathers read 32 bits), and
  /// its steps near black: copied once into memory that lives as long as the process.
  nonisolated(unsafe) static let fallbackTables: UnsafePointer<rt_lut_fallback> = {
    let tables = UnsafeMutablePointer<rt_lut_fallback>.allocate(capacity: 1)
    tables.initialize(
      to: rt_lut_fallback(
        decode8Scaled: permanentCopy(PixelStages.decode8Scaled),
        linearToAxis: permanentCopy(linearToAxis33 + [0]),
        decode4080Scaled: permanentCopy(decode4080Scaled),
        linearToCode8: permanentCopy(PixelStages.linearToCode8 + [0, 0, 0]),
        darkCodeSteps: permanentCopy(darkCodeSteps), darkLinearSteps: permanentCopy(darkLinearSteps)
      ))
    return UnsafePointer(tables)
  }()

  private static func permanentCopy<T>(_ a: [T]) -> UnsafePointer<T> {
    let p = UnsafeMutablePointer<T>.allocate(capacity: a.count)
    p.initialize(from: a, count: a.count)
    return UnsafePointer(p)
  }

  /// Whether this CPU runs the C twin of the table-alone path for 8-bit RGB
  /// (`rt_lut33_apply_rgb8`, x86-64 with AVX-512 F, BW, VL, DQ and VBMI).
  @_spi(Benchmarks) public static let vectorKernelAvailable = rt_lut33_rgb8_available() != 0

  /// Gain, table and vignette on `count` packed 8-bit pixels into `row` (from `source`, or in
  /// place).
  ///
  /// RGB pixels through a 33-point table run the C twin of this kernel where the CPU has it
  /// (``vectorKernelAvailable``): the same bytes for the table alone, within one code value of
  /// them with a gain or a vignette (whose roots it then needs), 1.6–1.9× as fast (see the
  /// type's discussion).
  ///
  /// - Parameters:
  ///   - gains: one linear-light multiplier per pixel applied before the table (local tone),
  ///     with its root for the C twin (without a root the Swift kernel runs), or nil for none.
  ///   - vignette: one linear-light multiplier per pixel applied after it (and its root), or nil
  ///     for none.
  ///   - source: where to read the pixels (the same layout, `count` pixels) when they are not to
  ///     be read from `row` itself; nil works in place.
  ///   - vectorKernel: false keeps to this Swift kernel (tests and the benchmark compare the
  ///     two).
  func apply8Fused(
    _ row: UnsafeMutablePointer<UInt8>, count: Int, channels: Int, gains: FusedFactors?,
    vignette: FusedFactors?, source: UnsafePointer<UInt8>? = nil,
    vectorKernel: Bool = true
  ) {
    guard count > 0 else { return }
    if vectorKernel, channels == 3, size == Self.fusedSize, Self.vectorKernelAvailable,
      gains == nil || gains?.root != nil, vignette == nil || vignette?.root != nil
    {
      packed8.withUnsafeBufferPointer { table in
        let from = source ?? UnsafePointer(row)
        guard gains != nil || vignette != nil else {
          rt_lut33_apply_rgb8(table.baseAddress, from, row, count)
          return
        }
        rt_lut33_apply_rgb8_factors(
          table.baseAddress, from, row, count, gains?.linear, gains?.root, vignette?.linear,
          vignette?.root, Self.fallbackTables)
      }
      return
    }
    precondition(gains == nil || supportsFused8, "gains need a \(Self.fusedSize)-point table")
    let n = size
    let diagonal = 1 &+ n &+ n &* n
    let one = SIMD8<Int32>(repeating: 1)
    let stepG = SIMD8<Int32>(repeating: Int32(n))
    let stepB = SIMD8<Int32>(repeating: Int32(n * n))
    let diagonal8 = SIMD8<Int32>(repeating: Int32(diagonal))
    let fractionMask = SIMD8<UInt32>(repeating: 1023)
    let lastCell = SIMD8<Int32>(repeating: Int32(n - 2))
    // Scratch: two buffers of 3 × 8 axis words or coordinates, then 6 × 8 results (cell,
    // corner A, corner B, 3 weights).
    withUnsafeTemporaryAllocation(byteCount: 12 * 32, alignment: 32) { scratch in
      let words = scratch.baseAddress.unsafelyUnwrapped
      let t = words.assumingMemoryBound(to: UInt32.self)
      let plan = (words + 192).assumingMemoryBound(to: Int32.self)
      packed8.withUnsafeBufferPointer { table in
        axis8.withUnsafeBufferPointer { axisBuffer in
          Self.linearToAxis33.withUnsafeBufferPointer { toAxisBuffer in
            Self.decode4080Scaled.withUnsafeBufferPointer { decode12Buffer in
              PixelStages.decode8Scaled.withUnsafeBufferPointer { decode8Buffer in
                PixelStages.linearToCode8.withUnsafeBufferPointer { code8Buffer in
                  let lut = table.baseAddress.unsafelyUnwrapped
                  let axis = axisBuffer.baseAddress.unsafelyUnwrapped
                  let toAxis = toAxisBuffer.baseAddress.unsafelyUnwrapped
                  let decode12 = decode12Buffer.baseAddress.unsafelyUnwrapped
                  let decode8 = decode8Buffer.baseAddress.unsafelyUnwrapped
                  let code8 = code8Buffer.baseAddress.unsafelyUnwrapped

                  /// The grid coordinate of linear light `l` (≥ 0, × 16383) in 1/256 cells.
                  @inline(__always) func coordinate(_ l: Float) -> UInt32 {
                    UInt32(
                      toAxis[
                        Int(truncatingIfNeeded: SpatialMath.roundToUInt32(l < 16383 ? l : 16383))])
                  }
                  /// The 8-bit code of linear light `l` (≥ 0, × 16383).
                  @inline(__always) func code(_ l: Float) -> UInt8 {
                    code8[Int(truncatingIfNeeded: SpatialMath.roundToUInt32(l < 16383 ? l : 16383))]
                  }

                  /// Step 1 of a group of `m` (1…8) pixels from `src`, pixel `x0` of the row:
                  /// per channel, the grid coordinate (with a gain) or the axis word, into `t`.
                  @inline(__always)
                  func load(
                    _ src: UnsafePointer<UInt8>, _ m: Int, _ x0: Int,
                    _ t: UnsafeMutablePointer<UInt32>
                  ) {
                    var q = src
                    if let gains {
                      let linear = gains.linear
                      for j in 0..<m {
                        let k = linear[x0 &+ j]
                        t[j] = coordinate(decode8[Int(q[0])] * k)
                        t[8 &+ j] = coordinate(decode8[Int(q[1])] * k)
                        t[16 &+ j] = coordinate(decode8[Int(q[2])] * k)
                        q += channels
                      }
                    } else {
                      for j in 0..<m {
                        t[j] = axis[Int(q[0])]
                        t[8 &+ j] = axis[256 &+ Int(q[1])]
                        t[16 &+ j] = axis[512 &+ Int(q[2])]
                        q += channels
                      }
                    }
                  }

                  /// Step 2 of a group: tetrahedra and weights for all 8 lanes of `t`, then the
                  /// table and the vignette per pixel, written to `p`.
                  @inline(__always)
                  func finish(
                    _ t: UnsafeMutablePointer<UInt32>, _ p: UnsafeMutablePointer<UInt8>, _ m: Int,
                    _ x0: Int
                  ) {
                    let cell: SIMD8<Int32>
                    let dr: SIMD8<Int32>
                    let dg: SIMD8<Int32>
                    let db: SIMD8<Int32>
                    let raw = UnsafeRawPointer(t)
                    if gains != nil {
                      let xr = SIMD8<Int32>(truncatingIfNeeded: raw.load(as: SIMD8<UInt32>.self))
                      let xg = SIMD8<Int32>(
                        truncatingIfNeeded: raw.load(fromByteOffset: 32, as: SIMD8<UInt32>.self))
                      let xb = SIMD8<Int32>(
                        truncatingIfNeeded: raw.load(fromByteOffset: 64, as: SIMD8<UInt32>.self))
                      let ir = pointwiseMin(xr &>> 8, lastCell)
                      let ig = pointwiseMin(xg &>> 8, lastCell)
                      let ib = pointwiseMin(xb &>> 8, lastCell)
                      dr = xr &- (ir &<< 8)
                      dg = xg &- (ig &<< 8)
                      db = xb &- (ib &<< 8)
                      cell = ir &+ ig &* stepG &+ ib &* stepB
                    } else {
                      let tr = raw.load(as: SIMD8<UInt32>.self)
                      let tg = raw.load(fromByteOffset: 32, as: SIMD8<UInt32>.self)
                      let tb = raw.load(fromByteOffset: 64, as: SIMD8<UInt32>.self)
                      cell = SIMD8<Int32>(truncatingIfNeeded: (tr &+ tg &+ tb) &>> 10)
                      dr = SIMD8<Int32>(truncatingIfNeeded: tr & fractionMask)
                      dg = SIMD8<Int32>(truncatingIfNeeded: tg & fractionMask)
                      db = SIMD8<Int32>(truncatingIfNeeded: tb & fractionMask)
                    }
                    let wMax = pointwiseMax(dr, pointwiseMax(dg, db))
                    let wMin = pointwiseMin(dr, pointwiseMin(dg, db))
                    let wMid = dr &+ dg &+ db &- wMax &- wMin
                    var stepA = stepB.replacing(with: stepG, where: dg .>= db)
                    stepA.replace(with: one, where: (dr .>= dg) .& (dr .>= db))
                    var stepMin = one.replacing(with: stepG, where: dg .<= dr)
                    stepMin.replace(with: stepB, where: (db .<= dr) .& (db .<= dg))
                    let out = UnsafeMutableRawPointer(plan)
                    out.storeBytes(of: cell, as: SIMD8<Int32>.self)
                    out.storeBytes(of: cell &+ stepA, toByteOffset: 32, as: SIMD8<Int32>.self)
                    out.storeBytes(
                      of: cell &+ diagonal8 &- stepMin, toByteOffset: 64, as: SIMD8<Int32>.self)
                    out.storeBytes(of: wMax &- wMid, toByteOffset: 96, as: SIMD8<Int32>.self)
                    out.storeBytes(of: wMid &- wMin, toByteOffset: 128, as: SIMD8<Int32>.self)
                    out.storeBytes(of: wMin, toByteOffset: 160, as: SIMD8<Int32>.self)
                    /// The interpolated entry of lane `j`: three fields at 4080 × 256 per unit.
                    @inline(__always) func interpolated(_ j: Int) -> UInt64 {
                      let c = Int(plan[j])
                      let wA = UInt64(truncatingIfNeeded: plan[24 &+ j])
                      let wB = UInt64(truncatingIfNeeded: plan[32 &+ j])
                      let w1 = UInt64(truncatingIfNeeded: plan[40 &+ j])
                      var sum = lut[c] &* (256 &- wA &- wB &- w1)
                      sum &+= lut[Int(plan[8 &+ j])] &* wA
                      sum &+= lut[Int(plan[16 &+ j])] &* wB
                      sum &+= lut[c &+ diagonal] &* w1
                      return sum
                    }
                    // One loop per case, so neither tests the vignette per pixel.
                    var o = p
                    if let vignette {
                      let linear = vignette.linear
                      for j in 0..<m {
                        // Fields at 1/4080 (rounded), decoded, multiplied, encoded once.
                        let sum = interpolated(j) &+ (128 | 128 << 21 | 128 << 42)
                        let v = linear[x0 &+ j]
                        o[0] = code(decode12[Int(truncatingIfNeeded: (sum >> 8) & 0x1FFF)] * v)
                        o[1] = code(decode12[Int(truncatingIfNeeded: (sum >> 29) & 0x1FFF)] * v)
                        o[2] = code(decode12[Int(truncatingIfNeeded: (sum >> 50) & 0x1FFF)] * v)
                        o += channels
                      }
                    } else {
                      for j in 0..<m {
                        let sum = interpolated(j) &+ (2048 | 2048 << 21 | 2048 << 42)
                        o[0] = UInt8(truncatingIfNeeded: sum >> 12)
                        o[1] = UInt8(truncatingIfNeeded: sum >> 33)
                        o[2] = UInt8(truncatingIfNeeded: sum >> 54)
                        o += channels
                      }
                    }
                  }

                  // Software-pipelined by one group: step 1 of a group is done before step 2 of
                  // the previous one, so the 8-lane vector loads of `t` read stores made a group
                  // earlier (a wide load right after narrow stores to the same bytes cannot be
                  // forwarded from the store buffer and stalls: measured 5 % of the pass's time
                  // on that one load). Two `t` buffers alternate; groups are 8 pixels except the
                  // last, so both steps unroll with a constant count.
                  var x = 0
                  var p = row
                  var q = source ?? UnsafePointer(row)
                  var current = t
                  var previous:
                    (p: UnsafeMutablePointer<UInt8>, x: Int, t: UnsafeMutablePointer<UInt32>)?
                  var lastCount = 8
                  while x < count {
                    let m = count &- x
                    if m >= 8 { load(q, 8, x, current) } else { load(q, m, x, current) }
                    if let previous { finish(previous.t, previous.p, 8, previous.x) }
                    previous = (p, x, current)
                    lastCount = Swift.min(m, 8)
                    current = current == t ? t + 24 : t
                    p += 8 &* channels
                    q += 8 &* channels
                    x &+= 8
                  }
                  if let previous {
                    if lastCount == 8 {
                      finish(previous.t, previous.p, 8, previous.x)
                    } else {
                      finish(previous.t, previous.p, lastCount, previous.x)
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
  }
}

/// A row of per-pixel multipliers of linear light for
/// ``ColorLUT3D/apply8Fused(_:count:channels:gains:vignette:source:vectorKernel:)``, with their
/// 2.4th roots: on the power segment of the sRGB curve, multiplying linear light by `k` moves an
/// encoded value `e` to `k^(1/2.4) · (e + 0.055) − 0.055`, which the C twin computes in integers
/// from the root instead of reading tables (this Swift kernel reads the multipliers only).
struct FusedFactors {
  /// The multipliers `k` (≥ 0).
  let linear: UnsafePointer<Float>
  /// `k^(1/2.4)` for each, or nil where only the Swift kernel runs (the twin needs them).
  let root: UnsafePointer<Float>?

  /// The factors from `offset` on.
  func advanced(by offset: Int) -> FusedFactors {
    FusedFactors(linear: linear + offset, root: root.map { $0 + offset })
  }

  /// The exponent that turns a multiplier of linear light into its root.
  static let rootExponent: Float = 1 / 2.4
}
