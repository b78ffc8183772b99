// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchIO

/// `retouch revert ORIGINAL -o OUT`: gives back the original, byte for byte. Edits are never
/// written into the original, so reverting is a copy of it; the adjustment data and rendered
/// photos of earlier edits can simply be deleted.
enum RevertCommand: Subcommand {
  static let spec = CommandSpec(
    name: "revert",
    abstract: "Give back the unedited original (a byte-for-byte copy).",
    usage: "ORIGINAL -o OUT",
    options: [
      .init(
        name: "output", value: "OUT", help: "Where to write the original (required).", short: "o")
    ],
    positionals: 1...1,
    discussion: """
      Example:
        retouch revert IMG.jpg -o IMG-original.jpg
      """)

  static func run(_ arguments: ParsedArguments) throws(CLIError) -> Int32 {
    let original = URL(fileURLWithPath: arguments.positionals[0])
    guard let out = arguments.value("output") else {
      throw CLIError.usage("'retouch revert' needs an output: -o OUT.")
    }
    let output = URL(fileURLWithPath: out)
    try ConvertCommand.refuseOverwriting(original, with: output)
    let data: Data
    do {
      data = try ImageDecoder.readFile(original)
      // Only photos: refuse anything the decoder would not open.
      _ = try ImageDecoder().readMetadata(data, source: original.lastPathComponent)
    } catch {
      throw CLIError(error)
    }
    do {
      try data.write(to: output, options: .atomic)
    } catch {
      throw CLIError(ImageEncodingError.unwritable(output, error))
    }
    return 0
  }
}
