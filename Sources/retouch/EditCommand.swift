// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchEditor
import RetouchIO
import RetouchRender

/// `retouch edit IN --with EDITOR [changes] -o OUT --adjustments OUT.json`: edits a photo with
/// one of the built-in content editors and writes the rendered JPEG plus the adjustment data
/// that reopens the edit (`retouch reopen`).
enum EditCommand: Subcommand {
  static let spec = CommandSpec(
    name: "edit",
    abstract: "Edit with a built-in editor; write the photo and the adjustment data to reopen it.",
    usage: "IN --with retouch|vignette|sepia|filter [changes] -o OUT.jpg --adjustments OUT.json",
    options: [
      .init(name: "with", value: "EDITOR", help: "retouch (default), vignette, sepia or filter."),
      outputOption,
      .init(
        name: "adjustments", value: "FILE",
        help: "Where to write the adjustment data, JSON (required)."),
    ] + changeOptions + [
      .init(name: "quality", value: "Q", help: "JPEG quality 1…100 (default 90).")
    ],
    positionals: 1...1,
    discussion: """
      Examples:
        retouch edit IMG.jpg --with retouch --set exposure=0.3 --look noir:0.5 -o out.jpg --adjustments edit.json
        retouch edit IMG.jpg --with sepia --intensity 0.7 -o out.jpg --adjustments sepia.json
        retouch edit IMG.jpg --with filter --filter chrome -o out.jpg --adjustments filter.json
      The original is never modified; 'retouch reopen IMG.jpg --adjustments edit.json' resumes the edit.
      """)

  /// `-o OUT`, the edited photo (this command's and `retouch reopen`'s).
  static let outputOption = CommandSpec.Option(
    name: "output", value: "OUT", help: "Where to write the edited photo, JPEG (required).",
    short: "o")

  /// The options that change an edit: the Retouch editor's sliders and the small editors' own.
  static let changeOptions: [CommandSpec.Option] =
    EditOptions.specs + [
      .init(name: "intensity", value: "X", help: "vignette and sepia editors: intensity 0…1."),
      .init(name: "filter", value: "NAME", help: "filter editor: vignette, noir or chrome."),
    ]

  static func run(_ arguments: ParsedArguments) throws(CLIError) -> Int32 {
    let inputURL = URL(fileURLWithPath: arguments.positionals[0])
    let (output, adjustmentsURL) = try destinations(
      arguments, command: "edit", requiringAdjustments: true)
    try ConvertCommand.refuseOverwriting(inputURL, with: output)
    let editor = try makeEditor(named: arguments.value("with") ?? "retouch", arguments: arguments)
    let quality = try arguments.int("quality", in: 1...100) ?? 90
    try readable(inputURL)
    let result = try blocking { () async throws(EditingError) -> AdjustmentData? in
      let input = try await ContentEditingInput.load(original: .file(inputURL))
      return try await finish(
        editor.make(quality), input: input, applying: editor.change, to: output)
    }
    try write(result, to: adjustmentsURL)
    return 0
  }

  // MARK: - Shared with reopen

  /// A built-in editor: how to make it, and the change the options ask of it.
  struct Editor {
    let name: String
    let make: @Sendable (Int) -> any ContentEditingController
    let change: @Sendable (any ContentEditingController) -> Void
  }

  static let editorNames = ["retouch", "vignette", "sepia", "filter"]

  /// The editor `name` with the change the options describe; options meant for another editor
  /// are a usage error.
  static func makeEditor(named name: String, arguments: ParsedArguments) throws(CLIError) -> Editor
  {
    let sliderOptions = EditOptions.specs.map(\.name).filter {
      arguments.values[$0] != nil || arguments.flag($0)
    }
    func refuse(_ options: [String]) throws(CLIError) {
      let given = options.filter { arguments.values[$0] != nil || arguments.flag($0) }
      if let first = given.first {
        throw CLIError.usage("'--\(first)' does not apply to the \(name) editor.")
      }
    }
    switch name {
    case "retouch":
      try refuse(["intensity", "filter"])
      let wantsChange = !sliderOptions.isEmpty
      let options = arguments
      // Checked now, applied on top of the resumed edit once the editor has started.
      _ = try EditOptions.config(from: arguments)
      return Editor(
        name: name, make: { RetouchEditingController(quality: $0) },
        change: { editor in
          guard wantsChange, let c = (editor as? RetouchEditingController)?.editController else {
            return
          }
          if let next = try? EditOptions.config(from: options, base: c.currentConfig),
            next != c.currentConfig
          {
            c.setConfig(next, action: nil)
          }
        })
    case "vignette", "sepia":
      try refuse(EditOptions.specs.map(\.name) + ["filter"])
      let intensity = try arguments.value("intensity").map { raw throws(CLIError) -> Double in
        guard let v = Double(raw), v.isFinite, (0...1).contains(v) else {
          throw CLIError.usage("'--intensity' must be a number in 0…1, got '\(raw)'.")
        }
        return v
      }
      if name == "vignette" {
        return Editor(
          name: name, make: { VignetteEditingController(quality: $0) },
          change: { e in
            intensity.map {
              (e as? VignetteEditingController)?.setEdit(VignetteEdit(intensity: $0))
            }
          })
      }
      return Editor(
        name: name, make: { SepiaEditingController(quality: $0) },
        change: { e in
          intensity.map { (e as? SepiaEditingController)?.setEdit(SepiaEdit(intensity: $0)) }
        })
    case "filter":
      try refuse(EditOptions.specs.map(\.name) + ["intensity"])
      let filter = try arguments.value("filter").map { raw throws(CLIError) -> FilterEdit.Filter in
        guard let f = FilterEdit.Filter(rawValue: raw.lowercased()) else {
          throw CLIError.usage("'--filter' must be vignette, noir or chrome, got '\(raw)'.")
        }
        return f
      }
      return Editor(
        name: name, make: { FilterEditingController(quality: $0) },
        change: { e in
          filter.map { (e as? FilterEditingController)?.setEdit(FilterEdit(filter: $0)) }
        })
    default:
      throw CLIError.usage(
        "'--with' must be one of \(editorNames.joined(separator: ", ")), got '\(name)'.")
    }
  }

