// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchRender

/// What the web editor's REST API needs from a photo library and its editing sessions.
///
/// The routes (``EditorAPI``) only translate HTTP to these calls, so a backend decides how photos
/// are stored and edited (``LibraryBackend``: a `PhotoLibrary` and one `EditController` per
/// opened photo; tests or another store can plug in the same way). Every call may run concurrently with
/// any other; implementations keep their state consistent (an actor is the natural shape) and do
/// heavy work (decoding, rendering, encoding) without blocking unrelated calls.
///
/// Errors are ``WebError``s: `.notFound` for an unknown asset, session or suggestion,
/// `.badRequest` for values out of range, `.unsupportedMedia`/`.unprocessable` for bad uploads,
/// `.conflict` when another session saved the photo first.
public protocol WebBackend: Sendable {
  // MARK: Library

  /// Every asset, newest import first; deleted ones only when `includeDeleted`.
  func assets(includeDeleted: Bool) async throws(WebError) -> [AssetSummary]
  /// Imports one uploaded file. `fileName` is only a label: the format is sniffed from the bytes.
  func importAsset(fileName: String, data: Data) async throws(WebError) -> AssetSummary
  /// Moves an asset to the recently deleted state (restorable).
  func deleteAsset(id: String) async throws(WebError)
  /// Brings a deleted asset back.
  func restoreAsset(id: String) async throws(WebError)
  /// A JPEG of the asset's current state (its saved edit applied), long edge about 320 px.
  func thumbnail(assetID: String) async throws(WebError) -> Data
  /// Saved edits, newest first: which asset, which look, which slider values, when.
  func editSessions() async throws(WebError) -> [EditSessionSummary]

  // MARK: Editing sessions (one per opened photo)

  /// Opens `assetID` for editing, resuming its saved edit; returns once the first preview can be
  /// fetched.
  func openSession(assetID: String) async throws(WebError) -> SessionState
  /// The session's current state.
  func state(session: String) async throws(WebError) -> SessionState
  /// Shows `change` on top of the committed edit (`commit == false`, a slider being dragged), or
  /// commits it as an undo step (`commit == true`). Changes add like `EditConfig.combined(with:)`;
  /// a change whose action is `crop` sets crop and aspect ratio outright (so a crop can go back
  /// to the full frame). Returns the rendered preview and the state after the call.
  func preview(session: String, change: EditConfig, commit: Bool, view: PreviewView)
    async throws(WebError)
    -> RenderedPreview
  /// The committed edit's preview (or the original, for hold-to-compare), as JPEG.
  func currentPreview(session: String, view: PreviewView) async throws(WebError) -> Data
  func undo(session: String) async throws(WebError) -> SessionState
  func redo(session: String) async throws(WebError) -> SessionState
  /// A small JPEG of the committed edit with `look` (nil: without a look), for the looks strip.
  func lookThumbnail(session: String, look: Look?) async throws(WebError) -> Data
  /// The suggestions for the photo, best first (Original first when offered); empty when there
  /// are none.
  func suggestions(session: String) async throws(WebError) -> [SuggestionSummary]
  func suggestionThumbnail(session: String, id: String) async throws(WebError) -> Data
  /// Applies a suggestion: its colour and tone replace the edit's, crop, rotation and background
  /// blur are kept; one undo step; redo is cleared.
  func applySuggestion(session: String, id: String) async throws(WebError) -> SessionState
  /// Commits the edit to the library (new render and adjustment data; original kept).
  /// `overwrite == false` refuses with `.conflict` when another session saved the photo after
  /// this one opened or last saved it.
  func save(session: String, overwrite: Bool) async throws(WebError) -> SessionState
  /// Reverts the photo to its original in the library and the session to no edit (an undo step).
  func revert(session: String) async throws(WebError) -> SessionState
  /// The edit at full resolution, encoded.
  func export(session: String, format: ExportFormat, quality: Int) async throws(WebError)
    -> ExportedFile
  /// Ends the session and frees its memory. Requests already being answered (previews,
  /// thumbnails, suggestions, exports) are still answered; later requests get `.notFound`.
  func closeSession(_ session: String) async throws(WebError)
}

/// Which picture a preview request wants.
public enum PreviewView: String, Sendable, Codable, CaseIterable {
  /// The edit as it will be exported.
  case edited
  /// The edit without its crop (turns, flips and straighten kept): the crop screen's picture.
  case uncropped
  /// The untouched photo, for hold-to-compare.
  case original
}

