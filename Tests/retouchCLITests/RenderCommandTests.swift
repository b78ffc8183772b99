// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchRender
import RetouchTestSupport
import Testing

/// What `retouch info --json --check` says about a written file: its format and decoded size.
private func decodedFile(_ url: URL) throws -> (format: String, width: Int, height: Int) {
  let r = try CLIRunner.run(["info", "--json", "--check", url.path])
  #expect(r.exitCode == 0, "\(url.lastPathComponent) does not decode: \(r.stderr)")
  let items = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]]
  let item = try #require(items?.first)
  return (
    try #require(item["format"] as? String), try #require(item["decodedWidth"] as? Int),
    try #require(item["decodedHeight"] as? Int)
  )
}

@Suite("retouch apply")
struct ApplyCommandTests {
  /// g04 is a 600×450 JPEG with orientation 1.
  static let photo = SharedPhotos.url("g04")

  /// Runs `retouch apply photo -o <dir>/name extra…` and returns the result and the output URL.
  static func apply(
    _ extra: [String], to input: URL = photo, name: String = "out.jpg", in dir: URL? = nil
  ) throws -> (CLIRunner.Result, URL) {
    let folder = try dir ?? CLIRunner.temporaryDirectory()
    let out = folder.appendingPathComponent(name)
    return (try CLIRunner.run(["apply", input.path, "-o", out.path] + extra), out)
  }

  @Test func slidersAndALookChangeThePixelsButNotTheSize() throws {
    let dir = try CLIRunner.temporaryDirectory()
    let (plain, plainURL) = try Self.apply([], name: "plain.jpg", in: dir)
    #expect(plain.exitCode == 0, "\(plain.stderr)")
    let (edited, editedURL) = try Self.apply(
      [
        "--set", "exposure=0.3", "--set", "contrast=0.2", "--set", "noise-reduction=0.4",
        "--set", "mixer.blue.saturation=-0.5", "--look", "noir:0.8",
      ],
      name: "edited.jpg", in: dir)
    #expect(edited.exitCode == 0, "\(edited.stderr)")
    #expect(edited.stderr.isEmpty, "\(edited.stderr)")
    let file = try decodedFile(editedURL)
    #expect(file.format == "JPEG")
    #expect(file.width == 600 && file.height == 450)
    #expect(try Data(contentsOf: editedURL) != Data(contentsOf: plainURL))
  }

