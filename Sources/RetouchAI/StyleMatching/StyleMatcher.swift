// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchRender

/// Measures the tones of photos and makes the transform that gives one photo the tones and
/// colour balance of others (a reference, or the average of several).
///
/// Everything runs in CIELAB (D65) on display-encoded pixels of the photo's working space. The
/// tone part is histogram matching of L*: a monotone curve through the points where the target's
/// L* percentiles map to the reference's, smoothed and limited. The colour part moves the target's
/// near-neutral shadows and highlights towards the reference's grade, and leaves midtones and skin
/// hues alone (see ``StyleTransform``). A value type without state: safe anywhere.
public enum StyleMatcher {
  /// Pixels below this chroma C*ab count as near-neutral for ``ToneStatistics/balance``.
  public static let neutralChroma = 12.0
  /// Tonal ranges with fewer near-neutral pixels than this share get no colour shift.
  public static let minimumBalanceWeight = 0.02
  /// The largest colour shift per range, as a length in the a*b* plane.
  public static let maximumColorShift = 8.0
  /// The largest change the tone curve makes to any L*.
  public static let maximumCurveDeviation = 30.0
  /// The chroma factor's range.
  public static let saturationRange = 0.8...1.25
  /// The long edge, in pixels, of the copy the statistics are measured on.
  public static let analysisLongEdge = 512

  // MARK: Statistics

  /// The tone levels and colour balance of `image`, measured on a copy of at most
  /// ``analysisLongEdge`` pixels on the long edge (box-filtered).
  ///
  /// 8- or 16-bit, with or without alpha (pixels with alpha below one half are skipped; a fully
  /// transparent image measures as mid grey). Cost: a resize plus ≈ 260 000 CIELAB conversions,
  /// a few ms. Deterministic.
  public static func statistics(for image: Image) -> ToneStatistics {
    let small =
      image.size.longEdge > analysisLongEdge
      ? image.resized(toFitLongEdge: analysisLongEdge, filter: .box) : image
    let converter = LabConverter(colorSpace: small.colorSpace)
    let bins = 1000
    var histogram = [Int](repeating: 0, count: bins)
    var balanceSums = [SIMD3<Double>](repeating: .zero, count: 2)  // a, b, count
    var chromaSum = 0.0
    var count = 0
    let channels = small.format.channelCount
    let eight = small.format.bitDepth == 8
    let decode = eight ? SRGBTables.decode8 : SRGBTables.decode16
    let alphaHalf = small.format.maxValue / 2
    small.withUnsafeBytes { raw in
      for i in 0..<small.pixelCount {
        let o = i * channels
        let c: (Int, Int, Int, Int)
        if eight {
          c = (Int(raw[o]), Int(raw[o + 1]), Int(raw[o + 2]), channels == 4 ? Int(raw[o + 3]) : 255)
        } else {
          let p = raw.baseAddress.unsafelyUnwrapped.assumingMemoryBound(to: UInt16.self) + o
          c = (Int(p[0]), Int(p[1]), Int(p[2]), channels == 4 ? Int(p[3]) : 65535)
        }
        if c.3 < alphaHalf { continue }
        let lab = converter.lab(linear: decode[c.0], decode[c.1], decode[c.2])
        let l = Double(min(max(lab.x, 0), 100))
        histogram[min(Int(l * Double(bins) / 100), bins - 1)] += 1
        let chroma = Double((lab.y * lab.y + lab.z * lab.z).squareRoot())
        chromaSum += chroma
        count += 1
        if chroma < neutralChroma, l < 35 || l > 70 {
          balanceSums[l < 35 ? 0 : 1] += SIMD3(Double(lab.y), Double(lab.z), 1)
        }
      }
    }
    guard count > 0 else {
      return ToneStatistics(
        lightnessPercentiles: ToneStatistics.percentileLevels.map { _ in 50 },
        balance: (0..<2).map { _ in .init(a: 0, b: 0, weight: 0) }, meanChroma: 0)
    }
    let percentiles = ToneStatistics.percentileLevels.map { level in
      percentile(level, of: histogram, total: count)
    }
    let balance = balanceSums.map { s in
      s.z > 0
        ? ToneStatistics.ColorBalance(a: s.x / s.z, b: s.y / s.z, weight: s.z / Double(count))
        : ToneStatistics.ColorBalance(a: 0, b: 0, weight: 0)
    }
    return ToneStatistics(
      lightnessPercentiles: percentiles, balance: balance, meanChroma: chromaSum / Double(count))
  }

