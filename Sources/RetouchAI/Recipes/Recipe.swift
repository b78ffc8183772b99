// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchRender

/// One named edit Retouch can suggest: a correction, a style or a theme, sized to each photo.
///
/// A recipe turns a ``PhotoAnalysis`` into an ordinary ``EditConfig`` (nil when it does not apply
/// to the photo: Warm Up on a photo without a cool cast, Crisp on a sharp one). The config is
/// complete: the shared rules (skin kept natural, dark faces lifted, blurred central faces
/// sharpened, grain kept down on night and overexposed photos) are already in it. Values are
/// deterministic functions of the analysis.
public struct Recipe: Sendable, Identifiable, Hashable {
  /// Stable id, also the suggestion's `lookID` ("brighten", "vivid", "noir"…).
  public let id: String
  public let title: LocalizedText
  /// SF Symbols name.
  public let symbolName: String
  public let kind: EditSuggestion.Kind
  let propose: @Sendable (PhotoAnalysis) -> RecipeProposal?

  init(
    _ id: String, _ title: LocalizedText, symbol: String, kind: EditSuggestion.Kind,
    propose: @escaping @Sendable (PhotoAnalysis) -> RecipeProposal?
  ) {
    self.id = id
    self.title = title
    self.symbolName = symbol
    self.kind = kind
    self.propose = propose
  }

  /// The edit this recipe makes of the analysed photo, or nil when it does not apply.
  ///
  /// Cost: a few transform compilations for the skin check on photos with faces (well under a
  /// millisecond each); no pixels are touched.
  public func config(for analysis: PhotoAnalysis) -> EditConfig? {
    proposal(for: analysis)?.config
  }

  /// The proposal with the shared rules applied. A graphic (``PictureKind/graphic``) has no
  /// defect to fix, its brightness and colours being what its maker chose: it gets no
  /// correction, and a style is only a matter of taste there (need 0), never applied unasked.
  func proposal(for analysis: PhotoAnalysis) -> RecipeProposal? {
    draft(for: analysis).flatMap { finished($0, for: analysis) }
  }

  /// The proposal before the shared rules: its need, appeal and rank bonus (what ranking
  /// scores) are final, its edit not yet. Nil when the recipe does not apply.
  func draft(for analysis: PhotoAnalysis) -> RecipeProposal? {
    let graphic = analysis.kind == .graphic
    guard kind != .correction || !graphic else { return nil }
    guard var p = propose(analysis) else { return nil }
    if graphic { p.need = 0 }
    return p
  }

  /// `draft` with the shared rules (``RecipeRules``) applied to its edit; nil when they leave
  /// nothing to change.
  func finished(_ draft: RecipeProposal, for analysis: PhotoAnalysis) -> RecipeProposal? {
    var p = draft
    p.config = RecipeRules.adjust(p.config, recipe: self, analysis: analysis)
    return p.config.hasEdits ? p : nil
  }

  public static func == (a: Recipe, b: Recipe) -> Bool { a.id == b.id }
  public func hash(into hasher: inout Hasher) { hasher.combine(id) }

  /// Every recipe: corrections, then styles, then themes, in a fixed order (ties in ranking
  /// keep it).
  public static let all: [Recipe] = corrections + [enhance] + styles + themes

  /// The recipe with this id.
  public static func named(_ id: String) -> Recipe? { all.first { $0.id == id } }
}

/// What a recipe proposes for one photo: the edit, and how much the photo calls for it.
struct RecipeProposal: Sendable {
  var config: EditConfig
  /// How clearly the photo needs this (0...1): a measured defect's size for corrections, a
  /// measured lack (flatness, dull colour) for styles that fix one; 0 for pure taste.
  var need: Double
  /// A taste prior for ordering the styles that no measurement asks for (0...0.3).
  var appeal: Double = 0
  /// True when the edit removes a measured colour cast: its white-balance move is meant to
  /// change skin colour back, so skin protection leaves temperature and tint alone.
  var correctsCast = false
  /// Added to the ranking score: Enhance, which fixes several things at once, ranks above each
  /// of its parts.
  var rankBonus = 0.0
  /// True when the edit is the exact inverse of a defect read from its own signature (a
  /// crushed black point from the clip it leaves at code 0), not sized from a statistic that
  /// good photos also show. Such an edit is applied unasked from a smaller change
  /// (``SuggestionRanker/minimumExactChange``).
  var isExactInverse = false
  /// The ids of the recipes a combined edit (Enhance) is made of; empty for a single recipe.
  var parts: [String] = []
}

