// SPDX-License-Identifier: Apache-2.0
// PLACEHOLDER: replaced by the JPEG codec implementation.

import Foundation
import RetouchCore

enum JPEGCodec {
  static func decode(_ data: Data, source: String, options: DecodeOptions) throws(ImageDecodingError) -> RawDecode {
    throw ImageDecodingError(.unsupportedFormat, source: source, detail: "JPEG decoding is not built yet.")
  }

  static func readHeader(_ data: Data, source: String, options: DecodeOptions) throws(ImageDecodingError) -> (storedSize: PixelSize, blocks: MetadataBlocks, orientationApplied: Bool) {
    throw ImageDecodingError(.unsupportedFormat, source: source, detail: "JPEG reading is not built yet.")
  }

  static func encode(_ image: Image, options: EncodeOptions, blocks: MetadataBlocks) throws(ImageEncodingError) -> Data {
    throw ImageEncodingError(.unsupportedFormat, detail: "JPEG encoding is not built yet.")
  }
}
