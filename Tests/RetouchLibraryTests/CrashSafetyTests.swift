// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchTestSupport
import Testing

@testable import RetouchLibrary

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

@Suite struct CrashSafetyTests {
  /// The stress helper built beside the test bundle.
  static let helper: URL = {
    var dir = Bundle.main.bundleURL
    for _ in 0..<4 {
      let candidate = dir.appendingPathComponent("retouch-library-stress")
      if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
      dir = dir.deletingLastPathComponent()
    }
    return Bundle.main.bundleURL.appendingPathComponent("retouch-library-stress")
  }()

  /// Kills a child committing in a loop with SIGKILL at random moments, 30 times; after every
  /// kill the library must open, the checker must find nothing it cannot repair, every commit the
  /// child reported must be there, and every original must still be byte-identical to its source.
  @Test func survivesKillNineAtRandomMoments() throws {
    let seed: UInt64 = 20_261_129
    var rng = SeededRandom(seed: seed)
    let scratch = try ScratchFolder()
    defer { scratch.cleanUp() }
    let incoming = scratch.path("incoming")
    try FileManager.default.createDirectory(at: incoming, withIntermediateDirectories: true)
    for i in 0..<8 {
      try LibraryFixtures.syntheticPhoto(seed: UInt64(100 + i)).write(
        to: incoming.appendingPathComponent("\(i).png"))
    }
    let libraryURL = scratch.path("Library")
    var sources: [AssetID: URL] = [:]
    for asset in try PhotoLibrary(at: libraryURL).importPhotos(from: [incoming]).imported {
      sources[asset.id] = incoming.appendingPathComponent(asset.originalFilename)
    }
    #expect(
      FileManager.default.isExecutableFile(atPath: Self.helper.path),
      "helper missing at \(Self.helper.path)")

    var reportedEdits: [Int64: (asset: AssetID, payload: String)] = [:]
    var reportedReverts: [Int64: AssetID] = [:]
    var repairedLeftovers = 0
    for round in 0..<30 {
      let process = Process()
      process.executableURL = Self.helper
      process.arguments = [
        libraryURL.path, scratch.path("work").path, String(seed &+ UInt64(round)),
      ]
      let pipe = Pipe()
      process.standardOutput = pipe
      process.standardError = FileHandle.nullDevice
      try process.run()
      // Random moments: anywhere from during start-up and the library's opening to deep in the
      // commit loop.
      usleep(UInt32(20_000 + rng.next() % 400_000))
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
      #expect(
        process.terminationReason == .uncaughtSignal,
        "round \(round): the helper stopped on its own")
      let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
      // Only whole lines: the kill may cut the last one.
      for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
        let f = line.split(separator: " ").map(String.init)
        switch f.first {
        case "edit": reportedEdits[Int64(f[1])!] = (AssetID(Int64(f[2])!), f[3])
        case "revert": reportedReverts[Int64(f[1])!] = AssetID(Int64(f[2])!)
        case "import": sources[AssetID(Int64(f[1])!)] = URL(fileURLWithPath: f[2])
        default: break
        }
      }

      let library = try PhotoLibrary(at: libraryURL)
      let report = try library.checkIntegrity()
      #expect(report.isConsistent, "round \(round): \(report.problems)")
      #expect(
        report.problems.allSatisfy { $0.kind == .orphanFile || $0.kind == .temporaryFile },
        "round \(round): \(report.problems)")
      repairedLeftovers += report.problems.count
      let again = try library.checkIntegrity().problems
      #expect(again.isEmpty, "round \(round): the repair did not hold: \(again)")
    }

    // Nothing lost: every reported commit is in the history; every original is intact.
    let library = try PhotoLibrary(at: libraryURL)
    var histories: [AssetID: [AssetRevision]] = [:]
    for asset in try library.assets(AssetQuery(deletion: .all)) {
      histories[asset.id] = try library.history(of: asset.id)
    }
    for (revision, expected) in reportedEdits {
      let found = histories[expected.asset]?.first { $0.id == revision }
      #expect(found?.adjustmentData?.data == Data(expected.payload.utf8), "edit \(revision) lost")
      if let render = found.flatMap({ library.renderURL(of: $0) }) {
        #expect(FileManager.default.fileExists(atPath: render.path))
      }
    }
    for (revision, asset) in reportedReverts {
      #expect(
        histories[asset]?.contains { $0.id == revision && $0.kind == .revertToOriginal } == true,
        "revert \(revision) lost")
    }
    for (id, source) in sources {
      let asset = try library.asset(id)
      #expect(
        try Data(contentsOf: library.originalURL(for: asset)) == Data(contentsOf: source),
        "original of \(id)")
    }
    // The helper did real work between kills (else the test proves nothing).
    #expect(
      reportedEdits.count > 30,
      "only \(reportedEdits.count) edits committed; leftovers repaired: \(repairedLeftovers)")
  }
}
