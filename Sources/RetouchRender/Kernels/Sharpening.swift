// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore

/// Unsharp masking of luminance only, with a noise threshold, at any render scale.
///
/// Works on display-referred (encoded) values: `Y' = wr·R' + wg·G' + wb·B'` with the colour
/// space's luma weights, `d = Y' − G_σ ∗ Y'` (Gaussian blur, replicated edges), a soft noise gate
/// `g = smoothstep((|d| − τ)/τ)` with `τ = 1/255`, and the same offset
/// `δ = amount · 3 · g · d` added to R', G' and B' (so grey stays grey and chroma differences
/// `R' − G'`, `B' − G'` are unchanged except where a component clips). Alpha is kept.
///
/// The blur's σ is 1 export pixel times `renderScale`: a 0.25× preview uses σ = 0.25, where the
/// discrete kernel `[σ²/2, 1 − σ², σ²/2]` (variance σ², used for σ < 0.8) is nearly the identity,
/// so the effect fades the way it does when the sharpened export is shrunk. From σ = 0.8 the
/// kernel is a sampled Gaussian of radius `⌈3σ⌉`, normalised.
///
/// Runs in place over row bands with halos (`HaloBands`), in parallel, with per-job scratch.
/// Measured (release, shared 2-core AVX-512 VM, 4000×3000 8-bit RGB, σ = 1, 7-tap kernel,
/// medians of 7): 16–22 ms on 2 threads, 29–37 ms on 1; up to 2× more while other builds held a
/// core. The C 3×3 sharpen reference in PLATFORM-NOTES is 33 ms on 2 threads.
///
/// For 8-bit RGB the offset is written once per byte (`3 × width` Int16) and added to the row
/// 16 bytes at a time with explicit SIMD: the per-pixel loop over three interleaved bytes, each
/// clamped, stayed scalar and was over half of the stage. `retouch-bench preview`, σ = 0.51 on
/// 2048×1536, two threads, medians: 4.2–4.3 → 2.5 ms (alternating runs of both builds). A first
/// version with the same byte layout and a plain loop for the add was not vectorised (the
/// compiler kept the clamps scalar) and was slower than the old one, 4.6 ms.
public struct Sharpening: Sendable, Hashable {
  /// 0…1 (clamped).
  public let amount: Float
  /// Output pixels per export pixel (> 0).
  public let renderScale: Double
  /// The noise gate `τ` in encoded units.
  public static let threshold: Float = 1 / 255

  public init(amount: Double, renderScale: Double = 1) {
    precondition(renderScale > 0)
    self.amount = Float(min(max(amount, 0), 1))
    self.renderScale = renderScale
  }

  public var isNeutral: Bool { amount == 0 }

  /// The blur's standard deviation in output pixels.
  public var sigma: Double { renderScale }

  /// The normalised blur kernel (odd length) for ``sigma``.
  public var kernel: [Float] {
    let s = sigma
    if s < 0.8 {
      let v = Float(s * s)
      return [v / 2, 1 - v, v / 2]
    }
    let r = Int((3 * s).rounded(.up))
    let k = (-r...r).map { Foundation.exp(-Double($0 * $0) / (2 * s * s)) }
    let sum = k.reduce(0, +)
    return k.map { Float($0 / sum) }
  }

  /// Sharpens `image` in place. `bandHeight` (rows) and `threads` only change the schedule, not
  /// the result. No-op when ``isNeutral``.
  public func apply(to image: inout Image, threads: Int? = nil, bandHeight: Int = 64) {
    guard !isNeutral else { return }
    let job = bandJob(for: image)
    HaloBands.run(
      &image, halo: haloRows, bandHeight: max(bandHeight, 1), threads: threads,
      makeScratch: job.makeScratch, body: job.body)
  }

