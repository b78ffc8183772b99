// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A bounds-checked reader for TIFF-structured blocks (EXIF, the MPF index).
///
/// Every read checks its range and returns `nil` rather than trapping, so hostile bytes can only
/// make it give up. Offsets are relative to the `II*\0`/`MM\0*` header, as TIFF defines them.
/// Reading an IFD costs O(entries) and copies nothing but the values asked for.
struct TIFFReader {
  /// The block, header first (its indices start at 0). A whole TIFF file read from disk is
  /// kept as the mapped `Data` it came in, not copied.
  let bytes: Data
  /// `true` for `MM` (Motorola) order, `false` for `II` (Intel).
  let bigEndian: Bool
  /// Offset of IFD0, from the header.
  let firstIFDOffset: Int

  /// Reads the 8-byte header; `nil` when the block is not TIFF-structured.
  init?(_ data: Data) {
    let bytes = data.startIndex == 0 ? data : Data(data.withUnsafeBytes { Array($0) })
    guard bytes.count >= 8 else { return nil }
    switch (bytes[0], bytes[1], bytes[2], bytes[3]) {
    case (0x49, 0x49, 0x2A, 0x00): bigEndian = false
    case (0x4D, 0x4D, 0x00, 0x2A): bigEndian = true
    default: return nil
    }
    self.bytes = bytes
    let b = bytes[4..<8].map(UInt32.init)
    firstIFDOffset = Int(
      bigEndian
        ? b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3]
        : b[3] << 24 | b[2] << 16 | b[1] << 8 | b[0])
  }

  init?(bytes: [UInt8]) {
    self.init(Data(bytes))
  }

  func u16(at offset: Int) -> UInt16? {
    guard offset >= 0, offset <= bytes.count - 2 else { return nil }
    let a = UInt16(bytes[offset])
    let b = UInt16(bytes[offset + 1])
    return bigEndian ? a << 8 | b : b << 8 | a
  }

  func u32(at offset: Int) -> UInt32? {
    guard offset >= 0, offset <= bytes.count - 4 else { return nil }
    var v: UInt32 = 0
    for i in 0..<4 {
      let b = UInt32(bytes[offset + (bigEndian ? i : 3 - i)])
      v = v << 8 | b
    }
    return v
  }

  /// The directory at `offset`, or `nil` when its entry table does not fit in the block.
  ///
  /// Entries whose type is unknown or whose values fall outside the block are skipped (they
  /// are counted in ``TIFFDirectory/skippedEntries``), as are values longer than
  /// `maxValueBytes` (a TIFF file's layered-document blobs, which can be most of the file). At
  /// most 1,000 entries are read.
  func directory(at offset: Int, maxValueBytes: Int = .max) -> TIFFDirectory? {
    guard let count16 = u16(at: offset) else { return nil }
    let count = Int(count16)
    guard count <= 1000, offset + 2 + count * 12 <= bytes.count else { return nil }
    var entries: [TIFFEntry] = []
    entries.reserveCapacity(count)
    var skipped = 0
    for i in 0..<count {
      let p = offset + 2 + i * 12
      guard let tag = u16(at: p), let type = u16(at: p + 2), let n = u32(at: p + 4) else {
        skipped += 1
        continue
      }
      guard let unit = TIFFEntry.unitSize(ofType: type) else {
        skipped += 1
        continue
      }
      let (length, overflow) = Int(n).multipliedReportingOverflow(by: unit)
      guard !overflow, length <= bytes.count, length <= maxValueBytes else {
        skipped += 1
        continue
      }
      let valueOffset: Int?
      let start: Int
      if length <= 4 {
        valueOffset = nil
        start = p + 8
      } else {
        guard let o = u32(at: p + 8) else {
          skipped += 1
          continue
        }
        valueOffset = Int(o)
        start = Int(o)
      }
      guard start >= 0, start <= bytes.count - length else {
        skipped += 1
        continue
      }
      entries.append(
        TIFFEntry(
          tag: tag, type: type, count: n, value: Array(bytes[start..<start + length]),
          valueOffset: valueOffset))
    }
    let next = u32(at: offset + 2 + count * 12).map(Int.init) ?? 0
    return TIFFDirectory(entries: entries, nextOffset: next, skippedEntries: skipped)
  }
}

