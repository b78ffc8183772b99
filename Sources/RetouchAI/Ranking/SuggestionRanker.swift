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
/// A recipe made only of detail settings (sharpening, noise reduction, clarity: Crisp, Clean Up)
/// works at the scale of pixels, and a 160 px copy of a 12 MP photo cannot show it: rendered at
/// that copy's scale, as a preview would be, it changes nothing there. Its change is measured
/// instead on a crop of the full-resolution photo around the subject (``detailCropSide``
/// pixels square, rendered at full scale), what a user checking the edit at 100 % sees. Judged
/// on the small copy, neither was offered on a 2048 px photo with heavy added grain (σ 10 code
/// values) or on a 10 MP photo blurred by 3 px.
///
/// Cost: one render of the small measuring copy (about 160 px long edge) per applicable recipe,
/// 0.3–1 ms each, and one render of the crop per detail recipe.
struct SuggestionRanker {
  /// Below this mean ΔE*ab (CIE76) a recipe barely changes the photo and is not offered.
  static let minimumChange = 1.2
  /// `topSuggestion` stays nil unless its edit changes the photo at least this much.
  static let minimumTopChange = 2.0
  /// The same for an edit that is the exact inverse of a defect read from its own signature
  /// (``RecipeProposal/isExactInverse``).
  static let minimumExactChange = 1.2
  /// `topSuggestion` also stays nil unless its change weighted by its need (how large the
  /// measured defect is, 0...1) reaches this: a fix the measurements only mildly ask for must
  /// change the photo more before it is applied unasked (at need 0.5, 2.5 ΔE*ab; at 0.25, 5).
  static let minimumTopGain = 1.25
  /// Two suggestions closer than this (mean ΔE*ab between their renders) look nearly the same.
  static let duplicateDistance = 2.0
  /// Long edge of the measuring copy, in pixels.
  static let measureLongEdge = 160
  /// Side of the full-resolution crop detail recipes are measured on, in pixels.
  static let detailCropSide = 256

  struct Candidate: Sendable {
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
  /// A full-resolution crop of the subject and its Lab pixels, for detail recipes; nil when the
  /// caller has no full-resolution photo (they are then measured on the small copy).
  let detail: (crop: Image, original: LabPixels)?

  init(analysis: PhotoAnalysis, measuring: MeasuringCopy, detailCrop: Image? = nil) {
    self.analysis = analysis
    measureCopy = measuring.image
    original = measuring.lab
    let full = max(analysis.pixelSize.longEdge, 1)
    renderScale = min(1, Double(measureCopy.size.longEdge) / Double(full))
    detail = detailCrop.map { ($0, LabPixels($0)) }
  }

  /// Whether every setting of `config` is a detail setting (sharpening, noise reduction,
  /// clarity), whose change shows at full resolution only.
  static func isDetailOnly(_ config: EditConfig) -> Bool {
    !config.properties.isEmpty && config.properties.keys.allSatisfy { $0.group == .detail }
  }

  /// The ``detailCropSide`` square of `image` (at most the image) centred on `region` (clamped
  /// inside the image), copied at full resolution.
  static func detailCrop(of image: Image, around region: NormalizedRect) -> Image {
    let w = min(detailCropSide, image.width), h = min(detailCropSide, image.height)
    let cx = (region.x + region.width / 2) * Double(image.width)
    let cy = (region.y + region.height / 2) * Double(image.height)
    let x0 = min(max(0, Int((cx - Double(w) / 2).rounded())), image.width - w)
    let y0 = min(max(0, Int((cy - Double(h) / 2).rounded())), image.height - h)
    var crop = Image(
      uninitializedWidth: w, height: h, format: image.format, colorSpace: image.colorSpace)
    let bpp = image.format.bytesPerPixel
    let sourceRow = image.bytesPerRow, rowBytes = w * bpp
    image.withUnsafeBytes { src in
      crop.withUnsafeMutableBytes { dst in
        for y in 0..<h {
          (dst.baseAddress! + y * rowBytes).copyMemory(
            from: src.baseAddress! + (y0 + y) * sourceRow + x0 * bpp, byteCount: rowBytes)
        }
      }
    }
    return crop
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
    // Recipes are sized independently (skin protection's trials make some cost ten times
    // others), so on all cores, collected in catalogue order.
    let eligible = recipes.filter { !disabled.contains($0.id) }
    let out: [Candidate] = ParallelBands.map(count: eligible.count) { i in
      eligible[i].proposal(for: analysis).map { p in
        Candidate(recipe: eligible[i], proposal: p, score: Self.score(p))
      }
    }.compactMap { $0 }
    return byScore(out) { $0.score }
  }

