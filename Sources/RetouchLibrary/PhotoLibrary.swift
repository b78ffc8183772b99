// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchEditor
import RetouchIO
import RetouchRender
import Synchronization

/// A photo library in a folder: originals kept forever, edits stored non-destructively, changes
/// committed atomically.
///
/// Layout of the folder:
/// - `Library.sqlite` (WAL mode, foreign keys on): assets, revisions (the edit history with each
///   edit's adjustment data), schema version.
/// - `Originals/ab/<sha256>.<ext>`: each imported file byte for byte, named by its content, made
///   read-only and never written again.
/// - `Renders/<uuid>.jpg`: one JPEG per committed edit, never overwritten.
/// - `Thumbnails/`: a cache, made on request and safe to delete.
///
/// The adjustment data lives in the database row of its revision (it is small), so it commits in
/// the same transaction as the reference to its render.
///
/// Thread-safe: one SQLite connection behind a lock, so calls from several tasks run one at a
/// time; several processes may open the same library (SQLite's locks and a busy timeout order
/// their writes). Calls block while they read or write files; call them off any thread that must
/// stay responsive.
public final class PhotoLibrary: Sendable {
  /// How a library behaves; the defaults suit an app.
  public struct Options: Sendable {
    /// How long deleted photos stay in Recently Deleted before ``purgeExpiredDeletions()`` removes
    /// them, in seconds. Default 30 days.
    public var deletionRetention: TimeInterval = 30 * 24 * 3600
    /// How long to wait for another process's write lock, in milliseconds.
    public var busyTimeoutMilliseconds: Int32 = 10_000
    /// The clock stamped on imports, edits and deletions (tests inject a fixed one).
    public var clock: @Sendable () -> Date = { Date() }
    /// Fault injection for tests: a batch commit fails with `.fileSystem` once this many renders
    /// have been copied, as a full disk would (nil: never).
    package var failsAfterStagedRenders: Int? = nil
    public init() {}
  }

  /// The library folder.
  public let url: URL
  public let options: Options
  private let database: Mutex<SQLiteDatabase>

  /// The database file's name inside the folder.
  public static let databaseFilename = "Library.sqlite"

  var originalsDirectory: URL { url.appendingPathComponent("Originals", isDirectory: true) }
  var rendersDirectory: URL { url.appendingPathComponent("Renders", isDirectory: true) }
  var thumbnailsDirectory: URL { url.appendingPathComponent("Thumbnails", isDirectory: true) }
  var source: String { url.lastPathComponent }

  /// Opens the library in `folder`, creating it (and the folder) when missing, and brings an
  /// older library's schema up to date.
  ///
  /// - Throws: ``LibraryError`` `.fileSystem` when the folder cannot be made, `.database` when
  ///   SQLite cannot open it, `.newerSchema` for a library from a newer Retouch.
  public init(at folder: URL, options: Options = Options()) throws(LibraryError) {
    url = folder.standardizedFileURL
    self.options = options
    for dir in [
      url, url.appendingPathComponent("Originals"), url.appendingPathComponent("Renders"),
      url.appendingPathComponent("Thumbnails"),
    ] {
      try DurableFile.makeDirectory(dir)
    }
    let db = try SQLiteDatabase(
      path: url.appendingPathComponent(Self.databaseFilename).path,
      busyTimeout: options.busyTimeoutMilliseconds)
    // WAL: readers never block the writer; FULL: a commit is on disk when COMMIT returns.
    try db.execute(
      "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;")
    try LibrarySchema.migrate(db, source: url.lastPathComponent)
    database = Mutex(db)
  }

  /// The schema version of this library's database.
  public var schemaVersion: Int {
    get throws(LibraryError) {
      try withDatabase { db throws(LibraryError) in
        Int(try db.scalarInt("PRAGMA user_version") ?? 0)
      }
    }
  }

  /// Runs `body` with the connection, holding the lock. Never call back into the library from
  /// `body` (the lock is not reentrant).
  func withDatabase<T: Sendable>(_ body: (SQLiteDatabase) throws(LibraryError) -> T)
    throws(LibraryError) -> T
  {
    try database.withLock { (db: inout SQLiteDatabase) throws(LibraryError) -> T in
      try body(db)
    }
  }

  // MARK: Paths

  /// Where an asset's original is stored (read-only).
  public func originalURL(for asset: Asset) -> URL {
    originalURL(hash: asset.originalHash, extension: asset.format.fileExtension)
  }

  func originalURL(hash: String, extension ext: String) -> URL {
    originalsDirectory.appendingPathComponent(String(hash.prefix(2)), isDirectory: true)
      .appendingPathComponent("\(hash).\(ext)")
  }