  /// L* at `level` % of a histogram of L* in `histogram.count` equal bins over 0...100, with
  /// linear interpolation inside the bin where the cumulative count crosses the level.
  static func percentile(_ level: Double, of histogram: [Int], total: Int) -> Double {
    let target = level / 100 * Double(total)
    let width = 100 / Double(histogram.count)
    var below = 0
    for (i, n) in histogram.enumerated() where n > 0 {
      if Double(below + n) >= target {
        let inside = max(0, min(1, (target - Double(below)) / Double(n)))
        return (Double(i) + inside) * width
      }
      below += n
    }
    return 100
  }

  // MARK: Averaging

  /// The average of several photos' statistics, each photo weighing the same (colour balances
  /// weighted by how many neutral pixels each photo has in the range).
  ///
  /// Independent of the order of `statistics`, bit for bit: every sum adds its terms in sorted
  /// order. One photo's average is its own statistics; an empty list gives a mid-grey photo's.
  public static func average(of statistics: [ToneStatistics]) -> ToneStatistics {
    guard !statistics.isEmpty else {
      return ToneStatistics(
        lightnessPercentiles: ToneStatistics.percentileLevels.map { _ in 50 },
        balance: (0..<2).map { _ in .init(a: 0, b: 0, weight: 0) }, meanChroma: 0)
    }
    if statistics.count == 1 { return statistics[0] }
    let n = Double(statistics.count)
    func sortedSum(_ values: [Double]) -> Double { values.sorted().reduce(0, +) }
    let levels = ToneStatistics.percentileLevels.indices.map { i in
      sortedSum(statistics.map { $0.lightnessPercentiles[safe: i] ?? 50 }) / n
    }
    // Sorting may break monotonicity by an ulp nowhere (each level averages its own column and
    // every column is ordered the same way), but keep it non-decreasing for certain.
    var percentiles = levels
    for i in percentiles.indices.dropFirst() {
      percentiles[i] = max(percentiles[i], percentiles[i - 1])
    }
    let balance = (0..<2).map { r -> ToneStatistics.ColorBalance in
      let parts = statistics.map { $0.balance[safe: r] ?? .init(a: 0, b: 0, weight: 0) }
      let weight = sortedSum(parts.map(\.weight))
      guard weight > 0 else { return .init(a: 0, b: 0, weight: 0) }
      return .init(
        a: sortedSum(parts.map { $0.a * $0.weight }) / weight,
        b: sortedSum(parts.map { $0.b * $0.weight }) / weight, weight: weight / n)
    }
    return ToneStatistics(
      lightnessPercentiles: percentiles, balance: balance,
      meanChroma: sortedSum(statistics.map(\.meanChroma)) / n)
  }

  // MARK: Transform

  /// The transform that gives a photo with statistics `target` the tones and colour balance of
  /// `reference`.
  ///
  /// - Tone: knots (target percentile → reference percentile) with (0, 0) and (100, 100),
  ///   knots closer than 1 L* to the previous one dropped, joined by a monotone cubic
  ///   (Fritsch–Carlson), tabulated every 0.1 L*, each output kept within
  ///   ``maximumCurveDeviation`` of its input, then smoothed by a Gaussian of σ = 3 L* (which keeps
  ///   it monotone) and sampled at whole L*.
  /// - Colour: in the shadows and in the highlights, the difference of the neutral balances when both photos have at least
  ///   ``minimumBalanceWeight`` of neutral pixels there, capped at ``maximumColorShift``.
  /// - Chroma: the ratio of mean chromas, clamped to ``saturationRange`` (1 when the target is
  ///   nearly grey, mean C* below 3).
  ///
  /// Matching a photo to its own statistics gives the identity (not ``StyleTransform/isMeaningful``).
  public static func transform(
    for target: ToneStatistics, matching reference: ToneStatistics
  ) -> StyleTransform {
    let curve = toneCurve(from: target.lightnessPercentiles, to: reference.lightnessPercentiles)
    let shifts = (0..<2).map { r -> [Double] in
      guard let t = target.balance[safe: r], let s = reference.balance[safe: r],
        t.weight >= minimumBalanceWeight, s.weight >= minimumBalanceWeight
      else { return [0, 0] }
      var da = s.a - t.a, db = s.b - t.b
      let length = hypot(da, db)
      if length > maximumColorShift {
        da *= maximumColorShift / length
        db *= maximumColorShift / length
      }
      return [da, db]
    }
    let saturation =
      target.meanChroma < 3 || reference.meanChroma < 0.5
      ? 1
      : min(
        max(reference.meanChroma / target.meanChroma, saturationRange.lowerBound),
        saturationRange.upperBound)
    return StyleTransform(curve: curve, colorShifts: shifts, saturation: saturation)
  }

