// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchRender

/// What learning remembers of one photo: a compact summary of its ``PhotoAnalysis``.
///
/// Values are rounded to 3 decimals when made from an analysis, so records stay small and
/// compare the same after a trip through the JSON file.
public struct PhotoSummary: Sendable, Hashable, Codable {
  /// Median L* (0...100).
  public var brightness: Double
  /// Standard deviation of L* (0...100).
  public var contrast: Double
  /// The colour cast along blue–amber, log2(R/B) of the illuminant (positive = warm).
  public var warmth: Double
  /// The colour cast along green–magenta (positive = green).
  public var tint: Double
  /// Mean chroma C*ab.
  public var chroma: Double
  /// Relative noise sigma (0...1), nil when grain was not measured.
  public var grain: Double?
  /// Number of detected faces.
  public var faces: Int
  /// The scene with the highest score when that score is at least 0.5, else nil.
  public var scene: Scene?

  enum CodingKeys: String, CodingKey {
    case brightness = "lum", contrast = "con", warmth = "warm", tint, chroma, grain, faces, scene
  }

  public init(
    brightness: Double, contrast: Double, warmth: Double, tint: Double, chroma: Double,
    grain: Double?, faces: Int, scene: Scene?
  ) {
    self.brightness = brightness
    self.contrast = contrast
    self.warmth = warmth
    self.tint = tint
    self.chroma = chroma
    self.grain = grain
    self.faces = faces
    self.scene = scene
  }

  /// The summary of an analysis.
  public init(analysis: PhotoAnalysis) {
    let percentiles = analysis.exposure.lightnessPercentiles
    // The median is the fourth of the 1, 5, 25, 50, 75, 95, 99 % percentiles.
    let median = percentiles.count > 3 ? percentiles[3] : 50
    var best: (scene: Scene, score: Double)?
    for scene in Scene.allCases {  // fixed order, so ties resolve the same way every time
      if let score = analysis.sceneScores[scene], score >= 0.5, score > (best?.score ?? -1) {
        best = (scene, score)
      }
    }
    self.init(
      brightness: Self.rounded(median),
      contrast: Self.rounded(analysis.exposure.lightnessDeviation),
      warmth: Self.rounded(analysis.color.warmth), tint: Self.rounded(analysis.color.greenTint),
      chroma: Self.rounded(analysis.color.meanChroma),
      grain: analysis.noise.map { Self.rounded($0.relativeSigma) }, faces: analysis.faces.count,
      scene: best?.scene)
  }

  static func rounded(_ v: Double) -> Double { v.isFinite ? (v * 1000).rounded() / 1000 : 0 }

  /// How different two photos are, for learning: nil when they are not comparable at all (a
  /// different scene, or faces on one and not the other), else the root mean square of the
  /// differences in units of what counts as "a clearly different photo": 12 L* of brightness,
  /// 6 of contrast, 0.4 of warmth, 0.25 of tint, 8 of chroma and 0.02 of grain (grain only when
  /// both were measured). Below ``LearningAdjuster/closeDistance`` counts as a close match.
  public func distance(to other: PhotoSummary) -> Double? {
    guard scene == other.scene, (faces > 0) == (other.faces > 0) else { return nil }
    var terms = [
      (brightness - other.brightness) / 12, (contrast - other.contrast) / 6,
      (warmth - other.warmth) / 0.4, (tint - other.tint) / 0.25, (chroma - other.chroma) / 8,
    ]
    if let a = grain, let b = other.grain { terms.append((a - b) / 0.02) }
    let d = (terms.reduce(0) { $0 + $1 * $1 } / Double(terms.count)).squareRoot()
    return d.isFinite ? d : nil
  }
}

/// One export learned from: the photo, the looks it was offered, the look it kept, and how far
/// the user moved the sliders from that look.
public struct LearningRecord: Sendable, Hashable, Codable {
  public var photo: PhotoSummary
  /// The look ids offered, best first (at most ``maximumOfferedLooks``).
  public var offeredLooks: [String]
  /// The look on the photo when it was exported, nil when none was.
  public var keptLook: String?
  /// Slider moves after the look, by `EditSettingType` raw value (at most
  /// ``maximumSliderDeltas``, the largest; values rounded to 3 decimals).
  public var sliderDeltas: [String: Double]
  /// The editing session that made the record: a second export of the same session replaces
  /// it instead of adding another.
  public var sessionID: String?

  /// Offered looks kept per record.
  public static let maximumOfferedLooks = 12
  /// Slider moves kept per record.
  public static let maximumSliderDeltas = 10

  enum CodingKeys: String, CodingKey {
    case photo, offeredLooks = "offered", keptLook = "kept", sliderDeltas = "deltas"
    case sessionID = "session"
  }

  public init(
    photo: PhotoSummary, offeredLooks: [String], keptLook: String?,
    sliderDeltas: [EditSettingType: Double], sessionID: String? = nil
  ) {
    self.photo = photo
    self.offeredLooks = Array(offeredLooks.prefix(Self.maximumOfferedLooks))
    self.keptLook = keptLook
    let kept = sliderDeltas.filter { $0.value.isFinite && abs($0.value) >= 0.0005 }
      .sorted { abs($0.value) != abs($1.value) ? abs($0.value) > abs($1.value) : $0.key < $1.key }
      .prefix(Self.maximumSliderDeltas)
    self.sliderDeltas = Dictionary(
      uniqueKeysWithValues: kept.map { ($0.key.rawValue, PhotoSummary.rounded($0.value)) })
    self.sessionID = sessionID
  }

  /// The record of an export: `offered` as the suggestions were shown, the look kept (nil for
  /// none), its config as suggested (nil for none: the moves are then from neutral) and the
  /// config that was exported.
  public init(
    analysis: PhotoAnalysis, offered: [EditSuggestion], keptLook: String?,
    keptLookConfig: EditConfig?, exported: EditConfig, sessionID: String? = nil
  ) {
    self.init(
      photo: PhotoSummary(analysis: analysis), offeredLooks: offered.map(\.lookID),
      keptLook: keptLook,
      sliderDeltas: Self.sliderDeltas(from: keptLookConfig ?? .neutral, to: exported),
      sessionID: sessionID)
  }

  /// How far each colour and tone slider of `exported` is from `base` (geometry and depth blur
  /// are not learned from).
  public static func sliderDeltas(from base: EditConfig, to exported: EditConfig)
    -> [EditSettingType: Double]
  {
    var deltas: [EditSettingType: Double] = [:]
    for type in Set(base.properties.keys).union(exported.properties.keys) where type.isColorOrTone {
      let d = exported.value(of: type) - base.value(of: type)
      if d != 0 { deltas[type] = d }
    }
    return deltas
  }

  /// ``sliderDeltas`` with their setting types (unknown names are skipped).
  public var typedSliderDeltas: [EditSettingType: Double] {
    var out: [EditSettingType: Double] = [:]
    for (k, v) in sliderDeltas {
      if let type = EditSettingType(rawValue: k), v.isFinite { out[type] = v }
    }
    return out
  }
}
