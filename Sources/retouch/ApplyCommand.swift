// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchEditor
import RetouchIO
import RetouchRender

/// `retouch apply IN -o OUT [edit options] [--quality Q] [--format FMT]`.
enum ApplyCommand: Subcommand {
  static let spec = CommandSpec(
    name: "apply",
    abstract: "Apply an edit (sliders, a look, crop, straighten, turns) and write the result.",
    usage:
      "IN -o OUT [--set NAME=VALUE ...] [--look NAME[:S]] [--crop X,Y,W,H] [--straighten DEG] [--rotate 90|180|270] [--flip] [--config FILE] [--quality Q] [--format FMT]",
    options: [
      .init(
        name: "output", value: "OUT", help: "Where to write the edited photo (required).",
        short: "o")
    ]
      + EditOptions.specs + [
        .init(name: "quality", value: "Q", help: "JPEG/HEIC quality 1…100 (default 90)."),
        .init(
          name: "format", value: "FMT",
          help: "jpeg, png, heic, avif, webp or tiff (default: from OUT's extension, else jpeg)."),
        .init(name: "save-config", value: "FILE", help: "Also write the edit as JSON."),
        .init(
          name: "depth", value: "FILE",
          help: "A depth map image for background blur (brighter = nearer)."),
      ],
    positionals: 1...1,
    discussion: """
      Examples:
        retouch apply IMG.jpg -o out.jpg --set exposure=0.3 --set contrast=0.2 --look noir:0.8
        retouch apply IMG.jpg -o out.jpg --crop 0.1,0.1,0.8,0.8 --straighten 2.5 --rotate 90
        retouch apply IMG.jpg -o out.jpg --config edit.json
      Settings and their ranges: 'retouch looks'. The original is never modified.
      """)

  static func run(_ arguments: ParsedArguments) throws(CLIError) -> Int32 {
    let input = URL(fileURLWithPath: arguments.positionals[0])
    guard let outPath = arguments.value("output") else {
      throw CLIError.usage("'retouch apply' needs an output: -o OUT.")
    }
    let output = URL(fileURLWithPath: outPath)
    let format = try ConvertCommand.outputFormat(arguments.value("format"), for: output)
    var encodeOptions = EncodeOptions()
    encodeOptions.quality = try arguments.int("quality", in: 1...100) ?? 90
    let config = try EditOptions.config(from: arguments)
    try ConvertCommand.refuseOverwriting(input, with: output)
    var renderOptions = RenderOptions()
    if let path = arguments.value("depth") {
      do {
        renderOptions.depthMap = DepthMap(
          image: try ImageDecoder().decode(URL(fileURLWithPath: path)).image)
      } catch {
        throw CLIError(error)
      }
    }

    if format == .jpeg, renderOptions.depthMap == nil,
      try streamJPEG(input, to: output, config: config, options: encodeOptions)
    {
      // Decoded, edited and encoded in one overlapped pass.
    } else {
      let (image, metadata) = try load(input)
      let edited = (consume image).rendered(with: config, options: renderOptions)
      do {
        try ImageEncoder(options: encodeOptions).write(
          edited, as: format, metadata: metadata, to: output)
      } catch {
        throw CLIError(error)
      }
    }
    if let path = arguments.value("save-config") {
      do {
        try config.jsonData(pretty: true).write(to: URL(fileURLWithPath: path), options: .atomic)
      } catch {
        throw CLIError(ImageEncodingError.unwritable(URL(fileURLWithPath: path), error))
      }
    }
    return 0
  }

  /// The overlapped JPEG → edit → JPEG path; false when the job cannot stream (see
  /// `JPEGEditPipeline`), and the caller takes the plain path.
  static func streamJPEG(_ input: URL, to output: URL, config: EditConfig, options: EncodeOptions)
    throws(CLIError) -> Bool
  {
    let data: Data
    do {
      data = try ImageDecoder.readFile(input)
    } catch {
      throw CLIError(error)
    }
    // The encoder writes the file as it encodes (in place of the output once complete).
    let warnings: [String]?
    do {
      let file = try OutputFile(replacing: output)
      warnings = try JPEGEditPipeline.render(
        data, source: input.lastPathComponent, config: config, to: file, encodeOptions: options)
      if warnings == nil { file.discard() }
    } catch let error as ImageDecodingError {
      throw CLIError(error)
    } catch let error as ImageEncodingError {
      throw CLIError(error)
    } catch {
      throw CLIError(code: .software, message: "\(error)")
    }
    guard let warnings else { return false }
    warn(warnings, about: input)
    return true
  }

  /// Prints what the decoder of `input` warned about (a truncated file it filled in), each
  /// line naming the file, as a folder run edits many.
  static func warn(_ warnings: [String], about input: URL) {
    for warning in warnings { Terminal.error("warning: \(input.lastPathComponent): \(warning)") }
  }

  /// Decodes and splits the result, so the image's storage has one owner and renders in place.
  static func load(_ input: URL) throws(CLIError) -> (Image, PhotoMetadata) {
    do {
      let decoded = try ImageDecoder().decode(input)
      warn(decoded.warnings, about: input)
      return (decoded.image, decoded.metadata)
    } catch {
      throw CLIError(error)
    }
  }
}
