// SPDX-License-Identifier: Apache-2.0
// PLACEHOLDER: replaced by the metadata reader.

import Foundation
import RetouchCore

extension PhotoMetadata {
  /// Parses the raw blocks of a container into typed fields. Problems become `warnings`.
  package init(parsing blocks: MetadataBlocks, storedSize: PixelSize, warnings: inout [String]) {
    self.init()
    self.blocks = blocks
    pixelSize = storedSize
  }
}