extension PhotoAnalysis {
  /// L* (0...100) at percentile 1, 5, 25, 50, 75, 95 or 99 (other values use the nearest).
  func lightness(percentile: Int) -> Double {
    let keys = ExposureAnalysis.percentileKeys
    let ps = exposure.lightnessPercentiles
    guard !ps.isEmpty else { return 50 }
    let i =
      keys.enumerated().min { abs($0.element - percentile) < abs($1.element - percentile) }?
      .offset ?? 0
    return ps[min(i, ps.count - 1)]
  }

  /// L* at a percentile as it will be once a measured underexposure is undone: the linear
  /// luminance times `2^suggestedEV` when that is positive (Brighten's move), else as measured.
  /// A black level judged on an underexposed copy would read as the scene's.
  func lightnessOnceExposed(percentile: Int) -> Double {
    exposure.lightnessOnceExposed(lightness(percentile: percentile))
  }

  /// Mean chroma (C*ab) under which a photo has no colour to speak of (``isMonochrome``). A
  /// black-and-white photo decodes to exactly 0 (the shared set's six: a historical portrait,
  /// two depth maps, a fog pier, an airliner at a gate, a press photo); the most neutral colour
  /// photo lit over most of its frame, a bird under a white sky, measures 1.5.
  static let monochromeChroma = 1.0
  /// Median L* from which a frame is lit enough for its mean chroma to say it has no colour: a
  /// colour photo that is mostly black has as little (the moon, 0.65; a black frame, 0.43).
  /// A darker frame counts only when not one pixel has any colour (``ColorAnalysis/hueShares``
  /// all 0), as in a low-key black-and-white photo.
  static let monochromeMedianLightness = 15.0

  /// A black-and-white photo (``monochromeChroma``, ``monochromeMedianLightness``): it has no
  /// cast to remove and no colour to boost, and an edit that moves white balance or split-tones
  /// would colour it.
  var isMonochrome: Bool {
    guard color.meanChroma < Self.monochromeChroma else { return false }
    return lightness(percentile: 50) >= Self.monochromeMedianLightness
      || color.hueShares.allSatisfy { $0 == 0 }
  }

  /// Faces whose skin colour can be trusted (not lit by coloured light).
  var naturallyLitFaces: [FaceObservation] { faces.filter { !$0.hasColoredLighting } }

  /// Night or overexposed: grain shows, so recipes that amplify it add noise reduction.
  var grainIsExposed: Bool {
    exposure.isDarkOnPurpose || exposure.highlightClipping > 0.08
      || (capture.iso ?? 0) >= 1600 || (noise?.sigma ?? 0) > 3
  }

  /// Score of one scene, 0 when not measured.
  func score(_ scene: Scene) -> Double { sceneScores[scene] ?? 0 }
}

/// Small numeric helpers for recipe sizing.
enum Sizing {
  /// `(x − lo) / (hi − lo)` clamped to 0...1.
  static func ramp(_ x: Double, from lo: Double, to hi: Double) -> Double {
    guard hi != lo else { return x >= hi ? 1 : 0 }
    return min(max((x - lo) / (hi - lo), 0), 1)
  }

  static func clamp(_ x: Double, _ lo: Double, _ hi: Double) -> Double { min(max(x, lo), hi) }

  /// Rounds to two decimals (slider steps are 0.01), so configs read cleanly as JSON.
  static func step(_ x: Double) -> Double { (x * 100).rounded() / 100 }
}

