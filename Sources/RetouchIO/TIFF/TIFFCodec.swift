// SPDX-License-Identifier: Apache-2.0

import CRetouchLoaders
import Foundation
import RetouchCore

/// TIFF decoding through libtiff, loaded on first use (`rt_tiff_load`); writing is our own
/// (``TIFFCodec/encode(_:blocks:)``).
///
/// The first image of the file is read; further pages are reported in a warning. The layout is
/// read from the first directory by ``TIFFReader`` (so `info` never loads libtiff), then:
/// - 8- and 16-bit RGB and greyscale, with or without alpha, in strips or tiles, interleaved or
///   in separate planes, under any compression libtiff decodes, are copied at their own depth
///   from libtiff's decoded strips or tiles (greyscale becomes RGB; associated alpha is
///   un-premultiplied);
/// - everything else libtiff can render (palette, CMYK, YCbCr, bilevel and 2/4-bit, white-is-
///   zero, CIE L*a*b*) comes through its RGBA interface at 8 bits;
/// - floating-point and other samples libtiff cannot render are refused (`.unsupportedVariant`).
///
/// Metadata: the ICC profile (tag 34675), the XMP packet (700), IPTC (33723), and an EXIF block
/// rebuilt from the directory's descriptive tags (camera, date, orientation, copyright…) and its
/// EXIF and GPS directories, so that the rest of Retouch reads a TIFF's metadata as any photo's.
enum TIFFCodec {
  /// Why libtiff cannot be used, or nil once it is loaded.
  private static let loadFailure: String? = rt_tiff_load().map {
    "TIFF is unavailable: libtiff (the libtiff6 package) could not be loaded: "
      + "\(String(cString: $0))."
  }

  enum Tag {
    static let newSubfileType: UInt16 = 254, imageWidth: UInt16 = 256
    static let imageLength: UInt16 = 257, bitsPerSample: UInt16 = 258
    static let compression: UInt16 = 259, photometric: UInt16 = 262
    static let stripOffsets: UInt16 = 273, orientation: UInt16 = 274
    static let samplesPerPixel: UInt16 = 277, rowsPerStrip: UInt16 = 278
    static let stripByteCounts: UInt16 = 279, xResolution: UInt16 = 282
    static let yResolution: UInt16 = 283, planarConfiguration: UInt16 = 284
    static let resolutionUnit: UInt16 = 296, predictor: UInt16 = 317
    static let tileWidth: UInt16 = 322, tileLength: UInt16 = 323
    static let tileOffsets: UInt16 = 324, tileByteCounts: UInt16 = 325
    static let extraSamples: UInt16 = 338, sampleFormat: UInt16 = 339
    static let xmp: UInt16 = 700, iptc: UInt16 = 33723, photoshop: UInt16 = 34377
    static let exifIFD: UInt16 = 34665, gpsIFD: UInt16 = 34853, icc: UInt16 = 34675
    static let layers: UInt16 = 37724, makerNote: UInt16 = 37500, interopIFD: UInt16 = 40965
    static let subIFDs: UInt16 = 330, dngVersion: UInt16 = 50706
  }

  /// Tags that say how one file stores its pixels, or hold data another file's EXIF should not
  /// carry (IPTC and Photoshop resources, layers, the ICC profile and XMP, which have blocks of
  /// their own): never copied from one file's directory to another's.
  static let storageTags: Set<UInt16> = [
    254, 255, 256, 257, 258, 259, 262, 263, 264, 265, 266, 273, 277, 278, 279, 280, 281, 284,
    286, 287, 290, 291, 292, 293, 297, 317, 320, 321, 322, 323, 324, 325, 330, 332, 333, 334,
    338, 339, 340, 341, 347, 512, 513, 514, 515, 517, 518, 519, 520, 521, 529, 530, 531, 532,
    Tag.xmp, Tag.iptc, Tag.photoshop, Tag.icc, Tag.layers,
  ]

  /// The most samples per pixel read (colour, alpha and extra channels such as spot colours).
  /// More would only make a forged file's strips many times larger than its image.
  static let maxSamples = 16

  /// Values longer than this are not read from a directory: layered-document blobs and the
  /// like, not metadata (the largest ICC profiles are a few MiB).
  static let maxValueBytes = 16 << 20

