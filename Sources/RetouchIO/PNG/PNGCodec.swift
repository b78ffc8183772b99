// SPDX-License-Identifier: Apache-2.0

import CRetouchShims
import Foundation
import RetouchCore

/// PNG decoding and encoding through libpng 1.6 (the full API, behind the `rt_png` C shim).
///
/// Decoding expands every PNG colour type to RGB or RGBA: palettes become RGB, `tRNS` becomes an
/// alpha channel, grey is copied to R, G and B. 16-bit files stay 16-bit (native-endian) when
/// ``DecodeOptions/keeps16Bit`` is set, otherwise they are rounded to 8 bits. Metadata comes from
/// `iCCP` (ICC profile), `cICP` (code points, which outrank the profile), `eXIf` (EXIF) and the
/// `XML:com.adobe.xmp` text chunk (XMP). Without either colour chunk the pixels are taken as sRGB,
/// which is what `sRGB` chunks say and what browsers assume.
enum PNGCodec {
  /// The text keyword that carries an XMP packet (XMP Specification Part 3, §1.1.5).
  static let xmpKeyword = "XML:com.adobe.xmp"

  /// The zlib level for writing: 6 is zlib's default, within a few % of 9 in size at about half
  /// the time.
  static let compressionLevel: Int32 = 6

  /// Decodes a whole PNG into an RGB(A) image of 8 or 16 bits per component.
  ///
  /// Costs one pass of inflate and unfiltering; the image is allocated once, after the IHDR size
  /// has been checked against ``DecodeOptions/maxPixels``. A file that stops inside the image data
  /// gives, under `.lenient`, the rows decoded so far (the rest black and transparent) plus a
  /// warning; interlaced files cannot be cut that way and throw `.truncated` (see below).
  ///
  /// - Throws: ``ImageDecodingError`` with kind `.tooLarge` (IHDR over the pixel limit),
  ///   `.truncated` (data stops early and `strictness` refuses that, or the header is
  ///   incomplete), `.corrupt` (CRC or zlib errors, bad chunks) or `.warning` (libpng warned and
  ///   `strictness` is `.failOnWarning`).
  static func decode(
    _ data: Data, source: String, options: DecodeOptions
  ) throws(ImageDecodingError) -> RawDecode {
    let reader = PNGReader()
    defer { reader.close() }
    return try data.withDecodingBytes { buffer throws(ImageDecodingError) in
      try decode(buffer, reader: reader, source: source, options: options)
    }
  }

  /// Reads the chunks up to the first `IDAT` (IHDR, iCCP, eXIf and text before the image data)
  /// without inflating any pixels.
  ///
  /// - Throws: ``ImageDecodingError`` (`.truncated` when the header is incomplete, `.corrupt`).
  static func readHeader(
    _ data: Data, source: String, options: DecodeOptions
  ) throws(ImageDecodingError) -> (
    storedSize: PixelSize, blocks: MetadataBlocks, orientationApplied: Bool
  ) {
    let reader = PNGReader()
    defer { reader.close() }
    return try data.withDecodingBytes { buffer throws(ImageDecodingError) in
      try reader.open(buffer, source: source)
      let state = reader.state.pointee
      var blocks = reader.blocks()
      blocks.nclx = codePoints(buffer)
      return (PixelSize(width: Int(state.width), height: Int(state.height)), blocks, false)
    }
  }

