// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchEditor
import RetouchRender
import Testing

@testable import RetouchLibrary

@Suite struct ChangeRequestTests {
  /// A library with `count` synthetic photos, and the clock it runs on.
  func makeLibrary(_ scratch: ScratchFolder, count: Int) throws -> (
    PhotoLibrary, [AssetID], TestClock
  ) {
    let incoming = scratch.path("incoming")
    try FileManager.default.createDirectory(at: incoming, withIntermediateDirectories: true)
    for i in 0..<count {
      try LibraryFixtures.syntheticPhoto(seed: UInt64(i + 1)).write(
        to: incoming.appendingPathComponent(String(format: "p%02d.png", i)))
    }
    let clock = TestClock()
    var options = PhotoLibrary.Options()
    options.clock = { clock.now }
    let library = try PhotoLibrary(at: scratch.path("Library"), options: options)
    let ids = try library.importPhotos(from: [incoming]).imported.map(\.id)
    #expect(ids.count == count)
    return (library, ids, clock)
  }

  /// Everything a failed batch must leave as it was.
  struct Snapshot: Equatable {
    let assets: [Asset]
    let histories: [[AssetRevision]]
    let renders: [String]
  }

  func snapshot(_ library: PhotoLibrary, _ ids: [AssetID]) throws -> Snapshot {
    Snapshot(
      assets: try ids.map { try library.asset($0) },
      histories: try ids.map { try library.history(of: $0) },
      renders: try FileManager.default.contentsOfDirectory(
        atPath: library.url.appendingPathComponent("Renders").path
      ).sorted())
  }

  @Test func batchCommitsEveryEdit() throws {
    let scratch = try ScratchFolder()
    defer { scratch.cleanUp() }
    let (library, ids, _) = try makeLibrary(scratch, count: 4)
    let outputs = try ids.map {
      try LibraryFixtures.output(in: scratch.url, payload: "edit of \($0)")
    }
    let revisions = try library.performChanges { batch in
      for (id, output) in zip(ids, outputs) { batch.edit(id, output: output) }
    }
    #expect(revisions.count == 4)
    for (id, output) in zip(ids, outputs) {
      let asset = try library.asset(id)
      #expect(asset.isEdited)
      let current = try #require(try library.currentRevision(of: id))
      #expect(current.adjustmentData == output.adjustmentData)
      let render = try #require(library.renderURL(of: current))
      #expect(try Data(contentsOf: render) == Data(contentsOf: output.renderedContentURL))
      #expect(try library.currentImageURL(of: id) == render)
    }
    #expect(try library.assets(AssetQuery(edits: .edited)).count == 4)
    #expect(try library.checkIntegrity().problems.isEmpty)
  }

  /// The 7th of 10 edits has no rendered file: the other nine must not go in either.
  @Test func failureInSeventhOfTenLeavesAllUnchanged() throws {
    let scratch = try ScratchFolder()
    defer { scratch.cleanUp() }
    let (library, ids, _) = try makeLibrary(scratch, count: 10)
    // An earlier edit of some photos, so "unchanged" covers edited photos too.
    try library.performChanges { batch in
      for id in ids.prefix(3) {
        batch.edit(id, output: try! LibraryFixtures.output(in: scratch.url, payload: "before"))
      }
    }
    let before = try snapshot(library, ids)
    var requests: [ChangeRequest] = []
    for (i, id) in ids.enumerated() {
      var output = try LibraryFixtures.output(in: scratch.url, payload: "batch \(i)")
      if i == 6 {
        try FileManager.default.removeItem(at: output.renderedContentURL)
        output.adjustmentData = AdjustmentData(
          formatIdentifier: "org.example.test", formatVersion: "1", data: Data())
      }
      requests.append(.edit(id, output: output))
    }
    let error = #expect(throws: LibraryError.self) { try library.performChanges(requests) }
    #expect(error?.kind == .invalidChange)
    #expect(error?.source.hasPrefix("change 7 of 10") == true)
    #expect(try snapshot(library, ids) == before)
    #expect(try library.checkIntegrity().problems.isEmpty)
  }

  /// A failure after the renders of the first six were copied into the library (a full disk):
  /// the copies are removed and no row is written.
  @Test func failureWhileWritingRendersLeavesAllUnchanged() throws {
    let scratch = try ScratchFolder()
    defer { scratch.cleanUp() }
    let (library, ids, _) = try makeLibrary(scratch, count: 10)
    let before = try snapshot(library, ids)
    var options = library.options
    options.failsAfterStagedRenders = 6
    let failing = try PhotoLibrary(at: library.url, options: options)
    let requests = try ids.map {
      ChangeRequest.edit($0, output: try LibraryFixtures.output(in: scratch.url, payload: "x"))
    }
    let error = #expect(throws: LibraryError.self) { try failing.performChanges(requests) }
    #expect(error?.kind == .fileSystem)
    #expect(try snapshot(library, ids) == before)
    #expect(try library.checkIntegrity().problems.isEmpty)
  }

