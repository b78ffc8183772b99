// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchIO
import RetouchRender

/// Measures photos and proposes edits. A value type with no shared mutable state: safe to use
/// from any task.
///
/// Both entry points measure the photo on a small upright copy (``PhotoAnalyzer``), size every
/// ``Recipe`` to it, and rank them (corrections the photo needs first; see
/// `SuggestionRanker`), judging how visibly each would change the photo by rendering a 160 px
/// copy with it. The same image, metadata and options give the same result, bit for bit.
///
/// Learning is opt-in: an engine made with ``init(learning:)`` adapts the order and values of its
/// suggestions to the user's past exports of similar photos (``LearningAdjuster``); ``init()``
/// uses no records, so a library user's suggestions never depend on a file they did not ask for.
public struct SuggestionEngine: Sendable {
  /// The records suggestions adapt to (empty: no learning).
  public let learningRecords: [LearningRecord]
  /// The store the records came from, nil without learning.
  public let learningStore: LearningStore?
  /// The warning of reading the store (a corrupt or foreign file set aside), nil when it read
  /// cleanly.
  public let learningWarning: String?

  /// An engine without learning.
  public init() {
    learningRecords = []
    learningStore = nil
    learningWarning = nil
  }

  /// An engine that learns from `store`'s records, read once now. A corrupt or foreign file is
  /// set aside (see ``learningWarning``) and the engine starts with no records.
  public init(learning store: LearningStore) {
    let contents = store.load()
    learningRecords = contents.records
    learningStore = store
    learningWarning = contents.warning
  }

  /// An engine that adapts to `records` (tests, or callers that keep records themselves).
  public init(learningRecords: [LearningRecord]) {
    self.learningRecords = learningRecords
    learningStore = nil
    learningWarning = nil
  }

  /// The number of exports the engine learned from.
  public var learnedEditCount: Int { learningRecords.count }

  /// Forgets everything learned: empties the store (if any). Engines made before keep their
  /// records; make a new one.
  /// - Throws: ``LearningStoreError`` when the file cannot be removed.
  public func resetLearnedPreferences() throws(LearningStoreError) {
    try learningStore?.reset()
  }

  /// Warms whatever is slow the first time (analysis tables, the white-balance slider tables,
  /// face detector set-up, the renderer's code paths) on a background task; returns at once, and
  /// calling it again does nothing.
  public static func prewarm() {
    _ = warmUp
  }

  private static let warmUp: Task<Void, Never> = Task.detached(priority: .utility) {
    PhotoAnalyzer.prewarm()
    _ = WhiteBalanceSliders.shared
    // Two colours with a little grain, so that it is a photograph (two flat fills would be a
    // graphic, which gets no correction) and every recipe's path is taken.
    var image = Image(width: 96, height: 64, format: .rgb8)
    for y in 0..<64 {
      for x in 0..<96 {
        let grain = (x &* 7 &+ y &* 13) % 5 - 2
        let base = x < 48 ? [60, 50, 40] : [170, 180, 200]
        image.setPixel(x: x, y: y, base.map { $0 + grain })
      }
    }
    _ = SuggestionEngine().rankedSuggestions(
      for: image, metadata: nil, options: SuggestionOptions(includeThemes: true),
      measureNoise: true, isCancelled: { false })
  }

  /// The one best edit, or nil when the photo is good as it is: the best-ranked recipe is not a
  /// fix for something measured, or it would barely change the photo (mean ΔE*ab under 2 on a
  /// small copy; on a full-resolution crop of the subject for a detail recipe such as Crisp).
  /// Nil too for a screenshot, page or drawing (``PictureKind/graphic``): nothing in it is a
  /// defect to fix.
  ///
  /// Never crops or rotates, and does not measure grain (so it never returns Clean Up; see
  /// ``autoEdit(for:metadata:disabledLooks:)``). Cost: the analysis of a ~512 px copy plus one
  /// small render (a few milliseconds after ``prewarm()``, plus face detection), and the copy
  /// itself for a large photo.
  /// - Parameter image: the upright photo at any size.
  public func topSuggestion(
    for image: Image, metadata: PhotoMetadata? = nil, disabledLooks: Set<String> = []
  ) -> EditConfig? {
    top(for: image, metadata: metadata, disabledLooks: disabledLooks, measureNoise: false).config
  }

  /// ``topSuggestion(for:metadata:disabledLooks:)`` with the grain measured at full resolution,
  /// as ``suggestions(for:metadata:options:)`` measures it: the edit `retouch auto` applies.
  /// A photo whose suggestions lead with Clean Up gets it here, where `topSuggestion` (which
  /// skips the full-resolution pass to stay within a few milliseconds) would leave it alone.
  ///
  /// Cost: ``topSuggestion(for:metadata:disabledLooks:)`` plus the grain measurement (a pass
  /// over flat regions of the full photo).
  public func autoEdit(
    for image: Image, metadata: PhotoMetadata? = nil, disabledLooks: Set<String> = []
  ) -> EditConfig? {
    autoEditResult(for: image, metadata: metadata, disabledLooks: disabledLooks).config
  }

