// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore

/// A small, edge-aware map of an image's large-scale brightness, computed once per image and
/// sampled by the local adjustments (shadows/highlights, clarity) at any render scale.
///
/// **Build.** The source image is box-averaged by an integer factor `f = ⌈longEdge / maxLongEdge⌉`
/// (default long edge ≤ 384 px, so a 4000×3000 photo gives 364×273 and a 2048×1536 preview
/// 342×256; blocks of 4 px or more are sampled on every second row and column). The average is taken of *linear* relative luminance `Y = w·decode(RGB)` (the
/// colour space's `ColorSpace.lumaWeights` and the sRGB transfer curve), because a box average
/// of linear light is what a smaller render of the same photo shows; each block's mean is then
/// moved to **log2 space** (stops, `log2(max(Y, 2^-12))`). Everything after that works in stops:
/// an edge's strength is its contrast ratio, independent of exposure.
///
/// **Smoothing.** Two bases come from the self-guided filter of He, Sun and Tang, "Guided Image
/// Filtering" (ECCV 2010): with `μ`, `σ²` the mean and variance of `I` in a `(2r+1)²` window,
/// `a = σ² / (σ² + ε)`, `b = μ(1 − a)`, and the base is `mean(a)·I + mean(b)`. It was chosen over
/// a bilateral grid because it costs O(1) per pixel for any radius (box filters), needs no 3D
/// grid, keeps gradients (no staircase) and does not reverse gradients at edges: windows
/// straddling an edge whose contrast exceeds `√ε` keep `a ≈ 1`, so the base follows the edge
/// instead of bleeding across it, which is what prevents halos.
/// - ``Layer/tone``: radius 4 % of the guide's long edge, `ε = 0.25` stops² (edges of more than
///   about half a stop are kept) — the base for ``LocalToneCurve``.
/// - ``Layer/clarity``: radius 2 %, `ε = 0.5` stops² — the base for ``Clarity``.
///
/// **Cost** (release, shared 2-core AVX-512 VM, 8-bit RGB, medians): from 2048×1536 2.4–3.0 ms
/// on 2 threads (4.1–4.7 ms on one), from 4000×3000 4.9–5.9 ms on 2 threads (8.5–9.5 ms on
/// one); up to twice that while other builds held a core. Memory `3 × guide pixels × 4` bytes.
/// Sampling one output row costs one bilinear tap per pixel (see ``Sampler``).
public struct ToneGuide: Sendable {
  /// The default bound on the guide's long edge, in guide pixels.
  public static let defaultMaxLongEdge = 384
  /// The darkest luminance the guide represents (log2 floor, in stops).
  public static let floorLog2: Float = -12

  /// Which base layer to sample.
  public enum Layer: Sendable, Hashable {
    /// The box-averaged log2 luminance before smoothing.
    case luminance
    /// The large-radius edge-aware base for local shadows/highlights.
    case tone
    /// The mid-radius edge-aware base for clarity.
    case clarity
  }

  /// Guide size in guide pixels.
  public let width: Int
  public let height: Int
  /// Source pixels per guide pixel along each axis.
  public let factor: Int
  /// Size of the image the guide was built from.
  public let sourceWidth: Int
  public let sourceHeight: Int

  @usableFromInline let luminance: [Float]
  @usableFromInline let toneBase: [Float]
  @usableFromInline let clarityBase: [Float]

  /// Builds the guide from an image (8- or 16-bit, alpha ignored).
  ///
  /// `maxLongEdge` bounds the guide's long edge (clamped to 8…4096); `threads` defaults to all
  /// cores. Eager: all work happens here (see the type's cost).
  public init(image: Image, maxLongEdge: Int = ToneGuide.defaultMaxLongEdge, threads: Int? = nil) {
    let f = ToneGuide.factor(width: image.width, height: image.height, maxLongEdge: maxLongEdge)
    let lum = ToneGuide.downscaledLog2Luminance(image, factor: f, threads: threads)
    self.init(
      log2Luminance: lum, width: (image.width + f - 1) / f, height: (image.height + f - 1) / f,
      factor: f, sourceWidth: image.width, sourceHeight: image.height, threads: threads)
  }

