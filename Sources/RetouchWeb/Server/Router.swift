// SPDX-License-Identifier: Apache-2.0

/// Maps method + path pattern to a handler.
///
/// Patterns are literal segments and `:name` segments (one whole segment each, never a `/`):
/// `/api/sessions/:id/preview`. Routes are tried in the order they were added. A path that
/// matches no pattern gives 404; one that matches only with other methods gives 405.
public struct Router: Sendable {
  /// A route handler: a complete request in, a response out; a thrown ``WebError`` becomes a JSON
  /// error response with its status.
  public typealias Handler = @Sendable (HTTPRequest) async throws(WebError) -> HTTPResponse

  private enum Segment: Sendable, Equatable {
    case literal(String)
    case parameter(String)
  }

  private struct Route: Sendable {
    let method: String
    let segments: [Segment]
    let handler: Handler
  }

  private var routes: [Route] = []

  public init() {}

  /// Adds a route; `method` is matched case-insensitively.
  public mutating func add(_ method: String, _ pattern: String, _ handler: @escaping Handler) {
    let segments = pattern.split(separator: "/", omittingEmptySubsequences: true).map { part in
      part.hasPrefix(":") ? Segment.parameter(String(part.dropFirst())) : .literal(String(part))
    }
    routes.append(Route(method: method.uppercased(), segments: segments, handler: handler))
  }

  /// Whether some route's pattern matches `path` (with any method).
  public func matches(path: String) -> Bool {
    let parts = Self.split(path)
    return routes.contains { Self.match($0.segments, parts) != nil }
  }

  /// Runs the handler of the first route that matches; errors become JSON error responses.
  public func handle(_ request: HTTPRequest) async -> HTTPResponse {
    let parts = Self.split(request.path)
    var pathMatched = false
    for route in routes {
      guard let parameters = Self.match(route.segments, parts) else { continue }
      pathMatched = true
      guard route.method == request.method || (route.method == "GET" && request.method == "HEAD")
      else { continue }
      var request = request
      request.pathParameters = parameters
      do {
        return try await route.handler(request)
      } catch {
        return .error(error)
      }
    }
    if pathMatched {
      return .error(
        WebError(
          .methodNotAllowed, source: request.path, detail: "\(request.method) is not allowed here.")
      )
    }
    return .error(WebError(.notFound, source: request.path, detail: "no such page or API."))
  }

  private static func split(_ path: String) -> [Substring] {
    path.split(separator: "/", omittingEmptySubsequences: true)
  }

  private static func match(_ segments: [Segment], _ parts: [Substring]) -> [String: String]? {
    guard segments.count == parts.count else { return nil }
    var parameters: [String: String] = [:]
    for (segment, part) in zip(segments, parts) {
      switch segment {
      case .literal(let text): guard part == text else { return nil }
      case .parameter(let name): parameters[name] = String(part)
      }
    }
    return parameters
  }
}
