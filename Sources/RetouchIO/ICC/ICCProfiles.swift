// SPDX-License-Identifier: Apache-2.0
// PLACEHOLDER: replaced by the ICC implementation.

import Foundation
import RetouchCore

/// The ICC profiles Retouch tags its outputs with.
package enum ICCProfiles {
  /// The ICC bytes describing `space` (built once, then cached).
  package static func data(for space: ColorSpace) -> Data { Data() }
}
