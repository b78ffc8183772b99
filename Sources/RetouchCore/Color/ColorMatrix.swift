// SPDX-License-Identifier: Apache-2.0

/// A 3×3 matrix acting on RGB or XYZ column vectors, row-major, in double precision.
///
/// Used to move linear-light colour between RGB primaries through CIE XYZ. Building and inverting
/// one costs nanoseconds; kernels convert it to `Float` once and never touch it per pixel.
public struct ColorMatrix: Hashable, Sendable, CustomStringConvertible {
  /// The nine elements, row-major: `[m00, m01, m02, m10, …, m22]`.
  public var elements: [Double]

  /// Creates a matrix from nine row-major elements (traps on any other count).
  public init(_ elements: [Double]) {
    precondition(elements.count == 9, "a 3×3 matrix needs 9 elements, got \(elements.count)")
    self.elements = elements
  }

  /// The identity matrix.
  public static let identity = ColorMatrix([1, 0, 0, 0, 1, 0, 0, 0, 1])

  /// A diagonal matrix with `d` on the diagonal.
  public static func diagonal(_ d0: Double, _ d1: Double, _ d2: Double) -> ColorMatrix {
    ColorMatrix([d0, 0, 0, 0, d1, 0, 0, 0, d2])
  }

  public subscript(row: Int, column: Int) -> Double {
    get { elements[row * 3 + column] }
    set { elements[row * 3 + column] = newValue }
  }

  /// The product `self × other` (apply `other` first, then `self`).
  public static func * (a: ColorMatrix, b: ColorMatrix) -> ColorMatrix {
    var r = [Double](repeating: 0, count: 9)
    for i in 0..<3 {
      for j in 0..<3 {
        r[i * 3 + j] = a[i, 0] * b[0, j] + a[i, 1] * b[1, j] + a[i, 2] * b[2, j]
      }
    }
    return ColorMatrix(r)
  }

  /// Applies the matrix to the column vector `(v0, v1, v2)`.
  public func applied(to v: (Double, Double, Double)) -> (Double, Double, Double) {
    let e = elements
    return (
      e[0] * v.0 + e[1] * v.1 + e[2] * v.2,
      e[3] * v.0 + e[4] * v.1 + e[5] * v.2,
      e[6] * v.0 + e[7] * v.1 + e[8] * v.2
    )
  }

  /// The determinant.
  public var determinant: Double {
    let e = elements
    return e[0] * (e[4] * e[8] - e[5] * e[7]) - e[1] * (e[3] * e[8] - e[5] * e[6])
      + e[2] * (e[3] * e[7] - e[4] * e[6])
  }

  /// The inverse, or `nil` when the matrix is singular (|determinant| < 1e-12).
  public var inverse: ColorMatrix? {
    let d = determinant
    guard abs(d) >= 1e-12 else { return nil }
    let e = elements
    let c: [Double] = [
      e[4] * e[8] - e[5] * e[7], e[2] * e[7] - e[1] * e[8], e[1] * e[5] - e[2] * e[4],
      e[5] * e[6] - e[3] * e[8], e[0] * e[8] - e[2] * e[6], e[2] * e[3] - e[0] * e[5],
      e[3] * e[7] - e[4] * e[6], e[1] * e[6] - e[0] * e[7], e[0] * e[4] - e[1] * e[3],
    ]
    return ColorMatrix(c.map { $0 / d })
  }

  public var description: String {
    let e = elements
    return "[\(e[0]) \(e[1]) \(e[2]); \(e[3]) \(e[4]) \(e[5]); \(e[6]) \(e[7]) \(e[8])]"
  }
}

/// The chromaticities of a set of RGB primaries and their white point (CIE 1931 xy).
///
/// Enough to derive the linear RGB → XYZ matrix (the standard derivation: columns are the
/// primaries' XYZ scaled so that RGB (1, 1, 1) maps to the white point with Y = 1). No chromatic
/// adaptation happens here: converting between primaries with the same white (all the ones below
/// are D65) needs none.
public struct RGBPrimaries: Hashable, Sendable {
  public var red: SIMD2<Double>
  public var green: SIMD2<Double>
  public var blue: SIMD2<Double>
  public var white: SIMD2<Double>

  public init(red: SIMD2<Double>, green: SIMD2<Double>, blue: SIMD2<Double>, white: SIMD2<Double>) {
    self.red = red
    self.green = green
    self.blue = blue
    self.white = white
  }

