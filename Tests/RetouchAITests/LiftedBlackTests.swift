// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchRender
import Testing

@testable import RetouchAI

/// A lifted black level (`b + (1 − b)·v` in the display values) moves every pixel whose
/// darkest channel was black to one code and leaves nothing under it: the pile is read as the
/// lift (``ExposureAnalysis/liftedBlack``); a sharp floor far above black, where the photo's
/// shadows only approached it, proves one too (``ExposureAnalysis/raisedFloor``). Punch's fix
/// removes it.
@Suite("Lifted black level: read from its pile or its floor, and removed")
struct LiftedBlackTests {
  let engine = SuggestionEngine()

  /// Darkest-channel histogram: `pile` of the pixels spread evenly over `width` codes from
  /// `code` up, `density` per code over the 60 codes above them, the rest at code 150.
  static func floors(
    code: Int, pile: Double, width: Int = 1, density: Double, total: Int = 100_000
  ) -> [Int] {
    var h = [Int](repeating: 0, count: 256)
    for i in code..<(code + width) { h[i] = Int(pile / Double(width) * Double(total)) }
    for i in (code + width)..<(code + width + 60) { h[i] = Int(density * Double(total)) }
    h[150] += total - h.reduce(0, +)
    return h
  }

  /// `measure` (``ExposureMeasurement/liftedBlack(_:bottom:total:)`` by default) of `floors`
  /// at their bottom.
  static func lifted(
    _ floors: [Int], total: Int,
    by measure: ([Int], Int, Int) -> Double = ExposureMeasurement.liftedBlack
  ) -> Double {
    measure(floors, ExposureMeasurement.blackBottomCode(floors, total: total), total)
  }

  @Test func pileAtTheFloorAgainstTheDensityAboveIt() {
    let total = 100_000
    // 2 % at code 20 over 0.2 % per code: a pile of 5 codes' worth; the lift is the code.
    let piled = Self.floors(code: 20, pile: 0.02, density: 0.002)
    #expect(ExposureMeasurement.blackBottomCode(piled, total: total) == 20)
    let read = Self.lifted(piled, total: total)
    #expect(abs(read - 20.0 / 255) < 1e-9, "\(read)")
    // A floor as dense as the codes above it is the photo's own dark tones: no lift.
    let spread = Self.floors(code: 20, pile: 0.002, density: 0.002)
    #expect(Self.lifted(spread, total: total) == 0)
    // Blacks at 0 are not lifted.
    let black = Self.floors(code: 0, pile: 0.05, density: 0.001)
    #expect(Self.lifted(black, total: total) == 0)
  }

  /// Shadows that only approached black leave no pile when lifted, but a sharp floor: much of
  /// the frame within five codes of a bottom far above black. That reads as a raised black
  /// level from 3.5 % there (code 20 and up); a scene's own raised floor, approached gradually,
  /// holds less there (a storm at dusk 1.1 %, a sea of clouds under the sun 1.4 %), and a
  /// floor near black is no lift however much stands on it.
  @Test func sharpFloorFarAboveBlackIsALift() {
    let total = 100_000
    let raised = { Self.lifted($0, total: total, by: ExposureMeasurement.raisedFloor) }
    let lifted = Self.floors(code: 20, pile: 0.05, width: 5, density: 0.01)
    #expect(ExposureMeasurement.blackBottomCode(lifted, total: total) == 20)
    #expect(raised(lifted) == 1)
    #expect(Self.lifted(lifted, total: total) == 0, "no pile: the level is not read from it")
    #expect(raised(Self.floors(code: 20, pile: 0.014, width: 5, density: 0.006)) == 0)
    #expect(raised(Self.floors(code: 8, pile: 0.05, width: 5, density: 0.01)) == 0)
    let between = raised(Self.floors(code: 17, pile: 0.03, width: 5, density: 0.01))
    #expect(between > 0.1 && between < 0.9, "\(between)")
  }

