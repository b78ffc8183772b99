// SPDX-License-Identifier: Apache-2.0
// PLACEHOLDER: replaced by the metadata writer.

import Foundation
import RetouchCore

/// Builds the metadata blocks written with an exported image.
enum ExportMetadata {
  /// The blocks for an output of `image`: EXIF corrected (orientation 1, new pixel size, software,
  /// thumbnail dropped), XMP kept with its orientation/size corrected, and the ICC profile of the
  /// image's colour space.
  static func blocks(for image: Image, from metadata: PhotoMetadata?, software: String) -> MetadataBlocks {
    MetadataBlocks()
  }
}
