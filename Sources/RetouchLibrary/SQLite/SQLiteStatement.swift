// SPDX-License-Identifier: Apache-2.0

import CSQLite
import Foundation

/// A prepared statement: bind parameters (1-based in SQL, 0-based here in order), step, read
/// columns by 0-based index.
///
/// Owned by its ``SQLiteDatabase`` (which caches it); not `Sendable`.
package final class SQLiteStatement {
  private let raw: OpaquePointer
  private unowned let database: SQLiteDatabase
  let sql: String

  init(_ raw: OpaquePointer, database: SQLiteDatabase, sql: String) {
    self.raw = raw
    self.database = database
    self.sql = sql
  }

  deinit { sqlite3_finalize(raw) }

  /// Resets the statement and clears its bindings, ready to run again.
  package func reset() {
    sqlite3_reset(raw)
    sqlite3_clear_bindings(raw)
  }

  /// Binds `values` to parameters 1…n.
  ///
  /// - Throws: ``LibraryError`` `.database` when the count does not match or SQLite refuses.
  package func bind(_ values: [any SQLiteBindable]) throws(LibraryError) {
    let expected = Int(sqlite3_bind_parameter_count(raw))
    guard values.count == expected else {
      throw LibraryError(
        .database, source: database.name,
        detail: "\(values.count) values for \(expected) parameters in “\(sql.prefix(80))”.")
    }
    for (i, value) in values.enumerated() { try bind(value.sqliteValue, at: Int32(i + 1)) }
  }

  private func bind(_ value: SQLiteValue, at index: Int32) throws(LibraryError) {
    let rc: Int32
    switch value {
    case .null: rc = sqlite3_bind_null(raw, index)
    case .integer(let v): rc = sqlite3_bind_int64(raw, index, v)
    case .real(let v): rc = sqlite3_bind_double(raw, index, v)
    case .text(let v):
      rc = v.withCString { sqlite3_bind_text(raw, index, $0, -1, rt_sqlite_transient()) }
    case .blob(let v):
      if v.isEmpty {
        rc = sqlite3_bind_zeroblob(raw, index, 0)
      } else {
        rc = v.withUnsafeBytes {
          sqlite3_bind_blob64(raw, index, $0.baseAddress, UInt64($0.count), rt_sqlite_transient())
        }
      }
    }
    guard rc == SQLITE_OK else { throw database.error(rc, sql: sql) }
  }

  /// Runs to the next row: true when a row is ready to read, false when done.
  ///
  /// - Throws: ``LibraryError`` `.database` (constraints, I/O) or `.busy`.
  package func step() throws(LibraryError) -> Bool {
    let rc = sqlite3_step(raw)
    switch rc {
    case SQLITE_ROW: return true
    case SQLITE_DONE: return false
    default:
      let error = database.error(rc, sql: sql)
      sqlite3_reset(raw)
      throw error
    }
  }

  /// Whether column `i` of the current row is NULL.
  package func isNull(_ i: Int32) -> Bool { sqlite3_column_type(raw, i) == SQLITE_NULL }

  /// Column `i` as an integer (0 for NULL).
  package func int64(_ i: Int32) -> Int64 { sqlite3_column_int64(raw, i) }

  /// Column `i` as an integer, nil for NULL.
  package func optionalInt64(_ i: Int32) -> Int64? { isNull(i) ? nil : int64(i) }

  /// Column `i` as a `Double`, nil for NULL.
  package func optionalDouble(_ i: Int32) -> Double? {
    isNull(i) ? nil : sqlite3_column_double(raw, i)
  }

  /// Column `i` as a `Double` (0 for NULL).
  package func double(_ i: Int32) -> Double { sqlite3_column_double(raw, i) }

  /// Column `i` as UTF-8 text, nil for NULL.
  package func optionalString(_ i: Int32) -> String? {
    guard let p = sqlite3_column_text(raw, i) else { return nil }
    let count = Int(sqlite3_column_bytes(raw, i))
    return String(decoding: UnsafeBufferPointer(start: p, count: count), as: UTF8.self)
  }

  /// Column `i` as text ("" for NULL).
  package func string(_ i: Int32) -> String { optionalString(i) ?? "" }

  /// Column `i` as bytes, nil for NULL.
  package func optionalData(_ i: Int32) -> Data? {
    if isNull(i) { return nil }
    let count = Int(sqlite3_column_bytes(raw, i))
    guard count > 0, let p = sqlite3_column_blob(raw, i) else { return Data() }
    return Data(bytes: p, count: count)
  }
}