  /// `items` best first by `score`; stable: equal scores keep catalogue order.
  static func byScore<T>(_ items: [T], _ score: (T) -> Double) -> [T] {
    items.enumerated().sorted {
      let (a, b) = (score($0.element), score($1.element))
      return a != b ? a > b : $0.offset < $1.offset
    }.map(\.element)
  }

  /// The first of ``proposals(for:from:disabled:)``, without applying the shared rules to the
  /// others: a score does not depend on them (they change only the edit), so the drafts are
  /// ranked and finished in that order until one keeps an edit. On a portrait, skin
  /// protection's trial transforms for every recipe were most of what `topSuggestion` spent
  /// beyond the analysis.
  static func firstProposal(
    for analysis: PhotoAnalysis, from recipes: [Recipe], disabled: Set<String>
  ) -> Candidate? {
    let drafts = recipes.filter { !disabled.contains($0.id) }.compactMap { r in
      r.draft(for: analysis).map { (recipe: r, draft: $0, score: Self.score($0)) }
    }
    for d in byScore(drafts, \.score) {
      if let p = d.recipe.finished(d.draft, for: analysis) {
        return Candidate(recipe: d.recipe, proposal: p, score: d.score)
      }
    }
    return nil
  }

  /// Renders the measuring copy with `config`.
  func render(_ config: EditConfig) -> Image {
    Self.render(config, on: measureCopy, renderScale: renderScale)
  }

  /// `image` rendered with `config` on every core, with the small table a measurement needs.
  /// The candidates are measured one after another, and `topSuggestion` measures its fix when
  /// the analysis is done: on one thread the other core sat idle.
  static func render(_ config: EditConfig, on image: Image, renderScale: Double) -> Image {
    var options = RenderOptions()
    options.lutSize = 17
    let plan = RenderPlan(
      config, sourceSize: image.size, renderScale: renderScale, includesGeometry: false,
      options: options)
    return plan.render(image)
  }

  /// `c` with its visible change measured: on the detail crop for a detail-only recipe (no Lab
  /// kept then: its small render is the unedited copy's, so it would pass for a duplicate of
  /// every recipe near the photo), else on the small copy, or, when the recipe also sharpens or
  /// reduces noise (Enhance or Brighten on a grainy photo), the larger of that and the change
  /// its sharpening and noise reduction alone make to the detail crop.
  ///
  /// A cast correction counts the larger of its change over the whole copy and over the
  /// subject: ΔE*ab shrinks with lightness, so in a dark frame (a night shop front) the mean
  /// dilutes a cast that moves a lit face's hue by 12°, and the correction was judged to barely
  /// change the photo. Only for the corrections that remove a cast: the subject of a dark frame
  /// is often its light (the moon in a black sky), where judging an exposure change would let
  /// through a brighten that blows it, and a style's white balance is taste, not a fix.
  func measured(_ c: Candidate) -> Candidate {
    var c = c
    let config = c.proposal.config
    if Self.isDetailOnly(config), let detail {
      c.change = Self.change(of: config, on: detail, atEdges: Self.sharpensOnly(config))
      return c
    }
    let lab = LabPixels(render(config))
    c.change = lab.meanDifference(to: original)
    if c.proposal.correctsCast && c.recipe.kind == .correction {
      c.change = max(
        c.change,
        lab.meanDifference(to: original, width: measureCopy.width, in: analysis.subject.region))
    }
    c.lab = lab
    if let detail, let part = Self.pixelScalePart(of: config) {
      c.change = max(c.change, Self.change(of: part, on: detail))
    }
    return c
  }

  /// The sharpening and noise reduction of `config` (the settings that work at the scale of
  /// single pixels), or nil when it has neither.
  static func pixelScalePart(of config: EditConfig) -> EditConfig? {
    let part = config.properties.filter { $0.key == .sharpness || $0.key == .noiseReduction }
    return part.values.contains { $0 != 0 } ? EditConfig(properties: part) : nil
  }

  /// Share of the detail crop a sharpening is judged on: its most changed pixels
  /// (``LabPixels/meanDifference(to:largestShare:)``).
  ///
  /// Sharpening changes edges and leaves flat areas alone, and a blurred photo has few edges
  /// left, so over the whole crop its change read as next to nothing: Crisp on the harness's
  /// copies blurred by σ 1 and 2 px changed them by a mean of 0.03–1.6 ΔE*ab, and was never
  /// offered, not even on photos measured soft. On the most changed tenth it reads what the
  /// eye sees at the edges.
  static let sharpenedShare = 0.1

