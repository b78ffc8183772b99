// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchTestSupport
import Testing

@Suite("retouch edit, reopen, revert")
struct EditCommandTests {
  /// g04 is a 600×450 JPEG with orientation 1.
  static let photo = SharedPhotos.url("g04")

  @Test(arguments: [
    ["--with", "retouch", "--set", "exposure=0.3", "--look", "noir:0.5", "--crop", "0,0,0.5,1"],
    ["--with", "vignette", "--intensity", "0.8"],
    ["--with", "sepia", "--intensity", "0.7"],
    ["--with", "filter", "--filter", "chrome"],
  ])
  func reopeningUnchangedRendersTheSamePhoto(editor: [String]) throws {
    let dir = try CLIRunner.temporaryDirectory()
    let out = dir.appendingPathComponent("edit.jpg"),
      adjustments = dir.appendingPathComponent("edit.json")
    let edit = try CLIRunner.run(
      ["edit", Self.photo.path] + editor + ["-o", out.path, "--adjustments", adjustments.path])
    #expect(edit.exitCode == 0, "\(edit.stderr)")
    #expect(edit.stderr.isEmpty)
    let json =
      try JSONSerialization.jsonObject(with: Data(contentsOf: adjustments)) as? [String: Any]
    #expect((json?["formatIdentifier"] as? String)?.hasPrefix("org.retouch.") == true)
    #expect(json?["formatVersion"] as? String == "1")
    #expect(try Data(contentsOf: out) != Data(contentsOf: Self.photo))

    let again = dir.appendingPathComponent("again.jpg")
    let reopen = try CLIRunner.run([
      "reopen", Self.photo.path, "--adjustments", adjustments.path, "-o", again.path,
    ])
    #expect(reopen.exitCode == 0, "\(reopen.stderr)")
    #expect(
      try Data(contentsOf: again) == Data(contentsOf: out), "\(editor): reopened output differs")
  }

  @Test func reopenWithAChangeContinuesTheEdit() throws {
    let dir = try CLIRunner.temporaryDirectory()
    let first = dir.appendingPathComponent("a.jpg"), a = dir.appendingPathComponent("a.json")
    #expect(
      try CLIRunner.run([
        "edit", Self.photo.path, "--set", "exposure=0.3", "-o", first.path, "--adjustments", a.path,
      ]).exitCode == 0)
    let second = dir.appendingPathComponent("b.jpg"), b = dir.appendingPathComponent("b.json")
    let r = try CLIRunner.run([
      "reopen", Self.photo.path, "--adjustments", a.path, "--set", "contrast=0.4", "-o",
      second.path,
      "--save-adjustments", b.path,
    ])
    #expect(r.exitCode == 0, "\(r.stderr)")
    #expect(try Data(contentsOf: second) != Data(contentsOf: first))
    // Both sliders are in the new adjustment data: the exposure was resumed, not reset.
    let saved = try JSONSerialization.jsonObject(with: Data(contentsOf: b)) as? [String: Any]
    let payload = try #require(Data(base64Encoded: saved?["data"] as? String ?? ""))
    let config = try JSONSerialization.jsonObject(with: payload) as? [String: Any]
    let settings = config?["settings"] as? [String: Double]
    #expect(settings == ["exposure": 0.3, "contrast": 0.4])
  }

  @Test func anotherEditorEditsTheBakedInPhoto() throws {
    let dir = try CLIRunner.temporaryDirectory()
    let sepia = dir.appendingPathComponent("s.jpg"), s = dir.appendingPathComponent("s.json")
    #expect(
      try CLIRunner.run([
        "edit", Self.photo.path, "--with", "sepia", "-o", sepia.path, "--adjustments", s.path,
      ]).exitCode == 0)
    let out = dir.appendingPathComponent("v.jpg")
    let refused = try CLIRunner.run([
      "reopen", Self.photo.path, "--adjustments", s.path, "--with", "vignette", "-o", out.path,
    ])
    #expect(refused.exitCode == 65)
    #expect(refused.stderr.contains("missing rendered photo"), "\(refused.stderr)")
    let baked = try CLIRunner.run([
      "reopen", Self.photo.path, "--adjustments", s.path, "--with", "vignette", "--rendered",
      sepia.path, "-o", out.path,
    ])
    #expect(baked.exitCode == 0, "\(baked.stderr)")
  }

  @Test(arguments: [
    (
      #"{"formatIdentifier":"org.retouch.edit","formatVersion":"2","data":""}"#,
      "newer adjustment data"
    ),
    (
      #"{"formatIdentifier":"com.example.other","formatVersion":"1","data":""}"#,
      "foreign adjustment data"
    ),
    (
      #"{"formatIdentifier":"org.retouch.edit","formatVersion":"1","data":"AAAA"}"#,
      "corrupt adjustment data"
    ),
    (
      #"{"formatIdentifier":"org.retouch.sepia","formatVersion":"1","data":"e30="}"#,
      "corrupt adjustment data"
    ),
    ("not json", "corrupt adjustment data"),
  ])
  func badAdjustmentDataExits65(json: String, message: String) throws {
    let dir = try CLIRunner.temporaryDirectory()
    let a = dir.appendingPathComponent("a.json")
    try Data(json.utf8).write(to: a)
    let r = try CLIRunner.run([
      "reopen", Self.photo.path, "--adjustments", a.path, "-o",
      dir.appendingPathComponent("o.jpg").path,
    ])
    #expect(r.exitCode == 65)
    #expect(r.stderr.hasPrefix("retouch reopen: ") && r.stderr.contains(message), "\(r.stderr)")
  }

  @Test(arguments: [
    ["--with", "vignette", "--set", "exposure=1"],
    ["--with", "filter", "--filter", "bogus"],
    ["--with", "sepia", "--intensity", "2"],
    ["--with", "painter"],
  ])
  func badOptionsAreUsageErrors(extra: [String]) throws {
    let dir = try CLIRunner.temporaryDirectory()
    let r = try CLIRunner.run(
      ["edit", Self.photo.path] + extra + [
        "-o", dir.appendingPathComponent("o.jpg").path, "--adjustments",
        dir.appendingPathComponent("a.json").path,
      ])
    #expect(r.exitCode == 64, "\(extra): \(r.stderr)")
  }

  @Test func editNeedsAdjustmentsAndAJPEGOutput() throws {
    let dir = try CLIRunner.temporaryDirectory()
    let noAdjustments = try CLIRunner.run([
      "edit", Self.photo.path, "-o", dir.appendingPathComponent("o.jpg").path,
    ])
    #expect(noAdjustments.exitCode == 64)
    let png = try CLIRunner.run([
      "edit", Self.photo.path, "-o", dir.appendingPathComponent("o.png").path, "--adjustments",
      dir.appendingPathComponent("a.json").path,
    ])
    #expect(png.exitCode == 64)
  }

  @Test func revertGivesBackTheOriginalBytes() throws {
    let dir = try CLIRunner.temporaryDirectory()
    let out = dir.appendingPathComponent("original.jpg")
    let r = try CLIRunner.run(["revert", Self.photo.path, "-o", out.path])
    #expect(r.exitCode == 0, "\(r.stderr)")
    #expect(try Data(contentsOf: out) == Data(contentsOf: Self.photo))
    let missing = try CLIRunner.run([
      "revert", dir.appendingPathComponent("nope.jpg").path, "-o", out.path,
    ])
    #expect(missing.exitCode == 66)
    let same = try CLIRunner.run(["revert", Self.photo.path, "-o", Self.photo.path])
    #expect(same.exitCode == 64)
  }

  @Test func helpListsTheEditors() throws {
    let r = try CLIRunner.run(["edit", "--help"])
    #expect(r.exitCode == 0)
    #expect(r.stdout.contains("retouch|vignette|sepia|filter"))
  }
}
