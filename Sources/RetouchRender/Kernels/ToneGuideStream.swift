// SPDX-License-Identifier: Apache-2.0

import RetouchCore

/// A ``ToneGuide`` measured from an 8-bit photo while it is decoded, top to bottom.
///
/// Each guide row is measured once the source rows it averages have arrived (before they are
/// sharpened: the guide is of the photo as decoded). With `streamsTone`, the tone base is also
/// filtered as the rows come (``GuidedFilter/Stream``), so the rows of the photo whose base is
/// known can be rendered while the rest is still decoding: the base of guide row `g` is known
/// once luminance rows through `g + 2r` are measured (`r` the tone radius, 4 % of the guide's
/// long edge), about 12 % of the photo's height below it. Either way the layers equal those of
/// ``ToneGuide/init(image:maxLongEdge:threads:)`` on the whole decoded photo, bit for bit.
///
/// Not thread-safe: one thread measures; rows of ``toneBase`` below ``toneRows`` are final and
/// may be read by others once the measuring thread has handed them over.
final class ToneGuideStream {
  let factor: Int
  let guideWidth: Int
  let guideHeight: Int
  let sourceWidth: Int
  let sourceHeight: Int
  let colorSpace: ColorSpace
  /// Guide rows measured so far.
  private(set) var measuredRows = 0
  /// `guideWidth × guideHeight` log2 luminance, rows below ``measuredRows`` set.
  private var luminance: [Float]
  /// The tone base, rows below ``toneRows`` set (with `streamsTone`).
  let toneBase: UnsafeMutablePointer<Float>
  private let tone: GuidedFilter.Stream?

  init(sourceWidth: Int, sourceHeight: Int, colorSpace: ColorSpace, streamsTone: Bool) {
    let f = ToneGuide.factor(width: sourceWidth, height: sourceHeight)
    factor = f
    guideWidth = (sourceWidth + f - 1) / f
    guideHeight = (sourceHeight + f - 1) / f
    self.sourceWidth = sourceWidth
    self.sourceHeight = sourceHeight
    self.colorSpace = colorSpace
    luminance = [Float](repeating: 0, count: guideWidth * guideHeight)
    toneBase = .allocate(capacity: guideWidth * guideHeight)
    let p = ToneGuide.parameters(width: guideWidth, height: guideHeight)
    tone =
      streamsTone
      ? GuidedFilter.Stream(
        width: guideWidth, height: guideHeight, radius: p.toneRadius, epsilon: p.toneEpsilon)
      : nil
  }

  deinit { toneBase.deallocate() }

  /// Rows of the tone base that are final (0 without `streamsTone`).
  var toneRows: Int { tone?.finishedRows ?? 0 }

  /// Whether every guide row is measured.
  var isComplete: Bool { measuredRows == guideHeight }

  /// How many source rows below a row must have arrived before the tone base under it is
  /// final: its two guide taps, the filter's window below them, and whole guide rows.
  static func lookaheadRows(sourceWidth: Int, sourceHeight: Int) -> Int {
    let f = ToneGuide.factor(width: sourceWidth, height: sourceHeight)
    let p = ToneGuide.parameters(
      width: (sourceWidth + f - 1) / f, height: (sourceHeight + f - 1) / f)
    return (GuidedFilter.Stream.lookahead(radius: p.toneRadius) + 3) * f
  }

  /// The guide rows that touch source rows `0 ..< bottom`.
  func guideRows(covering bottom: Int) -> Int {
    min(guideHeight, (min(bottom, sourceHeight) + factor - 1) / factor)
  }

  /// The source rows that must have arrived to measure every guide row touching rows
  /// `0 ..< bottom`.
  func sourceRowsNeeded(covering bottom: Int) -> Int {
    min(sourceHeight, guideRows(covering: bottom) * factor)
  }

  /// Measures the guide rows touching source rows `0 ..< bottom` that are not measured yet
  /// (their source rows, ``sourceRowsNeeded(covering:)``, must hold decoded 8-bit RGB, row `y`
  /// at slot `y % ringRows` of `pixels`), then filters the tone base as far as they reach.
  func measure(covering bottom: Int, of pixels: UnsafeRawPointer, ringRows: Int) {
    let rows = guideRows(covering: bottom)
    guard rows > measuredRows else { return }
    luminance.withUnsafeMutableBufferPointer { lum in
      ToneGuide.downscaledLog2Luminance(
        rows: measuredRows..<rows, of: pixels, width: sourceWidth, height: sourceHeight,
        format: .rgb8, colorSpace: colorSpace, factor: factor, into: lum.baseAddress!,
        threads: 1, ringRows: ringRows)
      tone?.advance(input: lum.baseAddress!, availableRows: rows, output: toneBase)
    }
    measuredRows = rows
  }

  /// The whole guide, once every row is measured (both layers filtered again, as
  /// ``ToneGuide/init(log2Luminance:width:height:factor:sourceWidth:sourceHeight:threads:)``
  /// does).
  func guide(threads: Int?) -> ToneGuide {
    precondition(isComplete, "the guide is not measured yet")
    return ToneGuide(
      log2Luminance: luminance, width: guideWidth, height: guideHeight, factor: factor,
      sourceWidth: sourceWidth, sourceHeight: sourceHeight, threads: threads)
  }

  /// A guide of this shape without layers, for a sampler of fields made from ``toneBase``.
  var shape: ToneGuide {
    ToneGuide(
      shapeWidth: guideWidth, height: guideHeight, factor: factor, sourceWidth: sourceWidth,
      sourceHeight: sourceHeight)
  }
}
