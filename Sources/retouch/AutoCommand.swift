// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchAI
import RetouchCore
import RetouchIO
import RetouchRender

/// `retouch auto IN [-o OUT] [--always-write] [--quality Q] [--format FMT]`: the edit the photo
/// needs, or none; IN may be a folder, then OUT is one too.
enum AutoCommand: Subcommand {
  static let spec = CommandSpec(
    name: "auto",
    abstract: "Apply the one edit a photo (or each photo of a folder) needs, or leave it alone.",
    usage:
      "IN [-o OUT] [--always-write] [--quality Q] [--format FMT] [--disable LOOK...] [--save-config FILE]",
    options: [
      .init(
        name: "output", value: "OUT",
        help: "Where to write the edited photo (a folder when IN is a folder).", short: "o"),
      .init(
        name: "always-write", value: nil,
        help: "Write OUT even when the photo is already good (then unedited)."),
      .init(name: "quality", value: "Q", help: "JPEG/HEIC quality 1…100 (default 90)."),
      .init(
        name: "format", value: "FMT",
        help: "jpeg, png, heic, avif, webp or tiff (default: from OUT's extension, else jpeg)."),
      .init(
        name: "disable", value: "LOOK",
        help: "A recipe never to use (repeatable, or comma-separated).",
        repeatable: true),
      .init(
        name: "save-config", value: "FILE",
        help: "Also write the chosen edit as JSON (a folder when IN is a folder)."),
    ],
    positionals: 1...1,
    discussion: """
      Measures the photo (grain included, at full resolution, as 'retouch suggest' does), picks
      the best-ranked suggestion when it fixes something and renders it at full resolution.
      When nothing would improve the photo it says "already good, left as it is" and writes
      nothing (with --always-write: writes the photo unedited); a screenshot, page or drawing
      is never corrected and is left as it is the same way. Without -o it only prints the
      chosen edit as JSON. Never crops or rotates. The original is never modified.
      A folder is edited photo by photo (JPEG, PNG, HEIC, AVIF, WebP and TIFF files, by name):
      each edited photo is written into OUT under its own name (with FMT's extension when
      --format is given), each edit is printed and saved into the --save-config folder as
      NAME.json, and a count closes the run. A photo that cannot be read is reported and the
      rest still edited.
      Examples:
        retouch auto IMG.jpg -o IMG-auto.jpg
        retouch auto IMG.jpg            # show the edit it would make
        retouch auto shoot/ -o edited/
      """)

  /// What a run writes besides the photo: where, in which format and quality, which recipes
  /// it may not use.
  struct Settings {
    var encodeOptions = EncodeOptions()
    /// `--format`, when given (else each output's extension says).
    var format: ImageFormat?
    var disabled: Set<String> = []
    var alwaysWrite = false

    /// The format to write `url` in: `--format`, else the one its extension names.
    func format(for url: URL) throws(CLIError) -> ImageFormat {
      if let format { return format }
      return try ConvertCommand.outputFormat(nil, for: url)
    }
  }

  static func run(_ arguments: ParsedArguments) throws(CLIError) -> Int32 {
    let input = URL(fileURLWithPath: arguments.positionals[0])
    let output = arguments.value("output").map { URL(fileURLWithPath: $0) }
    let configPath = arguments.value("save-config").map { URL(fileURLWithPath: $0) }
    var settings = Settings()
    settings.encodeOptions.quality = try arguments.int("quality", in: 1...100) ?? 90
    settings.disabled = try SuggestCommand.disabledLooks(arguments)
    if let name = arguments.value("format") {
      settings.format = try ConvertCommand.outputFormat(name, for: input)
    }
    settings.alwaysWrite = arguments.flag("always-write")
    if output == nil, settings.alwaysWrite {
      throw CLIError.usage("'--always-write' needs an output: -o OUT.")
    }
    if let folder = try PhotoFolder.at(input) {
      return try edit(folder, to: output, configs: configPath, settings: settings)
    }
    var target: (URL, ImageFormat)?
    if let output {
      try ConvertCommand.refuseOverwriting(input, with: output)
      target = (output, try settings.format(for: output))
    }
    let config = try edit(input, to: target, config: configPath, settings: settings)
    if output == nil, let config {
      Terminal.out(String(decoding: config.jsonData(pretty: true), as: UTF8.self))
    }
    return 0
  }

  /// Edits every photo of `folder` into the folder `output` (or only prints each edit), and
  /// prints each edit and how many photos were edited, left alone and failed.
  static func edit(
    _ folder: PhotoFolder, to output: URL?, configs: URL?, settings: Settings
  ) throws(CLIError) -> Int32 {
    if let output { try folder.makeOutputFolder(output) }
    if let configs { try folder.makeOutputFolder(configs) }
    var edited = 0
    var good = 0
    var written: [String: String] = [:]
    let run = folder.forEachPhoto(command: "auto") { photo throws(CLIError) in
      let name = photo.lastPathComponent
      var target: (URL, ImageFormat)?
      if let output {
        var url = output.appendingPathComponent(name)
        if let named = settings.format {
          url = url.deletingPathExtension().appendingPathExtension(named.fileExtension)
        }
        // Under --format, two photos of one name in different formats would share an output.
        let taken = url.lastPathComponent
        if let first = written[taken] {
          throw CLIError.usage("\(name): its output \(taken) is \(first)'s; not written.")
        }
        written[taken] = name
        target = (url, try settings.format(for: url))
      }
      let config = try edit(
        photo, to: target, config: configs?.appendingPathComponent(name + ".json"),
        settings: settings)
      if let config {
        edited += 1
        Terminal.out("\(name): \(String(decoding: config.jsonData(), as: UTF8.self))")
      } else {
        good += 1
      }
    }
    Terminal.out(
      "\(folder.photos.count) photos: \(edited) edited, \(good) already good"
        + (run.failed > 0 ? ", \(run.failed) failed" : ""))
    return run.exitCode
  }

  /// Measures `input`, saves its edit to `config` when asked, and writes the edited photo to
  /// `output` (unedited with ``Settings/alwaysWrite`` when the photo is already good).
  ///
  /// - Returns: the edit, nil when the photo is already good (then said on stdout).
  @discardableResult
  static func edit(
    _ input: URL, to output: (url: URL, format: ImageFormat)?, config path: URL?,
    settings: Settings
  ) throws(CLIError) -> EditConfig? {
    let (image, metadata) = try ApplyCommand.load(input)
    let (config, analysis) = SuggestionEngine().autoEditResult(
      for: image, metadata: metadata, disabledLooks: settings.disabled)
    if let path {
      do {
        try (config ?? .neutral).jsonData(pretty: true).write(to: path, options: .atomic)
      } catch {
        throw CLIError(ImageEncodingError.unwritable(path, error))
      }
    }
    if config == nil {
      let why =
        analysis.kind == .graphic
        ? "a graphic (screenshot, page or drawing), not a photo; left as it is"
        : "already good, left as it is"
      Terminal.out("\(input.lastPathComponent): \(why)")
    }
    guard let output, config != nil || settings.alwaysWrite else { return config }
    let edited = config.map { (consume image).rendered(with: $0) } ?? image
    do {
      try ImageEncoder(options: settings.encodeOptions).write(
        edited, as: output.format, metadata: metadata, to: output.url)
    } catch {
      throw CLIError(error)
    }
    return config
  }
}
