// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore

/// How far an image may be from its expected image.
///
/// A pixel is *over tolerance* when any of its components differs by more than
/// `maxChannelDelta` (16-bit code values: 8-bit images count 257 per step) or its CIEDE2000
/// difference exceeds `maxDeltaE2000`. The comparison passes when at most `outlierFraction` of
/// the pixels are over tolerance. Every use states why its numbers are what they are.
public struct ImageTolerance: Sendable, Hashable, CustomStringConvertible {
  /// Largest per-component difference, in 16-bit code values (0…65535).
  public var maxChannelDelta: Int
  /// Largest CIEDE2000 difference (about 1 is a just-noticeable difference).
  public var maxDeltaE2000: Double
  /// Fraction of pixels (0…1) allowed over tolerance.
  public var outlierFraction: Double

  public init(maxChannelDelta: Int, maxDeltaE2000: Double, outlierFraction: Double) {
    precondition(maxChannelDelta >= 0 && maxDeltaE2000 >= 0 && (0...1).contains(outlierFraction))
    self.maxChannelDelta = maxChannelDelta
    self.maxDeltaE2000 = maxDeltaE2000
    self.outlierFraction = outlierFraction
  }

  public var description: String {
    "max channel Δ \(maxChannelDelta)/65535, max ΔE2000 \(maxDeltaE2000), "
      + "outliers ≤ \(outlierFraction * 100) %"
  }
}

/// Pixel-by-pixel differences between two images of the same size and channel count (either
/// bit depth), with colours compared in CIELAB through CIEDE2000.
///
/// Components are put on the 16-bit scale (8-bit × 257); colour is converted from the first
/// image's working space (sRGB or Display P3 with the sRGB curve) through linear light and
/// CIE XYZ (D65) to CIELAB with the space's own white as reference. Alpha, when present, counts
/// in the channel difference only. Eager and scalar: for test-sized images.
public struct ImageDifference: Sendable, CustomStringConvertible {
  public let width: Int
  public let height: Int
  /// ΔE2000 per pixel, row-major.
  public let deltaE: [Double]
  /// Largest component difference per pixel (16-bit code values), row-major.
  public let channelDelta: [Int]
  /// Mean ΔE2000 over all pixels.
  public let meanDeltaE: Double
  /// Largest ΔE2000 and where it is.
  public let maxDeltaE: Double
  public let worstDeltaE: (x: Int, y: Int)
  /// Largest component difference (16-bit code values) and where it is.
  public let maxChannelDelta: Int
  public let worstChannel: (x: Int, y: Int)

  public init(_ a: Image, _ b: Image) {
    precondition(
      a.size == b.size && a.format.channelCount == b.format.channelCount,
      "images differ in shape: \(a.size) \(a.format) vs \(b.size) \(b.format)")
    width = a.width
    height = a.height
    let n = a.format.channelCount
    let va = ImageDifference.values16(a)
    let vb = ImageDifference.values16(b)
    let lab = CIELab.Converter(colorSpace: a.colorSpace)
    var de = [Double](repeating: 0, count: a.pixelCount)
    var cd = [Int](repeating: 0, count: a.pixelCount)
    var maxDE = -1.0
    var worstDE = (x: 0, y: 0)
    var maxCD = -1
    var worstCD = (x: 0, y: 0)
    var sum = 0.0
    for i in 0..<a.pixelCount {
      var d = 0
      for c in 0..<n { d = max(d, abs(Int(va[i * n + c]) - Int(vb[i * n + c]))) }
      let e: Double
      if va[i * n] == vb[i * n] && va[i * n + 1] == vb[i * n + 1] && va[i * n + 2] == vb[i * n + 2]
      {
        e = 0
      } else {
        e = CIELab.deltaE2000(
          lab.lab(va[i * n], va[i * n + 1], va[i * n + 2]),
          lab.lab(vb[i * n], vb[i * n + 1], vb[i * n + 2]))
      }
      de[i] = e
      cd[i] = d
      sum += e
      if e > maxDE { (maxDE, worstDE) = (e, (i % a.width, i / a.width)) }
      if d > maxCD { (maxCD, worstCD) = (d, (i % a.width, i / a.width)) }
    }
    deltaE = de
    channelDelta = cd
    meanDeltaE = sum / Double(a.pixelCount)
    maxDeltaE = maxDE
    worstDeltaE = worstDE
    maxChannelDelta = maxCD
    worstChannel = worstCD
  }

  /// The `p`-th percentile (0…100) of ΔE2000 over all pixels (nearest rank).
  public func percentileDeltaE(_ p: Double) -> Double {
    let sorted = deltaE.sorted()
    let rank = Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1
    return sorted[min(max(rank, 0), sorted.count - 1)]
  }

  /// The number of pixels over `tolerance`'s per-pixel limits.
  public func overCount(_ tolerance: ImageTolerance) -> Int {
    var count = 0
    for i in deltaE.indices
    where deltaE[i] > tolerance.maxDeltaE2000 || channelDelta[i] > tolerance.maxChannelDelta {
      count += 1
    }
    return count
  }

  /// Whether the difference is within `tolerance` (see ``ImageTolerance``).
  public func isWithin(_ tolerance: ImageTolerance) -> Bool {
    Double(overCount(tolerance)) <= tolerance.outlierFraction * Double(deltaE.count)
  }

  public var description: String {
    String(
      format:
        "mean ΔE2000 %.4f, p99 %.4f, max %.4f at (%d, %d); max channel Δ %d/65535 at (%d, %d)",
      meanDeltaE, percentileDeltaE(99), maxDeltaE, worstDeltaE.x, worstDeltaE.y, maxChannelDelta,
      worstChannel.x, worstChannel.y)
  }

