// SPDX-License-Identifier: Apache-2.0

import Foundation

/// One HTTP request as a handler sees it: everything already read, the body complete.
public struct HTTPRequest: Sendable {
  /// Upper-case method ("GET", "POST" …).
  public var method: String
  /// The path as the server decoded it (percent escapes resolved), without the query.
  public var path: String
  /// Query arguments, decoded; a name given twice keeps the last value.
  public var query: [String: String]
  /// Header fields by lower-case name; repeated fields keep the last value.
  public var headers: [String: String]
  /// Cookies sent by the browser.
  public var cookies: [String: String]
  /// The whole body (empty for GET).
  public var body: Data
  /// Values of the `:name` segments of the route that matched.
  public var pathParameters: [String: String] = [:]

  public init(
    method: String, path: String, query: [String: String] = [:], headers: [String: String] = [:],
    cookies: [String: String] = [:], body: Data = Data()
  ) {
    self.method = method
    self.path = path
    self.query = query
    self.headers = Dictionary(
      headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { $1 })
    self.cookies = cookies
    self.body = body
  }

  /// A header field by name, any case.
  public func header(_ name: String) -> String? { headers[name.lowercased()] }

  /// A path parameter of the matched route.
  ///
  /// - Throws: ``WebError`` `.notFound` when the route has no such parameter (a programming
  ///   error in the route table shows up as a 404, never a crash).
  public func parameter(_ name: String) throws(WebError) -> String {
    guard let v = pathParameters[name], !v.isEmpty else {
      throw WebError(.notFound, source: path, detail: "missing '\(name)' in the path.")
    }
    return v
  }
}

/// What a handler answers: status, header fields and a complete body.
public struct HTTPResponse: Sendable {
  public var status: Int
  /// Header fields; names as written here. `Content-Length` is added by the server.
  public var headers: [String: String]
  public var body: Data

  public init(status: Int = 200, headers: [String: String] = [:], body: Data = Data()) {
    self.status = status
    self.headers = headers
    self.body = body
  }

  /// A JSON body (sorted keys, UTF-8), `Content-Type: application/json`.
  public static func json(_ value: some Encodable, status: Int = 200) -> HTTPResponse {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    // Our response types are plain structs of strings, numbers and arrays: encoding cannot fail.
    let body = (try? encoder.encode(value)) ?? Data("{}".utf8)
    return HTTPResponse(
      status: status, headers: ["Content-Type": "application/json; charset=utf-8"], body: body)
  }

  /// An error as JSON: `{"error": kind, "message": detail}` with the kind's status.
  public static func error(_ error: WebError) -> HTTPResponse {
    json(["error": error.kind.label, "message": error.detail], status: error.kind.status)
  }

  /// Encoded image bytes with their MIME type.
  public static func image(_ data: Data, type: String = "image/jpeg") -> HTTPResponse {
    HTTPResponse(headers: ["Content-Type": type], body: data)
  }

  /// 204 No Content.
  public static let noContent = HTTPResponse(status: 204)
}