extension ExposureAnalysis {
  /// The percentiles ``lightnessPercentiles`` holds, in its order.
  static let percentileKeys = [1, 5, 25, 50, 75, 95, 99]

  /// How backlit the photo is with the light in frame (0...1): the brightest percent 35–50 L*
  /// above the median (sun, sky or lamps in the picture); 0 without percentiles.
  ///
  /// Both are read as they will be once a measured underexposure is undone
  /// (``lightnessOnceExposed(_:)``). A stop spans more L* near white than in the mid-tones, so
  /// less light narrows the gap: a sunset over water given 0.7, 1.3 and 2 EV too little read
  /// 37, 32 and 27 L* instead of its own 43, lost the doubt its warm light puts on the colour
  /// estimate, and was cooled by about 0.6 along with the brightening (ΔE2000 12.5–13.3 from
  /// the photo; 0.4–0.6 now). On the harness's 70 photos outside `dev`, the under family went
  /// from 23.1 % to 21.5 % of its input ΔE2000. It cost the under + warm pair of daylight
  /// photos under a bright sky, until the daylight test read their median the same way
  /// (``ColorMeasurement/backlitByShownLight(_:highlightWarmth:)``; `dev` 27.4 % → 28.4 % →
  /// 27.7 %).
  var backlit: Double {
    let p = lightnessPercentilesOnceExposed
    return p.count == 7 ? ExposureMeasurement.smoothstep(35, 50, p[6] - p[3]) : 0
  }

  /// ``lightnessPercentiles`` as they will be once a measured underexposure is undone
  /// (``lightnessOnceExposed(_:)``): what the rules that judge the scene by its tones read.
  var lightnessPercentilesOnceExposed: [Double] {
    lightnessPercentiles.map(lightnessOnceExposed)
  }

  /// L* from the darkest to the brightest percent (0 without percentiles).
  var lightnessSpan: Double {
    let p = lightnessPercentiles
    return p.count == 7 ? p[6] - p[0] : 0
  }

  /// How clearly the frame is made mostly of its own brightest material (snow, a white wall, a
  /// pale sky), 0...1: its median is bright (L* 72–80 and up), or sits in the top eighth of the
  /// span from its darkest to its brightest percent whatever the exposure (the median 78–86 %
  /// of the way up). Lifting blacks keeps white where it is, so a lifted photo keeps that
  /// span's proportions (medians 55–70 % up on the shared set), while underexposed snow keeps
  /// its median near its whites (89 % up at −0.7, −1.3 and −2 EV) with both far below white;
  /// pulling its blacks down would only darken it further.
  var brightDominated: Double {
    max(brightMedian, medianNearTop)
  }

  /// The part of ``brightDominated`` read from the median alone: L* 72–80 and up, 0...1.
  var brightMedian: Double {
    let p = lightnessPercentiles
    return p.count == 7 ? Sizing.ramp(p[3], from: 72, to: 80) : 0
  }

  /// The part of ``brightDominated`` that holds whatever the exposure and the black level: the
  /// median in the top eighth of the span from the darkest to the brightest percent (78–86 %
  /// of the way up), 0...1. A bright median alone also shows a veil over an overexposed photo
  /// (four of the harness's over + haze copies of `dev` photos: medians L* 80–86, 48–61 % up
  /// the span).
  var medianNearTop: Double {
    let p = lightnessPercentiles
    guard p.count == 7 else { return 0 }
    let span = lightnessSpan
    let position = span > 10 ? (p[3] - p[0]) / span : 0
    return Sizing.ramp(position, from: 0.78, to: 0.86)
  }

  /// L* `l` as it will be once a measured underexposure is undone: its linear luminance times
  /// `2^suggestedEV` when that is positive (Brighten's move), else `l` as measured.
  func lightnessOnceExposed(_ l: Double) -> Double {
    guard suggestedEV > 0 else { return l }
    return min(
      100, PixelStatistics.lightness(ToneFit.luminance(lightness: l) * pow(2, suggestedEV)))
  }
}
