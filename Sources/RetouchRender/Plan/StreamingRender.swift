// SPDX-License-Identifier: Apache-2.0

import Dispatch
import RetouchCore

/// Renders an edit band by band, top to bottom, into an 8-bit RGB buffer whose lower rows may
/// still be arriving: the unit of a decode → edit → encode pipeline that overlaps the three.
///
/// Produces exactly what ``RenderPlan`` produces for the same config when given the guide the
/// plan would build (``ToneGuide`` of the unsharpened photo). Streams only edits without
/// geometry and without noise reduction or depth blur (``canStream(_:options:)``); others go
/// through ``RenderPlan``.
///
/// A band is rendered in two steps, which a caller may also run apart:
/// ``sharpen(rows:in:ringRows:)`` (consecutive bands, in order, each while the rows below it are
/// still original) and ``applyPixelStages(rows:in:ringRows:threads:)`` (any rows once sharpened);
/// ``render(rows:in:ringRows:)`` does both. An edit with local tone or clarity may start without
/// its guide, sharpen while the photo arrives, and get the guide (``setGuide(_:)``) before its
/// first pixel pass. Not thread-safe, except as ``applyPixelStages(rows:in:ringRows:threads:)``
/// says.
public final class StreamingRender {
  public let width: Int
  public let height: Int
  /// Rows below a band that must hold original (decoded, not yet rendered) pixels when the band
  /// is rendered.
  public let haloRows: Int

  private let config: EditConfig
  private let colorSpace: ColorSpace
  private let renderScale: Double
  private let options: RenderOptions
  /// The per-pixel pass; nil until the guide an edit with local tone or clarity needs is set.
  private var stages: PixelStages?
  private let sharpening: Sharpening?
  private let sharpenKernel: [Float]
  /// The sharpening scratches, one per half when a band is sharpened in two halves at once;
  /// a band sharpened whole uses the first (see ``SplitScratch``).
  private let sharpenScratch: SplitScratch?
  private let lumaWeights: (r: Float, g: Float, b: Float)
  /// The last `haloRows` rows of the previous band as they were before it was rendered.
  private var savedAbove: UnsafeMutableRawPointer
  private var savedNext: UnsafeMutableRawPointer
  /// Original rows around the split when a band is sharpened in two halves at once.
  private let splitSaved: UnsafeMutableRawPointer
  private var nextRow = 0

  /// Whether `config` can be rendered as a stream (no crop, turns, straighten or noise
  /// reduction: those need rows out of order or a second pass).
  public static func canStream(_ config: EditConfig, options: RenderOptions = RenderOptions())
    -> Bool
  {
    config.crop.isFull && config.editRotation == .original && config.straightenDegrees == 0
      && config.value(of: .noiseReduction) == 0
      && (options.depthMap == nil || config.value(of: .backgroundBlur) == 0)
  }

  /// - Parameters:
  ///   - guide: the tone guide for local tone and clarity; when the edit needs one and it is
  ///     nil, set it with ``setGuide(_:)`` before the first pixel pass (see
  ///     ``ToneGuide/downscaledLog2Luminance(rows:of:width:height:format:colorSpace:factor:into:threads:)``
  ///     to measure it from rows as they are decoded).
  public init(
    _ config: EditConfig, width: Int, height: Int, colorSpace: ColorSpace, guide: ToneGuide?,
    renderScale: Double = 1, options: RenderOptions = RenderOptions()
  ) {
    precondition(
      Self.canStream(config, options: options), "this edit cannot be streamed; use RenderPlan")
    self.width = width
    self.height = height
    self.config = config
    self.colorSpace = colorSpace
    self.renderScale = renderScale
    self.options = options
    let amount = min(config.value(of: .sharpness), 1)
    let s = amount > 0 ? Sharpening(amount: amount, renderScale: renderScale) : nil
    sharpening = s
    sharpenKernel = s?.kernel ?? []
    haloRows = s?.haloRows ?? 0
    sharpenScratch = s.map { sharp in
      SplitScratch(
        halves: (0..<2).map { _ in SharpenScratch(width: width, radius: sharp.haloRows) })
    }
    lumaWeights = colorSpace.lumaWeights
    let slot = max(1, haloRows * width * 3)
    savedAbove = UnsafeMutableRawPointer.allocate(byteCount: slot, alignment: 64)
    savedNext = UnsafeMutableRawPointer.allocate(byteCount: slot, alignment: 64)
    splitSaved = UnsafeMutableRawPointer.allocate(byteCount: 2 * slot, alignment: 64)
    if guide != nil || !RenderPlan.needsToneGuide(config) { setGuide(guide) }
  }

