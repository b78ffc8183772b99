// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A whole edit of a photo as one immutable value: slider offsets from neutral, crop,
/// straighten, quarter turns and flips, and an optional preset look.
///
/// Every slider value is an offset from neutral: 0 (or absent) leaves the photo unchanged,
/// whatever the underlying filter treats as neutral. The AI produces this value, the editor
/// stacks it, the renderer compiles it, the library stores it, the CLI and web editor read and
/// write it as JSON: there is no second representation of an edit.
public struct EditConfig: Sendable, Hashable {
  /// Slider values by setting; absent means 0. Straighten is in degrees; other units in
  /// ``EditSetting``.
  public let properties: [EditSettingType: Double]
  /// The crop, in unit coordinates of the photo after ``editRotation`` (what the user sees).
  public let crop: NormalizedRect
  /// The crop shape the user chose (the crop rectangle already has it).
  public let aspectRatio: EditAspectRatio
  /// Quarter turns and flips.
  public let editRotation: EditRotation
  /// A preset look applied on top of the sliders.
  public let look: LookSelection?
  /// Which control a change came from, so an editor can merge consecutive moves of one slider.
  public let actionType: EditActionType?

  public init(
    properties: [EditSettingType: Double] = [:], crop: NormalizedRect = .full,
    aspectRatio: EditAspectRatio = .original, editRotation: EditRotation = .original,
    look: LookSelection? = nil, actionType: EditActionType? = nil
  ) {
    self.properties = properties.filter { $0.value != 0 }
    self.crop = crop
    self.aspectRatio = aspectRatio
    self.editRotation = editRotation
    self.look = look
    self.actionType = actionType
  }

  /// The edit that changes nothing.
  public static let neutral = EditConfig()

  /// The value of a setting; 0 when untouched.
  public func value(of type: EditSettingType) -> Double { properties[type] ?? 0 }

  /// The straighten angle in degrees (clockwise positive).
  public var straightenDegrees: Double { value(of: .straighten) }

  /// Whether the edit changes anything at all.
  public var hasEdits: Bool {
    !properties.isEmpty || !crop.isFull || editRotation != .original
      || (look.map { $0.strength != 0 } ?? false)
  }

  /// Whether the edit changes only colour and tone (no geometry, no pixel-neighbourhood stages).
  public var isColorOnly: Bool {
    crop.isFull && editRotation == .original && straightenDegrees == 0
      && !properties.keys.contains(where: { $0.isSpatial })
  }

  /// A copy with some fields replaced.
  public func with(
    properties: [EditSettingType: Double]? = nil, crop: NormalizedRect? = nil,
    aspectRatio: EditAspectRatio? = nil, editRotation: EditRotation? = nil,
    look: LookSelection?? = nil, actionType: EditActionType?? = nil
  ) -> EditConfig {
    EditConfig(
      properties: properties ?? self.properties, crop: crop ?? self.crop,
      aspectRatio: aspectRatio ?? self.aspectRatio, editRotation: editRotation ?? self.editRotation,
      look: look ?? self.look, actionType: actionType ?? self.actionType)
  }

  /// A copy with one setting set to `value` (0 removes it).
  public func setting(_ type: EditSettingType, to value: Double) -> EditConfig {
    var p = properties
    p[type] = value
    return with(properties: p)
  }

  /// `self` followed by `change`: slider values add, rotations compose; a change's non-full crop,
  /// non-original aspect ratio and look replace this one's; the action is the change's.
  public func combined(with change: EditConfig) -> EditConfig {
    var p = properties
    for (k, v) in change.properties { p[k, default: 0] += v }
    return EditConfig(
      properties: p,
      crop: change.crop.isFull ? crop : change.crop,
      aspectRatio: change.aspectRatio == .original ? aspectRatio : change.aspectRatio,
      editRotation: editRotation.combined(with: change.editRotation),
      look: change.look ?? look,
      actionType: change.actionType ?? actionType)
  }

  /// Every slider value and the look's strength multiplied by `factor`; crop, aspect ratio,
  /// quarter turns, flips and straighten are kept.
  public func scaled(by factor: Double) -> EditConfig {
    var p: [EditSettingType: Double] = [:]
    for (k, v) in properties {
      p[k] = (k == .straighten || k == .aspectRatio) ? v : v * factor
    }
    return EditConfig(
      properties: p, crop: crop, aspectRatio: aspectRatio, editRotation: editRotation,
      look: look.map { LookSelection($0.look, strength: $0.strength * factor) },
      actionType: actionType)
  }

  /// Checks every value against its setting's range and the crop against the unit square.
  ///
  /// - Throws: ``RenderError`` `.valueOutOfRange` or `.invalidCrop`.
  public func validate(source: String = "<memory>") throws(RenderError) {
    for (type, v) in properties.sorted(by: { $0.key < $1.key }) {
      let s = type.setting
      guard v.isFinite, v >= s.minimum - 1e-9, v <= s.maximum + 1e-9 else {
        throw RenderError(
          .valueOutOfRange, source: source,
          detail:
            "\(type.rawValue) is \(v), allowed \(EditSetting.format(s.minimum))…\(EditSetting.format(s.maximum))."
        )
      }
    }
    guard crop.isValid else {
      throw RenderError(
        .invalidCrop, source: source,
        detail: "crop \(crop) must lie inside 0…1 with a positive size.")
    }
    if let look, !(look.strength.isFinite && (0...1).contains(look.strength)) {
      throw RenderError(
        .valueOutOfRange, source: source, detail: "look strength is \(look.strength), allowed 0…1.")
    }
  }
}

extension Array where Element == EditConfig {
  /// All configs in order, each applied on top of the previous ones.
  public func combine() -> EditConfig {
    reduce(EditConfig.neutral) { $0.combined(with: $1) }
  }
}

/// Which control produced a change.
public enum EditActionType: Sendable, Hashable, Codable, CustomStringConvertible {
  case setting(EditSettingType)
  case crop, rotation, look, suggestion, revert

  public var description: String {
    switch self {
    case .setting(let t): t.rawValue
    case .crop: "crop"
    case .rotation: "rotation"
    case .look: "look"
    case .suggestion: "suggestion"
    case .revert: "revert"
    }
  }

  public init?(description: String) {
    switch description {
    case "crop": self = .crop
    case "rotation": self = .rotation
    case "look": self = .look
    case "suggestion": self = .suggestion
    case "revert": self = .revert
    default:
      guard let t = EditSettingType(rawValue: description) else { return nil }
      self = .setting(t)
    }
  }

  public init(from decoder: any Decoder) throws {
    let s = try decoder.singleValueContainer().decode(String.self)
    guard let v = EditActionType(description: s) else {
      throw DecodingError.dataCorrupted(
        .init(codingPath: decoder.codingPath, debugDescription: "unknown action '\(s)'"))
    }
    self = v
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.singleValueContainer()
    try c.encode(description)
  }
}
