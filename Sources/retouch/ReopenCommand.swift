// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchEditor
import RetouchIO

/// `retouch reopen ORIGINAL --adjustments A.json [changes] -o OUT`: resumes an edit made with
/// `retouch edit` from the original and its adjustment data, optionally changes it, and renders
/// it again. Unchanged, it renders the same photo `edit` wrote.
enum ReopenCommand: Subcommand {
  static let spec = CommandSpec(
    name: "reopen",
    abstract: "Resume an edit from the original and its adjustment data, and render it again.",
    usage:
      "ORIGINAL --adjustments A.json [--with EDITOR --rendered R.jpg] [changes] -o OUT.jpg [--save-adjustments FILE]",
    options: [
      .init(
        name: "adjustments", value: "FILE",
        help: "The adjustment data 'retouch edit' wrote (required)."),
      EditCommand.outputOption,
      .init(
        name: "with", value: "EDITOR",
        help: "Edit with this editor (default: the one that wrote the data)."),
      .init(
        name: "rendered", value: "FILE",
        help:
          "The photo the earlier edit rendered: edited with the edit baked in when --with cannot resume it."
      ),
      .init(name: "save-adjustments", value: "FILE", help: "Write the new adjustment data here."),
    ] + EditCommand.changeOptions + [
      .init(name: "quality", value: "Q", help: "JPEG quality 1…100 (default 90).")
    ],
    positionals: 1...1,
    discussion: """
      Examples:
        retouch reopen IMG.jpg --adjustments edit.json -o again.jpg
        retouch reopen IMG.jpg --adjustments edit.json --set contrast=0.4 -o more.jpg --save-adjustments edit2.json
        retouch reopen IMG.jpg --adjustments edit.json --with sepia --rendered out.jpg -o sepia.jpg
      """)

  static func run(_ arguments: ParsedArguments) throws(CLIError) -> Int32 {
    let original = URL(fileURLWithPath: arguments.positionals[0])
    guard let adjustmentsPath = arguments.value("adjustments") else {
      throw CLIError.usage(
        "'retouch reopen' needs '--adjustments FILE' (what 'retouch edit' wrote).")
    }
    let (output, saveURL) = try EditCommand.destinations(
      arguments, command: "reopen", adjustmentsOption: "save-adjustments",
      requiringAdjustments: false)
    try ConvertCommand.refuseOverwriting(original, with: output)
    let previous = try readAdjustments(URL(fileURLWithPath: adjustmentsPath))
    let name: String
    if let chosen = arguments.value("with") {
      name = chosen
    } else {
      name = try editorName(for: previous)
    }
    let editor = try EditCommand.makeEditor(named: name, arguments: arguments)
    let quality = try arguments.int("quality", in: 1...100) ?? 90
    try EditCommand.readable(original)
    let rendered = arguments.value("rendered").map { URL(fileURLWithPath: $0) }
    if let rendered { try EditCommand.readable(rendered) }
    let result = try EditCommand.blocking { () async throws(EditingError) -> AdjustmentData? in
      let input = try await ContentEditingInput.load(
        original: .file(original), adjustmentData: previous,
        renderedPhoto: rendered.map { .file($0) })
      return try await EditCommand.finish(
        editor.make(quality), input: input, applying: editor.change, to: output)
    }
    try EditCommand.write(result, to: saveURL)
    return 0
  }

  /// The built-in editor that resumes `data`.
  static func editorName(for data: AdjustmentData) throws(CLIError) -> String {
    let owners: [(String, AdjustmentFormat)] = [
      ("retouch", RetouchEditingController.format), ("vignette", VignetteEdit.format),
      ("sepia", SepiaEdit.format), ("filter", FilterEdit.format),
    ]
    if let (name, _) = owners.first(where: { $0.1.canHandle(data) }) { return name }
    if let (_, format) = owners.first(where: { $0.1.identifier == data.formatIdentifier }) {
      throw CLIError(
        code: .dataError,
        message:
          "adjustment data: newer adjustment data: format version '\(data.formatVersion)' of "
          + "'\(data.formatIdentifier)' is newer than \(format.version), the newest this Retouch reads."
      )
    }
    throw CLIError(
      code: .dataError,
      message:
        "adjustment data: foreign adjustment data: '\(data.formatIdentifier)' is not a built-in editor's; "
        + "choose one with --with and give the rendered photo with --rendered.")
  }

  /// Reads adjustment data as `retouch edit` writes it.
  static func readAdjustments(_ url: URL) throws(CLIError) -> AdjustmentData {
    guard let bytes = try? Data(contentsOf: url) else {
      throw CLIError(
        code: .noInput,
        message: "\(url.lastPathComponent): unreadable file: cannot read the adjustment data.")
    }
    do {
      return try JSONDecoder().decode(AdjustmentData.self, from: bytes)
    } catch {
      throw CLIError(
        code: .dataError,
        message:
          "\(url.lastPathComponent): corrupt adjustment data: expected JSON with formatIdentifier, "
          + "formatVersion and data (base64), as 'retouch edit' writes.")
    }
  }
}
