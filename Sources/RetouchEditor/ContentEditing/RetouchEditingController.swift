// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchRender

/// Retouch's own editor as a ``ContentEditingController``: stores the whole `EditConfig` as
/// JSON under "org.retouch.edit" version "1" and resumes it with every slider, the crop, the
/// turns and the look where they were.
///
/// Between start and finish the app drives ``editController`` (sliders, suggestions, undo).
public final class RetouchEditingController: ContentEditingController {
  /// "org.retouch.edit", version "1".
  public static let format = AdjustmentFormat(identifier: "org.retouch.edit", version: "1")

  let run: ContentEditingRun

  /// - Parameter quality: JPEG quality of the rendered photo, 1…100.
  public init(quality: Int = 90) { run = ContentEditingRun(quality: quality) }

  /// The session of the edit in progress (nil before start and after finish or cancel).
  public var editController: EditController? { run.controller }

  public func canHandle(_ adjustmentData: AdjustmentData) -> Bool {
    Self.format.canHandle(adjustmentData)
  }

  /// The edit stored in `adjustmentData`.
  ///
  /// - Throws: ``EditingError`` `.foreignAdjustmentData`, `.newerAdjustmentData` (also for a
  ///   newer edit format inside the JSON), `.corruptAdjustmentData` (bad JSON, unknown settings,
  ///   values out of range).
  public static func config(from adjustmentData: AdjustmentData) throws(EditingError) -> EditConfig
  {
    let payload = try format.payload(of: adjustmentData)
    do {
      return try EditConfig(json: payload, source: "adjustment data")
    } catch {
      let kind: EditingError.Kind =
        error.kind == .newerVersion ? .newerAdjustmentData : .corruptAdjustmentData
      throw EditingError(kind, source: "adjustment data", detail: error.detail)
    }
  }

  /// `config` as this editor's adjustment data.
  public static func adjustmentData(for config: EditConfig) -> AdjustmentData {
    format.adjustmentData(config.with(actionType: .some(nil)).jsonData())
  }

  public func startContentEditing(with input: ContentEditingInput, placeholder: Image?)
    async throws(EditingError)
  {
    _ = try await run.start(input, editor: self, fresh: .neutral) { data throws(EditingError) in
      try Self.config(from: data)
    }
  }

  public func finishContentEditing() async throws(EditingError) -> ContentEditingOutput {
    try await run.finish { Self.adjustmentData(for: $0) }
  }

  public func cancelContentEditing() { run.cancel() }

  public var shouldShowCancelConfirmation: Bool { run.hasChanges }
}
