// SPDX-License-Identifier: Apache-2.0

import Dispatch
import Foundation
import RetouchCore
import RetouchRender

/// The sums one fused pass over the analysis copy collects for the exposure and colour
/// measurements, plus two planes the later measurements read (linear luminance and 8-bit luma).
///
/// The pass runs over a fixed number of row bands (``bandCount``, whatever the thread count);
/// each band fills its own partial sums and the partials are added in band order, so every
/// floating-point result is bit-identical from run to run and machine thread count to count.
struct PixelStatistics {
  /// Row bands of the fused pass (fixed so float sums do not depend on the thread count).
  static let bandCount = 8
  /// Bins of the luminance histogram over linear Y in 0...1 (bin `i` holds Y ≈ i / (bins − 1)).
  static let histogramBins = 16384
  /// The 8-bit code at or above which a channel counts as clipped when a colour is read from
  /// it (the illuminant estimate, ``HighlightColor``): a clipped channel lies about the light.
  static let clippedCode: UInt8 = 250
  /// Minkowski norm of the shades-of-gray estimate (Finlayson & Trezzi 2004; p = 6 does well on
  /// their benchmarks). The pass computes c⁶ as (c²)³, so the power is fixed here.
  static let shadesOfGrayPower = 6.0
  /// Minkowski norm of the gray-edge estimate (van de Weijer, Gevers & Gijsenij 2007).
  static let grayEdgePower = 2.0

  let width: Int
  let height: Int
  /// Counts of linear luminance, ``histogramBins`` bins.
  var histogram: [Int]
  /// Counts of each pixel's darkest encoded channel, `min(r, g, b)`, 256 bins: how far up the
  /// black level sits in every channel (``ExposureAnalysis/channelFloor``).
  var floorHistogram: [Int]
  /// Counts of each pixel's brightest encoded channel, `max(r, g, b)`, 256 bins: where the
  /// photo's whites sit (``ExposureAnalysis/missingWhiteEV``).
  var ceilingHistogram: [Int]
  /// Counts of the pixels without a clipped channel (every code under ``clippedCode``) by
  /// linear luminance, ``HighlightColor/bins`` bins: the first of ``HighlightColor``'s two
  /// passes, counted here where the luminance and brightest channel are at hand.
  var highlightCounts: [Int]
  /// The pass's sums, added band by band in order.
  var totals: BandSums
  /// Linear Rec. 709 (or P3) luminance per pixel, row-major.
  var luminancePlane: [Float]
  /// Encoded Rec. 601 luma per pixel, 0...255, row-major (sharpness).
  var lumaPlane: [Float]

  var pixelCount: Int { width * height }

  /// L* (0...100) at the centre of each histogram bin.
  static let lightnessOfBin: [Float] = (0..<histogramBins).map { i in
    Float(lightness(Double(i) / Double(histogramBins - 1)))
  }

  /// CIE f(t) for Lab (CIE 15:2004), tabulated at 4096 points over t in 0...1.
  static let labF: [Float] = (0..<4096).map { i in
    let t = Double(i) / 4095
    return Float(t > 216.0 / 24389 ? cbrt(t) : (24389.0 / 27 * t + 16) / 116)
  }

  /// CIE L* of a relative luminance in 0...1.
  static func lightness(_ y: Double) -> Double {
    y > 216.0 / 24389 ? 116 * cbrt(y) - 16 : 24389.0 / 27 * y
  }

  /// Touches the tables so the first analysis does not build them.
  static func prewarm() {
    _ = lightnessOfBin.count + labF.count + SRGBTables.decode8.count
    _ = ExposureMeasurement.logOfBin.count + PassContext.bandCenters.count
  }

