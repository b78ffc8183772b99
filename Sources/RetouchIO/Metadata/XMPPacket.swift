// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A tolerant scanner for the few XMP properties Retouch reads or corrects.
///
/// This is not an XML parser: it finds simple properties written either as attributes
/// (`<rdf:Description tiff:Orientation="6">`) or as elements (`<tiff:Orientation>6</…>`), under
/// the prefix the packet binds to the property's namespace (`xmlns:tiff="…"`) or the
/// conventional one. That covers what cameras and Adobe/Apple/Google software write. Because
/// values are located by byte range, ``replacingIntegers(_:)`` changes only those values and
/// leaves every other byte of the packet as it was. Cost: O(packet length) per property.
struct XMPPacket {
  /// A property: its namespace URI, the prefix it conventionally has, and its local name.
  struct Property: Hashable {
    var namespace: String
    var conventionalPrefix: String
    var name: String

    static func tiff(_ name: String) -> Property {
      Property(namespace: "http://ns.adobe.com/tiff/1.0/", conventionalPrefix: "tiff", name: name)
    }
    static func exif(_ name: String) -> Property {
      Property(namespace: "http://ns.adobe.com/exif/1.0/", conventionalPrefix: "exif", name: name)
    }
    static func xmp(_ name: String) -> Property {
      Property(namespace: "http://ns.adobe.com/xap/1.0/", conventionalPrefix: "xmp", name: name)
    }
    static func photoshop(_ name: String) -> Property {
      Property(
        namespace: "http://ns.adobe.com/photoshop/1.0/", conventionalPrefix: "photoshop", name: name
      )
    }
  }

  /// The packet's UTF-8 bytes.
  let bytes: [UInt8]

  init(_ data: Data) { bytes = [UInt8](data) }

  /// The first non-empty value of `property`, with XML character references decoded.
  func value(of property: Property) -> String? {
    for r in valueRanges(of: property) {
      let text = Self.unescape(String(decoding: bytes[r], as: UTF8.self))
        .trimmingCharacters(in: .whitespacesAndNewlines)
      if !text.isEmpty { return text }
    }
    return nil
  }

