// SPDX-License-Identifier: Apache-2.0

import Foundation

/// The RIFF container of a WebP file (RFC 9649): its chunks, read and written in Swift so that
/// metadata is found without decoding and written without libwebp's muxer.
///
/// A file is `RIFF`, a little-endian size, `WEBP`, then chunks: a four-character code, a
/// little-endian payload size, the payload and a pad byte when the size is odd. A simple file
/// holds one `VP8 ` (lossy) or `VP8L` (lossless) chunk; an extended one starts with `VP8X`,
/// whose flags announce an `ICCP` profile, alpha (`ALPH` before a `VP8 ` chunk), `EXIF`, `XMP `
/// and animation (`ANIM`, `ANMF` frames).
struct WebPContainer {
  /// One chunk: its code and where its payload lies in the file.
  struct Chunk {
    var code: String
    var payload: Range<Int>
  }

  /// The chunks in file order, as far as the file holds them whole.
  var chunks: [Chunk] = []
  /// The file stops inside a chunk, or before the size the RIFF header gives.
  var isTruncated = false

  /// `VP8X` flag bits (RFC 9649 §2.7): ICC profile, alpha, EXIF, XMP, animation.
  static let iccFlag: UInt8 = 0x20
  static let alphaFlag: UInt8 = 0x10
  static let exifFlag: UInt8 = 0x08
  static let xmpFlag: UInt8 = 0x04
  static let animationFlag: UInt8 = 0x02

  /// Walks the chunks of `bytes`; nil when they do not start with a RIFF `WEBP` header.
  init?(_ bytes: UnsafeRawBufferPointer) {
    guard bytes.count >= 12, Self.code(bytes, at: 0) == "RIFF", Self.code(bytes, at: 8) == "WEBP"
    else { return nil }
    // The RIFF size counts from byte 8; a file longer than it has trailing bytes, ignored.
    let declaredEnd = 8 + Int(Self.uint32(bytes, at: 4))
    let end = min(bytes.count, declaredEnd)
    isTruncated = bytes.count < declaredEnd
    var offset = 12
    while offset + 8 <= end {
      let size = Int(Self.uint32(bytes, at: offset + 4))
      let start = offset + 8
      guard size <= end - start else {
        isTruncated = true
        break
      }
      chunks.append(Chunk(code: Self.code(bytes, at: offset), payload: start..<(start + size)))
      offset = start + size + (size & 1)
    }
  }

  /// The whole chunks laid out in `range` of `bytes` (an `ANMF` frame's, for one).
  static func chunks(in bytes: UnsafeRawBufferPointer, range: Range<Int>) -> [Chunk] {
    var found: [Chunk] = []
    var offset = range.lowerBound
    while offset + 8 <= range.upperBound {
      let size = Int(uint32(bytes, at: offset + 4))
      let start = offset + 8
      guard size <= range.upperBound - start else { break }
      found.append(Chunk(code: code(bytes, at: offset), payload: start..<(start + size)))
      offset = start + size + (size & 1)
    }
    return found
  }

  /// The first chunk with `code`.
  func chunk(_ code: String) -> Chunk? { chunks.first { $0.code == code } }

  /// The metadata chunks: `ICCP`, `EXIF` (a TIFF structure; an `Exif\0\0` prefix some writers
  /// add is dropped) and `XMP `.
  func metadataBlocks(_ bytes: UnsafeRawBufferPointer) -> MetadataBlocks {
    func data(_ code: String) -> Data? {
      guard let chunk = chunk(code), !chunk.payload.isEmpty else { return nil }
      return Data(bytes[chunk.payload])
    }
    var exif = data("EXIF")
    if let block = exif, block.starts(with: Array("Exif\0\0".utf8)) {
      exif = block.count > 6 ? Data(block.dropFirst(6)) : nil
    }
    return MetadataBlocks(exif: exif, xmp: data("XMP "), iccProfile: data("ICCP"))
  }

  /// A file with `VP8X` (canvas `size`, `flags`) and `chunks` in the order given, each padded to
  /// an even length.
  static func assemble(
    size: (width: Int, height: Int), flags: UInt8, chunks: [(code: String, payload: Data)]
  ) -> Data {
    var vp8x = Data([flags, 0, 0, 0])
    vp8x.append(contentsOf: uint24(size.width - 1))
    vp8x.append(contentsOf: uint24(size.height - 1))
    let all = [("VP8X", vp8x)] + chunks.map { ($0.code, $0.payload) }
    var body = Data("WEBP".utf8)
    for (code, payload) in all {
      body.append(contentsOf: Array(code.utf8))
      body.append(contentsOf: uint32Bytes(UInt32(payload.count)))
      body.append(payload)
      if payload.count & 1 == 1 { body.append(0) }
    }
    var file = Data("RIFF".utf8)
    file.append(contentsOf: uint32Bytes(UInt32(body.count)))
    file.append(body)
    return file
  }

  /// Whether a `VP8L` payload says its image uses alpha (the bit after the two 14-bit sizes).
  static func losslessUsesAlpha(_ payload: UnsafeRawBufferPointer.SubSequence) -> Bool {
    guard payload.count >= 5 else { return false }
    let i = payload.startIndex
    return payload[i + 4] & 0x10 != 0
  }

  static func code(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> String {
    String(decoding: bytes[offset..<(offset + 4)], as: UTF8.self)
  }

  static func uint32(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt32 {
    (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[offset + $1]) << (8 * UInt32($1)) }
  }

  static func uint32Bytes(_ value: UInt32) -> [UInt8] {
    (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * UInt32($0))) }
  }

  static func uint24(_ value: Int) -> [UInt8] {
    (0..<3).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
  }
}
