// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchEditor
import RetouchRender
import Testing

@testable import RetouchLibrary

@Suite struct SchemaMigrationTests {
  /// A library as schema version 1 wrote it: one photo with two edits (adjustment data in the
  /// row, no render hashes, no current-revision column).
  func makeVersion1Library(_ scratch: ScratchFolder) throws -> (
    URL, original: Data, renders: [Data]
  ) {
    let folder = scratch.path("Old")
    for sub in ["Originals", "Renders"] {
      try FileManager.default.createDirectory(
        at: folder.appendingPathComponent(sub), withIntermediateDirectories: true)
    }
    let original = try LibraryFixtures.syntheticPhoto(seed: 3, format: .jpeg)
    let hash = SHA256.hexDigest(original)
    let originalURL = folder.appendingPathComponent("Originals/\(hash.prefix(2))/\(hash).jpg")
    try FileManager.default.createDirectory(
      at: originalURL.deletingLastPathComponent(), withIntermediateDirectories: true)
    try original.write(to: originalURL)
    try FileManager.default.setAttributes(
      [.posixPermissions: 0o444], ofItemAtPath: originalURL.path)
    var renders: [Data] = []
    for (i, name) in ["r1.jpg", "r2.jpg"].enumerated() {
      let url = folder.appendingPathComponent("Renders/\(name)")
      try LibraryFixtures.writeRender(to: url, shade: UInt8(60 + 60 * i))
      renders.append(try Data(contentsOf: url))
    }
    let db = try SQLiteDatabase(
      path: folder.appendingPathComponent(PhotoLibrary.databaseFilename).path)
    try db.execute(LibrarySchema.version1)
    try db.run(
      """
      INSERT INTO assets(id, original_hash, original_name, original_extension, format, file_size, pixel_width,
        pixel_height, orientation, capture_date, camera_make, camera_model, import_date)
      VALUES (1, ?, 'old.jpg', 'jpg', 'jpeg', ?, 48, 36, 1, 1500000000, 'Canon', 'Canon EOS 6D', 1600000000)
      """, [hash, original.count])
    let config = EditConfig(properties: [.saturation: 0.4])
    try db.run(
      "INSERT INTO edits VALUES (1, 1, 1600000100, 'r1.jpg', 'org.example.vignette', '1', ?)",
      [Data("{\"v\":0.5}".utf8)])
    try db.run(
      "INSERT INTO edits VALUES (2, 1, 1600000200, 'r2.jpg', ?, '1', ?)",
      [EditConfig.formatIdentifier, config.jsonData()])
    return (folder, original, renders)
  }

  @Test func migratesFromVersion1() throws {
    let scratch = try ScratchFolder()
    defer { scratch.cleanUp() }
    let (folder, original, renders) = try makeVersion1Library(scratch)
    let library = try PhotoLibrary(at: folder)
    #expect(try library.schemaVersion == LibrarySchema.currentVersion)

    let asset = try library.asset(AssetID(1))
    #expect(asset.originalFilename == "old.jpg")
    #expect(asset.camera == "Canon EOS 6D")
    #expect(asset.captureDate == Date(timeIntervalSince1970: 1_500_000_000))
    #expect(asset.isEdited && !asset.isDeleted && asset.location == nil)
    #expect(try Data(contentsOf: library.originalURL(for: asset)) == original)

    let history = try library.history(of: asset.id)
    #expect(history.map(\.id) == [2, 1])
    #expect(history.allSatisfy { $0.kind == .edit })
    #expect(
      history[1].adjustmentData
        == AdjustmentData(
          formatIdentifier: "org.example.vignette", formatVersion: "1",
          data: Data("{\"v\":0.5}".utf8)))
    #expect(try library.currentRevision(of: asset.id)?.id == 2)
    let currentRender = try library.currentImageURL(of: asset.id)
    #expect(try Data(contentsOf: currentRender) == renders[1])

    // Version 1 kept no render hashes: the first check records them, the second finds nothing.
    let first = try library.checkIntegrity()
    #expect(first.problems.map(\.kind) == [.renderUnhashed, .renderUnhashed])
    #expect(first.isConsistent)
    #expect(try library.checkIntegrity().problems.isEmpty)

    // The migrated library works like a new one.
    try library.performChanges([.revertToOriginal(asset.id)])
    #expect(try library.history(of: asset.id).count == 3)
    #expect(try library.assets(AssetQuery(edits: .unedited)).count == 1)
  }

  @Test func newLibraryIsCreatedThroughTheMigrations() throws {
    let scratch = try ScratchFolder()
    defer { scratch.cleanUp() }
    let library = try PhotoLibrary(at: scratch.path("New"))
    #expect(try library.schemaVersion == 2)
    // Reopening an up-to-date library changes nothing.
    #expect(try PhotoLibrary(at: scratch.path("New")).schemaVersion == 2)
  }

  @Test func refusesNewerSchema() throws {
    let scratch = try ScratchFolder()
    defer { scratch.cleanUp() }
    _ = try PhotoLibrary(at: scratch.path("Future"))
    let db = try SQLiteDatabase(path: scratch.path("Future/\(PhotoLibrary.databaseFilename)").path)
    try db.execute("PRAGMA user_version = 99")
    let error = #expect(throws: LibraryError.self) { try PhotoLibrary(at: scratch.path("Future")) }
    #expect(error?.kind == .newerSchema)
    #expect(error?.detail.contains("schema version 99") == true)
  }
}
