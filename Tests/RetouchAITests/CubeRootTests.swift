// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchTestSupport
import Testing

@testable import RetouchAI

@Suite("Cube root for CIE Lab")
struct CubeRootTests {
  @Test func matchesTheLibraryCubeRoot() {
    // Seeded log-uniform sweep over 1e-3…10 (CIE's f(t) needs t > 216/24389 ≈ 0.0089, up to a
    // little over 1), plus the ends and exact cubes.
    var rng = SeededRandom(seed: 27)
    var inputs: [Float] = [0.001, 216 / 24389, 0.125, 1, 8, 10]
    for _ in 0..<20_000 {
      let u = Double(rng.next() % 1_000_000) / 1_000_000
      inputs.append(Float(Foundation.pow(10, -3 + 4 * u)))
    }
    var worst: Float = 0
    var at: Float = 0
    for x in inputs {
      let want = Foundation.cbrt(Double(x))
      let ulps = Float(abs(Double(CubeRoot.of(x)) - want)) / Float(want).ulp
      if ulps > worst { (worst, at) = (ulps, x) }
    }
    // Measured: within 1 ulp. The initial guess alone is off by up to ~400 000 ulp, and with
    // one or two Newton steps by ~11 000 and ~11 ulp.
    #expect(worst <= 2, "worst \(worst) ulp at x = \(at)")
  }
}
