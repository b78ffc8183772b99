// SPDX-License-Identifier: Apache-2.0

import CDeflate
import Foundation
import RetouchCore

extension TIFFCodec {
  /// Rows of a strip: about 256 KiB of samples, a size that compresses as well as whole images
  /// do and leaves enough strips to share between cores.
  static func rowsPerStrip(rowBytes: Int, height: Int) -> Int {
    min(height, max(1, (256 << 10) / max(1, rowBytes)))
  }

  /// Encodes `image` as a baseline TIFF that every reader opens: RGB, or RGB with unassociated
  /// alpha, at the image's own depth (8 or 16 bits), in strips compressed with Deflate after
  /// horizontal differencing (compression 8, predictor 2; lossless). The strips are compressed
  /// on all cores; the bytes do not depend on how many.
  ///
  /// Metadata: the file begins with the EXIF block of `blocks` as it is (a TIFF structure of
  /// its own, in its own byte order, which the file then uses), so its EXIF and GPS directories
  /// and a maker note keep their offsets and need no rewriting. The image's directory, written
  /// last, holds the pixel tags, the block's descriptive tags (camera, dates, copyright…), the
  /// links to its EXIF and GPS directories, the ICC profile (34675), the XMP packet (700) and
  /// IPTC (33723).
  ///
  /// - Throws: ``ImageEncodingError`` `.invalidParameter` when the file would pass 4 GiB,
  ///   classic TIFF's limit; `.encoderFailed` when compression fails.
  static func encode(_ image: Image, blocks: MetadataBlocks) throws(ImageEncodingError) -> Data {
    var out = Data()
    var bigEndian = false
    var carried: [TIFFEntry] = []
    if let exif = blocks.exif, let reader = TIFFReader(exif),
      let ifd0 = reader.directory(at: reader.firstIFDOffset)
    {
      out = reader.bytes
      bigEndian = reader.bigEndian
      // Values longer than 4 bytes stay where the block has them (`valueOffset`).
      carried = ExportMetadata.unique(ifd0.entries).filter {
        !storageTags.contains($0.tag) && $0.tag != Tag.orientation
      }
    } else {
      out = Data([0x49, 0x49, 0x2A, 0x00, 0, 0, 0, 0])
    }
    let order = ByteOrder(bigEndian: bigEndian)

    let channels = image.format.channelCount
    let rowBytes = image.bytesPerRow
    let rows = rowsPerStrip(rowBytes: rowBytes, height: image.height)
    let stripCount = (image.height + rows - 1) / rows
    let strips = try compressedStrips(image, rowsPerStrip: rows, count: stripCount, order: order)

    var stripOffsets: [UInt32] = []
    var stripCounts: [UInt32] = []
    for strip in strips {
      if out.count % 2 == 1 { out.append(0) }
      guard out.count + strip.count <= Int(UInt32.max) else { throw tooLarge(image) }
      stripOffsets.append(UInt32(out.count))
      stripCounts.append(UInt32(strip.count))
      out.append(contentsOf: strip)
    }

    var own: [TIFFEntry] = []
    func add(_ tag: UInt16, type: UInt16, _ values: [UInt32]) {
      let bytes = values.flatMap { type == 3 ? order.u16(UInt16($0)) : order.u32($0) }
      own.append(TIFFEntry(tag: tag, type: type, count: UInt32(values.count), value: bytes))
    }
    add(Tag.imageWidth, type: 4, [UInt32(image.width)])
    add(Tag.imageLength, type: 4, [UInt32(image.height)])
    add(
      Tag.bitsPerSample, type: 3, Array(repeating: UInt32(image.format.bitDepth), count: channels))
    add(Tag.compression, type: 3, [8])
    add(Tag.photometric, type: 3, [2])
    add(Tag.stripOffsets, type: 4, stripOffsets)
    add(Tag.orientation, type: 3, [1])
    add(Tag.samplesPerPixel, type: 3, [UInt32(channels)])
    add(Tag.rowsPerStrip, type: 4, [UInt32(rows)])
    add(Tag.stripByteCounts, type: 4, stripCounts)
    add(Tag.planarConfiguration, type: 3, [1])
    add(Tag.predictor, type: 3, [2])
    if image.format.hasAlpha { add(Tag.extraSamples, type: 3, [2]) }
    if !carried.contains(where: { $0.tag == Tag.xResolution }) {
      // Baseline TIFF requires a resolution; 72 pixels per inch says "no particular size".
      own.append(
        TIFFEntry(tag: Tag.xResolution, type: 5, count: 1, value: order.u32(72) + order.u32(1)))
      own.append(
        TIFFEntry(tag: Tag.yResolution, type: 5, count: 1, value: order.u32(72) + order.u32(1)))
      add(Tag.resolutionUnit, type: 3, [2])
    }
    if let xmp = blocks.xmp, !xmp.isEmpty {
      own.append(TIFFEntry(tag: Tag.xmp, type: 1, count: UInt32(xmp.count), value: Array(xmp)))
    }
    if let iptc = blocks.iptc, !iptc.isEmpty {
      own.append(TIFFEntry(tag: Tag.iptc, type: 7, count: UInt32(iptc.count), value: Array(iptc)))
    }
    if let icc = blocks.iccProfile, !icc.isEmpty {
      own.append(TIFFEntry(tag: Tag.icc, type: 7, count: UInt32(icc.count), value: Array(icc)))
    }
    let ownTags = Set(own.map(\.tag))
    let entries = (own + carried.filter { !ownTags.contains($0.tag) }).sorted { $0.tag < $1.tag }

    // Values that do not fit in their entry, then the directory.
    var valueOffsets: [UInt16: UInt32] = [:]
    for e in own where e.value.count > 4 {
      if out.count % 2 == 1 { out.append(0) }
      valueOffsets[e.tag] = UInt32(clamping: out.count)
      out.append(contentsOf: e.value)
    }
    if out.count % 2 == 1 { out.append(0) }
    let directoryOffset = out.count
    var table = order.u16(UInt16(entries.count))
    for e in entries {
      table += order.u16(e.tag) + order.u16(e.type) + order.u32(e.count)
      if e.value.count <= 4 {
        table += e.value + [UInt8](repeating: 0, count: 4 - e.value.count)
      } else if ownTags.contains(e.tag), let o = valueOffsets[e.tag] {
        table += order.u32(o)
      } else {
        table += order.u32(UInt32(e.valueOffset ?? 0))
      }
    }
    table += [0, 0, 0, 0]
    out.append(contentsOf: table)
    guard out.count <= Int(UInt32.max) else { throw tooLarge(image) }
    out.replaceSubrange(4..<8, with: order.u32(UInt32(directoryOffset)))
    return out
  }