  /// Builds the guide from an already downscaled log2-luminance map (for tests and callers that
  /// have one); `factor` and the source size say how it maps onto the source image.
  public init(
    log2Luminance: [Float], width: Int, height: Int, factor: Int = 1,
    sourceWidth: Int? = nil, sourceHeight: Int? = nil, threads: Int? = nil
  ) {
    precondition(width > 0 && height > 0 && log2Luminance.count == width * height, "bad guide size")
    self.width = width
    self.height = height
    self.factor = factor
    self.sourceWidth = sourceWidth ?? width * factor
    self.sourceHeight = sourceHeight ?? height * factor
    luminance = log2Luminance
    let p = ToneGuide.parameters(width: width, height: height)
    var tone = [Float](repeating: 0, count: width * height)
    var clarity = [Float](repeating: 0, count: width * height)
    tone.withUnsafeMutableBufferPointer { t in
      clarity.withUnsafeMutableBufferPointer { c in
        log2Luminance.withUnsafeBufferPointer { src in
          let outs = [HaloBands.share(t.baseAddress!), HaloBands.share(c.baseAddress!)]
          let input = HaloBands.share(src.baseAddress!)
          // The two filters are independent: one per thread.
          ParallelBands.forEach(rows: 2, minimumBandHeight: 1, threads: threads) { range in
            for i in range {
              GuidedFilter.smooth(
                input.pointer.assumingMemoryBound(to: Float.self),
                into: outs[i].pointer.assumingMemoryBound(to: Float.self),
                width: width, height: height,
                radius: i == 0 ? p.toneRadius : p.clarityRadius,
                epsilon: i == 0 ? p.toneEpsilon : p.clarityEpsilon)
            }
          }
        }
      }
    }
    toneBase = tone
    clarityBase = clarity
  }

  /// Filter radii (guide pixels) and ε (stops²) for a guide of this size.
  public static func parameters(width: Int, height: Int)
    -> (toneRadius: Int, toneEpsilon: Float, clarityRadius: Int, clarityEpsilon: Float)
  {
    let long = Float(max(width, height))
    return (
      max(1, Int((long * 0.04).rounded())), 0.25, max(1, Int((long * 0.02).rounded())), 0.5
    )
  }

  /// The stored values of one layer, row-major, `width × height` (stops).
  public func values(_ layer: Layer) -> [Float] {
    switch layer {
    case .luminance: luminance
    case .tone: toneBase
    case .clarity: clarityBase
    }
  }

  // MARK: Downscale

  /// Box-averages linear luminance over `factor × factor` blocks (partial blocks at the right and
  /// bottom average what they cover) and returns `log2(max(mean, 2^-12))` per block.
  ///
  /// Blocks of 4 px or more are averaged over every second row and column
  /// (``sampleStep(factor:)``). Per sample: three table look-ups (256 entries for 8-bit, 65536
  /// for 16-bit) and three adds; bands of guide rows run in parallel.
  public static func downscaledLog2Luminance(_ image: Image, factor f: Int, threads: Int? = nil)
    -> [Float]
  {
    precondition(f >= 1)
    let gw = (image.width + f - 1) / f
    let gh = (image.height + f - 1) / f
    var out = [Float](repeating: 0, count: gw * gh)
    image.withUnsafeBytes { raw in
      out.withUnsafeMutableBufferPointer { o in
        downscaledLog2Luminance(
          rows: 0..<gh, of: raw.baseAddress!, width: image.width, height: image.height,
          format: image.format, colorSpace: image.colorSpace, factor: f, into: o.baseAddress!,
          threads: threads)
      }
    }
    return out
  }

