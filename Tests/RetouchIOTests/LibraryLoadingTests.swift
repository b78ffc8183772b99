// SPDX-License-Identifier: Apache-2.0

import CRetouchLoaders
import Testing

/// libheif, libmicrohttpd, libwebp and libtiff are opened on first use (rt_loaders.h): every
/// function Retouch forwards to must exist in the installed library, and loading again must be
/// harmless.
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

  @Test func libtiffResolvesEveryForwardedFunction() {
    for _ in 0..<2 {
      let failure = rt_tiff_load().map { String(cString: $0) }
      #expect(failure == nil, "libtiff: \(failure ?? "")")
    }
    // A forwarder reaches the library: bytes that are not TIFF are refused, with libtiff's
    // reason captured.
    let bytes: [UInt8] = Array("not a TIFF file at all".utf8)
    bytes.withUnsafeBytes { raw in
      let file = rt_tiff_open_memory(raw.baseAddress, raw.count, 1 << 20)
      defer { rt_tiff_close(file) }
      #expect(file != nil && rt_tiff_handle(file) == nil)
      #expect(rt_tiff_error_count(file) > 0)
      #expect(String(cString: rt_tiff_message(file)).contains("magic number"))
    }
  }
}
