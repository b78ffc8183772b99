// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore

/// Builds the metadata blocks written with an exported image.
///
/// The EXIF block is rebuilt by our own TIFF writer (``TIFFWriter``) rather than libexif's
/// `exif_data_save_data`: libexif re-encodes the maker notes it understands and drops tags it
/// doesn't, while ours copies every entry's bytes verbatim, in the source's byte order, and
/// changes only what the new pixels make wrong. The maker note is written back at the exact
/// offset it had, because most maker notes hold offsets that nothing outside them can correct;
/// when that does not fit in one JPEG APP1 segment the maker note is dropped and the rest kept.
/// Output is deterministic: the same inputs give the same bytes (no clock is read).
enum ExportMetadata {
  /// The largest EXIF block written: a JPEG APP1 segment holds 65,533 bytes after its length,
  /// of which 6 are the `Exif\0\0` identifier.
  static let maximumEXIFBytes = 65_527

  /// The blocks for an output of `image`.
  ///
  /// - EXIF: the source's, with Orientation 1 (the exported pixels are upright),
  ///   PixelXDimension/PixelYDimension set to `image`'s size, Software set to `software`,
  ///   ColorSpace 1 for sRGB or 0xFFFF (uncalibrated, with the ICC profile saying which) for
  ///   Display P3, the IFD1 thumbnail dropped, and everything else (camera, exposure, dates,
  ///   GPS, lens, maker note) kept; DateTime (0x0132) keeps the original's value. Without a
  ///   readable source block, a new one is built from `metadata`'s typed fields (orientation 1,
  ///   size, software, colour space, and whichever camera/exposure/date/GPS fields are set).
  /// - XMP: the source packet byte for byte, except `tiff:Orientation` (set to 1) and
  ///   `exif:PixelXDimension`/`PixelYDimension`/`tiff:ImageWidth`/`ImageLength` (set to the new
  ///   size) where the packet has them.
  /// - ICC: the profile of `image.colorSpace` (nil when none is available).
  /// - IPTC: the source's records as they are (JPEG and TIFF write them; PNG, HEIC and WebP
  ///   have no place for them, and carry the same fields in XMP when the source had them there).
  /// - MPF is not carried: secondary images are not re-encoded.
  ///
  /// Cost: linear in the source blocks (at most a few hundred KiB); never fails, since hostile
  /// source blocks fall back to the typed-field EXIF.
  static func blocks(for image: Image, from metadata: PhotoMetadata?, software: String)
    -> MetadataBlocks
  {
    blocks(size: image.size, colorSpace: image.colorSpace, from: metadata, software: software)
  }

  /// ``blocks(for:from:software:)`` for an image described by its size and colour space (for
  /// encoders that receive rows, not an ``Image``).
  static func blocks(
    size: PixelSize, colorSpace: ColorSpace, from metadata: PhotoMetadata?, software: String
  )
    -> MetadataBlocks
  {
    var out = MetadataBlocks()
    let rewritten = metadata?.blocks.exif.flatMap {
      rewrittenEXIF($0, size: size, colorSpace: colorSpace, software: software)
    }
    let exif =
      rewritten
      ?? typedEXIF(
        metadata ?? PhotoMetadata(), size: size, colorSpace: colorSpace, software: software)
    out.exif = Data(exif)
    if let xmp = metadata?.blocks.xmp, !xmp.isEmpty {
      out.xmp = XMPPacket(xmp).replacingIntegers([
        .tiff("Orientation"): 1,
        .exif("PixelXDimension"): size.width, .exif("PixelYDimension"): size.height,
        .tiff("ImageWidth"): size.width, .tiff("ImageLength"): size.height,
      ])
    }
    let icc = ICCProfiles.data(for: colorSpace)
    out.iccProfile = icc.isEmpty ? nil : icc
    out.iptc = metadata?.blocks.iptc.flatMap { $0.isEmpty ? nil : $0 }
    return out
  }

  // MARK: - Tags

  private enum Tag {
    static let imageWidth: UInt16 = 0x0100, imageLength: UInt16 = 0x0101
    static let make: UInt16 = 0x010F, model: UInt16 = 0x0110
    static let orientation: UInt16 = 0x0112, software: UInt16 = 0x0131
    static let exifIFD: UInt16 = 0x8769, gpsIFD: UInt16 = 0x8825, interopIFD: UInt16 = 0xA005
    static let exifVersion: UInt16 = 0x9000, makerNote: UInt16 = 0x927C
    static let colorSpace: UInt16 = 0xA001
    static let pixelX: UInt16 = 0xA002, pixelY: UInt16 = 0xA003
    static let interopIndex: UInt16 = 0x0001
  }

