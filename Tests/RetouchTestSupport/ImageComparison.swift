// SPDX-License-Identifier: Apache-2.0

import RetouchCore

/// Whole-image comparisons for tests.
public enum ImageComparison {
  /// Mean absolute difference per component on the 8-bit scale (16-bit values are scaled by
  /// 255/65535), between two images of the same size and channel count.
  public static func meanAbsoluteDifference(_ a: Image, _ b: Image) -> Double {
    precondition(
      a.size == b.size && a.format.channelCount == b.format.channelCount, "images differ in shape")
    let count = a.pixelCount * a.format.channelCount
    func values(_ image: Image) -> [Double] {
      image.withUnsafeBytes { raw in
        if image.format.bitDepth == 8 { return raw.map { Double($0) } }
        return raw.bindMemory(to: UInt16.self).map { Double($0) * 255 / 65535 }
      }
    }
    if a.format.bitDepth == 8 && b.format.bitDepth == 8 {
      return a.withUnsafeBytes { pa in
        b.withUnsafeBytes { pb in
          var sum = 0
          for i in 0..<count { sum += abs(Int(pa[i]) - Int(pb[i])) }
          return Double(sum) / Double(count)
        }
      }
    }
    let va = values(a), vb = values(b)
    var sum = 0.0
    for i in 0..<count { sum += abs(va[i] - vb[i]) }
    return sum / Double(count)
  }
}
