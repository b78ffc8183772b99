// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Reads an ICC profile's description tag (`desc`), bounds-checked.
///
/// Handles the three types profiles use for it: `desc` (ICC v2 textDescriptionType: a counted
/// 7-bit ASCII string), `mluc` (ICC v4 multiLocalizedUnicodeType: UTF-16BE records; the first
/// record is used, as ICC.1:2010 §10.15 names no preferred language) and `text`. Offsets and
/// lengths are checked against the profile, and strings are capped at 1,024 characters, so
/// hostile profiles only make it return `nil`. Cost: O(tag count).
enum ICCDescription {
  /// The description, trimmed; nil when the profile has none or it cannot be read.
  static func read(_ profile: Data) -> String? {
    let b = [UInt8](profile)
    func u32(_ o: Int) -> Int? {
      guard o >= 0, o <= b.count - 4 else { return nil }
      return Int(b[o]) << 24 | Int(b[o + 1]) << 16 | Int(b[o + 2]) << 8 | Int(b[o + 3])
    }
    // Header (128 bytes), then the tag count and 12-byte entries: signature, offset, size.
    guard b.count >= 132, b[36..<40].elementsEqual("acsp".utf8), let count = u32(128) else {
      return nil
    }
    for i in 0..<min(count, 1000) {
      let p = 132 + i * 12
      guard let sig = u32(p), let offset = u32(p + 4), let size = u32(p + 8) else { return nil }
      guard sig == 0x6465_7363 else { continue }  // 'desc'
      guard size >= 12, offset <= b.count, size <= b.count - offset else { return nil }
      return element(Array(b[offset..<offset + size]))
    }
    return nil
  }

  private static func element(_ e: [UInt8]) -> String? {
    func u32(_ o: Int) -> Int? {
      guard o >= 0, o <= e.count - 4 else { return nil }
      return Int(e[o]) << 24 | Int(e[o + 1]) << 16 | Int(e[o + 2]) << 8 | Int(e[o + 3])
    }
    let limit = 1024
    switch u32(0) {
    case 0x6465_7363:  // 'desc': reserved, ASCII count (with its NUL), ASCII
      guard let n = u32(8), n <= e.count - 12 else { return nil }
      return clean(EXIFText.decode(e[12..<12 + min(n, limit)]))
    case 0x7465_7874:  // 'text': reserved, ASCII to the end
      return clean(EXIFText.decode(e[8..<min(e.count, 8 + limit)]))
    case 0x6D6C_7563:  // 'mluc': reserved, record count, record size, records
      guard let records = u32(8), records >= 1, let recordSize = u32(12), recordSize >= 12,
        let length = u32(16 + 4), let offset = u32(16 + 8),
        offset <= e.count, length <= e.count - offset
      else { return nil }
      var units: [UInt16] = []
      var i = offset
      while i + 1 < offset + length, units.count < limit {
        units.append(UInt16(e[i]) << 8 | UInt16(e[i + 1]))
        i += 2
      }
      return clean(String(decoding: units, as: UTF16.self))
    default:
      return nil
    }
  }

  private static func clean(_ s: String?) -> String? {
    guard let s else { return nil }
    let t = s.replacingOccurrences(of: "\0", with: "").trimmingCharacters(
      in: .whitespacesAndNewlines)
    return t.isEmpty ? nil : t
  }

  /// A readable name for code-point colour (ITU-T H.273 colour primaries and transfer), such as
  /// "BT.709 / sRGB", "Display P3" or "BT.2100 PQ"; a generic description for other values.
  static func name(for nclx: NCLXColorInfo) -> String {
    let transfer = nclx.transferCharacteristics
    let hdr = transfer == 16 ? " PQ" : transfer == 18 ? " HLG" : ""
    switch nclx.colorPrimaries {
    case 1: return "BT.709 / sRGB" + hdr
    case 12: return "Display P3" + hdr
    case 9: return (hdr.isEmpty ? "BT.2020" : "BT.2100") + hdr
    case 11: return "DCI-P3" + hdr
    case 5, 6: return "BT.601"
    default: return nclx.description
    }
  }
}