  @Test func revertKeepsHistoryNewestFirst() throws {
    let scratch = try ScratchFolder()
    defer { scratch.cleanUp() }
    let (library, ids, clock) = try makeLibrary(scratch, count: 1)
    let id = ids[0]
    let config1 = EditConfig(properties: [.exposure: 0.3])
    let config2 = EditConfig(
      properties: [.exposure: 0.5, .contrast: 0.2], look: LookSelection(.noir, strength: 0.7))
    for config in [config1, config2] {
      clock.advance(by: 60)
      var output = try LibraryFixtures.output(in: scratch.url, payload: "")
      output.adjustmentData = RetouchEditingController.adjustmentData(for: config)
      try library.performChanges([.edit(id, output: output)])
    }
    clock.advance(by: 60)
    try library.performChanges([.revertToOriginal(id)])

    let asset = try library.asset(id)
    #expect(!asset.isEdited)
    #expect(try library.currentRevision(of: id) == nil)
    #expect(try library.currentAdjustmentData(of: id) == nil)
    #expect(try library.currentImageURL(of: id) == library.originalURL(for: asset))
    let history = try library.history(of: id)
    #expect(history.map(\.kind) == [.revertToOriginal, .edit, .edit])
    #expect(history.map(\.date) == history.map(\.date).sorted(by: >))
    #expect(history[1].editConfig == config2)
    #expect(history[2].editConfig == config1)
    // The renders of the reverted edits are still there (history is kept).
    for revision in history.dropFirst() {
      let render = try #require(library.renderURL(of: revision))
      #expect(FileManager.default.fileExists(atPath: render.path))
    }
    // The edit-session grid: both edits, newest first, with look and sliders.
    let sessions = try library.editSessions()
    try #require(sessions.map(\.config) == [config2, config1])
    #expect(sessions[0].look == LookSelection(.noir, strength: 0.7))
    #expect(sessions[0].sliderValues == [.exposure: 0.5, .contrast: 0.2])
    #expect(sessions[0].date > sessions[1].date)
    // Unedited again: a filter for unedited photos finds it.
    #expect(try library.assets(AssetQuery(edits: .unedited)).map(\.id) == [id])
  }

  @Test func deleteRestoreAndPurgeAfterRetention() throws {
    let scratch = try ScratchFolder()
    defer { scratch.cleanUp() }
    let (library, ids, clock) = try makeLibrary(scratch, count: 3)
    try library.performChanges([
      .edit(ids[0], output: try LibraryFixtures.output(in: scratch.url, payload: "e"))
    ])
    try library.performChanges([.delete(ids[0]), .delete(ids[1])])
    #expect(try library.assets().map(\.id) == [ids[2]])
    #expect(Set(try library.assets(AssetQuery(deletion: .deleted)).map(\.id)) == [ids[0], ids[1]])
    #expect(try library.asset(ids[0]).deletedDate == clock.now)
    // A deleted photo cannot be edited, nor deleted twice; a live one cannot be restored.
    #expect(throws: LibraryError.self) {
      try library.performChanges([
        .edit(ids[0], output: try LibraryFixtures.output(in: scratch.url, payload: "x"))
      ])
    }
    #expect(throws: LibraryError.self) { try library.performChanges([.delete(ids[1])]) }
    #expect(throws: LibraryError.self) { try library.performChanges([.restore(ids[2])]) }
    #expect(throws: LibraryError.self) {
      _ = try library.requestContentEditingInput(for: ids[0])
    }

    try library.performChanges([.restore(ids[1])])
    #expect(try library.asset(ids[1]).deletedDate == nil)

    // Within the retention period nothing is purged; after it, the deleted photo and its files go.
    clock.advance(by: library.options.deletionRetention - 1)
    #expect(try library.purgeExpiredDeletions().isEmpty)
    let original = library.originalURL(for: try library.asset(ids[0]))
    let lastEdit = try #require(try library.history(of: ids[0]).first)
    let render = try #require(library.renderURL(of: lastEdit))
    clock.advance(by: 2)
    #expect(try library.purgeExpiredDeletions() == [ids[0]])
    #expect(throws: LibraryError.self) { try library.asset(ids[0]) }
    #expect(!FileManager.default.fileExists(atPath: original.path))
    #expect(!FileManager.default.fileExists(atPath: render.path))
    #expect(Set(try library.assets().map(\.id)) == [ids[1], ids[2]])
    #expect(try library.checkIntegrity().problems.isEmpty)
  }

  @Test func editWithoutAdjustmentDataOrJPEGIsRefused() throws {
    let scratch = try ScratchFolder()
    defer { scratch.cleanUp() }
    let (library, ids, _) = try makeLibrary(scratch, count: 1)
    var output = try LibraryFixtures.output(in: scratch.url, payload: "p")
    output.adjustmentData = nil
    let noData = #expect(throws: LibraryError.self) {
      try library.performChanges([.edit(ids[0], output: output)])
    }
    #expect(noData?.detail.contains("no adjustment data") == true)
    let notJPEG = try LibraryFixtures.output(in: scratch.url, payload: "p")
    try LibraryFixtures.syntheticPhoto(seed: 1).write(to: notJPEG.renderedContentURL)
    let wrongType = #expect(throws: LibraryError.self) {
      try library.performChanges([.edit(ids[0], output: notJPEG)])
    }
    #expect(wrongType?.detail.contains("not a JPEG") == true)
    #expect(throws: LibraryError.self) {
      try library.performChanges([.revertToOriginal(AssetID(999))])
    }
  }
}