  /// How the first image is stored, as its directory says (with TIFF's defaults).
  struct Layout {
    var size: PixelSize
    /// Bits of every sample, or nil when the samples differ in size.
    var bitsPerSample: Int?
    var samplesPerPixel: Int
    /// Nil when the tag is missing (libtiff then guesses).
    var photometric: Int?
    var planarConfiguration: Int
    var sampleFormat: Int
    var compression: Int
    /// Meaning of the samples after the colour ones: 0 unspecified, 1 associated alpha,
    /// 2 unassociated alpha.
    var extraSamples: [UInt32]
    var tileSize: PixelSize?
    var rowsPerStrip: Int
    /// Where the last strip or tile ends, from the offsets and byte counts.
    var dataEnd: Int

    var colorChannels: Int { photometric == 2 ? 3 : 1 }

    /// The kind of alpha the first extra sample holds (1 or 2), or nil.
    var alphaKind: UInt32? {
      guard samplesPerPixel > colorChannels, let kind = extraSamples.first, kind == 1 || kind == 2
      else { return nil }
      return kind
    }

    /// True when the samples can be copied from libtiff's decoded data at their own depth.
    var isDirect: Bool {
      (planarConfiguration == 1 || planarConfiguration == 2) && sampleFormat == 1
        && (bitsPerSample == 8 || bitsPerSample == 16)
        && ((photometric == 2 && samplesPerPixel >= 3) || (photometric == 1))
        && compression != 6  // old-style JPEG: libtiff's RGBA interface handles its quirks
    }
  }

  struct Header {
    var reader: TIFFReader
    var ifd0: TIFFDirectory
    var layout: Layout
    /// True when the file stops inside the first directory's link to the next one: every
    /// entry is there, but the file is not whole.
    var directoryCut: Bool
  }

  /// Reads the first directory, without decoding pixels.
  ///
  /// - Throws: ``ImageDecodingError``: `.truncated` (the file stops before its first
  ///   directory), `.corrupt` (no readable directory or no size).
  static func readHeader(_ data: Data, source: String) throws(ImageDecodingError) -> Header {
    guard let reader = TIFFReader(data) else {
      throw ImageDecodingError(.truncated, source: source, detail: "the TIFF header is incomplete.")
    }
    let at = reader.firstIFDOffset
    guard let ifd0 = reader.directory(at: at, maxValueBytes: maxValueBytes) else {
      // Cut when its entry table runs past the end (most writers put it last).
      let entries = reader.u16(at: at).map(Int.init)
      let cut = at + 2 + (entries ?? 0) * 12 > data.count
      throw ImageDecodingError(
        cut ? .truncated : .corrupt, source: source,
        detail:
          cut
          ? "the file stops before the end of its first image directory (at byte \(at))."
          : "the first image directory (at byte \(at)) cannot be read.")
    }
    let big = reader.bigEndian
    func integer(_ tag: UInt16) -> Int? { ifd0.entry(tag)?.integer(bigEndian: big).map(Int.init) }
    guard let width = integer(Tag.imageWidth), let height = integer(Tag.imageLength),
      width > 0, height > 0
    else {
      throw ImageDecodingError(
        .corrupt, source: source, detail: "the first image directory gives no width and height.")
    }
    // Camera raw files built on TIFF put a small preview first (NEF, ARW) or say what they
    // are (DNG, CR2): reading them as that preview would hand back a thumbnail as the photo.
    let reduced = (integer(Tag.newSubfileType) ?? 0) & 1 == 1
    let cr2 =
      data.count > 10 && data[data.startIndex + 8] == 0x43 && data[data.startIndex + 9] == 0x52
    if ifd0.entry(Tag.dngVersion) != nil || cr2 || (reduced && ifd0.entry(Tag.subIFDs) != nil) {
      throw ImageDecodingError(
        .unsupportedVariant, source: source,
        detail:
          "a camera raw file (\(cr2 ? "CR2" : ifd0.entry(Tag.dngVersion) != nil ? "DNG" : "raw"))"
          + "; raw development is not supported: export a JPEG, TIFF or PNG from a raw "
          + "converter first.")
    }
    let samples = max(1, integer(Tag.samplesPerPixel) ?? 1)
    let bits = ifd0.entry(Tag.bitsPerSample)?.integers(bigEndian: big) ?? [1]
    let tiled = ifd0.entry(Tag.tileWidth) != nil
    let offsets = ifd0.entry(tiled ? Tag.tileOffsets : Tag.stripOffsets)?.integers(bigEndian: big)
    let counts = ifd0.entry(tiled ? Tag.tileByteCounts : Tag.stripByteCounts)?
      .integers(bigEndian: big)
    var dataEnd = 0
    for (o, c) in zip(offsets ?? [], counts ?? []) { dataEnd = max(dataEnd, Int(o) + Int(c)) }
    let layout = Layout(
      size: PixelSize(width: width, height: height),
      bitsPerSample: Set(bits).count == 1 ? Int(bits[0]) : nil,
      samplesPerPixel: samples,
      photometric: integer(Tag.photometric),
      planarConfiguration: integer(Tag.planarConfiguration) ?? 1,
      sampleFormat: integer(Tag.sampleFormat) ?? 1,
      compression: integer(Tag.compression) ?? 1,
      extraSamples: ifd0.entry(Tag.extraSamples)?.integers(bigEndian: big) ?? [],
      tileSize: tiled
        ? PixelSize(width: integer(Tag.tileWidth) ?? 0, height: integer(Tag.tileLength) ?? 0)
        : nil,
      rowsPerStrip: min(height, max(1, integer(Tag.rowsPerStrip) ?? height)),
      dataEnd: dataEnd)
    let entries = Int(reader.u16(at: at) ?? 0)
    return Header(
      reader: reader, ifd0: ifd0, layout: layout,
      directoryCut: at + 2 + entries * 12 + 4 > data.count)
  }

