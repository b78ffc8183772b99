// SPDX-License-Identifier: Apache-2.0

/// The library database's schema: version 1 as first shipped, and the migrations that bring any
/// older library up to ``currentVersion``. A new library is created at version 1 and migrated, so
/// every migration runs on every new library too.
///
/// The version lives in SQLite's `PRAGMA user_version`.
enum LibrarySchema {
  /// The schema this build writes.
  static let currentVersion = 2

  /// Schema version 1: assets and their edits, adjustment data stored in the row.
  static let version1 = """
    CREATE TABLE assets(
      id INTEGER PRIMARY KEY,
      original_hash TEXT NOT NULL UNIQUE,
      original_name TEXT NOT NULL,
      original_extension TEXT NOT NULL,
      format TEXT NOT NULL,
      file_size INTEGER NOT NULL,
      pixel_width INTEGER,
      pixel_height INTEGER,
      orientation INTEGER NOT NULL DEFAULT 1,
      capture_date REAL,
      camera_make TEXT,
      camera_model TEXT,
      import_date REAL NOT NULL);
    CREATE TABLE edits(
      id INTEGER PRIMARY KEY,
      asset_id INTEGER NOT NULL REFERENCES assets(id),
      created_date REAL NOT NULL,
      render_name TEXT NOT NULL,
      format_identifier TEXT NOT NULL,
      format_version TEXT NOT NULL,
      adjustment_data BLOB NOT NULL);
    CREATE INDEX edits_by_asset ON edits(asset_id);
    PRAGMA user_version = 1;
    """

  /// Migrations by the version they start from; each ends by setting the next version.
  static let migrations: [Int: String] = [
    // 1 → 2: GPS, recently deleted, the current revision as a column (so listing needs no join),
    // `edits` becomes `revisions` (reverts are history too; render hashes for the checker; the
    // edit session's EditConfig), and indexes for the sorted listings.
    1: """
    ALTER TABLE assets ADD COLUMN latitude REAL;
    ALTER TABLE assets ADD COLUMN longitude REAL;
    ALTER TABLE assets ADD COLUMN altitude REAL;
    ALTER TABLE assets ADD COLUMN deleted_date REAL;
    ALTER TABLE assets ADD COLUMN current_revision_id INTEGER REFERENCES revisions(id);
    CREATE TABLE revisions(
      id INTEGER PRIMARY KEY,
      asset_id INTEGER NOT NULL REFERENCES assets(id) ON DELETE CASCADE,
      created_date REAL NOT NULL,
      kind TEXT NOT NULL CHECK (kind IN ('edit', 'revert')),
      render_name TEXT UNIQUE,
      render_hash TEXT,
      format_identifier TEXT,
      format_version TEXT,
      adjustment_data BLOB,
      look TEXT,
      edit_config TEXT,
      CHECK ((kind = 'edit') = (render_name IS NOT NULL AND adjustment_data IS NOT NULL)));
    INSERT INTO revisions(
      id, asset_id, created_date, kind, render_name, format_identifier, format_version,
      adjustment_data)
      SELECT id, asset_id, created_date, 'edit', render_name, format_identifier, format_version,
        adjustment_data FROM edits;
    DROP TABLE edits;
    UPDATE assets SET current_revision_id =
      (SELECT max(id) FROM revisions WHERE revisions.asset_id = assets.id);
    CREATE INDEX revisions_by_asset ON revisions(asset_id, id);
    CREATE INDEX revisions_sessions ON revisions(created_date) WHERE edit_config IS NOT NULL;
    CREATE INDEX assets_by_capture ON assets(coalesce(capture_date, import_date), id);
    CREATE INDEX assets_by_import ON assets(import_date, id);
    PRAGMA user_version = 2;
    """
  ]

  /// Brings the database to ``currentVersion``, one migration per transaction.
  ///
  /// - Throws: ``LibraryError`` `.newerSchema` for a library written by a newer Retouch,
  ///   `.database` when a migration fails (that migration is rolled back).
  static func migrate(_ db: SQLiteDatabase, source: String) throws(LibraryError) {
    var version = Int(try db.scalarInt("PRAGMA user_version") ?? 0)
    if version > currentVersion {
      throw LibraryError(
        .newerSchema, source: source,
        detail:
          "the library is at schema version \(version); this Retouch reads up to \(currentVersion)."
      )
    }
    while version < currentVersion {
      let start = version
      try db.transaction { () throws(LibraryError) in
        // Re-read inside the write lock: another process may have migrated meanwhile.
        let now = Int(try db.scalarInt("PRAGMA user_version") ?? 0)
        guard now == start else { return }
        if start == 0 {
          try db.execute(version1)
        } else if let sql = migrations[start] {
          try db.execute(sql)
        } else {
          throw LibraryError(
            .database, source: source, detail: "no migration from schema version \(start).")
        }
      }
      version = Int(try db.scalarInt("PRAGMA user_version") ?? 0)
      if version <= start {
        throw LibraryError(
          .database, source: source,
          detail: "migration from schema version \(start) did not advance.")
      }
    }
    if let violation = try db.query("PRAGMA foreign_key_check", row: { $0.string(0) }).first {
      throw LibraryError(
        .integrity, source: source,
        detail: "foreign key violation in table \(violation) after migration.")
    }
  }
}
