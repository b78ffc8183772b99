// SPDX-License-Identifier: Apache-2.0

import Dispatch
import Foundation
import Synchronization
import Testing

@testable import RetouchWeb

@Suite("HTTP server: stopping")
struct HTTPServerStopTests {
  /// A request whose handler never answers (it waits on a gate the test opens only at the
  /// end): `stop` returns once its grace period is over instead of waiting for the handler,
  /// and the client gets 503 rather than a hang.
  @Test(.timeLimit(.minutes(1))) func stopDoesNotWaitForAHandlerThatNeverAnswers() throws {
    let entered = DispatchSemaphore(value: 0)
    let gate = DispatchSemaphore(value: 0)
    let server = HTTPServer { _ in
      entered.signal()
      // Blocks this pool thread on purpose, as a handler stuck in a blocking call would.
      gate.wait()
      return HTTPResponse(status: 200)
    }
    try server.start()
    defer { gate.signal() }
    let port = server.port
    let answer = Mutex<RawHTTP.Answer?>(nil)
    let client = Thread {
      let reply = try? RawHTTP(port: port).send("GET", "/stuck")
      answer.withLock { $0 = reply }
    }
    client.start()
    // Generous: the handler runs on the concurrency pool, which other suites running at the
    // same time (HEIF encodes, whole renders) can keep busy for seconds.
    #expect(entered.wait(timeout: .now() + 45) == .success, "the handler was never called")
    let started = Date()
    server.stop(graceSeconds: 0.3)
    let took = Date().timeIntervalSince(started)
    #expect(took < 3, "stop took \(took) s")
    #expect(!server.isRunning)
    // The client was answered (503) or its connection closed; either way it is not left hanging.
    let deadline = Date().addingTimeInterval(5)
    while client.isExecuting && Date() < deadline { usleep(10_000) }
    #expect(!client.isExecuting)
    if let status = answer.withLock({ $0?.status }) { #expect(status == 503) }
  }
}
