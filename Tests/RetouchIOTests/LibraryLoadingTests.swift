// SPDX-License-Identifier: Apache-2.0

import CRetouchLoaders
import Testing

/// libheif, libmicrohttpd and libwebp are opened on first use (rt_loaders.h): every function Retouch
/// forwards to must exist in the installed library, and loading again must be harmless.
@Suite("Libraries loaded on first use")
struct LibraryLoadingTests {
  @Test func libheifResolvesEveryForwardedFunction() {
    for _ in 0..<2 {
      let failure = rt_heif_load().map { String(cString: $0) }
      #expect(failure == nil, "libheif: \(failure ?? "")")
    }
    // A forwarder reaches the library.
    #expect(heif_init(nil).code == heif_error_Ok)
  }

  @Test func libmicrohttpdResolvesEveryForwardedFunction() {
    for _ in 0..<2 {
      let failure = rt_microhttpd_load().map { String(cString: $0) }
      #expect(failure == nil, "libmicrohttpd: \(failure ?? "")")
    }
  }

  @Test func libwebpResolvesEveryForwardedFunction() {
    for _ in 0..<2 {
      let failure = rt_webp_load().map { String(cString: $0) }
      #expect(failure == nil, "libwebp: \(failure ?? "")")
    }
    // A forwarder reaches the library: a config for this header's encoder interface.
    var config = WebPConfig()
    #expect(
      WebPConfigInitInternal(&config, WEBP_PRESET_PHOTO, 80, Int32(WEBP_ENCODER_ABI_VERSION)) != 0)
    #expect(config.quality == 80)
  }
}