  /// Encodes `image` as a non-interlaced RGB or RGBA PNG, 8 or 16 bits per component.
  ///
  /// The depth is the image's own unless ``EncodeOptions/pngBitDepth`` asks for 8 or 16
  /// (16 → 8 rounds `v × 255 / 65535`; 8 → 16 multiplies by 257, so values round-trip). Writes
  /// `iCCP` from `blocks.iccProfile` (named after the profile's description), `eXIf` from
  /// `blocks.exif` and an uncompressed `iTXt` `XML:com.adobe.xmp` from `blocks.xmp`. zlib level 6
  /// with libpng's adaptive filter choice per row.
  ///
  /// - Throws: ``ImageEncodingError`` (`.invalidParameter` for a bit depth other than 8 or 16 or
  ///   a size over PNG's 2^31 − 1 limit, `.encoderFailed` with libpng's message).
  static func encode(
    _ image: Image, options: EncodeOptions, blocks: MetadataBlocks
  ) throws(ImageEncodingError) -> Data {
    let outDepth = options.pngBitDepth ?? image.format.bitDepth
    guard outDepth == 8 || outDepth == 16 else {
      throw ImageEncodingError(
        .invalidParameter, detail: "PNG bit depth \(outDepth) is not supported; use 8 or 16.")
    }
    let limit = 0x7FFF_FFFF
    guard image.width <= limit, image.height <= limit else {
      throw ImageEncodingError(
        .invalidParameter, detail: "\(image.size) exceeds PNG's limit of 2^31 − 1 per side.")
    }
    let icc = blocks.iccProfile.flatMap { $0.isEmpty ? nil : [UInt8]($0) }
    let iccName = icc.map { ICCProfileName.pngKeyword(forProfile: $0) } ?? "ICC Profile"
    let exif = blocks.exif.flatMap { $0.isEmpty ? nil : [UInt8]($0) }
    // iTXt text ends at the first NUL; an XMP packet never contains one.
    let xmp = blocks.xmp.flatMap {
      $0.isEmpty ? nil : [CChar]($0.map { CChar(bitPattern: $0) }) + [0]
    }

    var output: UnsafeMutablePointer<UInt8>?
    var outputLength = 0
    var message = [CChar](repeating: 0, count: 512)
    let status: Int32 = image.withUnsafeBytes { pixels in
      iccName.withCString { name in
        withOptionalBytes(icc) { iccPointer in
          withOptionalBytes(exif) { exifPointer in
            withOptionalBytes(xmp) { xmpPointer in
              var params = rt_png_encode_params()
              params.pixels = pixels.baseAddress
              params.width = UInt32(image.width)
              params.height = UInt32(image.height)
              params.channels = Int32(image.format.channelCount)
              params.in_depth = Int32(image.format.bitDepth)
              params.out_depth = Int32(outDepth)
              params.compression_level = compressionLevel
              params.icc = iccPointer
              params.icc_length = icc?.count ?? 0
              params.icc_name = name
              params.exif = exifPointer
              params.exif_length = exif?.count ?? 0
              params.xmp = xmpPointer?.assumingMemoryBound(to: CChar.self)
              return rt_png_encode(&params, &output, &outputLength, &message, message.count)
            }
          }
        }
      }
    }
    guard status == 0, let output else {
      let text = String(
        decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
      throw ImageEncodingError(.encoderFailed, detail: "libpng: \(text).")
    }
    defer { rt_png_free(output) }
    return Data(bytes: output, count: outputLength)
  }

  // MARK: - Decoding steps

  private static func decode(
    _ buffer: UnsafeRawBufferPointer, reader: PNGReader, source: String, options: DecodeOptions
  ) throws(ImageDecodingError) -> RawDecode {
    try reader.open(buffer, source: source)
    let header = reader.state.pointee
    let width = Int(header.width)
    let height = Int(header.height)
    let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
    guard !overflow, pixels <= options.maxPixels else {
      throw ImageDecodingError(
        .tooLarge, source: source,
        detail: "IHDR says \(width)×\(height), above the limit of \(options.maxPixels) pixels.")
    }
    let keeps16 = header.bit_depth == 16 && options.keeps16Bit
    let format = PixelFormat(hasAlpha: header.out_channels == 4, sixteenBit: keeps16)
    var image = Image(uninitializedWidth: width, height: height, format: format)
    let rowBytes = image.bytesPerRow
    var warnings: [String] = []

    let readStatus = image.withUnsafeMutableBytes { raw in
      rt_png_reader_read_image(reader.state, raw.baseAddress, rowBytes, keeps16 ? 1 : 0)
    }
    if readStatus != 0 {
      let state = reader.state.pointee
      let message = cString(state.error)
      let position = state.position
      guard state.ran_out_of_data != 0 else {
        throw ImageDecodingError(
          .corrupt, source: source,
          detail:
            "libpng: \(message) near byte \(position), after row \(state.rows_done) of \(height).")
      }
      // With Adam7 the early passes scatter pixels over the whole image, so "the rows decoded so
      // far" is not a usable picture; libpng gives no way to finish the passes without the data.
      if header.interlaced != 0 {
        throw ImageDecodingError(
          .truncated, source: source,
          detail:
            "interlaced image data stops at byte \(position) of \(buffer.count); "
            + "partial interlaced images are not returned."
        )
      }
      let done = Int(state.rows_done)
      let detail = "image data stops at byte \(position), after row \(done) of \(height)."
      if options.strictness >= .failOnTruncation {
        throw ImageDecodingError(.truncated, source: source, detail: detail)
      }
      image.blackenRows(from: done)
      warnings.append("truncated file: \(detail) The remaining rows are black.")
    } else if rt_png_reader_finish(reader.state) != 0 {
      // Every row is there; only the chunks after the image data (text, eXIf, IEND) are lost.
      let state = reader.state.pointee
      let what = state.ran_out_of_data != 0 ? "the file ends" : "libpng: \(cString(state.error))"
      let detail =
        "\(what) after the image data, at byte \(state.position); later chunks are ignored."
      if state.ran_out_of_data == 0 && options.strictness >= .failOnError {
        throw ImageDecodingError(.corrupt, source: source, detail: detail)
      }
      warnings.append(detail)
      if options.strictness >= .failOnWarning {
        throw ImageDecodingError(.warning, source: source, detail: detail)
      }
    }

    let state = reader.state.pointee
    let libpngWarnings = cString(state.warnings).split(separator: "\n").map { "libpng: \($0)" }
    if options.strictness >= .failOnWarning, let first = libpngWarnings.first {
      throw ImageDecodingError(.warning, source: source, detail: "\(first).")
    }
    warnings.append(contentsOf: libpngWarnings)
    var blocks = reader.blocks()
    blocks.nclx = codePoints(buffer)
    if blocks.iccProfile == nil, blocks.nclx == nil, state.has_srgb == 0, state.has_gamma != 0,
      abs(state.gamma - 1 / 2.2) > 0.01
    {
      warnings.append(
        "gAMA \(state.gamma) differs from sRGB's; the pixels are shown as sRGB without correction.")
    }
    if let frames = animationFrames(buffer) {
      warnings.append(
        "an animated PNG (\(frames) frames): only its still image is read; the animation is lost "
          + "in what is written.")
    }

    var raw = RawDecode(
      image: image, storedSize: PixelSize(width: width, height: height), blocks: blocks)
    raw.warnings = warnings
    raw.sourceBitDepth = max(8, Int(header.bit_depth))
    return raw
  }
}

extension PNGCodec {
  /// The frame count an APNG's `acTL` chunk declares (it must come before the first `IDAT`),
  /// or nil for a still PNG. libpng reads an APNG as its default image and skips the frames.
  static func animationFrames(_ bytes: UnsafeRawBufferPointer) -> Int? {
    guard let data = chunkBeforeImageData("acTL", in: bytes), data.count >= 4 else {
      return nil
    }
    return (0..<4).reduce(0) { $0 << 8 | Int(bytes[data.lowerBound + $1]) }
  }

