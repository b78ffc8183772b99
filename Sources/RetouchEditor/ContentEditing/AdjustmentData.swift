// SPDX-License-Identifier: Apache-2.0

import Foundation

/// What an editor stores beside a rendered photo so it can reopen its own edit later: which
/// editor wrote it (`formatIdentifier`, reverse-DNS), in which version of its format, and the
/// editor's own bytes. Retouch's own editor stores its `EditConfig` JSON here.
///
/// The library keeps it with every committed edit; an editor that `canHandle` it gets the original
/// plus this data and resumes where it left off, any other editor gets the rendered photo.
public struct AdjustmentData: Sendable, Hashable, Codable {
  /// Reverse-DNS identifier of the editor's format ("org.retouch.edit").
  public let formatIdentifier: String
  /// Version of that format ("1"); an editor refuses versions newer than it knows.
  public let formatVersion: String
  /// The editor's own bytes.
  public let data: Data

  public init(formatIdentifier: String, formatVersion: String, data: Data) {
    self.formatIdentifier = formatIdentifier
    self.formatVersion = formatVersion
    self.data = data
  }
}
