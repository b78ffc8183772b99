// SPDX-License-Identifier: Apache-2.0

/// A failure the CLI reports on stderr, with the sysexits-style code it exits with.
struct CLIError: Error, CustomStringConvertible {
  /// Exit codes (BSD sysexits): 64 usage, 65 bad input data, 66 unreadable input, 70 internal
  /// error, 73 output cannot be created.
  enum Code: Int32 {
    case usage = 64
    case dataError = 65
    case noInput = 66
    case software = 70
    case cantCreate = 73
  }

  let code: Code
  let message: String
  var description: String { message }

  static func usage(_ message: String) -> CLIError { CLIError(code: .usage, message: message) }
}