  /// Measures `image`, an 8-bit RGB analysis copy, on up to `threads` threads (all cores when
  /// nil); the result does not depend on the count.
  init(_ image: Image, threads: Int? = nil) {
    precondition(image.format == .rgb8, "analysis copies are 8-bit RGB")
    let w = image.width, h = image.height
    width = w
    height = h
    let bins = Self.histogramBins
    let bands = ParallelBands.bandRanges(rows: h, count: Self.bandCount)
    let bandTotal = bands.count
    // The bands are run in groups, one per thread, each group's bands in order into one set of
    // counts: counts add up the same in any grouping, and the float sums stay one per band.
    // (Counts per band took 8 × 64 KB of histograms, zeroed and added up on every call.)
    let groups = ParallelBands.bandRanges(
      rows: bandTotal, count: min(bandTotal, max(1, threads ?? ParallelBands.defaultThreadCount)))
    var partials = [BandSums](repeating: BandSums(), count: bandTotal)
    var histograms = [UInt32](repeating: 0, count: groups.count * bins)
    // Per group: 256 bins of the darkest channel, 256 of the brightest, then the unclipped
    // pixels' luminance bins of ``HighlightColor``.
    let slots = PassContext.countSlots
    var channelCounts = [UInt32](repeating: 0, count: groups.count * slots)
    let toXYZ = image.colorSpace.toXYZ.map(Float.init)
    let weights = image.colorSpace.lumaWeights
    // The two planes are left uninitialised: the bands cover every row, and the pass writes every
    // pixel of both (zero-filling their 1.5 MB first was most of the ~2 % of the analysis's perf
    // samples spent in memset).
    let pixels = w * h
    var lPlane: [Float] = []
    let yPlane = [Float](unsafeUninitializedCapacity: pixels) { yBuffer, yCount in
      lPlane = [Float](unsafeUninitializedCapacity: pixels) { lBuffer, lCount in
        image.withUnsafeBytes { raw in
          guard let base = raw.baseAddress else { return }
          let src = SendableRawPointer(base)
          partials.withUnsafeMutableBufferPointer { partialBuffer in
            histograms.withUnsafeMutableBufferPointer { histBuffer in
              channelCounts.withUnsafeMutableBufferPointer { channelBuffer in
                guard let pb = partialBuffer.baseAddress, let hb = histBuffer.baseAddress,
                  let fb = channelBuffer.baseAddress, let yb = yBuffer.baseAddress,
                  let lb = lBuffer.baseAddress
                else { return }
                let pPtr = SendableRawPointer(UnsafeMutableRawPointer(pb))
                let hPtr = SendableRawPointer(UnsafeMutableRawPointer(hb))
                let fPtr = SendableRawPointer(UnsafeMutableRawPointer(fb))
                let yPtr = SendableRawPointer(UnsafeMutableRawPointer(yb))
                let lPtr = SendableRawPointer(UnsafeMutableRawPointer(lb))
                let context = PassContext(
                  width: w, height: h, toXYZ: toXYZ, weights: (weights.r, weights.g, weights.b))
                ParallelBands.forEach(
                  rows: groups.count, minimumBandHeight: 1, threads: threads
                ) { groupIndices in
                  for group in groupIndices {
                    for band in groups[group] {
                      let sums = context.run(
                        rows: bands[band], source: src.pointer.assumingMemoryBound(to: UInt8.self),
                        histogram: hPtr.pointer.assumingMemoryBound(to: UInt32.self) + group
                          * bins,
                        channelHistograms: fPtr.pointer.assumingMemoryBound(to: UInt32.self)
                          + group * slots,
                        luminance: yPtr.pointer.assumingMemoryBound(to: Float.self),
                        luma: lPtr.pointer.assumingMemoryBound(to: Float.self))
                      (pPtr.pointer.assumingMemoryBound(to: BandSums.self) + band).pointee = sums
                    }
                  }
                }
              }
            }
          }
        }
        lCount = pixels
      }
      yCount = pixels
    }
    var hist = [Int](repeating: 0, count: bins)
    for group in groups.indices {
      let offset = group * bins
      for i in 0..<bins { hist[i] += Int(histograms[offset + i]) }
    }
    var floors = [Int](repeating: 0, count: 256)
    var ceilings = [Int](repeating: 0, count: 256)
    var highlights = [Int](repeating: 0, count: HighlightColor.bins)
    for group in groups.indices {
      for i in 0..<256 {
        floors[i] += Int(channelCounts[group * slots + i])
        ceilings[i] += Int(channelCounts[group * slots + 256 + i])
      }
      for i in 0..<HighlightColor.bins {
        highlights[i] += Int(channelCounts[group * slots + 512 + i])
      }
    }
    floorHistogram = floors
    ceilingHistogram = ceilings
    highlightCounts = highlights
    var total = BandSums()
    for p in partials { total.add(p) }
    histogram = hist
    totals = total
    luminancePlane = yPlane
    lumaPlane = lPlane
  }
}

