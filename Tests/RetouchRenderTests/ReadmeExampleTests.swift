// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchIO
import RetouchRender
import RetouchTestSupport
import Testing

/// Runs the README's Swift example, so it keeps compiling and working.
@Suite("README example")
struct ReadmeExampleTests {
  @Test func theExampleRuns() throws {
    let out = FileManager.default.temporaryDirectory.appendingPathComponent(
      "readme-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: out) }
    let previous = FileManager.default.currentDirectoryPath
    try #require(FileManager.default.changeCurrentDirectoryPath(packageRoot.path))
    defer { _ = FileManager.default.changeCurrentDirectoryPath(previous) }

    // --- begin README example (paths as in the README; output moved to a temporary folder) ---
    // Decode any JPEG, PNG, HEIC, AVIF, WebP or TIFF: upright, colour-managed, with its metadata.
    let photo = try ImageDecoder().decode(URL(fileURLWithPath: "Samples/picos-de-europa.jpg"))
    print(photo.format, photo.image.size, photo.metadata.colorProfile?.description ?? "sRGB")

    // One value describes the whole edit; the renderer compiles it into a few fast passes.
    let edit = EditConfig(
      properties: [.exposure: 0.3, .contrast: 0.2, .shadows: 0.4, .vignette: 0.3],
      crop: NormalizedRect(x: 0.05, y: 0, width: 0.9, height: 1),
      look: LookSelection(.chrome, strength: 0.6))
    let edited = photo.image.rendered(with: edit)

    // Write it with the original's metadata, corrected for the new pixels.
    var options = EncodeOptions()
    options.quality = 85
    try ImageEncoder(options: options).write(
      edited, as: .jpeg, metadata: photo.metadata, to: out.appendingPathComponent("edited.jpg"))
    print(String(decoding: edit.jsonData(), as: UTF8.self))  // the edit as stable, versioned JSON
    // --- end README example ---

    #expect(photo.image.size == PixelSize(width: 1600, height: 1200))
    #expect(edited.size == PixelSize(width: 1440, height: 1200))
    let written = try ImageDecoder().decode(out.appendingPathComponent("edited.jpg"))
    #expect(written.image.size == PixelSize(width: 1440, height: 1200))
    #expect(try EditConfig(json: edit.jsonData()) == edit)
  }
}
