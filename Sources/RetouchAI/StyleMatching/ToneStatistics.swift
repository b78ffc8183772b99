// SPDX-License-Identifier: Apache-2.0

/// The tones and colour balance of a photo, as style matching compares them.
///
/// Measured by ``StyleMatcher/statistics(for:)`` in CIELAB (D65) on a small copy of the photo.
/// Compact and `Codable`, so a set of references can be measured once and kept.
public struct ToneStatistics: Sendable, Hashable, Codable {
  /// The percentile levels (in %) of ``lightnessPercentiles``.
  public static let percentileLevels: [Double] = [
    1, 2, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 98, 99,
  ]

  /// L* (0...100) at each of ``percentileLevels``; non-decreasing.
  public var lightnessPercentiles: [Double]
  /// The mean a*, b* of the photo's near-neutral pixels (chroma C*ab below
  /// ``StyleMatcher/neutralChroma``) in the shadows (L* below 35) and in the highlights (L* above
  /// 70), in that order: the colour grade a style leaves on greys.
  public var balance: [ColorBalance]
  /// Mean chroma C*ab of all pixels.
  public var meanChroma: Double

  public init(lightnessPercentiles: [Double], balance: [ColorBalance], meanChroma: Double) {
    self.lightnessPercentiles = lightnessPercentiles
    self.balance = balance
    self.meanChroma = meanChroma
  }

  /// The colour balance of near-neutral pixels in one tonal range.
  public struct ColorBalance: Sendable, Hashable, Codable {
    /// Mean a* and b* of the range's near-neutral pixels (0 when it has none).
    public var a: Double
    public var b: Double
    /// Share of all the photo's pixels (0...1) that are near-neutral and in this range; the
    /// balance means little below ``StyleMatcher/minimumBalanceWeight``.
    public var weight: Double

    public init(a: Double, b: Double, weight: Double) {
      self.a = a
      self.b = b
      self.weight = weight
    }
  }
}
