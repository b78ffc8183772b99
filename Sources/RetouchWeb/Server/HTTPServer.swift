// SPDX-License-Identifier: Apache-2.0

import CRetouchLoaders
import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A small HTTP/1.1 server on libmicrohttpd: it reads each request completely (bodies streamed
/// into memory up to a limit), hands it to one async handler and sends the handler's response.
///
/// Threading: libmicrohttpd's own threads accept and read connections, either one thread per
/// connection (the default; a slow render blocks only its own connection) or a fixed pool. The
/// handler runs as a Swift task; the connection's thread waits for it, which is what
/// libmicrohttpd's synchronous callback needs and never blocks Swift's cooperative pool.
///
/// Cost: one thread per open connection (browsers keep about six) plus one accept thread.
public final class HTTPServer: Sendable {
  /// How connections are served.
  public enum Threading: Sendable, Hashable {
    /// One thread per connection.
    case threadPerConnection
    /// A fixed pool of polling threads shared by all connections (≥ 2).
    case pool(threads: Int)
  }

  /// Where and how the server listens.
  public struct Configuration: Sendable {
    /// The IPv4 address to bind (dotted quad). Default loopback only.
    public var host: String = "127.0.0.1"
    /// The TCP port; 0 picks a free one (read it back from ``HTTPServer/port``).
    public var port: UInt16 = 0
    public var threading: Threading = .threadPerConnection
    /// The largest request body accepted, in bytes; larger ones get 413 without being kept.
    public var maxBodyBytes: Int = 256 << 20
    /// Idle connections are closed after this many seconds.
    public var connectionTimeoutSeconds: Int = 120
    /// At most this many open connections.
    public var maxConnections: Int = 64

    public init() {}
  }

  /// The handler every complete request goes to.
  public typealias Handler = @Sendable (HTTPRequest) async -> HTTPResponse

  let configuration: Configuration
  let handler: Handler
  private let state = Mutex<State>(State())
  private let inFlight = Atomic<Int>(0)

  private struct State {
    /// The `MHD_Daemon*` as an address (0 = none): a plain integer can live behind the lock.
    var daemon: Int = 0
    var port: UInt16 = 0
    var stopping = false
    /// When a stopping server stops waiting for requests still being handled.
    var giveUpAt: Date?
  }

  /// Makes a server; nothing listens until ``start()``.
  public init(configuration: Configuration = Configuration(), handler: @escaping Handler) {
    self.configuration = configuration
    self.handler = handler
  }

  deinit { stop(graceSeconds: 0) }

  /// The port the server listens on (after ``start()``; the real one when 0 was asked for).
  public var port: UInt16 { state.withLock { $0.port } }

  /// Whether requests are being accepted.
  public var isRunning: Bool { state.withLock { $0.daemon != 0 && !$0.stopping } }

  /// Binds the socket and starts serving; returns once the port is listening.
  ///
  /// - Throws: ``WebError`` `.internalError` when the address is not an IPv4 address, the port
  ///   is taken, or libmicrohttpd cannot start.
  public func start() throws(WebError) {
    // libmicrohttpd is loaded on first use, so commands that serve nothing never load it.
    if let reason = rt_microhttpd_load() {
      throw WebError(
        .internalError, source: configuration.host,
        detail: "libmicrohttpd (the libmicrohttpd12 package) could not be loaded: "
          + "\(String(cString: reason)).")
    }
    let fd = try Self.openListeningSocket(host: configuration.host, port: configuration.port)
    var address = sockaddr_in()
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let named = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    guard named == 0 else {
      close(fd)
      throw WebError(
        .internalError, source: configuration.host,
        detail: "getsockname failed: \(Self.lastError()).")
    }
    let port = UInt16(bigEndian: address.sin_port)
    let context = Unmanaged.passUnretained(self).toOpaque()

    var flags =
      MHD_USE_AUTO.rawValue | MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_ITC.rawValue
    var items: [MHD_OptionItem] = [
      MHD_OptionItem(option: MHD_OPTION.LISTEN_SOCKET, value: Int(fd), ptr_value: nil),
      MHD_OptionItem(
        option: MHD_OPTION.CONNECTION_TIMEOUT,
        value: max(1, configuration.connectionTimeoutSeconds),
        ptr_value: nil),
      MHD_OptionItem(
        option: MHD_OPTION.CONNECTION_LIMIT, value: max(2, configuration.maxConnections),
        ptr_value: nil),
      MHD_OptionItem(
        option: MHD_OPTION.NOTIFY_COMPLETED, value: unsafeBitCast(requestCompleted, to: Int.self),
        ptr_value: context),
    ]
    items.append(
      MHD_OptionItem(
        option: MHD_OPTION.UNESCAPE_CALLBACK, value: unsafeBitCast(unescape, to: Int.self),
        ptr_value: nil))
    switch configuration.threading {
    case .threadPerConnection:
      flags |= MHD_USE_THREAD_PER_CONNECTION.rawValue
    case .pool(let threads):
      items.append(
        MHD_OptionItem(option: MHD_OPTION.THREAD_POOL_SIZE, value: max(2, threads), ptr_value: nil))
    }
    items.append(MHD_OptionItem(option: MHD_OPTION.END, value: 0, ptr_value: nil))

    // MHD_start_daemon is variadic; its va_list twin takes our options as one array.
    let daemon = items.withUnsafeMutableBufferPointer { buffer in
      withVaList([MHD_OPTION.ARRAY.rawValue, buffer.baseAddress!, MHD_OPTION.END.rawValue]) {
        list in
        MHD_start_daemon_va(flags, 0, nil, nil, accessHandler, context, list)
      }
    }
    guard let daemon else {
      close(fd)
      throw WebError(
        .internalError, source: "\(configuration.host):\(port)",
        detail: "libmicrohttpd could not start.")
    }
    let daemonAddress = Int(bitPattern: daemon)
    state.withLock {
      $0.daemon = daemonAddress
      $0.port = port
      $0.stopping = false
      $0.giveUpAt = nil
    }
  }

  /// Stops listening, lets requests already being handled finish (waiting at most
  /// `graceSeconds`), then closes every connection. Safe to call more than once.
  public func stop(graceSeconds: Double = 10) {
    let address: Int = state.withLock { s in
      guard s.daemon != 0, !s.stopping else { return 0 }
      s.stopping = true
      s.giveUpAt = Date().addingTimeInterval(max(0, graceSeconds))
      return s.daemon
    }
    guard let daemon = OpaquePointer(bitPattern: address) else { return }
    // No new connections from here on; the listening socket is ours to close.
    let listenFD = MHD_quiesce_daemon(daemon)
    if listenFD >= 0 { close(listenFD) }
    let deadline = state.withLock { $0.giveUpAt } ?? Date()
    while inFlight.load(ordering: .acquiring) > 0 && Date() < deadline {
      usleep(5_000)
    }
    MHD_stop_daemon(daemon)
    state.withLock {
      $0.daemon = 0
    }
  }

  // MARK: Request assembly (called on libmicrohttpd's threads)

  /// One request being read: kept alive through libmicrohttpd's `con_cls` between the calls of
  /// the access handler and released in `requestCompleted`. Used by one connection thread at a
  /// time.
  final class PendingRequest {
    var request: HTTPRequest
    var overflow = false
    init(_ request: HTTPRequest) { self.request = request }
  }

  /// One access-handler call; see libmicrohttpd's `MHD_AccessHandlerCallback`.
  func handleCall(
    connection: OpaquePointer, url: String, method: String, upload: UnsafePointer<CChar>?,
    uploadSize: UnsafeMutablePointer<Int>, slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>
  ) -> MHD_Result {
    guard let raw = slot.pointee else {
      // First call: only the header is in. Refuse an announced oversize body before reading it.
      let request = HTTPRequest(
        method: method.uppercased(), path: url,
        query: Self.values(connection, MHD_ValueKind.GET_ARGUMENT_KIND),
        headers: Self.values(connection, MHD_ValueKind.HEADER_KIND),
        cookies: Self.values(connection, MHD_ValueKind.COOKIE_KIND))
      if let length = request.header("content-length").flatMap(Int.init),
        length > configuration.maxBodyBytes
      {
        return send(Self.tooLarge(configuration.maxBodyBytes), on: connection)
      }
      slot.pointee = Unmanaged.passRetained(PendingRequest(request)).toOpaque()
      return MHD_Result.YES
    }
    let pending = Unmanaged<PendingRequest>.fromOpaque(raw).takeUnretainedValue()
    if uploadSize.pointee > 0 {
      let count = uploadSize.pointee
      if !pending.overflow, let upload {
        if pending.request.body.count + count > configuration.maxBodyBytes {
          // Keep reading (and dropping) so the client sees a response, not a reset.
          pending.overflow = true
          pending.request.body = Data()
        } else {
          upload.withMemoryRebound(to: UInt8.self, capacity: count) {
            pending.request.body.append($0, count: count)
          }
        }
      }
      uploadSize.pointee = 0
      return MHD_Result.YES
    }
    if pending.overflow {
      return send(Self.tooLarge(configuration.maxBodyBytes), on: connection)
    }
    if state.withLock({ $0.stopping }) {
      return send(.error(WebError(.unavailable, detail: "the server is stopping.")), on: connection)
    }
    inFlight.add(1, ordering: .acquiringAndReleasing)
    defer { inFlight.subtract(1, ordering: .acquiringAndReleasing) }
    let response = run(pending.request)
    return send(response, on: connection)
  }

  /// Runs the async handler and waits for it on this (libmicrohttpd) thread.
  ///
  /// Once ``stop(graceSeconds:)``'s grace period is over, the wait ends with a 503 whether or not
  /// the handler has finished (its result is then dropped): a handler that cannot finish, for
  /// instance because every thread of the concurrency pool is blocked by a caller waiting for
  /// `stop` to return, must not keep `stop` from returning.
  private func run(_ request: HTTPRequest) -> HTTPResponse {
    let result = Mutex<HTTPResponse?>(nil)
    let done = DispatchSemaphore(value: 0)
    let handler = self.handler
    Task {
      let response = await handler(request)
      result.withLock { $0 = response }
      done.signal()
    }
    while done.wait(timeout: .now() + .milliseconds(100)) == .timedOut {
      if let giveUp = state.withLock({ $0.giveUpAt }), Date() >= giveUp {
        return .error(
          WebError(.unavailable, detail: "the server stopped before the request was answered."))
      }
    }
    return result.withLock { $0 }
      ?? .error(WebError(.internalError, detail: "the handler gave no response."))
  }

  private func send(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
    let created = response.body.withUnsafeBytes { bytes in
      MHD_create_response_from_buffer(
        bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress),
        MHD_ResponseMemoryMode.RESPMEM_MUST_COPY)
    }
    guard let created else { return MHD_Result.NO }
    defer { MHD_destroy_response(created) }
    for (name, value) in response.headers.sorted(by: { $0.key < $1.key }) {
      // A header with a line break would be refused by libmicrohttpd; never send one.
      guard !name.contains(where: \.isNewline), !value.contains(where: \.isNewline) else {
        continue
      }
      _ = MHD_add_response_header(created, name, value)
    }
    return MHD_queue_response(connection, UInt32(response.status), created)
  }

  private static func tooLarge(_ limit: Int) -> HTTPResponse {
    .error(WebError(.tooLarge, detail: "the body is larger than the limit of \(limit) bytes."))
  }

  /// Collects the values of one kind (header, query argument, cookie) into a dictionary.
  private static func values(_ connection: OpaquePointer, _ kind: MHD_ValueKind) -> [String: String]
  {
    final class Box { var values: [String: String] = [:] }
    let box = Box()
    let context = Unmanaged.passUnretained(box).toOpaque()
    _ = withExtendedLifetime(box) {
      MHD_get_connection_values(
        connection, kind,
        { cls, valueKind, key, value in
          guard let cls, let key else { return MHD_Result.YES }
          let box = Unmanaged<Box>.fromOpaque(cls).takeUnretainedValue()
          let name =
            valueKind == MHD_ValueKind.HEADER_KIND
            ? String(cString: key).lowercased() : String(cString: key)
          box.values[name] = value.map { String(cString: $0) } ?? ""
          return MHD_Result.YES
        }, context)
    }
    return box.values
  }

  // MARK: Sockets

  private static func openListeningSocket(host: String, port: UInt16) throws(WebError) -> Int32 {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
      throw WebError(.internalError, source: host, detail: "not an IPv4 address (like 127.0.0.1).")
    }
    #if canImport(Glibc)
      let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    #else
      let fd = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard fd >= 0 else {
      throw WebError(.internalError, source: host, detail: "socket failed: \(lastError()).")
    }
    var yes: Int32 = 1
    _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard bound == 0 else {
      let message = lastError()
      close(fd)
      throw WebError(
        .internalError, source: "\(host):\(port)", detail: "cannot listen: \(message).")
    }
    guard listen(fd, 64) == 0 else {
      let message = lastError()
      close(fd)
      throw WebError(
        .internalError, source: "\(host):\(port)", detail: "listen failed: \(message).")
    }
    return fd
  }

  private static func lastError() -> String { String(cString: strerror(errno)) }
}