  func renderURL(named name: String) -> URL { rendersDirectory.appendingPathComponent(name) }

  // MARK: Reading assets

  static let assetColumns = """
    id, original_hash, original_name, original_extension, format, file_size, pixel_width,
    pixel_height, orientation, capture_date, camera_make, camera_model, import_date, latitude,
    longitude, altitude, deleted_date, current_revision_id
    """

  static func asset(from s: SQLiteStatement) -> Asset {
    let width = s.optionalInt64(6), height = s.optionalInt64(7)
    var location: GPSLocation?
    if let lat = s.optionalDouble(13), let lon = s.optionalDouble(14) {
      location = GPSLocation(latitude: lat, longitude: lon, altitude: s.optionalDouble(15))
    }
    return Asset(
      id: AssetID(s.int64(0)), originalHash: s.string(1), originalFilename: s.string(2),
      format: ImageFormat(rawValue: s.string(4)) ?? .jpeg, fileSize: Int(s.int64(5)),
      pixelSize: width.flatMap { w in height.map { PixelSize(width: Int(w), height: Int($0)) } },
      orientation: ImageOrientation(rawValue: Int(s.int64(8))) ?? .up,
      captureDate: s.optionalDouble(9).map(Date.init(timeIntervalSince1970:)),
      cameraMake: s.optionalString(10), cameraModel: s.optionalString(11), location: location,
      importDate: Date(timeIntervalSince1970: s.double(12)),
      deletedDate: s.optionalDouble(16).map(Date.init(timeIntervalSince1970:)),
      currentRevisionID: s.optionalInt64(17))
  }

  /// The asset with this id (live or in Recently Deleted).
  ///
  /// - Throws: ``LibraryError`` `.notFound`, or `.database`.
  public func asset(_ id: AssetID) throws(LibraryError) -> Asset {
    try withDatabase { db throws(LibraryError) in try Self.asset(id, in: db, source: source) }
  }

  static func asset(_ id: AssetID, in db: SQLiteDatabase, source: String) throws(LibraryError)
    -> Asset
  {
    let rows = try db.query(
      "SELECT \(assetColumns) FROM assets WHERE id = ?", [id.rawValue], row: { asset(from: $0) })
    guard let asset = rows.first else {
      throw LibraryError(.notFound, source: source, detail: "there is no photo with id \(id).")
    }
    return asset
  }

  /// The assets matching `query`, in its order.
  ///
  /// Cost: one indexed query; about 5 ms for 10,000 assets (release build).
  /// - Throws: ``LibraryError`` `.database`.
  public func assets(_ query: AssetQuery = AssetQuery()) throws(LibraryError) -> [Asset] {
    var conditions: [String] = []
    var values: [any SQLiteBindable] = []
    switch query.deletion {
    case .live: conditions.append("deleted_date IS NULL")
    case .deleted: conditions.append("deleted_date IS NOT NULL")
    case .all: break
    }
    switch query.edits {
    case .any: break
    case .edited: conditions.append("current_revision_id IS NOT NULL")
    case .unedited: conditions.append("current_revision_id IS NULL")
    }
    if let camera = query.camera, !camera.isEmpty {
      conditions.append(
        "(coalesce(camera_make, '') || ' ' || coalesce(camera_model, '')) LIKE ? ESCAPE '\\'")
      let escaped = camera.replacingOccurrences(of: "\\", with: "\\\\")
        .replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_")
      values.append("%\(escaped)%")
    }
    if let range = query.captureDates {
      conditions.append("capture_date BETWEEN ? AND ?")
      values += [range.lowerBound.timeIntervalSince1970, range.upperBound.timeIntervalSince1970]
    }
    let key = query.sort == .captureDate ? "coalesce(capture_date, import_date)" : "import_date"
    let direction = query.ascending ? "ASC" : "DESC"
    var sql = "SELECT \(Self.assetColumns) FROM assets"
    if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
    sql += " ORDER BY \(key) \(direction), id \(direction) LIMIT ? OFFSET ?"
    values += [query.limit ?? -1, max(0, query.offset)]
    let bound = values
    return try withDatabase { db throws(LibraryError) in
      try db.query(sql, bound, row: { Self.asset(from: $0) })
    }
  }

  /// How many assets match `query` (its sort, limit and offset ignored).
  public func count(_ query: AssetQuery = AssetQuery()) throws(LibraryError) -> Int {
    var q = query
    q.limit = nil
    q.offset = 0
    return try assets(q).count
  }
}
