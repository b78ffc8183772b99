// SPDX-License-Identifier: Apache-2.0

/// The self-guided filter of He, Sun and Tang ("Guided Image Filtering", ECCV 2010) on a small
/// Float plane, with box windows truncated at the borders (each mean divides by the number of
/// pixels the window covers).
///
/// `a = σ²/(σ² + ε)`, `b = μ(1 − a)` per window, output `mean(a)·I + mean(b)`. Values are centred
/// on the mean of the first row first, so that `E[I²] − E[I]²` loses no precision in Float (the
/// output does not depend on the centre but for rounding; the first row is used instead of the
/// whole plane's mean so that the filter can run while rows arrive, see ``Stream``). Cost: 4 box
/// filters of 2 passes each, O(1) per pixel for any radius; about 1.3 ms for 364×273 on one core
/// (release, shared 2-core AVX-512 VM).
enum GuidedFilter {
  /// The whole plane at once: ``Stream`` fed every row, so a filter run while the rows arrive
  /// gives the same output bit for bit.
  static func smooth(
    _ input: UnsafePointer<Float>, into output: UnsafeMutablePointer<Float>,
    width w: Int, height h: Int, radius r: Int, epsilon: Float
  ) {
    let stream = Stream(width: w, height: h, radius: r, epsilon: epsilon)
    stream.advance(input: input, availableRows: h, output: output)
  }

  /// The filter run on rows as they arrive, top to bottom: output row `y` needs input rows up
  /// to `y + 2r` (its window of `a` and `b`, each from a window of the input), so a caller that
  /// measures a photo while it is decoded can use the first rows of the result long before the
  /// last input row exists. Every step does the same arithmetic in the same order as a whole-
  /// plane pass would. Not thread-safe; the output rows written are final.
  final class Stream {
    let width: Int
    let height: Int
    let radius: Int
    let epsilon: Float
    /// Output rows written so far.
    private(set) var finishedRows = 0
    /// Input rows taken (centred and box-filtered along the row).
    private var takenRows = 0
    /// Rows of `a` and `b` made (box-filtered along the row).
    private var coefficientRows = 0
    private var centre: Float = 0
    /// Planes of `width × height`: the centred input, the row means of it and of its square,
    /// the row means of `a` and of `b`.
    private let centred, rowMeanI, rowMeanII, rowMeanA, rowMeanB: UnsafeMutablePointer<Float>
    /// Running column sums of the two vertical passes, and two scratch rows.
    private let sumI, sumII, sumA, sumB, rowA, rowB: UnsafeMutablePointer<Float>
    /// Prefix sums of one row (`width + 1`).
    private let prefix: UnsafeMutablePointer<Float>
    private let block: UnsafeMutablePointer<Float>

    init(width: Int, height: Int, radius: Int, epsilon: Float) {
      precondition(width > 0 && height > 0 && radius >= 0, "bad guided filter size")
      self.width = width
      self.height = height
      self.radius = radius
      self.epsilon = epsilon
      let n = width * height
      block = .allocate(capacity: 5 * n + 6 * width + width + 1)
      centred = block
      rowMeanI = block + n
      rowMeanII = block + 2 * n
      rowMeanA = block + 3 * n
      rowMeanB = block + 4 * n
      let rows = block + 5 * n
      (sumI, sumII, sumA, sumB, rowA, rowB) = (
        rows, rows + width, rows + 2 * width, rows + 3 * width, rows + 4 * width, rows + 5 * width
      )
      prefix = rows + 6 * width
      (rows).initialize(repeating: 0, count: 4 * width)
    }

    deinit { block.deallocate() }

    /// How far below an output row the input it needs reaches: row `y` is written once input
    /// rows through `y + lookahead` (or all rows) are given.
    static func lookahead(radius: Int) -> Int { 2 * radius }