  /// Whether `config` sharpens without reducing noise (Crisp): its change is judged where it
  /// shows (``sharpenedShare``).
  static func sharpensOnly(_ config: EditConfig) -> Bool {
    config.value(of: .sharpness) > 0 && config.value(of: .noiseReduction) == 0
  }

  /// Mean ΔE*ab of `config` rendered at full scale on the detail crop, over all of it or, for
  /// a sharpening (`atEdges`), over the part it changes most (never less than the whole
  /// crop's mean, so that mean is not taken too).
  static func change(
    of config: EditConfig, on detail: (crop: Image, original: LabPixels), atEdges: Bool = false
  ) -> Double {
    let rendered = LabPixels(render(config, on: detail.crop, renderScale: 1))
    return atEdges
      ? rendered.meanDifference(to: detail.original, largestShare: sharpenedShare)
      : rendered.meanDifference(to: detail.original)
  }

  /// Whether measuring `config` needs the detail crop (see ``measured(_:)``).
  static func needsDetailCrop(_ config: EditConfig) -> Bool {
    isDetailOnly(config) || pixelScalePart(of: config) != nil
  }

  /// The best-ranked candidate when it is a fix that visibly changes the photo; nil when it is
  /// not a fix or barely changes the photo. Only a fix is rendered and measured, on `measuring`
  /// (made beside the analysis, see ``SuggestionEngine``).
  static func top(
    analysis: PhotoAnalysis, disabled: Set<String>, measuring: MeasuringCopy,
    detailCrop: () -> Image? = { nil }
  ) -> Candidate? {
    guard
      let first = firstProposal(
        for: analysis, from: Recipe.all.filter { $0.kind != .theme }, disabled: disabled),
      isFix(first.proposal)
    else { return nil }
    let ranker = SuggestionRanker(
      analysis: analysis, measuring: measuring,
      detailCrop: needsDetailCrop(first.proposal.config) ? detailCrop() : nil)
    guard let m = ranker.vetted(ranker.measured(first), disabled: disabled) else { return nil }
    return improves(m) ? m : nil
  }

  /// Enhance without the parts that would visibly change the photo but are not needed enough
  /// to be applied on their own, when another part is: `c` itself for any other candidate,
  /// for an Enhance none of whose parts passes ``improves(_:)`` alone (two mild defects fixed
  /// together are judged together) or none of whose failing parts changes the photo by
  /// ``minimumTopChange`` alone, and for a veiled photo's (its parts are sized together).
  /// Otherwise the Enhance of the parts left, the part left when only one is (it must pass
  /// alone), or nil when the parts left are disabled.
  ///
  /// Enhance needs as much as its neediest part, so without this a part the photo only mildly
  /// asks for rode along with a clear one: a dark shop that is good as it is (Brighten 0.4 EV
  /// at need 0.3, below the gain bar) was brightened by 0.4 EV whenever a cast was also
  /// removed. A part too small to show alone (under ``minimumTopChange``) still comes along:
  /// a mild tint fix beside a portrait's brightening is no visible change the photo did not
  /// ask for. Over the harness's 512 cast copies of the 64 shared photos outside `dev`, five
  /// lost such a brightening (ΔE2000 from the photo 1.6–3.0 → 0.3–1.6) and two lost a tint fix
  /// that changed them visibly (6.3 → 7.0 and 11.4 → 12.0, both photos already mis-exposed by
  /// their other part); no copy of `dev` changed.
  ///
  /// `measuredAlone` holds parts already measured on their own (the list's own candidates, by
  /// recipe id); the others are measured here.
  func vetted(
    _ c: Candidate, disabled: Set<String>, measuredAlone: [String: Candidate] = [:]
  ) -> Candidate? {
    let ids = c.proposal.parts
    guard c.recipe.id == Recipe.enhance.id, !ids.contains(Recipe.punch.id) else { return c }
    let alone = ids.compactMap { id -> Candidate? in
      if let m = measuredAlone[id] { return m }
      guard let r = Recipe.named(id), let p = r.proposal(for: analysis) else { return nil }
      return measured(Candidate(recipe: r, proposal: p, score: Self.score(p)))
    }
    guard alone.contains(where: Self.improves) else { return c }
    let unjustified = alone.filter { !Self.improves($0) && $0.change >= Self.minimumTopChange }
    guard !unjustified.isEmpty else { return c }
    let kept = alone.filter { a in
      !unjustified.contains { $0.recipe.id == a.recipe.id } && !disabled.contains(a.recipe.id)
    }
    if kept.count <= 1 { return kept.first.flatMap { Self.improves($0) ? $0 : nil } }
    let recipe = Recipe.enhance(keeping: Set(kept.map(\.recipe.id)))
    guard let p = recipe.proposal(for: analysis) else { return nil }
    return measured(Candidate(recipe: recipe, proposal: p, score: Self.score(p)))
  }