  /// The packet with each listed property's value replaced by the given integer, wherever the
  /// current value is itself a decimal integer; other bytes are untouched.
  func replacingIntegers(_ changes: [Property: Int]) -> Data {
    var edits: [(Range<Int>, String)] = []
    for (property, newValue) in changes {
      for r in valueRanges(of: property) {
        let text = String(decoding: bytes[r], as: UTF8.self)
          .trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }) else { continue }
        edits.append((r, String(newValue)))
      }
    }
    var out = bytes
    for (r, v) in edits.sorted(by: { $0.0.lowerBound > $1.0.lowerBound }) {
      out.replaceSubrange(r, with: Array(v.utf8))
    }
    return Data(out)
  }

  /// Prefixes bound to `namespace` by `xmlns:prefix="namespace"`, plus the conventional one.
  func prefixes(for property: Property) -> [String] {
    var result = [property.conventionalPrefix]
    let marker = Array("xmlns:".utf8)
    var i = 0
    while let at = find(marker, from: i) {
      i = at + marker.count
      var j = i
      while j < bytes.count, bytes[j] != UInt8(ascii: "="), !Self.isSpace(bytes[j]), j - i < 64 {
        j += 1
      }
      let prefix = String(decoding: bytes[i..<j], as: UTF8.self)
      while j < bytes.count, bytes[j] == UInt8(ascii: "=") || Self.isSpace(bytes[j]) { j += 1 }
      guard j < bytes.count, bytes[j] == UInt8(ascii: "\"") || bytes[j] == UInt8(ascii: "'")
      else { continue }
      let quote = bytes[j]
      let start = j + 1
      guard let end = bytes[start...].firstIndex(of: quote) else { break }
      if String(decoding: bytes[start..<end], as: UTF8.self) == property.namespace,
        !prefix.isEmpty, !result.contains(prefix)
      {
        result.append(prefix)
      }
    }
    return result
  }

  /// Byte ranges of every simple value of `property` (attribute values without their quotes,
  /// element text between `>` and the next `<`).
  func valueRanges(of property: Property) -> [Range<Int>] {
    var ranges: [Range<Int>] = []
    for prefix in prefixes(for: property) {
      let name = Array("\(prefix):\(property.name)".utf8)
      var i = 0
      while let at = find(name, from: i) {
        i = at + name.count
        guard at > 0, i < bytes.count else { continue }
        let before = bytes[at - 1]
        let after = bytes[i]
        if before == UInt8(ascii: "<") {
          // Element form: <p:Name [attributes]>value</p:Name>
          guard after == UInt8(ascii: ">") || Self.isSpace(after),
            let close = bytes[i...].firstIndex(of: UInt8(ascii: ">")),
            bytes[close - 1] != UInt8(ascii: "/")
          else { continue }
          let start = close + 1
          let end = bytes[start...].firstIndex(of: UInt8(ascii: "<")) ?? bytes.count
          ranges.append(start..<end)
        } else if Self.isSpace(before) {
          // Attribute form: p:Name="value"
          var j = i
          while j < bytes.count, Self.isSpace(bytes[j]) { j += 1 }
          guard j < bytes.count, bytes[j] == UInt8(ascii: "=") else { continue }
          j += 1
          while j < bytes.count, Self.isSpace(bytes[j]) { j += 1 }
          guard j < bytes.count, bytes[j] == UInt8(ascii: "\"") || bytes[j] == UInt8(ascii: "'")
          else { continue }
          let quote = bytes[j]
          guard let end = bytes[(j + 1)...].firstIndex(of: quote) else { continue }
          ranges.append((j + 1)..<end)
        }
      }
    }
    return ranges
  }

  private func find(_ needle: [UInt8], from start: Int) -> Int? {
    guard let first = needle.first, start < bytes.count else { return nil }
    var i = start
    while i <= bytes.count - needle.count {
      if bytes[i] == first, bytes[i..<i + needle.count].elementsEqual(needle) { return i }
      i += 1
    }
    return nil
  }

  private static func isSpace(_ b: UInt8) -> Bool {
    b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D
  }

  /// Decodes the five predefined XML entities and numeric character references.
  static func unescape(_ s: String) -> String {
    guard s.contains("&") else { return s }
    var out = ""
    var rest = Substring(s)
    while let amp = rest.firstIndex(of: "&") {
      out += rest[..<amp]
      guard let semi = rest[amp...].prefix(12).firstIndex(of: ";") else {
        out += rest[amp...]
        return out
      }
      let entity = rest[rest.index(after: amp)..<semi]
      switch entity {
      case "amp": out += "&"
      case "lt": out += "<"
      case "gt": out += ">"
      case "quot": out += "\""
      case "apos": out += "'"
      default:
        let code: UInt32? =
          entity.hasPrefix("#x")
          ? UInt32(entity.dropFirst(2), radix: 16)
          : entity.hasPrefix("#") ? UInt32(entity.dropFirst()) : nil
        if let code, let scalar = Unicode.Scalar(code) {
          out.unicodeScalars.append(scalar)
        } else {
          out += rest[amp...semi]
        }
      }
      rest = rest[rest.index(after: semi)...]
    }
    return out + rest
  }

  /// An XMP date (ISO 8601: `YYYY-MM-DDThh:mm[:ss[.s…]][Z|±hh:mm]`) split into the EXIF forms
  /// of DateTimeOriginal (`YYYY:MM:DD HH:MM:SS`), SubSecTimeOriginal and OffsetTimeOriginal.
  /// Nil when the value has no time of day.
  static func exifDate(fromXMP s: String) -> (date: String, subsec: String?, offset: String?)? {
    let chars = Array(s.utf8)
    func digits(_ at: Int, _ n: Int) -> String? {
      guard at + n <= chars.count, chars[at..<at + n].allSatisfy({ $0 >= 0x30 && $0 <= 0x39 })
      else { return nil }
      return String(decoding: chars[at..<at + n], as: UTF8.self)
    }
    guard let y = digits(0, 4), chars.count >= 16, chars[4] == UInt8(ascii: "-"),
      let mo = digits(5, 2), chars[7] == UInt8(ascii: "-"), let d = digits(8, 2),
      chars[10] == UInt8(ascii: "T") || chars[10] == UInt8(ascii: " "),
      let h = digits(11, 2), chars[13] == UInt8(ascii: ":"), let mi = digits(14, 2)
    else { return nil }
    var i = 16
    var sec = "00"
    if i < chars.count, chars[i] == UInt8(ascii: ":"), let s2 = digits(i + 1, 2) {
      sec = s2
      i += 3
    }
    var subsec: String? = nil
    if i < chars.count, chars[i] == UInt8(ascii: ".") {
      var j = i + 1
      while j < chars.count, chars[j] >= 0x30, chars[j] <= 0x39 { j += 1 }
      if j > i + 1 { subsec = String(decoding: chars[(i + 1)..<j], as: UTF8.self) }
      i = j
    }
    var offset: String? = nil
    if i < chars.count {
      if chars[i] == UInt8(ascii: "Z") {
        offset = "+00:00"
      } else if chars[i] == UInt8(ascii: "+") || chars[i] == UInt8(ascii: "-"),
        let oh = digits(i + 1, 2), i + 3 < chars.count, chars[i + 3] == UInt8(ascii: ":"),
        let om = digits(i + 4, 2)
      {
        offset = "\(chars[i] == UInt8(ascii: "+") ? "+" : "-")\(oh):\(om)"
      }
    }
    return ("\(y):\(mo):\(d) \(h):\(mi):\(sec)", subsec, offset)
  }
}
