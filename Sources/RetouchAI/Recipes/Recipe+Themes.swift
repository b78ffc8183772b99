// SPDX-License-Identifier: Apache-2.0

import RetouchCore
import RetouchRender

/// Themes restyle the photo; offered only on request, after everything else. They keep the
/// light right first (half the measured exposure shortfall), then apply their look.
extension Recipe {
  public static let themes: [Recipe] = [noir, film, sepia, cinematic]

  /// High-contrast black and white (the renderer's Noir look).
  public static let noir = Recipe(
    "noir", LocalizedText("Noir", zh: "黑白"), symbol: "circle.lefthalf.filled", kind: .theme
  ) { a in
    themeProposal(a, look: LookSelection(.noir), extra: [:])
  }

  /// Faded colour with a little grain, like print film.
  public static let film = Recipe(
    "film", LocalizedText("Film", zh: "胶片"), symbol: "film", kind: .theme
  ) { a in
    themeProposal(a, look: LookSelection(.fade, strength: 0.8), extra: [.grain: 0.12])
  }

  /// Warm brown monochrome (the renderer's Sepia look).
  public static let sepia = Recipe(
    "sepia", LocalizedText("Sepia", zh: "怀旧"), symbol: "camera.filters", kind: .theme
  ) { a in
    themeProposal(a, look: LookSelection(.sepia), extra: [:])
  }

  /// Teal shadows against warm tones, firmer contrast, a darker frame.
  public static let cinematic = Recipe(
    "cinematic", LocalizedText("Cinematic", zh: "电影"), symbol: "film.stack", kind: .theme
  ) { a in
    themeProposal(
      a, look: nil,
      extra: [
        .shadowWarmth: -0.45, .contrast: 0.2, .highlights: -0.15, .vignette: 0.3,
        .mixer(.orange, .saturation): 0.15, .mixer(.blue, .hue): -0.3,
        .mixer(.aqua, .saturation): 0.2, .saturation: -0.1,
      ])
  }

  static func themeProposal(
    _ a: PhotoAnalysis, look: LookSelection?, extra: [EditSettingType: Double]
  ) -> RecipeProposal {
    var p = extra
    let ev = a.exposure.suggestedEV
    if abs(ev) >= 0.3 { p[.exposure] = Sizing.step(Sizing.clamp(ev * 0.5, -1, 1)) }
    return RecipeProposal(config: EditConfig(properties: p, look: look), need: 0, appeal: 0.05)
  }
}

/// Enhance: every correction the photo needs, in one edit (offered when it needs two or more).
/// Once measured, a part that would visibly change the photo but is not needed enough to be
/// applied alone is taken out again beside one that is
/// (``SuggestionRanker/vetted(_:disabled:measuredAlone:)``).
extension Recipe {
  static let enhanceParts: [Recipe] = [
    brighten, darken, liftShadows, recoverHighlights, warmUp, coolDown, fixTint, cleanUp,
  ]

  public static let enhance = Recipe(
    "enhance", LocalizedText("Enhance", zh: "增强"), symbol: "wand.and.stars", kind: .correction
  ) { a in enhanceProposal(a, keeping: nil) }

  /// Enhance made of only the parts in `kept` (by recipe id): what remains when the ranker
  /// takes out parts the photo does not ask for on their own
  /// (``SuggestionRanker/vetted(_:disabled:measuredAlone:)``).
  static func enhance(keeping kept: Set<String>) -> Recipe {
    Recipe(enhance.id, enhance.title, symbol: enhance.symbolName, kind: .correction) { a in
      enhanceProposal(a, keeping: kept)
    }
  }

  /// The share of the colour estimate read from a veil (``ColorAnalysis/veilShare``) from
  /// which Enhance keeps a cast correction beside the veil's removal.
  static let castReadFromVeil = 0.5

  /// Enhance's proposal for `a`, made of the parts whose ids are in `kept` (all when nil).
  static func enhanceProposal(_ a: PhotoAnalysis, keeping kept: Set<String>?) -> RecipeProposal? {
    // Only what the photo needs: a part that is merely possible (a little blown sky) stays out.
    var parts = enhanceParts.compactMap { r in r.propose(a).map { (r.id, $0) } }
      .filter { SuggestionRanker.isFix($0.1) }
    // Exposure already moves what these would: after Brighten, blacks that were crushed by the
    // underexposure stay dark (lifting them would grey them); after Darken, highlights come
    // down with everything else.
    let ids = Set(parts.map(\.0))
    if ids.contains("brighten") { parts.removeAll { $0.0 == "lift-shadows" } }
    if ids.contains("darken") { parts.removeAll { $0.0 == "recover-highlights" } }
    // Warm Up and Cool Down already take the green–magenta part of the cast with them: Fix
    // Tint on top would remove it twice.
    if ids.contains("warm-up") || ids.contains("cool-down") {
      parts.removeAll { $0.0 == "fix-tint" }
    }
    if let veil = punch.propose(a), SuggestionRanker.isFix(veil) {
      // A veil of light dilutes the colour statistics and the exposure key: the veil fit's own
      // exposure stands, and a cast measured through the veil is not trusted unless the veil
      // itself showed it (``ColorAnalysis/veilShare``): its colour is the light's.
      let castRead = (a.color.veilShare ?? 0) >= Self.castReadFromVeil
      parts.removeAll {
        ["brighten", "darken"].contains($0.0)
          || (!castRead && ["warm-up", "cool-down", "fix-tint"].contains($0.0))
      }
      parts.append(("punch", veil))
    }
    if let kept { parts.removeAll { !kept.contains($0.0) } }
    let veiled = parts.contains { $0.0 == "punch" }
    guard parts.count >= 2 || veiled else { return nil }
    var config = EditConfig.neutral
    for (_, p) in parts { config = config.combined(with: p.config) }
    // The veil fit already chose the exposure that goes with removing the veil (a veiled photo
    // also measures too bright): its exposure replaces the sum.
    if let veil = parts.first(where: { $0.0 == "punch" })?.1 {
      config = config.setting(.exposure, to: veil.config.value(of: .exposure))
    }
    var clamped: [EditSettingType: Double] = [:]
    for (k, v) in config.properties { clamped[k] = k.setting.clamp(v) }
    return RecipeProposal(
      config: EditConfig(properties: clamped), need: parts.map(\.1.need).max() ?? 0,
      correctsCast: parts.contains { $0.1.correctsCast },
      rankBonus: 0.05 * Double(max(parts.count - 1, veiled ? 1 : 0)), parts: parts.map(\.0))
  }
}