  /// `source` sharpened into a new image, `source` left as it is: the same pixels as
  /// ``apply(to:threads:bandHeight:)`` on a copy, without the copy. For a source the caller
  /// keeps (a decoded photo it still holds), the in-place path first copies it whole on one
  /// thread into fresh memory: on a 12 MP in-memory edit that copy and its page faults were about
  /// 6 % of the CPU time, all of it on the critical path. Here the bands write their rows into
  /// the new image in parallel.
  public func applied(to source: Image, threads: Int? = nil, bandHeight: Int = 64) -> Image {
    guard !isNeutral else { return source }
    var output = Image(
      uninitializedWidth: source.width, height: source.height, format: source.format,
      colorSpace: source.colorSpace)
    let job = bandJob(for: source)
    HaloBands.run(
      from: source, into: &output, halo: haloRows, bandHeight: max(bandHeight, 1),
      threads: threads, makeScratch: job.makeScratch, body: job.body)
    return output
  }

  /// The per-job scratch and the per-band work for `image`'s width, format and colour space.
  private func bandJob(for image: Image) -> (
    makeScratch: @Sendable () -> SharpenScratch,
    body: @Sendable (inout SharpenScratch, HaloBands.Band) -> Void
  ) {
    let (r, w, k) = (haloRows, image.width, kernel)
    let weights = image.colorSpace.lumaWeights
    let maxValue = Float(image.format.maxValue)
    return (
      { SharpenScratch(width: w, radius: r) },
      { scratch, band in
        self.sharpen(band, kernel: k, scratch: &scratch, lumaWeights: weights, maxValue: maxValue)
      }
    )
  }

  /// Rows above and below a band that sharpening reads.
  var haloRows: Int { kernel.count / 2 }

  /// Sharpens the rows of one band in place (the unit both ``apply(to:threads:bandHeight:)`` and
  /// streaming renders schedule).
  func sharpen(
    _ band: HaloBands.Band, kernel k: [Float], scratch: inout SharpenScratch,
    lumaWeights weights: (r: Float, g: Float, b: Float), maxValue: Float
  ) {
    let r = k.count / 2
    let w = band.width
    let gain = amount * 3
    let tau = Self.threshold
    let n = band.rows.count + 2 * r
    scratch.reserve(rows: n)
    let top = band.rows.lowerBound - r
    let luma = scratch.luma
    let blurred = scratch.horizontal
    let pad = scratch.pad
    let row = scratch.row
    let taps = scratch.taps
    k.withUnsafeBufferPointer { kp in
      // Luma and horizontal blur of every window row.
      for i in 0..<n {
        let y = luma + i * w
        PixelRows.loadLuma(
          band.source(row: top + i), format: band.format, width: w, weights: weights, into: y)
        PixelRows.pad(y, width: w, radius: r, into: pad)
        for j in 0..<kp.count { taps[j] = pad + j }
        Sharpening.convolve(kp, rows: taps, width: w, into: blurred + i * w)
      }
      // Vertical blur, gate and write, one band row at a time.
      for y in band.rows {
        let i = y - top
        for j in 0..<kp.count { taps[j] = blurred + (i - r + j) * w }
        Sharpening.convolve(kp, rows: taps, width: w, into: row)
        let yrow = luma + i * w
        if band.format == .rgb8 {
          // The offset once per byte, so adding it is one pass over the row's bytes.
          let delta = scratch.byteDelta
          for x in 0..<w {
            let d = yrow[x] - row[x]
            let g = SpatialMath.smoothstep((abs(d) - tau) / tau)
            let v = Int16(truncatingIfNeeded: SpatialMath.roundToInt32(gain * g * d * maxValue))
            delta[3 &* x] = v
            delta[3 &* x &+ 1] = v
            delta[3 &* x &+ 2] = v
          }
          Sharpening.addByteDelta(
            delta, from: band.source(row: y).assumingMemoryBound(to: UInt8.self),
            to: band.destination(row: y).assumingMemoryBound(to: UInt8.self), count: 3 * w)
          continue
        }
        let delta = scratch.delta
        for x in 0..<w {
          let d = yrow[x] - row[x]
          let g = SpatialMath.smoothstep((abs(d) - tau) / tau)
          delta[x] = SpatialMath.roundToInt32(gain * g * d * maxValue)
        }
        Sharpening.addDelta(
          delta, from: band.source(row: y), to: band.destination(row: y), format: band.format,
          width: w)
      }
    }
  }