  /// CIE 1931 xy of D65 as used by sRGB, P3-D65 and BT.2020 (0.3127, 0.3290).
  public static let d65 = SIMD2<Double>(0.3127, 0.3290)

  /// sRGB / BT.709 primaries (IEC 61966-2-1, ITU-R BT.709-6).
  public static let sRGB = RGBPrimaries(
    red: [0.64, 0.33], green: [0.30, 0.60], blue: [0.15, 0.06], white: d65)
  /// P3 primaries with D65 white (SMPTE EG 432-1, as used by Display P3).
  public static let displayP3 = RGBPrimaries(
    red: [0.680, 0.320], green: [0.265, 0.690], blue: [0.150, 0.060], white: d65)
  /// ITU-R BT.2020 primaries.
  public static let bt2020 = RGBPrimaries(
    red: [0.708, 0.292], green: [0.170, 0.797], blue: [0.131, 0.046], white: d65)
  /// Adobe RGB (1998) primaries (Adobe RGB (1998) Color Image Encoding, 2005).
  public static let adobeRGB = RGBPrimaries(
    red: [0.64, 0.33], green: [0.21, 0.71], blue: [0.15, 0.06], white: d65)

  /// Linear RGB → XYZ (white Y = 1), derived from the chromaticities.
  public var toXYZ: ColorMatrix {
    func xyz(_ c: SIMD2<Double>) -> (Double, Double, Double) {
      (c.x / c.y, 1, (1 - c.x - c.y) / c.y)
    }
    let (r, g, b, w) = (xyz(red), xyz(green), xyz(blue), xyz(white))
    let p = ColorMatrix([r.0, g.0, b.0, r.1, g.1, b.1, r.2, g.2, b.2])
    // A degenerate triangle has no inverse; fall back to a matrix that maps everything to white.
    guard let inv = p.inverse else { return .identity }
    let s = inv.applied(to: w)
    return p * .diagonal(s.0, s.1, s.2)
  }

  /// Whether the chromaticity `xy` lies inside (or within `tolerance` of) the primaries' triangle.
  public func contains(_ xy: SIMD2<Double>, tolerance: Double = 0) -> Bool {
    func edge(_ a: SIMD2<Double>, _ b: SIMD2<Double>) -> Double {
      // Signed distance of xy from the line a→b, positive inside for a counter-clockwise triangle.
      let d = b - a
      let len = (d.x * d.x + d.y * d.y).squareRoot()
      return (d.x * (xy.y - a.y) - d.y * (xy.x - a.x)) / max(len, 1e-12)
    }
    let e = [edge(red, green), edge(green, blue), edge(blue, red)]
    // R→G→B runs counter-clockwise for every real set of primaries; accept either orientation.
    return e.allSatisfy { $0 >= -tolerance } || e.allSatisfy { $0 <= tolerance }
  }
}

extension ColorSpace {
  /// The primaries and white point of this space.
  public var primaries: RGBPrimaries {
    switch self {
    case .sRGB: .sRGB
    case .displayP3: .displayP3
    }
  }

  /// Linear RGB → XYZ as a ``ColorMatrix`` (the values of ``toXYZ``).
  public var toXYZMatrix: ColorMatrix { ColorMatrix(toXYZ) }

  /// The linear-light matrix taking RGB in `self` to RGB in `other` (identity when equal).
  ///
  /// `other.toXYZ⁻¹ × self.toXYZ`; both spaces use D65, so no chromatic adaptation is needed.
  public func conversionMatrix(to other: ColorSpace) -> ColorMatrix {
    if self == other { return .identity }
    return Self.linearMatrix(from: toXYZMatrix, to: other)
  }

  /// The linear-light matrix taking RGB with `primaries` (D65 white) into this space.
  public static func linearMatrix(from primaries: RGBPrimaries, to space: ColorSpace) -> ColorMatrix
  {
    linearMatrix(from: primaries.toXYZ, to: space)
  }

  static func linearMatrix(from sourceToXYZ: ColorMatrix, to space: ColorSpace) -> ColorMatrix {
    // ColorSpace.toXYZ is a well-conditioned constant; its inverse always exists.
    let inv = space.toXYZMatrix.inverse ?? .identity
    return inv * sourceToXYZ
  }
}