  /// The colour a `cICP` chunk signals by code points (ITU-T H.273: primaries, transfer,
  /// matrix, full range), or nil without a valid one. PNG (third edition) puts it before the
  /// image data, for RGB only (matrix 0), and ranks it above `iCCP`; libpng 1.6.39 does not
  /// know the chunk, so it is read here. HDR PNGs (PQ or HLG over BT.2020, as browsers and video
  /// tools write them) are tone-mapped through it like HDR HEIF and AVIF.
  static func codePoints(_ bytes: UnsafeRawBufferPointer) -> NCLXColorInfo? {
    guard let data = chunkBeforeImageData("cICP", in: bytes), data.count == 4,
      bytes[data.lowerBound + 2] == 0, bytes[data.lowerBound + 3] <= 1
    else { return nil }
    return NCLXColorInfo(
      colorPrimaries: Int(bytes[data.lowerBound]),
      transferCharacteristics: Int(bytes[data.lowerBound + 1]), matrixCoefficients: 0,
      fullRange: bytes[data.lowerBound + 3] == 1)
  }

  /// The data bytes of the first chunk of `type` before the first `IDAT`, or nil. A chunk whose
  /// length runs past the end of the file ends the walk: when it is the one asked for, the bytes
  /// that are there are returned (callers check the length they need), otherwise nil.
  static func chunkBeforeImageData(_ type: String, in bytes: UnsafeRawBufferPointer)
    -> Range<Int>?
  {
    func uint32(_ offset: Int) -> Int {
      (0..<4).reduce(0) { $0 << 8 | Int(bytes[offset + $1]) }
    }
    var offset = 8
    while offset + 8 <= bytes.count {
      let length = uint32(offset)
      let name = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
      if name == "IDAT" { return nil }
      guard length <= bytes.count - offset - 12 else {
        // A cut chunk: its data is whatever is there.
        return name == type ? (offset + 8)..<min(bytes.count, offset + 8 + length) : nil
      }
      if name == type { return (offset + 8)..<(offset + 8 + length) }
      offset += 12 + length
    }
    return nil
  }
}

/// Owns one `rt_png_reader` (and the libpng structures inside it) for the length of a call.
private final class PNGReader {
  let state: UnsafeMutablePointer<rt_png_reader>

