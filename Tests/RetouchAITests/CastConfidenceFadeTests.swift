// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import RetouchAI

/// The share of a cast a correction removes grows with the estimate's confidence without a
/// jump at ``CastRemoval/minimumConfidence``: a reading just over it removes little.
@Suite("Cast removal fades in with confidence")
struct CastConfidenceFadeTests {
  let ramp = CastRemoval.warmthRamp

  func removed(_ confidence: Double) -> Double {
    CastRemoval.removedShare(of: 2.0, confidence: confidence, ramp: ramp)
  }

  @Test func nothingUnderTheThresholdAndLittleJustOverIt() {
    #expect(removed(CastRemoval.minimumConfidence - 0.001) == 0)
    // A sunset's 2.0 of warmth read at 0.255: a tenth of the full fade, where it had been a
    // third of the reading (0.64).
    let justOver = removed(CastRemoval.minimumConfidence + 0.005)
    #expect(justOver < 0.1, "\(justOver)")
  }

  @Test func growsSteadilyToTheUsualShare() {
    let steps = stride(from: CastRemoval.minimumConfidence, through: 0.6, by: 0.005).map(removed)
    for (a, b) in zip(steps, steps.dropFirst()) {
      #expect(b >= a && b - a < 0.25, "\(a) → \(b)")
    }
    // From the full confidence on, the share is the reading times 1.25 × confidence, as before.
    #expect(abs(removed(CastRemoval.fullConfidence) - 2.0 * 0.375) < 1e-9)
    #expect(abs(removed(0.5) - 2.0 * 0.625) < 1e-9)
  }
}
