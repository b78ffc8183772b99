// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing

@testable import RetouchLibrary

@Suite struct SQLiteDatabaseTests {
  @Test func bindsAndReadsEveryType() throws {
    let folder = try ScratchFolder()
    defer { folder.cleanUp() }
    let db = try SQLiteDatabase(path: folder.path("t.sqlite").path)
    try db.execute("CREATE TABLE t(i INTEGER, r REAL, s TEXT, b BLOB, n TEXT)")
    let blob = Data([0, 1, 2, 255])
    try db.run(
      "INSERT INTO t VALUES (?, ?, ?, ?, ?)", [Int64.max, 2.5, "héllo ✓", blob, String?.none])
    try db.run("INSERT INTO t VALUES (?, ?, ?, ?, ?)", [-1, -0.0, "", Data(), "x"])
    let rows = try db.query("SELECT i, r, s, b, n FROM t ORDER BY rowid") { s in
      (s.int64(0), s.optionalDouble(1), s.optionalString(2), s.optionalData(3), s.optionalString(4))
    }
    #expect(rows.count == 2)
    #expect(rows[0].0 == Int64.max)
    #expect(rows[0].1 == 2.5)
    #expect(rows[0].2 == "héllo ✓")
    #expect(rows[0].3 == blob)
    #expect(rows[0].4 == nil)
    #expect(rows[1].3 == Data())
    #expect(rows[1].4 == "x")
  }

  @Test func failedTransactionRollsBack() throws {
    let folder = try ScratchFolder()
    defer { folder.cleanUp() }
    let db = try SQLiteDatabase(path: folder.path("t.sqlite").path)
    try db.execute("CREATE TABLE t(k INTEGER PRIMARY KEY)")
    #expect(throws: LibraryError.self) {
      try db.transaction { () throws(LibraryError) in
        try db.run("INSERT INTO t VALUES (1)")
        try db.run("INSERT INTO t VALUES (1)")  // primary key clash
      }
    }
    #expect(try db.scalarInt("SELECT count(*) FROM t") == 0)
    // Nested transactions are savepoints: an inner failure undoes only the inner part.
    try db.transaction { () throws(LibraryError) in
      try db.run("INSERT INTO t VALUES (2)")
      _ = try? db.transaction { () throws(LibraryError) in
        try db.run("INSERT INTO t VALUES (3)")
        throw LibraryError(.invalidChange, source: "test", detail: "inner")
      }
    }
    #expect(try db.query("SELECT k FROM t", row: { $0.int64(0) }) == [2])
  }

  @Test func errorsCarrySQLiteMessage() throws {
    let folder = try ScratchFolder()
    defer { folder.cleanUp() }
    let db = try SQLiteDatabase(path: folder.path("t.sqlite").path)
    let error = #expect(throws: LibraryError.self) { try db.run("SELECT * FROM missing_table") }
    #expect(error?.kind == .database)
    #expect(error?.detail.contains("no such table: missing_table") == true)
    let count = #expect(throws: LibraryError.self) { try db.run("SELECT ?", [1, 2]) }
    #expect(count?.detail.contains("2 values for 1 parameters") == true)
  }
}