  /// Every component on the 16-bit scale, interleaved as stored.
  static func values16(_ image: Image) -> [UInt16] {
    image.withUnsafeBytes { raw in
      if image.format.bitDepth == 8 { return raw.map { UInt16($0) * 257 } }
      return Array(raw.bindMemory(to: UInt16.self))
    }
  }
}

/// CIELAB and the CIEDE2000 colour difference.
public enum CIELab {
  /// Converts 16-bit display-encoded RGB of one working space to CIELAB (D65 reference white).
  public struct Converter: Sendable {
    let m: [Double]
    let white: (Double, Double, Double)
    let decode: [Double]

    public init(colorSpace: ColorSpace) {
      m = colorSpace.toXYZ
      white = (m[0] + m[1] + m[2], m[3] + m[4] + m[5], m[6] + m[7] + m[8])
      decode = (0..<65536).map { SRGBTables.decodeExact(Double($0) / 65535) }
    }

    /// `(L*, a*, b*)` of a colour given as 16-bit encoded components.
    public func lab(_ r: UInt16, _ g: UInt16, _ b: UInt16) -> (Double, Double, Double) {
      let (lr, lg, lb) = (decode[Int(r)], decode[Int(g)], decode[Int(b)])
      let x = m[0] * lr + m[1] * lg + m[2] * lb
      let y = m[3] * lr + m[4] * lg + m[5] * lb
      let z = m[6] * lr + m[7] * lg + m[8] * lb
      return CIELab.fromXYZ(x, y, z, white: white)
    }
  }

  /// CIE 1976 L*a*b* from XYZ relative to `white` (CIE 15:2004).
  public static func fromXYZ(_ x: Double, _ y: Double, _ z: Double, white: (Double, Double, Double))
    -> (Double, Double, Double)
  {
    func f(_ t: Double) -> Double {
      let e = 216.0 / 24389
      return t > e ? Foundation.cbrt(t) : (24389.0 / 27 * t + 16) / 116
    }
    let fx = f(x / white.0)
    let fy = f(y / white.1)
    let fz = f(z / white.2)
    return (116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz))
  }

  /// The CIEDE2000 difference between two CIELAB colours, with `kL = kC = kH = 1`.
  ///
  /// Implemented from G. Sharma, W. Wu, E. N. Dalal, "The CIEDE2000 color-difference formula:
  /// implementation notes, supplementary test data, and mathematical observations", Color Res.
  /// Appl. 30(1), 2005, including their notes on hue angles: `h' = 0` when
  /// `a' = b' = 0`, the mean hue and hue difference taken the short way round, and `Δh' = 0`
  /// when either chroma is 0.
  public static func deltaE2000(_ lab1: (Double, Double, Double), _ lab2: (Double, Double, Double))
    -> Double
  {
    let (l1, a1, b1) = lab1
    let (l2, a2, b2) = lab2
    let deg = Double.pi / 180
    let c1 = (a1 * a1 + b1 * b1).squareRoot()
    let c2 = (a2 * a2 + b2 * b2).squareRoot()
    let cBar = (c1 + c2) / 2
    let cBar7 = pow(cBar, 7)
    let g = 0.5 * (1 - (cBar7 / (cBar7 + pow(25, 7))).squareRoot())
    let a1p = (1 + g) * a1
    let a2p = (1 + g) * a2
    let c1p = (a1p * a1p + b1 * b1).squareRoot()
    let c2p = (a2p * a2p + b2 * b2).squareRoot()
    func hue(_ b: Double, _ ap: Double) -> Double {
      if b == 0 && ap == 0 { return 0 }
      let h = atan2(b, ap) / deg
      return h < 0 ? h + 360 : h
    }
    let h1p = hue(b1, a1p)
    let h2p = hue(b2, a2p)
    let dLp = l2 - l1
    let dCp = c2p - c1p
    var dhp = 0.0
    if c1p * c2p != 0 {
      dhp = h2p - h1p
      if dhp > 180 { dhp -= 360 } else if dhp < -180 { dhp += 360 }
    }
    let dHp = 2 * (c1p * c2p).squareRoot() * sin(dhp / 2 * deg)
    let lBarp = (l1 + l2) / 2
    let cBarp = (c1p + c2p) / 2
    var hBarp = h1p + h2p
    if c1p * c2p != 0 {
      if abs(h1p - h2p) <= 180 {
        hBarp = (h1p + h2p) / 2
      } else if h1p + h2p < 360 {
        hBarp = (h1p + h2p + 360) / 2
      } else {
        hBarp = (h1p + h2p - 360) / 2
      }
    }
    let t =
      1 - 0.17 * cos((hBarp - 30) * deg) + 0.24 * cos(2 * hBarp * deg)
      + 0.32 * cos((3 * hBarp + 6) * deg) - 0.20 * cos((4 * hBarp - 63) * deg)
    let dTheta = 30 * exp(-pow((hBarp - 275) / 25, 2))
    let cBarp7 = pow(cBarp, 7)
    let rC = 2 * (cBarp7 / (cBarp7 + pow(25, 7))).squareRoot()
    let l50 = (lBarp - 50) * (lBarp - 50)
    let sL = 1 + 0.015 * l50 / (20 + l50).squareRoot()
    let sC = 1 + 0.045 * cBarp
    let sH = 1 + 0.015 * cBarp * t
    let rT = -sin(2 * dTheta * deg) * rC
    let tl = dLp / sL
    let tc = dCp / sC
    let th = dHp / sH
    return (tl * tl + tc * tc + th * th + rT * tc * th).squareRoot()
  }
}
