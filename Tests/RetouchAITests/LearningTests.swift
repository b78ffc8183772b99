// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchAI
import RetouchCore
import RetouchRender
import RetouchTestSupport
import Testing

/// A landscape, a food photo and a portrait, as learning summarises them.
enum Photos {
  static let landscape = PhotoSummary(
    brightness: 55, contrast: 22, warmth: 0.1, tint: 0, chroma: 24, grain: 0.01, faces: 0,
    scene: .nature)
  static let food = PhotoSummary(
    brightness: 60, contrast: 18, warmth: 0.3, tint: 0, chroma: 30, grain: 0.01, faces: 0,
    scene: .food)
  static let portrait = PhotoSummary(
    brightness: 55, contrast: 22, warmth: 0.1, tint: 0, chroma: 24, grain: 0.01, faces: 1,
    scene: .people)

  /// `photo` moved a little (the i-th of a series of similar photos).
  static func near(_ photo: PhotoSummary, _ i: Int) -> PhotoSummary {
    var p = photo
    p.brightness += Double(i % 5) - 2
    p.contrast += Double(i % 3) - 1
    p.chroma += Double(i % 4) - 1.5
    return p
  }
}

/// A ranked list like the engine's: look ids with configs.
func suggestionList(_ looks: [(String, EditConfig)], original: Bool = false, theme: String? = nil)
  -> [EditSuggestion]
{
  var out: [EditSuggestion] = []
  if original {
    out.append(
      EditSuggestion(
        lookID: "original", title: LocalizedText("Original", zh: "原图"), symbolName: "photo",
        kind: .original, config: .neutral, thumbnail: nil, score: 1))
  }
  for (i, (id, config)) in looks.enumerated() {
    out.append(
      EditSuggestion(
        lookID: id, title: LocalizedText(id, zh: id), symbolName: "wand.and.stars",
        kind: id == "cool-down" ? .correction : .style, config: config, thumbnail: nil,
        score: 1 - Double(i) / 10))
  }
  if let theme {
    out.append(
      EditSuggestion(
        lookID: theme, title: LocalizedText(theme, zh: theme), symbolName: "film", kind: .theme,
        config: EditConfig(properties: [.saturation: -1]), thumbnail: nil, score: 0))
  }
  return out
}

let vivid = EditConfig(properties: [.saturation: 0.4, .vibrance: 0.3, .contrast: 0.15])
let punch = EditConfig(properties: [.saturation: 0.25, .contrast: 0.35])
let matte = EditConfig(properties: [.blacks: 0.3, .contrast: -0.2, .saturation: -0.1])
let muted = EditConfig(properties: [.saturation: -0.3])
let soft = EditConfig(properties: [.clarity: -0.3, .contrast: -0.1])
let coolDown = EditConfig(properties: [.temperature: -0.3])
let standardLooks = [
  ("vivid", vivid), ("punch", punch), ("soft", soft), ("muted", muted), ("matte", matte),
]

@Suite("Learning: adjusting suggestions")
struct LearningAdjusterTests {
  /// Someone who keeps Vivid on landscapes and always lowers its saturation by 0.2…0.3.
  static let lowersVividSaturation: [LearningRecord] = (0..<8).map { i in
    LearningRecord(
      photo: Photos.near(Photos.landscape, i), offeredLooks: standardLooks.map(\.0),
      keptLook: "vivid",
      sliderDeltas: [.saturation: -0.2 - Double(i % 3) * 0.05])
  }

  /// Someone who always picks Matte on food, shown last.
  static let picksMatteOnFood: [LearningRecord] = (0..<6).map { i in
    LearningRecord(
      photo: Photos.near(Photos.food, i), offeredLooks: standardLooks.map(\.0), keptLook: "matte",
      sliderDeltas: [:])
  }

