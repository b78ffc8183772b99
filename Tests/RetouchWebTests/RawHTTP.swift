// SPDX-License-Identifier: Apache-2.0

import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A minimal HTTP/1.1 client over a plain socket, so tests can send what a browser or URLSession
/// never would (a foreign Host, `/../` in the path, a lying Content-Length).
struct RawHTTP {
  struct Answer {
    let status: Int
    /// Header fields by lower-case name.
    let headers: [String: String]
    let body: Data
    var text: String { String(decoding: body, as: UTF8.self) }
  }

  struct Failure: Error, CustomStringConvertible {
    let description: String
  }

  let port: UInt16

  /// Sends `method path` with `headers` (Host defaults to 127.0.0.1:PORT) and `body`; reads the
  /// answer until the server closes the connection (10 s at most).
  func send(
    _ method: String, _ path: String, headers: [String: String] = [:], body: Data = Data()
  ) throws -> Answer {
    var fields = headers
    if fields["Host"] == nil { fields["Host"] = "127.0.0.1:\(port)" }
    fields["Connection"] = "close"
    if !body.isEmpty || method == "POST" { fields["Content-Length"] = String(body.count) }
    var head = "\(method) \(path) HTTP/1.1\r\n"
    for (k, v) in fields.sorted(by: { $0.key < $1.key }) { head += "\(k): \(v)\r\n" }
    head += "\r\n"
    return try exchange(Data(head.utf8) + body)
  }

  /// Writes `request` as it is and parses the answer.
  func exchange(_ request: Data) throws -> Answer {
    #if canImport(Glibc)
      let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
      let fd = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard fd >= 0 else { throw Failure(description: "socket failed") }
    defer { close(fd) }
    // Long enough for a server whose handlers wait for a concurrency pool kept busy by other
    // suites' renders running at the same time; a hung server still fails the test.
    var timeout = timeval(tv_sec: 60, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard connected == 0 else { throw Failure(description: "connect failed") }
    var sent = 0
    try request.withUnsafeBytes { raw in
      while sent < raw.count {
        let n = Glibc.send(fd, raw.baseAddress! + sent, raw.count - sent, Int32(MSG_NOSIGNAL))
        // The server may answer early (413) and close while we are still sending.
        if n <= 0 { break }
        sent += n
      }
      if sent == 0 { throw Failure(description: "send failed") }
    }
    var received = Data()
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
      let n = recv(fd, &buffer, buffer.count, 0)
      if n <= 0 { break }
      received.append(buffer, count: n)
    }
    return try Self.parse(received)
  }

  static func parse(_ data: Data) throws -> Answer {
    guard let split = data.firstRange(of: Data("\r\n\r\n".utf8)) else {
      throw Failure(description: "no complete answer (\(data.count) bytes)")
    }
    let head = String(decoding: data[..<split.lowerBound], as: UTF8.self).components(
      separatedBy: "\r\n")
    guard let statusLine = head.first, case let parts = statusLine.split(separator: " "),
      parts.count >= 2,
      let status = Int(parts[1])
    else { throw Failure(description: "bad status line") }
    var headers: [String: String] = [:]
    for line in head.dropFirst() {
      guard let colon = line.firstIndex(of: ":") else { continue }
      headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
        in: .whitespaces)
    }
    return Answer(status: status, headers: headers, body: Data(data[split.upperBound...]))
  }
}
