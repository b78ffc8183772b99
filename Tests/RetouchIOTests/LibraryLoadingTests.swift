// SPDX-License-Identifier: Apache-2.0

import CRetouchLoaders
import Testing

/// libheif and libmicrohttpd are opened on first use (rt_loaders.h): every function Retouch
/// forwards to must exist in the installed library, and loading again must be harmless.
@Suite("Libraries loaded on first use")
struct LibraryLoadingTests {
  /// The message `load` leaves, "" on success.
  private static func load(_ load: (UnsafeMutablePointer<CChar>, Int) -> Int32) -> (Int32, String) {
    var message = [CChar](repeating: 0, count: 512)
    let loaded = load(&message, message.count)
    let text = String(
      decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return (loaded, text)
  }

  @Test func libheifResolvesEveryForwardedFunction() {
    for _ in 0..<2 {
      let (loaded, message) = Self.load { rt_heif_load($0, $1) }
      #expect(loaded == 1, "libheif: \(message)")
      #expect(message.isEmpty)
    }
    // A forwarder reaches the library.
    #expect(heif_init(nil).code == heif_error_Ok)
  }

  @Test func libmicrohttpdResolvesEveryForwardedFunction() {
    for _ in 0..<2 {
      let (loaded, message) = Self.load { rt_microhttpd_load($0, $1) }
      #expect(loaded == 1, "libmicrohttpd: \(message)")
      #expect(message.isEmpty)
    }
  }
}