  /// The guide factor for an image of `width × height`: source pixels per guide pixel, so that
  /// the guide's long edge is at most `maxLongEdge` (clamped to 8…4096).
  public static func factor(width: Int, height: Int, maxLongEdge: Int = defaultMaxLongEdge) -> Int {
    let bound = min(max(maxLongEdge, 8), 4096)
    return max(1, (max(width, height) + bound - 1) / bound)
  }

  /// Guide rows `guideRows` of ``downscaledLog2Luminance(_:factor:threads:)`` from packed
  /// pixels (`width × height`, `format`, rows `width × channels` components apart), written to
  /// `out` (guide row `gy` at `out + gy × guideWidth`). Reads only the source rows of those
  /// guide rows, so a caller can build the map while the image is still being decoded.
  public static func downscaledLog2Luminance(
    rows guideRows: Range<Int>, of pixels: UnsafeRawPointer, width w: Int, height h: Int,
    format: PixelFormat, colorSpace: ColorSpace, factor f: Int,
    into out: UnsafeMutablePointer<Float>,
    threads: Int? = nil
  ) {
    precondition(f >= 1)
    guard !guideRows.isEmpty else { return }
    let gw = (w + f - 1) / f
    let weights = colorSpace.lumaWeights
    let eightBit = format.bitDepth == 8
    let linear = eightBit ? ToneGuide.linear8 : ToneGuide.linear16
    let tables = [weights.r, weights.g, weights.b].map { wt in linear.map { $0 * wt } }
    let channels = format.channelCount
    tables[0].withUnsafeBufferPointer { tr in
      tables[1].withUnsafeBufferPointer { tg in
        tables[2].withUnsafeBufferPointer { tb in
          let src = HaloBands.share(UnsafeMutableRawPointer(mutating: pixels))
          let dst = HaloBands.share(out)
          let t = (
            HaloBands.share(tr.baseAddress!), HaloBands.share(tg.baseAddress!),
            HaloBands.share(tb.baseAddress!)
          )
          let first = guideRows.lowerBound
          ParallelBands.forEach(rows: guideRows.count, minimumBandHeight: 4, threads: threads) {
            part in
            let tR = t.0.pointer.assumingMemoryBound(to: Float.self)
            let tG = t.1.pointer.assumingMemoryBound(to: Float.self)
            let tB = t.2.pointer.assumingMemoryBound(to: Float.self)
            let acc = UnsafeMutablePointer<Float>.allocate(capacity: gw)
            defer { acc.deallocate() }
            let step = sampleStep(factor: f)
            for gy in part.lowerBound + first..<part.upperBound + first {
              acc.initialize(repeating: 0, count: gw)
              let y0 = gy * f
              let y1 = min(y0 + f, h)
              for y in stride(from: y0, to: y1, by: step) {
                if eightBit {
                  let row = src.pointer.assumingMemoryBound(to: UInt8.self) + y * w * channels
                  accumulate(row, w: w, f: f, gw: gw, channels: channels, tR, tG, tB, acc)
                } else {
                  let row = src.pointer.assumingMemoryBound(to: UInt16.self) + y * w * channels
                  accumulate(row, w: w, f: f, gw: gw, channels: channels, tR, tG, tB, acc)
                }
              }
              let orow = dst.pointer.assumingMemoryBound(to: Float.self) + gy * gw
              let rowCount = Float((y1 - y0 + step - 1) / step)
              for gx in 0..<gw {
                let cols = Float((min(gx * f + f, w) - gx * f + step - 1) / step)
                let mean = acc[gx] / (cols * rowCount)
                orow[gx] = max(SpatialMath.log2(mean), floorLog2)
              }
            }
          }
        }
      }
    }
  }

  /// Samples per block side: blocks of 4 or more pixels are sampled on every second row and
  /// column (a quarter of the pixels, half the memory traffic), which the guided filter's
  /// smoothing over many blocks makes invisible.
  public static func sampleStep(factor: Int) -> Int { factor >= 4 ? 2 : 1 }

