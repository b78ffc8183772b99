// SPDX-License-Identifier: Apache-2.0

import Foundation

/// The APP1/APP2 segments that carry metadata in a JPEG, and how they map to ``MetadataBlocks``.
///
/// - APP1 `Exif\0\0` + TIFF structure (EXIF 2.32 §4.5.4) → ``MetadataBlocks/exif``.
/// - APP1 `http://ns.adobe.com/xap/1.0/\0` + XMP packet (XMP part 3 §1.1.3) → `xmp`.
/// - APP2 `ICC_PROFILE\0` + sequence number + chunk count + bytes (ICC.1:2010 annex B.4), one
///   or more chunks → `iccProfile`, reassembled in sequence order.
/// - APP2 `MPF\0` + index (CIPA DC-007 §5.2) → `mpf`.
/// - APP13 `Photoshop 3.0\0` + image resource blocks (`8BIM`, id, Pascal name, size, data, each
///   padded to even), one or more segments joined → resource 0x0404, the IPTC-IIM records →
///   `iptc`.
enum JPEGMetadataSegments {
  static let exifIdentifier = Data("Exif\0\0".utf8)
  static let xmpIdentifier = Data("http://ns.adobe.com/xap/1.0/\0".utf8)
  static let iccIdentifier = Data("ICC_PROFILE\0".utf8)
  static let mpfIdentifier = Data("MPF\0".utf8)
  static let photoshopIdentifier = Data("Photoshop 3.0\0".utf8)

  /// The most a marker segment holds after its 2-byte length field.
  static let maxSegmentPayload = 65533
  /// ICC bytes per APP2 chunk: the segment minus the identifier and the two counters.
  static let maxICCChunk = maxSegmentPayload - 14

  static let app1 = 0xE1
  static let app2 = 0xE2
  static let app13 = 0xED

  /// Collects the metadata blocks from saved segments. The first EXIF, XMP and MPF segment win;
  /// an ICC chunk set that is incomplete or inconsistent is dropped with a warning.
  static func blocks(from segments: [JPEGMarkerSegment], warnings: inout [String]) -> MetadataBlocks
  {
    var blocks = MetadataBlocks()
    var iccChunks: [(sequence: Int, count: Int, bytes: Data)] = []
    var photoshop = Data()
    for segment in segments {
      let payload = segment.payload
      switch segment.code {
      case app1:
        if blocks.exif == nil, payload.starts(with: exifIdentifier) {
          blocks.exif = Data(payload.dropFirst(exifIdentifier.count))
        } else if blocks.xmp == nil, payload.starts(with: xmpIdentifier) {
          blocks.xmp = Data(payload.dropFirst(xmpIdentifier.count))
        }
      case app2:
        if payload.starts(with: iccIdentifier), payload.count >= iccIdentifier.count + 2 {
          let start = payload.startIndex + iccIdentifier.count
          iccChunks.append(
            (Int(payload[start]), Int(payload[start + 1]), Data(payload[(start + 2)...])))
        } else if blocks.mpf == nil, payload.starts(with: mpfIdentifier) {
          blocks.mpf = Data(payload.dropFirst(mpfIdentifier.count))
        }
      case app13:
        if payload.starts(with: photoshopIdentifier) {
          photoshop.append(payload.dropFirst(photoshopIdentifier.count))
        }
      default:
        break
      }
    }
    blocks.iptc = photoshopResource(0x0404, in: photoshop)
    if !iccChunks.isEmpty {
      blocks.iccProfile = reassembleICC(iccChunks, warnings: &warnings)
    }
    return blocks
  }

  /// The data of the first image resource `id` in Photoshop resource blocks, or nil (also when
  /// the blocks are cut or malformed, which ends the walk).
  static func photoshopResource(_ id: UInt16, in blocks: Data) -> Data? {
    let b = [UInt8](blocks)
    var i = 0
    func u16(_ at: Int) -> Int { Int(b[at]) << 8 | Int(b[at + 1]) }
    while i + 12 <= b.count, b[i..<(i + 4)].elementsEqual(Array("8BIM".utf8)) {
      let resource = u16(i + 4)
      let nameLength = Int(b[i + 6])
      let nameField = (1 + nameLength + 1) & ~1
      let sizeAt = i + 6 + nameField
      guard sizeAt + 4 <= b.count else { return nil }
      let size = u16(sizeAt) << 16 | u16(sizeAt + 2)
      let start = sizeAt + 4
      guard size <= b.count - start else { return nil }
      if resource == id { return size > 0 ? Data(b[start..<(start + size)]) : nil }
      i = start + ((size + 1) & ~1)
    }
    return nil
  }

  /// An APP13 payload holding `iptc` as Photoshop resource 0x0404, or nil when it does not fit
  /// in one segment.
  static func photoshopSegment(iptc: Data) -> Data? {
    var payload = photoshopIdentifier + Data("8BIM".utf8) + Data([0x04, 0x04, 0, 0])
    let n = iptc.count
    payload += Data([
      UInt8(n >> 24 & 0xFF), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF),
    ])
    payload += iptc
    if n % 2 == 1 { payload.append(0) }
    return payload.count <= maxSegmentPayload ? payload : nil
  }

  /// Joins ICC chunks in sequence order after checking they form one complete set: the same
  /// count N (1...255) in each, and each sequence number 1...N exactly once.
  static func reassembleICC(
    _ chunks: [(sequence: Int, count: Int, bytes: Data)], warnings: inout [String]
  ) -> Data? {
    let count = chunks[0].count
    let sequences = chunks.map(\.sequence).sorted()
    guard count >= 1, chunks.allSatisfy({ $0.count == count }), sequences == Array(1...count)
    else {
      let counts = Set(chunks.map(\.count)).sorted().map(String.init).joined(separator: "/")
      warnings.append(
        "the embedded ICC profile is damaged: its APP2 chunks are numbered "
          + "\(sequences.map(String.init).joined(separator: ", ")) of \(counts); "
          + "the profile is ignored.")
      return nil
    }
    var profile = Data(capacity: chunks.reduce(0) { $0 + $1.bytes.count })
    for chunk in chunks.sorted(by: { $0.sequence < $1.sequence }) { profile.append(chunk.bytes) }
    return profile
  }
}
