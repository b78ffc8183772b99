// SPDX-License-Identifier: Apache-2.0
// PLACEHOLDER: replaced by the PNG codec implementation.

import Foundation
import RetouchCore

enum PNGCodec {
  static func decode(_ data: Data, source: String, options: DecodeOptions) throws(ImageDecodingError) -> RawDecode {
    throw ImageDecodingError(.unsupportedFormat, source: source, detail: "PNG decoding is not built yet.")
  }

  static func readHeader(_ data: Data, source: String, options: DecodeOptions) throws(ImageDecodingError) -> (storedSize: PixelSize, blocks: MetadataBlocks, orientationApplied: Bool) {
    throw ImageDecodingError(.unsupportedFormat, source: source, detail: "PNG reading is not built yet.")
  }

  static func encode(_ image: Image, options: EncodeOptions, blocks: MetadataBlocks) throws(ImageEncodingError) -> Data {
    throw ImageEncodingError(.unsupportedFormat, detail: "PNG encoding is not built yet.")
  }
}