  /// ``autoEdit(for:metadata:disabledLooks:)`` together with the analysis it was chosen on, for
  /// callers that say why a photo was left alone (a graphic, ``PictureKind/graphic``, gets no
  /// correction).
  public func autoEditResult(
    for image: Image, metadata: PhotoMetadata? = nil, disabledLooks: Set<String> = []
  ) -> (config: EditConfig?, analysis: PhotoAnalysis) {
    top(for: image, metadata: metadata, disabledLooks: disabledLooks, measureNoise: true)
  }

  private func top(
    for image: Image, metadata: PhotoMetadata?, disabledLooks: Set<String>, measureNoise: Bool
  ) -> (config: EditConfig?, analysis: PhotoAnalysis) {
    let analyzer = PhotoAnalyzer()
    let photo = PhotoAnalyzer.measurable(image)
    let small = PhotoAnalyzer.analysisCopy(of: photo)
    // The measuring copy is made beside the analysis's last stage whether or not a fix will be
    // measured on it: there it costs no time, after the analysis ~0.7 ms.
    let (analysis, measuring) = analyzer.analyze(
      photo, copy: small, metadata: metadata, measureNoise: measureNoise,
      alongside: { MeasuringCopy(of: small) })
    let config = SuggestionRanker.top(
      analysis: analysis, disabled: disabledLooks, measuring: measuring,
      detailCrop: { SuggestionRanker.detailCrop(of: photo, around: analysis.subject.region) }
    )?.proposal.config
    return (config, analysis)
  }

  /// Up to `options.maxSuggestions` suggestions, best first, then the themes when asked for.
  ///
  /// - Original (no edit) leads when `offerOriginal` is set and nothing improves the photo; it
  ///   counts toward the limit.
  /// - A smaller limit returns the first suggestions of the same list, in the same order.
  /// - Themes come after the others, outside the limit, ranked among themselves; they never
  ///   change which others are offered or their order.
  /// - Recipes in `disabledLooks` are never offered.
  /// - Cancelling the calling task stops at the next stage (analysis, each measuring render,
  ///   each thumbnail) and returns an empty list.
  ///
  /// Cost: the analysis (grain at full resolution included), one 160 px render per applicable
  /// recipe, one thumbnail render per suggestion.
  public func suggestions(
    for image: Image, metadata: PhotoMetadata? = nil, options: SuggestionOptions = .init()
  ) async -> [EditSuggestion] {
    await suggestionResult(for: image, metadata: metadata, options: options).suggestions
  }

  /// ``suggestions(for:metadata:options:)`` together with the analysis they were ranked on, for
  /// callers that keep it (the editing session records it for learning) instead of measuring the
  /// photo again.
  public func suggestionResult(
    for image: Image, metadata: PhotoMetadata? = nil, options: SuggestionOptions = .init()
  ) async -> SuggestionResult {
    suggestionResult(
      for: image, metadata: metadata, options: options, isCancelled: { Task.isCancelled })
  }

  /// ``suggestions(for:metadata:options:)`` for callers that are not async (command-line tools,
  /// benchmarks): `isCancelled` is polled between stages instead of the task's cancellation.
  public func suggestions(
    for image: Image, metadata: PhotoMetadata? = nil, options: SuggestionOptions = .init(),
    isCancelled: () -> Bool
  ) -> [EditSuggestion] {
    suggestionResult(
      for: image, metadata: metadata, options: options, isCancelled: isCancelled
    ).suggestions
  }

  /// ``suggestions(for:metadata:options:isCancelled:)`` together with the analysis they were
  /// ranked on, for tools that also say what kind of picture it is.
  public func suggestionResult(
    for image: Image, metadata: PhotoMetadata? = nil, options: SuggestionOptions = .init(),
    isCancelled: () -> Bool
  ) -> SuggestionResult {
    rankedSuggestions(
      for: image, metadata: metadata, options: options, measureNoise: true,
      isCancelled: isCancelled)
  }

  /// The analysis the suggestions are based on (grain included), for tools that show it.
  public func analysis(of image: Image, metadata: PhotoMetadata? = nil) -> PhotoAnalysis {
    PhotoAnalyzer().analyze(image, metadata: metadata, measureNoise: true)
  }

