// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchIO
import RetouchTestSupport
import Testing

/// Mean of all colour components of a PNG written by the CLI (0...255), every third pixel.
private func meanComponent(_ url: URL) throws -> Double {
  let image = try ImageDecoder().decode(url).image

  let scale = image.format.bitDepth == 8 ? 1.0 : 255.0 / 65535
  var sum = 0.0
  for y in stride(from: 0, to: image.height, by: 3) {
    for x in stride(from: 0, to: image.width, by: 3) {
      let p = image.pixel(x: x, y: y)
      sum += Double(p[0] + p[1] + p[2]) * scale / 3
    }
  }
  return sum / Double(((image.height + 2) / 3) * ((image.width + 2) / 3))
}

@Suite("retouch match")
struct MatchCommandTests {
  static let photo = SharedPhotos.url("g04")

  /// A darker copy of the photo, made with `retouch apply`, as a reference.
  static func darkReference(in dir: URL) throws -> URL {
    let url = dir.appendingPathComponent("dark.png")
    let r = try CLIRunner.run(["apply", photo.path, "-o", url.path, "--set", "exposure=-1"])
    #expect(r.exitCode == 0, "\(r.stderr)")
    return url
  }

  @Test func matchingToADarkReferenceDarkensThePhoto() throws {
    let dir = try CLIRunner.temporaryDirectory()
    let reference = try Self.darkReference(in: dir)
    let plain = dir.appendingPathComponent("plain.png")
    #expect(try CLIRunner.run(["convert", Self.photo.path, plain.path]).exitCode == 0)
    let out = dir.appendingPathComponent("matched.png")
    let r = try CLIRunner.run([
      "match", Self.photo.path, "--reference", reference.path, "-o", out.path,
    ])
    #expect(r.exitCode == 0, "\(r.stderr)")
    #expect(r.stderr.isEmpty, "\(r.stderr)")
    let original = try meanComponent(plain)
    let matched = try meanComponent(out)
    let target = try meanComponent(reference)
    // The match lands much nearer the reference than the original was.
    #expect(
      abs(matched - target) < 0.25 * abs(original - target),
      "\(original) → \(matched), reference \(target)")
  }

  @Test func matchingAPhotoToItselfSaysSoAndWritesItUnchanged() throws {
    let dir = try CLIRunner.temporaryDirectory()
    let out = dir.appendingPathComponent("same.jpg")
    let r = try CLIRunner.run([
      "match", Self.photo.path, "--reference", Self.photo.path, "-o", out.path,
    ])
    #expect(r.exitCode == 0, "\(r.stderr)")
    #expect(r.stderr.contains("already matches the reference"))
    #expect(FileManager.default.fileExists(atPath: out.path))
  }

  @Test func aFolderIsMatchedPhotoByPhotoWithoutProgressWhenNotATerminal() throws {
    let dir = try CLIRunner.temporaryDirectory()
    let input = dir.appendingPathComponent("in")
    try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
    try FileManager.default.copyItem(at: Self.photo, to: input.appendingPathComponent("a.jpg"))
    try FileManager.default.copyItem(
      at: SharedPhotos.url("s01"), to: input.appendingPathComponent("b.png"))
    try Data("not a photo".utf8).write(to: input.appendingPathComponent("notes.txt"))
    let reference = try Self.darkReference(in: dir)
    let output = dir.appendingPathComponent("out")
    let r = try CLIRunner.run([
      "match", input.path, "--reference", reference.path, "--reference",
      SharedPhotos.url("d04").path,
      "-o", output.path,
    ])
    #expect(r.exitCode == 0, "\(r.stderr)")
    #expect(!r.stderr.contains("[1/2]"))
    let written = try FileManager.default.contentsOfDirectory(atPath: output.path).sorted()
    #expect(written == ["a.jpg", "b.png"])
  }

  @Test func aBadPhotoInAFolderIsReportedAndTheRestStillWritten() throws {
    let dir = try CLIRunner.temporaryDirectory()
    let input = dir.appendingPathComponent("in")
    try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
    try Data("not a jpeg".utf8).write(to: input.appendingPathComponent("a-broken.jpg"))
    try FileManager.default.copyItem(at: Self.photo, to: input.appendingPathComponent("b.jpg"))
    let output = dir.appendingPathComponent("out")
    let r = try CLIRunner.run([
      "match", input.path, "--reference", Self.photo.path, "-o", output.path,
    ])
    #expect(r.exitCode == 65, "\(r.stderr)")
    #expect(r.stderr.contains("a-broken.jpg"))
    #expect(FileManager.default.fileExists(atPath: output.appendingPathComponent("b.jpg").path))
  }

  @Test(arguments: [
    (["match", "IN.jpg", "-o", "out.jpg"], Int32(64)),
    (["match", "IN.jpg", "--reference", "REF.jpg"], Int32(64)),
    (
      ["match", "/nonexistent/photo.jpg", "--reference", "/nonexistent/ref.jpg", "-o", "out.jpg"],
      Int32(66)
    ),
  ])
  func usageAndMissingFiles(arguments: [String], code: Int32) throws {
    let r = try CLIRunner.run(arguments)
    #expect(r.exitCode == code, "\(r.stderr)")
    #expect(r.stderr.hasPrefix("retouch match: "))
  }
}
