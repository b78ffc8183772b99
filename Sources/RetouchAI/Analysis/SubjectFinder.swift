// SPDX-License-Identifier: Apache-2.0
// PLACEHOLDER — the API surface the analyser builds against; the subject work replaces the body.

import RetouchCore
import RetouchRender

/// Where the eye is drawn (faces first, then saliency) and which part is in focus.
public enum SubjectFinder {
  /// - Parameters:
  ///   - image: the small upright analysis copy (8-bit RGB or RGBA).
  ///   - faces: the faces found in it, largest first.
  public static func findSubject(in image: Image, faces: [FaceObservation]) -> SubjectAnalysis {
    let center = NormalizedRect(x: 0.25, y: 0.25, width: 0.5, height: 0.5)
    return SubjectAnalysis(
      region: center, source: .center, focusRegion: center, isShallowDepthOfField: false)
  }
}
