// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchRender
import Testing

@testable import RetouchAI

/// A patch of clipped white that is not white shows the cast given to the photo after it
/// clipped; it is read only from a large, flat patch near white, and removed whole.
@Suite("Clipped white")
struct ClippedWhiteTests {
  let engine = SuggestionEngine()

  /// A 100 × 100 frame: `patch` rows of `white` at the top, then a textured mid-grey scene.
  static func frame(
    patch: Int = 10, _ white: (Int) -> (UInt8, UInt8, UInt8) = { _ in (255, 255, 255) }
  ) -> Image {
    AnalysisTestPhotos.synthetic(width: 100, height: 100) { x, y in
      if y < patch { return white(x) }
      let v = UInt8(90 + (x * 7 + y * 13) % 60)
      return (v, v &+ 4, v &- 3)
    }
  }

  /// The harness's casts of strength `s` (linear gains, grey keeps its luminance) on a frame
  /// with clipped white: the warm cast is read exactly (green is not clipped), the cool one as
  /// twice its red against the clipped top (−0.68 for the strong cast's −0.76).
  @Test(arguments: [0.15, 0.3])
  func readsTheCastGivenAfterTheWhiteClipped(s: Double) throws {
    let luma = ColorSpace.sRGB.lumaWeights
    for warm in [true, false] {
      let (r, b) = warm ? (1 + s, 1 / (1 + s)) : (1 / (1 + s), 1 + s)
      let k = Double(luma.r) * r + Double(luma.g) + Double(luma.b) * b
      let cast = AnalysisFixtures.gained(Self.frame(), r / k, 1 / k, b / k)
      let reading = try #require(ClippedWhite.reading(cast)?.warmth, "warm \(warm), s \(s)")
      let truth = log2(r / b)
      if warm {
        // To within the 8-bit codes of green near the top.
        #expect(abs(reading - truth) < 0.03, "\(reading) for a cast of \(truth)")
      } else {
        #expect(reading < 0.8 * truth && reading > truth - 0.02, "\(reading) for \(truth)")
      }
    }
  }

