// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchRender

/// Contrast-normalised detail: `log(var(∇²I) / var(I))` of the 8-bit Rec. 601 luma of the
/// analysis copy, with the 4-neighbour Laplacian (the harness's sharpness statistic).
///
/// Dividing by the luma variance makes a pure contrast or brightness change leave it alone; a
/// blur lowers it. It still depends on content — a sky has less fine detail than a forest: on
/// the shared photos at 768 px, sharp originals read −2.8…+1.0 and copies blurred with σ = 1 px
/// −5.5…−0.4, so no threshold on it separates them. Softness is therefore judged by the *fall-off*
/// between scales: the same statistic at the analysis size minus at half of it. Natural images
/// have roughly scale-invariant spectra, so the difference hardly depends on content, while a
/// blur removes the fine scale first. Measured (subject box) on the 19 `dev` photos at 768 px:
/// sharp −1.41…−0.55 (noise-dominated photos near 0), σ = 1 px −2.0…−1.53, σ = 2 px −2.3…−2.1.
/// `isSoft` is a fall-off below −1.6, or below −1.45 when the detail itself is also low (ratio
/// below −3.2): no sharp photo of the set is flagged, 15 of 17 σ = 1 copies and every σ = 2 copy
/// whose detail is not drowned in noise are.
enum SharpnessMeasurement {
  /// Fall-off below which the subject is soft.
  static let softFalloff = -1.6
  /// Fall-off below which the subject is soft when its detail ratio is also below ``lowDetail``.
  static let softFalloffWhenLowDetail = -1.45
  static let lowDetail = -3.2

  /// The fall-off (negated) over which a photo goes from sharp to clearly soft in
  /// ``softness(_:)``. Of the harness's 85 photos at 768 px, 82 read under 1.5 (median 0.86);
  /// the three above are soft of their own (a storm streaked by motion 2.12, a night casino
  /// 1.62, a phone's photo of flowers 1.60). Their copies blurred by σ = 1 px read a median of
  /// 1.81 (6 under 1.5, 23 at 1.9 or more), by σ = 2 px 2.31 (82 at 1.9 or more).
  static let softnessRamp = 1.5...1.9

  /// How clearly `s` measures soft, 0...1: its fall-off on ``softnessRamp``. Continuous where
  /// `isSoft` is a yes or no, for measures that a blur misleads by degrees.
  static func softness(_ s: SharpnessAnalysis) -> Double {
    ExposureMeasurement.smoothstep(
      softnessRamp.lowerBound, softnessRamp.upperBound, -s.subjectFalloff)
  }

  static func measure(_ stats: PixelStatistics, subject: SubjectAnalysis) -> SharpnessAnalysis {
    let global = logRatio(stats, x0: 0, y0: 0, x1: stats.width, y1: stats.height)
    let r = ExposureMeasurement.pixelRect(subject.region, width: stats.width, height: stats.height)
    let local = logRatio(stats, x0: r.x0, y0: r.y0, x1: r.x1, y1: r.y1)
    let falloff = local - coarseLogRatio(stats, x0: r.x0, y0: r.y0, x1: r.x1, y1: r.y1)
    let soft = falloff < softFalloff || (falloff < softFalloffWhenLowDetail && local < lowDetail)
    return SharpnessAnalysis(
      subjectSharpness: local, globalSharpness: global, isSoft: soft, subjectFalloff: falloff)
  }

  /// The same ratio on a 2 × 2 box-reduced luma (half the analysis size), over a pixel box of
  /// the analysis copy.
  static func coarseLogRatio(_ stats: PixelStatistics, x0: Int, y0: Int, x1: Int, y1: Int) -> Double
  {
    let w2 = stats.width / 2, h2 = stats.height / 2
    guard w2 >= 3, h2 >= 3 else { return 0 }
    // One small allocation per photo (a quarter of the analysis copy).
    var half = [Float](repeating: 0, count: w2 * h2)
    let w = stats.width
    stats.lumaPlane.withUnsafeBufferPointer { p in
      half.withUnsafeMutableBufferPointer { out in
        for y in 0..<h2 {
          let top = p.baseAddress.unsafelyUnwrapped + 2 * y * w, bottom = top + w
          let row = out.baseAddress.unsafelyUnwrapped + y * w2
          // Wrapping index arithmetic (within the rows), so the loop is vectorised.
          var x = 0
          while x < w2 {
            let i = 2 &* x
            row[x] = 0.25 * (top[i] + top[i &+ 1] + bottom[i] + bottom[i &+ 1])
            x &+= 1
          }
        }
      }
    }
    return logRatio(half, width: w2, height: h2, x0: x0 / 2, y0: y0 / 2, x1: x1 / 2, y1: y1 / 2)
  }

  static func logRatio(_ stats: PixelStatistics, x0: Int, y0: Int, x1: Int, y1: Int) -> Double {
    logRatio(
      stats.lumaPlane, width: stats.width, height: stats.height, x0: x0, y0: y0, x1: x1, y1: y1)
  }

  /// `log((var(∇²I) + 1e-6) / (var(I) + 1e-6))` over the interior of the pixel box.
  static func logRatio(
    _ plane: [Float], width w: Int, height h: Int, x0: Int, y0: Int, x1: Int, y1: Int
  ) -> Double {
    let xa = max(1, x0), xb = min(w - 1, x1)
    let ya = max(1, y0), yb = min(h - 1, y1)
    guard xb > xa, yb > ya else { return 0 }
    var sumL = 0.0, sumL2 = 0.0, sumI = 0.0, sumI2 = 0.0
    plane.withUnsafeBufferPointer { p in
      for y in ya..<yb {
        var rl: Float = 0, rl2: Float = 0, ri: Float = 0, ri2: Float = 0
        let row = p.baseAddress.unsafelyUnwrapped + y * w, above = row - w, below = row + w
        // Wrapping index arithmetic: the columns stay inside the row.
        var x = xa
        while x < xb {
          let c = row[x]
          let lap = row[x &- 1] + row[x &+ 1] + above[x] + below[x] - 4 * c
          rl += lap
          rl2 += lap * lap
          ri += c
          ri2 += c * c
          x &+= 1
        }
        sumL += Double(rl)
        sumL2 += Double(rl2)
        sumI += Double(ri)
        sumI2 += Double(ri2)
      }
    }
    let count = Double((xb - xa) * (yb - ya))
    let varLap = max(0, sumL2 / count - (sumL / count) * (sumL / count))
    let varI = max(0, sumI2 / count - (sumI / count) * (sumI / count))
    return log((varLap + 1e-6) / (varI + 1e-6))
  }
}
