// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchAI
import RetouchCore
import RetouchIO
import RetouchRender

/// `retouch suggest IN [--max N] [--themes] [--original] [--disable LOOK…] [--json]
/// [--sheet OUT.jpg]`: the ranked suggestions for a photo.
enum SuggestCommand: Subcommand {
  static let spec = CommandSpec(
    name: "suggest",
    abstract: "List the edits Retouch suggests for a photo, best first.",
    usage: "IN [--max N] [--themes] [--original] [--disable LOOK...] [--json] [--sheet OUT.jpg]",
    options: [
      .init(
        name: "max", value: "N",
        help: "At most N suggestions, themes not counted (1…50, default 10)."),
      .init(
        name: "themes", value: nil, help: "Also offer themes (Noir, Film, …) after the others."),
      .init(
        name: "original", value: nil, help: "Lead with Original when nothing improves the photo."),
      .init(
        name: "disable", value: "LOOK",
        help: "A recipe never to offer (repeatable, or comma-separated).",
        repeatable: true),
      .init(
        name: "json", value: nil, help: "Print JSON: id, titles, kind, score and the edit of each."),
      .init(
        name: "sheet", value: "OUT", help: "Write a contact sheet of the thumbnails with titles."),
    ],
    positionals: 1...1,
    discussion: """
      Recipes: \(Recipe.all.map(\.id).joined(separator: ", ")).
      The order and values follow the looks you kept when saving in the web editor (the learning
      file, see 'retouch learning show'; RETOUCH_LEARNING_FILE picks another file).
      Examples:
        retouch suggest IMG.jpg --max 5
        retouch suggest IMG.jpg --themes --sheet sheet.jpg
        retouch suggest IMG.jpg --json --disable vivid,punch
      """)

  static func run(_ arguments: ParsedArguments) throws(CLIError) -> Int32 {
    let input = URL(fileURLWithPath: arguments.positionals[0])
    let sheet = arguments.value("sheet").map { URL(fileURLWithPath: $0) }
    var options = SuggestionOptions()
    options.maxSuggestions = try arguments.int("max", in: 1...50) ?? 10
    options.includeThemes = arguments.flag("themes")
    options.offerOriginal = arguments.flag("original")
    options.disabledLooks = try disabledLooks(arguments)
    options.thumbnailMaxDimension = sheet == nil ? 0 : 256
    if let sheet { try ConvertCommand.refuseOverwriting(input, with: sheet) }

    let (image, metadata) = try ApplyCommand.load(input)
    // Suggestions follow what the user kept in the editor (`retouch learning show`).
    let engine = SuggestionEngine(learning: LearningStore())
    if let warning = engine.learningWarning {
      FileHandle.standardError.write(Data("retouch: \(warning)\n".utf8))
    }
    let result = engine.suggestionResult(
      for: image, metadata: metadata, options: options, isCancelled: { false })
    let list = result.suggestions
    if arguments.flag("json") {
      let items = list.map(SuggestionJSON.init)
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
      guard let data = try? encoder.encode(items) else {
        throw CLIError(code: .software, message: "could not encode the suggestions as JSON.")
      }
      Terminal.out(String(decoding: data, as: UTF8.self))
    } else if list.isEmpty {
      Terminal.out("\(input.lastPathComponent): no suggestions")
    } else {
      if result.analysis?.kind == .graphic {
        Terminal.out(
          "\(input.lastPathComponent): a graphic (screenshot, page or drawing): styles only, "
            + "no corrections")
      }
      for (i, s) in list.enumerated() {
        let edits = s.config.properties.sorted { $0.key < $1.key }
          .map { "\($0.key.rawValue)=\(format($0.value))" }
        let look = s.config.look.map { ["look=\($0.look.rawValue):\(format($0.strength))"] } ?? []
        Terminal.out(
          "\(i + 1). \(s.title(.english)) [\(s.lookID), \(s.kind.rawValue)] \((edits + look).joined(separator: " "))"
        )
      }
    }
    if let sheet {
      let image = ContactSheet.render(list)
      do {
        let format = try ConvertCommand.outputFormat(nil, for: sheet)
        try ImageEncoder().write(image, as: format, metadata: nil, to: sheet)
      } catch let error as CLIError {
        throw error
      } catch let error as ImageEncodingError {
        throw CLIError(error)
      } catch {
        throw CLIError(code: .software, message: "\(error)")
      }
    }
    return 0
  }

  /// The `--disable` values, split at commas; unknown recipe ids are a usage error.
  static func disabledLooks(_ arguments: ParsedArguments) throws(CLIError) -> Set<String> {
    var out: Set<String> = []
    for raw in arguments.all("disable") {
      for part in raw.split(separator: ",") {
        let id = part.trimmingCharacters(in: .whitespaces).lowercased()
        guard Recipe.named(id) != nil || id == SuggestionEngine.originalID else {
          throw CLIError.usage(
            "unknown look '\(id)' for --disable; known: \(Recipe.all.map(\.id).joined(separator: ", "))."
          )
        }
        out.insert(id)
      }
    }
    return out
  }

  static func format(_ v: Double) -> String { String(format: "%g", v) }
}

/// One suggestion as `suggest --json` prints it.
struct SuggestionJSON: Encodable {
  let id: String
  let title: String
  let titleZhHans: String
  let symbolName: String
  let kind: String
  let isTheme: Bool
  let score: Double
  let edit: EditConfig

  init(_ s: EditSuggestion) {
    id = s.lookID
    title = s.title.english
    titleZhHans = s.title.simplifiedChinese
    symbolName = s.symbolName
    kind = s.kind.rawValue
    isTheme = s.isTheme
    score = (s.score * 1000).rounded() / 1000
    edit = s.config
  }
}

/// A contact sheet: the thumbnails in a grid on dark grey, each titled underneath.
enum ContactSheet {
  static func render(_ list: [EditSuggestion]) -> Image {
    let cell = 256, pad = 12, label = 26
    let columns = max(1, min(4, list.count))
    let rows = max(1, (list.count + columns - 1) / columns)
    var sheet = Image(
      width: pad + columns * (cell + pad), height: pad + rows * (cell + label + pad), format: .rgb8)
    sheet.fillRect(x: 0, y: 0, width: sheet.width, height: sheet.height, color: [32, 32, 32])
    for (i, s) in list.enumerated() {
      let x = pad + (i % columns) * (cell + pad)
      let y = pad + (i / columns) * (cell + label + pad)
      if var t = s.thumbnail {
        if t.format != .rgb8 { t = t.converted8BitRGB() }
        sheet.paste(t, x: x + (cell - t.width) / 2, y: y + (cell - t.height) / 2)
      }
      let title = s.title(.english)
      let scale = BitmapFont.width(of: title, scale: 2) <= cell ? 2 : 1
      sheet.drawText(
        title, x: x + max(0, (cell - BitmapFont.width(of: title, scale: scale)) / 2),
        y: y + cell + 6, scale: scale, color: [235, 235, 235])
    }
    return sheet
  }
}

extension Image {
  /// An 8-bit RGB copy (16-bit scaled down, alpha dropped), for drawing onto a sheet.
  func converted8BitRGB() -> Image {
    var out = Image(width: width, height: height, format: .rgb8, colorSpace: colorSpace)
    for y in 0..<height {
      for x in 0..<width {
        let p = pixel(x: x, y: y)
        let c = format.bitDepth == 8 ? Array(p.prefix(3)) : p.prefix(3).map { $0 >> 8 }
        out.setPixel(x: x, y: y, c)
      }
    }
    return out
  }
}
