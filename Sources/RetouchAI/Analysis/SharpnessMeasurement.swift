// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchRender

/// Contrast-normalised detail: `log(var(∇²I) / var(I))` of the 8-bit Rec. 601 luma of the
/// analysis copy, with the 4-neighbour Laplacian (the harness's sharpness statistic).
///
/// Dividing by the luma variance makes a pure contrast or brightness change leave it alone; a
/// blur lowers it (the Laplacian is a high-pass filter). It still depends on content — a sky
/// has less fine detail than a forest — which is why ``isSoftThreshold`` is set low.
enum SharpnessMeasurement {
  /// Below this the subject counts as soft. Measured on the analysis copies of the shared
  /// photos (see `isSoftThreshold` in the report of the commit that set it).
  static let isSoftThreshold = -2.3

  static func measure(_ stats: PixelStatistics, subject: SubjectAnalysis) -> SharpnessAnalysis {
    let global = logRatio(stats, x0: 0, y0: 0, x1: stats.width, y1: stats.height)
    let r = ExposureMeasurement.pixelRect(subject.region, width: stats.width, height: stats.height)
    let local = logRatio(stats, x0: r.x0, y0: r.y0, x1: r.x1, y1: r.y1)
    return SharpnessAnalysis(
      subjectSharpness: local, globalSharpness: global, isSoft: local < isSoftThreshold)
  }

  /// `log((var(∇²I) + 1e-6) / (var(I) + 1e-6))` over the interior of the pixel box.
  static func logRatio(_ stats: PixelStatistics, x0: Int, y0: Int, x1: Int, y1: Int) -> Double {
    let w = stats.width
    let xa = max(1, x0), xb = min(stats.width - 1, x1)
    let ya = max(1, y0), yb = min(stats.height - 1, y1)
    guard xb > xa, yb > ya else { return 0 }
    var sumL = 0.0, sumL2 = 0.0, sumI = 0.0, sumI2 = 0.0
    stats.lumaPlane.withUnsafeBufferPointer { p in
      for y in ya..<yb {
        var rl: Float = 0, rl2: Float = 0, ri: Float = 0, ri2: Float = 0
        for x in xa..<xb {
          let i = y * w + x
          let c = p[i]
          let lap = p[i - 1] + p[i + 1] + p[i - w] + p[i + w] - 4 * c
          rl += lap
          rl2 += lap * lap
          ri += c
          ri2 += c * c
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