  /// The smoothed, limited L* curve (101 values) through the percentile pairs.
  static func toneCurve(from source: [Double], to destination: [Double]) -> [Double] {
    if source == destination { return StyleTransform.identity.curve }
    var xs: [Double] = [0], ys: [Double] = [0]
    for (x, y) in zip(source, destination) where x.isFinite && y.isFinite {
      let x = min(max(x, 0), 100), y = min(max(y, ys.last ?? 0), 100)
      guard x - (xs.last ?? 0) >= 1, 100 - x >= 1 else { continue }
      xs.append(x)
      ys.append(y)
    }
    xs.append(100)
    ys.append(max(100, ys.last ?? 100))
    let spline = MonotoneCubic(xs: xs, ys: ys)
    let fine = (0...1000).map { i -> Double in
      let x = Double(i) / 10
      return min(max(spline.value(at: x), x - maximumCurveDeviation), x + maximumCurveDeviation)
    }
    // Gaussian smoothing with the ends held (edge values repeated), so the result stays
    // non-decreasing; σ = 3 L* = 30 fine steps, cut at 3σ.
    let sigma = 30.0
    let radius = 90
    let kernel = (-radius...radius).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
    let kernelSum = kernel.reduce(0, +)
    var curve = (0...100).map { l -> Double in
      let centre = l * 10
      var sum = 0.0
      for (k, w) in kernel.enumerated() {
        sum += w * fine[min(max(centre + k - radius, 0), 1000)]
      }
      return min(max(sum / kernelSum, 0), 100)
    }
    for i in curve.indices.dropFirst() { curve[i] = max(curve[i], curve[i - 1]) }
    return curve
  }
}

/// A monotone cubic through points with increasing x and non-decreasing y (Fritsch & Carlson,
/// "Monotone Piecewise Cubic Interpolation", SIAM J. Numer. Anal. 17(2), 1980).
struct MonotoneCubic {
  let xs: [Double], ys: [Double], slopes: [Double]

  init(xs: [Double], ys: [Double]) {
    self.xs = xs
    self.ys = ys
    let n = xs.count
    var secants: [Double] = []
    for i in 0..<(n - 1) {
      let dy: Double = ys[i + 1] - ys[i]
      let dx: Double = xs[i + 1] - xs[i]
      secants.append(dy / dx)
    }
    var m = [Double](repeating: 0, count: n)
    m[0] = secants.first ?? 0
    m[n - 1] = secants.last ?? 0
    for i in 1..<max(1, n - 1) {
      m[i] = secants[i - 1] * secants[i] <= 0 ? 0 : (secants[i - 1] + secants[i]) / 2
    }
    for i in 0..<(n - 1) {
      if secants[i] == 0 {
        m[i] = 0
        m[i + 1] = 0
        continue
      }
      let alpha: Double = m[i] / secants[i]
      let beta: Double = m[i + 1] / secants[i]
      let s: Double = alpha * alpha + beta * beta
      if s > 9 {
        let tau: Double = 3 / s.squareRoot()
        m[i] = tau * alpha * secants[i]
        m[i + 1] = tau * beta * secants[i]
      }
    }
    slopes = m
  }

  func value(at x: Double) -> Double {
    guard x > xs[0] else { return ys[0] }
    guard x < xs[xs.count - 1] else { return ys[ys.count - 1] }
    var i = 0
    while xs[i + 1] < x { i += 1 }
    let h = xs[i + 1] - xs[i]
    let t = (x - xs[i]) / h
    let t2 = t * t, t3 = t2 * t
    return (2 * t3 - 3 * t2 + 1) * ys[i] + (t3 - 2 * t2 + t) * h * slopes[i]
      + (-2 * t3 + 3 * t2) * ys[i + 1] + (t3 - t2) * h * slopes[i + 1]
  }
}

extension Array {
  /// The element at `index`, or nil outside the array (for decoded values of any length).
  fileprivate subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
