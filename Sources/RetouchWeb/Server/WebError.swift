// SPDX-License-Identifier: Apache-2.0

/// Why the web editor refused or failed a request: a kind that fixes the HTTP status, and one
/// sentence a user can act on.
///
/// Messages read `<source>: <kind>: <detail>` like every Retouch error; the JSON body of an error
/// response is `{"error": "<kind>", "message": "<detail>"}`.
public struct WebError: Error, Sendable, CustomStringConvertible {
  /// The kind of failure and its HTTP status. New kinds may be added; match on equality.
  public struct Kind: Hashable, Sendable {
    public let label: String
    /// The HTTP status code a response with this error carries.
    public let status: Int

    /// Bad JSON, a missing or unknown field, a value outside its range (400).
    public static let badRequest = Kind(label: "bad request", status: 400)
    /// No token, or a wrong one (401).
    public static let unauthorized = Kind(label: "unauthorized", status: 401)
    /// A foreign Host or Origin (403).
    public static let forbidden = Kind(label: "forbidden", status: 403)
    /// No such page, asset, session or suggestion (404).
    public static let notFound = Kind(label: "not found", status: 404)
    /// The path exists but not with this method (405).
    public static let methodNotAllowed = Kind(label: "method not allowed", status: 405)
    /// Another window saved the photo since this session opened it (409).
    public static let conflict = Kind(label: "conflict", status: 409)
    /// A body above the size limit (413).
    public static let tooLarge = Kind(label: "too large", status: 413)
    /// An upload that is not a JPEG, PNG, HEIC, AVIF, WebP or TIFF image, whatever its name says
    /// (415).
    public static let unsupportedMedia = Kind(label: "unsupported media", status: 415)
    /// A photo that could not be decoded or encoded (422).
    public static let unprocessable = Kind(label: "unprocessable", status: 422)
    /// The server is stopping (503).
    public static let unavailable = Kind(label: "unavailable", status: 503)
    /// A bug or an I/O failure on the server (500).
    public static let internalError = Kind(label: "internal error", status: 500)
  }

  public let kind: Kind
  /// What the request was about: a path, an asset id or a file name.
  public let source: String
  /// One sentence saying what was wrong and, where it helps, what to do.
  public let detail: String

  public init(_ kind: Kind, source: String = "<request>", detail: String) {
    self.kind = kind
    self.source = source
    self.detail = detail
  }

  public var description: String { "\(source): \(kind.label): \(detail)" }
}
