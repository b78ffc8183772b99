// SPDX-License-Identifier: Apache-2.0
// PLACEHOLDER — the API surface the analyser builds against; the faces work replaces the body.

import RetouchCore

/// Finds frontal faces in a photo without any downloaded model.
public struct FaceDetector: Sendable {
  public init() {}

  /// Faces in `image` (the small upright analysis copy, 8-bit RGB or RGBA), largest first, each
  /// with its skin colour, lighting and blur measured.
  public func detect(in image: Image) -> [FaceObservation] { [] }
}
