// SPDX-License-Identifier: Apache-2.0

import RetouchIO

extension CLIError {
  /// Maps a decoder failure to the exit code a script can act on: 66 when the file cannot be
  /// read at all, 65 for bad data.
  init(_ error: ImageDecodingError) {
    self.init(code: error.kind == .unreadable ? .noInput : .dataError, message: error.description)
  }

  /// Maps an encoder failure: 73 when the output cannot be written, 64 for a bad parameter or an
  /// output format this build cannot write, 70 when the encoder itself fails.
  init(_ error: ImageEncodingError) {
    let code: Code =
      switch error.kind {
      case .unwritable: .cantCreate
      case .invalidParameter, .unsupportedFormat: .usage
      default: .software
      }
    self.init(code: code, message: error.description)
  }
}