/// One directory of a TIFF structure, as read.
struct TIFFDirectory {
  var entries: [TIFFEntry]
  /// Offset of the next IFD (0 when none).
  var nextOffset: Int
  /// Entries dropped because their type was unknown or their values out of bounds.
  var skippedEntries: Int

  func entry(_ tag: UInt16) -> TIFFEntry? { entries.first { $0.tag == tag } }
}

/// One directory entry with its value bytes, still in the block's byte order.
struct TIFFEntry: Hashable {
  var tag: UInt16
  /// TIFF field type: 1 BYTE, 2 ASCII, 3 SHORT, 4 LONG, 5 RATIONAL, 6 SBYTE, 7 UNDEFINED,
  /// 8 SSHORT, 9 SLONG, 10 SRATIONAL, 11 FLOAT, 12 DOUBLE, 13 IFD.
  var type: UInt16
  var count: UInt32
  /// `count × unitSize` bytes, in the block's byte order.
  var value: [UInt8]
  /// Where the value was stored when it did not fit in the entry (nil when inline).
  var valueOffset: Int?

  /// Bytes per component of a TIFF field type, or `nil` for a type TIFF 6.0/EXIF doesn't define.
  static func unitSize(ofType type: UInt16) -> Int? {
    switch type {
    case 1, 2, 6, 7: 1
    case 3, 8: 2
    case 4, 9, 11, 13: 4
    case 5, 10, 12: 8
    default: nil
    }
  }

  /// Every value as an unsigned integer (BYTE, SHORT, LONG or IFD; empty for other types).
  func integers(bigEndian: Bool) -> [UInt32] {
    let width: Int
    switch type {
    case 1, 7: width = 1
    case 3: width = 2
    case 4, 13: width = 4
    default: return []
    }
    return stride(from: 0, to: value.count - width + 1, by: width).map { start in
      var v: UInt32 = 0
      for i in 0..<width { v = v << 8 | UInt32(value[start + (bigEndian ? i : width - 1 - i)]) }
      return v
    }
  }

  /// The first value as an unsigned integer (BYTE, SHORT, LONG or IFD), in `bigEndian` order.
  func integer(bigEndian: Bool) -> UInt32? {
    let width: Int
    switch type {
    case 1, 7: width = 1
    case 3: width = 2
    case 4, 13: width = 4
    default: return nil
    }
    guard value.count >= width else { return nil }
    var v: UInt32 = 0
    for i in 0..<width { v = v << 8 | UInt32(value[bigEndian ? i : width - 1 - i]) }
    return v
  }
}

/// Builds a TIFF structure (header, IFDs, out-of-line values) in a chosen byte order.
///
/// Values are placed after their directory, each on an even offset as TIFF requires. One byte
/// range can be reserved so that a block (an EXIF maker note) lands at exactly the offset it had
/// in the source: maker notes often hold offsets relative to the TIFF header that nothing outside
/// the maker note can correct, so keeping its position keeps them valid.
struct TIFFWriter {
  /// A directory to write: entries (sorted by tag on output), and sub-directories hung off
  /// pointer tags such as 0x8769 (EXIF IFD).
  /// A sub-directory and the pointer tag that leads to it.
  struct Child {
    var tag: UInt16
    var directory: Directory
  }

  struct Directory {
    var entries: [TIFFEntry] = []
    /// Pointer tag → directory; written as a LONG entry holding the child's offset.
    var children: [Child] = []
    /// Tag whose value must be written at `pinnedOffset` (and nowhere else), if any.
    var pinnedTag: UInt16?
  }

  let bigEndian: Bool
  /// Where the pinned value goes, or nil when nothing is pinned.
  var pinnedOffset: Int?

