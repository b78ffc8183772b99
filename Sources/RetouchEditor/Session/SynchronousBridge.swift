// SPDX-License-Identifier: Apache-2.0

import Dispatch
import Synchronization

/// Runs `work` on a detached task and blocks the calling thread until it finishes: for the
/// package's synchronous command-line front ends (the CLI, the bench), which drive the async
/// editing API from a plain thread. Never call it from async code or a cooperative-pool thread:
/// it would hold a thread the work may need.
package func waitForAsync<T: Sendable, E: Error>(
  _ work: @escaping @Sendable () async throws(E) -> T
) throws(E) -> T {
  let box = Mutex<Result<T, E>?>(nil)
  let done = DispatchSemaphore(value: 0)
  Task.detached {
    do throws(E) {
      let value = try await work()
      box.withLock { $0 = .success(value) }
    } catch {
      box.withLock { $0 = .failure(error) }
    }
    done.signal()
  }
  done.wait()
  // The task always stores a result before signalling.
  guard let result = box.withLock({ $0 }) else {
    preconditionFailure("the task finished without a result")
  }
  return try result.get()
}