  /// Full-resolution images in the chain of directories (at most 10,000 followed; a loop ends
  /// it). Only a decode asks: `info` and imports need not walk a long chain.
  private static func pageCount(_ reader: TIFFReader) -> Int {
    var seen = Set<Int>()
    var offset = reader.firstIFDOffset
    var pages = 0
    while offset >= 8, seen.count < 10_000, seen.insert(offset).inserted,
      let d = reader.directory(at: offset, maxValueBytes: 64)
    {
      let kind = d.entry(Tag.newSubfileType)?.integer(bigEndian: reader.bigEndian) ?? 0
      if kind & 1 == 0 { pages += 1 }
      offset = d.nextOffset
    }
    return max(1, pages)
  }

  /// The size and metadata blocks, without decoding pixels (libtiff is not loaded).
  static func readHeader(
    _ data: Data, source: String, options: DecodeOptions
  ) throws(ImageDecodingError) -> (
    storedSize: PixelSize, blocks: MetadataBlocks, orientationApplied: Bool
  ) {
    let header = try readHeader(data, source: source)
    return (header.layout.size, metadataBlocks(header), false)
  }

  /// Decodes the first image.
  ///
  /// The size is checked against ``DecodeOptions/maxPixels`` before anything is allocated.
  /// When a strip or tile cannot be decoded: under `.lenient`, if some image data came
  /// through, the rest is black (transparent with alpha) and a warning says so; otherwise
  /// `.truncated` when the file stops before its image data ends, `.corrupt` when it doesn't.
  ///
  /// - Throws: ``ImageDecodingError``: `.tooLarge`, `.truncated`, `.corrupt`,
  ///   `.unsupportedVariant` (samples libtiff cannot render, or libtiff is missing).
  static func decode(
    _ data: Data, source: String, options: DecodeOptions
  ) throws(ImageDecodingError) -> RawDecode {
    let header = try readHeader(data, source: source)
    let layout = header.layout
    let width = layout.size.width, height = layout.size.height
    let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
    guard !overflow, pixels <= options.maxPixels else {
      throw ImageDecodingError(
        .tooLarge, source: source,
        detail:
          "the first image is \(width)×\(height), above the limit of \(options.maxPixels) pixels.")
    }
    if layout.samplesPerPixel > maxSamples {
      throw ImageDecodingError(
        .unsupportedVariant, source: source,
        detail: "\(layout.samplesPerPixel) samples per pixel; at most \(maxSamples) are read.")
    }
    if layout.sampleFormat == 3 {
      throw ImageDecodingError(
        .unsupportedVariant, source: source,
        detail: "floating-point samples (a high-dynamic-range TIFF) are not read.")
    }
    if let loadFailure {
      throw ImageDecodingError(.unsupportedVariant, source: source, detail: loadFailure)
    }
    let cutDirectory = "the file stops inside the last 4 bytes of its image directory."
    if header.directoryCut && options.strictness >= .failOnTruncation {
      throw ImageDecodingError(.truncated, source: source, detail: cutDirectory)
    }
    let truncated = layout.dataEnd > data.count
    let (image, failure) = try data.withDecodingBytes {
      bytes throws(ImageDecodingError) -> (Image, Failure?) in
      // libtiff's largest single allocation: a whole-image strip of 16-bit samples, plus slack.
      let maxAllocation = Int64(pixels) * Int64(layout.samplesPerPixel * 2) + (16 << 20)
      guard let file = rt_tiff_open_memory(bytes.baseAddress, bytes.count, maxAllocation) else {
        throw ImageDecodingError(.tooLarge, source: source, detail: "out of memory opening it.")
      }
      defer { rt_tiff_close(file) }
      guard let tiff = rt_tiff_handle(file) else {
        let why = String(cString: rt_tiff_message(file))
        throw ImageDecodingError(
          truncated ? .truncated : .corrupt, source: source,
          detail: "libtiff cannot open it: \(why.isEmpty ? "no reason given" : why).")
      }
      return layout.isDirect
        ? try decodeDirect(tiff, file: file, layout: layout, source: source)
        : try decodeRGBA(tiff, file: file, layout: layout, source: source, options: options)
    }
    var warnings: [String] = []
    if header.directoryCut {
      warnings.append("truncated file: \(cutDirectory) The image itself is whole.")
    }
    if let failure {
      let detail = failure.describe(truncated: truncated)
      if options.strictness >= .failOnTruncation || !failure.somethingDecoded {
        throw ImageDecodingError(truncated ? .truncated : .corrupt, source: source, detail: detail)
      }
      warnings.append("\(truncated ? "truncated file" : "damaged image data"): \(detail)")
    }
    let pages = pageCount(header.reader)
    if pages > 1 {
      warnings.append(
        "a TIFF of \(pages) pages: only the first is read; the others are not carried "
          + "into what is written.")
    }
    var raw = RawDecode(image: image, storedSize: layout.size, blocks: metadataBlocks(header))
    raw.warnings = warnings
    raw.sourceBitDepth = layout.bitsPerSample ?? 8
    raw.convertedFromCMYK = layout.photometric == 5
    return raw
  }