  /// IFD0 tags that point at data this writer does not carry (strips, tiles, sub-IFDs, the
  /// JPEG thumbnail) and so would dangle in the output.
  private static let danglingIFD0Tags: Set<UInt16> = [
    0x0111, 0x0117, 0x0144, 0x0145, 0x014A, 0x0201, 0x0202,
  ]

  // MARK: - Rewriting a source EXIF block

  /// The source block corrected for the new image, or nil when it cannot be read.
  static func rewrittenEXIF(
    _ source: Data, size: PixelSize, colorSpace: ColorSpace, software: String
  ) -> [UInt8]? {
    guard source.count <= EXIFReader.maximumBytes, let tiff = TIFFReader(source),
      let ifd0 = tiff.directory(at: tiff.firstIFDOffset)
    else { return nil }
    let order = ByteOrder(bigEndian: tiff.bigEndian)

    var root = TIFFWriter.Directory()
    root.entries = unique(ifd0.entries).filter {
      !danglingIFD0Tags.contains($0.tag) && $0.tag != Tag.exifIFD && $0.tag != Tag.gpsIFD
    }
    order.set(&root, Tag.orientation, short: 1)
    order.set(&root, Tag.software, ascii: software)
    if root.entries.contains(where: { $0.tag == Tag.imageWidth }) {
      order.set(&root, Tag.imageWidth, long: UInt32(clamping: size.width))
    }
    if root.entries.contains(where: { $0.tag == Tag.imageLength }) {
      order.set(&root, Tag.imageLength, long: UInt32(clamping: size.height))
    }

    var exif = TIFFWriter.Directory()
    var makerNoteOffset: Int?
    if let p = ifd0.entry(Tag.exifIFD)?.integer(bigEndian: tiff.bigEndian),
      let d = tiff.directory(at: Int(p))
    {
      exif.entries = unique(d.entries).filter { $0.tag != Tag.interopIFD }
      if let note = d.entry(Tag.makerNote), let at = note.valueOffset, at >= 8,
        at + note.value.count <= maximumEXIFBytes
      {
        makerNoteOffset = at
        exif.pinnedTag = Tag.makerNote
      } else {
        exif.entries.removeAll { $0.tag == Tag.makerNote && $0.value.count > 4 }
      }
      // Interoperability index "R98" means DCF basic (sRGB); "R03" (Adobe RGB) would now be
      // wrong. There is no DCF code for Display P3, which ColorSpace 0xFFFF + ICC signals.
      if colorSpace == .sRGB, let ip = d.entry(Tag.interopIFD)?.integer(bigEndian: tiff.bigEndian),
        let interop = tiff.directory(at: Int(ip))
      {
        var i = TIFFWriter.Directory(entries: unique(interop.entries))
        order.set(&i, Tag.interopIndex, ascii: "R98")
        exif.children.append(.init(tag: Tag.interopIFD, directory: i))
      }
    }
    if !exif.entries.contains(where: { $0.tag == Tag.exifVersion }) {
      exif.entries.append(
        TIFFEntry(tag: Tag.exifVersion, type: 7, count: 4, value: Array("0232".utf8)))
    }
    order.set(&exif, Tag.colorSpace, short: colorSpace == .sRGB ? 1 : 0xFFFF)
    order.set(&exif, Tag.pixelX, long: UInt32(clamping: size.width))
    order.set(&exif, Tag.pixelY, long: UInt32(clamping: size.height))
    root.children.append(.init(tag: Tag.exifIFD, directory: exif))

    if let p = ifd0.entry(Tag.gpsIFD)?.integer(bigEndian: tiff.bigEndian),
      let d = tiff.directory(at: Int(p)), !d.entries.isEmpty
    {
      root.children.append(
        .init(tag: Tag.gpsIFD, directory: TIFFWriter.Directory(entries: unique(d.entries))))
    }

    let bytes = TIFFWriter(bigEndian: tiff.bigEndian, pinnedOffset: makerNoteOffset).write(root)
    if bytes.count <= maximumEXIFBytes { return bytes }
    // Too big for one APP1 segment: drop the maker note first, then give up on the source.
    guard makerNoteOffset != nil,
      var exifDir = root.children.first(where: { $0.tag == Tag.exifIFD })?.directory
    else { return nil }
    exifDir.entries.removeAll { $0.tag == Tag.makerNote }
    exifDir.pinnedTag = nil
    root.children.removeAll { $0.tag == Tag.exifIFD }
    root.children.append(.init(tag: Tag.exifIFD, directory: exifDir))
    let smaller = TIFFWriter(bigEndian: tiff.bigEndian).write(root)
    return smaller.count <= maximumEXIFBytes ? smaller : nil
  }