  /// Photos whose shadows approach black without clipping (a night city under a tower's
  /// lights, fruit on a dark cloth, a couple in sunglasses, a flash photo of a man holding a
  /// baby): lifted by the harness's mild 0.08, their blacks leave no pile, and the copies were
  /// left lifted (`retouch auto`: "already good"). The sharp floor now proves the lift, and
  /// the top suggestion takes most of it off: what the floor shows over a clean photo's
  /// (``ToneFit/blackLevelRemoval(_:strength:)``), which leaves the part of the lift a photo
  /// with black in it had under that (ΔE*ab 7.6 → 2.7 on the night city, 5.9 → 2.0 on the
  /// couple).
  @Test(arguments: ["g34", "d25", "g48", "g64"])
  func liftWithoutAPileIsReadAtItsFloor(id: String) throws {
    let photo = try AnalysisFixtures.decode(id).image
    #expect((engine.analysis(of: photo).exposure.raisedFloor ?? 1) == 0, "\(id)")
    let copy = AnalysisFixtures.mapped(photo) { _, v in 0.08 + 0.92 * v }
    let exposure = engine.analysis(of: copy).exposure
    #expect((exposure.liftedBlack ?? 0) < 0.04, "\(id): read from a pile")
    #expect(try #require(exposure.raisedFloor) > 0.9, "\(id)")
    let config = try #require(engine.topSuggestion(for: copy), "\(id)")
    let blackPoint = config.value(of: .blackPoint)
    #expect(blackPoint > 0.2 && blackPoint <= 0.32 + 0.02, "\(id): \(config)")
    let (before, after) = AnalysisFixtures.difference(of: copy, from: photo, fixedBy: config)
    #expect(after < 0.4 * before, "\(id): ΔE*ab \(before) → \(after)")
  }

  /// A Lanczos copy rings under the pile: a few pixels up to 7 codes below it put the bottom
  /// there. The pile is found above them, unless what lies under it is more than a third of
  /// it (then the floor is the photo's own dark tones, not a lift).
  @Test func pileIsFoundAboveAResizesUndershoot() {
    let total = 100_000
    var ringing = Self.floors(code: 26, pile: 0.02, density: 0.002)
    for (code, share) in [(19, 0.0002), (21, 0.0003), (23, 0.0005), (25, 0.001)] {
      ringing[code] = Int(share * Double(total))
    }
    ringing[150] -= 200
    #expect(ExposureMeasurement.blackBottomCode(ringing, total: total) < 26)
    let read = Self.lifted(ringing, total: total)
    #expect(abs(read - 26.0 / 255) < 1e-9, "\(read)")
    var tones = ringing
    tones[24] = Int(0.008 * Double(total))
    tones[150] -= tones[24]
    #expect(Self.lifted(tones, total: total) == 0, "\(tones[19...30])")
  }

  /// The lifted mountains (d08, 0.08) handed over as a 512-px Lanczos copy, as an app passes a
  /// display-size copy: the lift is read at its pile, past the ringing under it, and the top
  /// suggestion takes it off (the bottom alone read no pile, and Punch was not applied).
  @Test func liftIsReadOnALanczosCopy() throws {
    let photo = try AnalysisFixtures.decode("d08", longEdge: 1536).image
    let lifted = AnalysisFixtures.mapped(photo) { _, v in 0.08 + 0.92 * v }
    let copy = lifted.resized(toFitLongEdge: 512)
    let exposure = engine.analysis(of: copy).exposure
    #expect(try #require(exposure.blackBottom) < 0.08 - 1.5 / 255, "no undershoot to test")
    let read = try #require(exposure.liftedBlack)
    #expect(abs(read - 0.08) < 1.5 / 255, "\(read)")
    let config = try #require(engine.topSuggestion(for: copy))
    #expect(abs(config.value(of: .blackPoint) - 0.32) <= 0.02, "\(config)")
  }

