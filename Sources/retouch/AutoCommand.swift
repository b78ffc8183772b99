// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchAI
import RetouchCore
import RetouchIO
import RetouchRender

/// `retouch auto IN [-o OUT] [--always-write] [--quality Q] [--format FMT]`: the edit the photo
/// needs, or none.
enum AutoCommand: Subcommand {
  static let spec = CommandSpec(
    name: "auto",
    abstract: "Apply the one edit a photo needs (or leave a good photo alone).",
    usage:
      "IN [-o OUT] [--always-write] [--quality Q] [--format FMT] [--disable LOOK...] [--save-config FILE]",
    options: [
      .init(name: "output", value: "OUT", help: "Where to write the edited photo.", short: "o"),
      .init(
        name: "always-write", value: nil,
        help: "Write OUT even when the photo is already good (then unedited)."),
      .init(name: "quality", value: "Q", help: "JPEG/HEIC quality 1…100 (default 90)."),
      .init(
        name: "format", value: "FMT",
        help: "jpeg, png or heic (default: from OUT's extension, else jpeg)."),
      .init(
        name: "disable", value: "LOOK",
        help: "A recipe never to use (repeatable, or comma-separated).",
        repeatable: true),
      .init(name: "save-config", value: "FILE", help: "Also write the chosen edit as JSON."),
    ],
    positionals: 1...1,
    discussion: """
      Measures the photo (grain included, at full resolution, as 'retouch suggest' does), picks
      the best-ranked suggestion when it fixes something and renders it at full resolution.
      When nothing would improve the photo it says "already good, left as it is" and writes
      nothing (with --always-write: writes the photo unedited). Without -o it only prints the
      chosen edit as JSON. Never crops or rotates. The original is never modified.
      Examples:
        retouch auto IMG.jpg -o IMG-auto.jpg
        retouch auto IMG.jpg            # show the edit it would make
      """)

  static func run(_ arguments: ParsedArguments) throws(CLIError) -> Int32 {
    let input = URL(fileURLWithPath: arguments.positionals[0])
    let output = arguments.value("output").map { URL(fileURLWithPath: $0) }
    var encodeOptions = EncodeOptions()
    encodeOptions.quality = try arguments.int("quality", in: 1...100) ?? 90
    let disabled = try SuggestCommand.disabledLooks(arguments)
    var format = ImageFormat.jpeg
    if let output {
      format = try ConvertCommand.outputFormat(arguments.value("format"), for: output)
      try ConvertCommand.refuseOverwriting(input, with: output)
    } else if arguments.flag("always-write") {
      throw CLIError.usage("'--always-write' needs an output: -o OUT.")
    }

    let (image, metadata) = try ApplyCommand.load(input)
    let config = SuggestionEngine().autoEdit(
      for: image, metadata: metadata, disabledLooks: disabled)
    if let path = arguments.value("save-config") {
      do {
        try (config ?? .neutral).jsonData(pretty: true).write(
          to: URL(fileURLWithPath: path), options: .atomic)
      } catch {
        throw CLIError(
          code: .cantCreate, message: "\(path): unwritable output: \(error.localizedDescription)")
      }
    }
    guard let output else {
      if let config {
        Terminal.out(String(decoding: config.jsonData(pretty: true), as: UTF8.self))
      } else {
        Terminal.out("\(input.lastPathComponent): already good, left as it is")
      }
      return 0
    }
    if config == nil {
      Terminal.out("\(input.lastPathComponent): already good, left as it is")
      guard arguments.flag("always-write") else { return 0 }
    }
    let edited = config.map { (consume image).rendered(with: $0) } ?? image
    do {
      try ImageEncoder(options: encodeOptions).write(
        edited, as: format, metadata: metadata, to: output)
    } catch {
      throw CLIError(error)
    }
    return 0
  }
}
