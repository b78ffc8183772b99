// SPDX-License-Identifier: Apache-2.0

import Foundation
import Synchronization

/// The local web editor: an ``HTTPServer`` behind an ``AccessGuard``, serving the embedded front
/// end and the ``EditorAPI`` on top of a ``WebBackend``.
///
/// ```swift
/// let editor = WebEditor(backend: LibraryBackend(library: try PhotoLibrary(at: folder)))
/// try editor.start()
/// print(editor.url)        // http://127.0.0.1:PORT/?token=…
/// editor.stop()            // lets requests in flight finish
/// ```
public final class WebEditor: Sendable {
  /// Where and how the editor listens.
  public struct Configuration: Sendable {
    /// The IPv4 address to bind: loopback unless the user asks for another (the CLI warns).
    public var host = "127.0.0.1"
    /// 0 picks a free port.
    public var port: UInt16 = 0
    /// Largest accepted upload (one photo), in bytes. Default 200 MB.
    public var maxUploadBytes = 200 << 20
    public var threading: HTTPServer.Threading = .threadPerConnection

    public init() {}
  }

  /// The per-run access token (64 hex digits).
  public let token: String
  private let app: App
  private let server: HTTPServer

  public init(
    backend: any WebBackend, configuration: Configuration = Configuration(),
    token: String = AccessGuard.makeToken()
  ) {
    self.token = token
    let app = App(
      router: EditorAPI.router(backend: backend), token: token, host: configuration.host)
    var serverConfiguration = HTTPServer.Configuration()
    serverConfiguration.host = configuration.host
    serverConfiguration.port = configuration.port
    serverConfiguration.maxBodyBytes = configuration.maxUploadBytes
    serverConfiguration.threading = configuration.threading
    self.app = app
    server = HTTPServer(configuration: serverConfiguration) { request in
      await app.respond(to: request)
    }
  }

  /// Starts listening; returns within milliseconds.
  ///
  /// - Throws: ``WebError`` `.internalError` when the address cannot be bound.
  public func start() throws(WebError) {
    try server.start()
    app.guardState.withLock {
      $0 = AccessGuard(token: token, port: server.port, extraHost: app.host)
    }
  }

  /// The port in use.
  public var port: UInt16 { server.port }

  /// The address to open, with the token: `http://HOST:PORT/?token=…`.
  public var url: URL {
    let host = app.host == "0.0.0.0" ? "127.0.0.1" : app.host
    return URL(string: "http://\(host):\(port)/?token=\(token)")!
  }

  /// Stops accepting connections, lets requests in flight finish (at most `graceSeconds`), closes.
  public func stop(graceSeconds: Double = 10) { server.stop(graceSeconds: graceSeconds) }

  /// Routes one request: security checks, then static files or the API, then security headers.
  final class App: Sendable {
    let router: Router
    let host: String
    let guardState: Mutex<AccessGuard>

    init(router: Router, token: String, host: String) {
      self.router = router
      self.host = host
      guardState = Mutex(AccessGuard(token: token, port: 0, extraHost: host))
    }

    func respond(to request: HTTPRequest) async -> HTTPResponse {
      let accessGuard = guardState.withLock { $0 }
      let isAPI = request.path.hasPrefix("/api/")
      var response: HTTPResponse
      switch accessGuard.check(request) {
      case .respond(let refusal):
        response = refusal
      case .allow:
        if isAPI {
          response = await router.handle(request)
        } else if let asset = WebAssets.table[request.path] {
          if request.method == "GET" || request.method == "HEAD" {
            response = HTTPResponse(
              headers: ["Content-Type": asset.contentType], body: Data(asset.bytes))
          } else {
            response = .error(
              WebError(.methodNotAllowed, source: request.path, detail: "pages are read-only."))
          }
        } else {
          response = .error(WebError(.notFound, source: request.path, detail: "no such page."))
        }
      }
      for (name, value) in AccessGuard.securityHeaders(isAPI: isAPI)
      where response.headers[name] == nil {
        response.headers[name] = value
      }
      return response
    }
  }
}
