// SPDX-License-Identifier: Apache-2.0

import RetouchRender

/// The recipes' own limits, applied again after learning has moved a suggestion's config: skin
/// keeps its natural hue and saturation (unless the recipe removes a colour cast), grain the
/// edit would expose gets noise reduction, and an edit that no longer visibly changes the photo
/// is not offered in its learned form.
struct RecipeLimits: LearnedEditLimiting {
  let analysis: PhotoAnalysis
  let ranker: SuggestionRanker

  func limited(_ config: EditConfig, for suggestion: EditSuggestion) -> EditConfig? {
    guard let recipe = Recipe.named(suggestion.lookID) else { return nil }
    var c = config
    if recipe.kind != .theme {
      c = RecipeRules.protectSkin(c, recipe: recipe, analysis: analysis)
    }
    c = RecipeRules.limitGrain(c, recipe: recipe, analysis: analysis)
    let change = LabPixels(ranker.render(c)).meanDifference(to: ranker.original)
    return change >= SuggestionRanker.minimumChange ? c : nil
  }
}