  /// Entries with the first occurrence of each tag kept (hostile IFDs may repeat tags).
  static func unique(_ entries: [TIFFEntry]) -> [TIFFEntry] {
    var seen = Set<UInt16>()
    return entries.filter { seen.insert($0.tag).inserted }
  }

  // MARK: - Building EXIF from typed fields

  /// A new little-endian EXIF block from `metadata`'s typed fields, with orientation 1, the new
  /// size, `software` and the colour space.
  static func typedEXIF(
    _ metadata: PhotoMetadata, size: PixelSize, colorSpace: ColorSpace, software: String
  ) -> [UInt8] {
    let order = ByteOrder(bigEndian: false)
    var root = TIFFWriter.Directory()
    if let v = metadata.cameraMake { order.set(&root, Tag.make, ascii: v) }
    if let v = metadata.cameraModel { order.set(&root, Tag.model, ascii: v) }
    order.set(&root, Tag.orientation, short: 1)
    order.set(&root, Tag.software, ascii: software)

    var exif = TIFFWriter.Directory()
    exif.entries.append(
      TIFFEntry(tag: Tag.exifVersion, type: 7, count: 4, value: Array("0232".utf8)))
    if let v = metadata.exposureTime { order.set(&exif, 0x829A, rationals: [v]) }
    if let v = metadata.fNumber { order.set(&exif, 0x829D, rationals: [v]) }
    if let v = metadata.iso {
      order.set(&exif, 0x8827, short: UInt16(clamping: v))
      if v > 0xFFFF { order.set(&exif, 0x8833, long: UInt32(clamping: v)) }
    }
    if let v = metadata.dateTimeOriginal { order.set(&exif, 0x9003, ascii: v) }
    if let v = metadata.offsetTimeOriginal { order.set(&exif, 0x9011, ascii: v) }
    if let v = metadata.brightnessValue { order.set(&exif, 0x9203, signedRational: v) }
    if let v = metadata.exposureBias { order.set(&exif, 0x9204, signedRational: v) }
    if let v = metadata.meteringMode { order.set(&exif, 0x9207, short: UInt16(v.rawValue)) }
    if let v = metadata.flash {
      order.set(&exif, 0x9209, short: UInt16(truncatingIfNeeded: v.rawValue))
    }
    if let v = metadata.focalLength { order.set(&exif, 0x920A, rationals: [v]) }
    if let v = metadata.subsecTimeOriginal { order.set(&exif, 0x9291, ascii: v) }
    order.set(&exif, Tag.colorSpace, short: colorSpace == .sRGB ? 1 : 0xFFFF)
    order.set(&exif, Tag.pixelX, long: UInt32(clamping: size.width))
    order.set(&exif, Tag.pixelY, long: UInt32(clamping: size.height))
    if let v = metadata.focalLength35mm { order.set(&exif, 0xA405, short: UInt16(clamping: v)) }
    if let v = metadata.lensMake { order.set(&exif, 0xA433, ascii: v) }
    if let v = metadata.lensModel { order.set(&exif, 0xA434, ascii: v) }
    root.children.append(.init(tag: Tag.exifIFD, directory: exif))

    if let gps = metadata.gps, abs(gps.latitude) <= 90, abs(gps.longitude) <= 180 {
      var g = TIFFWriter.Directory()
      g.entries.append(TIFFEntry(tag: 0x0000, type: 1, count: 4, value: [2, 3, 0, 0]))
      order.set(&g, 0x0001, ascii: gps.latitude < 0 ? "S" : "N")
      order.set(&g, 0x0002, rationals: degreesMinutesSeconds(abs(gps.latitude)))
      order.set(&g, 0x0003, ascii: gps.longitude < 0 ? "W" : "E")
      order.set(&g, 0x0004, rationals: degreesMinutesSeconds(abs(gps.longitude)))
      if let alt = gps.altitude, alt.isFinite {
        g.entries.append(TIFFEntry(tag: 0x0005, type: 1, count: 1, value: [alt < 0 ? 1 : 0]))
        order.set(&g, 0x0006, rationals: [abs(alt)])
      }
      root.children.append(.init(tag: Tag.gpsIFD, directory: g))
    }
    return TIFFWriter(bigEndian: false).write(root)
  }

