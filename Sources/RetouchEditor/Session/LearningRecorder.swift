// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchAI
import RetouchRender
import Synchronization

/// The learning hook that writes what the user kept to a ``LearningStore``: on the first export
/// of a session whose suggestions were generated, one ``LearningRecord`` with the photo's
/// analysis summary, the looks offered in order, the look on the photo (or none) and how far
/// each slider was moved from it. Sessions without suggestions record nothing.
///
/// Opt-in: pass one to `EditController(learning:)` and make the engine with
/// `SuggestionEngine(learning:)` on the same store. The file is written atomically; a write
/// that fails is kept as ``lastWarning`` and never fails the export.
public final class LearningRecorder: EditLearning {
  public let store: LearningStore
  private let warning = Mutex<String?>(nil)

  public init(store: LearningStore = LearningStore()) {
    self.store = store
  }

  /// The last problem met: the old file set aside, or a write that failed.
  public var lastWarning: String? { warning.withLock { $0 } }

  public func recordExport(_ record: EditExportRecord) {
    guard let record = Self.learningRecord(from: record) else { return }
    do {
      if let w = try store.record(record) { warning.withLock { $0 = w } }
    } catch {
      warning.withLock { $0 = error.description }
    }
  }

  /// The record of an export, on the analysis the session's suggestions were ranked on; nil
  /// without one.
  static func learningRecord(from export: EditExportRecord) -> LearningRecord? {
    guard let analysis = export.analysis else { return nil }
    // Original is "no look": the moves are then from the unedited photo.
    let kept = export.appliedLookID == SuggestionEngine.originalID ? nil : export.appliedLookID
    let base = kept == nil ? EditConfig.neutral : (export.suggestedConfig ?? .neutral)
    return LearningRecord(
      photo: PhotoSummary(analysis: analysis), offeredLooks: export.offeredLookIDs,
      keptLook: kept,
      sliderDeltas: LearningRecord.sliderDeltas(from: base, to: export.exportedConfig),
      sessionID: export.sessionID)
  }
}
