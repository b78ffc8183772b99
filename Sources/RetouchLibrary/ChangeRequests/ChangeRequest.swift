// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchEditor
import RetouchRender

/// One change to one asset, committed with the others of its batch by
/// ``PhotoLibrary/performChanges(_:)``: all of them or none.
public struct ChangeRequest: Sendable {
  enum Action: Sendable {
    case edit(ContentEditingOutput, EditConfig?)
    case revert
    case delete
    case restore
  }

  public let assetID: AssetID
  let action: Action

  /// A new look for the asset: the JPEG the editor wrote to the output's `renderedContentURL`,
  /// with the output's adjustment data (which must be set).
  ///
  /// - Parameter editConfig: the Retouch edit behind it, for the edit-session grid; when nil and
  ///   the adjustment data comes from a built-in editor, it is read from there.
  public static func edit(
    _ asset: AssetID, output: ContentEditingOutput, editConfig: EditConfig? = nil
  ) -> ChangeRequest {
    ChangeRequest(assetID: asset, action: .edit(output, editConfig))
  }

  /// Back to the original; the edits before stay in the history.
  public static func revertToOriginal(_ asset: AssetID) -> ChangeRequest {
    ChangeRequest(assetID: asset, action: .revert)
  }

  /// Moves the asset to Recently Deleted (restorable until the retention period ends).
  public static func delete(_ asset: AssetID) -> ChangeRequest {
    ChangeRequest(assetID: asset, action: .delete)
  }

  /// Brings an asset back from Recently Deleted.
  public static func restore(_ asset: AssetID) -> ChangeRequest {
    ChangeRequest(assetID: asset, action: .restore)
  }
}

/// The change requests of one ``PhotoLibrary/performChanges(_:)-(ChangeBatch)`` call, in order.
public struct ChangeBatch: Sendable {
  public private(set) var requests: [ChangeRequest] = []
  public init() {}

  /// Adds a new look for `asset` (see ``ChangeRequest/edit(_:output:editConfig:)``).
  public mutating func edit(
    _ asset: AssetID, output: ContentEditingOutput, editConfig: EditConfig? = nil
  ) {
    requests.append(.edit(asset, output: output, editConfig: editConfig))
  }
  public mutating func revertToOriginal(_ asset: AssetID) {
    requests.append(.revertToOriginal(asset))
  }
  public mutating func delete(_ asset: AssetID) { requests.append(.delete(asset)) }
  public mutating func restore(_ asset: AssetID) { requests.append(.restore(asset)) }
  public mutating func add(_ request: ChangeRequest) { requests.append(request) }
}
