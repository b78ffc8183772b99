// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchTestSupport
import Testing

@Suite("retouch auto, suggest, info --analysis")
struct SuggestCommandTests {
  func temporary(_ name: String) -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent(
      "retouch-cli-\(ProcessInfo.processInfo.processIdentifier)-\(name)")
  }

  @Test func autoLeavesAGoodPhotoAloneAndWritesNothing() throws {
    let out = temporary("good.jpg")
    try? FileManager.default.removeItem(at: out)
    let r = try CLIRunner.run(["auto", SharedPhotos.url("d08").path, "-o", out.path])
    #expect(r.exitCode == 0, "\(r.stderr)")
    #expect(r.stdout.contains("already good, left as it is"))
    #expect(!FileManager.default.fileExists(atPath: out.path))
    let w = try CLIRunner.run([
      "auto", SharedPhotos.url("d08").path, "-o", out.path, "--always-write",
    ])
    #expect(w.exitCode == 0, "\(w.stderr)")
    #expect(FileManager.default.fileExists(atPath: out.path))
    try? FileManager.default.removeItem(at: out)
  }

  @Test func autoWithoutOutputPrintsTheEdit() throws {
    // g66 without its EXIF would be brightened; this only checks the output is an edit or the
    // "already good" line, and that nothing needs -o.
    let r = try CLIRunner.run(["auto", SharedPhotos.url("g56").path])
    #expect(r.exitCode == 0, "\(r.stderr)")
    #expect(r.stdout.contains("\"settings\"") || r.stdout.contains("already good"))
  }

  @Test func suggestJSONListsRankedEdits() throws {
    let r = try CLIRunner.run([
      "suggest", SharedPhotos.url("s01").path, "--json", "--max", "3", "--themes",
    ])
    #expect(r.exitCode == 0, "\(r.stderr)")
    let items = try #require(
      try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])
    let others = items.filter { ($0["isTheme"] as? Bool) == false }
    #expect(others.count <= 3 && !others.isEmpty)
    #expect(items.contains { ($0["isTheme"] as? Bool) == true })
    #expect(items.allSatisfy { $0["edit"] is [String: Any] && $0["titleZhHans"] is String })
  }

  @Test func unknownDisabledLookIsAUsageError() throws {
    let r = try CLIRunner.run(["suggest", SharedPhotos.url("s01").path, "--disable", "sparkle"])
    #expect(r.exitCode == 64)
    #expect(r.stderr.contains("unknown look 'sparkle'"))
  }

  @Test func sheetIsWritten() throws {
    let sheet = temporary("sheet.png")
    try? FileManager.default.removeItem(at: sheet)
    let r = try CLIRunner.run([
      "suggest", SharedPhotos.url("s01").path, "--max", "4", "--sheet", sheet.path,
    ])
    #expect(r.exitCode == 0, "\(r.stderr)")
    let info = try CLIRunner.run(["info", "--json", "--check", sheet.path])
    #expect(info.stdout.contains("\"width\""))
    try? FileManager.default.removeItem(at: sheet)
  }

  @Test func infoAnalysisPrintsMeasurements() throws {
    let r = try CLIRunner.run(["info", "--analysis", SharedPhotos.url("s01").path])
    #expect(r.exitCode == 0, "\(r.stderr)")
    let items = try #require(
      try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])
    let analysis = try #require(items.first?["analysis"] as? [String: Any])
    #expect(analysis["exposure"] is [String: Any] && analysis["color"] is [String: Any])
  }

  @Test func missingFileIsUnreadable() throws {
    let r = try CLIRunner.run(["auto", "/nonexistent/photo.jpg", "-o", temporary("x.jpg").path])
    #expect(r.exitCode == 66)
  }

  /// A grainy photo (g91: ISO 3200, luma grain σ ≈ 8 code values): `auto` measures the grain and
  /// reduces it, as `suggest` ranks it, and `library auto` gives the photo the same edit.
  @Test func autoAndLibraryAutoReduceGrain() throws {
    let photo = SharedPhotos.url("g91").path
    let r = try CLIRunner.run(["auto", photo])
    #expect(r.exitCode == 0, "\(r.stderr)")
    let edit = try #require(
      try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "\(r.stdout)")
    let settings = try #require(edit["settings"] as? NSDictionary)
    let reduction = (settings["noiseReduction"] as? NSNumber)?.doubleValue ?? 0
    #expect(reduction >= 0.5, "\(settings)")

    let library = temporary("grain-library")
    try? FileManager.default.removeItem(at: library)
    defer { try? FileManager.default.removeItem(at: library) }
    for arguments in [
      ["library", "init", "--library", library.path],
      ["library", "import", "--library", library.path, photo],
      ["library", "auto", "--all", "--library", library.path],
    ] {
      let step = try CLIRunner.run(arguments)
      #expect(step.exitCode == 0, "\(arguments): \(step.stderr)")
    }
    let show = try CLIRunner.run(["library", "show", "1", "--library", library.path, "--json"])
    let shown = try #require(
      try JSONSerialization.jsonObject(with: Data(show.stdout.utf8)) as? [String: Any],
      "\(show.stdout)")
    let history = try #require(shown["history"] as? [[String: Any]])
    let libraryEdit = try #require(history.last?["edit"] as? [String: Any])
    #expect(libraryEdit["settings"] as? NSDictionary == settings, "library: \(libraryEdit)")
  }
}