  /// Whether the measured candidate `c` is an edit to apply unasked: a fix that changes the
  /// photo by at least ``minimumTopChange``, and, unless it only works on detail, by at least
  /// ``minimumTopGain`` once weighted by its need.
  ///
  /// The weighting keeps good photos as they are where a weak reading asks for a small edit.
  /// On 59 shared photos outside `dev`, given as the harness gives them (no EXIF), the top fix
  /// of 22 changed them by 2 ΔE*ab or more; six of those had a need of 0.2–0.45 and a change
  /// of 2.2–4.4 (night photos brightened by 0.3–0.4 stop, Punch on a party and a page,
  /// a blue-grey sky cooled), and are left alone now. Over the harness's 1,416 degraded copies
  /// of the same photos and 360 of `dev`, the fixes it drops gained as much as they lost
  /// (mean ΔE2000 per family within 3 points). A detail-only fix (Clean Up) is measured on a
  /// crop at 100 %, whose ΔE is not on the same scale: there a small need is little grain, and
  /// each of the five mild noise copies the weighting would have left gained 2.0–2.8 ΔE2000
  /// from it: it keeps the plain bar. A sharpening (Crisp) does not: its change is read where
  /// it shows (``sharpenedShare``), on the same scale as a whole photo's, and a photo that
  /// barely measures soft (a flower bed whose subject reads just past the soft fall-off) is
  /// not sharpened unasked.
  ///
  /// The exact inverse of a defect read from its own signature (``RecipeProposal/isExactInverse``)
  /// starts at ``minimumExactChange``: a mild crush of a pale photo takes little from it, so
  /// its inverse changes the measuring copy by less than ``minimumTopChange`` and was left
  /// unapplied (the harness's 0.05 crush of a nuthatch before a light background: 1.79
  /// ΔE2000 from the photo as given, 0.50 after the inverse). Of the 102 shared photos none
  /// has its edit changed by it, nor has any of the harness's untouched or crushed copies of
  /// the 64 outside `dev`.
  static func improves(_ c: Candidate) -> Bool {
    let bar = c.proposal.isExactInverse ? minimumExactChange : minimumTopChange
    guard isFix(c.proposal), c.change >= bar else { return false }
    let plainBar = isDetailOnly(c.proposal.config) && !sharpensOnly(c.proposal.config)
    return plainBar || c.change * c.proposal.need >= minimumTopGain
  }

  /// Every visible candidate among `recipes`, ordered: by score, near-duplicates of a better one
  /// moved behind the rest. `isCancelled` is polled between renders; returns nil when it fires.
  func ranked(
    _ recipes: [Recipe], disabled: Set<String>, isCancelled: () -> Bool
  ) -> [Candidate]? {
    var all: [Candidate] = []
    for c in Self.proposals(for: analysis, from: recipes, disabled: disabled) {
      if isCancelled() { return nil }
      all.append(measured(c))
    }
    // Enhance's parts are in the list on their own, already measured.
    let byID = Dictionary(all.map { ($0.recipe.id, $0) }, uniquingKeysWith: { first, _ in first })
    var visible: [Candidate] = []
    for c in all {
      // An Enhance reduced to one part is that part, which has its own place in the list.
      guard let m = vetted(c, disabled: disabled, measuredAlone: byID), m.recipe.id == c.recipe.id
      else { continue }
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

/// The photo at ``SuggestionRanker/measureLongEdge`` and its Lab pixels: what every candidate's
/// render is compared with.
struct MeasuringCopy: Sendable {
  let image: Image
  let lab: LabPixels

  /// `image` as it is, with its Lab pixels.
  init(_ image: Image) {
    self.image = image
    lab = LabPixels(image)
  }

  /// The measuring copy of `small`, the analysis copy (``BoxReduction``).
  init(of small: Image) {
    self.init(BoxReduction.rgb8(small, toFitLongEdge: SuggestionRanker.measureLongEdge))
  }
}