  @Test(arguments: [
    // Crops are in unit coordinates of the turned photo, rounded outwards to whole pixels.
    (["--crop", "0,0,0.5,0.5"], 300, 225),
    (["--crop", "0.25,0.5,0.5,0.5"], 300, 225),
    (["--rotate", "90"], 450, 600),
    (["--rotate", "180"], 600, 450),
    (["--rotate", "270"], 450, 600),
    (["--flip"], 600, 450),
    (["--flip", "--rotate", "270"], 450, 600),
    // The turned photo is 450×600, so the crop is 225×150.
    (["--rotate", "90", "--crop", "0,0,0.5,0.25"], 225, 150),
    // Straightening zooms to fill the crop; the output keeps the crop's size.
    (["--straighten", "4.5"], 600, 450),
    (["--straighten", "-3", "--crop", "0,0,0.5,0.5"], 300, 225),
  ])
  func geometryGivesTheExpectedSize(extra: [String], width: Int, height: Int) throws {
    let (r, out) = try Self.apply(extra)
    #expect(r.exitCode == 0, "\(r.stderr)")
    let file = try decodedFile(out)
    #expect(
      file.width == width && file.height == height, "\(extra) gave \(file.width)×\(file.height)")
  }

  @Test func cropIsNotWidenedByRoundingNoise() throws {
    // The crop's rows are 0.2 × 450 = 90 to 0.6 × 450 = 270, but in Double 0.2 + 0.4 is
    // 0.6000000000000001 and its product with 450 is 270.00000000000006: rounded outwards as it
    // is, that gave 271 rows.
    let (r, out) = try Self.apply(["--crop", "0.1,0.2,0.3,0.4"])
    #expect(r.exitCode == 0, "\(r.stderr)")
    let file = try decodedFile(out)
    #expect(file.width == 180)
    #expect(file.height == 180)
  }

  @Test func turnsApplyToTheUprightPhoto() throws {
    // g09 is stored 450×600 with orientation 6: it is decoded upright as 600×450 first.
    let (r, out) = try Self.apply(["--rotate", "90"], to: SharedPhotos.url("g09"))
    #expect(r.exitCode == 0, "\(r.stderr)")
    let file = try decodedFile(out)
    #expect(file.width == 450 && file.height == 600)
  }

  @Test func flipAndTurnsChangeThePixels() throws {
    let dir = try CLIRunner.temporaryDirectory()
    let (a, plain) = try Self.apply([], name: "plain.png", in: dir)
    let (b, flipped) = try Self.apply(["--flip"], name: "flipped.png", in: dir)
    let (c, half) = try Self.apply(["--rotate", "180"], name: "half.png", in: dir)
    for r in [a, b, c] { #expect(r.exitCode == 0, "\(r.stderr)") }
    let bytes = try [plain, flipped, half].map { try Data(contentsOf: $0) }
    #expect(bytes[0] != bytes[1])
    #expect(bytes[0] != bytes[2])
    #expect(bytes[1] != bytes[2])
  }

  @Test(arguments: [("png", "PNG"), ("heic", "HEIF"), ("webp", "WebP"), ("tif", "TIFF")])
  func formatFollowsTheExtensionOrOption(ext: String, format: String) throws {
    let (r, out) = try Self.apply(["--look", "chrome"], name: "out.\(ext)")
    #expect(r.exitCode == 0, "\(r.stderr)")
    #expect(try decodedFile(out).format == format)
    let (r2, out2) = try Self.apply(["--look", "chrome", "--format", ext], name: "out.bin")
    #expect(r2.exitCode == 0, "\(r2.stderr)")
    #expect(try decodedFile(out2).format == format)
  }

  @Test func savedConfigReadsBackToTheSameBytes() throws {
    let dir = try CLIRunner.temporaryDirectory()
    let json = dir.appendingPathComponent("edit.json")
    let (first, firstURL) = try Self.apply(
      [
        "--set", "exposure=0.3", "--set", "shadow_warmth=0.25", "--set", "vignette=0.4",
        "--set", "grain=0.2", "--set", "sharpness=0.5", "--look", "fade:0.6",
        "--crop", "0.1,0.1,0.7,0.6", "--straighten", "2.5", "--rotate", "90", "--flip",
        "--save-config", json.path,
      ],
      name: "first.jpg", in: dir)
    #expect(first.exitCode == 0, "\(first.stderr)")

    let saved = try #require(
      try JSONSerialization.jsonObject(with: Data(contentsOf: json)) as? [String: Any])
    #expect(saved["format"] as? String == "retouch.edit")
    #expect(saved["version"] as? Int == 1)
    let settings = try #require(saved["settings"] as? [String: Double])
    #expect(settings["exposure"] == 0.3)
    #expect(settings["shadowWarmth"] == 0.25)
    #expect(settings["straighten"] == 2.5)
    #expect(saved["rotation"] as? String == EditRotation.flipped.combined(with: .rotate90).rawValue)
    #expect((saved["look"] as? [String: Any])?["look"] as? String == "fade")

    let (second, secondURL) = try Self.apply(["--config", json.path], name: "second.jpg", in: dir)
    #expect(second.exitCode == 0, "\(second.stderr)")
    let a = try Data(contentsOf: firstURL), b = try Data(contentsOf: secondURL)
    #expect(!a.isEmpty)
    #expect(a == b, "the saved edit renders differently from the options it came from")
  }

  @Test func optionsOverrideTheConfigFile() throws {
    let dir = try CLIRunner.temporaryDirectory()
    let json = dir.appendingPathComponent("edit.json")
    try Data(#"{"format": "retouch.edit", "version": 1, "settings": {"contrast": 0.5}}"#.utf8)
      .write(to: json)
    let (a, viaFile) = try Self.apply(
      ["--config", json.path, "--set", "contrast=-0.5"], name: "a.png", in: dir)
    let (b, direct) = try Self.apply(["--set", "contrast=-0.5"], name: "b.png", in: dir)
    #expect(a.exitCode == 0 && b.exitCode == 0, "\(a.stderr)\(b.stderr)")
    #expect(try Data(contentsOf: viaFile) == Data(contentsOf: direct))
  }

  @Test(arguments: [
    (["--set", "sparkle=1"], "'sparkle' is not a setting; run 'retouch looks'"),
    (["--set", "contrast=3"], "value out of range: contrast is 3"),
    (["--set", "exposure=-4.5"], "allowed -4…4"),
    (["--set", "contrast"], "'--set' takes NAME=VALUE, got 'contrast'"),
    (["--set", "contrast=lots"], "'--set contrast' needs a number, got 'lots'"),
    (["--set", "contrast=nan"], "'--set contrast' needs a number, got 'nan'"),
    (["--crop", "0.1,0.1,0.5"], "'--crop' takes X,Y,W,H"),
    (["--crop", "0.1,0.1,0.5,0.5,0.5"], "'--crop' takes X,Y,W,H"),
    (["--crop", "0.1,x,0.5,0.5,0.5"], "'--crop' takes X,Y,W,H"),
    (["--crop", "0.1,,0.5,0.5,0.5"], "'--crop' takes X,Y,W,H"),
    (["--crop", "0.5,0.5,0.8,0.8"], "invalid crop"),
    (["--crop", "-0.1,0,0.5,0.5"], "invalid crop"),
    (["--crop", "0,0,0,1"], "invalid crop"),
    (["--look", "sparkly"], "'sparkly' is not a look; choose one of chrome, fade"),
    (["--look", "noir:1.5"], "look strength is 1.5, allowed 0…1"),
    (["--look", "noir:-0.2"], "look strength is -0.2, allowed 0…1"),
    (["--look", "noir:strong"], "look strength must be a number in 0…1, got 'strong'"),
    (["--rotate", "45"], "'--rotate' must be 90, 180 or 270, got '45'"),
    (["--straighten", "60"], "straighten is 60"),
    (["--straighten", "level"], "'--straighten' needs degrees, got 'level'"),
    (["--quality", "101"], "'--quality' must be a whole number in 1…100"),
    (["--format", "gif"], "'--format' must be jpeg, png, heic, avif, webp or tiff"),
  ])
  func badOptionsAreUsageErrors(extra: [String], message: String) throws {
    let (r, out) = try Self.apply(extra)
    #expect(r.exitCode == 64, "\(extra): \(r.stderr)")
    #expect(r.stderr.hasPrefix("retouch apply: "), "\(r.stderr)")
    #expect(r.stderr.contains(message), "\(extra): \(r.stderr)")
    #expect(!FileManager.default.fileExists(atPath: out.path), "an output was written for \(extra)")
  }

  @Test func missingOutputIsAUsageError() throws {
    let r = try CLIRunner.run(["apply", Self.photo.path, "--set", "exposure=0.3"])
    #expect(r.exitCode == 64)
    #expect(r.stderr.contains("'retouch apply' needs an output: -o OUT."), "\(r.stderr)")
  }

  @Test func malformedConfigIsBadDataNamingTheFile() throws {
    let dir = try CLIRunner.temporaryDirectory()
    let json = dir.appendingPathComponent("broken-edit.json")
    try Data(#"{"format": "retouch.edit", "settings": {"exposure": 0.3"#.utf8).write(to: json)
    let (r, out) = try Self.apply(["--config", json.path], in: dir)
    #expect(r.exitCode == 65, "\(r.stderr)")
    #expect(r.stderr.contains("broken-edit.json: malformed edit: "), "\(r.stderr)")
    #expect(!FileManager.default.fileExists(atPath: out.path))
  }

  @Test(arguments: [
    (#"{"settings": {"sparkle": 1}}"#, "unknown setting: 'sparkle' is not a setting"),
    (#"{"settings": {"contrast": 3}}"#, "value out of range: contrast is 3"),
    (#"{"settings": {"contrast": "high"}}"#, "malformed edit: "),
    (#"{"format": "other.edit"}"#, "malformed edit: "),
    (#"{"version": 2}"#, "newer format: "),
    (#"{"crop": [0.5, 0.5, 0.8, 0.8]}"#, "invalid crop: "),
  ])
  func invalidConfigContentIsBadData(json text: String, message: String) throws {
    let dir = try CLIRunner.temporaryDirectory()
    let json = dir.appendingPathComponent("edit.json")
    try Data(text.utf8).write(to: json)
    let (r, _) = try Self.apply(["--config", json.path], in: dir)
    #expect(r.exitCode == 65, "\(text): \(r.stderr)")
    #expect(r.stderr.contains("edit.json: \(message)"), "\(text): \(r.stderr)")
  }

  @Test func missingConfigIsUnreadable() throws {
    let (r, out) = try Self.apply(["--config", "/nonexistent/saved-edit.json"])
    #expect(r.exitCode == 66, "\(r.stderr)")
    #expect(r.stderr.contains("saved-edit.json: unreadable file"), "\(r.stderr)")
    #expect(!FileManager.default.fileExists(atPath: out.path))
  }

  @Test func missingPhotoIsUnreadable() throws {
    let (r, _) = try Self.apply(
      ["--look", "noir"], to: URL(fileURLWithPath: "/nonexistent/photo.jpg"))
    #expect(r.exitCode == 66)
    #expect(r.stderr.contains("photo.jpg: unreadable file"), "\(r.stderr)")
  }

  @Test func theInputIsNeverModified() throws {
    let dir = try CLIRunner.temporaryDirectory()
    let input = dir.appendingPathComponent("in.jpg")
    try FileManager.default.copyItem(at: Self.photo, to: input)
    let before = try Data(contentsOf: input)
    let (r, _) = try Self.apply(
      ["--set", "exposure=0.5", "--look", "sepia", "--crop", "0.2,0.2,0.6,0.6", "--rotate", "90"],
      to: input, in: dir)
    #expect(r.exitCode == 0, "\(r.stderr)")
    #expect(try Data(contentsOf: input) == before)

    let same = try CLIRunner.run(["apply", input.path, "-o", input.path, "--look", "noir"])
    #expect(same.exitCode == 64)
    #expect(same.stderr.contains("would replace the input"), "\(same.stderr)")
    #expect(try Data(contentsOf: input) == before)
  }
}

@Suite("retouch looks")
struct LooksCommandTests {
  /// Ranges as the CLI prints them: whole numbers without a decimal point.
  static func range(_ s: EditSetting) -> String {
    func f(_ v: Double) -> String { v == v.rounded() ? String(Int(v)) : String(v) }
    return "\(f(s.minimum))…\(f(s.maximum))"
  }

  @Test func listsEveryLookAndEverySettingWithItsRange() throws {
    let r = try CLIRunner.run(["looks"], environment: ["RETOUCH_LANG": "en"])
    #expect(r.exitCode == 0, "\(r.stderr)")
    let lines = r.stdout.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
    for look in Look.allCases {
      #expect(
        lines.contains { $0.first == look.rawValue && $0.last == look.name(.english) },
        "missing \(look)")
    }
    for type in EditSettingType.allCases {
      let s = type.setting
      #expect(
        lines.contains { $0.count >= 3 && $0[0] == type.rawValue && $0[1] == Self.range(s) },
        "missing \(type.rawValue) \(Self.range(s))")
      #expect(r.stdout.contains(s.localizedName(.english)), "missing the name of \(type.rawValue)")
    }
    #expect(r.stdout.contains("exposure") && r.stdout.contains("-4…4"))
  }

  @Test func jsonHasEveryLookAndSetting() throws {
    let r = try CLIRunner.run(["looks", "--json"], environment: ["RETOUCH_LANG": "en"])
    #expect(r.exitCode == 0, "\(r.stderr)")
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
    let looks = try #require(object["looks"] as? [[String: Any]])
    let settings = try #require(object["settings"] as? [[String: Any]])
    #expect(looks.compactMap { $0["id"] as? String } == Look.allCases.map(\.rawValue))
    #expect(settings.compactMap { $0["id"] as? String } == EditSettingType.allCases.map(\.rawValue))
    for item in settings {
      let type = try #require(EditSettingType(rawValue: item["id"] as? String ?? ""))
      #expect(item["minimum"] as? Double == type.setting.minimum, "\(type)")
      #expect(item["maximum"] as? Double == type.setting.maximum, "\(type)")
      #expect(item["name"] as? String == type.setting.localizedName(.english), "\(type)")
      #expect(item["group"] as? String == type.group.rawValue, "\(type)")
    }
  }

  @Test func namesFollowRetouchLang() throws {
    let zh = try CLIRunner.run(["looks"], environment: ["RETOUCH_LANG": "zh-Hans"])
    #expect(zh.exitCode == 0, "\(zh.stderr)")
    for look in Look.allCases {
      #expect(zh.stdout.contains(look.name(.simplifiedChinese)), "\(look)")
    }
    #expect(zh.stdout.contains("曝光"))
    #expect(
      zh.stdout.contains(EditSettingType.noiseReduction.setting.localizedName(.simplifiedChinese)))
    #expect(!zh.stdout.contains("Noise Reduction"))

    let json = try CLIRunner.run(["looks", "--json"], environment: ["RETOUCH_LANG": "zh-Hans"])
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
    let looks = try #require(object["looks"] as? [[String: Any]])
    #expect(looks.first?["name"] as? String == Look.chrome.name(.simplifiedChinese))

    let en = try CLIRunner.run(["looks"], environment: ["RETOUCH_LANG": "en"])
    #expect(!en.stdout.contains("曝光"))
  }

  @Test func contactSheetIsALabelledGridOfEveryLook() throws {
    let dir = try CLIRunner.temporaryDirectory()
    let input = dir.appendingPathComponent("photo.jpg")
    try FileManager.default.copyItem(at: SharedPhotos.url("g04"), to: input)
    let before = try Data(contentsOf: input)
    let sheet = dir.appendingPathComponent("sheet.jpg")
    let r = try CLIRunner.run(["looks", input.path, "--sheet", sheet.path])
    #expect(r.exitCode == 0, "\(r.stderr)")
    let file = try decodedFile(sheet)
    #expect(file.format == "JPEG")
    // Thumbnails fit in 360 px (360×270 for this 600×450 photo); the original and each look
    // make 1 + 9 tiles, so four columns by three rows, plus gaps and label strips.
    let tiles = 1 + Look.allCases.count
    let columns = 4, rows = (tiles + columns - 1) / columns
    #expect(file.width > columns * 360, "\(file.width)")
    #expect(file.height > rows * 270, "\(file.height)")
    #expect(try Data(contentsOf: input) == before)
  }

  @Test func sheetNeedsAPhotoAndAPhotoNeedsASheet() throws {
    let dir = try CLIRunner.temporaryDirectory()
    let a = try CLIRunner.run(["looks", "--sheet", dir.appendingPathComponent("s.jpg").path])
    #expect(a.exitCode == 64)
    #expect(a.stderr.contains("'--sheet' needs a PHOTO"), "\(a.stderr)")
    let b = try CLIRunner.run(["looks", SharedPhotos.url("g04").path])
    #expect(b.exitCode == 64)
    #expect(b.stderr.contains("a PHOTO is only used with '--sheet OUT.jpg'"), "\(b.stderr)")
  }

  @Test func sheetOfAMissingPhotoIsUnreadable() throws {
    let dir = try CLIRunner.temporaryDirectory()
    let r = try CLIRunner.run([
      "looks", "/nonexistent/photo.jpg", "--sheet", dir.appendingPathComponent("s.jpg").path,
    ])
    #expect(r.exitCode == 66)
    #expect(r.stderr.contains("photo.jpg: unreadable file"), "\(r.stderr)")
  }
}

@Suite("retouch apply --depth")
struct DepthBlurCommandTests {
  @Test func depthMapBlursTheBackgroundOnly() throws {
    let dir = try CLIRunner.temporaryDirectory()
    let plain = dir.appendingPathComponent("plain.png"),
      blurred = dir.appendingPathComponent("blurred.png")
    // The iPhone portrait of a pug and its depth image (brighter = nearer).
    let photo = SharedPhotos.url("g18").path, depth = SharedPhotos.url("g19").path
    let a = try CLIRunner.run(["apply", photo, "-o", plain.path, "--set", "backgroundBlur=1"])
    let b = try CLIRunner.run([
      "apply", photo, "-o", blurred.path, "--set", "backgroundBlur=1", "--depth", depth,
    ])
    #expect(a.exitCode == 0 && b.exitCode == 0, "\(a.stderr) \(b.stderr)")
    #expect(
      try Data(contentsOf: plain) != Data(contentsOf: blurred), "the depth map changed nothing")
    let missing = try CLIRunner.run([
      "apply", photo, "-o", blurred.path, "--depth", "/nonexistent/depth.png",
    ])
    #expect(missing.exitCode == 66)
  }
}