  /// The sRGB decode of every 8-bit and 16-bit code value (made once per process; the 16-bit
  /// table is 256 KB and takes about 2 ms).
  static let linear8: [Float] = (0..<256).map { SRGBTransfer.decode(Float($0) / 255) }
  static let linear16: [Float] = (0..<65536).map { SRGBTransfer.decode(Float($0) / 65535) }

  @inline(__always)
  static func accumulate<T: FixedWidthInteger>(
    _ row: UnsafePointer<T>, w: Int, f: Int, gw: Int, channels: Int,
    _ tR: UnsafePointer<Float>, _ tG: UnsafePointer<Float>, _ tB: UnsafePointer<Float>,
    _ acc: UnsafeMutablePointer<Float>
  ) {
    let step = sampleStep(factor: f)
    for gx in 0..<gw {
      let x0 = gx &* f
      let x1 = min(x0 &+ f, w)
      var s: Float = 0
      var x = x0
      while x < x1 {
        let p = row + x &* channels
        s += tR[Int(p[0])] + tG[Int(p[1])] + tB[Int(p[2])]
        x &+= step
      }
      acc[gx] += s
    }
  }

  /// Scalar reference for ``downscaledLog2Luminance(_:factor:threads:)``: Double arithmetic and
  /// the exact transfer curve per component.
  public static func downscaledLog2LuminanceReference(_ image: Image, factor f: Int) -> [Float] {
    let gw = (image.width + f - 1) / f
    let gh = (image.height + f - 1) / f
    let wt = image.colorSpace.lumaWeights
    let maxV = Double(image.format.maxValue)
    var out = [Float](repeating: 0, count: gw * gh)
    for gy in 0..<gh {
      for gx in 0..<gw {
        var s = 0.0
        var n = 0
        let step = sampleStep(factor: f)
        for y in stride(from: gy * f, to: min(gy * f + f, image.height), by: step) {
          for x in stride(from: gx * f, to: min(gx * f + f, image.width), by: step) {
            let p = image.pixel(x: x, y: y)
            s += Double(wt.r) * decode(Double(p[0]) / maxV)
            s += Double(wt.g) * decode(Double(p[1]) / maxV)
            s += Double(wt.b) * decode(Double(p[2]) / maxV)
            n += 1
          }
        }
        out[gy * gw + gx] = Float(Swift.max(Foundation.log2(s / Double(n)), Double(floorLog2)))
      }
    }
    return out
  }

  static func decode(_ v: Double) -> Double {
    v <= 0.04045 ? v / 12.92 : Foundation.pow((v + 0.055) / 1.055, 2.4)
  }

  // MARK: Sampling

  /// Bilinear upsampling of a guide layer onto the pixel grid of an output image.
  ///
  /// The output covers `region` of the source image (unit coordinates of the image the guide was
  /// built from, already in the orientation the renderer draws; `.full` by default), at any
  /// size, so the same guide serves a 0.25× preview and the full export: output pixel `(x, y)`'s
  /// centre maps to source position `u·sourceWidth` and guide coordinate `u·sourceWidth/f − ½`.
  /// Edges clamp. Creating a sampler costs O(output width); each row then four look-ups and
  /// three lerps per pixel: 4000×3000 rows in ≈ 15 ms on one thread (release, shared 2-core
  /// AVX-512 VM).
  public struct Sampler: Sendable {
    public let guide: ToneGuide
    public let outputWidth: Int
    public let outputHeight: Int
    @usableFromInline let columnIndex: [Int32]
    @usableFromInline let columnWeight: [Float]
    /// Where each guide column's run of output columns starts (`columnIndex` is non-decreasing,
    /// so the output columns whose left tap is guide column `i` are
    /// `columnStart[i] ..< columnStart[i + 1]`); `guide.width + 1` entries.
    @usableFromInline let columnStart: [Int32]
    @usableFromInline let rowScale: Double
    @usableFromInline let rowOffset: Double

