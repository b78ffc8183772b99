// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchRender

/// Builds an `EditConfig` from the edit options shared by `apply` and later commands:
/// `--config edit.json`, `--set NAME=VALUE`, `--look NAME[:STRENGTH]`, `--crop x,y,w,h`,
/// `--straighten DEG`, `--rotate 90|180|270`, `--flip`.
enum EditOptions {
  static let specs: [CommandSpec.Option] = [
    .init(name: "config", value: "FILE", help: "Start from an edit saved as JSON."),
    .init(
      name: "set", value: "NAME=VALUE",
      help: "Set a slider, e.g. exposure=0.3 (repeatable; see 'retouch looks').", repeatable: true),
    .init(
      name: "look", value: "NAME[:S]",
      help: "Apply a preset look with strength S in 0…1 (default 1)."),
    .init(name: "crop", value: "X,Y,W,H", help: "Crop to a rectangle in 0…1 of the turned photo."),
    .init(
      name: "straighten", value: "DEG", help: "Straighten by −45…45 degrees (clockwise positive)."),
    .init(name: "rotate", value: "90|180|270", help: "Turn clockwise by quarter turns."),
    .init(name: "flip", value: nil, help: "Mirror left–right (before turning)."),
  ]

  /// The edit described by the options on top of `base` (a reopened edit), validated.
  static func config(from arguments: ParsedArguments, base: EditConfig = .neutral) throws(CLIError)
    -> EditConfig
  {
    var config = base
    if let path = arguments.value("config") {
      let url = URL(fileURLWithPath: path)
      guard let data = try? Data(contentsOf: url) else {
        throw CLIError(
          code: .noInput,
          message: "\(url.lastPathComponent): unreadable file: cannot read the edit.")
      }
      do {
        config = try EditConfig(json: data, source: url.lastPathComponent)
      } catch {
        throw CLIError(code: .dataError, message: error.description)
      }
    }
    var properties = config.properties
    for item in arguments.all("set") {
      let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
      guard parts.count == 2 else {
        throw CLIError.usage("'--set' takes NAME=VALUE, got '\(item)'.")
      }
      guard let type = settingType(named: parts[0]) else {
        throw CLIError.usage("'\(parts[0])' is not a setting; run 'retouch looks' for the list.")
      }
      guard let value = Double(parts[1]), value.isFinite else {
        throw CLIError.usage("'--set \(parts[0])' needs a number, got '\(parts[1])'.")
      }
      properties[type] = value
    }
    if let raw = arguments.value("straighten") {
      guard let deg = Double(raw), deg.isFinite else {
        throw CLIError.usage("'--straighten' needs degrees, got '\(raw)'.")
      }
      properties[.straighten] = deg
    }
    var crop = config.crop
    if let raw = arguments.value("crop") {
      // Every field must be a number: dropping the ones that are not would let "0.1,x,0.5,0.5,0.5"
      // through as a different crop.
      let fields = raw.split(separator: ",", omittingEmptySubsequences: false)
      let v = fields.compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
      guard fields.count == 4, v.count == 4 else {
        throw CLIError.usage("'--crop' takes X,Y,W,H (four numbers in 0…1), got '\(raw)'.")
      }
      crop = NormalizedRect(x: v[0], y: v[1], width: v[2], height: v[3])
    }
    var rotation = config.editRotation
    if arguments.flag("flip") { rotation = rotation.flippedHorizontally() }
    if let raw = arguments.value("rotate") {
      guard let deg = Int(raw), [0, 90, 180, 270].contains(deg) else {
        throw CLIError.usage("'--rotate' must be 90, 180 or 270, got '\(raw)'.")
      }
      rotation = rotation.combined(with: EditRotation(quarterTurns: deg / 90, flipped: false))
    }
    var look = config.look
    if let raw = arguments.value("look") {
      let parts = raw.split(separator: ":", maxSplits: 1).map(String.init)
      guard let l = Look(rawValue: parts[0].lowercased()) else {
        throw CLIError.usage(
          "'\(parts[0])' is not a look; choose one of \(Look.allCases.map(\.rawValue).joined(separator: ", "))."
        )
      }
      var strength = 1.0
      if parts.count == 2 {
        guard let s = Double(parts[1]) else {
          throw CLIError.usage("look strength must be a number in 0…1, got '\(parts[1])'.")
        }
        strength = s
      }
      look = LookSelection(l, strength: strength)
    }
    let result = EditConfig(
      properties: properties, crop: crop, aspectRatio: config.aspectRatio, editRotation: rotation,
      look: look)
    do {
      try result.validate(source: "options")
    } catch {
      throw CLIError.usage(error.description)
    }
    return result
  }

  /// Accepts the JSON key ("noiseReduction", "mixer.red.hue") or a kebab/snake spelling
  /// ("noise-reduction", "shadow_warmth", "red-hue").
  static func settingType(named name: String) -> EditSettingType? {
    if let t = EditSettingType(rawValue: name) { return t }
    let squashed = name.lowercased().replacingOccurrences(of: "-", with: "").replacingOccurrences(
      of: "_", with: ""
    )
    .replacingOccurrences(of: ".", with: "")
    return EditSettingType.allCases.first {
      $0.rawValue.lowercased().replacingOccurrences(of: ".", with: "").replacingOccurrences(
        of: "mixer", with: "") == squashed
        || $0.rawValue.lowercased() == squashed
    }
  }
}