/// The statistics pass for `retouch-bench ai`, which times it beside a C reference of the same
/// pass (same tables, same order of sums) on one thread.
@_spi(Benchmarks)
public enum StatisticsPassBenchmark {
  /// The pass's tables and constants, in the order the C reference takes them.
  public struct Tables: Sendable {
    public let decode: [Float]
    public let labF: [Float]
    public let bandCenters: [Float]
    public let toXYZ: [Float]
    public let weights: (Float, Float, Float)
    public let histogramBins: Int
    public let highlightBins: Int
    public let bandCount: Int
  }

  /// The tables the pass uses on `image` (its colour space sets the XYZ matrix and weights).
  public static func tables(for image: Image) -> Tables {
    let w = image.colorSpace.lumaWeights
    return Tables(
      decode: SRGBTables.decode8, labF: PixelStatistics.labF,
      bandCenters: PassContext.bandCenters, toXYZ: image.colorSpace.toXYZ.map(Float.init),
      weights: (w.r, w.g, w.b), histogramBins: PixelStatistics.histogramBins,
      highlightBins: HighlightColor.bins, bandCount: PixelStatistics.bandCount)
  }

  /// Runs the pass on `image` on one thread (what the bench times).
  public static func run(_ image: Image) {
    _ = PixelStatistics(image, threads: 1)
  }

  /// The pass on `image` on one thread, as the C reference's results are compared with it
  /// (``digest(of:)``).
  public static func digest(_ image: Image) -> [UInt64] {
    digest(of: PixelStatistics(image, threads: 1))
  }

  /// Everything a pass measured, in the order of
  /// ``digest(counts:sums:histogram:channelCounts:luminance:luma:)``.
  static func digest(of s: PixelStatistics) -> [UInt64] {
    let t = s.totals
    var channelCounts = s.floorHistogram + s.ceilingHistogram
    channelCounts += s.highlightCounts
    return digest(
      counts: [
        t.shadowClipped, t.highlightClipped, t.clippedColour, t.trustedCount, t.edgeCount,
        t.chromaCount,
      ],
      sums: [
        t.shadesOfGray.x, t.shadesOfGray.y, t.shadesOfGray.z, t.grayEdge.x, t.grayEdge.y,
        t.grayEdge.z, t.chromaSum, t.lumaSum,
      ] + t.hueWeights,
      histogram: s.histogram, channelCounts: channelCounts, luminance: s.luminancePlane,
      luma: s.lumaPlane)
  }

  /// The results of a pass as one list: the counts, the sums' bit patterns, then a hash of each
  /// histogram and plane.
  public static func digest(
    counts: [Int], sums: [Double], histogram: [Int], channelCounts: [Int], luminance: [Float],
    luma: [Float]
  ) -> [UInt64] {
    func hash<S: Sequence>(_ values: S) -> UInt64 where S.Element == UInt64 {
      var h: UInt64 = 0xcbf2_9ce4_8422_2325
      for v in values { h = (h ^ v) &* 0x0000_0100_0000_01b3 }
      return h
    }
    return counts.map { UInt64(bitPattern: Int64($0)) } + sums.map(\.bitPattern) + [
      hash(histogram.lazy.map { UInt64(bitPattern: Int64($0)) }),
      hash(channelCounts.lazy.map { UInt64(bitPattern: Int64($0)) }),
      hash(luminance.lazy.map { UInt64($0.bitPattern) }),
      hash(luma.lazy.map { UInt64($0.bitPattern) }),
    ]
  }
}

