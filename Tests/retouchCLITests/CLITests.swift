// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchIO
import RetouchTestSupport
import Testing

@Suite("retouch CLI basics")
struct CLIBasicsTests {
  @Test func versionPrintsAndExitsZero() throws {
    let r = try CLIRunner.run(["--version"])
    #expect(r.exitCode == 0)
    #expect(r.stdout.hasPrefix("retouch "))
  }

  @Test func helpListsEverySubcommand() throws {
    let r = try CLIRunner.run(["--help"])
    #expect(r.exitCode == 0)
    for name in ["info", "convert", "apply", "auto", "suggest", "looks"] {
      #expect(r.stdout.contains("  \(name) "), "missing \(name)")
    }
  }

  @Test(arguments: ["info", "convert", "apply", "auto", "suggest", "looks"])
  func subcommandHelp(name: String) throws {
    let r = try CLIRunner.run([name, "--help"])
    #expect(r.exitCode == 0)
    #expect(r.stdout.contains("USAGE: retouch \(name) "))
    #expect(r.stdout.contains("--help"))
  }

  @Test func noArgumentsIsAUsageError() throws {
    let r = try CLIRunner.run([])
    #expect(r.exitCode == 64)
    #expect(r.stderr.contains("USAGE"))
  }

  @Test func unknownSubcommandAndOptionAreUsageErrors() throws {
    let a = try CLIRunner.run(["frobnicate"])
    #expect(a.exitCode == 64)
    #expect(a.stderr.contains("unknown subcommand 'frobnicate'"))
    let b = try CLIRunner.run(["info", "--bogus", "x.jpg"])
    #expect(b.exitCode == 64)
    #expect(b.stderr.contains("unknown option '--bogus'"))
  }
}

@Suite("retouch info")
struct InfoCommandTests {
  @Test func describesACameraPhoto() throws {
    let r = try CLIRunner.run(["info", SharedPhotos.url("g76").path])
    #expect(r.exitCode == 0, "\(r.stderr)")
    #expect(r.stdout.contains("JPEG, 3264×2448"))
    #expect(r.stdout.contains("6 (turn 90° clockwise to view), displays 2448×3264"))
    #expect(r.stdout.contains("Apple iPhone 4S"))
    #expect(r.stdout.contains("f/2.4"))
  }

  @Test func jsonHasTypedFields() throws {
    let r = try CLIRunner.run([
      "info", "--json", SharedPhotos.url("g76").path, SharedPhotos.url("g16").path,
    ])
    #expect(r.exitCode == 0, "\(r.stderr)")
    let json = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]]
    let items = try #require(json)
    #expect(items.count == 2)
    #expect(items[0]["format"] as? String == "JPEG")
    #expect(items[0]["orientation"] as? Int == 6)
    #expect(items[0]["displayWidth"] as? Int == 2448)
    #expect(items[0]["cameraModel"] as? String == "iPhone 4S")
    #expect(items[1]["format"] as? String == "HEIF")
    #expect(items[1]["displayWidth"] as? Int == 3024)
    #expect(items[1]["displayHeight"] as? Int == 4032)
    #expect((items[1]["colorProfile"] as? String)?.contains("P3") == true)
  }

  @Test func checkDecodesThePixels() throws {
    let r = try CLIRunner.run(["info", "--check", "--json", SharedPhotos.url("g09").path])
    #expect(r.exitCode == 0, "\(r.stderr)")
    let items = try #require(
      try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])
    #expect(items.first?["decodedWidth"] as? Int == 600)
    #expect(items.first?["decodedHeight"] as? Int == 450)
  }

  @Test func garbageFileIsBadDataWithAMessage() throws {
    let dir = try CLIRunner.temporaryDirectory()
    let bad = dir.appendingPathComponent("notes.jpg")
    try Data("hello, this is text".utf8).write(to: bad)
    let r = try CLIRunner.run(["info", bad.path])
    #expect(r.exitCode == 65)
    #expect(
      r.stderr.contains(
        "notes.jpg: unsupported format: not a JPEG, PNG, HEIC, AVIF, WebP or TIFF image: file starts with 68 65 6C 6C"
      ))
  }

  @Test func missingFileIsUnreadable() throws {
    let r = try CLIRunner.run(["info", "/nonexistent/photo.jpg"])
    #expect(r.exitCode == 66)
    #expect(r.stderr.contains("photo.jpg: unreadable file"))
  }

  /// A photo reached through a symbolic link is read like the file itself; a link to a
  /// directory or to nothing is still refused with a clear message.
  @Test func symbolicLinksAreFollowed() throws {
    let dir = try CLIRunner.temporaryDirectory()
    let fm = FileManager.default
    let link = dir.appendingPathComponent("linked.jpg")
    try fm.createSymbolicLink(at: link, withDestinationURL: SharedPhotos.url("g04"))
    let info = try CLIRunner.run(["info", link.path])
    #expect(info.exitCode == 0, "\(info.stderr)")
    #expect(info.stdout.contains("JPEG, 600×450"))
    let out = dir.appendingPathComponent("out.jpg")
    let apply = try CLIRunner.run(["apply", link.path, "-o", out.path, "--set", "exposure=0.2"])
    #expect(apply.exitCode == 0, "\(apply.stderr)")
    #expect(fm.fileExists(atPath: out.path))

    let toDirectory = dir.appendingPathComponent("folder.jpg")
    try fm.createSymbolicLink(at: toDirectory, withDestinationURL: dir)
    let d = try CLIRunner.run(["info", toDirectory.path])
    #expect(d.exitCode == 66)
    #expect(d.stderr.contains("folder.jpg: unreadable file: not a regular file"), "\(d.stderr)")
    let dangling = dir.appendingPathComponent("gone.jpg")
    try fm.createSymbolicLink(
      at: dangling, withDestinationURL: dir.appendingPathComponent("missing.jpg"))
    let g = try CLIRunner.run(["info", dangling.path])
    #expect(g.exitCode == 66)
    #expect(
      g.stderr.contains("gone.jpg: unreadable file: a symbolic link to no file"), "\(g.stderr)")
  }

  @Test func oneBadFileDoesNotHideTheOthers() throws {
    let r = try CLIRunner.run(["info", "/nonexistent/a.jpg", SharedPhotos.url("g04").path])
    #expect(r.exitCode == 66)
    #expect(r.stdout.contains("JPEG, 600×450"))
  }
}

