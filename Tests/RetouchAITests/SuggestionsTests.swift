// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchIO
import RetouchRender
import RetouchTestSupport
import Testing

@testable import RetouchAI

/// Decoded shared photos, shrunk to 1024 px (the rules do not depend on size; tests stay fast).
enum TestPhotos {
  static func load(_ id: String, keepMetadata: Bool = true) throws -> (Image, PhotoMetadata?) {
    let decoded = try ImageDecoder().decode(SharedPhotos.url(id))
    return (decoded.image.resized(toFitLongEdge: 1024), keepMetadata ? decoded.metadata : nil)
  }

  /// `image` with every linear-light channel multiplied by `gains` (an exposure change or a
  /// colour cast, as a camera would have recorded it), clipped at white.
  static func scaled(_ image: Image, gains: (Double, Double, Double)) -> Image {
    var out = Image(width: image.width, height: image.height, format: .rgb8)
    let n = image.format.channelCount
    let g = [gains.0, gains.1, gains.2]
    let table = (0..<3).map { c in
      (0..<256).map { v -> UInt8 in
        let l = SRGBTables.decodeExact(Double(v) / 255) * g[c]
        return UInt8((SRGBTables.encodeExact(min(l, 1)) * 255).rounded())
      }
    }
    let src = image.format.bitDepth == 8 ? image : image.resized(to: image.size)
    precondition(src.format.bitDepth == 8)
    src.withUnsafeBytes { s in
      out.withUnsafeMutableBytes { d in
        for i in 0..<image.pixelCount {
          for c in 0..<3 { d[i * 3 + c] = table[c][Int(s[i * n + c])] }
        }
      }
    }
    return out
  }
}

@Suite("Suggestions on real photos")
struct SuggestionsTests {
  let engine = SuggestionEngine()

  @Test(arguments: ["d08", "g47", "g63"])
  func goodPhotoIsLeftAlone(id: String) throws {
    let (image, metadata) = try TestPhotos.load(id)
    #expect(engine.topSuggestion(for: image, metadata: metadata) == nil)
  }

  @Test(arguments: ["d08", "g47"])
  func underexposedCopyIsBrightenedFirst(id: String) async throws {
    let (image, _) = try TestPhotos.load(id)
    let dark = TestPhotos.scaled(image, gains: (0.4, 0.4, 0.4))  // −1.3 EV
    let top = try #require(engine.topSuggestion(for: dark))
    // The analysis moderates brightening of dark photos without EXIF (they might be dark on
    // purpose), so less than the full 1.3 EV comes back; a clear brighten it must be.
    #expect(top.value(of: .exposure) > 0.5 && top.value(of: .exposure) < 1.8)
    let list = await engine.suggestions(for: dark)
    #expect(["brighten", "enhance"].contains(list.first?.lookID ?? ""), "\(list.map(\.lookID))")
  }

  @Test(arguments: ["d08", "g47"])
  func warmCastIsCooledDown(id: String) async throws {
    let (image, _) = try TestPhotos.load(id)
    let warm = TestPhotos.scaled(image, gains: (1.3, 1, 1 / 1.3))
    let top = try #require(engine.topSuggestion(for: warm))
    #expect(top.value(of: .temperature) < -0.05)
    let list = await engine.suggestions(for: warm)
    #expect(list.contains { $0.lookID == "cool-down" })
    #expect(!list.contains { $0.lookID == "warm-up" })
  }

  @Test(arguments: ["d08", "g47", "g63"])
  func balancedPhotoGetsNeitherWarmUpNorCoolDown(id: String) async throws {
    let (image, metadata) = try TestPhotos.load(id)
    let list = await engine.suggestions(for: image, metadata: metadata)
    #expect(!list.contains { $0.lookID == "warm-up" || $0.lookID == "cool-down" })
  }

  /// A night street with its EXIF is dark on purpose: not brightened like an underexposed
  /// photo; without the EXIF there is no telling, and it is.
  @Test func nightPhotoWithEXIFIsNotBrightenedLikeAnUnderexposedOne() throws {
    let (image, metadata) = try TestPhotos.load("g66")
    let stripped = engine.topSuggestion(for: image, metadata: nil)
    let withEXIF = engine.topSuggestion(for: image, metadata: metadata)
    let evStripped = stripped?.value(of: .exposure) ?? 0
    let evEXIF = withEXIF?.value(of: .exposure) ?? 0
    #expect(evStripped >= 0.5, "without EXIF: \(evStripped)")
    #expect(evEXIF <= evStripped * 0.6, "with EXIF \(evEXIF) vs stripped \(evStripped)")
  }