  @Test func aConsistentSliderHabitMovesThatLookWithinFifteenPercent() {
    let adjuster = LearningAdjuster(records: Self.lowersVividSaturation)
    let list = suggestionList(standardLooks)
    let result = adjuster.adjusted(list, for: Photos.near(Photos.landscape, 7))
    #expect(result.matchCount == 8)
    let newVivid = result.suggestions.first { $0.lookID == "vivid" }!.config
    // Mean move −0.25 (weighted), within the 0.3 cap (15 % of the −1…1 range).
    #expect(newVivid.value(of: .saturation) < 0.4 - 0.15)
    #expect(newVivid.value(of: .saturation) >= 0.4 - 0.3)
    // Other sliders of Vivid and every other look stay as they were.
    #expect(newVivid.value(of: .vibrance) == 0.3 && newVivid.value(of: .contrast) == 0.15)
    #expect(result.suggestions.first { $0.lookID == "punch" }!.config == punch)
    #expect(result.adjustedLookIDs == ["vivid"])
    // Keeping Vivid (the top look) leaves the order alone.
    #expect(result.suggestions.map(\.lookID) == list.map(\.lookID))
  }

  @Test func aLargeHabitIsCappedAndNeverFlipsTheRecipe() {
    // Users who always warm Cool Down up by 0.6: it may become neutral, never warm.
    let records = (0..<5).map { i in
      LearningRecord(
        photo: Photos.near(Photos.landscape, i), offeredLooks: ["cool-down", "vivid"],
        keptLook: "cool-down",
        sliderDeltas: [.temperature: 0.6, .saturation: -0.8])
    }
    let list = suggestionList([("cool-down", coolDown), ("vivid", vivid)])
    let config = LearningAdjuster(records: records).adjusted(list, for: Photos.landscape)
      .suggestions[0].config
    #expect(config.value(of: .temperature) == 0)
    // A slider the recipe does not set moves by at most 15 % of its range.
    #expect(abs(config.value(of: .saturation) - -0.3) < 1e-12)
  }