/// Sums of the fused pass: one per band (a plain struct, so bands never share memory), then
/// the total.
struct BandSums {
  /// Pixels with every channel at or below 2/255.
  var shadowClipped = 0
  /// Pixels with a channel at or above 253/255.
  var highlightClipped = 0
  /// Pixels with exactly two channels at or above 253/255 and the third under 200/255: a
  /// bright colour pushed through white.
  var clippedColour = 0
  /// Pixels trusted for the illuminant estimate (not clipped, not very dark, not very saturated).
  var trustedCount = 0
  /// Σ c⁶ over trusted pixels, per linear channel.
  var shadesOfGray = SIMD3<Double>(repeating: 0)
  /// Σ |∇c|² over trusted neighbouring pixels, per linear channel.
  var grayEdge = SIMD3<Double>(repeating: 0)
  /// Number of gradient samples in ``grayEdge``.
  var edgeCount = 0
  /// Σ C*ab over the sampled pixels (every fourth pixel of every fourth row).
  var chromaSum = 0.0
  /// Number of pixels in ``chromaSum`` and the hue sums.
  var chromaCount = 0
  /// Σ of the colour-mixer band weights of colourful pixels, one per band (red … magenta).
  var hue0 = 0.0, hue1 = 0.0, hue2 = 0.0, hue3 = 0.0
  var hue4 = 0.0, hue5 = 0.0, hue6 = 0.0, hue7 = 0.0
  /// Σ of encoded Rec. 601 luma, 0...255 (the grain measure's reference brightness).
  var lumaSum = 0.0

  /// The eight hue-band sums in band order.
  var hueWeights: [Double] { [hue0, hue1, hue2, hue3, hue4, hue5, hue6, hue7] }

  /// Each hue band's share of the photo's colour (``ColorAnalysis/hueShares``); all 0 when no
  /// pixel is colourful.
  var hueShares: [Double] {
    let weights = hueWeights
    let total = weights.reduce(0, +)
    return total > 0 ? weights.map { $0 / total } : [Double](repeating: 0, count: 8)
  }

  /// Mean C*ab of the sampled pixels (``ColorAnalysis/meanChroma``).
  var meanChroma: Double { chromaSum / Double(max(1, chromaCount)) }

  mutating func add(_ o: BandSums) {
    shadowClipped += o.shadowClipped
    highlightClipped += o.highlightClipped
    clippedColour += o.clippedColour
    trustedCount += o.trustedCount
    shadesOfGray += o.shadesOfGray
    grayEdge += o.grayEdge
    edgeCount += o.edgeCount
    chromaSum += o.chromaSum
    chromaCount += o.chromaCount
    hue0 += o.hue0
    hue1 += o.hue1
    hue2 += o.hue2
    hue3 += o.hue3
    hue4 += o.hue4
    hue5 += o.hue5
    hue6 += o.hue6
    hue7 += o.hue7
    lumaSum += o.lumaSum
  }

  mutating func addHue(band: Int, _ w: Double) {
    switch band {
    case 0: hue0 += w
    case 1: hue1 += w
    case 2: hue2 += w
    case 3: hue3 += w
    case 4: hue4 += w
    case 5: hue5 += w
    case 6: hue6 += w
    default: hue7 += w
    }
  }
}

/// The per-pixel work of the fused pass.
struct PassContext: Sendable {
  let width: Int
  let height: Int
  let toXYZ: [Float]
  let weights: (Float, Float, Float)

  /// Encoded code value at or above which a channel counts as blown (highlight clipping).
  static let highlightCode: UInt8 = 253
  /// Encoded code value at or below which a channel counts as crushed (shadow clipping).
  static let shadowCode: UInt8 = 2
  /// The third channel of a pixel with two clipped channels (``BandSums/clippedColour``) is
  /// under this code.
  static let clippedColourThirdCode: UInt8 = 200
  /// Pixels with a channel at or above this code are left out of the illuminant estimate
  /// (clipped channels lie about the light's colour).
  static let trustedMaxCode = PixelStatistics.clippedCode
  /// Pixels darker than this linear luminance are left out (L* ≈ 7: noise and crushed blacks).
  static let trustedMinLuminance: Float = 0.008
  /// Pixels whose linear saturation (max − min) / max exceeds this are left out: strongly
  /// coloured objects say more about the object than the light. A 0.3 warm cast on a grey
  /// (gains 1.3 / 0.77) is 0.41, tungsten light about 0.6, so casts stay in.
  static let trustedMaxSaturation: Float = 0.75

