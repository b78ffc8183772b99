// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchIO
import RetouchRender

/// `retouch looks [PHOTO --sheet OUT.jpg] [--json]`: the looks and sliders, or a contact sheet.
enum LooksCommand: Subcommand {
  static let spec = CommandSpec(
    name: "looks",
    abstract: "List the preset looks and every setting with its range, or make a contact sheet.",
    usage: "[PHOTO --sheet OUT.jpg] [--json]",
    options: [
      .init(name: "sheet", value: "OUT", help: "Write a contact sheet of every look on PHOTO."),
      .init(name: "json", value: nil, help: "Print the looks and settings as JSON."),
    ],
    positionals: 0...1,
    discussion: "Names follow RETOUCH_LANG or LANG (English, or Simplified Chinese for zh).")

  static func run(_ arguments: ParsedArguments) throws(CLIError) -> Int32 {
    if let sheet = arguments.value("sheet") {
      guard let photo = arguments.positionals.first else {
        throw CLIError.usage("'--sheet' needs a PHOTO to show the looks on.")
      }
      try writeSheet(photo: URL(fileURLWithPath: photo), to: URL(fileURLWithPath: sheet))
      return 0
    }
    if !arguments.positionals.isEmpty {
      throw CLIError.usage("a PHOTO is only used with '--sheet OUT.jpg'.")
    }
    let language = RetouchLanguage.current
    if arguments.flag("json") {
      struct Item: Codable {
        let id: String, name: String, group: String?, symbol: String, minimum: Double?,
          maximum: Double?
      }
      let looks = Look.allCases.map {
        Item(
          id: $0.rawValue, name: $0.name(language), group: nil, symbol: $0.symbolName, minimum: 0,
          maximum: 1)
      }
      let settings = EditSettingType.allCases.map {
        let s = $0.setting
        return Item(
          id: $0.rawValue, name: s.localizedName(language), group: $0.group.rawValue,
          symbol: s.symbolName,
          minimum: s.minimum, maximum: s.maximum)
      }
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
      let data = (try? encoder.encode(["looks": looks, "settings": settings])) ?? Data()
      Terminal.out(String(decoding: data, as: UTF8.self))
      return 0
    }
    var lines = ["LOOKS (--look NAME[:STRENGTH], strength 0…1)"]
    for look in Look.allCases { lines.append("  \(pad(look.rawValue, 12))\(look.name(language))") }
    var group: EditSettingType.Group?
    lines.append("")
    lines.append("SETTINGS (--set NAME=VALUE)")
    for type in EditSettingType.allCases {
      if type.group != group {
        group = type.group
        lines.append("  [\(type.group.rawValue)]")
      }
      let s = type.setting
      lines.append("    \(pad(type.rawValue, 26))\(pad(range(s), 12))\(s.localizedName(language))")
    }
    Terminal.out(lines.joined(separator: "\n"))
    return 0
  }

  static func range(_ s: EditSetting) -> String {
    func f(_ v: Double) -> String { v == v.rounded() ? String(Int(v)) : String(v) }
    return "\(f(s.minimum))…\(f(s.maximum))"
  }

  static func pad(_ s: String, _ n: Int) -> String {
    s + String(repeating: " ", count: max(1, n - s.count))
  }

  /// A grid of the photo with no look and with each look, labelled, 4 columns.
  static func writeSheet(photo: URL, to output: URL) throws(CLIError) {
    try ConvertCommand.refuseOverwriting(photo, with: output)
    var options = DecodeOptions()
    options.minimumLongEdge = 480
    let decoded: DecodedImage
    do {
      decoded = try ImageDecoder(options: options).decode(photo)
    } catch {
      throw CLIError(error)
    }
    var base = decoded.image.resized(toFitLongEdge: 360)
    if base.format != .rgb8 { base = PlanarImage(base).image(bitDepth: 8) }
    let renderScale =
      Double(base.size.longEdge)
      / Double(decoded.metadata.pixelSize?.longEdge ?? base.size.longEdge)
    let tiles: [(String, Image)] =
      [("ORIGINAL", base)]
      + Look.allCases.map { look in
        (
          look.name(.english).uppercased(),
          base.applyingEditConfig(EditConfig(look: LookSelection(look)), renderScale: renderScale)
        )
      }
    let columns = 4, gap = 12, label = 7 * 2 + 10
    let rows = (tiles.count + columns - 1) / columns
    let cellW = base.width, cellH = base.height + label
    var sheet = Image(
      width: columns * cellW + (columns + 1) * gap, height: rows * cellH + (rows + 1) * gap,
      format: .rgb8,
      colorSpace: base.colorSpace)
    sheet.fillRect(x: 0, y: 0, width: sheet.width, height: sheet.height, color: [250, 250, 250])
    for (i, tile) in tiles.enumerated() {
      let x = gap + (i % columns) * (cellW + gap), y = gap + (i / columns) * (cellH + gap)
      sheet.paste(tile.1, x: x, y: y)
      sheet.drawText(tile.0, x: x, y: y + base.height + 6, scale: 2, color: [30, 30, 30])
    }
    do {
      try ImageEncoder().write(
        sheet, as: ConvertCommand.outputFormat(nil, for: output), metadata: nil, to: output)
    } catch let error as ImageEncodingError {
      throw CLIError(error)
    } catch {
      throw CLIError(code: .software, message: "\(error)")
    }
  }
}