  @Test func pickingALookOnSimilarPhotosMovesItUpAFewPlacesAndTheOnesAboveItDown() {
    let adjuster = LearningAdjuster(records: Self.picksMatteOnFood)
    let list = suggestionList(
      standardLooks + [("airy", soft), ("film", muted)], original: true, theme: "noir")
    let order = adjuster.adjusted(list, for: Photos.food).suggestions.map(\.lookID)
    let before = list.map(\.lookID)
    let matteBefore = before.firstIndex(of: "matte")!, matteAfter = order.firstIndex(of: "matte")!
    #expect(matteAfter < matteBefore)
    #expect(matteBefore - matteAfter <= 3)
    for look in before {
      #expect(
        abs(order.firstIndex(of: look)! - before.firstIndex(of: look)!) <= 3,
        "\(look) moved too far")
    }
    // Muted was always shown above the pick: it moves down past looks the user has no habit
    // with; none of the looks shown above the pick moves up.
    #expect(order.firstIndex(of: "muted")! > before.firstIndex(of: "muted")!)
    for look in ["vivid", "punch", "soft", "muted"] {
      #expect(order.firstIndex(of: look)! >= before.firstIndex(of: look)!, "\(look) moved up")
    }
    // Original stays first and the theme last.
    #expect(order.first == "original" && order.last == "noir")
  }

  @Test func savingWithNoLookMovesTheTopLooksDown() {
    let records = (0..<4).map { i in
      LearningRecord(
        photo: Photos.near(Photos.landscape, i), offeredLooks: standardLooks.map(\.0),
        keptLook: nil, sliderDeltas: [:])
    }
    let list = suggestionList(standardLooks)
    let order = LearningAdjuster(records: records).adjusted(list, for: Photos.landscape).suggestions
      .map(\.lookID)
    #expect(order.firstIndex(of: "vivid")! > 0)
    #expect(order.firstIndex(of: "punch")! > 1)
  }

  @Test(arguments: [Photos.landscape, Photos.portrait])
  func habitsOnFoodLeaveOtherPhotosAlone(photo: PhotoSummary) {
    let records =
      Self.picksMatteOnFood
      + (0..<5).map { i in
        LearningRecord(
          photo: Photos.near(Photos.food, i), offeredLooks: ["vivid"], keptLook: "vivid",
          sliderDeltas: [.saturation: -0.3])
      }
    let list = suggestionList(standardLooks)
    let result = LearningAdjuster(records: records).adjusted(list, for: photo)
    #expect(result.matchCount == 0)
    #expect(result.suggestions.map(\.lookID) == list.map(\.lookID))
    #expect(result.suggestions.map(\.config) == list.map(\.config))
  }

  @Test func nothingChangesBelowThreeCloseMatches() {
    let list = suggestionList(standardLooks)
    let two = LearningAdjuster(records: Array(Self.picksMatteOnFood.prefix(2)))
    #expect(two.adjusted(list, for: Photos.food).suggestions.map(\.lookID) == list.map(\.lookID))
    let three = LearningAdjuster(records: Array(Self.picksMatteOnFood.prefix(3)))
    #expect(three.adjusted(list, for: Photos.food).suggestions.map(\.lookID) != list.map(\.lookID))
  }

  @Test func theEngineLimitsApplyAfterwards() {
    struct HalveSaturation: LearnedEditLimiting {
      func limited(_ config: EditConfig, for suggestion: EditSuggestion) -> EditConfig? {
        suggestion.lookID == "punch" ? nil : config.setting(.saturation, to: 0.05)
      }
    }
    let records =
      Self.lowersVividSaturation
      + (0..<3).map { i in
        LearningRecord(
          photo: Photos.near(Photos.landscape, i), offeredLooks: ["punch"], keptLook: "punch",
          sliderDeltas: [.contrast: 0.3])
      }
    let result = LearningAdjuster(records: records).adjusted(
      suggestionList(standardLooks), for: Photos.landscape, limits: HalveSaturation())
    #expect(
      result.suggestions.first { $0.lookID == "vivid" }!.config.value(of: .saturation) == 0.05)
    // Limits refused Punch's learned config: it keeps the recipe's.
    #expect(result.suggestions.first { $0.lookID == "punch" }!.config == punch)
  }

  @Test func sameRecordFileGivesTheSameSuggestions() throws {
    let dir = try CLIRunner.temporaryDirectory()
    let store = LearningStore(url: dir.appendingPathComponent("learning.json"))
    for r in Self.lowersVividSaturation + Self.picksMatteOnFood { try store.record(r) }
    let list = suggestionList(standardLooks)
    let runs = (0..<3).map { _ in
      LearningAdjuster(records: store.load().records).adjusted(
        list, for: Photos.near(Photos.food, 2)
      ).suggestions
    }
    for run in runs.dropFirst() {
      #expect(run.map(\.lookID) == runs[0].map(\.lookID))
      #expect(run.map(\.config) == runs[0].map(\.config))
    }
    #expect(runs[0].map(\.lookID) != list.map(\.lookID))
  }
}

@Suite("Learning: the record file")
struct LearningStoreTests {
  static func store() throws -> LearningStore {
    LearningStore(
      url: try CLIRunner.temporaryDirectory().appendingPathComponent("sub/learning.json"))
  }

  /// A record as large as real ones get: 12 offered looks, 10 slider moves, a session id.
  static func bigRecord(_ i: Int) -> LearningRecord {
    let sliders: [EditSettingType] = [
      .exposure, .contrast, .saturation, .vibrance, .temperature, .tint, .blacks, .whites, .shadows,
      .highlights, .clarity,
    ]
    return LearningRecord(
      photo: PhotoSummary(
        brightness: 51.234, contrast: 17.891, warmth: -0.123, tint: 0.045, chroma: 23.456,
        grain: 0.0123, faces: 2, scene: .people),
      offeredLooks: [
        "brighten", "lift-shadows", "recover-highlights", "warm-up", "cool-down", "vivid", "punch",
        "matte", "muted", "soft", "true-color", "dramatic", "airy",
      ],
      keptLook: "dramatic",
      sliderDeltas: Dictionary(
        uniqueKeysWithValues: sliders.enumerated().map { ($1, -0.123456 - Double($0) / 100) }),
      sessionID: UUID().uuidString + "-\(i)")
  }

