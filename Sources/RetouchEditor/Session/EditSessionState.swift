// SPDX-License-Identifier: Apache-2.0

import RetouchAI
import RetouchCore
import RetouchIO
import RetouchRender

/// A rendered preview and the edit it shows.
public struct PreviewImage: Sendable {
  /// The rendered preview: upright, edited, cropped; long edge at most the controller's
  /// `previewMaxDimension` (less after a crop).
  public let image: Image
  /// The edit rendered (the committed edit, or a change being previewed on top of it).
  public let config: EditConfig
  /// Increases with every change the controller was asked to show; a preview with a higher
  /// generation always shows a newer request.
  public let generation: Int
  /// The preview source's size relative to the full-resolution photo (see
  /// `RenderPlan.renderScale`).
  public let renderScale: Double
}

/// Where a session's suggestions are: pending → loading → done or unavailable.
public enum SuggestionState: Sendable {
  /// `EditController.processAI()` has not been called, or the photo has not loaded yet.
  case pending
  /// The suggestion engine is running.
  case loading
  /// The suggestions, best first (never empty).
  case done([EditSuggestion])
  /// No suggestions: the engine found none, the photo did not load, or the session ended.
  case unavailable

  /// Whether the engine has finished (with or without suggestions).
  public var isFinished: Bool {
    switch self {
    case .done, .unavailable: true
    case .pending, .loading: false
    }
  }

  /// The suggestions when done; empty otherwise.
  public var suggestions: [EditSuggestion] {
    if case .done(let list) = self { return list }
    return []
  }
}

/// The session's life cycle.
public enum EditSessionPhase: Sendable, Hashable {
  /// Created, `prepare(source:initialConfig:)` not called yet.
  case idle
  /// Loading the photo.
  case preparing
  /// The first preview exists; edits render.
  case ready
  /// The photo could not be loaded.
  case failed(EditingError)
  /// `destroy()` was called.
  case destroyed
}

/// One consistent snapshot of an editing session, as observers receive it.
public struct EditSessionState: Sendable {
  public let phase: EditSessionPhase
  /// The committed edit.
  public let currentConfig: EditConfig
  /// The edit on screen: the committed edit, or an uncommitted change previewed on top of it.
  public let shownConfig: EditConfig
  /// The newest finished preview.
  public let preview: PreviewImage?
  public let canUndo: Bool
  public let canRedo: Bool
  /// Whether the committed edit changes the photo.
  public let hasEdits: Bool
  public let suggestions: SuggestionState
}

/// The file type of an export.
public enum ExportFileType: String, Sendable, Hashable, CaseIterable {
  case jpeg, heic, avif, webp, tiff

  /// The container written.
  public var imageFormat: ImageFormat {
    switch self {
    case .jpeg: .jpeg
    case .heic: .heif
    case .avif: .avif
    case .webp: .webp
    case .tiff: .tiff
    }
  }
}

/// What an export tells the learning hook: which suggestion the user kept (if any) and the edit
/// that was exported, so later sessions can learn how sliders moved after it.
public struct EditExportRecord: Sendable {
  /// The recipe id of the last suggestion applied (`EditSuggestion.lookID`), nil when none was.
  public let appliedLookID: String?
  /// That suggestion's own edit.
  public let suggestedConfig: EditConfig?
  /// The edit exported.
  public let exportedConfig: EditConfig
  /// The recipe ids offered in this session, in the order shown.
  public let offeredLookIDs: [String]
  /// The photo's metadata.
  public let metadata: PhotoMetadata?
  /// The analysis the session's suggestions were ranked on, nil when no suggestions were
  /// generated (or their provider measured nothing): learning then records nothing.
  public let analysis: PhotoAnalysis?
  /// Identifies the session (and its photo): a learning store keeps one record per session.
  public let sessionID: String
}

/// Receives one ``EditExportRecord`` per editing session, on the first export. The learning
/// work supplies a real one; `NoEditLearning` (the default) ignores it.
///
/// Called on the exporting task, outside the controller's lock; must return quickly.
public protocol EditLearning: Sendable {
  func recordExport(_ record: EditExportRecord)
}

/// The default learning hook: records nothing.
public struct NoEditLearning: EditLearning {
  public init() {}
  public func recordExport(_ record: EditExportRecord) {}
}
