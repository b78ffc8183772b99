// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchRender

/// Scores and orders the recipes for one analysed photo, measuring how visibly each one would
/// change it.
///
/// Order: corrections the photo needs come first (most needed first), then styles by how well
/// they suit it; a recipe whose render differs from the unedited photo by less than
/// ``minimumChange`` (mean ΔE*ab over a small copy) is not offered, and one that looks nearly
/// the same as a better-ranked one (mean ΔE*ab between the two renders below
/// ``duplicateDistance``) moves behind the others. Ties keep ``Recipe/all``'s order, so the
/// result is deterministic.
///
/// Cost: one render of the small measuring copy (about 160 px long edge) per applicable recipe,
/// 0.3–1 ms each.
struct SuggestionRanker {
  /// Below this mean ΔE*ab (CIE76) a recipe barely changes the photo and is not offered.
  static let minimumChange = 1.2
  /// `topSuggestion` stays nil unless its edit changes the photo at least this much.
  static let minimumTopChange = 2.0
  /// Two suggestions closer than this (mean ΔE*ab between their renders) look nearly the same.
  static let duplicateDistance = 2.0
  /// Long edge of the measuring copy, in pixels.
  static let measureLongEdge = 160

  struct Candidate {
    let recipe: Recipe
    let proposal: RecipeProposal
    let score: Double
    /// Mean ΔE*ab of its render against the unedited measuring copy.
    var change: Double = 0
    var lab: LabPixels? = nil
  }

  let analysis: PhotoAnalysis
  /// The photo at ``measureLongEdge``.
  let measureCopy: Image
  let original: LabPixels
  /// The measuring copy's size relative to the full photo.
  let renderScale: Double

  init(analysis: PhotoAnalysis, measureCopy: Image) {
    self.analysis = analysis
    self.measureCopy = measureCopy
    original = LabPixels(measureCopy)
    let full = max(analysis.pixelSize.longEdge, 1)
    renderScale = min(1, Double(measureCopy.size.longEdge) / Double(full))
  }

  /// Whether a proposal answers a need the photo has (a correction, or a style fixing a
  /// measured lack): such ones rank above every matter of taste.
  static func isFix(_ p: RecipeProposal) -> Bool { p.need >= 0.15 }

  static func score(_ p: RecipeProposal) -> Double {
    (isFix(p) ? 1 : 0) + p.need + p.appeal * (1 - p.need) + p.rankBonus
  }

  /// The applicable recipes among `recipes` for `analysis`, best first by score (not yet
  /// measured).
  static func proposals(
    for analysis: PhotoAnalysis, from recipes: [Recipe], disabled: Set<String>
  ) -> [Candidate] {
    var out: [Candidate] = []
    for r in recipes where !disabled.contains(r.id) {
      guard let p = r.proposal(for: analysis) else { continue }
      out.append(Candidate(recipe: r, proposal: p, score: Self.score(p)))
    }
    // Stable: equal scores keep catalogue order.
    return out.enumerated().sorted {
      $0.element.score != $1.element.score
        ? $0.element.score > $1.element.score
        : $0.offset < $1.offset
    }.map(\.element)
  }

  /// Renders the measuring copy with `config`.
  func render(_ config: EditConfig) -> Image {
    var options = RenderOptions()
    options.lutSize = 17
    options.threads = 1
    let plan = RenderPlan(
      config, sourceSize: measureCopy.size, renderScale: renderScale, includesGeometry: false,
      options: options)
    return plan.render(measureCopy)
  }

  /// `c` with its visible change measured.
  func measured(_ c: Candidate) -> Candidate {
    var c = c
    let lab = LabPixels(render(c.proposal.config))
    c.change = lab.meanDifference(to: original)
    c.lab = lab
    return c
  }

  /// The best-ranked candidate when it is a fix that visibly changes the photo; nil when it is
  /// not a fix or barely changes the photo. The measuring copy is only made (by `measureCopy`)
  /// when there is a fix to measure, so a photo left alone costs no resize, Lab conversion or
  /// render (about 1 ms of CPU of the 512-px `topSuggestion`).
  static func top(
    analysis: PhotoAnalysis, disabled: Set<String>, measureCopy: () -> Image
  ) -> Candidate? {
    let ranked = proposals(
      for: analysis, from: Recipe.all.filter { $0.kind != .theme }, disabled: disabled)
    guard let first = ranked.first, isFix(first.proposal) else { return nil }
    let m = SuggestionRanker(analysis: analysis, measureCopy: measureCopy()).measured(first)
    return m.change >= minimumTopChange ? m : nil
  }

  /// Every visible candidate among `recipes`, ordered: by score, near-duplicates of a better one
  /// moved behind the rest. `isCancelled` is polled between renders; returns nil when it fires.
  func ranked(
    _ recipes: [Recipe], disabled: Set<String>, isCancelled: () -> Bool
  ) -> [Candidate]? {
    var visible: [Candidate] = []
    for c in Self.proposals(for: analysis, from: recipes, disabled: disabled) {
      if isCancelled() { return nil }
      let m = measured(c)
      if m.change >= Self.minimumChange { visible.append(m) }
    }
    var kept: [Candidate] = []
    var moved: [Candidate] = []
    for c in visible {
      let duplicate = kept.contains { k in
        guard let a = k.lab, let b = c.lab else { return false }
        return a.meanDifference(to: b) < Self.duplicateDistance
      }
      if duplicate { moved.append(c) } else { kept.append(c) }
    }
    return kept + moved
  }
}
