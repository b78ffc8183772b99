// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Reads the Multi-Picture Format index (CIPA DC-007) from a JPEG's APP2 `MPF\0` payload.
///
/// The payload is TIFF-structured: an endian header, then the MP Index IFD whose tag 0xB002
/// (MPEntry) holds 16 bytes per image: a 4-byte attribute, a 4-byte size, a 4-byte offset and two
/// 2-byte dependent-image entry numbers. Offsets are kept as stored: relative to the endian
/// marker of the MP header, and 0 for the first image. Bounds-checked; O(images).
enum MPFIndex {
  /// The entries, or nil with a warning when the index cannot be read.
  static func read(_ payload: Data, warnings: inout [String]) -> [MultiPictureEntry]? {
    guard let tiff = TIFFReader(payload) else {
      warnings.append("MPF index does not start with a TIFF endian header; ignored.")
      return nil
    }
    guard let ifd = tiff.directory(at: tiff.firstIFDOffset) else {
      warnings.append(
        "MPF index IFD at offset \(tiff.firstIFDOffset) lies outside the "
          + "\(payload.count)-byte segment."
      )
      return nil
    }
    guard let entry = ifd.entry(0xB002), entry.type == 7, entry.value.count >= 16 else {
      warnings.append("MPF index has no readable MPEntry (0xB002) field; ignored.")
      return nil
    }
    guard
      let record = TIFFReader(
        bytes: (tiff.bigEndian ? [0x4D, 0x4D, 0, 0x2A] : [0x49, 0x49, 0x2A, 0])
          + [0, 0, 0, 0] + entry.value)
    else { return nil }
    var entries: [MultiPictureEntry] = []
    let count = entry.value.count / 16
    if let declared = ifd.entry(0xB001)?.integer(bigEndian: tiff.bigEndian), Int(declared) != count
    {
      warnings.append("MPF index declares \(declared) images but lists \(count).")
    }
    for i in 0..<count {
      let p = 8 + i * 16
      guard let attribute = record.u32(at: p), let size = record.u32(at: p + 4),
        let offset = record.u32(at: p + 8)
      else { break }
      entries.append(MultiPictureEntry(attribute: attribute, size: Int(size), offset: Int(offset)))
    }
    return entries
  }
}
