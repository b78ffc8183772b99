// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchAI
import RetouchCore
import RetouchIO
import RetouchRender

/// `retouch match IN --reference REF [--reference REF2 …] -o OUT`, or a folder IN → OUTDIR.
enum MatchCommand: Subcommand {
  static let spec = CommandSpec(
    name: "match",
    abstract: "Give a photo (or every photo in a folder) the tones and colour grade of references.",
    usage: "IN --reference REF [--reference REF2 ...] -o OUT [--quality Q]",
    options: [
      .init(
        name: "reference", value: "REF",
        help: "A reference photo (repeat for several; they are averaged).", repeatable: true),
      .init(
        name: "output", value: "OUT",
        help: "The output file, or the output folder when IN is a folder (required).", short: "o"),
      .init(name: "quality", value: "Q", help: "JPEG/HEIC quality 1…100 (default 90)."),
    ],
    positionals: 1...1,
    discussion: """
      Examples:
        retouch match IMG.jpg --reference look.jpg -o matched.jpg
        retouch match shoot/ --reference a.jpg --reference b.jpg -o matched/
      A folder is matched photo by photo (JPEG, PNG, HEIC, AVIF, WebP and TIFF files, by name);
      each output keeps its file name and format. A photo that already matches is written
      unchanged, with a note. The originals are never modified.
      """)

  static func run(_ arguments: ParsedArguments) throws(CLIError) -> Int32 {
    let input = URL(fileURLWithPath: arguments.positionals[0])
    guard let outPath = arguments.value("output") else {
      throw CLIError.usage("'retouch match' needs an output: -o OUT.")
    }
    let referencePaths = arguments.all("reference")
    guard !referencePaths.isEmpty else {
      throw CLIError.usage("'retouch match' needs at least one --reference REF.")
    }
    var encodeOptions = EncodeOptions()
    encodeOptions.quality = try arguments.int("quality", in: 1...100) ?? 90
    let output = URL(fileURLWithPath: outPath)

    var referenceStatistics: [ToneStatistics] = []
    for path in referencePaths {
      let (image, _) = try ApplyCommand.load(URL(fileURLWithPath: path))
      referenceStatistics.append(StyleMatcher.statistics(for: image))
    }
    let reference = StyleMatcher.average(of: referenceStatistics)

    guard let folder = try PhotoFolder.at(input) else {
      let format = try ConvertCommand.outputFormat(nil, for: output)
      try ConvertCommand.refuseOverwriting(input, with: output)
      try match(input, to: output, format: format, reference: reference, options: encodeOptions)
      return 0
    }
    try folder.makeOutputFolder(output)
    return folder.forEachPhoto(command: "match") { photo throws(CLIError) in
      let target = output.appendingPathComponent(photo.lastPathComponent)
      let format = try ConvertCommand.outputFormat(nil, for: target)
      try match(photo, to: target, format: format, reference: reference, options: encodeOptions)
    }.exitCode
  }

  /// Matches one photo to `reference` and writes it.
  static func match(
    _ input: URL, to output: URL, format: ImageFormat, reference: ToneStatistics,
    options: EncodeOptions
  ) throws(CLIError) {
    let (image, metadata) = try ApplyCommand.load(input)
    let transform = StyleMatcher.transform(
      for: StyleMatcher.statistics(for: image), matching: reference)
    if !transform.isMeaningful {
      Terminal.error(
        "note: \(input.lastPathComponent) already matches the reference; written unchanged.")
    }
    let matched = transform.isMeaningful ? (consume image).matched(to: transform) : image
    do {
      try ImageEncoder(options: options).write(matched, as: format, metadata: metadata, to: output)
    } catch {
      throw CLIError(error)
    }
  }
}
