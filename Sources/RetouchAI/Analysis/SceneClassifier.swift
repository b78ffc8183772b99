// SPDX-License-Identifier: Apache-2.0
// PLACEHOLDER — the API surface the analyser builds against; the scene work replaces the body.

import RetouchCore

/// What a photo shows, from its pixels, faces and EXIF facts.
public enum SceneClassifier {
  /// A score in 0...1 for every scene.
  /// - Parameters:
  ///   - image: the small upright analysis copy.
  ///   - analysis: everything else already measured (its `sceneScores` are ignored).
  public static func scores(for image: Image, analysis: PhotoAnalysis) -> [Scene: Double] { [:] }

  /// The scene, or nil when no scene is clearly ahead.
  public static func classifyScene(_ analysis: PhotoAnalysis) -> Scene? { nil }
}
