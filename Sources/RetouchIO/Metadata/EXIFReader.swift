// SPDX-License-Identifier: Apache-2.0

import CExif
import Foundation
import RetouchCore

/// Reads the typed EXIF fields of ``PhotoMetadata`` with libexif.
///
/// libexif parses the TIFF structure (IFD0, EXIF, GPS, interoperability IFDs); this type only
/// converts entries to Swift values, checking each entry's format and size first. libexif is run
/// with `FOLLOW_SPECIFICATION` off, so it never invents default tags, and `IGNORE_UNKNOWN_TAGS`
/// off, so tags newer than its table still come through. Blocks over ``maximumBytes`` are not
/// handed to libexif (a JPEG APP1 segment cannot exceed 64 KiB; HEIF blocks are similar).
enum EXIFReader {
  /// The largest EXIF block parsed (4 MiB); larger ones are skipped with a warning.
  static let maximumBytes = 4 << 20

  /// Fills `metadata`'s EXIF-derived fields from a TIFF-structured block. Problems are appended
  /// to `warnings`; whatever could be read is kept. Cost: one libexif parse, O(block size).
  static func read(_ exif: Data, into metadata: inout PhotoMetadata, warnings: inout [String]) {
    guard exif.count <= maximumBytes else {
      warnings.append("EXIF block of \(exif.count) bytes exceeds \(maximumBytes); not read.")
      return
    }
    // Check the structure ourselves first: libexif reports nothing, so the warnings come from here.
    guard let tiff = TIFFReader(exif) else {
      warnings.append("EXIF block does not start with a TIFF header (II*\\0 or MM\\0*); not read.")
      return
    }
    guard let ifd0 = tiff.directory(at: tiff.firstIFDOffset) else {
      warnings.append(
        "EXIF IFD0 at offset \(tiff.firstIFDOffset) lies outside the \(exif.count)-byte block.")
      return
    }
    if ifd0.skippedEntries > 0 {
      warnings.append(
        "EXIF IFD0: \(ifd0.skippedEntries) entries with an unknown type or out-of-range value "
          + "skipped."
      )
    }

    guard let data = exif_data_new() else {
      warnings.append("libexif could not allocate its EXIF data.")
      return
    }
    defer { exif_data_unref(data) }
    exif_data_unset_option(data, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION)
    exif_data_unset_option(data, EXIF_DATA_OPTION_IGNORE_UNKNOWN_TAGS)
    var buffer = [UInt8]("Exif".utf8) + [0, 0]
    buffer.append(contentsOf: exif)
    buffer.withUnsafeBufferPointer { p in
      exif_data_load_data(data, p.baseAddress, UInt32(p.count))
    }
    let order = exif_data_get_byte_order(data)
    let ifds = data.pointee.ifd
    let view = EntryReader(order: order)
    let ifd0Content = ifds.0
    let exifContent = ifds.2
    let gpsContent = ifds.3

    func entry(_ content: UnsafeMutablePointer<ExifContent>?, _ tag: UInt32)
      -> UnsafeMutablePointer<ExifEntry>?
    {
      guard let content else { return nil }
      return exif_content_get_entry(content, ExifTag(rawValue: tag))
    }
    func anyEntry(_ tag: UInt32) -> UnsafeMutablePointer<ExifEntry>? {
      entry(exifContent, tag) ?? entry(ifd0Content, tag)
    }

    metadata.cameraMake = entry(ifd0Content, 0x010F).flatMap(view.string)
    metadata.cameraModel = entry(ifd0Content, 0x0110).flatMap(view.string)
    metadata.software = entry(ifd0Content, 0x0131).flatMap(view.string)
    if let e = entry(ifd0Content, 0x0112) {
      let raw = view.number(e).map { Int($0) }
      if let raw, let o = ImageOrientation(rawValue: raw) {
        metadata.orientation = o
      } else {
        warnings.append(
          "EXIF orientation \(raw.map(String.init) ?? "(unreadable)") is not 1...8; using 1.")
        metadata.orientation = .up
      }
    }

    metadata.lensMake = anyEntry(0xA433).flatMap(view.string)
    metadata.lensModel = anyEntry(0xA434).flatMap(view.string)
    metadata.exposureTime = anyEntry(0x829A).flatMap { view.number($0) }.flatMap(positive)
    metadata.fNumber = anyEntry(0x829D).flatMap { view.number($0) }.flatMap(positive)
    // ISOSpeed (0x8833, EXIF 2.3) is exact; PhotographicSensitivity (0x8827) may hold another
    // sensitivity kind or saturate at 65535, so it is the fallback.
    let isoSpeed = anyEntry(0x8833).flatMap { view.number($0) }.flatMap(positive)
    let sensitivity = anyEntry(0x8827).flatMap { view.number($0) }.flatMap(positive)
    metadata.iso = (isoSpeed ?? sensitivity).map { Int($0.rounded()) }
    metadata.exposureBias = anyEntry(0x9204).flatMap { view.number($0) }
    metadata.brightnessValue = anyEntry(0x9203).flatMap { view.number($0) }
    metadata.meteringMode = anyEntry(0x9207).flatMap { view.number($0) }.flatMap {
      MeteringMode(rawValue: Int($0))
    }
    metadata.flash = anyEntry(0x9209).flatMap { view.number($0) }.map { Flash(rawValue: Int($0)) }
    metadata.focalLength = anyEntry(0x920A).flatMap { view.number($0) }.flatMap(positive)
    metadata.focalLength35mm = anyEntry(0xA405).flatMap { view.number($0) }.flatMap(positive)
      .map { Int($0.rounded()) }
    metadata.dateTimeOriginal =
      anyEntry(0x9003).flatMap(view.string) ?? entry(ifd0Content, 0x0132).flatMap(view.string)
    metadata.offsetTimeOriginal = anyEntry(0x9011).flatMap(view.string)
    metadata.subsecTimeOriginal = anyEntry(0x9291).flatMap(view.string)
    metadata.gps = readGPS(gpsContent, view: view, warnings: &warnings)
  }

