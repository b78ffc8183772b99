// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing

@testable import RetouchLibrary

@Suite struct IntegrityCheckTests {
  func makeEditedLibrary(_ scratch: ScratchFolder) throws -> (PhotoLibrary, [AssetID]) {
    let incoming = scratch.path("incoming")
    try FileManager.default.createDirectory(at: incoming, withIntermediateDirectories: true)
    for i in 0..<3 {
      try LibraryFixtures.syntheticPhoto(seed: UInt64(40 + i)).write(
        to: incoming.appendingPathComponent("\(i).png"))
    }
    let library = try PhotoLibrary(at: scratch.path("Library"))
    let ids = try library.importPhotos(from: [incoming]).imported.map(\.id)
    for payload in ["first", "second"] {
      try library.performChanges(
        try ids.map {
          .edit($0, output: try LibraryFixtures.output(in: scratch.url, payload: payload))
        })
    }
    return (library, ids)
  }

  @Test func repairsLeftoversOrphansPermissionsAndLostRenders() throws {
    let scratch = try ScratchFolder()
    defer { scratch.cleanUp() }
    let (library, ids) = try makeEditedLibrary(scratch)
    #expect(try library.checkIntegrity().problems.isEmpty)

    let renders = library.url.appendingPathComponent("Renders")
    try Data("half".utf8).write(to: renders.appendingPathComponent("x.jpg.tmp"))
    try Data("stray".utf8).write(to: renders.appendingPathComponent("stray.jpg"))
    let original = library.originalURL(for: try library.asset(ids[0]))
    try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: original.path)
    // Lose the current render of photo 2: it must fall back to its first edit.
    let current = try #require(try library.currentRevision(of: ids[1]))
    try FileManager.default.removeItem(at: try #require(library.renderURL(of: current)))

    let report = try library.checkIntegrity()
    let kinds = Set(report.problems.map(\.kind))
    #expect(
      kinds == [.temporaryFile, .orphanFile, .originalWritable, .missingRender, .danglingReference])
    #expect(!report.isConsistent)  // the lost render's history entry cannot be brought back
    #expect(
      !FileManager.default.fileExists(atPath: renders.appendingPathComponent("x.jpg.tmp").path))
    #expect(
      !FileManager.default.fileExists(atPath: renders.appendingPathComponent("stray.jpg").path))
    #expect(!DurableFile.isWritable(original))
    let fallback = try #require(try library.currentRevision(of: ids[1]))
    #expect(fallback.adjustmentData?.data == Data("first".utf8))
    // The next check finds only the lost history render, not repairable.
    let again = try library.checkIntegrity()
    #expect(again.problems.map(\.kind) == [.missingRender])
  }

  @Test func reportsChangedOriginalWithoutRepairingIt() throws {
    let scratch = try ScratchFolder()
    defer { scratch.cleanUp() }
    let (library, ids) = try makeEditedLibrary(scratch)
    let original = library.originalURL(for: try library.asset(ids[2]))
    try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: original.path)
    try Data("tampered".utf8).write(to: original)
    try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: original.path)
    let report = try library.checkIntegrity()
    #expect(report.problems.map(\.kind) == [.originalChanged])
    #expect(!report.isConsistent)
    // Without repair nothing is touched.
    try Data("stray".utf8).write(to: library.url.appendingPathComponent("Renders/stray.jpg"))
    let dry = try library.checkIntegrity(repair: false)
    #expect(dry.problems.contains { $0.kind == .orphanFile && !$0.repaired })
    #expect(
      FileManager.default.fileExists(
        atPath: library.url.appendingPathComponent("Renders/stray.jpg").path))
  }
}