  deinit {
    savedAbove.deallocate()
    savedNext.deallocate()
    splitSaved.deallocate()
  }

  /// Builds the per-pixel pass with `guide` (the tone guide of the whole, unsharpened photo).
  public func setGuide(_ guide: ToneGuide?) {
    let vignette = options.includesVignette ? config.value(of: .vignette) : 0
    stages = PixelStages(
      config: config, width: width, height: height, colorSpace: colorSpace, guide: guide,
      renderScale: renderScale, vignette: vignette, options: options)
  }

  /// Renders `rows` of a packed 8-bit RGB buffer in place. Row `y` lives at
  /// `base + (y % ringRows) × width × 3`: the buffer may be a ring that holds only the rows in
  /// flight (`ringRows` a multiple of the band height) or the whole image (`ringRows == height`).
  ///
  /// Bands must come in order without gaps, starting at row 0, at least ``haloRows`` tall, and
  /// must not wrap around the ring. Rows `rows.upperBound ..< rows.upperBound + haloRows`
  /// (clamped to the image) must already hold their original pixels.
  public func render(rows: Range<Int>, in base: UnsafeMutablePointer<UInt8>, ringRows: Int? = nil) {
    sharpen(rows: rows, in: base, ringRows: ringRows)
    applyPixelStages(rows: rows, in: base, ringRows: ringRows)
  }

  /// The ring's height and the bytes per row, checking that `rows` do not wrap around it.
  private func layout(of rows: Range<Int>, ringRows: Int?) -> (ring: Int, bytesPerRow: Int) {
    let ring = ringRows ?? height
    precondition(
      rows.lowerBound % ring + rows.count <= ring, "a band must not wrap around the ring")
    return (ring, width * 3)
  }

