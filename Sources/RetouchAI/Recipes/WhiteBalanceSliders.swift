// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchRender

/// Turns a measured colour cast into the Warmth and Tint slider values that remove it.
///
/// The renderer's white balance (``ColorToneTransform``) is a Bradford adaptation from a source
/// white on the Planckian locus, so a slider value changes a grey's `log2(R/B)` (warmth) and
/// `log2(G/√(R·B))` (green tint) by amounts that are not linear in the slider. Rather than
/// re-deriving that maths here, this type measures it once: it runs a mid grey through the
/// renderer's own colour transform at 41 values of each slider and inverts the two curves by
/// linear interpolation. Both curves are monotonic (the renderer documents it), so the inverse
/// is well defined inside the range the sliders reach; wanted changes outside it are clamped.
///
/// Cost: 82 transform compilations, about 10 ms once per process (``SuggestionEngine/prewarm()``
/// does it ahead); every look-up afterwards is a few comparisons.
struct WhiteBalanceSliders: Sendable {
  /// Slider values −1...1 in steps of 0.05.
  let sliderValues: [Double]
  /// For each temperature value: the change of (warmth, green tint) of a grey, in log2 units.
  let temperatureResponse: [SIMD2<Double>]
  /// For each tint value: the same.
  let tintResponse: [SIMD2<Double>]

  static let shared = WhiteBalanceSliders()

  init() {
    let values = (0...40).map { Double($0) / 20 - 1 }
    sliderValues = values
    temperatureResponse = values.map { Self.response(EditConfig(properties: [.temperature: $0])) }
    tintResponse = values.map { Self.response(EditConfig(properties: [.tint: $0])) }
  }

  /// How `config` moves a display-encoded mid grey (0.5), as (Δwarmth, Δgreen tint) in log2.
  static func response(_ config: EditConfig) -> SIMD2<Double> {
    let t = ColorToneTransform(config, colorSpace: .sRGB)
    let (r, g, b) = t.apply(0.5, 0.5, 0.5)
    let lr = max(Double(SRGBTransfer.decode(r)), 1e-6)
    let lg = max(Double(SRGBTransfer.decode(g)), 1e-6)
    let lb = max(Double(SRGBTransfer.decode(b)), 1e-6)
    return SIMD2(log2(lr / lb), log2(lg / (lr * lb).squareRoot()))
  }

  /// The temperature and tint values (each −1...1) that change a grey's warmth by `warmth` and
  /// its green tint by `greenTint` (log2 units; negative warmth cools, negative tint removes
  /// green). Temperature is solved first; tint then takes the green–magenta change still needed,
  /// including what temperature moved along that axis.
  func sliders(warmthChange warmth: Double, greenTintChange greenTint: Double) -> (
    temperature: Double, tint: Double
  ) {
    let t = warmth == 0 ? 0 : Self.invert(temperatureResponse.map(\.x), sliderValues, warmth)
    var gNeeded = greenTint
    if t != 0 { gNeeded -= interpolate(temperatureResponse.map(\.y), at: t) }
    let u = abs(gNeeded) < 1e-4 ? 0 : Self.invert(tintResponse.map(\.y), sliderValues, gNeeded)
    return (t, u)
  }

  private func interpolate(_ ys: [Double], at x: Double) -> Double {
    let pos = (x + 1) * 20
    let i = max(0, min(ys.count - 2, Int(pos.rounded(.down))))
    let f = pos - Double(i)
    return ys[i] + f * (ys[i + 1] - ys[i])
  }

  /// The slider value whose response is `target`, for a monotonic (either direction) response.
  static func invert(_ ys: [Double], _ xs: [Double], _ target: Double) -> Double {
    let increasing = ys[ys.count - 1] > ys[0]
    let lo = min(ys[0], ys[ys.count - 1]), hi = max(ys[0], ys[ys.count - 1])
    let y = min(max(target, lo), hi)
    for i in 0..<(ys.count - 1) {
      let (a, b) = (ys[i], ys[i + 1])
      let inside = increasing ? (y >= a && y <= b) : (y <= a && y >= b)
      if inside {
        let f = b == a ? 0 : (y - a) / (b - a)
        return xs[i] + f * (xs[i + 1] - xs[i])
      }
    }
    return increasing == (y >= hi) ? xs[xs.count - 1] : xs[0]
  }
}
