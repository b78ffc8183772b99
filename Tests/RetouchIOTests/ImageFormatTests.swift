// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchTestSupport
import Testing

@testable import RetouchIO

/// ``ImageFormat/isDecoded`` is what a library import and an upload check instead of keeping
/// their own list, so it must say what ``ImageDecoder`` actually does.
@Suite struct ImageFormatTests {
  /// Every format it calls decoded is written by ``ImageEncoder`` and read back; the others
  /// are recognised from their first bytes and refused as unsupported.
  @Test(arguments: ImageFormat.allCases)
  func isDecodedSaysWhatTheDecoderDoes(format: ImageFormat) throws {
    if format.isDecoded {
      let image = codecSmoothImage(width: 32, height: 24, format: .rgb8)
      let data = try ImageEncoder().encode(image, as: format)
      #expect(ImageFormat.sniff(data) == format)
      #expect(try ImageDecoder().decode(data).image.size == image.size)
      return
    }
    let start: [UInt8] =
      switch format {
      case .gif: Array("GIF89a".utf8) + [8, 0, 8, 0, 0, 0, 0]
      case .bmp: Array("BM".utf8) + [UInt8](repeating: 0, count: 30)
      default: []
      }
    let data = Data(start)
    #expect(ImageFormat.sniff(data) == format)
    let error = #expect(throws: ImageDecodingError.self) { try ImageDecoder().decode(data) }
    #expect(error?.kind == .unsupportedFormat, "\(String(describing: error))")
  }

  /// A folder run and a folder import look for the extensions of exactly the decoded formats,
  /// and a written photo is named by its format's usual one.
  @Test func decodedFileExtensionsAreThoseOfTheDecodedFormats() {
    #expect(
      ImageFormat.allCases.map(\.fileExtension) == [
        "jpg", "png", "heic", "avif", "tif", "webp", "gif", "bmp",
      ])
    for format in ImageFormat.allCases {
      for ext in format.fileExtensions {
        #expect(ImageFormat.decodedFileExtensions.contains(ext) == format.isDecoded, "\(ext)")
      }
    }
    #expect(
      ImageFormat.decodedFileExtensions
        == ["jpg", "jpeg", "jpe", "png", "heic", "heif", "hif", "avif", "webp", "tif", "tiff"])
  }
}
