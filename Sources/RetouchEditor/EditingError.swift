// SPDX-License-Identifier: Apache-2.0

import RetouchIO
import RetouchRender

/// Why an editing session, an export or a content edit failed.
///
/// Messages read `<source>: <kind>: <detail>`, like the other modules' errors. New kinds may be
/// added, so a `switch` over ``kind`` needs a default.
public struct EditingError: Error, Sendable, Hashable, CustomStringConvertible {
  public struct Kind: Hashable, Sendable, CustomStringConvertible {
    public let label: String
    public var description: String { label }
    /// The session has no photo yet: call `EditController.prepare(source:initialConfig:)` first.
    public static let notPrepared = Kind(label: "not prepared")
    /// The session was ended with `EditController.destroy()`.
    public static let destroyed = Kind(label: "session ended")
    /// The photo could not be read or decoded (the detail carries the decoder's message).
    public static let unreadablePhoto = Kind(label: "unreadable photo")
    /// The edited photo could not be encoded or written.
    public static let exportFailed = Kind(label: "export failed")
    /// Adjustment data written by another editor (a different format identifier).
    public static let foreignAdjustmentData = Kind(label: "foreign adjustment data")
    /// Adjustment data of this editor whose bytes cannot be read (bad JSON, bad values).
    public static let corruptAdjustmentData = Kind(label: "corrupt adjustment data")
    /// Adjustment data written by a newer version of this editor's format.
    public static let newerAdjustmentData = Kind(label: "newer adjustment data")
    /// An editor cannot resume the previous edit and the input has no rendered photo to edit.
    public static let missingRenderedPhoto = Kind(label: "missing rendered photo")
    /// `finishContentEditing()` or a change was called outside a started content edit.
    public static let notEditing = Kind(label: "not editing")
  }

  public let kind: Kind
  /// The file name, or `<memory>`.
  public let source: String
  /// One sentence saying what was found and, where it helps, what to do.
  public let detail: String

  public init(_ kind: Kind, source: String = "<memory>", detail: String) {
    self.kind = kind
    self.source = source
    self.detail = detail
  }

  public var description: String { "\(source): \(kind.label): \(detail)" }

  init(_ error: ImageDecodingError) {
    self.init(.unreadablePhoto, source: error.source, detail: error.description)
  }

  init(_ error: ImageEncodingError) {
    self.init(.exportFailed, source: error.destination, detail: error.description)
  }
}