  /// `out[x] = Σ_j k[j] · rows[j][x]`, accumulating in registers for the common 3- and 7-tap
  /// kernels (one pass over memory instead of one per tap).
  @inline(__always)
  static func convolve(
    _ k: UnsafeBufferPointer<Float>, rows: UnsafeMutablePointer<UnsafeMutablePointer<Float>>,
    width w: Int,
    into out: UnsafeMutablePointer<Float>
  ) {
    switch k.count {
    case 3:
      let (a, b, c) = (rows[0], rows[1], rows[2])
      let (k0, k1, k2) = (k[0], k[1], k[2])
      for x in 0..<w { out[x] = k0 * a[x] + k1 * b[x] + k2 * c[x] }
    case 7:
      let (a, b, c, d, e, f, g) = (rows[0], rows[1], rows[2], rows[3], rows[4], rows[5], rows[6])
      let (k0, k1, k2, k3) = (k[0], k[1], k[2], k[3])
      // The kernel is symmetric: pair the taps.
      for x in 0..<w {
        out[x] = k0 * (a[x] + g[x]) + k1 * (b[x] + f[x]) + k2 * (c[x] + e[x]) + k3 * d[x]
      }
    default:
      let first = rows[0]
      let k0 = k[0]
      for x in 0..<w { out[x] = k0 * first[x] }
      for j in 1..<k.count {
        let c = k[j]
        let p = rows[j]
        for x in 0..<w { out[x] += c * p[x] }
      }
    }
  }

  /// Row `src` plus `delta` on R, G and B into row `dst` (the same row when in place; alpha is
  /// copied).
  @inline(__always)
  static func addDelta(
    _ delta: UnsafePointer<Int32>, from src: UnsafeRawPointer, to dst: UnsafeMutableRawPointer,
    format: PixelFormat, width: Int
  ) {
    switch format {
    case .rgb8:
      addDelta(
        delta, src.assumingMemoryBound(to: UInt8.self), dst.assumingMemoryBound(to: UInt8.self), 3,
        width)
    case .rgba8:
      addDelta(
        delta, src.assumingMemoryBound(to: UInt8.self), dst.assumingMemoryBound(to: UInt8.self), 4,
        width)
    case .rgb16:
      addDelta(
        delta, src.assumingMemoryBound(to: UInt16.self), dst.assumingMemoryBound(to: UInt16.self),
        3, width)
    case .rgba16:
      addDelta(
        delta, src.assumingMemoryBound(to: UInt16.self), dst.assumingMemoryBound(to: UInt16.self),
        4, width)
    }
  }

  /// `dst[i] = clamp(src[i] + delta[i], 0, 255)` for `count` bytes (`dst` may be `src`).
  @inline(__always)
  static func addByteDelta(
    _ delta: UnsafePointer<Int16>, from src: UnsafePointer<UInt8>,
    to dst: UnsafeMutablePointer<UInt8>, count: Int
  ) {
    let zero = SIMD16<Int16>(repeating: 0)
    let top = SIMD16<Int16>(repeating: 255)
    var i = 0
    while i &+ 16 <= count {
      let s = UnsafeRawPointer(src + i).loadUnaligned(as: SIMD16<UInt8>.self)
      let d = UnsafeRawPointer(delta + i).loadUnaligned(as: SIMD16<Int16>.self)
      var v = SIMD16<Int16>(truncatingIfNeeded: s) &+ d
      v.replace(with: zero, where: v .< zero)
      v.replace(with: top, where: v .> top)
      UnsafeMutableRawPointer(dst + i).storeBytes(
        of: SIMD16<UInt8>(truncatingIfNeeded: v), as: SIMD16<UInt8>.self)
      i &+= 16
    }
    while i < count {
      let v = Int16(src[i]) &+ delta[i]
      dst[i] = UInt8(truncatingIfNeeded: v < 0 ? 0 : (v > 255 ? 255 : v))
      i &+= 1
    }
  }