    public init(
      guide: ToneGuide, outputWidth: Int, outputHeight: Int, region: NormalizedRect = .full
    ) {
      precondition(outputWidth > 0 && outputHeight > 0)
      self.guide = guide
      self.outputWidth = outputWidth
      self.outputHeight = outputHeight
      let sx = region.width * Double(guide.sourceWidth) / Double(guide.factor) / Double(outputWidth)
      let ox = region.x * Double(guide.sourceWidth) / Double(guide.factor)
      var idx = [Int32](repeating: 0, count: outputWidth)
      var wts = [Float](repeating: 0, count: outputWidth)
      for x in 0..<outputWidth {
        let (i, t) = Sampler.tap(ox + (Double(x) + 0.5) * sx - 0.5, count: guide.width)
        idx[x] = Int32(i)
        wts[x] = t
      }
      columnIndex = idx
      columnWeight = wts
      var starts = [Int32](repeating: Int32(outputWidth), count: guide.width + 1)
      for x in stride(from: outputWidth - 1, through: 0, by: -1) {
        starts[Int(idx[x])] = Int32(x)
      }
      // Guide columns no output column starts at (beyond the last tap) begin where the next does.
      for i in stride(from: guide.width - 1, through: 0, by: -1) where starts[i] > starts[i + 1] {
        starts[i] = starts[i + 1]
      }
      columnStart = starts
      rowScale =
        region.height * Double(guide.sourceHeight) / Double(guide.factor)
        / Double(outputHeight)
      rowOffset = region.y * Double(guide.sourceHeight) / Double(guide.factor)
    }

    /// Left (or top) tap index and the weight of the next tap for guide coordinate `g`.
    @usableFromInline
    static func tap(_ g: Double, count: Int) -> (Int, Float) {
      guard count > 1 else { return (0, 0) }
      let c = Swift.min(Swift.max(g, 0), Double(count - 1))
      let i = Swift.min(Int(c.rounded(.down)), count - 2)
      return (i, Float(c - Double(i)))
    }

    /// Writes the upsampled `layer` (stops) for output row `y` into `row[0..<outputWidth]`.
    @inlinable
    public func fillRow(y: Int, layer: Layer = .tone, into row: UnsafeMutablePointer<Float>) {
      let values: [Float]
      switch layer {
      case .luminance: values = guide.luminance
      case .tone: values = guide.toneBase
      case .clarity: values = guide.clarityBase
      }
      fillRow(y: y, values: values, into: row)
    }

    /// Writes row `y` of any per-guide-pixel field (`values`: one per guide pixel, row-major,
    /// e.g. a function of a layer computed once on the guide grid) upsampled the same way.
    @inlinable
    public func fillRow(y: Int, values: [Float], into row: UnsafeMutablePointer<Float>) {
      precondition(values.count == guide.width * guide.height, "one value per guide pixel")
      let (gy, gy1, ty) = rowTaps(y)
      let gw = guide.width
      // Rows first, on the guide's width (a few hundred values), then columns, one run of
      // output columns per guide column: the run's two taps stay in registers and each output
      // pixel is one weight load and a lerp, four at a time (per pixel, an index and two tap
      // loads before: this function's share of a 2048-px preview's samples went 3.6 → 3.1 %).
      values.withUnsafeBufferPointer { v in
        columnStart.withUnsafeBufferPointer { cs in
          columnWeight.withUnsafeBufferPointer { cw in
            withUnsafeTemporaryAllocation(of: Float.self, capacity: gw) { mixed in
              let m = mixed.baseAddress!
              let r0 = v.baseAddress! + gy * gw
              let r1 = v.baseAddress! + gy1 * gw
              for i in 0..<gw { m[i] = r0[i] + ty * (r1[i] - r0[i]) }
              let next = gw > 1 ? 1 : 0
              for i in 0..<gw {
                let start = Int(cs[i]), end = Int(cs[i + 1])
                guard start < end else { continue }
                let a = m[i]
                let d = m[i + next] - a
                for x in start..<end { row[x] = a + cw[x] * d }
              }
            }
          }
        }
      }
    }