  /// Where decoding stopped.
  struct Failure {
    /// What libtiff said, and which part failed.
    var message: String
    var part: String
    var somethingDecoded: Bool

    func describe(truncated: Bool) -> String {
      let what =
        truncated ? "the file stops before the image data ends" : "the image data is broken"
      let said = message.isEmpty ? "" : " (libtiff: \(message))"
      return
        "\(what) at \(part)\(said); \(somethingDecoded ? "the rest is black" : "nothing decoded")."
    }
  }

  /// Copies 8/16-bit RGB or grey samples, strip by strip or tile by tile, at their own depth;
  /// with separate planes, plane by plane.
  private static func decodeDirect(
    _ tiff: OpaquePointer, file: OpaquePointer, layout: Layout, source: String
  ) throws(ImageDecodingError) -> (Image, Failure?) {
    let width = layout.size.width, height = layout.size.height
    let wide = layout.bitsPerSample == 16
    let alpha = layout.alphaKind
    let format: PixelFormat =
      wide ? (alpha != nil ? .rgba16 : .rgb16) : (alpha != nil ? .rgba8 : .rgb8)
    var image = Image(width: width, height: height, format: format)
    let sampleBytes = wide ? 2 : 1
    let pixelBytes = format.bytesPerPixel
    let grey = layout.colorChannels == 1
    // What each read holds (all samples, or one plane) and where its samples go.
    var planes: [(sample: UInt16, copier: RowCopier)] = []
    if layout.planarConfiguration == 1 {
      planes = [(0, RowCopier(samples: layout.samplesPerPixel, grey: grey, alpha: alpha != nil))]
    } else {
      for c in 0..<layout.colorChannels {
        planes.append((UInt16(c), RowCopier(plane: grey ? [0, 1, 2] : [c], alpha: alpha != nil)))
      }
      if alpha != nil {
        planes.append((UInt16(layout.colorChannels), RowCopier(plane: [3], alpha: true)))
      }
    }
    let readSamples = layout.planarConfiguration == 1 ? layout.samplesPerPixel : 1
    var failure: Failure?
    func fail(_ part: String, _ somethingDecoded: Bool) {
      failure = Failure(
        message: String(cString: rt_tiff_message(file)), part: part,
        somethingDecoded: somethingDecoded)
    }
    if let tile = layout.tileSize {
      guard tile.width > 0, tile.height > 0 else {
        throw ImageDecodingError(.corrupt, source: source, detail: "its tiles have no size.")
      }
      let tileRowBytes = tile.width * readSamples * sampleBytes
      let (tileBytes, o) = tileRowBytes.multipliedReportingOverflow(by: tile.height)
      // A tile larger than the whole image (plus a 16-pixel margin on each side) is forged.
      let imageBytes = (width + 16) * (height + 16) * readSamples * sampleBytes
      guard !o, tileBytes <= max(1 << 20, imageBytes) else {
        throw ImageDecodingError(
          .tooLarge, source: source,
          detail: "its tiles of \(tile.width)×\(tile.height) are too large.")
      }
      let buffer = UnsafeMutableRawPointer.allocate(byteCount: tileBytes, alignment: 16)
      defer { buffer.deallocate() }
      let across = (width + tile.width - 1) / tile.width
      let down = (height + tile.height - 1) / tile.height
      image.withUnsafeMutableBytes { out in
        let rowBytes = width * pixelBytes
        tiles: for (p, plane) in planes.enumerated() {
          for ty in 0..<down {
            for tx in 0..<across {
              let x0 = tx * tile.width, y0 = ty * tile.height
              let index = TIFFComputeTile(tiff, UInt32(x0), UInt32(y0), 0, plane.sample)
              let n = Int(TIFFReadEncodedTile(tiff, index, buffer, tmsize_t(tileBytes)))
              if n < tileBytes {
                fail("tile \(ty * across + tx + 1) of \(across * down)", p + ty + tx > 0)
                break tiles
              }
              let columns = min(tile.width, width - x0)
              for r in 0..<min(tile.height, height - y0) {
                plane.copier.copy(
                  from: buffer + r * tileRowBytes, count: columns, wide: wide,
                  to: out.baseAddress! + (y0 + r) * rowBytes + x0 * pixelBytes)
              }
            }
          }
        }
      }
    } else {
      let rowBytes = width * readSamples * sampleBytes
      let rows = layout.rowsPerStrip
      let buffer = UnsafeMutableRawPointer.allocate(byteCount: rows * rowBytes, alignment: 16)
      defer { buffer.deallocate() }
      image.withUnsafeMutableBytes { out in
        let outRowBytes = width * pixelBytes
        strips: for (p, plane) in planes.enumerated() {
          // libtiff may cut one large uncompressed strip into several smaller ones ("strip
          // chopping"), so each read gives the rows of the strip that holds row `y`, however
          // many.
          var y = 0
          while y < height {
            let wanted = min(rows, height - y)
            let strip = TIFFComputeStrip(tiff, UInt32(y), plane.sample)
            let n = Int(TIFFReadEncodedStrip(tiff, strip, buffer, tmsize_t(wanted * rowBytes)))
            let got = n < 0 ? 0 : min(wanted, n / rowBytes)
            for r in 0..<got {
              plane.copier.copy(
                from: buffer + r * rowBytes, count: width, wide: wide,
                to: out.baseAddress! + (y + r) * outRowBytes)
            }
            if got == 0 {
              fail("row \(y) of \(height)", p + y > 0)
              break strips
            }
            y += got
          }
        }
      }
    }
    if alpha == 1 { image.unpremultiply() }
    return (image, failure)
  }

