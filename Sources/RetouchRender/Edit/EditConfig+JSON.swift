// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Stable, versioned JSON for ``EditConfig``:
///
/// ```json
/// {"format": "retouch.edit", "version": 1,
///  "settings": {"exposure": 0.3, "mixer.blue.saturation": -0.2},
///  "crop": [0.1, 0, 0.8, 1], "aspectRatio": "4:3", "rotation": "rotate90",
///  "look": {"look": "noir", "strength": 0.8}, "action": "exposure"}
/// ```
///
/// Everything but `format`/`version` is optional (absent = neutral). Later versions of Retouch
/// keep reading version 1; a file with a higher version is refused with a clear error rather than
/// misread. Keys are sorted on output so equal edits give equal bytes.
extension EditConfig: Codable {
  /// The format identifier written in every edit.
  public static let formatIdentifier = "retouch.edit"
  /// The newest format version this build writes and reads.
  public static let formatVersion = 1

  enum CodingKeys: String, CodingKey {
    case format, version, settings, crop, aspectRatio, rotation, look, action
  }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    if let format = try c.decodeIfPresent(String.self, forKey: .format),
      format != Self.formatIdentifier
    {
      throw DecodingError.dataCorruptedError(
        forKey: .format, in: c,
        debugDescription: "format is '\(format)', expected '\(Self.formatIdentifier)'")
    }
    let version = try c.decodeIfPresent(Int.self, forKey: .version) ?? 1
    if version > Self.formatVersion {
      throw NewerEditVersion(version: version)
    }
    var properties: [EditSettingType: Double] = [:]
    if let raw = try c.decodeIfPresent([String: Double].self, forKey: .settings) {
      for (key, value) in raw {
        guard let type = EditSettingType(rawValue: key) else { throw UnknownEditSetting(name: key) }
        properties[type] = value
      }
    }
    self.init(
      properties: properties,
      crop: try c.decodeIfPresent(NormalizedRect.self, forKey: .crop) ?? .full,
      aspectRatio: try c.decodeIfPresent(EditAspectRatio.self, forKey: .aspectRatio) ?? .original,
      editRotation: try c.decodeIfPresent(EditRotation.self, forKey: .rotation) ?? .original,
      look: try c.decodeIfPresent(LookSelection.self, forKey: .look),
      actionType: try c.decodeIfPresent(EditActionType.self, forKey: .action))
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(Self.formatIdentifier, forKey: .format)
    try c.encode(Self.formatVersion, forKey: .version)
    var settings: [String: Double] = [:]
    for (k, v) in properties { settings[k.rawValue] = v }
    try c.encode(settings, forKey: .settings)
    if !crop.isFull { try c.encode(crop, forKey: .crop) }
    if aspectRatio != .original { try c.encode(aspectRatio, forKey: .aspectRatio) }
    if editRotation != .original { try c.encode(editRotation, forKey: .rotation) }
    try c.encodeIfPresent(look, forKey: .look)
    try c.encodeIfPresent(actionType, forKey: .action)
  }

  /// The edit as JSON (sorted keys, so equal edits give equal bytes).
  public func jsonData(pretty: Bool = false) -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = pretty ? [.sortedKeys, .prettyPrinted] : [.sortedKeys]
    // Encoding plain numbers and strings cannot fail.
    return (try? encoder.encode(self)) ?? Data()
  }

  /// Reads an edit from JSON and validates it.
  ///
  /// - Throws: ``RenderError``: `.malformedEdit` (syntax, types, wrong format identifier),
  ///   `.unknownSetting`, `.newerVersion`, `.valueOutOfRange`, `.invalidCrop`.
  public init(json: Data, source: String = "<memory>") throws(RenderError) {
    do {
      self = try JSONDecoder().decode(EditConfig.self, from: json)
    } catch let e as NewerEditVersion {
      throw RenderError(
        .newerVersion, source: source,
        detail:
          "written in edit format version \(e.version); this Retouch reads up to version \(Self.formatVersion)."
      )
    } catch let e as UnknownEditSetting {
      throw RenderError(
        .unknownSetting, source: source,
        detail: "'\(e.name)' is not a setting; run 'retouch looks' for the list.")
    } catch let DecodingError.dataCorrupted(context) {
      throw RenderError(.malformedEdit, source: source, detail: Self.explain(context))
    } catch let DecodingError.typeMismatch(_, context) {
      throw RenderError(.malformedEdit, source: source, detail: Self.explain(context))
    } catch let DecodingError.valueNotFound(_, context) {
      throw RenderError(.malformedEdit, source: source, detail: Self.explain(context))
    } catch let DecodingError.keyNotFound(key, context) {
      throw RenderError(
        .malformedEdit, source: source,
        detail: "missing '\(key.stringValue)' at \(Self.path(context)).")
    } catch {
      throw RenderError(.malformedEdit, source: source, detail: "\(error)")
    }
    try validate(source: source)
  }

  private static func path(_ context: DecodingError.Context) -> String {
    let p = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(
      separator: ".")
    return p.isEmpty ? "top level" : p
  }

  private static func explain(_ context: DecodingError.Context) -> String {
    var text = context.debugDescription
    if let underlying = context.underlyingError as NSError? {
      text =
        underlying.userInfo[NSDebugDescriptionErrorKey] as? String
        ?? underlying.localizedDescription
    }
    return "\(text.hasSuffix(".") ? String(text.dropLast()) : text) (at \(path(context)))."
  }
}

struct NewerEditVersion: Error { let version: Int }
struct UnknownEditSetting: Error { let name: String }
