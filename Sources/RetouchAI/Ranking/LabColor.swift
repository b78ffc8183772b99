// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchRender

/// CIELAB (D65) for display-encoded sRGB colours, and the small-image statistics the ranking
/// measures with it: how visibly an edit changes a photo.
///
/// Conversion: sRGB curve decode, the sRGB → XYZ matrix (IEC 61966-2-1), then CIE 1976 L*a*b*
/// with the D65 white. Differences are CIE76 ΔE*ab (Euclidean in Lab): about 2.3 is one just
/// noticeable difference, which is all the ranking needs; it is cheaper than CIEDE2000 and
/// ordered the same way for the small, global changes it compares.
enum LabColor {
  /// Lab of one display-encoded sRGB colour (components 0...1).
  static func lab(r: Double, g: Double, b: Double) -> SIMD3<Double> {
    let lr = SRGBTables.decodeExact(r), lg = SRGBTables.decodeExact(g)
    let lb = SRGBTables.decodeExact(b)
    return labFromLinear(lr, lg, lb)
  }

  static func labFromLinear(_ r: Double, _ g: Double, _ b: Double) -> SIMD3<Double> {
    let x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    let y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    let z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883
    let fx = f(x), fy = f(y), fz = f(z)
    return SIMD3(116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz))
  }

  /// Display-encoded sRGB (0...1, clamped) of a Lab colour.
  static func rgb(lab: SIMD3<Double>) -> SIMD3<Double> {
    let fy = (lab.x + 16) / 116
    let fx = fy + lab.y / 500
    let fz = fy - lab.z / 200
    let x = finv(fx) * 0.95047, y = finv(fy), z = finv(fz) * 1.08883
    let r = 3.2406 * x - 1.5372 * y - 0.4986 * z
    let g = -0.9689 * x + 1.8758 * y + 0.0415 * z
    let b = 0.0557 * x - 0.2040 * y + 1.0570 * z
    return SIMD3(
      SRGBTables.encodeExact(min(max(r, 0), 1)), SRGBTables.encodeExact(min(max(g, 0), 1)),
      SRGBTables.encodeExact(min(max(b, 0), 1)))
  }

  /// Hue angle in degrees (0..<360) of a Lab colour.
  static func hue(_ lab: SIMD3<Double>) -> Double {
    let h = atan2(lab.z, lab.y) * 180 / .pi
    return h < 0 ? h + 360 : h
  }

  /// Chroma C*ab.
  static func chroma(_ lab: SIMD3<Double>) -> Double {
    (lab.y * lab.y + lab.z * lab.z).squareRoot()
  }

  /// The signed smallest difference `b − a` of two hue angles, in degrees (−180...180).
  static func hueDifference(_ a: Double, _ b: Double) -> Double {
    var d = b - a
    while d > 180 { d -= 360 }
    while d < -180 { d += 360 }
    return d
  }

  private static func f(_ t: Double) -> Double {
    t > 216.0 / 24389 ? cbrt(t) : (24389.0 / 27 * t + 16) / 116
  }

  private static func finv(_ t: Double) -> Double {
    t * t * t > 216.0 / 24389 ? t * t * t : (116 * t - 16) * 27 / 24389
  }
}

/// The Lab values of every pixel of a small image, for measuring how much an edit changes it.
///
/// Built once per photo from a small copy (about 160 px on the long edge: 20–25 k pixels, well
/// under a millisecond to compare), then compared with renders of that copy. 8- and 16-bit RGB
/// or RGBA; alpha is ignored.
struct LabPixels: Sendable {
  let values: [SIMD3<Float>]

  /// Pixels already in Lab (L*, a*, b*), in row order.
  init(values: [SIMD3<Float>]) { self.values = values }

  init(_ image: Image) {
    let n = image.format.channelCount
    let count = image.pixelCount
    values = [SIMD3<Float>](unsafeUninitializedCapacity: count) { out, initialized in
      LabPixels.decode8.withUnsafeBufferPointer { table in
        image.withUnsafeBytes { raw in
          if image.format.bitDepth == 8 {
            let p = raw.bindMemory(to: UInt8.self)
            // Eight pixels at a time: the same operations on each lane as `lab(_:_:_:)` (so the
            // same values, bit for bit), vectorised, where the scalar loop's branch and
            // cube-root divisions kept it at ~25 ns a pixel (half a millisecond per 160 px
            // copy, made twice by `topSuggestion`). Groups of eight are shared out to the
            // cores: `topSuggestion` measures its fix while the other core has nothing to do.
            let groups = count / 8
            if groups > 0, let pixels = p.baseAddress, let first = out.baseAddress,
              let codesBase = table.baseAddress
            {
              LabPixels.convert(
                groups: groups, channels: n, pixels: SendableRawPointer(UnsafeRawPointer(pixels)),
                into: SendableRawPointer(UnsafeMutableRawPointer(first)),
                table: SendableRawPointer(UnsafeRawPointer(codesBase)))
            }
            var i = groups * 8
            while i < count {
              out[i] = LabPixels.lab(
                table[Int(p[i * n])], table[Int(p[i * n + 1])], table[Int(p[i * n + 2])])
              i += 1
            }
          } else {
            let p = raw.bindMemory(to: UInt16.self)
            for i in 0..<count {
              out[i] = LabPixels.lab(
                table[Int(p[i * n]) >> 8], table[Int(p[i * n + 1]) >> 8],
                table[Int(p[i * n + 2]) >> 8])
            }
          }
        }
      }
      initialized = count
    }
  }