  @Test func smallerLimitKeepsTheBestInOrder() async throws {
    let (image, metadata) = try TestPhotos.load("s01")
    let all = await engine.suggestions(
      for: image, metadata: metadata, options: .init(thumbnailMaxDimension: 0))
    #expect(all.count >= 4 && all.count <= 10)
    let three = await engine.suggestions(
      for: image, metadata: metadata,
      options: .init(maxSuggestions: 3, thumbnailMaxDimension: 0))
    #expect(three.map(\.lookID) == Array(all.prefix(3)).map(\.lookID))
    let zero = await engine.suggestions(
      for: image, metadata: metadata, options: .init(maxSuggestions: 0, thumbnailMaxDimension: 0))
    #expect(zero.map(\.lookID) == Array(all.prefix(1)).map(\.lookID), "the limit is at least 1")
  }

  @Test func originalLeadsOnAGoodPhotoOnly() async throws {
    let (good, metadata) = try TestPhotos.load("g47")
    let list = await engine.suggestions(
      for: good, metadata: metadata, options: .init(offerOriginal: true, thumbnailMaxDimension: 0))
    #expect(list.first?.lookID == "original")
    #expect(list.first?.config == .neutral)
    let dark = TestPhotos.scaled(good, gains: (0.3, 0.3, 0.3))
    let fixes = await engine.suggestions(
      for: dark, options: .init(offerOriginal: true, thumbnailMaxDimension: 0))
    #expect(!fixes.contains { $0.lookID == "original" })
  }

  @Test func themesComeLastAndChangeNothingElse() async throws {
    let (image, metadata) = try TestPhotos.load("d08")
    let plain = await engine.suggestions(
      for: image, metadata: metadata, options: .init(maxSuggestions: 4, thumbnailMaxDimension: 0))
    let themed = await engine.suggestions(
      for: image, metadata: metadata,
      options: .init(maxSuggestions: 4, includeThemes: true, thumbnailMaxDimension: 0))
    #expect(!plain.contains { $0.isTheme })
    let others = themed.filter { !$0.isTheme }
    #expect(others.map(\.lookID) == plain.map(\.lookID))
    #expect(others.map(\.config) == plain.map(\.config))
    let firstTheme = try #require(themed.firstIndex { $0.isTheme })
    #expect(themed[firstTheme...].allSatisfy { $0.isTheme })
    #expect(themed.count - firstTheme >= 3)
  }

  @Test func disabledLooksAreNeverOffered() async throws {
    let (image, _) = try TestPhotos.load("d08")
    let dark = TestPhotos.scaled(image, gains: (0.4, 0.4, 0.4))
    let all = await engine.suggestions(for: dark, options: .init(thumbnailMaxDimension: 0))
    let first = try #require(all.first?.lookID)
    let without = await engine.suggestions(
      for: dark, options: .init(disabledLooks: [first, "noir"], thumbnailMaxDimension: 0))
    #expect(!without.contains { $0.lookID == first })
    let top = engine.topSuggestion(for: dark, disabledLooks: [first])
    #expect(top != all.first?.config)
  }

