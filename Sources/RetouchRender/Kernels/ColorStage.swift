// SPDX-License-Identifier: Apache-2.0

import RetouchCore

/// A per-pixel colour function from outside the edit (for example a style match), folded into
/// the render's colour table so it costs no extra pass over the pixels.
///
/// The function maps display-encoded RGB in `0...1` of the image's working space to the same;
/// outputs are clamped to `0...1`. It is compiled once per working space (`compile`) and then
/// sampled only at the grid points of the ``ColorLUT3D`` (33³ ≈ 36 000 calls, in parallel), so
/// it may be slow-ish (≈ 1 µs per call adds ≈ 18 ms to a table build on 2 cores; tables are
/// cached). Pixels between grid points are interpolated, so the function should be smooth.
///
/// Two stages are equal when their ``identity`` and ``placement`` are: the identity stands for
/// the function (the renderer's table cache is keyed by it), so a caller must give different
/// functions different identities — typically the parameters the function is built from.
public struct ColorStage: Sendable, Hashable {
  /// Where the stage sits relative to the edit's own colour and tone.
  public enum Placement: String, Sendable, Hashable, Codable {
    /// On the photo as it comes in, before the edit's sliders and look.
    case beforeEdit
    /// On the edited colours, after the sliders and look.
    case afterEdit
  }

  /// Stands for the function: equal identities must mean equal functions.
  public let identity: [Double]
  public let placement: Placement
  /// Makes the per-pixel function for images in a working space.
  public let compile: @Sendable (ColorSpace) -> @Sendable (SIMD3<Float>) -> SIMD3<Float>

  public init(
    identity: [Double], placement: Placement = .beforeEdit,
    compile: @escaping @Sendable (ColorSpace) -> @Sendable (SIMD3<Float>) -> SIMD3<Float>
  ) {
    self.identity = identity
    self.placement = placement
    self.compile = compile
  }

  public static func == (a: ColorStage, b: ColorStage) -> Bool {
    a.identity == b.identity && a.placement == b.placement
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(identity)
    hasher.combine(placement)
  }

  /// The edit's colour transform with this stage before or after it, as one function of
  /// display-encoded RGB (each component clamped to `0...1` between the two).
  func composed(with transform: ColorToneTransform) -> @Sendable (SIMD3<Float>) -> SIMD3<Float> {
    let f = compile(transform.colorSpace)
    let edit: @Sendable (SIMD3<Float>) -> SIMD3<Float> = { v in
      let (r, g, b) = transform.apply(v.x, v.y, v.z)
      return SIMD3(r, g, b)
    }
    let clamp: @Sendable (SIMD3<Float>) -> SIMD3<Float> = { v in
      v.replacing(with: 0, where: .!(v .> 0)).replacing(with: 1, where: v .> 1)
    }
    if transform.isIdentity { return { clamp(f(clamp($0))) } }
    switch placement {
    case .beforeEdit: return { edit(clamp(f(clamp($0)))) }
    case .afterEdit: return { clamp(f(clamp(edit($0)))) }
    }
  }
}