  /// Lab of the first `groups` × 8 pixels of an 8-bit image with `channels` channels, through
  /// the decoding `table`, eight at a time, the groups shared out to the cores.
  private static func convert(
    groups: Int, channels n: Int, pixels: SendableRawPointer, into target: SendableRawPointer,
    table codes: SendableRawPointer
  ) {
    ParallelBands.forEach(rows: groups, minimumBandHeight: groupsPerBand) { band in
      let p = pixels.pointer.assumingMemoryBound(to: UInt8.self)
      let out = target.pointer.assumingMemoryBound(to: SIMD3<Float>.self)
      let table = codes.pointer.assumingMemoryBound(to: Float.self)
      for group in band {
        let i = group &* 8
        var r = SIMD8<Float>(), g = SIMD8<Float>(), b = SIMD8<Float>()
        for k in 0..<8 {
          let o = (i &+ k) &* n
          r[k] = table[Int(p[o])]
          g[k] = table[Int(p[o &+ 1])]
          b[k] = table[Int(p[o &+ 2])]
        }
        let (l, a, bb) = LabPixels.lab(r, g, b)
        for k in 0..<8 { out[i &+ k] = SIMD3(l[k], a[k], bb[k]) }
      }
    }
  }

  /// The fewest groups of eight pixels worth a band of their own (a band's dispatch costs
  /// about as much as converting a few hundred pixels).
  static let groupsPerBand = 256

  /// Mean CIE76 ΔE*ab between two images of the same size.
  func meanDifference(to other: LabPixels) -> Double {
    precondition(values.count == other.values.count, "images must have the same size")
    guard !values.isEmpty else { return 0 }
    var sum = 0.0
    for i in values.indices {
      let d = values[i] - other.values[i]
      sum += Double((d * d).sum().squareRoot())
    }
    return sum / Double(values.count)
  }

  /// Mean CIE76 ΔE*ab between two images of the same size over the `share` (0...1) of their
  /// pixels that differ most: where an edit that works on edges (sharpening) shows, which the
  /// mean over the whole image dilutes with every flat pixel it leaves alone. The differences
  /// are counted in steps of 1/16 ΔE*ab (up to 64), the pixels on the step where the share ends
  /// counted in part.
  func meanDifference(to other: LabPixels, largestShare share: Double) -> Double {
    precondition(values.count == other.values.count, "images must have the same size")
    guard !values.isEmpty, share > 0 else { return 0 }
    let steps = 16, last = 64 * steps
    var counts = [Int](repeating: 0, count: last + 1)
    var sums = [Double](repeating: 0, count: last + 1)
    for i in values.indices {
      let d = values[i] - other.values[i]
      let e = (d * d).sum().squareRoot()
      let bin = min(last, Int(e * Float(steps)))
      counts[bin] += 1
      sums[bin] += Double(e)
    }
    let wanted = max(1, Double(values.count) * min(share, 1))
    var taken = 0.0, sum = 0.0
    for bin in stride(from: last, through: 0, by: -1) where counts[bin] > 0 {
      let n = Double(counts[bin])
      let part = min(n, wanted - taken)
      sum += sums[bin] * part / n
      taken += part
      if taken >= wanted { break }
    }
    return sum / taken
  }

  /// Mean CIE76 ΔE*ab between two images of the same size (`width` pixels wide) over the
  /// pixels whose centres lie in `rect` (normalised to the image); the whole image's mean when
  /// no centre does.
  func meanDifference(to other: LabPixels, width: Int, in rect: NormalizedRect) -> Double {
    precondition(values.count == other.values.count, "images must have the same size")
    guard width > 0, !values.isEmpty else { return 0 }
    let height = values.count / width
    func span(_ start: Double, _ length: Double, _ n: Int) -> Range<Int> {
      let lo = max(0, Int((start * Double(n) - 0.5).rounded(.up)))
      let hi = min(n, Int(((start + length) * Double(n) - 0.5).rounded(.down)) + 1)
      return lo..<max(lo, hi)
    }
    let xs = span(rect.x, rect.width, width), ys = span(rect.y, rect.height, height)
    guard !xs.isEmpty, !ys.isEmpty else { return meanDifference(to: other) }
    var sum = 0.0
    for y in ys {
      for x in xs {
        let d = values[y * width + x] - other.values[y * width + x]
        sum += Double((d * d).sum().squareRoot())
      }
    }
    return sum / Double(xs.count * ys.count)
  }

  static let decode8: [Float] = SRGBTables.decode8

  @inline(__always)
  static func lab(_ r: Float, _ g: Float, _ b: Float) -> SIMD3<Float> {
    let x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    let y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    let z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883
    let fx = f(x), fy = f(y), fz = f(z)
    return SIMD3(116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz))
  }

  @inline(__always)
  private static func f(_ t: Float) -> Float {
    t > 0.008856 ? CubeRoot.of(t) : 7.787 * t + 16 / 116
  }

  /// ``lab(_:_:_:)`` of eight pixels (L*, a*, b* lanes).
  @inline(__always)
  static func lab(
    _ r: SIMD8<Float>, _ g: SIMD8<Float>, _ b: SIMD8<Float>
  ) -> (SIMD8<Float>, SIMD8<Float>, SIMD8<Float>) {
    let x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    let y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    let z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883
    let fx = f(x), fy = f(y), fz = f(z)
    return (116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz))
  }

  /// ``f(_:)`` of eight values: the cube root where `t` is over the threshold (taken of the
  /// threshold elsewhere, where it is not used, so no lane divides by zero), else the line.
  @inline(__always)
  private static func f(_ t: SIMD8<Float>) -> SIMD8<Float> {
    let threshold = SIMD8<Float>(repeating: 0.008856)
    let root = CubeRoot.of(pointwiseMax(t, threshold))
    let line = 7.787 * t + 16 / 116
    return line.replacing(with: root, where: t .> threshold)
  }
}