  func rankedSuggestions(
    for image: Image, metadata: PhotoMetadata?, options: SuggestionOptions, measureNoise: Bool,
    isCancelled: () -> Bool
  ) -> SuggestionResult {
    if isCancelled() { return SuggestionResult([]) }
    let analyzer = PhotoAnalyzer()
    let photo = PhotoAnalyzer.measurable(image)
    let small = PhotoAnalyzer.analysisCopy(of: photo)
    let (analysis, measuring) = analyzer.analyze(
      photo, copy: small, metadata: metadata, measureNoise: measureNoise,
      alongside: { MeasuringCopy(of: small) })
    if isCancelled() { return SuggestionResult([]) }
    let ranker = SuggestionRanker(
      analysis: analysis, measuring: measuring,
      detailCrop: SuggestionRanker.detailCrop(of: photo, around: analysis.subject.region))
    let disabled = options.disabledLooks
    guard
      let ranked = ranker.ranked(
        Recipe.all.filter { $0.kind != .theme }, disabled: disabled, isCancelled: isCancelled)
    else { return SuggestionResult([]) }

    var picks: [(Recipe?, EditConfig, Double)] = []
    let improves = ranked.first.map(SuggestionRanker.improves) ?? false
    if options.offerOriginal && !improves && !disabled.contains(Self.originalID) {
      picks.append((nil, .neutral, 0))
    }
    for c in learned(ranked, analysis: analysis, ranker: ranker) {
      picks.append((c.recipe, c.config, c.score))
    }
    picks = Array(picks.prefix(max(1, options.maxSuggestions)))
    if options.includeThemes {
      guard
        let themes = ranker.ranked(
          Recipe.themes, disabled: disabled, isCancelled: isCancelled)
      else { return SuggestionResult([]) }
      for c in themes { picks.append((c.recipe, c.proposal.config, c.score)) }
    }

    let thumbnailBase = Self.thumbnailBase(
      image: image, small: small, maxDimension: options.thumbnailMaxDimension)
    var out: [EditSuggestion] = []
    for (recipe, config, score) in picks {
      if isCancelled() { return SuggestionResult([]) }
      let thumbnail = thumbnailBase.map { base -> Image in
        guard config.hasEdits else { return base }
        let scale = Double(base.size.longEdge) / Double(max(image.size.longEdge, 1))
        return base.applyingEditConfig(config, renderScale: min(scale, 1))
      }
      if let recipe {
        out.append(
          EditSuggestion(
            lookID: recipe.id, title: recipe.title, symbolName: recipe.symbolName,
            kind: recipe.kind, config: config, thumbnail: thumbnail, score: score))
      } else {
        out.append(
          EditSuggestion(
            lookID: Self.originalID, title: LocalizedText("Original", zh: "原图"),
            symbolName: "photo", kind: .original, config: .neutral, thumbnail: thumbnail,
            score: 0))
      }
    }
    return isCancelled() ? SuggestionResult([]) : SuggestionResult(out, analysis: analysis)
  }

  /// `ranked` in the order and with the configs learning gives them (unchanged without records
  /// or with too few records of similar photos).
  func learned(
    _ ranked: [SuggestionRanker.Candidate], analysis: PhotoAnalysis, ranker: SuggestionRanker
  ) -> [(recipe: Recipe, config: EditConfig, score: Double)] {
    let plain = ranked.map { (recipe: $0.recipe, config: $0.proposal.config, score: $0.score) }
    guard !learningRecords.isEmpty else { return plain }
    let list = plain.map {
      EditSuggestion(
        lookID: $0.recipe.id, title: $0.recipe.title, symbolName: $0.recipe.symbolName,
        kind: $0.recipe.kind, config: $0.config, thumbnail: nil, score: $0.score)
    }
    let adjustment = LearningAdjuster(records: learningRecords).adjusted(
      list, for: PhotoSummary(analysis: analysis),
      limits: RecipeLimits(analysis: analysis, ranker: ranker))
    return adjustment.suggestions.compactMap { s in
      Recipe.named(s.lookID).map { (recipe: $0, config: s.config, score: s.score) }
    }
  }

  /// The `lookID` of the Original suggestion.
  public static let originalID = "original"

  /// The unedited thumbnail (long edge `maxDimension`), from the analysis copy when it is large
  /// enough, else from the photo; nil when thumbnails are off. A photo with alpha is shown as
  /// it is, transparent where it is: its analysis copy has no alpha, and its transparent
  /// pixels filled (``TransparentFill``).
  static func thumbnailBase(image: Image, small: Image, maxDimension: Int) -> Image? {
    guard maxDimension > 0 else { return nil }
    let fromCopy = small.size.longEdge >= maxDimension && !image.format.hasAlpha
    let source = fromCopy ? small : image
    return source.resized(toFitLongEdge: maxDimension)
  }
}
