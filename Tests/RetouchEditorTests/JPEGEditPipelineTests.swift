// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchEditor
import RetouchIO
import RetouchRender
import RetouchTestSupport
import Testing

@Suite("Overlapped JPEG edit pipeline")
struct JPEGEditPipelineTests {
  /// The plain path the pipeline must reproduce: decode, render, encode.
  static func plain(_ data: Data, _ config: EditConfig) throws -> Data {
    let decoded = try ImageDecoder().decode(data)
    let edited = decoded.image.rendered(with: config)
    return try ImageEncoder().encode(edited, as: .jpeg, metadata: decoded.metadata)
  }

  /// The pipeline computes exactly what the plain path does (with local tone or clarity too:
  /// their guide is measured from the decoded rows before they are sharpened, as the plan
  /// measures the whole image), so the encoded bytes are identical.
  @Test(arguments: [
    EditConfig(properties: [.exposure: 0.3, .contrast: 0.2, .saturation: 0.2, .temperature: 0.3]),
    EditConfig(properties: [.sharpness: 0.6, .vignette: 0.5]),
    EditConfig(properties: [
      .shadows: 0.6, .highlights: -0.5, .exposure: 0.1, .sharpness: 0.4, .vignette: 0.3,
    ]),
    EditConfig(properties: [.clarity: 0.5, .shadows: 0.3, .grain: 0.2]),
    EditConfig(
      properties: [.exposure: -0.2, .sharpness: 1, .vignette: -0.4, .grain: 0.4],
      look: LookSelection(.noir, strength: 0.7)),
  ])
  func matchesThePlainPathByteForByte(config: EditConfig) throws {
    let data = try SharedPhotos.data("g63")  // Canon EOS 30D, 2336×3504, orientation 1
    let streamed = try #require(try JPEGEditPipeline.render(data, source: "g63", config: config))
    let reference = try Self.plain(data, config)
    #expect(
      streamed.data == reference, "streamed \(streamed.data.count) bytes, plain \(reference.count)")
  }

  /// The same on a 12 MP photo with the typical edit, whose guide factor (11) does not divide
  /// the band height, so guide rows straddle the bands the pipeline sharpens.
  @Test func localToneMatchesThePlainPathOnA12MPPhoto() throws {
    let data = try SharedPhotos.data("g12")  // 4032×3024
    let config = EditConfig(properties: [
      .exposure: 0.14, .contrast: 0.3, .highlights: -0.3, .shadows: 0.3, .saturation: 0.2,
      .temperature: 0.2, .sharpness: 0.5, .vignette: 0.35,
    ])
    let streamed = try #require(try JPEGEditPipeline.render(data, source: "g12", config: config))
    let reference = try Self.plain(data, config)
    #expect(
      streamed.data == reference, "streamed \(streamed.data.count) bytes, plain \(reference.count)")
  }

  /// Written to a file while encoding: the same bytes, in place of what was there; nothing is
  /// left beside it, and a job that cannot stream leaves the file uncommitted.
  @Test func writesTheSameBytesToAFile() throws {
    let data = try SharedPhotos.data("g63")
    let config = EditConfig(properties: [.shadows: 0.4, .sharpness: 0.4, .vignette: 0.3])
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("pipeline-file-\(UInt64.random(in: 0...UInt64.max))")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let destination = directory.appendingPathComponent("out.jpg")
    try Data("an older export".utf8).write(to: destination)

    let warnings = try JPEGEditPipeline.render(
      data, source: "g63", config: config, to: OutputFile(replacing: destination))
    #expect(warnings == [])
    #expect(try Data(contentsOf: destination) == Self.plain(data, config))
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["out.jpg"])

    let turned = try OutputFile(replacing: destination)
    #expect(
      try JPEGEditPipeline.render(
        data, source: "g63", config: EditConfig(editRotation: .rotate90), to: turned) == nil)
    turned.discard()
    #expect(try Data(contentsOf: destination) == Self.plain(data, config))
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["out.jpg"])
  }

  @Test func declinesWhatCannotStream() throws {
    let upright = try SharedPhotos.data("g63")
    // Geometry and noise reduction need the whole image.
    #expect(
      try JPEGEditPipeline.render(upright, source: "a", config: EditConfig(editRotation: .rotate90))
        == nil)
    #expect(
      try JPEGEditPipeline.render(
        upright, source: "a", config: EditConfig(properties: [.noiseReduction: 0.5])) == nil)
    // An EXIF-rotated photo (orientation 6) and an Adobe RGB photo need the plain path.
    let simple = EditConfig(properties: [.exposure: 0.2])
    #expect(
      try JPEGEditPipeline.render(try SharedPhotos.data("g76"), source: "b", config: simple) == nil)
    #expect(
      try JPEGEditPipeline.render(try SharedPhotos.data("s04"), source: "c", config: simple) == nil)
    // Not a JPEG.
    #expect(
      try JPEGEditPipeline.render(try SharedPhotos.data("s02"), source: "d", config: simple) == nil)
  }

  @Test func damagedInputThrowsOrDecodesNeverHangs() throws {
    let data = try SharedPhotos.data("g14")
    var strict = DecodeOptions()
    strict.strictness = .failOnTruncation
    // Streaming through a ring, and (with local tone) decoding the whole photo for its guide.
    let configs = [
      EditConfig(properties: [.exposure: 0.2, .sharpness: 0.5]),
      EditConfig(properties: [.shadows: 0.4, .sharpness: 0.5]),
    ]
    for config in configs {
      try checkDamaged(data, config: config, strict: strict)
    }
  }

  private func checkDamaged(_ data: Data, config: EditConfig, strict: DecodeOptions) throws {
    for cut in stride(from: 200, to: data.count, by: max(1, data.count / 40)) {
      let prefix = data.prefix(cut)
      // Lenient: what is there, with a warning. Strict: a typed error.
      if let out = try? JPEGEditPipeline.render(Data(prefix), source: "cut", config: config) {
        #expect(!out.warnings.isEmpty, "cut at \(cut) streamed without a warning")
      }
      #expect(throws: ImageDecodingError.self) {
        _ = try JPEGEditPipeline.render(
          Data(prefix), source: "cut", config: config, decodeOptions: strict)
      }
    }
  }
}
