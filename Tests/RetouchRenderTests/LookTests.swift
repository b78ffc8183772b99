// SPDX-License-Identifier: Apache-2.0

import RetouchCore
import RetouchTestSupport
import Testing

@testable import RetouchRender

private func look(_ l: Look, strength: Double = 1) -> ColorToneTransform {
  ColorToneTransform(EditConfig(look: LookSelection(l, strength: strength)), colorSpace: .sRGB)
}

/// A spread of test colours: greys, primaries, muted and skin tones.
private let samples: [(Float, Float, Float)] = [
  (0, 0, 0), (1, 1, 1), (0.5, 0.5, 0.5), (0.9, 0.2, 0.1), (0.1, 0.7, 0.2), (0.2, 0.3, 0.9),
  (0.85, 0.64, 0.52), (0.45, 0.5, 0.58), (0.3, 0.25, 0.1),
]

@Suite("Looks")
struct LookTests {
  @Test(arguments: [Look.noir, .mono, .tonal])
  func blackAndWhiteLooksGiveNeutralGreys(l: Look) {
    let t = look(l)
    for c in samples {
      let out = t.apply(c.0, c.1, c.2)
      #expect(abs(out.0 - out.1) < 1e-5 && abs(out.1 - out.2) < 1e-5, "\(l): \(c) → \(out)")
    }
  }

  @Test func blackAndWhiteContrastOrderIsNoirMonoTonal() {
    func spread(_ l: Look) -> Float {
      let t = look(l)
      return t.apply(0.7, 0.7, 0.7).0 - t.apply(0.3, 0.3, 0.3).0
    }
    let (noir, mono, tonal) = (spread(.noir), spread(.mono), spread(.tonal))
    #expect(noir > mono + 0.05, "noir \(noir), mono \(mono)")
    #expect(mono > tonal + 0.05, "mono \(mono), tonal \(tonal)")
    #expect(abs(mono - 0.4) < 1e-3, "mono keeps grey levels")
  }

  @Test func sepiaGivesBrowns() {
    let t = look(.sepia)
    for c in samples.dropFirst(2) {
      let out = t.apply(c.0, c.1, c.2)
      #expect(out.0 > out.1 && out.1 > out.2, "\(c) → \(out)")
    }
    #expect(t.apply(0, 0, 0) == (0, 0, 0))
  }

  @Test func fadeLiftsBlackAndMutesColour() {
    let t = look(.fade)
    let black = t.apply(0, 0, 0)
    #expect(black.0 > 0.08 && black.1 > 0.08 && black.2 > 0.08, "\(black)")
    let red = t.apply(0.9, 0.2, 0.1)
    #expect(max(red.0, red.1, red.2) - min(red.0, red.1, red.2) < 0.6)
  }

  @Test func colourLooksHaveTheirCharacter() {
    // Chrome: more chroma on a muted colour.
    let muted: (Float, Float, Float) = (0.45, 0.5, 0.58)
    let chrome = look(.chrome).apply(muted.0, muted.1, muted.2)
    #expect(chrome.2 - chrome.0 > muted.2 - muted.0 + 0.02, "chrome \(chrome)")
    // Instant and transfer: a grey turns warm.
    for l in [Look.instant, .transfer] {
      let g = look(l).apply(0.5, 0.5, 0.5)
      #expect(g.0 > g.2 + 0.02, "\(l): \(g)")
    }
    // Process: blue shadows, yellow-green highlights.
    let process = look(.process)
    let shadow = process.apply(0.05, 0.05, 0.05)
    let highlight = process.apply(0.95, 0.95, 0.95)
    #expect(shadow.2 > shadow.0 + 0.05, "process shadow \(shadow)")
    #expect(highlight.1 > highlight.2 + 0.05 && highlight.1 >= highlight.0, "process \(highlight)")
  }

  @Test(arguments: Look.allCases)
  func strengthZeroIsIdentityAndStrengthBlends(l: Look) {
    #expect(look(l, strength: 0).isIdentity)
    let full = look(l)
    let half = look(l, strength: 0.5)
    var changed = false
    for c in samples {
      let f = full.apply(c.0, c.1, c.2)
      let h = half.apply(c.0, c.1, c.2)
      #expect(abs(h.0 - (c.0 + f.0) / 2) < 1e-5, "\(l) red at \(c)")
      #expect(abs(h.1 - (c.1 + f.1) / 2) < 1e-5, "\(l) green at \(c)")
      #expect(abs(h.2 - (c.2 + f.2) / 2) < 1e-5, "\(l) blue at \(c)")
      changed = changed || abs(f.0 - c.0) + abs(f.1 - c.1) + abs(f.2 - c.2) > 0.05
    }
    #expect(changed, "\(l) changes nothing")
    // Strength outside 0…1 is clamped.
    #expect(look(l, strength: 3).apply(0.3, 0.5, 0.7) == full.apply(0.3, 0.5, 0.7))
  }

  @Test(arguments: Look.allCases)
  func lookCurvesAreMonotonic(l: Look) {
    let r = l.recipe
    var previous: (Float, Float, Float) = (-1, -1, -1)
    for i in 0...256 {
      let v = Float(i) / 256
      let c = (r.red(v), r.green(v), r.blue(v))
      #expect(c.0 >= previous.0 && c.1 >= previous.1 && c.2 >= previous.2, "\(l) at \(v)")
      #expect((0...1).contains(c.0) && (0...1).contains(c.1) && (0...1).contains(c.2))
      previous = c
    }
  }
}
