// SPDX-License-Identifier: Apache-2.0

import Foundation

/// The web editor's security checks, run on every request before any route.
///
/// - **Host**: must be `127.0.0.1:PORT` or `localhost:PORT` (or the explicitly bound address), so
///   a web page cannot reach the server through DNS rebinding.
/// - **Origin**: when present it must be `http://` + one of those hosts, so another site's page
///   cannot send requests with the user's cookie.
/// - **Token**: 32 random bytes from the system RNG (`getrandom` on Linux), as hex, printed in the
///   URL. The first page load carries it as `?token=`; the answer is a redirect to the same page
///   without it that sets an `HttpOnly; SameSite=Strict` cookie. Every other request needs the
///   cookie, the `X-Retouch-Token` header or the query argument. Compared in constant time.
/// - **Paths**: no `..`, `.` or empty segments, no backslashes or control characters; static files
///   come only from the embedded asset table.
public struct AccessGuard: Sendable {
  /// The header an API client may send the token in.
  public static let tokenHeader = "X-Retouch-Token"

  /// The per-run secret, 64 lower-case hex digits.
  public let token: String
  /// Host header values accepted (`host:port`).
  public let allowedHosts: Set<String>
  /// The cookie carrying the token; named after the port because browsers share cookies across
  /// ports of one host, and two servers may run at once.
  public let cookieName: String

  /// A guard for a server on `port`, also accepting `extraHost` (an address the user bound to).
  public init(token: String, port: UInt16, extraHost: String? = nil) {
    self.token = token
    var hosts: Set<String> = ["127.0.0.1:\(port)", "localhost:\(port)"]
    if let extraHost, !extraHost.isEmpty, extraHost != "127.0.0.1" {
      hosts.insert("\(extraHost):\(port)")
    }
    allowedHosts = hosts
    cookieName = "retouch_token_\(port)"
  }

  /// 32 bytes from the system's cryptographic RNG, as 64 hex digits.
  public static func makeToken() -> String { randomHex(bytes: 32) }

  /// `bytes` bytes from the system's cryptographic RNG, as lower-case hex.
  static func randomHex(bytes: Int) -> String {
    var rng = SystemRandomNumberGenerator()
    return (0..<bytes).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &rng)) }
      .joined()
  }

  /// What to do with a request.
  public enum Decision: Sendable {
    /// Go on to the routes.
    case allow
    /// Answer with this response (a refusal or the token-to-cookie redirect).
    case respond(HTTPResponse)
  }

  /// Checks `request`: Host, Origin, path shape, then the token.
  public func check(_ request: HTTPRequest) -> Decision {
    guard let host = request.header("host")?.lowercased(), allowedHosts.contains(host) else {
      return .respond(
        .error(
          WebError(
            .forbidden, source: request.path,
            detail:
              "the Host header must be one of \(allowedHosts.sorted().joined(separator: ", ")).")))
    }
    if let origin = request.header("origin"),
      !allowedHosts.contains(where: { origin.lowercased() == "http://\($0)" })
    {
      return .respond(
        .error(
          WebError(
            .forbidden, source: request.path, detail: "requests from \(origin) are not allowed.")))
    }
    guard Self.isSafePath(request.path) else {
      return .respond(.error(WebError(.notFound, source: "<path>", detail: "no such page or API.")))
    }
    if let given = request.query["token"] {
      guard Self.constantTimeEqual(given, token) else { return .respond(unauthorized(request)) }
      if request.method == "GET", !request.path.hasPrefix("/api/") {
        // Trade the token in the address bar for a cookie and drop it from the URL (history,
        // screenshots, Referer).
        var rest = request.query
        rest["token"] = nil
        var components = URLComponents()
        components.path = request.path
        if !rest.isEmpty {
          components.queryItems = rest.sorted(by: { $0.key < $1.key }).map {
            URLQueryItem(name: $0.key, value: $0.value)
          }
        }
        return .respond(
          HTTPResponse(
            status: 303,
            headers: [
              "Location": components.string ?? "/",
              "Set-Cookie": "\(cookieName)=\(token); Path=/; HttpOnly; SameSite=Strict",
            ]))
      }
      return .allow
    }
    let presented = request.header(Self.tokenHeader) ?? request.cookies[cookieName]
    guard let presented, Self.constantTimeEqual(presented, token) else {
      return .respond(unauthorized(request))
    }
    return .allow
  }

  private func unauthorized(_ request: HTTPRequest) -> HTTPResponse {
    .error(
      WebError(
        .unauthorized, source: request.path,
        detail: "missing or wrong access token; open the address that 'retouch serve' printed."))
  }

  /// Header fields every response carries. `isAPI` adds `Cache-Control: no-store`.
  public static func securityHeaders(isAPI: Bool) -> [String: String] {
    [
      "Content-Security-Policy":
        "default-src 'self'; img-src 'self' blob:; object-src 'none'; base-uri 'none'; "
        + "frame-ancestors 'none'; form-action 'self'",
      "X-Content-Type-Options": "nosniff",
      "X-Frame-Options": "DENY",
      "Referrer-Policy": "no-referrer",
      "Cross-Origin-Opener-Policy": "same-origin",
      "Cross-Origin-Resource-Policy": "same-origin",
      "Cache-Control": isAPI ? "no-store" : "no-cache",
    ]
  }

  /// Whether `path` is an absolute path without traversal or odd characters.
  static func isSafePath(_ path: String) -> Bool {
    guard path.hasPrefix("/"), path.utf8.count <= 1024 else { return false }
    if path.contains("\\")
      || path.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
    {
      return false
    }
    let segments = path.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
    if path == "/" { return true }
    for (i, s) in segments.enumerated() {
      if s == "." || s == ".." { return false }
      // An empty segment is only allowed as a trailing slash.
      if s.isEmpty && i != segments.count - 1 { return false }
    }
    return true
  }

  static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
    let x = Array(a.utf8), y = Array(b.utf8)
    var difference = UInt8(x.count == y.count ? 0 : 1)
    for i in 0..<max(x.count, y.count) {
      difference |= (i < x.count ? x[i] : 0) ^ (i < y.count ? y[i] : 0)
    }
    return difference == 0
  }
}
