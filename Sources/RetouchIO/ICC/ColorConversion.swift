// SPDX-License-Identifier: Apache-2.0
// PLACEHOLDER: replaced by the ICC implementation.

import Foundation
import RetouchCore

enum ColorConversion {
  /// Converts pixels described by `profile` (or `nclx`) into sRGB or Display P3, whichever holds
  /// the source's gamut, and tags the result.
  static func toWorkingSpace(_ image: Image, profile: Data?, nclx: NCLXColorInfo?, warnings: inout [String]) -> Image {
    image
  }
}