  /// Renders through libtiff's RGBA interface (8 bits, premultiplied when there is alpha).
  private static func decodeRGBA(
    _ tiff: OpaquePointer, file: OpaquePointer, layout: Layout, source: String,
    options: DecodeOptions
  ) throws(ImageDecodingError) -> (Image, Failure?) {
    let width = layout.size.width, height = layout.size.height
    // The raster's 32-bit words are A<<24 | B<<16 | G<<8 | R: bytes R, G, B, A in memory on the
    // little-endian machines Retouch runs on.
    var image = Image(width: width, height: height, format: .rgba8)
    var alpha: Int32 = 0
    let ok = image.withUnsafeMutableBytes { out in
      rt_tiff_read_rgba(
        file, out.baseAddress!.assumingMemoryBound(to: UInt32.self), UInt32(width),
        UInt32(height), options.strictness >= .failOnTruncation ? 1 : 0, &alpha)
    }
    let message = String(cString: rt_tiff_message(file))
    if ok < 0 {
      throw ImageDecodingError(
        .unsupportedVariant, source: source, detail: "libtiff cannot render it: \(message).")
    }
    // libtiff does not say how far it got; a raster still all zero means nowhere.
    let failure =
      ok == 0
      ? Failure(message: message, part: "some strip or tile", somethingDecoded: !image.isAllZero)
      : nil
    if alpha == 0 { return (image.droppingAlpha(), failure) }
    image.unpremultiply()
    return (image, failure)
  }