  /// Mountains under clouds (d08) and a lit shop front at night (g56), both with true black in
  /// them: untouched, no lift is read; lifted by the harness's mild 0.08, the lift is read
  /// within a code, the top suggestion takes that level off with Black Point (0.08 / 0.25), and
  /// its edit brings the copy nearly all the way back (a tenth of the difference is left).
  /// Their darkest percent reads L* 6–7, where the older reading barely starts, and both
  /// copies were left as they were.
  @Test(arguments: ["d08", "g56"])
  func mildLiftIsReadAndRemoved(id: String) throws {
    let photo = try AnalysisFixtures.decode(id).image
    #expect((engine.analysis(of: photo).exposure.liftedBlack ?? 1) == 0, "\(id)")
    let copy = AnalysisFixtures.mapped(photo) { _, v in 0.08 + 0.92 * v }
    let read = try #require(engine.analysis(of: copy).exposure.liftedBlack)
    #expect(abs(read - 0.08) < 1.5 / 255, "\(id): \(read)")
    let config = try #require(engine.topSuggestion(for: copy), "\(id)")
    #expect(abs(config.value(of: .blackPoint) - 0.32) <= 0.02, "\(id): \(config)")
    let (before, after) = AnalysisFixtures.difference(of: copy, from: photo, fixedBy: config)
    #expect(after < 0.15 * before, "\(id): ΔE*ab \(before) → \(after)")
  }

  /// A face close-up with make-up (g63) whose blackest pixels sit at code 3 and whose darkest
  /// half-percent (lashes, liner) reaches code 12: lifted by 0.16, its 0.5th percentile reads
  /// code 51 where the lift put its black at 43. The fix is sized by the bottom, so it does not
  /// push those dark tones back under their own level (sized by the half-percent, the edit
  /// left a third of the difference; by the bottom, with Black Point, a ninth).
  @Test func liftSizedByTheBlackestPixelsNotTheDarkTones() throws {
    let photo = try AnalysisFixtures.decode("g63").image
    let copy = AnalysisFixtures.mapped(photo) { _, v in 0.16 + 0.84 * v }
    let bottom = try #require(engine.analysis(of: copy).exposure.blackBottom)
    #expect(bottom < 0.16 + 5.0 / 255, "\(bottom)")
    let config = try #require(engine.topSuggestion(for: copy))
    let (before, after) = AnalysisFixtures.difference(of: copy, from: photo, fixedBy: config)
    #expect(after < 0.15 * before, "ΔE*ab \(before) → \(after)")
  }

  /// A frame of one flat colour (a grey card, a solid backdrop) is all one pile with nothing
  /// under it, which is what a lift leaves, but it holds no picture: no lift is read, and the
  /// top suggestion does not move its black point (a grey card at code 128 read a lift of
  /// 0.50 and was taken to code 86). Lifted photos keep their reading (the tests above).
  @Test(arguments: [[128, 128, 128], [255, 205, 155], [40, 90, 160]])
  func flatFrameReadsNoLift(rgb: [Int]) {
    let flat = AnalysisTestPhotos.synthetic(width: 300, height: 200) { _, _ in
      (UInt8(rgb[0]), UInt8(rgb[1]), UInt8(rgb[2]))
    }
    #expect(engine.analysis(of: flat).exposure.liftedBlack == 0, "\(rgb)")
    let config = engine.topSuggestion(for: flat) ?? EditConfig()
    #expect(config.value(of: .blackPoint) == 0, "\(rgb): \(config)")
    #expect(config.value(of: .exposure) == 0, "\(rgb): \(config)")
  }
}

extension AnalysisFixtures {
  /// Mean ΔE*ab (CIE76) of a degraded `copy` from `photo`, before and after `config` is
  /// rendered on it at full size.
  static func difference(
    of copy: Image, from photo: Image, fixedBy config: EditConfig
  ) -> (before: Double, after: Double) {
    let fixed = SuggestionRanker.render(config, on: copy, renderScale: 1)
    let reference = LabPixels(photo)
    return (
      LabPixels(copy).meanDifference(to: reference), LabPixels(fixed).meanDifference(to: reference)
    )
  }
}