  /// Counts per band in `channelHistograms`: the darkest channel's 256 codes, the brightest
  /// channel's 256, then ``HighlightColor/bins`` luminance bins of the unclipped pixels.
  static let countSlots = 512 + HighlightColor.bins

  /// The pass over `rows`. `channelHistograms` holds ``countSlots`` bins: the darkest channel's
  /// 256 codes, the brightest channel's, then the unclipped pixels' luminance bins.
  ///
  /// Cost: ~4 ms of one core's time on a 512 × 384 copy (a quiet host; up to 6 ms on a busy
  /// one). Tried for speed and not kept (no gain, or slower, in alternated single-thread runs):
  /// the hue shares summed through a pointer indexed by band instead of a `switch`, the band
  /// counted without branches, the HSV hue selected without branches, and the sampled pixels
  /// eight at a time in `SIMD8` lanes with per-lane table look-ups (1.45× slower). Earlier,
  /// also without a measurable change: branch-free trusted-pixel sums, counting the histogram
  /// after each row, a c⁶ table, per-channel scalar sums instead of `SIMD3<Double>`.
  ///
  /// Stays in Swift: `retouch-bench ai` times it beside a C reference of the same pass (same
  /// tables, same sums in the same order, checked bit for bit each run), both on one thread,
  /// and Swift takes 1.26–1.28× the C time (medians 4.3–5.5 against 3.4–4.3 ms in three runs
  /// of 60, AMD EPYC, AVX2), under the 1.5× from which a kernel may move to C. The reference
  /// also showed where the time went while the chroma and hue were sampled on a quarter of the
  /// pixels (timed then with a hash of both planes added to each run): a third of it there (the
  /// C pass without them 2.9 of 4.2 ms; now a sixteenth is sampled), a sixth in the trusted
  /// pixels' illuminant sums, little in the histogram counts.
  func run(
    rows: Range<Int>, source: UnsafePointer<UInt8>, histogram: UnsafeMutablePointer<UInt32>,
    channelHistograms: UnsafeMutablePointer<UInt32>, luminance: UnsafeMutablePointer<Float>,
    luma: UnsafeMutablePointer<Float>
  ) -> BandSums {
    var s = BandSums()
    let decode = SRGBTables.decode8
    let labF = PixelStatistics.labF
    let binScale = Float(PixelStatistics.histogramBins - 1)
    let maxBin = PixelStatistics.histogramBins - 1
    let highlightScale = HighlightColor.binScale
    let (wr, wg, wb) = weights
    let centers = Self.bandCenters
    decode.withUnsafeBufferPointer { dec in
      labF.withUnsafeBufferPointer { fTable in
        centers.withUnsafeBufferPointer { centers in
          for y in rows {
            let row = source + y * width * 3
            let rowStart = y * width
            let next = y + 1 < height ? row + width * 3 : nil
            var rowSoG = SIMD3<Double>(repeating: 0)
            var rowEdge = SIMD3<Double>(repeating: 0)
            var rowChroma = 0.0
            var sampled = 0
            var rowLuma = 0.0
            let sampleRow = y & 3 == 0
            for x in 0..<width {
              let p = row + x &* 3
              let r8 = p[0], g8 = p[1], b8 = p[2]
              let lr = dec[Int(r8)], lg = dec[Int(g8)], lb = dec[Int(b8)]
              let yLin = wr * lr + wg * lg + wb * lb
              let i = rowStart &+ x
              luminance[i] = yLin
              let l601 = 0.299 * Float(r8) + 0.587 * Float(g8) + 0.114 * Float(b8)
              luma[i] = l601
              rowLuma += Double(l601)
              let bin = Self.roundedIndex(yLin * binScale, max: maxBin)
              histogram[bin] &+= 1
              let hi8 = max(r8, g8, b8), lo8 = min(r8, g8, b8)
              channelHistograms[Int(lo8)] &+= 1
              channelHistograms[256 &+ Int(hi8)] &+= 1
              if hi8 < Self.trustedMaxCode {
                channelHistograms[512 &+ HighlightColor.bin(yLin, scale: highlightScale)] &+= 1
              }
              if hi8 >= Self.highlightCode {
                s.highlightClipped &+= 1
                if lo8 < Self.clippedColourThirdCode {
                  let mid8 = r8 ^ g8 ^ b8 ^ hi8 ^ lo8
                  if mid8 >= Self.highlightCode { s.clippedColour &+= 1 }
                }
              }
              if hi8 <= Self.shadowCode { s.shadowClipped &+= 1 }

              // Illuminant: shades of gray and gray edge over trusted pixels.
              let mx = max(lr, lg, lb), mn = min(lr, lg, lb)
              let trusted =
                hi8 < Self.trustedMaxCode && yLin > Self.trustedMinLuminance
                && (mx - mn) <= Self.trustedMaxSaturation * mx
              if trusted {
                s.trustedCount &+= 1
                var v = SIMD3<Double>(Double(lr), Double(lg), Double(lb))
                let v2 = v * v
                v = v2 * v2 * v2
                rowSoG += v
                if x &+ 1 < width, let next {
                  let q = p + 3, d = next + x &* 3
                  let qMax = max(q[0], q[1], q[2]), dMax = max(d[0], d[1], d[2])
                  if qMax < Self.trustedMaxCode && dMax < Self.trustedMaxCode {
                    let dxr = dec[Int(q[0])] - lr, dxg = dec[Int(q[1])] - lg
                    let dxb = dec[Int(q[2])] - lb
                    let dyr = dec[Int(d[0])] - lr, dyg = dec[Int(d[1])] - lg
                    let dyb = dec[Int(d[2])] - lb
                    rowEdge += SIMD3(
                      Double(dxr * dxr + dyr * dyr), Double(dxg * dxg + dyg * dyg),
                      Double(dxb * dxb + dyb * dyb))
                    s.edgeCount &+= 1
                  }
                }
              }
            }
            // Chroma and hue shares on every fourth pixel of every fourth row (a sixteenth of the
            // pixels, 12 k of a 512 × 384 copy; their Lab and hue math is the costly part of the
            // pass), in a loop of their own: inside the per-pixel loop above, every pixel paid
            // for their branch and the loop ran ~9 % slower (single-thread CPU time, 2 × 200
            // alternating runs). A quarter of the pixels (every other of every other row) cost
            // a third of the pass; against this sixteenth it changed none of the harness's 345
            // `dev` cases by more than 0.05 ΔE2000 and 9 of 1,680 on 70 other photos (one by
            // 0.3), every family's share within 0.1 point.
            if sampleRow {
              sampledColour(
                row: row, y: y, tables: (dec, fTable, centers), luminance: luminance,
                chroma: &rowChroma, count: &sampled, sums: &s)
            }
            s.shadesOfGray += rowSoG
            s.grayEdge += rowEdge
            s.chromaSum += rowChroma
            s.chromaCount += sampled
            s.lumaSum += rowLuma
          }
        }
      }
    }
    return s
  }

