// SPDX-License-Identifier: Apache-2.0

/// A failure of the photo library, with what a user can act on.
///
/// `source` names the library folder, the file or the asset involved; `detail` is one sentence
/// and carries SQLite's own message (and result code) when the database is the cause.
public struct LibraryError: Error, Sendable, Hashable, CustomStringConvertible {
  /// What went wrong. Static constants, so adding a kind breaks no one's `switch`.
  public struct Kind: Hashable, Sendable, CustomStringConvertible {
    public let label: String
    public var description: String { label }

    /// SQLite refused (the detail has its message and result code).
    public static let database = Kind(label: "database error")
    /// The database is busy in another process for longer than the busy timeout.
    public static let busy = Kind(label: "library busy")
    /// No asset (or revision) with that id.
    public static let notFound = Kind(label: "not found")
    /// A file could not be read, written, synced or renamed.
    public static let fileSystem = Kind(label: "file error")
    /// A photo could not be read as JPEG, PNG, HEIC, AVIF, WebP or TIFF.
    public static let badPhoto = Kind(label: "bad photo")
    /// A change request that cannot apply (no rendered file, asset deleted, …).
    public static let invalidChange = Kind(label: "invalid change")
    /// The library was written by a newer Retouch (schema version above this build's).
    public static let newerSchema = Kind(label: "newer library version")
    /// The library's files and records disagree in a way a repair cannot fix.
    public static let integrity = Kind(label: "integrity error")
  }

  public let kind: Kind
  /// The library folder, file name or asset the error is about.
  public let source: String
  public let detail: String

  public init(_ kind: Kind, source: String, detail: String) {
    self.kind = kind
    self.source = source
    self.detail = detail
  }

  /// `<source>: <kind>: <detail>`.
  public var description: String { "\(source): \(kind.label): \(detail)" }
}
