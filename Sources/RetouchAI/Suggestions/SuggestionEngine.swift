// SPDX-License-Identifier: Apache-2.0
// PLACEHOLDER — the API surface other modules build against; the recipes/ranking work replaces
// the bodies. Nothing here may ship as it is.

import RetouchCore
import RetouchIO
import RetouchRender

/// Measures photos and proposes edits. A value type with no shared mutable state: safe to use
/// from any task.
public struct SuggestionEngine: Sendable {
  public init() {}

  /// Warms whatever is slow the first time (face detector set-up, tables); returns at once, and
  /// calling it again does nothing.
  public static func prewarm() {}

  /// The one best edit, or nil when the best-ranked look would barely change the photo.
  /// - Parameter image: the upright photo at any size.
  public func topSuggestion(
    for image: Image, metadata: PhotoMetadata? = nil, disabledLooks: Set<String> = []
  ) -> EditConfig? {
    nil
  }

  /// Up to `options.maxSuggestions` suggestions, best first. Cancelling the calling task stops at
  /// the next stage and returns an empty list.
  public func suggestions(
    for image: Image, metadata: PhotoMetadata? = nil, options: SuggestionOptions = .init()
  ) async -> [EditSuggestion] {
    []
  }
}