  /// The sharpening of ``render(rows:in:ringRows:)`` alone, with the same rules for the band
  /// and the rows below it; nothing to do when the edit does not sharpen.
  ///
  /// - Parameter threads: worker threads for the band (at most 2 are used); nil uses the
  ///   render's options.
  public func sharpen(
    rows: Range<Int>, in base: UnsafeMutablePointer<UInt8>, ringRows: Int? = nil,
    threads: Int? = nil
  ) {
    precondition(rows.lowerBound == nextRow, "bands must be consecutive")
    defer { nextRow = rows.upperBound }
    guard !rows.isEmpty else { return }
    let (ring, bpr) = layout(of: rows, ringRows: ringRows)
    let ringBase = UnsafeMutableRawPointer(base)
    // The band's rows are contiguous in the ring: address them by absolute row number through a
    // base shifted by the band's offset (only rows of this band are reached through it).
    let bandBase = ringBase + (rows.lowerBound % ring - rows.lowerBound) * bpr
    func row(_ y: Int) -> UnsafeMutableRawPointer { ringBase + (y % ring) * bpr }
    if let sharpening, let scratches = sharpenScratch {
      let halo = haloRows
      // Keep this band's last rows as they are now, for the next band's upper halo.
      let keep = min(halo, rows.count)
      if keep > 0 {
        savedNext.copyMemory(from: row(rows.upperBound - keep), byteCount: keep * bpr)
      }
      precondition(
        keep == halo || rows.upperBound == height, "bands must be at least haloRows tall")
      let above = rows.lowerBound > 0 ? UnsafeRawPointer(savedAbove) : nil
      let below = rows.upperBound < height ? UnsafeRawPointer(row(rows.upperBound)) : nil
      let workers = max(1, threads ?? options.threads ?? ParallelBands.defaultThreadCount)
      if workers >= 2 && rows.count >= 4 * halo {
        // Two halves at once: each reads the other's rows next to the split from a copy made
        // before either starts, so neither sees the other's sharpened pixels.
        let mid = rows.lowerBound + rows.count / 2
        splitSaved.copyMemory(from: row(mid - halo), byteCount: 2 * halo * bpr)
        let halves = [
          (
            rows.lowerBound..<mid, above,
            UnsafeRawPointer(splitSaved + halo * bpr) as UnsafeRawPointer?
          ),
          (mid..<rows.upperBound, UnsafeRawPointer(splitSaved) as UnsafeRawPointer?, below),
        ].map {
          (
            range: $0.0, above: $0.1.map(SendableRawPointer.init),
            below: $0.2.map(SendableRawPointer.init)
          )
        }
        let image = SendableRawPointer(bandBase)
        let (w, h, kernel, weights, sharp) = (width, height, sharpenKernel, lumaWeights, sharpening)
        DispatchQueue.concurrentPerform(iterations: 2) { i in
          let half = halves[i]
          var scratch = scratches.halves[i]
          let band = HaloBands.Band(
            rows: half.range, halo: halo, width: w, height: h, format: .rgb8, bytesPerRow: w * 3,
            image: image.pointer, above: half.above.map { UnsafeRawPointer($0.pointer) },
            below: half.below.map { UnsafeRawPointer($0.pointer) }, output: image.pointer)
          sharp.sharpen(
            band, kernel: kernel, scratch: &scratch, lumaWeights: weights, maxValue: 255)
        }
      } else {
        let band = HaloBands.Band(
          rows: rows, halo: halo, width: width, height: height, format: .rgb8, bytesPerRow: bpr,
          image: bandBase, above: above, below: below, output: bandBase)
        var scratch = scratches.halves[0]
        sharpening.sharpen(
          band, kernel: sharpenKernel, scratch: &scratch, lumaWeights: lumaWeights, maxValue: 255)
      }
      swap(&savedAbove, &savedNext)
    }
  }

  /// The per-pixel stages of ``render(rows:in:ringRows:)`` alone, on rows already sharpened
  /// (any rows, in any order; they must not wrap around the ring). Thread-safe for disjoint
  /// rows once the guide is set, so a caller may run bands on several threads itself
  /// (`threads: 1` each).
  ///
  /// - Parameter threads: worker threads for these rows; nil uses the render's options.
  public func applyPixelStages(
    rows: Range<Int>, in base: UnsafeMutablePointer<UInt8>, ringRows: Int? = nil,
    threads: Int? = nil
  ) {
    guard !rows.isEmpty else { return }
    guard let stages else { preconditionFailure("set the tone guide before the pixel pass") }
    let (ring, bpr) = layout(of: rows, ringRows: ringRows)
    let ringBase = UnsafeMutableRawPointer(base)
    // The per-pixel stages are independent per row: split the band over the worker threads
    // (the decoder and encoder threads mostly wait on this one).
    let w = width
    let shared = SendableRawPointer(ringBase)
    let first = rows.lowerBound
    ParallelBands.forEach(
      rows: rows.count, minimumBandHeight: 16, threads: threads ?? options.threads
    ) { part in
      let scratch = PixelStages.RowScratch(width: w)
      for i in part {
        let y = first + i
        stages.processRow(
          y, shared.pointer + (y % ring) * bpr, width: w, channels: 3, eightBit: true,
          scratch: scratch)
      }
    }
  }
}

/// The two scratches of a band sharpened in halves, kept for the whole render: made per band,
/// their window planes (about 1 MB each for a 4032-px row) were fresh memory every time, and a
/// 12 MP `retouch apply` without local tone took about 19 000 of its 24 000 page faults to map
/// them.
private struct SplitScratch: @unchecked Sendable {
  // Invariant: the worker of half `i` is the only one to touch `halves[i]` (a band sharpened
  // whole uses `halves[0]` on the calling thread), and the halves are used by one band at a time
  // (`StreamingRender.sharpen` is not reentrant).
  let halves: [SharpenScratch]
}
