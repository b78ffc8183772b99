// SPDX-License-Identifier: Apache-2.0

import RetouchRender

/// The suggestion engine's own limits, applied again to a config learning has moved: grain,
/// skin tone, clipping and the minimum edit size.
public protocol LearnedEditLimiting: Sendable {
  /// `config` (the suggestion's config moved by learning) with the engine's limits applied, or
  /// nil when it is no longer worth offering in this form; the suggestion then keeps its
  /// unlearned config.
  func limited(_ config: EditConfig, for suggestion: EditSuggestion) -> EditConfig?
}

/// What ``LearningAdjuster/adjusted(_:for:limits:)`` did.
public struct LearningAdjustment: Sendable {
  /// The suggestions in their new order, some with moved configs.
  public var suggestions: [EditSuggestion]
  /// How many records were close enough to count.
  public var matchCount: Int
  /// Looks whose config changed: their thumbnails (rendered from the old config) must be
  /// rendered again.
  public var adjustedLookIDs: Set<String>
}

/// Adapts ranked suggestions to what the user did with similar photos. A pure function of the
/// records, the photo's summary and the suggestions: the same inputs give the same output.
///
/// Rules:
/// - Only records of close photos count (``PhotoSummary/distance(to:)`` at most
///   ``closeDistance``), each weighing `1 − distance/2`; with fewer than ``minimumMatches``
///   nothing changes.
/// - Order: per look, a preference in −1…1: +1 for each close record that kept it, −1 for each
///   that showed it above the look kept (or among the top ``topLooksWhenNoneKept`` when none was
///   kept), averaged over the close records that offered it. Then ``maximumMove`` rounds of
///   odd–even transposition: neighbours swap when the lower one's preference exceeds the upper
///   one's by ``swapMargin``. So a look moves at most ``maximumMove`` places, and only when the
///   user's habit is clear. The Original suggestion and themes keep their places.
/// - Values: for a look kept at least ``minimumMatches`` times among the close records, each
///   slider moved the same way (the same sign in at least ``consistentShare`` of them, each move
///   at least 2 % of the slider's range) moves by the weighted mean of the moves, at most
///   ``maximumSliderShare`` of its range; a slider the recipe sets never changes sign (it may
///   reach 0), and values stay in range. Moves learned after one look apply to that look only.
///   The engine's limits (``LearnedEditLimiting``) apply afterwards.
/// - Scores are left as they were; only the order and configs change.
public struct LearningAdjuster: Sendable {
  public var records: [LearningRecord]
  public var closeDistance = 1.0
  public var minimumMatches = 3
  public var maximumMove = 3
  public var swapMargin = 0.4
  public var topLooksWhenNoneKept = 2
  public var consistentShare = 0.75
  public var maximumSliderShare = 0.15

  public init(records: [LearningRecord]) { self.records = records }

  /// The close records and their weights, in file order.
  func matches(for photo: PhotoSummary) -> [(record: LearningRecord, weight: Double)] {
    records.compactMap { r in
      guard let d = r.photo.distance(to: photo), d <= closeDistance else { return nil }
      return (r, 1 - d / 2)
    }
  }

  /// The suggestions adapted to the records of photos like `photo` (see the type's rules).
  ///
  /// Call it on the full ranked list before it is cut to the caller's limit and before
  /// thumbnails are rendered (or re-render those of ``LearningAdjustment/adjustedLookIDs``).
  public func adjusted(
    _ suggestions: [EditSuggestion], for photo: PhotoSummary,
    limits: (any LearnedEditLimiting)? = nil
  ) -> LearningAdjustment {
    let close = matches(for: photo)
    guard close.count >= minimumMatches else {
      return LearningAdjustment(
        suggestions: suggestions, matchCount: close.count, adjustedLookIDs: [])
    }
    var list = reordered(suggestions, preferences: preferences(close))
    var adjusted: Set<String> = []
    for (i, s) in list.enumerated() where s.kind != .original {
      guard let moved = movedConfig(s, close: close), moved != s.config else { continue }
      guard let limited = limits.map({ $0.limited(moved, for: s) }) ?? moved, limited != s.config
      else { continue }
      list[i] = EditSuggestion(
        lookID: s.lookID, title: s.title, symbolName: s.symbolName, kind: s.kind, config: limited,
        thumbnail: s.thumbnail, score: s.score)
      adjusted.insert(s.lookID)
    }
    return LearningAdjustment(suggestions: list, matchCount: close.count, adjustedLookIDs: adjusted)
  }

