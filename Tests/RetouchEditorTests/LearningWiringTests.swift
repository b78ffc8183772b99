// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchAI
import RetouchCore
import RetouchEditor
import RetouchIO
import RetouchRender
import RetouchTestSupport
import Testing

/// Learning from end to end: an editing session's export becomes a record in the store, and an
/// engine made on the store adapts later suggestions for similar photos.
@Suite("Learning wired into the session and the engine")
struct LearningWiringTests {
  private func temporaryStore() -> LearningStore {
    LearningStore(
      url: FileManager.default.temporaryDirectory
        .appendingPathComponent("retouch-learning-\(UUID().uuidString).json"))
  }

  private func suggestion(_ id: String, _ config: EditConfig) -> EditSuggestion {
    EditSuggestion(
      lookID: id, title: LocalizedText(id, zh: id), symbolName: "wand.and.stars", kind: .style,
      config: config, thumbnail: nil, score: 1)
  }

  @Test func anExportAfterSuggestionsIsRecordedOncePerSession() async throws {
    let store = temporaryStore()
    defer { try? store.reset() }
    let recorder = LearningRecorder(store: store)
    let matte = EditConfig(properties: [.contrast: -0.2, .blacks: 0.1])
    let offered = [
      suggestion("vivid", EditConfig(properties: [.saturation: 0.3])), suggestion("matte", matte),
    ]
    // A stand-in engine: the offered list, ranked on the photo's real analysis.
    let c = EditController(
      previewMaxDimension: 256,
      suggestionProvider: { image, metadata, _ in
        SuggestionResult(
          offered, analysis: SuggestionEngine().analysis(of: image, metadata: metadata))
      },
      learning: recorder)
    try await c.prepare(source: FileEditSource(url: SharedPhotos.url("g04")))
    c.processAI()
    #expect(await c.settledSuggestions().suggestions.count == 2)
    c.applySuggestion(offered[1])
    c.addConfig(EditSettingType.saturation.setting.change(by: -0.15))
    _ = try await c.exportData()
    _ = try await c.exportData(type: .heic)

    let records = store.load().records
    #expect(records.count == 1)
    #expect(recorder.lastWarning == nil)
    let record = try #require(records.first)
    #expect(record.keptLook == "matte")
    #expect(record.offeredLooks == ["vivid", "matte"])
    // The move after the look, not the look itself.
    #expect(record.typedSliderDeltas == [.saturation: -0.15])
  }

  @Test func suggestionsWithoutAnAnalysisRecordNothing() async throws {
    let store = temporaryStore()
    defer { try? store.reset() }
    let offered = [suggestion("vivid", EditConfig(properties: [.saturation: 0.3]))]
    let c = EditController(
      previewMaxDimension: 256, suggestionProvider: { _, _, _ in SuggestionResult(offered) },
      learning: LearningRecorder(store: store))
    try await c.prepare(source: FileEditSource(url: SharedPhotos.url("g04")))
    c.processAI()
    #expect(await c.settledSuggestions().suggestions.count == 1)
    c.applySuggestion(offered[0])
    _ = try await c.exportData()
    #expect(store.learnedEditCount == 0)
  }

  @Test func theEngineHandsItsAnalysisToTheSession() async throws {
    let photo = try ImageDecoder().decode(SharedPhotos.url("g04"))
    let engine = SuggestionEngine()
    let result = await engine.suggestionResult(for: photo.image, metadata: photo.metadata)
    // The analysis travels with the list, equal to measuring the photo again.
    #expect(result.analysis == engine.analysis(of: photo.image, metadata: photo.metadata))
    #expect(
      result.suggestions.map(\.lookID)
        == (await engine.suggestions(for: photo.image, metadata: photo.metadata)).map(\.lookID))
  }

  @Test func aSessionWithoutSuggestionsRecordsNothing() async throws {
    let store = temporaryStore()
    defer { try? store.reset() }
    let c = EditController(previewMaxDimension: 256, learning: LearningRecorder(store: store))
    try await c.prepare(source: FileEditSource(url: SharedPhotos.url("g04")))
    c.addConfig(EditSettingType.exposure.setting.change(by: 0.2))
    _ = try await c.exportData()
    #expect(store.learnedEditCount == 0)
  }

  @Test func theEngineMovesAKeptLookUpForSimilarPhotosOnly() async throws {
    let photo = try ImageDecoder().decode(SharedPhotos.url("d08"))
    let plain = await SuggestionEngine().suggestions(
      for: photo.image, metadata: photo.metadata,
      options: SuggestionOptions(thumbnailMaxDimension: 0))
    let styles = plain.filter { $0.kind != .original }
    try #require(styles.count >= 4, "d08 needs a few suggestions for this test")
    let favourite = styles[3].lookID
    let summary = PhotoSummary(
      analysis: SuggestionEngine().analysis(of: photo.image, metadata: photo.metadata))
    let habit = (0..<5).map { i in
      LearningRecord(
        photo: summary, offeredLooks: plain.map(\.lookID), keptLook: favourite, sliderDeltas: [:],
        sessionID: "habit-\(i)")
    }
    let learned = await SuggestionEngine(learningRecords: habit).suggestions(
      for: photo.image, metadata: photo.metadata,
      options: SuggestionOptions(thumbnailMaxDimension: 0))
    let before = try #require(plain.firstIndex { $0.lookID == favourite })
    let after = try #require(learned.firstIndex { $0.lookID == favourite })
    #expect(after < before, "kept look moved from \(before) to \(after)")
    #expect(before - after <= 3)
    #expect(Set(learned.map(\.lookID)) == Set(plain.map(\.lookID)))

    // The same habit recorded on a very different photo (a night scene) changes nothing here.
    let night = try ImageDecoder().decode(SharedPhotos.url("g66"))
    let nightSummary = PhotoSummary(
      analysis: SuggestionEngine().analysis(of: night.image, metadata: night.metadata))
    try #require(nightSummary.distance(to: summary).map { $0 > 1 } ?? true)
    let elsewhere = habit.map {
      LearningRecord(
        photo: nightSummary, offeredLooks: $0.offeredLooks, keptLook: $0.keptLook,
        sliderDeltas: [:],
        sessionID: $0.sessionID)
    }
    let unchanged = await SuggestionEngine(learningRecords: elsewhere).suggestions(
      for: photo.image, metadata: photo.metadata,
      options: SuggestionOptions(thumbnailMaxDimension: 0))
    #expect(unchanged.map(\.lookID) == plain.map(\.lookID))
    #expect(unchanged.map(\.config) == plain.map(\.config))
  }

  @Test func engineFromAStoreCountsAndResets() throws {
    let store = temporaryStore()
    defer { try? store.reset() }
    let analysis = SuggestionEngine().analysis(of: Image(width: 64, height: 48, format: .rgb8))
    try store.record(
      LearningRecord(
        photo: PhotoSummary(analysis: analysis), offeredLooks: ["vivid"], keptLook: "vivid",
        sliderDeltas: [:], sessionID: "one"))
    let engine = SuggestionEngine(learning: store)
    #expect(engine.learnedEditCount == 1)
    try engine.resetLearnedPreferences()
    #expect(store.learnedEditCount == 0)
    #expect(SuggestionEngine(learning: store).learnedEditCount == 0)
  }
}