    /// The guide rows output row `y` interpolates between and the weight of the second.
    @inlinable
    func rowTaps(_ y: Int) -> (Int, Int, Float) {
      let (gy, ty) = Sampler.tap(
        rowOffset + (Double(y) + 0.5) * rowScale - 0.5, count: guide.height)
      return (gy, guide.height > 1 ? gy + 1 : gy, ty)
    }

    /// ``fillRow(y:values:into:)`` for two fields at once (the same taps and weights, one pass
    /// over the columns): `first` into `row`, `second` into `secondRow`.
    @inlinable
    public func fillRows(
      y: Int, _ first: [Float], into row: UnsafeMutablePointer<Float>, _ second: [Float],
      into secondRow: UnsafeMutablePointer<Float>
    ) {
      let n = guide.width * guide.height
      precondition(first.count == n && second.count == n, "one value per guide pixel")
      let (gy, gy1, ty) = rowTaps(y)
      let gw = guide.width
      first.withUnsafeBufferPointer { v in
        second.withUnsafeBufferPointer { u in
          columnStart.withUnsafeBufferPointer { cs in
            columnWeight.withUnsafeBufferPointer { cw in
              withUnsafeTemporaryAllocation(of: Float.self, capacity: 2 * gw) { mixed in
                let m = mixed.baseAddress!
                let m2 = m + gw
                let (r0, r1) = (v.baseAddress! + gy * gw, v.baseAddress! + gy1 * gw)
                let (s0, s1) = (u.baseAddress! + gy * gw, u.baseAddress! + gy1 * gw)
                for i in 0..<gw {
                  m[i] = r0[i] + ty * (r1[i] - r0[i])
                  m2[i] = s0[i] + ty * (s1[i] - s0[i])
                }
                let next = gw > 1 ? 1 : 0
                for i in 0..<gw {
                  let start = Int(cs[i]), end = Int(cs[i + 1])
                  guard start < end else { continue }
                  let (a, d) = (m[i], m[i + next] - m[i])
                  let (a2, d2) = (m2[i], m2[i + next] - m2[i])
                  for x in start..<end {
                    row[x] = a + cw[x] * d
                    secondRow[x] = a2 + cw[x] * d2
                  }
                }
              }
            }
          }
        }
      }
    }

    /// Scalar reference for one output pixel (Double math).
    public func valueReference(x: Int, y: Int, layer: Layer = .tone) -> Float {
      valueReference(x: x, y: y, values: guide.values(layer))
    }

    /// Scalar reference of ``fillRow(y:values:into:)`` for one output pixel.
    public func valueReference(x: Int, y: Int, values vals: [Float]) -> Float {
      let sx = Double(columnIndex[x]) + Double(columnWeight[x])
      let gyv = Swift.min(
        Swift.max(rowOffset + (Double(y) + 0.5) * rowScale - 0.5, 0), Double(guide.height - 1))
      func at(_ gx: Int, _ gy: Int) -> Double { Double(vals[gy * guide.width + gx]) }
      let x0 = Int(sx.rounded(.down))
      let y0 = Int(gyv.rounded(.down))
      let x1 = Swift.min(x0 + 1, guide.width - 1)
      let y1 = Swift.min(y0 + 1, guide.height - 1)
      let tx = sx - Double(x0)
      let ty = gyv - Double(y0)
      let top = at(x0, y0) * (1 - tx) + at(x1, y0) * tx
      let bottom = at(x0, y1) * (1 - tx) + at(x1, y1) * tx
      return Float(top * (1 - ty) + bottom * ty)
    }
  }
}