  private static func degreesMinutesSeconds(_ value: Double) -> [Double] {
    let d = value.rounded(.down)
    let m = ((value - d) * 60).rounded(.down)
    let s = (value - d) * 3600 - m * 60
    return [d, m, (s * 1000).rounded() / 1000]
  }
}

/// Encodes entry values in one byte order.
struct ByteOrder {
  let bigEndian: Bool

  func u16(_ v: UInt16) -> [UInt8] {
    bigEndian ? [UInt8(v >> 8), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8)]
  }

  func u32(_ v: UInt32) -> [UInt8] {
    let be = [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
    return bigEndian ? be : be.reversed()
  }

  /// Replaces the entry for `tag` in `d`, or adds it.
  func set(_ d: inout TIFFWriter.Directory, _ entry: TIFFEntry) {
    if let i = d.entries.firstIndex(where: { $0.tag == entry.tag }) {
      d.entries[i] = entry
    } else {
      d.entries.append(entry)
    }
  }

  func set(_ d: inout TIFFWriter.Directory, _ tag: UInt16, short v: UInt16) {
    set(&d, TIFFEntry(tag: tag, type: 3, count: 1, value: u16(v)))
  }

  func set(_ d: inout TIFFWriter.Directory, _ tag: UInt16, long v: UInt32) {
    set(&d, TIFFEntry(tag: tag, type: 4, count: 1, value: u32(v)))
  }

  /// ASCII with its terminating NUL (non-ASCII characters pass through as UTF-8).
  func set(_ d: inout TIFFWriter.Directory, _ tag: UInt16, ascii s: String) {
    let bytes = Array(s.utf8.prefix(4096).filter { $0 != 0 }) + [0]
    set(&d, TIFFEntry(tag: tag, type: 2, count: UInt32(bytes.count), value: bytes))
  }

  func set(_ d: inout TIFFWriter.Directory, _ tag: UInt16, rationals values: [Double]) {
    var bytes: [UInt8] = []
    for v in values {
      let (n, den) = Rational.approximate(max(0, v), limit: UInt32.max)
      bytes += u32(UInt32(n)) + u32(UInt32(den))
    }
    set(&d, TIFFEntry(tag: tag, type: 5, count: UInt32(values.count), value: bytes))
  }

  func set(_ d: inout TIFFWriter.Directory, _ tag: UInt16, signedRational v: Double) {
    let (n, den) = Rational.approximate(abs(v), limit: UInt32(Int32.max))
    let signed = v < 0 ? -Int32(n) : Int32(n)
    let bytes = u32(UInt32(bitPattern: signed)) + u32(UInt32(den))
    set(&d, TIFFEntry(tag: tag, type: 10, count: 1, value: bytes))
  }
}

/// Best rational approximations by continued fractions.
enum Rational {
  /// `value` (≥ 0) as `numerator / denominator`, both ≤ `limit`, denominator ≥ 1; exact for
  /// values like 1/1493 s or 2.4 that cameras write. Non-finite values give 0/1.
  static func approximate(_ value: Double, limit: UInt32) -> (UInt64, UInt64) {
    guard value.isFinite, value >= 0 else { return (0, 1) }
    let cap = Double(limit)
    if value >= cap { return (UInt64(limit), 1) }
    var (h0, h1): (Double, Double) = (0, 1)
    var (k0, k1): (Double, Double) = (1, 0)
    var x = value
    for _ in 0..<40 {
      let a = x.rounded(.down)
      let h2 = a * h1 + h0
      let k2 = a * k1 + k0
      if h2 > cap || k2 > cap { break }
      (h0, h1, k0, k1) = (h1, h2, k1, k2)
      let frac = x - a
      if frac < 1e-12 || abs(h1 / k1 - value) <= value * 1e-12 { break }
      x = 1 / frac
    }
    guard k1 >= 1 else { return (UInt64(value.rounded()), 1) }
    return (UInt64(h1), UInt64(k1))
  }
}