  @inline(__always)
  static func addDelta<T: FixedWidthInteger & UnsignedInteger>(
    _ delta: UnsafePointer<Int32>, _ src: UnsafePointer<T>, _ dst: UnsafeMutablePointer<T>,
    _ n: Int, _ width: Int
  ) {
    let top = Int32(T.max)
    for x in 0..<width {
      let d = delta[x]
      let s = src + x &* n
      let q = dst + x &* n
      q[0] = T(truncatingIfNeeded: min(max(Int32(s[0]) &+ d, 0), top))
      q[1] = T(truncatingIfNeeded: min(max(Int32(s[1]) &+ d, 0), top))
      q[2] = T(truncatingIfNeeded: min(max(Int32(s[2]) &+ d, 0), top))
      if n == 4 { q[3] = s[3] }
    }
  }

  /// Scalar reference: whole-image Double planes, the same formula, no bands.
  public func appliedReference(to image: Image) -> Image {
    guard !isNeutral else { return image }
    let (r, g, b) = ReferencePixels.planes(image)
    let wt = image.colorSpace.lumaWeights
    let y = (0..<r.count).map { Double(wt.r) * r[$0] + Double(wt.g) * g[$0] + Double(wt.b) * b[$0] }
    let blur = ReferencePixels.separable(
      y, width: image.width, height: image.height, kernel: kernel.map(Double.init))
    let tau = Double(Self.threshold)
    let m = Double(image.format.maxValue)
    var delta = [Double](repeating: 0, count: y.count)
    for i in 0..<y.count {
      let d = y[i] - blur[i]
      let t = min(max((abs(d) - tau) / tau, 0), 1)
      // Quantised to whole code values, as the output is.
      delta[i] = (Double(amount) * 3 * t * t * (3 - 2 * t) * d * m).rounded() / m
    }
    var out = image
    ReferencePixels.write(
      r.indices.map { r[$0] + delta[$0] }, g.indices.map { g[$0] + delta[$0] },
      b.indices.map { b[$0] + delta[$0] }, into: &out)
    return out
  }
}

/// Per-job buffers for ``Sharpening``; freed when the job ends.
final class SharpenScratch {
  let width: Int
  private(set) var rows = 0
  private(set) var luma = UnsafeMutablePointer<Float>.allocate(capacity: 1)
  private(set) var horizontal = UnsafeMutablePointer<Float>.allocate(capacity: 1)
  let pad: UnsafeMutablePointer<Float>
  let row: UnsafeMutablePointer<Float>
  let delta: UnsafeMutablePointer<Int32>
  /// The offset per byte of an 8-bit RGB row (`3 × width`).
  let byteDelta: UnsafeMutablePointer<Int16>
  /// Row pointers of the current convolution's taps.
  let taps: UnsafeMutablePointer<UnsafeMutablePointer<Float>>

  /// Grows the window planes to hold `rows` rows (bands differ by at most a few rows, so this
  /// allocates once or twice per job).
  func reserve(rows needed: Int) {
    guard needed > rows else { return }
    luma.deallocate()
    horizontal.deallocate()
    luma = .allocate(capacity: width * needed)
    horizontal = .allocate(capacity: width * needed)
    rows = needed
  }

  init(width: Int, radius: Int) {
    self.width = width
    pad = .allocate(capacity: width + 2 * radius)
    row = .allocate(capacity: width)
    delta = .allocate(capacity: width)
    byteDelta = .allocate(capacity: 3 * width)
    taps = .allocate(capacity: 2 * radius + 1)
  }

  deinit {
    luma.deallocate()
    horizontal.deallocate()
    pad.deallocate()
    row.deallocate()
    delta.deallocate()
    byteDelta.deallocate()
    taps.deallocate()
  }
}