    /// Takes input rows `0..<availableRows` (row-major, `width` apart; rows given before must
    /// not have changed) and writes every output row they determine to `output`.
    func advance(
      input: UnsafePointer<Float>, availableRows: Int, output: UnsafeMutablePointer<Float>
    ) {
      let (w, h, r) = (width, height, radius)
      let available = min(availableRows, h)
      while takenRows < available {
        let y = takenRows
        let s = input + y * w
        if y == 0 {
          var sum: Double = 0
          for x in 0..<w { sum += Double(s[x]) }
          centre = Float(sum / Double(w))
        }
        let c = centred + y * w
        for x in 0..<w { c[x] = s[x] - centre }
        rowBox(c, into: rowMeanI + y * w)
        for x in 0..<w { rowA[x] = c[x] * c[x] }
        rowBox(rowA, into: rowMeanII + y * w)
        takenRows += 1
      }
      // Vertical means of I and I², then a and b, as far as the input reaches.
      while coefficientRows < h && takenRows >= min(coefficientRows + r + 1, h) {
        let y = coefficientRows
        let inv = slide(sumI, sumII, rowMeanI, rowMeanII, to: y)
        for x in 0..<w {
          let m = sumI[x] * inv
          let variance = max(sumII[x] * inv - m * m, 0)
          let a = variance / (variance + epsilon)
          rowA[x] = a
          rowB[x] = m - a * m
        }
        rowBox(rowA, into: rowMeanA + y * w)
        rowBox(rowB, into: rowMeanB + y * w)
        coefficientRows += 1
      }
      // Vertical means of a and b, and the output.
      while finishedRows < h && coefficientRows >= min(finishedRows + r + 1, h) {
        let y = finishedRows
        let inv = slide(sumA, sumB, rowMeanA, rowMeanB, to: y)
        let c = centred + y * w
        let o = output + y * w
        for x in 0..<w { o[x] = (sumA[x] * inv) * c[x] + sumB[x] * inv + centre }
        finishedRows += 1
      }
    }

    /// Moves two running column sums of row planes `p`, `q` to the window of row `y` (rows
    /// `y − r … y + r` clipped; called for y = 0, 1, 2, … in turn) and returns 1 / its height.
    private func slide(
      _ sp: UnsafeMutablePointer<Float>, _ sq: UnsafeMutablePointer<Float>,
      _ p: UnsafePointer<Float>, _ q: UnsafePointer<Float>, to y: Int
    ) -> Float {
      let (w, h, r) = (width, height, radius)
      if y == 0 {
        for k in 0..<min(r, h) {
          for x in 0..<w { sp[x] += p[k * w + x] }
          for x in 0..<w { sq[x] += q[k * w + x] }
        }
      }
      if y + r < h {
        let k = (y + r) * w
        for x in 0..<w { sp[x] += p[k + x] }
        for x in 0..<w { sq[x] += q[k + x] }
      }
      if y - r - 1 >= 0 {
        let k = (y - r - 1) * w
        for x in 0..<w { sp[x] -= p[k + x] }
        for x in 0..<w { sq[x] -= q[k + x] }
      }
      return 1 / Float(min(y + r + 1, h) - max(y - r, 0))
    }

    /// Box mean of one row with windows truncated at its ends.
    private func rowBox(_ s: UnsafePointer<Float>, into d: UnsafeMutablePointer<Float>) {
      let (w, r) = (width, radius)
      prefix[0] = 0
      for x in 0..<w { prefix[x + 1] = prefix[x] + s[x] }
      for x in 0..<w {
        let lo = max(x - r, 0)
        let hi = min(x + r + 1, w)
        d[x] = (prefix[hi] - prefix[lo]) / Float(hi - lo)
      }
    }
  }

  /// Scalar reference: explicit windows in Double.
  static func smoothReference(
    _ input: [Float], width w: Int, height h: Int, radius r: Int,
    epsilon: Double
  ) -> [Float] {
    func boxRef(_ p: [Double]) -> [Double] {
      var out = [Double](repeating: 0, count: w * h)
      for y in 0..<h {
        for x in 0..<w {
          var s = 0.0
          var c = 0
          for yy in max(y - r, 0)..<min(y + r + 1, h) {
            for xx in max(x - r, 0)..<min(x + r + 1, w) {
              s += p[yy * w + xx]
              c += 1
            }
          }
          out[y * w + x] = s / Double(c)
        }
      }
      return out
    }
    let i = input.map(Double.init)
    let mI = boxRef(i)
    let mII = boxRef(i.map { $0 * $0 })
    var a = [Double](repeating: 0, count: w * h)
    var b = a
    for k in 0..<(w * h) {
      let v = max(mII[k] - mI[k] * mI[k], 0)
      a[k] = v / (v + epsilon)
      b[k] = mI[k] * (1 - a[k])
    }
    let ma = boxRef(a)
    let mb = boxRef(b)
    return (0..<(w * h)).map { Float(ma[$0] * i[$0] + mb[$0]) }
  }
}

extension ToneGuide {
  /// Scalar reference for a whole layer: the guided filter with explicit Double windows over
  /// ``values(_:)`` of `.luminance` (O(r²) per pixel; for tests on small guides).
  public func layerReference(_ layer: Layer) -> [Float] {
    let p = ToneGuide.parameters(width: width, height: height)
    switch layer {
    case .luminance: return luminance
    case .tone:
      return GuidedFilter.smoothReference(
        luminance, width: width, height: height, radius: p.toneRadius,
        epsilon: Double(p.toneEpsilon))
    case .clarity:
      return GuidedFilter.smoothReference(
        luminance, width: width, height: height, radius: p.clarityRadius,
        epsilon: Double(p.clarityEpsilon))
    }
  }
}
