// SPDX-License-Identifier: Apache-2.0

/// Why an edit could not be read, validated or rendered.
///
/// Messages read `<source>: <kind>: <detail>`, e.g.
/// `edit.json: value out of range: contrast is 3, allowed -1…1.`
public struct RenderError: Error, Sendable, Hashable, CustomStringConvertible {
  public struct Kind: Hashable, Sendable, CustomStringConvertible {
    public let label: String
    public var description: String { label }
    /// The JSON is not an edit (syntax error, wrong types).
    public static let malformedEdit = Kind(label: "malformed edit")
    /// The JSON names a setting this version does not know.
    public static let unknownSetting = Kind(label: "unknown setting")
    /// A value lies outside its setting's range (or is not finite).
    public static let valueOutOfRange = Kind(label: "value out of range")
    /// The crop rectangle is not inside 0…1 or is empty.
    public static let invalidCrop = Kind(label: "invalid crop")
    /// Written by a newer Retouch whose format this version cannot read.
    public static let newerVersion = Kind(label: "newer format")
    /// The requested output is too large or empty.
    public static let invalidSize = Kind(label: "invalid size")
    /// The render was cancelled.
    public static let cancelled = Kind(label: "cancelled")
  }

  public let kind: Kind
  /// Where the edit came from (a file name, `<memory>`, a CLI option).
  public let source: String
  public let detail: String

  public init(_ kind: Kind, source: String = "<memory>", detail: String) {
    self.kind = kind
    self.source = source
    self.detail = detail
  }

  public var description: String { "\(source): \(kind.label): \(detail)" }
}
