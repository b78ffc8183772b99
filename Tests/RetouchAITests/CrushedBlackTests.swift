// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchRender
import Testing

@testable import RetouchAI

/// A crushed black point (`(v − b)/(1 − b)`, clipped) is read from the spike it leaves at code
/// 0 of the darkest channel, and Lift Shadows undoes it with its inverse.
@Suite("Crushed black point: read and undone")
struct CrushedBlackTests {
  let engine = SuggestionEngine()

  static func crushed(_ image: Image, _ b: Double) -> Image {
    AnalysisFixtures.mapped(image) { _, v in max(0, (v - b) / (1 - b)) }
  }

  /// Darkest-channel histogram with `spike` of the pixels at 0 and `density` per code value
  /// over the next 64 codes, the rest at mid-grey.
  static func floors(spike: Double, density: Double, total: Int = 100_000) -> [Int] {
    var h = [Int](repeating: 0, count: 256)
    h[0] = Int(spike * Double(total))
    for i in 1...64 { h[i] = Int(density * Double(total)) }
    h[128] = total - h.reduce(0, +)
    return h
  }

  @Test func spikeAgainstTheDensityAboveIt() {
    // 4 % at 0 over 0.2 % per code: 20 codes' worth, about 0.08, capped at 0.06.
    let clear = ExposureMeasurement.crushedBlack(
      Self.floors(spike: 0.04, density: 0.002), total: 100_000)
    #expect(abs(clear - ExposureMeasurement.maxCrushedBlack) < 1e-9, "\(clear)")
    // 1 % over 0.1 % per code: 10 codes, halfway up the ramp, so less than 10/255.
    let weak = ExposureMeasurement.crushedBlack(
      Self.floors(spike: 0.01, density: 0.001), total: 100_000)
    #expect(weak > 0 && weak < 10.0 / 255, "\(weak)")
    // Black as dense as the codes above it is the photo's own: nothing.
    #expect(
      ExposureMeasurement.crushedBlack(Self.floors(spike: 0.02, density: 0.004), total: 100_000)
        == 0)
    // Too few pixels at 0, or a frame nearly all black: nothing.
    #expect(
      ExposureMeasurement.crushedBlack(Self.floors(spike: 0.005, density: 0.0001), total: 100_000)
        == 0)
    #expect(
      ExposureMeasurement.crushedBlack(Self.floors(spike: 0.95, density: 0.0001), total: 100_000)
        == 0)
  }

  /// A spike at 0 under a ratio of 8 (2 % over 0.25 % per code) reads nothing on its own, but
  /// where the clip blackened dark neutrals too (pure black a tenth of the spike or more) it is
  /// halfway up the lower ramp: half of 8/255. Pure black at a twentieth of it counts as none.
  @Test func neutralBlacksLowerTheRatioARampStartsAt() {
    let floors = Self.floors(spike: 0.02, density: 0.0025)
    #expect(ExposureMeasurement.crushedBlack(floors, total: 100_000) == 0)
    #expect(ExposureMeasurement.crushedBlack(floors, total: 100_000, pureBlack: 0.001) == 0)
    let neutral = ExposureMeasurement.crushedBlack(floors, total: 100_000, pureBlack: 0.002)
    #expect(abs(neutral - 0.5 * 8 / 255) < 1e-9, "\(neutral)")
    // A colour clipped in one channel, a stop over (a night scene's lights at 768 px: the
    // ratio 9.3, pure black 0.01–0.04 of the spike), stays on the upper ramp.
    let over = Self.floors(spike: 0.0186, density: 0.002)
    let colourOnly = ExposureMeasurement.crushedBlack(over, total: 100_000, pureBlack: 0.0004)
    #expect(colourOnly == ExposureMeasurement.crushedBlack(over, total: 100_000), "\(colourOnly)")
    #expect(colourOnly < 0.3 * 9.3 / 255, "\(colourOnly)")
    // Past the upper end of both ramps, pure black changes nothing.
    let clear = Self.floors(spike: 0.03, density: 0.0025)
    #expect(
      ExposureMeasurement.crushedBlack(clear, total: 100_000)
        == ExposureMeasurement.crushedBlack(clear, total: 100_000, pureBlack: 0.03))
  }

  /// A dragonfly on a twig against a deep blue sky (d04) and a red flower (d15): untouched, no
  /// crush is read and the photo is left alone; crushed by the harness's 0.10, Lift Shadows
  /// leads and puts back the black level it read (a negative Black Point, `read / 0.25`), and
  /// its edit brings the copy closer to the photo.
  @Test(arguments: ["d04", "d15"])
  func crushIsReadAndUndone(id: String) throws {
    let photo = try AnalysisFixtures.decode(id).image
    let original = engine.analysis(of: photo).exposure
    #expect((original.crushedBlack ?? 1) < 0.01, "\(id): \(original.crushedBlack ?? -1)")
    let copy = Self.crushed(photo, 0.10)
    let read = try #require(engine.analysis(of: copy).exposure.crushedBlack)
    #expect(read >= 0.04, "\(id): \(read)")
    let config = try #require(engine.topSuggestion(for: copy), "\(id)")
    #expect(abs(config.value(of: .blackPoint) + read / 0.25) <= 0.01, "\(id): \(config)")
    let (before, after) = AnalysisFixtures.difference(of: copy, from: photo, fixedBy: config)
    #expect(after < 0.75 * before, "\(id): ΔE*ab \(before) → \(after)")
  }

  /// What a crush clipped lay anywhere under its level, so the restore puts black halfway up
  /// (``ColorToneTransform/crushToe``) rather than at the level itself: on a night shop front
  /// with large black areas (g56) and a field in shade (d02), crushed by 0.10 and restored
  /// at the true level, the restore leaves clearly less than lifting black to the level does
  /// (which on the shop front is further from the photo than the crushed copy).
  @Test(arguments: ["g56", "d02"])
  func clippedBlacksGoToTheMiddleOfTheClip(id: String) throws {
    let photo = try AnalysisFixtures.decode(id).image
    let copy = Self.crushed(photo, 0.10)
    let restore = EditConfig(properties: ToneFit.blackPointRestore(level: 0.10))
    let (before, after) = AnalysisFixtures.difference(of: copy, from: photo, fixedBy: restore)
    let lifted = AnalysisFixtures.mapped(copy) { _, v in 0.10 + 0.90 * v }
    let plain = LabPixels(lifted).meanDifference(to: LabPixels(photo))
    #expect(after < 0.8 * plain && after < before, "\(id): ΔE*ab \(before) → \(plain), \(after)")
  }

  /// A mild crush (0.05) of a pale photo (a nuthatch on a light branch, d11) takes little from
  /// it: the exact inverse of the crush read changes the copy by about a fix's usual bar
  /// (``SuggestionRanker/minimumTopChange``: under it while the crush read 0.034, 2.0 since
  /// its neutral blacks put the spike on the lower ramp and it reads 0.043; the inverse's own
  /// lower bar is checked in `TopSuggestionGainTests`), and `retouch auto`'s edit is that inverse,
  /// bringing the copy back.
  @Test func mildCrushIsUndoneThoughTheChangeIsSmall() throws {
    let photo = try AnalysisFixtures.decode("d11").image
    let copy = Self.crushed(photo, 0.05)
    let analysis = engine.analysis(of: copy)
    let read = try #require(analysis.exposure.crushedBlack)
    #expect(abs(read - 0.05) <= 0.01, "\(read)")
    let measuring = MeasuringCopy(of: PhotoAnalyzer.analysisCopy(of: copy))
    let applied = SuggestionRanker.top(analysis: analysis, disabled: [], measuring: measuring)
    let top = try #require(applied, "the inverse is applied")
    #expect(top.recipe.id == Recipe.liftShadows.id && top.proposal.isExactInverse)
    #expect(top.change < 1.25 * SuggestionRanker.minimumTopChange, "ΔE*ab \(top.change)")
    let config = try #require(engine.autoEdit(for: copy))
    #expect(config.properties == [.blackPoint: -ToneFit.blackPoint(level: read)], "\(config)")
    let (before, after) = AnalysisFixtures.difference(of: copy, from: photo, fixedBy: config)
    #expect(after < 0.5 * before, "ΔE*ab \(before) → \(after)")
  }

  /// A mild crush (0.05) of a city under clouds (g27), whose darkest tones thin out toward
  /// black, reads at half its size; that reading is still the crush's, needed in full (the
  /// untouched photos outside a depth map read under 0.01), so `retouch auto` applies its
  /// inverse and brings the copy back. Needed at half (from 0.01 to 0.04), the copy was left.
  @Test func underReadMildCrushIsStillUndone() throws {
    let photo = try AnalysisFixtures.decode("g27").image
    #expect(engine.autoEdit(for: photo) == nil, "the untouched photo is good as it is")
    let copy = Self.crushed(photo, 0.05)
    let read = try #require(engine.analysis(of: copy).exposure.crushedBlack)
    #expect(read > 0.015 && read < 0.035, "read \(read)")
    let config = try #require(engine.autoEdit(for: copy))
    #expect(config.properties == [.blackPoint: -ToneFit.blackPoint(level: read)], "\(config)")
    let (before, after) = AnalysisFixtures.difference(of: copy, from: photo, fixedBy: config)
    #expect(after < 0.7 * before, "ΔE*ab \(before) → \(after)")
  }

  /// The darkest channel's codes 0...4 are counted at the photo's own size: every pixel of a
  /// small frame, 16-bit values by their high byte, and a point sample (every second pixel of
  /// every second row) of a frame past ``ExposureMeasurement/fullCountSamples``.
  @Test func fullResolutionFloorsCountTheDarkestChannel() {
    // Row y has its darkest channel at code y % 8 (others higher): rows 0...4 are counted.
    func frame(width: Int, height: Int, format: PixelFormat) -> Image {
      var image = Image(width: width, height: height, format: format)
      let channels = format.channelCount
      image.withUnsafeMutableBytes { raw in
        for y in 0..<height {
          let code = y % 8
          for x in 0..<width {
            let i = (y * width + x) * channels
            let rgb = [code + 40, code, code + 9]
            for c in 0..<3 {
              if format.bitDepth == 8 {
                raw[i + c] = UInt8(rgb[c])
              } else {
                // High byte the code, low byte noise that must not count.
                let v = UInt16(rgb[c] << 8 | (x * 37 + c) & 0xFF)
                raw.storeBytes(of: v, toByteOffset: 2 * (i + c), as: UInt16.self)
              }
            }
          }
        }
      }
      return image
    }
    for format in [PixelFormat.rgb8, .rgba16] {
      let count = ExposureMeasurement.fullResolutionFloors(
        PhotoRegion(frame(width: 30, height: 80, format: format)))
      #expect(count.total == 2400, "\(format)")
      #expect(count.floors == [300, 300, 300, 300, 300], "\(format): \(count.floors)")
      #expect(count.pureBlack == 0, "\(format)")
      // Whole rows at 0: every zero with a neighbour has a zero beside it.
      #expect(count.clumped == 1, "\(format)")
    }
    let big = ExposureMeasurement.fullResolutionFloors(
      PhotoRegion(frame(width: 2400, height: 1600, format: .rgb8)))
    #expect(big.total == 1200 * 800)
    // Every second row: codes 0, 2, 4 and 6 only, a quarter of the sampled rows each.
    #expect(big.floors == [240_000, 0, 240_000, 0, 240_000], "\(big.floors)")
    // Zeros on every other pixel of a row (noise-like): none lies beside another.
    var scattered = Image(width: 40, height: 10, format: .rgb8)
    scattered.withUnsafeMutableBytes { raw in
      for i in 0..<400 where i % 2 == 1 { (0..<3).forEach { raw[i * 3 + $0] = 90 } }
    }
    let noise = ExposureMeasurement.fullResolutionFloors(PhotoRegion(scattered))
    #expect(noise.floors[0] == 200 && noise.clumped == 0, "\(noise)")
    #expect(noise.pureBlack == 200, "\(noise)")
    // Pure black is black in every channel (2 and under; a 16-bit value by its high byte).
    var mixed = Image(width: 4, height: 1, format: .rgba16)
    mixed.withUnsafeMutableBytes { raw in
      let pixels: [[UInt16]] = [
        [0, 0x1FF, 0x2FF], [0, 0, 0x300], [0x100, 0x200, 0], [0, 0, 0xFFFF],
      ]
      for (x, p) in pixels.enumerated() {
        for c in 0..<3 { raw.storeBytes(of: p[c], toByteOffset: 2 * (x * 4 + c), as: UInt16.self) }
      }
    }
    let some = ExposureMeasurement.fullResolutionFloors(PhotoRegion(mixed))
    #expect(some.floors[0] == 4 && some.pureBlack == 2, "\(some)")
  }

  /// The full-resolution reading counts as far as the scene is lit: all of it without EXIF or
  /// in daylight, none under dim light (EV100 6 and less), in a frame a third pure black, in a
  /// photo dark on purpose, where the photo is grainy or, with the grain unmeasured, the pixels
  /// at 0 are scattered (noise); never less than the copy's own reading, unless the copy is the
  /// photo itself and grainy.
  @Test func fullResolutionReadingIsTrustedInLitScenes() {
    // 5 % at 0 over 0.4 % per code: 12.5 codes, about 0.049.
    let floors = Array(Self.floors(spike: 0.05, density: 0.004)[0..<5])
    let full = ExposureMeasurement.crushedBlack(floors, total: 100_000)
    #expect(abs(full - 12.5 / 255) < 1e-9, "\(full)")
    /// The exposure facts the reading takes: EV100, pure-black share, dark on purpose, and
    /// the copy's own reading.
    struct Facts {
      var ev: Double?
      var black = 0.04
      var dark = false
      var copy = 0.01
    }
    func read(
      _ f: Facts, clumped: Double = 0.9, sigma: Double? = nil, copyIsPhoto: Bool = false
    ) -> Double {
      ExposureMeasurement.fullResolutionCrush(
        .init(floors: floors, total: 100_000, clumped: clumped), noiseSigma: sigma,
        copyReading: f.copy, darkOnPurpose: f.dark, sceneEV100: f.ev, shadowClipping: f.black,
        copyIsPhoto: copyIsPhoto)
    }
    #expect(abs(read(Facts(ev: nil)) - full) < 1e-12)
    #expect(abs(read(Facts(ev: 13), sigma: 1.0) - full) < 1e-12)
    #expect(read(Facts(ev: 5)) == 0.01)
    let half = read(Facts(ev: 7))
    #expect(abs(half - (0.01 + full) / 2) < 1e-9, "\(half)")
    #expect(read(Facts(ev: nil, black: 0.35)) == 0.01)
    #expect(read(Facts(ev: nil, dark: true)) == 0.01)
    #expect(read(Facts(ev: nil), clumped: 0.4) == 0.01)
    #expect(read(Facts(ev: nil), sigma: 3) == 0.01)
    // Measured clean grain speaks for itself: zeros of fine dark detail, less clumped, count.
    #expect(abs(read(Facts(ev: nil), clumped: 0.4, sigma: 1.0) - full) < 1e-12)
    #expect(read(Facts(ev: nil), clumped: 0.4, sigma: 3) == 0.01)
    // A copy that read more keeps its reading.
    let more = Facts(ev: nil, copy: 0.06)
    #expect(read(more) == 0.06)
    #expect(read(more, sigma: 3) == 0.06)
    // Unless the copy was the photo itself (not resampled) and grainy: it counted the noise.
    #expect(read(more, sigma: 3, copyIsPhoto: true) == 0)
    #expect(read(more, sigma: 1.0, copyIsPhoto: true) == 0.06)
    #expect(read(more, copyIsPhoto: true) == 0.06)
  }

  /// The harness's sensor noise on a studio still (g68) clips single dark pixels to 0: the
  /// count at full size sees a spike, but the clipped pixels are scattered and the photo
  /// grainy, so no crush is read and Lift Shadows does not take the photo from Clean Up.
  @Test func noiseUnderBlackIsNoCrush() throws {
    let photo = try AnalysisFixtures.decode("g68").image
    let noisy = AnalysisFixtures.sensorNoise(photo, a: 0.008, b: 1e-4, seed: 7)
    let count = ExposureMeasurement.fullResolutionFloors(PhotoRegion(noisy))
    #expect(count.clumped < 0.6, "\(count)")
    let analysis = engine.analysis(of: noisy)
    #expect((analysis.exposure.crushedBlack ?? 1) < 0.01, "\(analysis.exposure)")
    let config = try #require(engine.autoEdit(for: noisy))
    #expect(config.value(of: .blackPoint) == 0, "\(config)")
    #expect(config.value(of: .noiseReduction) > 0, "\(config)")
  }

  /// The same noise on a photo no larger than its analysis copy (600 px): the copy is not
  /// resampled, so its own count sees the noise's spike at 0 as well (it read 0.06 and Clean Up
  /// came with a lowered black point); with the grain measured, that reading is dropped.
  @Test func noiseUnderBlackOfASmallPhotoIsNoCrush() throws {
    let photo = try AnalysisFixtures.decode("g68", longEdge: 600).image
    let noisy = AnalysisFixtures.sensorNoise(photo, a: 0.008, b: 1e-4, seed: 7)
    let small = PhotoAnalyzer.analysisCopy(of: noisy)
    #expect(small.size == noisy.size)
    let fromCopy =
      PhotoAnalyzer().analyzeSmall(small, fullSize: noisy.size, metadata: nil).exposure
      .crushedBlack ?? 0
    #expect(fromCopy > 0.03, "the copy's own count: \(fromCopy)")
    let analysis = engine.analysis(of: noisy)
    #expect((analysis.exposure.crushedBlack ?? 1) < 0.01, "\(analysis.exposure)")
    let config = try #require(engine.autoEdit(for: noisy))
    #expect(config.value(of: .blackPoint) == 0, "\(config)")
    #expect(config.value(of: .noiseReduction) > 0, "\(config)")
  }

  /// The key read once a crush is undone (``ExposureMeasurement/restoredKey(_:total:crush:)``):
  /// a frame of greys crushed by 0.10 and restored at 0.10 has the key it had before (within
  /// the histogram's bin width), a restore at 0 leaves the key as it is, and a half restore
  /// lands between.
  @Test func restoredKeyIsTheKeyBeforeTheCrush() {
    let bins = PixelStatistics.histogramBins
    let levels = stride(from: 0.12, through: 0.9, by: 0.02).map { $0 }
    func histogram(_ encoded: [Double]) -> [Int] {
      var h = [Int](repeating: 0, count: bins)
      for e in encoded {
        h[Int((SRGBTables.decodeExact(e) * Double(bins - 1)).rounded())] += 100
      }
      return h
    }
    let original = histogram(levels)
    let crushed = histogram(levels.map { max(0, ($0 - 0.10) / 0.90) })
    let total = 100 * levels.count
    // The log-average of the greys themselves, which the histogram holds to within its bins.
    let exact =
      exp(
        levels.map { log(SRGBTables.decodeExact($0) + ExposureMeasurement.keyEpsilon) }
          .reduce(0, +) / Double(levels.count)) - ExposureMeasurement.keyEpsilon
    let key = ExposureMeasurement.restoredKey(original, total: total, crush: 0)
    #expect(abs(key - exact) < 0.005 * exact, "\(key) against \(exact)")
    let crushedKey = ExposureMeasurement.restoredKey(crushed, total: total, crush: 0)
    let restored = ExposureMeasurement.restoredKey(crushed, total: total, crush: 0.10)
    let half = ExposureMeasurement.restoredKey(crushed, total: total, crush: 0.05)
    #expect(crushedKey < 0.8 * key, "\(crushedKey) against \(key)")
    #expect(abs(restored - key) < 0.01 * key, "\(restored) against \(key)")
    #expect(half > crushedKey && half < restored, "\(crushedKey) < \(half) < \(restored)")
  }

  /// A pier in grey fog (d20, no white in it: the fog is the scene) is left alone. Crushed by
  /// the harness's 0.10, its key fell under the bright key (0.169 → 0.112) and its missing
  /// white read as underexposure: Brighten +1.2 EV led and took the fog to white (ΔE2000 4.2 →
  /// 10.0 from the photo). The key read with the crush undone keeps it bright: Lift Shadows
  /// leads with the crush's inverse and brings the copy closer to the photo.
  @Test func crushedFogIsNotBrightened() throws {
    let photo = try AnalysisFixtures.decode("d20").image
    #expect(engine.autoEdit(for: photo) == nil, "the untouched photo is good as it is")
    let copy = Self.crushed(photo, 0.10)
    let analysis = engine.analysis(of: copy)
    let read = try #require(analysis.exposure.crushedBlack)
    #expect(read > 0.03, "read \(read)")
    #expect(analysis.exposure.suggestedEV < 0.5, "\(analysis.exposure.suggestedEV)")
    let config = try #require(engine.autoEdit(for: copy))
    #expect(config.value(of: .blackPoint) < 0, "\(config)")
    #expect(config.value(of: .exposure) < 0.5, "\(config)")
    let (before, after) = AnalysisFixtures.difference(of: copy, from: photo, fixedBy: config)
    #expect(after < before, "ΔE*ab \(before) → \(after)")
  }

  /// A sunlit portrait (g47) and tomatoes on the vine (g68) crushed by the harness's mild 0.05
  /// at 768 px: shrunk to the analysis copy, averaging spreads the clip over codes 1–3 and the
  /// copy reads no crush or too little; at the photo's own size the spike reads the black point
  /// within 0.02, and Lift Shadows leads with its inverse and brings the copy closer to the
  /// photo. (Not every photo reads this close: the dark rock of a mountain landscape, d08, adds
  /// to the spike, and its 0.05 reads 0.087.)
  @Test(arguments: ["g47", "g68"])
  func mildCrushIsReadAtFullResolution(id: String) throws {
    let photo = try AnalysisFixtures.decode(id).image
    let copy = Self.crushed(photo, 0.05)
    let small = PhotoAnalyzer.analysisCopy(of: copy)
    let fromCopy =
      PhotoAnalyzer().analyzeSmall(small, fullSize: copy.size, metadata: nil).exposure
      .crushedBlack ?? 0
    let read = try #require(engine.analysis(of: copy).exposure.crushedBlack)
    #expect(fromCopy < 0.03, "\(id): copy \(fromCopy)")
    #expect(abs(read - 0.05) <= 0.02, "\(id): \(read)")
    let config = try #require(engine.autoEdit(for: copy), "\(id)")
    #expect(abs(config.value(of: .blackPoint) + read / 0.25) <= 0.01, "\(id): \(config)")
    let (before, after) = AnalysisFixtures.difference(of: copy, from: photo, fixedBy: config)
    #expect(after < 0.6 * before, "\(id): ΔE*ab \(before) → \(after)")
  }
}