  @Test func cancelledTaskGetsAnEmptyList() async throws {
    let (image, metadata) = try TestPhotos.load("s01")
    let task = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      return await engine.suggestions(for: image, metadata: metadata)
    }
    #expect(await task.value.isEmpty)
  }

  @Test func sameInputSameOutputBitForBit() async throws {
    let (image, metadata) = try TestPhotos.load("s01")
    let options = SuggestionOptions(includeThemes: true, thumbnailMaxDimension: 128)
    let a = await engine.suggestions(for: image, metadata: metadata, options: options)
    let b = await engine.suggestions(for: image, metadata: metadata, options: options)
    #expect(a.map(\.config) == b.map(\.config))
    #expect(a.map(\.score) == b.map(\.score))
    for (x, y) in zip(a, b) {
      let tx = try #require(x.thumbnail)
      let ty = try #require(y.thumbnail)
      #expect(tx.hasSamePixels(as: ty), "\(x.lookID) thumbnail differs")
      #expect(tx.size.longEdge == 128)
    }
  }

  /// Grain shows at 100 %, not on the 160 px copy the other recipes are measured on (an 8 MP
  /// photo's grain averages away there, and Clean Up was never offered). Measured on a
  /// full-resolution crop, it is offered to the grainy copy and `autoEdit` applies it;
  /// `topSuggestion`, which does not measure grain, does not, and the clean original gets
  /// neither.
  @Test func grainyPhotoIsCleanedUp() async throws {
    let original = try AnalysisFixtures.decode("d08", longEdge: 2048).image
    let grainy = AnalysisFixtures.noisy(original, sigma: 10, seed: 7)
    let list = await engine.suggestions(for: grainy, options: .init(thumbnailMaxDimension: 0))
    let cleanUp = try #require(
      list.first { $0.lookID == "clean-up" }, "offered: \(list.map(\.lookID))")
    #expect(cleanUp.config.value(of: .noiseReduction) >= 0.4)
    let auto = try #require(engine.autoEdit(for: grainy), "auto left the grainy copy alone")
    #expect(auto.value(of: .noiseReduction) >= 0.4, "\(auto)")
    #expect((engine.topSuggestion(for: grainy)?.value(of: .noiseReduction) ?? 0) == 0)
    let clean = await engine.suggestions(for: original, options: .init(thumbnailMaxDimension: 0))
    #expect(!clean.contains { $0.lookID == "clean-up" }, "\(clean.map(\.lookID))")
    #expect(engine.autoEdit(for: original) == nil)
  }

  /// A recipe that fixes the colour and also reduces noise (Enhance on a grainy photo) is judged
  /// by the larger of its change on the small copy and its noise reduction's change at full
  /// resolution: on the small copy its grain and its noise reduction both vanish, and a slight
  /// tint fix alone would leave it under the bar `autoEdit` applies.
  @Test func noiseReductionInAMixedRecipeCountsAtFullSize() throws {
    let original = try AnalysisFixtures.decode("d08", longEdge: 2048).image
    let grainy = AnalysisFixtures.noisy(original, sigma: 10, seed: 7)
    let small = PhotoAnalyzer.analysisCopy(of: grainy)
    let analysis = PhotoAnalyzer().analyzeSmall(small, fullSize: grainy.size, metadata: nil)
    let ranker = SuggestionRanker(
      analysis: analysis, measuring: MeasuringCopy(of: small),
      detailCrop: SuggestionRanker.detailCrop(of: grainy, around: analysis.subject.region))
    func change(_ p: [EditSettingType: Double]) -> Double {
      ranker.measured(
        SuggestionRanker.Candidate(
          recipe: .enhance, proposal: RecipeProposal(config: EditConfig(properties: p), need: 0.5),
          score: 1)
      ).change
    }
    let tint = change([.tint: 0.03])
    let mixed = change([.tint: 0.03, .noiseReduction: 0.9])
    #expect(tint < SuggestionRanker.minimumTopChange, "tint alone \(tint)")
    #expect(mixed >= SuggestionRanker.minimumTopChange, "tint with noise reduction \(mixed)")
  }

  /// `topSuggestion` applies the shared rules (skin protection's trial transforms) only to the
  /// recipes it ranks first; it must pick what the full ranked list puts first, at every place
  /// in that list. Walked by disabling each first pick in turn, on face photos and on a black
  /// and white copy of one (where the rules drop the colour-only recipes).
  @Test(arguments: ["s01", "g46", "g63", "g65", "s01 grey"])
  func firstProposalIsTheRankedListsFirst(id: String) throws {
    let (photo, metadata) = try TestPhotos.load(String(id.prefix(3)))
    let image = id.hasSuffix("grey") ? MonochromeTests.grey(photo) : photo
    let small = PhotoAnalyzer.analysisCopy(of: image)
    let analysis = PhotoAnalyzer().analyzeSmall(small, fullSize: image.size, metadata: metadata)
    let recipes = Recipe.all.filter { $0.kind != .theme }
    var disabled: Set<String> = []
    var walked = 0
    while true {
      let ranked = SuggestionRanker.proposals(for: analysis, from: recipes, disabled: disabled)
      let first = SuggestionRanker.firstProposal(
        for: analysis, from: recipes, disabled: disabled)
      #expect(first?.recipe.id == ranked.first?.recipe.id, "\(id) after \(disabled.sorted())")
      #expect(first?.proposal.config == ranked.first?.proposal.config, "\(id)")
      #expect(first?.score == ranked.first?.score, "\(id)")
      guard let next = ranked.first else { break }
      disabled.insert(next.recipe.id)
      walked += 1
    }
    #expect(walked >= 5, "\(id): only \(walked) proposals")
    if id.hasSuffix("grey") {
      // The rules dropped recipes whose drafts exist: the walk went past them.
      let drafts = recipes.filter { $0.draft(for: analysis) != nil }
      #expect(drafts.count > walked, "\(id): no draft was dropped by the rules")
    }
  }

  /// Skin on the face photos keeps its hue (within 3°) under every suggestion but the themes,
  /// measured on the face region rendered with RetouchRender. (g46 replaces g47: the face
  /// detector finds no face in g47, so the test could not run.) g48, a couple before sunlit
  /// rock, reads a cast no correction removes; True Color, which removes all of it, had moved
  /// their skin by 5.2°.
  @Test(arguments: ["s01", "g46", "g48", "g63", "g65"])
  func skinHueIsKept(id: String) async throws {
    let (image, metadata) = try TestPhotos.load(id)
    let small = PhotoAnalyzer.analysisCopy(of: image)
    let analysis = PhotoAnalyzer().analyzeSmall(small, fullSize: image.size, metadata: metadata)
    let face = try #require(analysis.naturallyLitFaces.first, "no face found in \(id)")
    let list = await engine.suggestions(
      for: image, metadata: metadata, options: .init(thumbnailMaxDimension: 0))
    let crop = SkinSample.crop(small, to: face.bounds)
    let before = try #require(SkinSample.meanSkinLab(crop))
    for s in list where !s.isTheme {
      let scale = Double(crop.size.longEdge) / Double(image.size.longEdge)
      let after = try #require(
        SkinSample.meanSkinLab(
          crop.applyingEditConfig(s.config, renderScale: scale, includesVignette: false),
          mask: crop))
      let shift = LabColor.hueDifference(LabColor.hue(before), LabColor.hue(after))
      #expect(abs(shift) <= 3, "\(id) \(s.lookID): skin hue moved \(shift)°")
    }
  }
}