  /// Per look id, the preference in −1…1 (looks never offered in a close record are absent).
  func preferences(_ close: [(record: LearningRecord, weight: Double)]) -> [String: Double] {
    var score: [String: Double] = [:], offered: [String: Double] = [:]
    for (r, w) in close {
      for look in r.offeredLooks { offered[look, default: 0] += w }
      if let kept = r.keptLook {
        score[kept, default: 0] += w
        for look in r.offeredLooks.prefix(while: { $0 != kept }) where r.offeredLooks.contains(kept)
        {
          score[look, default: 0] -= w
        }
      } else {
        for look in r.offeredLooks.prefix(topLooksWhenNoneKept) { score[look, default: 0] -= w }
      }
    }
    var result: [String: Double] = [:]
    for (look, total) in offered where total > 0 {
      result[look] = max(-1, min(1, (score[look] ?? 0) / total))
    }
    return result
  }

  /// The list with its movable suggestions (not Original, not themes) reordered in their own
  /// slots by ``maximumMove`` rounds of odd–even transposition.
  func reordered(_ suggestions: [EditSuggestion], preferences: [String: Double]) -> [EditSuggestion]
  {
    let slots = suggestions.indices.filter {
      suggestions[$0].kind != .original && !suggestions[$0].isTheme
    }
    var movable = slots.map { suggestions[$0] }
    guard movable.count > 1 else { return suggestions }
    for round in 0..<maximumMove {
      var i = round % 2
      while i + 1 < movable.count {
        let upper = preferences[movable[i].lookID] ?? 0
        let lower = preferences[movable[i + 1].lookID] ?? 0
        if lower - upper >= swapMargin { movable.swapAt(i, i + 1) }
        i += 2
      }
    }
    var out = suggestions
    for (slot, s) in zip(slots, movable) { out[slot] = s }
    return out
  }

  /// The suggestion's config with the learned slider moves of its own look, or nil for none.
  func movedConfig(_ s: EditSuggestion, close: [(record: LearningRecord, weight: Double)])
    -> EditConfig?
  {
    let kept = close.filter { $0.record.keptLook == s.lookID }
    guard kept.count >= minimumMatches else { return nil }
    let deltas = kept.map { ($0.record.typedSliderDeltas, $0.weight) }
    let types = Set(deltas.flatMap { $0.0.keys }).sorted()
    let totalWeight = kept.reduce(0) { $0 + $1.weight }
    var properties = s.config.properties
    for type in types where type.isColorOrTone {
      let setting = type.setting
      let range = setting.maximum - setting.minimum
      let values = deltas.map { ($0.0[type] ?? 0, $0.1) }
      let up = values.filter { $0.0 >= 0.02 * range }.count
      let down = values.filter { $0.0 <= -0.02 * range }.count
      guard Double(max(up, down)) >= consistentShare * Double(values.count) else { continue }
      let mean = values.reduce(0) { $0 + $1.0 * $1.1 } / totalWeight
      let shift = max(-maximumSliderShare * range, min(maximumSliderShare * range, mean))
      let base = s.config.value(of: type)
      var value = setting.clamp(base + shift)
      if base != 0, value * base < 0 { value = 0 }
      properties[type] = value
    }
    return s.config.with(properties: properties)
  }
}
