// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchIO
import Testing

/// Runs the README's Swift example, so it keeps compiling and working.
@Suite("README example")
struct ReadmeExampleTests {
  @Test func theExampleRuns() throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    let out = FileManager.default.temporaryDirectory.appendingPathComponent("readme-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
    let previous = FileManager.default.currentDirectoryPath
    FileManager.default.changeCurrentDirectoryPath(root.path)
    defer { FileManager.default.changeCurrentDirectoryPath(previous) }

    // --- begin README example (paths as in the README; output moved to a temporary folder) ---
    // Decode any JPEG, PNG or HEIC: upright, colour-managed, with its metadata.
    let photo = try ImageDecoder().decode(URL(fileURLWithPath: "Samples/rocket.jpg"))
    print(photo.format, photo.image.size, photo.metadata.colorProfile?.description ?? "sRGB")

    // A 1080-px preview: shrink on load, then Lanczos-3.
    var fast = DecodeOptions()
    fast.minimumLongEdge = 1080
    let preview = try ImageDecoder(options: fast).decode(URL(fileURLWithPath: "Samples/picos-de-europa.jpg"))
    let small = preview.image.resized(toFitLongEdge: 1080)

    // Write it with the original's metadata, corrected for the new pixels.
    var options = EncodeOptions()
    options.quality = 85
    try ImageEncoder(options: options).write(
      small, as: .jpeg, metadata: preview.metadata, to: out.appendingPathComponent("preview.jpg"))
    // --- end README example ---

    #expect(photo.metadata.colorProfile?.description == "Adobe RGB (1998)")
    #expect(photo.image.colorSpace == .displayP3)
    #expect(small.size == PixelSize(width: 1080, height: 810))
    let written = try ImageDecoder().decode(out.appendingPathComponent("preview.jpg"))
    #expect(written.image.size == PixelSize(width: 1080, height: 810))
  }
}