  init() {
    state = .allocate(capacity: 1)
    state.initialize(to: rt_png_reader())
  }

  /// Reads the signature and the chunks before the first IDAT.
  func open(_ buffer: UnsafeRawBufferPointer, source: String) throws(ImageDecodingError) {
    guard rt_png_reader_open(state, buffer.baseAddress, buffer.count) == 0 else {
      let s = state.pointee
      let message = cString(s.error)
      if s.ran_out_of_data != 0 {
        throw ImageDecodingError(
          .truncated, source: source,
          detail: "the file ends at byte \(buffer.count), before the image data starts.")
      }
      throw ImageDecodingError(
        .corrupt, source: source, detail: "libpng: \(message) near byte \(s.position).")
    }
  }

  /// Copies the metadata libpng has collected so far.
  func blocks() -> MetadataBlocks {
    let s = state.pointee
    func copy(_ pointer: UnsafePointer<UInt8>?, _ count: Int) -> Data? {
      guard let pointer, count > 0 else { return nil }
      return Data(bytes: pointer, count: count)
    }
    return MetadataBlocks(
      exif: copy(s.exif, s.exif_length), xmp: copy(s.xmp, s.xmp_length),
      iccProfile: copy(s.icc, s.icc_length))
  }

  func close() {
    rt_png_reader_destroy(state)
  }

  deinit {
    state.deinitialize(count: 1)
    state.deallocate()
  }
}

/// The text of a fixed-size C `char` array imported as a tuple (up to its first NUL).
private func cString<T>(_ tuple: T) -> String {
  withUnsafeBytes(of: tuple) { raw in
    String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
  }
}

/// Calls `body` with the array's base address, or `nil` for a `nil` array.
private func withOptionalBytes<T, R>(_ array: [T]?, _ body: (UnsafeRawPointer?) -> R) -> R {
  guard let array else { return body(nil) }
  return array.withUnsafeBytes { body($0.baseAddress) }
}
