// SPDX-License-Identifier: Apache-2.0

import Foundation

/// One SQLite value: the five storage classes.
package enum SQLiteValue: Sendable, Hashable {
  case null
  case integer(Int64)
  case real(Double)
  case text(String)
  case blob(Data)
}

/// A Swift value that binds to a statement parameter.
package protocol SQLiteBindable {
  var sqliteValue: SQLiteValue { get }
}

extension Int: SQLiteBindable {
  package var sqliteValue: SQLiteValue { .integer(Int64(self)) }
}

extension Int64: SQLiteBindable {
  package var sqliteValue: SQLiteValue { .integer(self) }
}

extension Bool: SQLiteBindable {
  package var sqliteValue: SQLiteValue { .integer(self ? 1 : 0) }
}

extension Double: SQLiteBindable {
  package var sqliteValue: SQLiteValue { .real(self) }
}

extension String: SQLiteBindable {
  package var sqliteValue: SQLiteValue { .text(self) }
}

extension Data: SQLiteBindable {
  package var sqliteValue: SQLiteValue { .blob(self) }
}

extension SQLiteValue: SQLiteBindable {
  package var sqliteValue: SQLiteValue { self }
}

extension Optional: SQLiteBindable where Wrapped: SQLiteBindable {
  package var sqliteValue: SQLiteValue { self?.sqliteValue ?? .null }
}