  private static func positive(_ v: Double) -> Double? { v > 0 && v.isFinite ? v : nil }

  private static func readGPS(
    _ content: UnsafeMutablePointer<ExifContent>?, view: EntryReader, warnings: inout [String]
  ) -> GPSLocation? {
    guard let content else { return nil }
    func entry(_ tag: UInt32) -> UnsafeMutablePointer<ExifEntry>? {
      exif_content_get_entry(content, ExifTag(rawValue: tag))
    }
    func degrees(_ tag: UInt32) -> Double? {
      guard let e = entry(tag) else { return nil }
      let n = min(view.componentCount(e), 3)
      guard n >= 1 else { return nil }
      var total = 0.0
      for i in 0..<n {
        guard let v = view.number(e, index: i), v >= 0 else { return nil }
        total += v / pow(60, Double(i))
      }
      return total
    }
    guard var lat = degrees(0x0002), var lon = degrees(0x0004) else { return nil }
    let latRef = entry(0x0001).flatMap(view.string)?.uppercased()
    let lonRef = entry(0x0003).flatMap(view.string)?.uppercased()
    if latRef == "S" { lat = -lat }
    if lonRef == "W" { lon = -lon }
    guard abs(lat) <= 90, abs(lon) <= 180 else {
      warnings.append("EXIF GPS position \(lat), \(lon) is outside the globe; ignored.")
      return nil
    }
    var altitude = entry(0x0006).flatMap { view.number($0) }
    if let a = altitude, let ref = entry(0x0005).flatMap({ view.number($0) }), ref == 1 {
      altitude = -a
    }
    return GPSLocation(latitude: lat, longitude: lon, altitude: altitude)
  }
}

/// Converts libexif entries to Swift values after checking their format and size.
private struct EntryReader {
  let order: ExifByteOrder

  /// Bytes per component, or nil for a format this reader does not convert.
  private func unit(_ format: ExifFormat) -> Int? {
    TIFFEntry.unitSize(ofType: UInt16(truncatingIfNeeded: format.rawValue))
  }

  func componentCount(_ e: UnsafeMutablePointer<ExifEntry>) -> Int {
    guard let u = unit(e.pointee.format), e.pointee.data != nil else { return 0 }
    return min(Int(e.pointee.components), Int(e.pointee.size) / u)
  }

  /// Component `index` as a number (integers, rationals, floats); nil for a zero denominator,
  /// text, or an index past the entry's data.
  func number(_ e: UnsafeMutablePointer<ExifEntry>, index: Int = 0) -> Double? {
    guard index < componentCount(e), let base = e.pointee.data,
      let u = unit(e.pointee.format)
    else { return nil }
    let p = base + index * u
    switch e.pointee.format.rawValue {
    case 1: return Double(p.pointee)
    case 6: return Double(Int8(bitPattern: p.pointee))
    case 3: return Double(exif_get_short(p, order))
    case 8: return Double(exif_get_sshort(p, order))
    case 4: return Double(exif_get_long(p, order))
    case 9: return Double(exif_get_slong(p, order))
    case 5:
      let r = exif_get_rational(p, order)
      return r.denominator == 0 ? nil : Double(r.numerator) / Double(r.denominator)
    case 10:
      let r = exif_get_srational(p, order)
      return r.denominator == 0 ? nil : Double(r.numerator) / Double(r.denominator)
    case 11:
      let bits = UInt32(exif_get_long(p, order))
      let f = Double(Float(bitPattern: bits))
      return f.isFinite ? f : nil
    default: return nil
    }
  }

  /// An ASCII (or UNDEFINED) entry as text, cut at the first NUL and trimmed of spaces; nil
  /// when empty. Bytes that are not UTF-8 are read as ISO 8859-1.
  func string(_ e: UnsafeMutablePointer<ExifEntry>) -> String? {
    let format = e.pointee.format.rawValue
    guard format == 2 || format == 7 || format == 1, let base = e.pointee.data else { return nil }
    let size = min(Int(e.pointee.size), Int(e.pointee.components), 4096)
    let bytes = UnsafeBufferPointer(start: base, count: size)
    return EXIFText.decode(bytes)
  }
}

/// Text in EXIF ASCII fields.
enum EXIFText {
  /// Bytes up to the first NUL, trimmed of whitespace; nil when nothing is left.
  static func decode<C: Collection>(_ bytes: C) -> String? where C.Element == UInt8 {
    let cut = bytes.prefix { $0 != 0 }
    let text =
      String(validating: cut, as: UTF8.self)
      ?? String(decoding: cut.map { UInt16($0) }, as: UTF16.self)
    let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
    return trimmed.isEmpty ? nil : trimmed
  }
}