  /// The harness's green and magenta casts of strength `s` (green scaled against red and blue,
  /// a grey kept as bright): green clips and reads at least 0.7 of the cast, magenta leaves
  /// green under the top and reads a little of it; neither reads blue–amber.
  @Test(arguments: [0.1, 0.2])
  func readsAGreenOrMagentaWhite(s: Double) throws {
    let luma = ColorSpace.sRGB.lumaWeights
    let kg = Double(luma.r) + Double(luma.g) * (1 + s) + Double(luma.b)
    let green = try #require(
      ClippedWhite.reading(AnalysisFixtures.gained(Self.frame(), 1 / kg, (1 + s) / kg, 1 / kg)))
    let truth = log2(1 + s)
    #expect(green.tint >= 0.7 * truth && green.tint <= truth, "\(green) for \(truth)")
    #expect(abs(green.warmth) < 0.01)
    let km = Double(luma.r) * (1 + s) + Double(luma.g) + Double(luma.b) * (1 + s)
    let magenta = try #require(
      ClippedWhite.reading(
        AnalysisFixtures.gained(Self.frame(), (1 + s) / km, 1 / km, (1 + s) / km)))
    #expect(magenta.tint < -0.02 && magenta.tint > -truth, "\(magenta) for \(-truth)")
    #expect(magenta.warmth == 0)
  }

  @Test func whiteReadsNoCast() {
    #expect(ClippedWhite.reading(Self.frame()) == .init(warmth: 0, tint: 0))
    // Red and blue clipped, green not: a magenta white says nothing about blue–amber.
    #expect(ClippedWhite.reading(Self.frame { _ in (255, 240, 255) })?.warmth == 0)
    // Green lowest, red clipped: pink chrome under a magenta cast, not a cool white (it read
    // −0.54 when taken as one).
    #expect(ClippedWhite.reading(Self.frame { _ in (255, 231, 251) }) == .init(warmth: 0, tint: 0))
  }

  @Test func noReadingWithoutAFlatPatchNearWhite() {
    #expect(ClippedWhite.reading(Self.frame(patch: 0)) == nil, "nothing clipped")
    // A pale sky clipping in green and blue, its red spread over 50 codes.
    let sky = Self.frame(patch: 30) { x in (UInt8(200 + x / 2), 255, 255) }
    #expect(ClippedWhite.reading(sky) == nil)
    // A blue sky clipped in blue alone, flat: a colour, too far from white.
    #expect(ClippedWhite.reading(Self.frame(patch: 30) { _ in (176, 216, 255) }) == nil)
    // A tinted patch of 0.1 % of the frame (ten pixels).
    let speck = AnalysisTestPhotos.synthetic(width: 100, height: 100) { x, y in
      y == 0 && x < 10 ? (255, 250, 223) : (120, 124, 117)
    }
    #expect(ClippedWhite.reading(speck) == nil)
  }

  /// Photos whose blown white is pure white (the dandelions against a low sun, d02, warm and
  /// dark on purpose, left cast by every other reading; the iPhone landscape, g77) given the
  /// harness's casts: the clipped white reads the cast, and the top suggestion takes it out.
  @Test(arguments: ["d02", "g77"])
  func castOfAPhotoWithBlownWhiteIsRemoved(id: String) throws {
    let original = try CorrectionEvidenceTests.photo(id)
    #expect(engine.analysis(of: original).color.clippedWhiteWarmth == 0)
    #expect(engine.topSuggestion(for: original) == nil, "the untouched photo is good as it is")
    for warm in [true, false] {
      let cast = CorrectionEvidenceTests.strongCast(original, warm: warm)
      let config = try #require(engine.topSuggestion(for: cast), "warm \(warm)")
      #expect(warm ? config.value(of: .temperature) < 0 : config.value(of: .temperature) > 0)
      // The colours that did not clip are back to within a fifth of the cast (the estimates
      // read the dandelions' cast 0.4–0.6 short, or the wrong way, and left it).
      let fixed = cast.applyingEditConfig(config)
      let error =
        Self.warmth(of: fixed, unclippedIn: cast) - Self.warmth(of: original, unclippedIn: cast)
      #expect(abs(error) < 0.2 * log2(1.3 * 1.3), "\(id) warm \(warm): \(error) after \(config)")
    }
  }

  /// A landscape with a blown sky (g04) given the harness's mild green cast: every estimate
  /// read too little of it to act and the copy was left green; its clipped white shows the
  /// cast, and the top suggestion takes most of it out.
  @Test func mildGreenCastOfAPhotoWithBlownWhiteIsRemoved() throws {
    let original = try CorrectionEvidenceTests.photo("g04")
    #expect(engine.analysis(of: original).color.clippedWhiteTint == 0)
    let luma = ColorSpace.sRGB.lumaWeights
    let k = Double(luma.r) + Double(luma.g) * 1.1 + Double(luma.b)
    let green = AnalysisFixtures.gained(original, 1 / k, 1.1 / k, 1 / k)
    let config = try #require(engine.topSuggestion(for: green))
    let fixed = green.applyingEditConfig(config)
    let own = Self.colour(of: original, unclippedIn: green).tint
    let cast = Self.colour(of: green, unclippedIn: green).tint - own
    let left = Self.colour(of: fixed, unclippedIn: green).tint - own
    #expect(abs(left) < 0.4 * abs(cast), "tint \(cast) → \(left) by \(config)")
  }

  /// A ladybird on grass with a blown white (d14) given the harness's green casts: the
  /// estimates read the green copies cooler than the photo (−0.25 → −0.37, −0.40) and they
  /// were warmed with the tint fix. The white, clipped in green alone, reads the blue–amber
  /// change exactly (none), so only the tint is taken out.
  @Test(arguments: [0.1, 0.2])
  func greenWhiteKeepsTheBlueAmberBalance(s: Double) throws {
    let original = try CorrectionEvidenceTests.photo("d14")
    let green = AnalysisFixtures.cast(original, .green, strength: s)
    let white = try #require(engine.analysis(of: green).color.clippedWhiteWarmth)
    #expect(abs(white) < 0.02)
    let config = try #require(engine.topSuggestion(for: green))
    #expect(abs(config.value(of: .temperature)) < 0.02, "\(config)")
    let fixed = green.applyingEditConfig(config)
    let own = Self.colour(of: original, unclippedIn: green)
    let cast = Self.colour(of: green, unclippedIn: green).tint - own.tint
    let left = Self.colour(of: fixed, unclippedIn: green)
    #expect(abs(left.tint - own.tint) < 0.4 * cast, "tint \(cast) → \(left) by \(config)")
    #expect(abs(left.warmth - own.warmth) < 0.1, "warmth \(own.warmth) → \(left.warmth)")
  }

  /// log2 R/B of the mean linear colour of `image` over the pixels with no channel at 0 or
  /// 255 in `mask`.
  static func warmth(of image: Image, unclippedIn mask: Image) -> Double {
    colour(of: image, unclippedIn: mask).warmth
  }

  /// log2 R/B and log2 G/√(R·B) of the mean linear colour of `image` over the pixels with no
  /// channel at 0 or 255 in `mask`.
  static func colour(of image: Image, unclippedIn mask: Image) -> ClippedWhite.Reading {
    var sum = SIMD3<Double>()
    image.withUnsafeBytes { p in
      mask.withUnsafeBytes { m in
        for i in 0..<image.pixelCount {
          let c = (m[3 * i], m[3 * i + 1], m[3 * i + 2])
          guard min(c.0, c.1, c.2) > 0, max(c.0, c.1, c.2) < 255 else { continue }
          sum += SIMD3(
            SRGBTables.decodeExact(Double(p[3 * i]) / 255),
            SRGBTables.decodeExact(Double(p[3 * i + 1]) / 255),
            SRGBTables.decodeExact(Double(p[3 * i + 2]) / 255))
        }
      }
    }
    return ClippedWhite.Reading(
      warmth: log2(sum.x / sum.z), tint: log2(sum.y / (sum.x * sum.z).squareRoot()))
  }
}