  /// Chroma C*ab and the hue shares of every fourth pixel of one row (`row`, row `y` of the
  /// copy), added to `chroma`, `count` and the hue sums of `sums` in pixel order.
  ///
  /// `tables`: the sRGB decoding table, CIE f(t) at 4096 points, and ``bandCenters``.
  @inline(__always)
  private func sampledColour(
    row: UnsafePointer<UInt8>, y: Int,
    tables: (UnsafeBufferPointer<Float>, UnsafeBufferPointer<Float>, UnsafeBufferPointer<Float>),
    luminance: UnsafeMutablePointer<Float>, chroma: inout Double, count: inout Int,
    sums s: inout BandSums
  ) {
    let (dec, fTable, centers) = tables
    let m = toXYZ
    // D65 white of the XYZ matrices (Y = 1).
    let xn: Float = m[0] + m[1] + m[2]
    let zn: Float = m[6] + m[7] + m[8]
    // The X and Z rows as constants (not array reads in the loop).
    let (m0, m1, m2, m6, m7, m8) = (m[0], m[1], m[2], m[6], m[7], m[8])
    let rowStart = y * width
    for x in stride(from: 0, to: width, by: 4) {
      let p = row + x &* 3
      let r8 = p[0], g8 = p[1], b8 = p[2]
      let lr = dec[Int(r8)], lg = dec[Int(g8)], lb = dec[Int(b8)]
      // Chroma C*ab (CIE 1976) through the f(t) table.
      let X = m0 * lr + m1 * lg + m2 * lb
      let Z = m6 * lr + m7 * lg + m8 * lb
      let fx = fTable[Self.roundedIndex(X / xn * 4095, max: 4095)]
      let fy = fTable[Self.roundedIndex(luminance[rowStart &+ x] * 4095, max: 4095)]
      let fz = fTable[Self.roundedIndex(Z / zn * 4095, max: 4095)]
      let a = 500 * (fx - fy), bb = 200 * (fy - fz)
      chroma += Double((a * a + bb * bb).squareRoot())
      count &+= 1

      // Hue shares, split between the two mixer bands that bracket the HSV hue.
      let e8max = max(r8, g8, b8), e8min = min(r8, g8, b8)
      guard e8max > e8min else { continue }
      let c = Float(e8max - e8min) / 255
      let t = min(1, c / 0.15)
      let weight = t * t * (3 - 2 * t)
      let hue = Self.hue(r8, g8, b8, max: e8max, chroma: Int(e8max - e8min))
      let (band, lower, upper) = Self.bandIndex(hue, centers: centers)
      let u = (hue - lower) / (upper - lower)
      let wi = 0.5 + 0.5 * cosf(Float.pi * u)
      s.addHue(band: band, Double(weight * wi))
      s.addHue(band: (band + 1) & 7, Double(weight * (1 - wi)))
    }
  }

