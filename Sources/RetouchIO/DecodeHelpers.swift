// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore

extension Data {
  /// Runs `body` over the bytes and passes its typed error through (`withUnsafeBytes` rethrows
  /// only untyped errors).
  func withDecodingBytes<T>(
    _ body: (UnsafeRawBufferPointer) throws(ImageDecodingError) -> T
  ) throws(ImageDecodingError) -> T {
    let result: Result<T, ImageDecodingError> = withUnsafeBytes { bytes in
      Result { () throws(ImageDecodingError) -> T in try body(bytes) }
    }
    return try result.get()
  }
}

extension Image {
  /// Sets every row from `row` down to black (and transparent): what a decoder left unwritten
  /// when the data stopped early.
  mutating func blackenRows(from row: Int) {
    let start = row * bytesPerRow
    withUnsafeMutableBytes { raw in
      guard let base = raw.baseAddress, start < raw.count else { return }
      (base + start).initializeMemory(as: UInt8.self, repeating: 0, count: raw.count - start)
    }
  }
}
