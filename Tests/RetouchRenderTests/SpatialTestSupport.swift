// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchTestSupport

/// Small synthetic images and measurements shared by the spatial-kernel tests.
enum SpatialTest {
  /// An image whose pixel (x, y) has the components `fill(x, y)` (0…1, scaled to the format;
  /// alpha 0.5 when present).
  static func image(
    _ w: Int, _ h: Int, format: PixelFormat = .rgb8, fill: (Int, Int) -> (Double, Double, Double)
  ) -> Image {
    let m = Double(format.maxValue)
    let n = format.channelCount
    var values = [Int](repeating: 0, count: w * h * n)
    for y in 0..<h {
      for x in 0..<w {
        let (r, g, b) = fill(x, y)
        let i = (y * w + x) * n
        for (c, v) in [r, g, b].enumerated() {
          values[i + c] = Int((min(max(v, 0), 1) * m).rounded())
        }
        if n == 4 { values[i + 3] = Int(m / 2) }
      }
    }
    if format.bitDepth == 8 {
      return Image(width: w, height: h, format: format, bytes: values.map { UInt8($0) })
    }
    let bytes = values.flatMap { v -> [UInt8] in withUnsafeBytes(of: UInt16(v)) { Array($0) } }
    return Image(width: w, height: h, format: format, bytes: bytes)
  }

  /// A standard normal variate (Box–Muller) from a seeded generator.
  static func gaussian(_ rng: inout SeededRandom) -> Double {
    let u1 = max(Double.random(in: 0..<1, using: &rng), 1e-12)
    let u2 = Double.random(in: 0..<1, using: &rng)
    return (-2 * Foundation.log(u1)).squareRoot() * cos(2 * Double.pi * u2)
  }

  /// Count of differing components, the largest difference and where it is.
  static func difference(_ a: Image, _ b: Image) -> (count: Int, max: Int, worst: (x: Int, y: Int))
  {
    precondition(a.width == b.width && a.height == b.height && a.format == b.format)
    var count = 0
    var worst = (0, (x: 0, y: 0))
    for y in 0..<a.height {
      for x in 0..<a.width {
        let p = a.pixel(x: x, y: y)
        let q = b.pixel(x: x, y: y)
        for c in p.indices where p[c] != q[c] {
          count += 1
          let d = abs(p[c] - q[c])
          if d > worst.0 { worst = (d, (x, y)) }
        }
      }
    }
    return (count, worst.0, worst.1)
  }

  /// Box-shrinks an image by an integer factor (mean of each block, rounded).
  static func shrink(_ image: Image, by f: Int) -> Image {
    let w = image.width / f
    let h = image.height / f
    let n = image.format.channelCount
    return SpatialTest.image(w, h, format: image.format) { x, y in
      var s = [Double](repeating: 0, count: n)
      for yy in (y * f)..<(y * f + f) {
        for xx in (x * f)..<(x * f + f) {
          let p = image.pixel(x: xx, y: yy)
          for c in 0..<n { s[c] += Double(p[c]) }
        }
      }
      let m = Double(image.format.maxValue) * Double(f * f)
      return (s[0] / m, s[1] / m, s[2] / m)
    }
  }

  /// Mean and standard deviation of channel `c` over a rectangle.
  static func stats(_ image: Image, channel c: Int = 1, x: Range<Int>, y: Range<Int>)
    -> (mean: Double, std: Double)
  {
    var s = 0.0
    var s2 = 0.0
    for yy in y {
      for xx in x {
        let v = Double(image.pixel(x: xx, y: yy)[c])
        s += v
        s2 += v * v
      }
    }
    let n = Double(x.count * y.count)
    let mean = s / n
    return (mean, max(s2 / n - mean * mean, 0).squareRoot())
  }
}
