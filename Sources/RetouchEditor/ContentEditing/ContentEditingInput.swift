// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchIO

/// What an editor gets when asked to edit a photo: the original, what it looks like now, and the
/// previous edit's adjustment data, if any.
///
/// Nothing here is ever written to: the original stays as it is, and the editor writes its
/// result to a ``ContentEditingOutput``.
public struct ContentEditingInput: Sendable {
  /// An encoded photo: a file or bytes in memory.
  public enum Photo: Sendable, Hashable {
    case file(URL)
    case data(Data, name: String)

    /// An ``EditSource`` over it.
    public var editSource: FileEditSource {
      switch self {
      case .file(let url): FileEditSource(url: url)
      case .data(let data, let name): FileEditSource(data: data, name: name)
      }
    }

    /// The encoded bytes.
    ///
    /// - Throws: ``EditingError`` `.unreadablePhoto`.
    public func data() throws(EditingError) -> Data {
      do {
        return try editSource.data()
      } catch {
        throw EditingError(error)
      }
    }
  }

  /// The unedited original (never modified).
  public let original: Photo
  /// How the original's stored pixels are turned to show upright (its EXIF orientation).
  public let orientation: ImageOrientation
  /// The original's metadata.
  public let metadata: PhotoMetadata
  /// The photo as it looks now (with the previous edit, if any), upright, long edge at most the
  /// size asked for: a placeholder while the editor loads.
  public let displaySizeImage: Image?
  /// The previous edit's adjustment data; nil for a photo never edited.
  public let adjustmentData: AdjustmentData?
  /// The previous edit rendered at full size (JPEG): what an editor that cannot resume the
  /// previous edit works on. Nil for a photo never edited.
  public let renderedPhoto: Photo?

  public init(
    original: Photo, orientation: ImageOrientation, metadata: PhotoMetadata,
    displaySizeImage: Image?,
    adjustmentData: AdjustmentData?, renderedPhoto: Photo?
  ) {
    self.original = original
    self.orientation = orientation
    self.metadata = metadata
    self.displaySizeImage = displaySizeImage
    self.adjustmentData = adjustmentData
    self.renderedPhoto = renderedPhoto
  }

  /// The original's file URL, when it is a file.
  public var originalURL: URL? {
    if case .file(let url) = original { return url }
    return nil
  }

  /// Reads the original's metadata and makes the display-size image (from the rendered photo
  /// when there is one, else the original; shrink-on-load for JPEGs).
  ///
  /// - Throws: ``EditingError`` `.unreadablePhoto`.
  public static func load(
    original: Photo, adjustmentData: AdjustmentData? = nil, renderedPhoto: Photo? = nil,
    displayMaxDimension: Int = 1024
  ) async throws(EditingError) -> ContentEditingInput {
    let metadata: PhotoMetadata
    let display: Image
    do {
      metadata = try await original.editSource.loadMetadata()
      let shown = (renderedPhoto ?? original).editSource
      if let p = try await shown.loadPreview(maxDimension: displayMaxDimension) {
        display = p
      } else {
        display = try await shown.loadOriginal().resized(toFitLongEdge: displayMaxDimension)
      }
    } catch {
      throw EditingError(error)
    }
    return ContentEditingInput(
      original: original, orientation: metadata.orientation, metadata: metadata,
      displaySizeImage: display,
      adjustmentData: adjustmentData, renderedPhoto: renderedPhoto)
  }

  /// Which photo an editor starts from, by the resume-or-baked-in rule: an editor that can
  /// handle the previous adjustment data gets the original plus that data (and resumes with
  /// its controls where they were); one that cannot gets the previously rendered photo with the
  /// edit baked in. A photo never edited gives the original.
  ///
  /// - Throws: ``EditingError`` `.missingRenderedPhoto` when the editor cannot resume and the
  ///   input has no rendered photo (starting from the original would silently drop the edit).
  public func base(for controller: any ContentEditingController) throws(EditingError)
    -> ContentEditingBase
  {
    guard let adjustmentData else { return .original(resuming: nil) }
    if controller.canHandle(adjustmentData) { return .original(resuming: adjustmentData) }
    guard let renderedPhoto else {
      throw EditingError(
        .missingRenderedPhoto, source: "adjustment data",
        detail: "this editor cannot resume '\(adjustmentData.formatIdentifier)' "
          + "version \(adjustmentData.formatVersion), and there is no rendered photo to edit instead."
      )
    }
    return .rendered(renderedPhoto)
  }
}

/// The photo an editor starts from (see ``ContentEditingInput/base(for:)``).
public enum ContentEditingBase: Sendable, Hashable {
  /// The original; with the previous edit's adjustment data when the editor resumes it.
  case original(resuming: AdjustmentData?)
  /// The previously rendered photo, the earlier edit baked in.
  case rendered(ContentEditingInput.Photo)
}

/// Where an editor puts its result: the edited photo (a JPEG at ``renderedContentURL``) and the
/// adjustment data to reopen it.
public struct ContentEditingOutput: Sendable {
  /// Where the editor writes the full-size edited photo, as JPEG. A fresh name in `directory`.
  public let renderedContentURL: URL
  /// What the editor stores to reopen its edit; set it before handing the output back.
  public var adjustmentData: AdjustmentData?

  /// An output for `input`, its rendered photo to go in `directory` (default: the temporary
  /// folder).
  public init(_ input: ContentEditingInput, directory: URL = FileManager.default.temporaryDirectory)
  {
    renderedContentURL = directory.appendingPathComponent("retouch-render-\(UUID().uuidString).jpg")
    adjustmentData = nil
  }
}