/// Skin pixels of a face crop (the Chai–Ngan YCbCr rule), as the evaluation harness selects them.
enum SkinSample {
  static func crop(_ image: Image, to r: NormalizedRect) -> Image {
    let x0 = Int(r.x * Double(image.width)), y0 = Int(r.y * Double(image.height))
    let w = max(1, min(image.width - x0, Int(r.width * Double(image.width))))
    let h = max(1, min(image.height - y0, Int(r.height * Double(image.height))))
    var out = Image(width: w, height: h, format: .rgb8)
    for y in 0..<h {
      for x in 0..<w {
        out.setPixel(x: x, y: y, Array(image.pixel(x: x0 + x, y: y0 + y).prefix(3)))
      }
    }
    return out
  }

  /// Mean Lab of the pixels that pass the skin rule in `mask` (default: `image` itself).
  static func meanSkinLab(_ image: Image, mask: Image? = nil) -> SIMD3<Double>? {
    let m = mask ?? image
    var sum = SIMD3<Double>.zero
    var count = 0
    for y in 0..<image.height {
      for x in 0..<image.width {
        let q = m.pixel(x: x, y: y)
        let (r, g, b) = (Double(q[0]), Double(q[1]), Double(q[2]))
        let cb = 128 - 0.168736 * r - 0.331264 * g + 0.5 * b
        let cr = 128 + 0.5 * r - 0.418688 * g - 0.081312 * b
        guard (77...127).contains(cb), (133...173).contains(cr) else { continue }
        let p = image.pixel(x: x, y: y)
        sum += LabColor.lab(r: Double(p[0]) / 255, g: Double(p[1]) / 255, b: Double(p[2]) / 255)
        count += 1
      }
    }
    return count >= 20 ? sum / Double(count) : nil
  }
}
