// SPDX-License-Identifier: Apache-2.0
// INTERIM — stands in for RetouchEditor's ContentEditingInput/Output (the editing-session issue)
// until that branch is merged; then this file is deleted and the library uses those types.

import Foundation
import RetouchCore
import RetouchEditor
import RetouchIO

/// What an editor gets to start editing a library photo.
public struct ContentEditingInput: Sendable {
  /// The photo to edit: the original when the editor can handle the previous adjustment data (or
  /// there is none), else the current render with the edit baked in.
  public let fullSizeImageURL: URL
  /// How the stored pixels must be turned to display upright.
  public let fullSizeImageOrientation: ImageOrientation
  public let metadata: PhotoMetadata?
  /// The previous edit's adjustment data, when the editor said it can handle it.
  public let adjustmentData: AdjustmentData?

  public init(
    fullSizeImageURL: URL, fullSizeImageOrientation: ImageOrientation, metadata: PhotoMetadata?,
    adjustmentData: AdjustmentData?
  ) {
    self.fullSizeImageURL = fullSizeImageURL
    self.fullSizeImageOrientation = fullSizeImageOrientation
    self.metadata = metadata
    self.adjustmentData = adjustmentData
  }
}

/// What an editor hands back: a JPEG written to `renderedContentURL` and its adjustment data.
public struct ContentEditingOutput: Sendable {
  public let renderedContentURL: URL
  public var adjustmentData: AdjustmentData?

  /// An output for `input`, with a fresh file URL in the temporary folder.
  public init(contentEditingInput input: ContentEditingInput) {
    renderedContentURL = FileManager.default.temporaryDirectory
      .appendingPathComponent("retouch-edit-\(UUID().uuidString).jpg")
  }

  /// An output whose render is (or will be) at `renderedContentURL`.
  public init(renderedContentURL: URL, adjustmentData: AdjustmentData? = nil) {
    self.renderedContentURL = renderedContentURL
    self.adjustmentData = adjustmentData
  }
}
