// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchRender
import Synchronization

/// An editor that edits photos non-destructively: it reopens its own earlier edits from their
/// adjustment data and writes a rendered photo plus new adjustment data.
///
/// The host (a photo library, the CLI) asks ``canHandle(_:)`` about the previous edit, gives the
/// editor an input (see ``ContentEditingInput/base(for:)`` for which photo it starts from),
/// lets the user edit, then calls ``finishContentEditing()`` and stores the output, or
/// ``cancelContentEditing()``. Implementations keep their state behind a lock; calls may come
/// from any task.
public protocol ContentEditingController: AnyObject, Sendable {
  /// Whether this editor can resume an edit stored as `adjustmentData`: its own format
  /// identifier, in a version it knows. Must be cheap (no decoding of the photo).
  func canHandle(_ adjustmentData: AdjustmentData) -> Bool

  /// Starts editing `input`; returns once the editor can show the photo.
  ///
  /// - Parameter placeholder: an image to show until the editor's own preview exists
  ///   (typically `input.displaySizeImage`).
  /// - Throws: ``EditingError``: `.unreadablePhoto`, `.missingRenderedPhoto`, and for adjustment
  ///   data this editor claims but cannot read `.corruptAdjustmentData` or
  ///   `.newerAdjustmentData`.
  func startContentEditing(with input: ContentEditingInput, placeholder: Image?)
    async throws(EditingError)

  /// Renders the edit at full size to the output's `renderedContentURL` (JPEG) and fills its
  /// adjustment data. Ends the edit.
  ///
  /// - Throws: ``EditingError`` `.notEditing`, `.exportFailed`, `.unreadablePhoto`.
  func finishContentEditing() async throws(EditingError) -> ContentEditingOutput

  /// Drops the edit and frees its memory.
  func cancelContentEditing()

  /// Whether cancelling would throw away changes the user made (so the host should ask first).
  var shouldShowCancelConfirmation: Bool { get }
}

/// A format's identifier and version, and the checks every editor makes on adjustment data.
public struct AdjustmentFormat: Sendable, Hashable {
  /// Reverse-DNS identifier ("org.retouch.edit").
  public let identifier: String
  /// The newest version this build writes and reads ("1"); versions compare numerically by
  /// dot-separated parts ("1.10" is newer than "1.9").
  public let version: String

  public init(identifier: String, version: String) {
    self.identifier = identifier
    self.version = version
  }

  /// Whether `data` is this format in a version no newer than ``version``.
  public func canHandle(_ data: AdjustmentData) -> Bool {
    data.formatIdentifier == identifier
      && Self.compare(data.formatVersion, version) != .orderedDescending
  }

  /// The payload of `data` after checking identifier and version.
  ///
  /// - Throws: ``EditingError`` `.foreignAdjustmentData` (another identifier),
  ///   `.newerAdjustmentData` (a newer or unreadable version).
  public func payload(of data: AdjustmentData, source: String = "<memory>") throws(EditingError)
    -> Data
  {
    guard data.formatIdentifier == identifier else {
      throw EditingError(
        .foreignAdjustmentData, source: source,
        detail: "written by '\(data.formatIdentifier)', this editor reads '\(identifier)'.")
    }
    guard Self.compare(data.formatVersion, version) != .orderedDescending else {
      throw EditingError(
        .newerAdjustmentData, source: source,
        detail: "format version '\(data.formatVersion)' is newer than \(version), the newest this "
          + "editor reads; update Retouch to reopen this edit.")
    }
    return data.data
  }

  /// Wraps `payload` as adjustment data of this format.
  public func adjustmentData(_ payload: Data) -> AdjustmentData {
    AdjustmentData(formatIdentifier: identifier, formatVersion: version, data: payload)
  }

  /// Compares dot-separated numeric versions; a part that is not a number counts as newer than
  /// any number (so unknown schemes are refused, not misread).
  static func compare(_ a: String, _ b: String) -> ComparisonResult {
    let x = a.split(separator: ".", omittingEmptySubsequences: false).map { Int($0) ?? Int.max }
    let y = b.split(separator: ".", omittingEmptySubsequences: false).map { Int($0) ?? Int.max }
    for i in 0..<max(x.count, y.count) {
      let p = i < x.count ? x[i] : 0, q = i < y.count ? y[i] : 0
      if p != q { return p < q ? .orderedAscending : .orderedDescending }
    }
    return .orderedSame
  }
}

/// The work every built-in editor shares: an ``EditController`` prepared on the photo the
/// resume-or-baked-in rule picks, and the output written from its export.
final class ContentEditingRun: Sendable {
  struct Active {
    let input: ContentEditingInput
    let controller: EditController
  }

  let quality: Int
  private let active = Mutex<Active?>(nil)

  init(quality: Int) { self.quality = quality }

  /// The session of the edit in progress.
  var controller: EditController? { active.withLock { $0?.controller } }

  /// Prepares a controller on `input`'s base, starting from `fresh`, or from what `resume` reads
  /// out of the previous adjustment data when the editor resumes it.
  func start(
    _ input: ContentEditingInput, editor: any ContentEditingController, fresh: EditConfig,
    resume initialConfig: (AdjustmentData) throws(EditingError) -> EditConfig
  ) async throws(EditingError) -> EditController {
    cancel()
    let base = try input.base(for: editor)
    let photo: ContentEditingInput.Photo
    var config = fresh
    switch base {
    case .original(let resuming):
      photo = input.original
      if let resuming { config = try initialConfig(resuming) }
    case .rendered(let rendered):
      photo = rendered
    }
    let controller = EditController()
    try await controller.prepare(source: photo.editSource, initialConfig: config)
    active.withLock { $0 = Active(input: input, controller: controller) }
    return controller
  }

  /// Exports the controller's edit to a new output with `adjustmentData`, then ends the edit.
  func finish(adjustmentData: (EditConfig) -> AdjustmentData) async throws(EditingError)
    -> ContentEditingOutput
  {
    guard let run = active.withLock({ $0 }) else {
      throw EditingError(
        .notEditing,
        detail: "finishContentEditing() without startContentEditing(with:placeholder:).")
    }
    let config = run.controller.currentConfig
    let data = try await run.controller.exportData(config: config, type: .jpeg, quality: quality)
    var output = ContentEditingOutput(run.input)
    do {
      try data.write(to: output.renderedContentURL, options: .atomic)
    } catch {
      throw EditingError(
        .exportFailed, source: output.renderedContentURL.lastPathComponent,
        detail: "cannot write the rendered photo: \(error.localizedDescription)")
    }
    output.adjustmentData = adjustmentData(config)
    cancel()
    return output
  }

  func cancel() {
    let old = active.withLock { a -> Active? in
      defer { a = nil }
      return a
    }
    old?.controller.destroy()
  }

  var hasChanges: Bool { controller?.canUndo ?? false }
}