  /// `v` rounded to the nearest integer and clamped to `0...max` (`max` < 2²²), by the
  /// float-mantissa trick: no trapping conversion in the hot loop.
  @inline(__always)
  static func roundedIndex(_ v: Float, max: Int) -> Int {
    let clamped = Swift.min(Float(max), Swift.max(0, v))
    // 1.5 · 2²³: adding it leaves the rounded integer in the mantissa.
    let magic: Float = 12_582_912
    return Int((clamped + magic).bitPattern &- magic.bitPattern)
  }

  /// HSV hue in degrees (0..<360) of encoded 8-bit RGB.
  @inline(__always)
  static func hue(_ r: UInt8, _ g: UInt8, _ b: UInt8, max mx: UInt8, chroma c: Int) -> Float {
    let cf = Float(c)
    var h: Float
    if mx == r {
      h = Float(Int(g) - Int(b)) / cf
      if h < 0 { h += 6 }
    } else if mx == g {
      h = Float(Int(b) - Int(r)) / cf + 2
    } else {
      h = Float(Int(r) - Int(g)) / cf + 4
    }
    return min(h * 60, 359.999)
  }

  /// Centres of RetouchRender's colour-mixer bands (``ColorBand/centerHue``), ascending, with
  /// the first repeated at 360° to close the circle.
  static let bandCenters: [Float] = ColorBand.allCases.map { Float($0.centerHue) } + [360]

  /// The colour-mixer band whose centre is at or below `h`, and the two centres that bracket
  /// `h` — the split RetouchRender's mixer uses, so the shares say what each slider would move.
  @inline(__always)
  static func bandIndex(_ h: Float, centers: UnsafeBufferPointer<Float>) -> (Int, Float, Float) {
    var i = 0
    while i < 7 && h >= centers[i + 1] { i += 1 }
    return (i, centers[i], centers[i + 1])
  }
}