/// libmicrohttpd's access handler: a C function pointer, so no captures; the server comes in
/// through `cls`.
private let accessHandler: MHD_AccessHandlerCallback = {
  cls, connection, url, method, _, upload, uploadSize, slot in
  guard let cls, let connection, let url, let method, let uploadSize, let slot else {
    return MHD_Result.NO
  }
  let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
  return server.handleCall(
    connection: connection, url: String(cString: url), method: String(cString: method),
    upload: upload,
    uploadSize: uploadSize, slot: slot)
}

/// Releases the request kept between access-handler calls, however the request ended.
private let requestCompleted: MHD_RequestCompletedCallback = { _, _, slot, _ in
  guard let slot, let raw = slot.pointee else { return }
  Unmanaged<HTTPServer.PendingRequest>.fromOpaque(raw).release()
  slot.pointee = nil
}

/// Percent-decodes a path or query argument in place, like libmicrohttpd's own unescaper, except
/// that `%00` stays as it is: a decoded NUL would cut the C string short and turn
/// `/assets/a.js%00.png` into `/assets/a.js`.
private let unescape:
  @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafeMutablePointer<CChar>?) -> Int = {
    _, _, text in
    guard let text else { return 0 }
    func hex(_ c: CChar) -> UInt8? {
      switch UInt8(bitPattern: c) {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt8(bitPattern: c) - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt8(bitPattern: c) - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt8(bitPattern: c) - UInt8(ascii: "A") + 10
      default: nil
      }
    }
    var read = 0, write = 0
    while text[read] != 0 {
      if text[read] == CChar(UInt8(ascii: "%")), text[read + 1] != 0, let hi = hex(text[read + 1]),
        text[read + 2] != 0, let lo = hex(text[read + 2]), hi << 4 | lo != 0
      {
        text[write] = CChar(bitPattern: hi << 4 | lo)
        read += 3
      } else {
        text[write] = text[read]
        read += 1
      }
      write += 1
    }
    text[write] = 0
    return write
  }
