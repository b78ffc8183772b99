// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchEditor
import RetouchRender

extension PhotoLibrary {
  /// The Retouch edit behind adjustment data written by one of the built-in editors (Retouch's
  /// own, vignette, sepia, filter), for the edit-session grid; nil for other editors' data.
  static func editConfig(of data: AdjustmentData) -> EditConfig? {
    if let config = try? RetouchEditingController.config(from: data) { return config }
    if let edit = try? VignetteEditingController.edit(from: data) { return edit.config }
    if let edit = try? SepiaEditingController.edit(from: data) { return edit.config }
    if let edit = try? FilterEditingController.edit(from: data) { return edit.config }
    return nil
  }

  /// Commits a batch of change requests atomically: either every request takes effect or none.
  ///
  /// In order: every request is checked (the asset exists and is in the right state, an edit has
  /// adjustment data and a JPEG render); the write lock is taken; each render is copied into
  /// `Renders/` under a fresh name through a synced temporary file and a rename; the folder is
  /// synced; then the revisions and the assets' current looks are written in the same
  /// transaction and committed. If anything fails the transaction rolls back and the copied
  /// renders are removed; a crash before the commit leaves only unreferenced files, which
  /// ``checkIntegrity(repair:verifyHashes:)`` removes. The editor's own output files are left
  /// where they are (the caller owns them).
  ///
  /// Cost: one file copy and one `fsync` per edit (about 4 ms each here), one commit.
  /// - Returns: the new revisions (edits and reverts), in request order.
  /// - Throws: ``LibraryError``: `.notFound` (unknown asset), `.invalidChange` (no adjustment
  ///   data, missing or non-JPEG render, an edit of a deleted photo, restoring a live one),
  ///   `.fileSystem`, `.database`, `.busy`. Nothing has changed when it throws.
  @discardableResult
  public func performChanges(_ requests: [ChangeRequest]) throws(LibraryError) -> [AssetRevision] {
    let now = options.clock().timeIntervalSince1970
    return try withDatabase { db throws(LibraryError) in
      var staged: [URL] = []
      do throws(LibraryError) {
        let revisions = try db.transaction { () throws(LibraryError) -> [AssetRevision] in
          let prepared = try prepare(requests, in: db)
          var results: [AssetRevision] = []
          var names: [String?] = []
          for item in prepared {
            guard case .edit = item.request.action, let bytes = item.renderBytes else {
              names.append(nil)
              continue
            }
            if let limit = options.failsAfterStagedRenders, staged.count == limit {
              throw LibraryError(
                .fileSystem, source: "Renders", detail: "injected failure after \(limit) renders.")
            }
            let name = UUID().uuidString.lowercased() + ".jpg"
            let destination = renderURL(named: name)
            try DurableFile.write(bytes, to: destination)
            staged.append(destination)
            names.append(name)
          }
          if !staged.isEmpty { try DurableFile.syncDirectory(rendersDirectory) }
          for (item, name) in zip(prepared, names) {
            if let revision = try apply(item, renderName: name, at: now, in: db) {
              results.append(revision)
            }
          }
          return results
        }
        return revisions
      } catch {
        for url in staged { DurableFile.remove(url) }
        throw error
      }
    }
  }

  /// Builds a batch with `build` and commits it (see ``performChanges(_:)-([ChangeRequest])``).
  @discardableResult
  public func performChanges(_ build: (inout ChangeBatch) -> Void) throws(LibraryError)
    -> [AssetRevision]
  {
    var batch = ChangeBatch()
    build(&batch)
    return try performChanges(batch.requests)
  }

  /// A request checked against the library, with its render read.
  private struct PreparedChange {
    let request: ChangeRequest
    let renderBytes: Data?
    let renderHash: String?
    let adjustmentData: AdjustmentData?
    let editConfig: EditConfig?
  }

  /// Checks every request before anything is written; the states follow the batch's own order
  /// (deleting then restoring one photo in one batch is fine).
  private func prepare(_ requests: [ChangeRequest], in db: SQLiteDatabase) throws(LibraryError)
    -> [PreparedChange]
  {
    var deleted: [AssetID: Bool] = [:]
    var result: [PreparedChange] = []
    for (index, request) in requests.enumerated() {
      let id = request.assetID
      let where_ = "change \(index + 1) of \(requests.count) (photo \(id))"
      let isDeleted: Bool
      if let known = deleted[id] {
        isDeleted = known
      } else {
        isDeleted = try Self.asset(id, in: db, source: source).isDeleted
      }
      switch request.action {
      case .edit(let output, let explicitConfig):
        guard !isDeleted else {
          throw LibraryError(
            .invalidChange, source: where_,
            detail: "the photo is in Recently Deleted; restore it first.")
        }
        guard let adjustment = output.adjustmentData else {
          throw LibraryError(
            .invalidChange, source: where_, detail: "the editing output has no adjustment data.")
        }
        let bytes: Data
        do {
          bytes = try Data(contentsOf: output.renderedContentURL)
        } catch {
          throw LibraryError(
            .invalidChange, source: where_,
            detail:
              "the rendered file \(output.renderedContentURL.lastPathComponent) cannot be read.")
        }
        guard bytes.count > 3, bytes[bytes.startIndex] == 0xFF, bytes[bytes.startIndex + 1] == 0xD8,
          bytes[bytes.startIndex + 2] == 0xFF
        else {
          throw LibraryError(
            .invalidChange, source: where_,
            detail:
              "the rendered file \(output.renderedContentURL.lastPathComponent) is not a JPEG.")
        }
        let config = explicitConfig ?? Self.editConfig(of: adjustment)
        result.append(
          PreparedChange(
            request: request, renderBytes: bytes, renderHash: SHA256.hexDigest(bytes),
            adjustmentData: adjustment,
            editConfig: config))
      case .revert:
        guard !isDeleted else {
          throw LibraryError(
            .invalidChange, source: where_,
            detail: "the photo is in Recently Deleted; restore it first.")
        }
        result.append(
          PreparedChange(
            request: request, renderBytes: nil, renderHash: nil, adjustmentData: nil,
            editConfig: nil))
      case .delete:
        guard !isDeleted else {
          throw LibraryError(
            .invalidChange, source: where_, detail: "the photo is already in Recently Deleted.")
        }
        deleted[id] = true
        result.append(
          PreparedChange(
            request: request, renderBytes: nil, renderHash: nil, adjustmentData: nil,
            editConfig: nil))
      case .restore:
        guard isDeleted else {
          throw LibraryError(
            .invalidChange, source: where_, detail: "the photo is not in Recently Deleted.")
        }
        deleted[id] = false
        result.append(
          PreparedChange(
            request: request, renderBytes: nil, renderHash: nil, adjustmentData: nil,
            editConfig: nil))
      }
    }
    return result
  }