@Suite("retouch convert")
struct ConvertCommandTests {
  @Test func shrinksUprightsAndKeepsMetadata() throws {
    let dir = try CLIRunner.temporaryDirectory()
    let out = dir.appendingPathComponent("small.jpg")
    let r = try CLIRunner.run([
      "convert", SharedPhotos.url("g76").path, out.path, "--max-size", "800",
    ])
    #expect(r.exitCode == 0, "\(r.stderr)")
    let info = try CLIRunner.run(["info", "--json", out.path])
    let item = try #require(
      (try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [[String: Any]])?.first)
    #expect(item["width"] as? Int == 600)
    #expect(item["height"] as? Int == 800)
    #expect(item["orientation"] as? Int == 1)
    #expect(item["cameraModel"] as? String == "iPhone 4S")
    #expect(item["software"] as? String == "Retouch")
  }

  @Test(arguments: [
    ("png", "PNG"), ("heic", "HEIF"), ("jpg", "JPEG"), ("webp", "WebP"), ("tif", "TIFF"),
    ("avif", "AVIF"),
  ])
  func writesEachFormat(ext: String, format: String) throws {
    let dir = try CLIRunner.temporaryDirectory()
    let out = dir.appendingPathComponent("out.\(ext)")
    let r = try CLIRunner.run([
      "convert", SharedPhotos.url("g04").path, out.path, "--max-size", "300",
    ])
    #expect(r.exitCode == 0, "\(r.stderr)")
    let info = try CLIRunner.run(["info", "--json", "--check", out.path])
    let item = try #require(
      (try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [[String: Any]])?.first)
    #expect(item["format"] as? String == format)
    #expect(item["decodedWidth"] as? Int == 300)
    #expect(item["decodedHeight"] as? Int == 225)
  }

  /// A 16-bit PNG becomes a 16-bit TIFF with every value kept.
  @Test func sixteenBitTIFFKeepsEveryValue() throws {
    let dir = try CLIRunner.temporaryDirectory()
    let input = SharedPhotos.url("g30")  // weld_16bit.png
    let out = dir.appendingPathComponent("weld.tiff")
    let r = try CLIRunner.run(["convert", input.path, out.path])
    #expect(r.exitCode == 0, "\(r.stderr)")
    let source = try ImageDecoder().decode(input).image
    let written = try ImageDecoder().decode(out)
    #expect(written.format == .tiff)
    #expect(written.image.format == .rgb16)
    #expect(written.image.hasSamePixels(as: source))
  }

  /// `--lossless` writes a WebP that decodes to the input's exact values (an 8-bit PNG here),
  /// and is refused for any other output.
  @Test func losslessWebPKeepsEveryValue() throws {
    let dir = try CLIRunner.temporaryDirectory()
    let input = SharedPhotos.url("s03")  // coffee.png, 8-bit RGB
    let out = dir.appendingPathComponent("coffee.webp")
    let r = try CLIRunner.run(["convert", input.path, out.path, "--lossless"])
    #expect(r.exitCode == 0, "\(r.stderr)")
    let source = try ImageDecoder().decode(input).image
    let written = try ImageDecoder().decode(out)
    #expect(written.format == .webp)
    #expect(written.image.hasSamePixels(as: source))
    let jpeg = try CLIRunner.run([
      "convert", input.path, dir.appendingPathComponent("c.jpg").path, "--lossless",
    ])
    #expect(jpeg.exitCode == 64)
    #expect(jpeg.stderr.contains("'--lossless' is for WebP output"), "\(jpeg.stderr)")
  }

  /// `-o OUT` works as in the other commands that write a photo; OUT and -o together, or
  /// neither, are usage errors.
  @Test func takesTheOutputAsOptionToo() throws {
    let dir = try CLIRunner.temporaryDirectory()
    let out = dir.appendingPathComponent("small.png")
    let r = try CLIRunner.run([
      "convert", SharedPhotos.url("g04").path, "-o", out.path, "--max-size", "300",
    ])
    #expect(r.exitCode == 0, "\(r.stderr)")
    let info = try CLIRunner.run(["info", "--json", out.path])
    #expect(info.stdout.contains("\"PNG\""), "\(info.stdout)")
    let both = try CLIRunner.run([
      "convert", SharedPhotos.url("g04").path, out.path, "-o", out.path,
    ])
    #expect(both.exitCode == 64)
    #expect(both.stderr.contains("not both"))
    let neither = try CLIRunner.run(["convert", SharedPhotos.url("g04").path])
    #expect(neither.exitCode == 64)
    #expect(neither.stderr.contains("needs an output"))
  }

  @Test func refusesToReplaceTheInput() throws {
    let dir = try CLIRunner.temporaryDirectory()
    let input = dir.appendingPathComponent("in.jpg")
    try FileManager.default.copyItem(at: SharedPhotos.url("g04"), to: input)
    let before = try Data(contentsOf: input)
    let r = try CLIRunner.run(["convert", input.path, input.path])
    #expect(r.exitCode == 64)
    #expect(r.stderr.contains("would replace the input"))
    #expect(try Data(contentsOf: input) == before)
  }

  @Test(arguments: [
    (["--quality", "0"], "'--quality' must be a whole number in 1…100"),
    (["--format", "gif"], "'--format' must be jpeg, png, heic, avif, webp or tiff"),
    (["--max-size", "-3"], "'--max-size' must be a whole number"),
    (["--chroma", "411"], "'--chroma' must be 420 or 444"),
  ])
  func rejectsBadParameters(extra: [String], message: String) throws {
    let dir = try CLIRunner.temporaryDirectory()
    let r = try CLIRunner.run(
      ["convert", SharedPhotos.url("g04").path, dir.appendingPathComponent("o.jpg").path] + extra)
    #expect(r.exitCode == 64)
    #expect(r.stderr.contains(message), "\(r.stderr)")
  }

  @Test func unwritableOutputExits73() throws {
    let r = try CLIRunner.run(["convert", SharedPhotos.url("g04").path, "/nonexistent-dir/o.jpg"])
    #expect(r.exitCode == 73)
    #expect(r.stderr.contains("o.jpg: unwritable output"))
    // The output of `suggest --sheet`, `auto -o` and a saved edit names the missing folder.
    let photo = SharedPhotos.url("g04").path
    for args in [
      ["suggest", photo, "--max", "2", "--sheet", "/nonexistent-dir/sheet.jpg"],
      ["auto", photo, "-o", "/nonexistent-dir/o.jpg", "--always-write"],
      ["auto", photo, "--save-config", "/nonexistent-dir/edit.json"],
    ] {
      let r = try CLIRunner.run(args)
      #expect(r.exitCode == 73, "\(args[0])")
      #expect(r.stderr.contains("its folder /nonexistent-dir does not exist"), "\(r.stderr)")
    }
  }
}
