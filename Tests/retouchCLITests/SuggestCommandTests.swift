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
    #expect(items.first?["kind"] as? String == "photograph", "\(r.stdout.prefix(300))")
  }

  /// A rendered depth map (grey steps, sharp edges) is a graphic: `info --analysis` says so,
  /// `retouch auto` leaves it as it is and says why, and `suggest` says it offers styles only.
  @Test func autoLeavesAGraphicAlone() throws {
    let map = SharedPhotos.url("d24").path
    let info = try CLIRunner.run(["info", "--analysis", map])
    #expect(info.exitCode == 0, "\(info.stderr)")
    let items = try #require(
      try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [[String: Any]])
    #expect(items.first?["kind"] as? String == "graphic")
    let r = try CLIRunner.run(["auto", map])
    #expect(r.exitCode == 0, "\(r.stderr)")
    #expect(
      r.stdout.contains("a graphic (screenshot, page or drawing), not a photo; left as it is"),
      "\(r.stdout)")
    let list = try CLIRunner.run(["suggest", map])
    #expect(list.exitCode == 0, "\(list.stderr)")
    #expect(
      list.stdout.hasPrefix("aloeGT.png: a graphic (screenshot, page or drawing): styles only"),
      "\(list.stdout)")
    #expect(list.stdout.contains("style]") && !list.stdout.contains("correction]"))
  }

  /// A truncated JPEG is measured as the decoder fills it in, and the warning names the file
  /// (in a folder run, the only way to tell which photo it was).
  @Test func aTruncatedPhotoIsNamedInItsWarning() throws {
    let dir = try CLIRunner.temporaryDirectory()
    let cut = dir.appendingPathComponent("cut.jpg")
    let whole = try Data(contentsOf: SharedPhotos.url("d08"))
    try whole.prefix(whole.count / 2).write(to: cut)
    for args in [["suggest", cut.path, "--max", "1"], ["auto", dir.path]] {
      let r = try CLIRunner.run(args)
      #expect(r.exitCode == 0, "\(args[0]): \(r.stderr)")
      #expect(r.stderr.contains("warning: cut.jpg: truncated file"), "\(r.stderr)")
    }
  }

  /// A folder is edited photo by photo: the underexposed copy is brightened and written under
  /// its own name, the good photo is left alone (its edit saved as neutral), a damaged file is
  /// reported without stopping the run, anything that is not a photo is skipped, and the
  /// originals stay as they were.
  @Test func aFolderIsAutoEditedPhotoByPhoto() throws {
    let dir = try CLIRunner.temporaryDirectory()
    let input = dir.appendingPathComponent("in")
    try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
    let good = input.appendingPathComponent("good.jpg")
    try FileManager.default.copyItem(at: SharedPhotos.url("d08"), to: good)
    let dark = input.appendingPathComponent("dark.png")
    let made = try CLIRunner.run([
      "apply", good.path, "-o", dark.path, "--set", "exposure=-1.5",
    ])
    #expect(made.exitCode == 0, "\(made.stderr)")
    try Data("not a jpeg".utf8).write(to: input.appendingPathComponent("broken.jpg"))
    try Data("notes".utf8).write(to: input.appendingPathComponent("notes.txt"))
    let before = try [good, dark].map { try Data(contentsOf: $0) }

    let output = dir.appendingPathComponent("out")
    let configs = dir.appendingPathComponent("edits")
    let r = try CLIRunner.run([
      "auto", input.path, "-o", output.path, "--save-config", configs.path,
    ])
    #expect(r.exitCode == 65, "\(r.stderr)")
    #expect(r.stderr.contains("retouch auto: broken.jpg"), "\(r.stderr)")
    #expect(r.stdout.contains("good.jpg: already good, left as it is"), "\(r.stdout)")
    #expect(r.stdout.contains("3 photos: 1 edited, 1 already good, 1 failed"), "\(r.stdout)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: output.path) == ["dark.png"])
    let saved = try FileManager.default.contentsOfDirectory(atPath: configs.path).sorted()
    #expect(saved == ["dark.png.json", "good.jpg.json"])
    let edit = try #require(
      try JSONSerialization.jsonObject(
        with: Data(contentsOf: configs.appendingPathComponent("dark.png.json")))
        as? [String: Any])
    let exposure = ((edit["settings"] as? NSDictionary)?["exposure"] as? NSNumber)?.doubleValue
    #expect((exposure ?? 0) >= 0.8, "\(edit)")
    #expect(r.stdout.contains("dark.png: {"), "\(r.stdout)")
    #expect(try [good, dark].map { try Data(contentsOf: $0) } == before)
  }

  /// Bad folder runs are refused before any photo is edited, or per photo when only that
  /// photo is affected: the input folder as output, an unknown format, and two photos whose
  /// outputs would share a name under `--format`.
  @Test func folderRunsRefuseOverwritingAndNameClashes() throws {
    let dir = try CLIRunner.temporaryDirectory()
    let input = dir.appendingPathComponent("in")
    try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
    let photo = SharedPhotos.url("s01")
    try FileManager.default.copyItem(at: photo, to: input.appendingPathComponent("a.png"))
    let converted = try CLIRunner.run([
      "convert", photo.path, input.appendingPathComponent("a.jpg").path,
    ])
    #expect(converted.exitCode == 0, "\(converted.stderr)")

    let same = try CLIRunner.run(["auto", input.path, "-o", input.path])
    #expect(same.exitCode == 64)
    #expect(same.stderr.contains("would replace the input"), "\(same.stderr)")
    let gif = try CLIRunner.run([
      "auto", input.path, "-o", dir.appendingPathComponent("gif").path, "--format", "gif",
    ])
    #expect(gif.exitCode == 64)
    #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("gif").path))

    let output = dir.appendingPathComponent("out")
    let clash = try CLIRunner.run([
      "auto", input.path, "-o", output.path, "--format", "jpeg", "--always-write",
    ])
    #expect(clash.exitCode == 64, "\(clash.stderr)")
    #expect(clash.stderr.contains("a.png: its output a.jpg is a.jpg's"), "\(clash.stderr)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: output.path) == ["a.jpg"])
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

/// The README shows what some commands print on a bundled sample; they must still print it.
@Suite("README command examples")
struct ReadmeCommandTests {
  /// The package's README.
  static let readme = packageRoot.appendingPathComponent("README.md")

  /// The lines the README shows after `$ retouch <command>` (its comment cut off), up to the
  /// next command or the end of the block, without trailing blank lines; nil when the README
  /// does not show the command.
  static func shownOutput(of command: String, in readme: String) -> [String]? {
    let lines = readme.components(separatedBy: "\n")
    guard
      let at = lines.firstIndex(where: { line in
        guard line.hasPrefix("$ retouch ") else { return false }
        let shown = line.split(separator: "#", maxSplits: 1).first ?? ""
        return shown.trimmingCharacters(in: .whitespaces) == "$ retouch \(command)"
      })
    else { return nil }
    var output = lines[(at + 1)...].prefix { !$0.hasPrefix("$ ") && !$0.hasPrefix("```") }
    while output.last?.isEmpty == true { output.removeLast() }
    return Array(output)
  }

  @Test(arguments: [
    "info Samples/rocket.jpg", "suggest Samples/rocket.jpg --max 3",
    "auto Samples/rocket.jpg -o fixed.jpg",
  ])
  func commandPrintsWhatTheReadmeShows(command: String) throws {
    let readme = try String(contentsOf: Self.readme, encoding: .utf8)
    let shown = try #require(Self.shownOutput(of: command, in: readme), "README shows \(command)")
    // The command runs where the README's relative paths resolve to a copy of the sample, so
    // whatever it writes stays out of the checkout.
    let folder = try CLIRunner.temporaryDirectory()
    let samples = folder.appendingPathComponent("Samples")
    try FileManager.default.createDirectory(at: samples, withIntermediateDirectories: true)
    try FileManager.default.copyItem(
      at: packageRoot.appendingPathComponent("Samples/rocket.jpg"),
      to: samples.appendingPathComponent("rocket.jpg"))
    let r = try CLIRunner.run(
      command.split(separator: " ").map(String.init), currentDirectory: folder)
    #expect(r.exitCode == 0, "\(r.stderr)")
    var printed = r.stdout.components(separatedBy: "\n")
    while printed.last?.isEmpty == true { printed.removeLast() }
    #expect(printed == shown, "retouch \(command)")
  }
}