  // MARK: - Metadata

  /// The ICC profile, XMP packet and an EXIF block rebuilt from the first directory.
  static func metadataBlocks(_ header: Header) -> MetadataBlocks {
    var blocks = MetadataBlocks()
    if let icc = header.ifd0.entry(Tag.icc), !icc.value.isEmpty {
      blocks.iccProfile = Data(icc.value)
    }
    if let xmp = header.ifd0.entry(Tag.xmp), !xmp.value.isEmpty { blocks.xmp = Data(xmp.value) }
    // Photoshop writes IPTC as LONGs; the bytes are the records either way, in file order.
    // Some writers keep it only among the Photoshop image resources (34377), as JPEG's APP13.
    if let iptc = header.ifd0.entry(Tag.iptc), !iptc.value.isEmpty {
      blocks.iptc = Data(iptc.value)
    } else if let resources = header.ifd0.entry(Tag.photoshop) {
      blocks.iptc = JPEGMetadataSegments.photoshopResource(0x0404, in: Data(resources.value))
    }
    blocks.exif = exifBlock(header.reader, ifd0: header.ifd0).map { Data($0) }
    return blocks
  }

  /// An EXIF block (a TIFF structure of its own) holding the directory's descriptive tags and
  /// its EXIF, interoperability and GPS directories; nil when there is nothing to hold.
  ///
  /// The maker note keeps its offset when that offset fits in an EXIF block (most maker notes
  /// point inside themselves by absolute offsets); otherwise, or when the block would pass
  /// ``EXIFReader/maximumBytes``, it is dropped.
  static func exifBlock(_ reader: TIFFReader, ifd0: TIFFDirectory) -> [UInt8]? {
    func child(_ tag: UInt16, _ d: TIFFDirectory) -> TIFFWriter.Child {
      .init(tag: tag, directory: TIFFWriter.Directory(entries: ExportMetadata.unique(d.entries)))
    }
    let big = reader.bigEndian
    var root = TIFFWriter.Directory(
      entries: ExportMetadata.unique(ifd0.entries).filter {
        !storageTags.contains($0.tag) && $0.tag != Tag.exifIFD && $0.tag != Tag.gpsIFD
      })
    var pinned: Int?
    if let p = ifd0.entry(Tag.exifIFD)?.integer(bigEndian: big),
      let d = reader.directory(at: Int(p), maxValueBytes: maxValueBytes)
    {
      var exif = TIFFWriter.Directory(
        entries: ExportMetadata.unique(d.entries).filter { $0.tag != Tag.interopIFD })
      if let note = d.entry(Tag.makerNote), let at = note.valueOffset, at >= 8,
        at + note.value.count <= ExportMetadata.maximumEXIFBytes
      {
        pinned = at
        exif.pinnedTag = Tag.makerNote
      } else {
        exif.entries.removeAll { $0.tag == Tag.makerNote && $0.value.count > 4 }
      }
      if let ip = d.entry(Tag.interopIFD)?.integer(bigEndian: big),
        let interop = reader.directory(at: Int(ip), maxValueBytes: 4096), !interop.entries.isEmpty
      {
        exif.children.append(child(Tag.interopIFD, interop))
      }
      root.children.append(.init(tag: Tag.exifIFD, directory: exif))
    }
    if let p = ifd0.entry(Tag.gpsIFD)?.integer(bigEndian: big),
      let d = reader.directory(at: Int(p), maxValueBytes: 4096), !d.entries.isEmpty
    {
      root.children.append(child(Tag.gpsIFD, d))
    }
    guard !root.entries.isEmpty || !root.children.isEmpty else { return nil }
    let block = TIFFWriter(bigEndian: big, pinnedOffset: pinned).write(root)
    if block.count <= EXIFReader.maximumBytes { return block }
    guard let i = root.children.firstIndex(where: { $0.tag == Tag.exifIFD }) else { return nil }
    root.children[i].directory.entries.removeAll { $0.tag == Tag.makerNote }
    root.children[i].directory.pinnedTag = nil
    let smaller = TIFFWriter(bigEndian: big).write(root)
    return smaller.count <= EXIFReader.maximumBytes ? smaller : nil
  }
}

