// SPDX-License-Identifier: Apache-2.0

import CSQLite
import Foundation

/// One SQLite connection: prepared statements (cached by SQL text), typed binding and reading,
/// transactions and a busy timeout.
///
/// A C resource with identity: not `Sendable`, used by one thread at a time (``PhotoLibrary``
/// keeps it behind a lock). The connection is opened in SQLite's multi-thread mode (no mutex of
/// its own), so that rule is what keeps it safe.
package final class SQLiteDatabase {
  private let handle: OpaquePointer
  /// The database file's name, for error messages.
  package let name: String
  private var statementCache: [String: SQLiteStatement] = [:]
  private var transactionDepth = 0

  /// Opens (creating when missing) the database file at `path`.
  ///
  /// - Parameter busyTimeout: how long a statement waits for another process's lock before
  ///   failing with `.busy`, in milliseconds.
  /// - Throws: ``LibraryError`` `.database` with SQLite's message.
  package init(path: String, busyTimeout milliseconds: Int32 = 10_000) throws(LibraryError) {
    name = URL(fileURLWithPath: path).lastPathComponent
    var db: OpaquePointer?
    let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
    let rc = sqlite3_open_v2(path, &db, flags, nil)
    guard rc == SQLITE_OK, let db else {
      let message =
        db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
      if let db { sqlite3_close_v2(db) }
      throw LibraryError(
        .database, source: name, detail: "cannot open the database: \(message) (code \(rc)).")
    }
    handle = db
    sqlite3_extended_result_codes(db, 1)
    sqlite3_busy_timeout(db, milliseconds)
  }

  deinit {
    statementCache.removeAll()
    sqlite3_close_v2(handle)
  }

  /// Runs one or more statements without parameters (schema, pragmas).
  ///
  /// - Throws: ``LibraryError`` `.database` or `.busy`.
  package func execute(_ sql: String) throws(LibraryError) {
    var message: UnsafeMutablePointer<CChar>?
    let rc = sqlite3_exec(handle, sql, nil, nil, &message)
    if rc != SQLITE_OK {
      let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(rc))
      sqlite3_free(message)
      throw error(rc, text, sql: sql)
    }
  }

  /// A prepared statement for `sql`, reset and with its bindings cleared, taken from the cache
  /// when this SQL text was prepared before.
  ///
  /// - Throws: ``LibraryError`` `.database` (syntax errors, unknown tables).
  package func statement(_ sql: String) throws(LibraryError) -> SQLiteStatement {
    if let cached = statementCache[sql] {
      cached.reset()
      return cached
    }
    var raw: OpaquePointer?
    let rc = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &raw, nil)
    guard rc == SQLITE_OK, let raw else { throw error(rc, sql: sql) }
    let statement = SQLiteStatement(raw, database: self, sql: sql)
    statementCache[sql] = statement
    return statement
  }

  /// Runs a statement that returns no rows, with `values` bound to its parameters in order.
  ///
  /// - Throws: ``LibraryError`` `.database` (constraint violations included) or `.busy`.
  package func run(_ sql: String, _ values: [any SQLiteBindable] = []) throws(LibraryError) {
    let s = try statement(sql)
    try s.bind(values)
    while try s.step() {}
    s.reset()
  }

  /// Runs a query and maps every row with `row`.
  ///
  /// - Throws: ``LibraryError`` from SQLite, or whatever `row` throws.
  package func query<T>(
    _ sql: String, _ values: [any SQLiteBindable] = [],
    row: (SQLiteStatement) throws(LibraryError) -> T
  ) throws(LibraryError) -> [T] {
    let s = try statement(sql)
    try s.bind(values)
    var result: [T] = []
    while try s.step() { result.append(try row(s)) }
    s.reset()
    return result
  }

  /// The first column of the first row as an integer, nil when there is no row or it is NULL.
  package func scalarInt(_ sql: String, _ values: [any SQLiteBindable] = []) throws(LibraryError)
    -> Int64?
  {
    let s = try statement(sql)
    try s.bind(values)
    defer { s.reset() }
    guard try s.step() else { return nil }
    return s.optionalInt64(0)
  }

  /// Runs `body` in one transaction: committed when it returns, rolled back when it throws.
  ///
  /// The outermost call takes the write lock at once (`BEGIN IMMEDIATE`), so two processes
  /// never both read and then fail to upgrade; nested calls become savepoints.
  /// - Throws: ``LibraryError`` from SQLite or `body`; the transaction is rolled back first.
  package func transaction<T>(_ body: () throws(LibraryError) -> T) throws(LibraryError) -> T {
    let savepoint = "sp\(transactionDepth)"
    try execute(transactionDepth == 0 ? "BEGIN IMMEDIATE" : "SAVEPOINT \(savepoint)")
    transactionDepth += 1
    do {
      let value = try body()
      transactionDepth -= 1
      try execute(transactionDepth == 0 ? "COMMIT" : "RELEASE \(savepoint)")
      return value
    } catch {
      if transactionDepth > 0 { transactionDepth -= 1 }
      // A failed rollback leaves nothing more to undo here; the original error is the one to report.
      if transactionDepth == 0 {
        try? execute("ROLLBACK")
      } else {
        try? execute("ROLLBACK TO \(savepoint); RELEASE \(savepoint)")
      }
      throw error
    }
  }

  /// The row id of the last successful `INSERT` on this connection.
  package var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

  /// Rows changed by the last `INSERT`, `UPDATE` or `DELETE`.
  package var changes: Int { Int(sqlite3_changes(handle)) }

  /// The error for result code `rc`, with SQLite's message for this connection.
  func error(_ rc: Int32, _ message: String? = nil, sql: String? = nil) -> LibraryError {
    let text = message ?? String(cString: sqlite3_errmsg(handle))
    let primary = rc & 0xff
    let kind: LibraryError.Kind =
      primary == SQLITE_BUSY || primary == SQLITE_LOCKED ? .busy : .database
    var detail = "\(text) (SQLite code \(rc))"
    if let sql { detail += " in “\(sql.prefix(80))”" }
    return LibraryError(kind, source: name, detail: detail + ".")
  }
}