  /// `-o OUT` (a JPEG name) and `--adjustments FILE`.
  static func destinations(
    _ arguments: ParsedArguments, command: String, adjustmentsOption: String = "adjustments",
    requiringAdjustments: Bool
  ) throws(CLIError) -> (URL, URL?) {
    guard let out = arguments.value("output") else {
      throw CLIError.usage("'retouch \(command)' needs an output: -o OUT.jpg.")
    }
    let output = URL(fileURLWithPath: out)
    if let format = ImageFormat(cliName: output.pathExtension), format != .jpeg {
      throw CLIError.usage(
        "an edited photo is written as JPEG; name the output .jpg, not .\(output.pathExtension).")
    }
    let adjustments = arguments.value(adjustmentsOption).map { URL(fileURLWithPath: $0) }
    if requiringAdjustments, adjustments == nil {
      throw CLIError.usage("'--adjustments FILE' is required: it is what reopens the edit.")
    }
    return (output, adjustments)
  }

  /// Exit 66 when the file cannot be read at all (before any decoding).
  static func readable(_ url: URL) throws(CLIError) {
    do {
      _ = try ImageDecoder.readFile(url)
    } catch {
      throw CLIError(error)
    }
  }

  /// Starts `editor`, applies `change`, finishes, moves the rendered photo to `output`, and
  /// returns the adjustment data.
  static func finish(
    _ editor: any ContentEditingController, input: ContentEditingInput,
    applying change: (any ContentEditingController) -> Void, to output: URL
  ) async throws(EditingError) -> AdjustmentData? {
    try await editor.startContentEditing(with: input, placeholder: nil)
    change(editor)
    let result = try await editor.finishContentEditing()
    do {
      if FileManager.default.fileExists(atPath: output.path) {
        try FileManager.default.removeItem(at: output)
      }
      try FileManager.default.moveItem(at: result.renderedContentURL, to: output)
    } catch {
      try? FileManager.default.removeItem(at: result.renderedContentURL)
      throw EditingError(
        .exportFailed, source: output.lastPathComponent,
        detail: "cannot write the photo: \(error.localizedDescription)")
    }
    return result.adjustmentData
  }

  /// Writes adjustment data as JSON (the editor's bytes base64-encoded under "data").
  static func write(_ data: AdjustmentData?, to url: URL?) throws(CLIError) {
    guard let url, let data else { return }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    do {
      try encoder.encode(data).write(to: url, options: .atomic)
    } catch {
      throw CLIError(ImageEncodingError.unwritable(url, error))
    }
  }

  /// Runs async editor work from the synchronous command and waits for it.
  static func blocking<T: Sendable>(_ work: @escaping @Sendable () async throws(EditingError) -> T)
    throws(CLIError) -> T
  {
    do {
      return try waitForAsync(work)
    } catch {
      throw CLIError(error)
    }
  }
}

extension CLIError {
  /// Maps an editing failure: 65 for photos or adjustment data that cannot be used, 73 when the
  /// output cannot be written, 70 otherwise.
  init(_ error: EditingError) {
    let code: Code =
      switch error.kind {
      case .unreadablePhoto, .foreignAdjustmentData, .corruptAdjustmentData, .newerAdjustmentData,
        .missingRenderedPhoto:
        .dataError
      case .exportFailed: .cantCreate
      default: .software
      }
    self.init(code: code, message: error.description)
  }
}