  init(bigEndian: Bool, pinnedOffset: Int? = nil) {
    self.bigEndian = bigEndian
    self.pinnedOffset = pinnedOffset
  }

  private var order: ByteOrder { ByteOrder(bigEndian: bigEndian) }

  /// The whole structure, IFD0 first (its next-IFD link is 0: no thumbnail IFD).
  func write(_ root: Directory) -> [UInt8] {
    var out: [UInt8] = bigEndian ? [0x4D, 0x4D, 0x00, 0x2A] : [0x49, 0x49, 0x2A, 0x00]
    out += [0, 0, 0, 0]
    var cursor = 8
    var reserved: Range<Int>? = nil
    if let p = pinnedOffset, let len = pinnedLength(root), p >= 8 {
      reserved = p..<(p + len)
    }
    let rootOffset = writeDirectory(root, into: &out, cursor: &cursor, reserved: reserved)
    let header = order.u32(UInt32(rootOffset))
    out.replaceSubrange(4..<8, with: header)
    return out
  }

  private func pinnedLength(_ d: Directory) -> Int? {
    if let t = d.pinnedTag, let e = d.entries.first(where: { $0.tag == t }), e.value.count > 4 {
      return e.value.count
    }
    for c in d.children {
      if let l = pinnedLength(c.directory) { return l }
    }
    return nil
  }

  /// Claims `size` bytes at the next even offset that avoids `reserved`.
  private func allocate(_ size: Int, cursor: inout Int, reserved: Range<Int>?) -> Int {
    var start = (cursor + 1) & ~1
    if let r = reserved, start < r.upperBound, start + size > r.lowerBound {
      start = (r.upperBound + 1) & ~1
    }
    cursor = start + size
    return start
  }

  private func put(_ bytes: [UInt8], at offset: Int, into out: inout [UInt8]) {
    if out.count < offset + bytes.count {
      out += [UInt8](repeating: 0, count: offset + bytes.count - out.count)
    }
    out.replaceSubrange(offset..<offset + bytes.count, with: bytes)
  }

  /// Writes `d` and everything below it; returns the directory's offset.
  private func writeDirectory(
    _ d: Directory, into out: inout [UInt8], cursor: inout Int, reserved: Range<Int>?
  ) -> Int {
    var entries = d.entries.filter { e in !d.children.contains { $0.tag == e.tag } }
    for c in d.children {
      entries.append(TIFFEntry(tag: c.tag, type: 4, count: 1, value: [0, 0, 0, 0]))
    }
    entries.sort { $0.tag < $1.tag }
    let tableSize = 2 + entries.count * 12 + 4
    let at = allocate(tableSize, cursor: &cursor, reserved: reserved)
    var valueOffsets: [Int?] = Array(repeating: nil, count: entries.count)
    for (i, e) in entries.enumerated() where e.value.count > 4 {
      if e.tag == d.pinnedTag, let r = reserved {
        valueOffsets[i] = r.lowerBound
      } else {
        valueOffsets[i] = allocate(e.value.count, cursor: &cursor, reserved: reserved)
      }
    }
    var childOffsets: [UInt16: Int] = [:]
    for c in d.children {
      childOffsets[c.tag] = writeDirectory(
        c.directory, into: &out, cursor: &cursor, reserved: reserved)
    }
    var table = order.u16(UInt16(entries.count))
    for (i, e) in entries.enumerated() {
      table += order.u16(e.tag) + order.u16(e.type) + order.u32(e.count)
      if let child = childOffsets[e.tag] {
        table += order.u32(UInt32(child))
      } else if let o = valueOffsets[i] {
        table += order.u32(UInt32(o))
        put(e.value, at: o, into: &out)
      } else {
        table += e.value + [UInt8](repeating: 0, count: 4 - e.value.count)
      }
    }
    table += [0, 0, 0, 0]
    put(table, at: at, into: &out)
    return at
  }
}
