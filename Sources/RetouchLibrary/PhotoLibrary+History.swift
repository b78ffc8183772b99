// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchEditor
import RetouchIO
import RetouchRender

extension PhotoLibrary {
  static let revisionColumns = """
    id, asset_id, created_date, kind, render_name, format_identifier, format_version,
    adjustment_data, edit_config
    """

  static func revision(from s: SQLiteStatement) -> AssetRevision {
    var adjustment: AdjustmentData?
    if let identifier = s.optionalString(5), let data = s.optionalData(7) {
      adjustment = AdjustmentData(
        formatIdentifier: identifier, formatVersion: s.string(6), data: data)
    }
    // A stored config that no longer parses (written by a newer Retouch) is left out, not fatal.
    let config = s.optionalString(8).flatMap { try? EditConfig(json: Data($0.utf8)) }
    return AssetRevision(
      id: s.int64(0), assetID: AssetID(s.int64(1)), date: Date(timeIntervalSince1970: s.double(2)),
      kind: AssetRevision.Kind(rawValue: s.string(3)) ?? .edit, adjustmentData: adjustment,
      renderFilename: s.optionalString(4), editConfig: config)
  }

  /// Every committed change of an asset's look, newest first (edits and reverts).
  ///
  /// - Throws: ``LibraryError`` `.notFound` for an unknown asset, `.database`.
  public func history(of id: AssetID) throws(LibraryError) -> [AssetRevision] {
    try withDatabase { db throws(LibraryError) in
      _ = try Self.asset(id, in: db, source: source)
      return try db.query(
        "SELECT \(Self.revisionColumns) FROM revisions WHERE asset_id = ? ORDER BY id DESC",
        [id.rawValue],
        row: { Self.revision(from: $0) })
    }
  }

  /// The revision an asset currently shows, nil when it shows its original.
  ///
  /// - Throws: ``LibraryError`` `.notFound`, `.database`.
  public func currentRevision(of id: AssetID) throws(LibraryError) -> AssetRevision? {
    try withDatabase { db throws(LibraryError) in
      let asset = try Self.asset(id, in: db, source: source)
      guard let current = asset.currentRevisionID else { return nil }
      return try db.query(
        "SELECT \(Self.revisionColumns) FROM revisions WHERE id = ?", [current],
        row: { Self.revision(from: $0) }
      ).first
    }
  }

  /// The adjustment data of the edit an asset currently shows; nil when it shows its original.
  public func currentAdjustmentData(of id: AssetID) throws(LibraryError) -> AdjustmentData? {
    try currentRevision(of: id)?.adjustmentData
  }

  /// The file of the asset's current look: its current render, or its original when unedited.
  public func currentImageURL(of id: AssetID) throws(LibraryError) -> URL {
    let asset = try asset(id)
    if let name = try currentRevision(of: id)?.renderFilename { return renderURL(named: name) }
    return originalURL(for: asset)
  }

  /// Where a revision's render is stored (nil for a revert).
  public func renderURL(of revision: AssetRevision) -> URL? {
    revision.renderFilename.map { renderURL(named: $0) }
  }

  /// The edit sessions behind an editor app's grid of past edits, newest first: every committed
  /// Retouch edit (look, sliders, when), including those later replaced or reverted.
  ///
  /// - Parameter asset: only this photo's sessions; nil for every photo's.
  /// - Throws: ``LibraryError`` `.database`.
  public func editSessions(of asset: AssetID? = nil, limit: Int? = nil) throws(LibraryError)
    -> [EditSession]
  {
    var sql =
      "SELECT id, asset_id, created_date, edit_config FROM revisions WHERE edit_config IS NOT NULL"
    var values: [any SQLiteBindable] = []
    if let asset {
      sql += " AND asset_id = ?"
      values.append(asset.rawValue)
    }
    sql += " ORDER BY created_date DESC, id DESC LIMIT ?"
    values.append(limit ?? -1)
    let bound = values
    let rows = try withDatabase { db throws(LibraryError) in
      try db.query(sql, bound) { s in (s.int64(0), s.int64(1), s.double(2), s.string(3)) }
    }
    return rows.compactMap { row in
      guard let config = try? EditConfig(json: Data(row.3.utf8)) else { return nil }
      return EditSession(
        id: row.0, assetID: AssetID(row.1), date: Date(timeIntervalSince1970: row.2), config: config
      )
    }
  }

  // MARK: Content editing

  /// The input an editor needs to edit an asset, as Photos gives its editing extensions: the
  /// original (a file, never written to), its orientation and metadata, the current edit's
  /// adjustment data and its render, and optionally a display-size image of the current look.
  ///
  /// The input itself applies the resume-or-baked-in rule (`ContentEditingInput.base(for:)`): an
  /// editor that can handle the adjustment data resumes from the original, any other works on the
  /// render. Cost: the original's header, plus one shrink-on-load decode when
  /// `displayMaxDimension` is set.
  ///
  /// - Parameter displayMaxDimension: long edge of the display-size image; nil for none.
  /// - Throws: ``LibraryError`` `.notFound`, `.invalidChange` for a photo in Recently Deleted,
  ///   `.badPhoto` when the original (or the render) cannot be read.
  public func requestContentEditingInput(
    for id: AssetID, displayMaxDimension: Int? = nil
  ) throws(LibraryError) -> ContentEditingInput {
    let asset = try asset(id)
    guard !asset.isDeleted else {
      throw LibraryError(
        .invalidChange, source: "photo \(id)",
        detail: "it is in Recently Deleted; restore it first.")
    }
    let original = originalURL(for: asset)
    let current = try currentRevision(of: id)
    let render = current.flatMap { renderURL(of: $0) }
    let metadata: PhotoMetadata
    var display: Image?
    do {
      metadata = try ImageDecoder().readMetadata(
        try ImageDecoder.readFile(original), source: asset.originalFilename
      ).metadata
      if let size = displayMaxDimension {
        var options = DecodeOptions()
        options.minimumLongEdge = max(1, size)
        let image = try ImageDecoder(options: options).decode(render ?? original).image
        display = image.size.longEdge > size ? image.resized(toFitLongEdge: max(1, size)) : image
      }
    } catch {
      throw LibraryError(.badPhoto, source: asset.originalFilename, detail: error.description)
    }
    return ContentEditingInput(
      original: .file(original), orientation: asset.orientation, metadata: metadata,
      displaySizeImage: display,
      adjustmentData: current?.adjustmentData, renderedPhoto: render.map { .file($0) })
  }
}
