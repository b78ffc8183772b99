// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchRender
import Testing

@testable import RetouchAI

/// The darkest pixels of a hazy frame show the colour of the light through the veil, so a cast
/// laid over haze is read there and removed along with the haze, while haze alone reads none.
@Suite("Veil colour")
struct VeilColourTests {
  let engine = SuggestionEngine()

  /// `image` seen through haze as the evaluation harness makes it (Koschmieder, in linear
  /// light): `I = J·t + A·(1 − t)` with a grey airlight `A`.
  static func hazed(_ image: Image, transmission t: Double, airlight: Double = 0.75) -> Image {
    AnalysisFixtures.mapped(image) { _, v in
      SRGBTables.encodeExact(SRGBTables.decodeExact(v) * t + airlight * (1 - t))
    }
  }

  static func reading(_ image: Image) -> VeilColour.Reading? {
    let stats = PixelStatistics(image)
    return VeilColour.reading(image, luminance: stats.luminancePlane, histogram: stats.histogram)
  }

  /// Flowers and a living room under haze, then the harness's cool cast (0.2) or green cast
  /// (0.15): the veil reads the cast (−0.53 log2 R/B, 0.20 log2 G/√(R·B)) to within 0.05, as
  /// one colour.
  @Test(arguments: ["g77", "d01"])
  func readsTheCastLaidOverHaze(id: String) throws {
    let photo = try AnalysisFixtures.decode(id).image.resized(toFitLongEdge: 512)
    let hazy = Self.hazed(photo, transmission: 0.7)
    let cool = try #require(Self.reading(AnalysisFixtures.cast(hazy, .cool, strength: 0.2)))
    #expect(abs(cool.warmth - 2 * log2(1 / 1.2)) < 0.05, "\(cool)")
    #expect(abs(cool.tint) < 0.05, "\(cool)")
    #expect(cool.spread < ColorMeasurement.veilSpread.lowerBound, "\(cool)")
    let green = try #require(Self.reading(AnalysisFixtures.cast(hazy, .green, strength: 0.15)))
    #expect(abs(green.tint - log2(1.15)) < 0.05, "\(green)")
    #expect(abs(green.warmth) < 0.05, "\(green)")
    let plain = try #require(Self.reading(hazy))
    #expect(abs(plain.warmth) < 0.05 && abs(plain.tint) < 0.05, "haze alone: \(plain)")
  }

  /// A photo with blacks has no veil to read; a bright scene without blacks (cables against a
  /// blue sky) is read, but its darkest pixels are many colours, not one veil.
  @Test func aSceneIsNotAVeil() throws {
    let room = try AnalysisFixtures.decode("d01").image.resized(toFitLongEdge: 512)
    #expect(Self.reading(room) == nil)
    let sky = try AnalysisFixtures.decode("d10").image.resized(toFitLongEdge: 512)
    let reading = try #require(Self.reading(sky))
    #expect(ColorMeasurement.veiled(reading) == 0, "\(reading)")
  }

  /// A veil over a frame of one colour (a kite in a deep blue sky) is one colour too, but its
  /// darkest pixels are the sky washed out: each channel's floor (the kite) reads otherwise,
  /// so it is not taken for the light, and the hazy copy is not warmed.
  @Test func aVeilOverOneColourIsNotTheLight() throws {
    let photo = try AnalysisFixtures.decode("d21").image
    let hazy = Self.hazed(photo, transmission: 0.75)
    let reading = try #require(Self.reading(hazy.resized(toFitLongEdge: 512)))
    #expect(reading.spread < ColorMeasurement.veilSpread.lowerBound, "\(reading)")
    #expect(reading.warmth < -0.3, "the sky washed out: \(reading)")
    #expect(ColorMeasurement.veiled(reading) == 0, "\(reading)")
    let config = try #require(engine.autoEdit(for: hazy))
    #expect(abs(config.value(of: .temperature)) < 0.1, "\(config)")
  }

  /// `retouch auto` on a hazy copy with a cool cast takes both out: the haze (Dehaze) and the
  /// cast (a warmer temperature), and brings the copy most of the way back (the veil comes off
  /// after the balance: taken off before it, the shadows turned blue and the living room kept
  /// half of its difference from the photo); on the hazy copy alone, only the haze.
  @Test(arguments: ["g77", "d01"])
  func autoRemovesHazeAndTheCastUnderIt(id: String) throws {
    let photo = try AnalysisFixtures.decode(id).image
    let hazy = Self.hazed(photo, transmission: 0.7)
    let copy = AnalysisFixtures.cast(hazy, .cool, strength: 0.2)
    let both = try #require(engine.autoEdit(for: copy))
    #expect(both.value(of: .dehaze) > 0.2, "\(both)")
    #expect(both.value(of: .temperature) > 0.3, "\(both)")
    let (before, after) = AnalysisFixtures.difference(of: copy, from: photo, fixedBy: both)
    #expect(after < 0.3 * before, "ΔE*ab \(before) → \(after)")
    let hazeOnly = try #require(engine.autoEdit(for: hazy))
    #expect(hazeOnly.value(of: .dehaze) > 0.2, "\(hazeOnly)")
    #expect(abs(hazeOnly.value(of: .temperature)) < 0.1, "\(hazeOnly)")
    #expect(abs(hazeOnly.value(of: .tint)) < 0.1, "\(hazeOnly)")
  }
}
