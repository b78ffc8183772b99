// SPDX-License-Identifier: Apache-2.0

import Foundation

/// The local shadows/highlights adjustment: a gain in linear light chosen from the edge-aware
/// base brightness around a pixel (``ToneGuide/Layer/tone``), not from the pixel itself.
///
/// With `b` the base in stops (log2 linear luminance; mid grey 0.18 is −2.47), the gain is
/// `2^(s·1.5·W_s(b) + h·1.5·W_h(b))` where
/// - `W_s(b) = smoothstep((−2 − b)/4) · smoothstep((b + 13)/3)`: 1 in regions darker than −6
///   stops, 0 from −2 up, fading out again below −10 so pure black and its noise are not lifted;
/// - `W_h(b) = smoothstep((b + 3)/2.5)`: 0 below −3 stops, 1 above −0.5.
///
/// `shadows` (`s`, −1…1) lifts dark regions by up to 1.5 stops (negative deepens them);
/// `highlights` (`h`, −1…1) brightens bright regions, negative pulls them down ("recovery") by up
/// to 1.5 stops. Both 0 gives exactly 1. The renderer multiplies linear R, G and B by the gain.
/// Because the base is edge-aware, a dark region next to a bright one gets the dark region's
/// gain right up to the edge (no halo band); the transition is at most one guide pixel wide.
///
/// Cost: ``gain(base:)`` is two smoothsteps and one ``SpatialMath/exp2(_:)``, plain arithmetic
/// with no look-ups, so the fused loop vectorises it (a table was slower: gathers); 12 MP of
/// gains in ≈ 16 ms on one thread (release, shared 2-core AVX-512 VM).
public struct LocalToneCurve: Sendable, Hashable {
  public let shadows: Float
  public let highlights: Float

  /// Both values in −1…1 (clamped).
  public init(shadows: Double, highlights: Double) {
    self.shadows = Float(min(max(shadows, -1), 1))
    self.highlights = Float(min(max(highlights, -1), 1))
  }

  /// Whether the curve is the identity (skip the stage).
  public var isNeutral: Bool { shadows == 0 && highlights == 0 }

  /// The linear-light gain for a base of `base` stops (see the type).
  @inlinable
  public func gain(base b: Float) -> Float {
    let ws = SpatialMath.smoothstep((-2 - b) * 0.25) * SpatialMath.smoothstep((b + 13) * (1 / 3))
    let wh = SpatialMath.smoothstep((b + 3) * 0.4)
    return SpatialMath.exp2(1.5 * (shadows * ws + highlights * wh))
  }

  /// Scalar reference: the formula evaluated directly.
  public static func gainReference(base b: Float, shadows s: Float, highlights h: Float) -> Float {
    if s == 0 && h == 0 { return 1 }
    let ws = SpatialMath.smoothstep((-2 - b) / 4) * SpatialMath.smoothstep((b + 13) / 3)
    let wh = SpatialMath.smoothstep((b + 3) / 2.5)
    return Float(Foundation.exp2(Double(s * 1.5 * ws + h * 1.5 * wh)))
  }

  /// ``gainReference(base:shadows:highlights:)`` with this curve's values.
  public func gainReference(base: Float) -> Float {
    Self.gainReference(base: base, shadows: shadows, highlights: highlights)
  }
}

/// Midtone local contrast ("clarity") from a pixel's log luminance and the mid-radius
/// edge-aware base (``ToneGuide/Layer/clarity``).
///
/// In stops, with `L = log2(Y)` of the pixel's linear luminance (floor −12) and base `b`:
/// `detail = SpatialMath.clamp(L − b, −2, 2)`, `L' = L + amount · 0.7 · detail · m(b)`, where the midtone
/// weight `m(b) = (1 − ((b + 2.5)/5.5)²)²` below mid grey and `(1 − ((b + 2.5)/3)²)²` above (1 at
/// −2.5 stops, 0 at −8 and at +0.5, 0 outside). The renderer multiplies linear R, G and B by
/// ``gain(log2Luminance:base:)`` = `2^(L' − L)`, which keeps hue and saturation. Positive amounts
/// deepen local contrast; negative ones pull each pixel toward its base (softening, up to 70 %).
/// `amount` is −1…1 (clamped); 0 gives exactly 1. The base describes the *input* image, so if a
/// global exposure shift `e` stops is applied before clarity, add `e` to the base.
///
/// Cost: one fast `exp2` (``SpatialMath/exp2(_:)``) and a few multiplies per pixel, vectorised;
/// 12 MP in ≈ 18 ms on one thread (release, shared 2-core AVX-512 VM).
public struct Clarity: Sendable, Hashable {
  public let amount: Float
  public init(amount: Double) { self.amount = Float(min(max(amount, -1), 1)) }
  public var isNeutral: Bool { amount == 0 }

  /// The midtone weight `m(b)` (see the type).
  @inlinable
  public static func midtoneWeight(base b: Float) -> Float {
    let d = b + 2.5
    let u = d < 0 ? d * (1 / 5.5) : d * (1 / 3)
    let v = max(1 - u * u, 0)
    return v * v
  }

  /// The linear-light gain `2^(L' − L)` for a pixel of log2 luminance `L` over base `b`.
  @inlinable
  public func gain(log2Luminance l: Float, base b: Float) -> Float {
    let detail = SpatialMath.clamp(l - b, -2, 2)
    return SpatialMath.exp2(amount * 0.7 * detail * Clarity.midtoneWeight(base: b))
  }

  /// Scalar reference with Foundation's `exp2` and no shared code with the fast path.
  public func gainReference(log2Luminance l: Float, base b: Float) -> Float {
    let detail = Double(min(max(l - b, -2), 2))
    let d = Double(b) + 2.5
    let u = d < 0 ? d / 5.5 : d / 3
    let m = pow(max(1 - u * u, 0), 2)
    return Float(Foundation.exp2(Double(amount) * 0.7 * detail * m))
  }
}
