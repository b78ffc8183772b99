// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Runs the built `retouch` executable and captures what it prints.
public enum CLIRunner {
  public struct Result: Sendable {
    public let exitCode: Int32
    public let stdout: String
    public let stderr: String
  }

  /// The `retouch` binary built beside the test bundle (`RETOUCH_BIN` overrides).
  public static let binary: URL = {
    if let env = ProcessInfo.processInfo.environment["RETOUCH_BIN"], !env.isEmpty {
      return URL(fileURLWithPath: env)
    }
    var dir = Bundle.main.bundleURL
    for _ in 0..<3 {
      let candidate = dir.appendingPathComponent("retouch")
      if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
      dir = dir.deletingLastPathComponent()
    }
    return Bundle.main.bundleURL.appendingPathComponent("retouch")
  }()

  /// Runs `retouch` with `arguments` and waits for it.
  ///
  /// The child reads and writes a learning file of its own (a fresh path in a temporary
  /// folder), never the user's: `suggest` reorders its list by what that file holds, so the
  /// README's example printed one order on a machine whose user had saved edits in the web
  /// editor and another on a fresh one.
  ///
  /// - Parameters:
  ///   - environment: variables set for the child on top of this process's own environment
  ///     (e.g. `["RETOUCH_LANG": "zh-Hans"]`); `RETOUCH_LEARNING_FILE` here replaces the
  ///     child's own learning file.
  ///   - currentDirectory: the child's working folder (default: this process's).
  public static func run(
    _ arguments: [String], environment: [String: String] = [:],
    currentDirectory: URL? = nil
  ) throws -> Result {
    let process = Process()
    process.executableURL = binary
    process.arguments = arguments
    process.currentDirectoryURL = currentDirectory
    let learning = try temporaryDirectory().appendingPathComponent("learning.json")
    process.environment = ProcessInfo.processInfo.environment
      .merging(["RETOUCH_LEARNING_FILE": learning.path]) { $1 }
      .merging(environment) { $1 }
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = FileHandle.nullDevice
    try process.run()
    // Read both pipes concurrently so a chatty child cannot block on a full pipe.
    let errData = LockedData()
    let reader = Thread { errData.set(err.fileHandleForReading.readDataToEndOfFile()) }
    reader.start()
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    while !errData.isSet { usleep(1000) }
    return Result(
      exitCode: process.terminationStatus,
      stdout: String(decoding: outData, as: UTF8.self),
      stderr: String(decoding: errData.value, as: UTF8.self))
  }

  /// A fresh temporary folder for one test, inside one folder per test process that is removed
  /// when the process exits (the tests' files used to stay behind, a hundred folders per run).
  public static func temporaryDirectory() throws -> URL {
    let url = testFolders.appendingPathComponent(UUID().uuidString)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
  }

  private static let testFolders: URL = {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "retouch-test-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)")
    atexit { try? FileManager.default.removeItem(at: CLIRunner.testFolders) }
    return url
  }()
}

/// A Data slot written once by another thread.
final class LockedData: @unchecked Sendable {
  // Invariant: `data` and `done` are only touched with `lock` held.
  private let lock = NSLock()
  private var data = Data()
  private var done = false
  func set(_ d: Data) {
    lock.lock()
    data = d
    done = true
    lock.unlock()
  }
  var isSet: Bool {
    lock.lock()
    defer { lock.unlock() }
    return done
  }
  var value: Data {
    lock.lock()
    defer { lock.unlock() }
    return data
  }
}