/// Copies one row of 8- or 16-bit samples into RGB(A) pixels of the same depth: interleaved
/// RGB or grey samples (with alpha among the extra samples), or one plane of a separate-planes
/// image into the channels it fills.
private struct RowCopier {
  /// Samples per source pixel (1 for a plane).
  var samples: Int
  var grey: Bool
  var alpha: Bool
  /// For a plane: the output channels its sample goes to.
  var planeChannels: [Int]?

  init(samples: Int, grey: Bool, alpha: Bool) {
    self.samples = samples
    self.grey = grey
    self.alpha = alpha
  }

  init(plane channels: [Int], alpha: Bool) {
    samples = 1
    grey = false
    self.alpha = alpha
    planeChannels = channels
  }

  func copy(
    from source: UnsafeRawPointer, count: Int, wide: Bool, to destination: UnsafeMutableRawPointer
  ) {
    if wide {
      copy(
        source.assumingMemoryBound(to: UInt16.self), count,
        destination.assumingMemoryBound(to: UInt16.self))
    } else {
      copy(
        source.assumingMemoryBound(to: UInt8.self), count,
        destination.assumingMemoryBound(to: UInt8.self))
    }
  }

  @inline(__always)
  private func copy<T: FixedWidthInteger>(
    _ s: UnsafePointer<T>, _ count: Int, _ d: UnsafeMutablePointer<T>
  ) {
    let out = alpha ? 4 : 3
    if let planeChannels {
      for c in planeChannels {
        for x in 0..<count { d[x * out + c] = s[x] }
      }
      return
    }
    if !grey && samples == out {
      d.update(from: s, count: count * out)
      return
    }
    let alphaIndex = grey ? 1 : 3
    for x in 0..<count {
      let p = s + x * samples
      let q = d + x * out
      if grey {
        q[0] = p[0]
        q[1] = p[0]
        q[2] = p[0]
      } else {
        q[0] = p[0]
        q[1] = p[1]
        q[2] = p[2]
      }
      if alpha { q[3] = p[alphaIndex] }
    }
  }
}

extension Image {
  /// Straight alpha from premultiplied: each colour component divided by alpha (rounded,
  /// clamped; colour under full transparency becomes 0).
  mutating func unpremultiply() {
    precondition(format.hasAlpha)
    let wide = format.bitDepth == 16
    let maxValue = UInt32(format.maxValue)
    withUnsafeMutableBytes { raw in
      func run<T: FixedWidthInteger & UnsignedInteger>(_ p: UnsafeMutableBufferPointer<T>) {
        var i = 0
        while i + 3 < p.count {
          let a = UInt32(p[i + 3])
          if a == 0 {
            p[i] = 0
            p[i + 1] = 0
            p[i + 2] = 0
          } else if a < maxValue {
            for k in 0..<3 {
              p[i + k] = T(min(maxValue, (UInt32(p[i + k]) * maxValue + a / 2) / a))
            }
          }
          i += 4
        }
      }
      if wide { run(raw.bindMemory(to: UInt16.self)) } else { run(raw.bindMemory(to: UInt8.self)) }
    }
  }

  /// True when every byte is 0 (black and transparent, as a zeroed image starts).
  var isAllZero: Bool {
    withUnsafeBytes { raw in
      let words = raw.count / 8
      let w = raw.baseAddress!.assumingMemoryBound(to: UInt64.self)
      for i in 0..<words where w[i] != 0 { return false }
      for i in (words * 8)..<raw.count where raw[i] != 0 { return false }
      return true
    }
  }

  /// The RGB image without its alpha channel.
  func droppingAlpha() -> Image {
    precondition(format == .rgba8)
    var out = Image(
      uninitializedWidth: width, height: height, format: .rgb8, colorSpace: colorSpace)
    withUnsafeBytes { src in
      out.withUnsafeMutableBytes { dst in
        let s = src.bindMemory(to: UInt8.self), d = dst.bindMemory(to: UInt8.self)
        for i in 0..<(width * height) {
          d[i * 3] = s[i * 4]
          d[i * 3 + 1] = s[i * 4 + 1]
          d[i * 3 + 2] = s[i * 4 + 2]
        }
      }
    }
    return out
  }
}