/// Output formats of the export route.
public enum ExportFormat: String, Sendable, Codable, CaseIterable {
  case jpeg, heic, avif, webp, tiff

  var mimeType: String { "image/\(rawValue)" }
  var fileExtension: String {
    switch self {
    case .jpeg: "jpg"
    case .tiff: "tif"
    default: rawValue
    }
  }
}

/// A name in the languages the editor speaks.
public struct LocalizedName: Sendable, Codable, Hashable {
  public var en: String
  public var zh: String

  public init(_ text: LocalizedText) {
    en = text.english
    zh = text.simplifiedChinese
  }

  public init(en: String, zh: String) {
    self.en = en
    self.zh = zh
  }
}

/// One photo of the library, as the grid shows it.
public struct AssetSummary: Sendable, Codable, Hashable {
  public var id: String
  /// The file name it was imported with.
  public var name: String
  /// Upright size in pixels.
  public var width: Int
  public var height: Int
  /// "jpeg", "png" or "heif".
  public var format: String
  public var isEdited: Bool
  public var isDeleted: Bool
  /// Seconds since 1970.
  public var importedAt: Double
  /// Bumped by every save and revert (so thumbnails can be cached by it).
  public var revision: Int

  public init(
    id: String, name: String, width: Int, height: Int, format: String, isEdited: Bool,
    isDeleted: Bool, importedAt: Double, revision: Int
  ) {
    self.id = id
    self.name = name
    self.width = width
    self.height = height
    self.format = format
    self.isEdited = isEdited
    self.isDeleted = isDeleted
    self.importedAt = importedAt
    self.revision = revision
  }
}

/// One saved edit, for the grid of past edit sessions.
public struct EditSessionSummary: Sendable, Codable, Hashable {
  public var assetID: String
  public var name: String
  /// The preset look's id, if the edit has one.
  public var look: String?
  /// Slider values by setting id (`EditSettingType` raw values).
  public var settings: [String: Double]
  /// Seconds since 1970.
  public var savedAt: Double
  public var revision: Int

  public init(
    assetID: String, name: String, look: String?, settings: [String: Double], savedAt: Double,
    revision: Int
  ) {
    self.assetID = assetID
    self.name = name
    self.look = look
    self.settings = settings
    self.savedAt = savedAt
    self.revision = revision
  }
}

/// An editing session's state after a call.
public struct SessionState: Sendable, Codable, Hashable {
  public var sessionID: String
  public var assetID: String
  public var name: String
  /// Full-resolution upright size of the original.
  public var width: Int
  public var height: Int
  /// The committed edit.
  public var config: EditConfig
  public var canUndo: Bool
  public var canRedo: Bool
  /// The edit differs from the saved one.
  public var hasUnsavedChanges: Bool
  /// Bumped whenever the committed preview changes; part of preview URLs so none is stale.
  public var revision: Int

  public init(
    sessionID: String, assetID: String, name: String, width: Int, height: Int, config: EditConfig,
    canUndo: Bool, canRedo: Bool, hasUnsavedChanges: Bool, revision: Int
  ) {
    self.sessionID = sessionID
    self.assetID = assetID
    self.name = name
    self.width = width
    self.height = height
    self.config = config
    self.canUndo = canUndo
    self.canRedo = canRedo
    self.hasUnsavedChanges = hasUnsavedChanges
    self.revision = revision
  }
}

/// A rendered preview and the session state it belongs to.
public struct RenderedPreview: Sendable {
  /// JPEG bytes.
  public var jpeg: Data
  public var state: SessionState

  public init(jpeg: Data, state: SessionState) {
    self.jpeg = jpeg
    self.state = state
  }
}

/// One suggestion as the picker shows it.
public struct SuggestionSummary: Sendable, Codable, Hashable {
  public var id: String
  public var title: LocalizedName
  /// "original", "correction", "style" or "theme".
  public var kind: String

  public init(id: String, title: LocalizedName, kind: String) {
    self.id = id
    self.title = title
    self.kind = kind
  }
}

/// An encoded export.
public struct ExportedFile: Sendable {
  public var data: Data
  /// A download name, e.g. `IMG_0042-edited.jpg`.
  public var fileName: String
  public var mimeType: String

  public init(data: Data, fileName: String, mimeType: String) {
    self.data = data
    self.fileName = fileName
    self.mimeType = mimeType
  }
}