  /// Writes one prepared change's rows; returns the new revision for edits and reverts.
  private func apply(
    _ item: PreparedChange, renderName: String?, at now: Double, in db: SQLiteDatabase
  ) throws(LibraryError) -> AssetRevision? {
    let id = item.request.assetID.rawValue
    switch item.request.action {
    case .edit:
      guard let adjustment = item.adjustmentData, let renderName else { return nil }
      let configJSON = item.editConfig.map { String(decoding: $0.jsonData(), as: UTF8.self) }
      try db.run(
        """
        INSERT INTO revisions(asset_id, created_date, kind, render_name, render_hash, format_identifier,
          format_version, adjustment_data, look, edit_config) VALUES (?, ?, 'edit', ?, ?, ?, ?, ?, ?, ?)
        """,
        [
          id, now, renderName, item.renderHash, adjustment.formatIdentifier,
          adjustment.formatVersion,
          adjustment.data, item.editConfig?.look?.look.rawValue, configJSON,
        ])
      let revisionID = db.lastInsertRowID
      try db.run("UPDATE assets SET current_revision_id = ? WHERE id = ?", [revisionID, id])
      return AssetRevision(
        id: revisionID, assetID: item.request.assetID, date: Date(timeIntervalSince1970: now),
        kind: .edit,
        adjustmentData: adjustment, renderFilename: renderName, editConfig: item.editConfig)
    case .revert:
      try db.run(
        "INSERT INTO revisions(asset_id, created_date, kind) VALUES (?, ?, 'revert')", [id, now])
      let revisionID = db.lastInsertRowID
      try db.run("UPDATE assets SET current_revision_id = NULL WHERE id = ?", [id])
      return AssetRevision(
        id: revisionID, assetID: item.request.assetID, date: Date(timeIntervalSince1970: now),
        kind: .revertToOriginal, adjustmentData: nil, renderFilename: nil, editConfig: nil)
    case .delete:
      try db.run("UPDATE assets SET deleted_date = ? WHERE id = ?", [now, id])
      return nil
    case .restore:
      try db.run("UPDATE assets SET deleted_date = NULL WHERE id = ?", [id])
      return nil
    }
  }

  /// Removes for good the photos that have been in Recently Deleted longer than
  /// ``Options/deletionRetention``: their rows and history in one transaction, then their files
  /// (a crash in between leaves unreferenced files, which the integrity check removes).
  ///
  /// - Returns: the ids purged.
  /// - Throws: ``LibraryError`` `.database`.
  @discardableResult
  public func purgeExpiredDeletions() throws(LibraryError) -> [AssetID] {
    let cutoff = options.clock().timeIntervalSince1970 - options.deletionRetention
    let (ids, files) = try withDatabase { db throws(LibraryError) -> ([AssetID], [URL]) in
      try db.transaction { () throws(LibraryError) -> ([AssetID], [URL]) in
        let doomed = try db.query(
          "SELECT \(Self.assetColumns) FROM assets WHERE deleted_date IS NOT NULL AND deleted_date <= ?",
          [cutoff],
          row: { Self.asset(from: $0) })
        var files: [URL] = []
        for asset in doomed {
          files.append(originalURL(for: asset))
          files += try db.query(
            "SELECT render_name FROM revisions WHERE asset_id = ? AND render_name IS NOT NULL",
            [asset.id.rawValue],
            row: { renderURL(named: $0.string(0)) })
          try db.run(
            "UPDATE assets SET current_revision_id = NULL WHERE id = ?", [asset.id.rawValue])
          try db.run("DELETE FROM assets WHERE id = ?", [asset.id.rawValue])
        }
        return (doomed.map(\.id), files)
      }
    }
    for file in files {
      DurableFile.remove(file)
      removeThumbnails(forSourceNamed: file.deletingPathExtension().lastPathComponent)
    }
    return ids
  }
}