  private static func tooLarge(_ image: Image) -> ImageEncodingError {
    ImageEncodingError(
      .invalidParameter,
      detail: "a TIFF of \(image.width)×\(image.height) would pass 4 GiB, the format's limit.")
  }

  /// Each strip's rows, differenced (predictor 2) in the file's byte order and compressed.
  private static func compressedStrips(
    _ image: Image, rowsPerStrip rows: Int, count: Int, order: ByteOrder
  ) throws(ImageEncodingError) -> [[UInt8]] {
    let rowBytes = image.bytesPerRow
    let channels = image.format.channelCount
    let wide = image.format.bitDepth == 16
    let height = image.height
    let swap = wide && order.bigEndian != (1.bigEndian == 1)
    let strips = image.withUnsafeBytes { pixels -> [[UInt8]?] in
      let base = SendableRawPointer(pixels.baseAddress!)
      return ParallelBands.map(count: count) { s -> [UInt8]? in
        let first = s * rows
        let n = min(rows, height - first)
        var scratch = [UInt8](repeating: 0, count: n * rowBytes)
        scratch.withUnsafeMutableBytes { d in
          for r in 0..<n {
            let src = UnsafeRawPointer(base.pointer) + (first + r) * rowBytes
            let dst = d.baseAddress! + r * rowBytes
            if wide {
              difference(
                src.assumingMemoryBound(to: UInt16.self), dst.assumingMemoryBound(to: UInt16.self),
                count: rowBytes / 2, channels: channels, swap: swap)
            } else {
              difference(
                src.assumingMemoryBound(to: UInt8.self), dst.assumingMemoryBound(to: UInt8.self),
                count: rowBytes, channels: channels, swap: false)
            }
          }
        }
        return deflate(scratch)
      }
    }
    var result: [[UInt8]] = []
    result.reserveCapacity(strips.count)
    for s in strips {
      guard let s else {
        throw ImageEncodingError(.encoderFailed, detail: "libdeflate could not compress a strip.")
      }
      result.append(s)
    }
    return result
  }

  /// Horizontal differencing: each sample minus the same channel of the pixel before it
  /// (modulo the sample range), the first pixel as it is.
  @inline(__always)
  private static func difference<T: FixedWidthInteger>(
    _ s: UnsafePointer<T>, _ d: UnsafeMutablePointer<T>, count: Int, channels: Int, swap: Bool
  ) {
    for i in 0..<min(channels, count) { d[i] = s[i] }
    var i = channels
    while i < count {
      d[i] = s[i] &- s[i - channels]
      i += 1
    }
    if swap {
      for i in 0..<count { d[i] = d[i].byteSwapped }
    }
  }

  /// `bytes` as a zlib stream (what TIFF's Deflate compression holds) at level 6, the level
  /// zlib and libtiff default to, or nil. libdeflate compresses whole buffers 2–3× faster than
  /// zlib at the same level, for files as small or a little smaller.
  private static func deflate(_ bytes: [UInt8]) -> [UInt8]? {
    guard let compressor = libdeflate_alloc_compressor(6) else { return nil }
    defer { libdeflate_free_compressor(compressor) }
    let bound = libdeflate_zlib_compress_bound(compressor, bytes.count)
    var out = [UInt8](repeating: 0, count: bound)
    let written = out.withUnsafeMutableBytes { o in
      bytes.withUnsafeBytes { i in
        libdeflate_zlib_compress(compressor, i.baseAddress, i.count, o.baseAddress, o.count)
      }
    }
    guard written > 0 else { return nil }
    out.removeSubrange(written...)
    return out
  }
}