  @Test func keepsTheNewestFiveHundredWellUnderHalfAMegabyte() throws {
    let store = try Self.store()
    let records = (0..<520).map(Self.bigRecord)
    for r in records { try store.record(r) }
    let loaded = store.load().records
    #expect(loaded.count == 500)
    #expect(loaded.first == records[20])
    #expect(loaded.last == records[519])
    #expect(store.learnedEditCount == 500)
    let size = try FileManager.default.attributesOfItem(atPath: store.url.path)[.size] as! Int
    #expect(size < 400_000, "\(size) bytes")
    // Nothing but the file is left in its folder (the temporary file was renamed over it).
    #expect(
      try FileManager.default.contentsOfDirectory(
        atPath: store.url.deletingLastPathComponent().path) == ["learning.json"])
  }

  @Test func aSecondExportOfOneSessionReplacesItsRecord() throws {
    let store = try Self.store()
    var r = Self.bigRecord(1)
    try store.record(r)
    r.keptLook = "vivid"
    try store.record(r)
    try store.record(Self.bigRecord(2))
    let loaded = store.load().records
    #expect(loaded.count == 2)
    #expect(loaded[0].keptLook == "vivid")
  }

  @Test(arguments: [
    Data("{\"records\": [ {\"photo\": 12".utf8),
    Data("{\"format\": \"someone-else\", \"version\": 1, \"records\": []}".utf8),
    Data("{\"format\": \"retouch-learning\", \"version\": 99, \"records\": []}".utf8),
    Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00]),
  ])
  func aCorruptOrForeignFileIsSetAsideWithAWarning(contents: Data) throws {
    let store = try Self.store()
    try FileManager.default.createDirectory(
      at: store.url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try contents.write(to: store.url)
    let loaded = store.load()
    #expect(loaded.records.isEmpty)
    #expect(
      loaded.warning?.contains("learning.corrupt-1.json") == true,
      "\(loaded.warning ?? "no warning")")
    let aside = store.url.deletingLastPathComponent().appendingPathComponent(
      "learning.corrupt-1.json")
    #expect(try Data(contentsOf: aside) == contents)
    // Learning goes on with a fresh file.
    try store.record(Self.bigRecord(0))
    #expect(store.load().records.count == 1)
    #expect(store.load().warning == nil)
  }

  @Test func resetForgetsEverything() throws {
    let store = try Self.store()
    try store.reset()  // nothing there yet: fine
    try store.record(Self.bigRecord(0))
    #expect(store.learnedEditCount == 1)
    try store.reset()
    #expect(store.learnedEditCount == 0)
    #expect(!FileManager.default.fileExists(atPath: store.url.path))
  }

  @Test func theDefaultFileFollowsXDG() {
    #expect(
      LearningStore.defaultURL(environment: ["XDG_DATA_HOME": "/data/me", "HOME": "/home/me"]).path
        == "/data/me/retouch/learning.json")
    #expect(
      LearningStore.defaultURL(environment: ["XDG_DATA_HOME": "relative", "HOME": "/home/me"]).path
        == "/home/me/.local/share/retouch/learning.json")
    #expect(
      LearningStore.defaultURL(environment: [
        "HOME": "/home/me", "RETOUCH_LEARNING_FILE": "/tmp/l.json",
      ]).path == "/tmp/l.json")
  }

  @Test func recordsRoundTripAndAnalysisSummariesAreCompact() throws {
    let exported = vivid.setting(.saturation, to: 0.2).setting(.straighten, to: 3)
    let deltas = LearningRecord.sliderDeltas(from: vivid, to: exported)
    #expect(deltas == [.saturation: -0.2])
    let store = try Self.store()
    let record = Self.bigRecord(3)
    try store.record(record)
    #expect(store.load().records == [record])
    #expect(record.offeredLooks.count == LearningRecord.maximumOfferedLooks)
    #expect(record.sliderDeltas.count == LearningRecord.maximumSliderDeltas)
  }
}
