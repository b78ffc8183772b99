// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Reads an ICC profile's description, to name the profile in a PNG `iCCP` chunk.
enum ICCProfileName {
  /// The name written when the profile has no usable description.
  static let fallback = "ICC Profile"

  /// The profile's description (`desc` tag) made into a valid PNG keyword: printable Latin-1,
  /// no leading, trailing or doubled spaces, 1...79 characters (PNG spec §11.3.3.3); otherwise
  /// ``fallback``. Reads only the tag table and the one tag; never traps on malformed bytes.
  static func pngKeyword(forProfile profile: [UInt8]) -> String {
    guard let description = description(ofProfile: profile) else { return fallback }
    var keyword = ""
    var lastWasSpace = true  // drops leading spaces
    for scalar in description.unicodeScalars {
      let v = scalar.value
      let printable = (0x21...0x7E).contains(v) || (0xA1...0xFF).contains(v)
      if printable {
        keyword.unicodeScalars.append(scalar)
        lastWasSpace = false
      } else if !lastWasSpace {
        keyword.append(" ")
        lastWasSpace = true
      }
      if keyword.unicodeScalars.count >= 79 { break }
    }
    while keyword.hasSuffix(" ") { keyword.removeLast() }
    return keyword.isEmpty ? fallback : keyword
  }

  /// The text of the `desc` tag: ICC v2 `textDescriptionType` (ASCII) or ICC v4
  /// `multiLocalizedUnicodeType` (first record, UTF-16BE). `nil` when absent or malformed.
  static func description(ofProfile p: [UInt8]) -> String? {
    func u32(_ at: Int) -> Int? {
      guard at >= 0, at + 4 <= p.count else { return nil }
      return Int(p[at]) << 24 | Int(p[at + 1]) << 16 | Int(p[at + 2]) << 8 | Int(p[at + 3])
    }
    guard let tagCount = u32(128), tagCount < 1024 else { return nil }
    for i in 0..<tagCount {
      let entry = 132 + i * 12
      guard let signature = u32(entry), let offset = u32(entry + 4), let size = u32(entry + 8)
      else { return nil }
      guard signature == 0x6465_7363 else { continue }  // 'desc'
      guard size >= 12, offset + size <= p.count, let type = u32(offset) else { return nil }
      switch type {
      case 0x6465_7363:  // 'desc': count (including NUL), then ASCII
        guard let count = u32(offset + 8), count > 0, offset + 12 + count <= offset + size else {
          return nil
        }
        let bytes = p[(offset + 12)..<(offset + 12 + count)].prefix { $0 != 0 }
        return String(decoding: bytes, as: UTF8.self)
      case 0x6D6C_7563:  // 'mluc': records of language, country, length, offset
        guard let records = u32(offset + 8), records > 0, let length = u32(offset + 20),
          let start = u32(offset + 24), start + length <= size
        else { return nil }
        var units: [UInt16] = []
        var j = offset + start
        while j + 1 < offset + start + length {
          units.append(UInt16(p[j]) << 8 | UInt16(p[j + 1]))
          j += 2
        }
        return String(decoding: units, as: UTF16.self)
      default:
        return nil
      }
    }
    return nil
  }
}
