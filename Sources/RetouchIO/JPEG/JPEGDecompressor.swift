// SPDX-License-Identifier: Apache-2.0

import CRetouchShims
import Foundation
import RetouchCore

/// One libjpeg-turbo decompressor, reached through the setjmp-safe C shim, for one decode.
///
/// Owns the C object and frees it in `deinit`. Every call turns a shim failure into an
/// ``ImageDecodingError`` carrying libjpeg's own message. Not `Sendable`: it lives and dies
/// within one decode call. The bytes given to ``readHeader(_:savesMarkers:)`` must stay valid
/// for the decompressor's whole life.
final class JPEGDecompressor {
  private let handle: OpaquePointer
  private let source: String
  private var inputSize = 0
  private var imageHeight = 0

  /// - Throws: ``ImageDecodingError/Kind/tooLarge`` when not even the decompressor fits in memory.
  init(source: String) throws(ImageDecodingError) {
    guard let handle = rt_jpeg_decoder_create() else {
      throw ImageDecodingError(
        .tooLarge, source: source, detail: "no memory to create a JPEG decompressor.")
    }
    self.handle = handle
    self.source = source
  }

  deinit { rt_jpeg_decoder_destroy(handle) }

  /// Makes the decoder stop at the first warning the strictness refuses, instead of decoding
  /// the rest of a file that will be rejected anyway.
  func refuseWarnings(for strictness: DecodeOptions.Strictness) {
    var mask: UInt32 = 0
    if strictness >= .failOnTruncation { mask |= UInt32(RT_JPEG_FAIL_ON_TRUNCATION) }
    if strictness >= .failOnError { mask |= UInt32(RT_JPEG_FAIL_ON_CORRUPT) }
    if strictness >= .failOnWarning { mask |= UInt32(RT_JPEG_FAIL_ON_ANY_WARNING) }
    rt_jpeg_decoder_set_fail_mask(handle, mask)
  }

  /// Reads every marker up to the first scan (SOF, tables and, with `savesMarkers`, the APP1 and
  /// APP2 segments). Cheap: no entropy data is decoded.
  ///
  /// - Throws: ``ImageDecodingError`` of kind `.unsupportedFormat` (no SOI), `.unsupportedVariant`
  ///   (12-bit, lossless, hierarchical), `.truncated`, `.tooLarge` (over 65500 px) or `.corrupt`.
  func readHeader(
    _ bytes: UnsafeRawBufferPointer, savesMarkers: Bool
  ) throws(ImageDecodingError) -> rt_jpeg_header {
    guard let base = bytes.baseAddress, !bytes.isEmpty else {
      throw ImageDecodingError(.empty, source: source, detail: "the file has no bytes.")
    }
    inputSize = bytes.count
    var header = rt_jpeg_header()
    let status = rt_jpeg_decoder_read_header(
      handle, base.assumingMemoryBound(to: UInt8.self), bytes.count, savesMarkers ? 1 : 0,
      &header)
    try check(status, while: "reading the header")
    imageHeight = Int(header.height)
    return header
  }

  /// The saved APP1/APP2 segments in file order, copied out of libjpeg's memory.
  func markers() -> [JPEGMarkerSegment] {
    var result: [JPEGMarkerSegment] = []
    var index: Int32 = 0
    var code: Int32 = 0
    var data: UnsafePointer<UInt8>? = nil
    var length: UInt32 = 0
    while rt_jpeg_decoder_marker(handle, index, &code, &data, &length) != 0 {
      let payload = data.map { Data(bytes: $0, count: Int(length)) } ?? Data()
      result.append(JPEGMarkerSegment(code: Int(code), payload: payload))
      index += 1
    }
    return result
  }

  /// Starts decompression at `scaleEighths`/8 size (1…8); progressive files are
  /// decoded into libjpeg's coefficient buffer here (about 2 bytes per sample).
  ///
  /// - Returns: the output size and components per pixel (3 for RGB, 4 for CMYK).
  /// - Throws: ``ImageDecodingError`` as for ``readHeader(_:savesMarkers:)``.
  func start(scaleEighths: Int) throws(ImageDecodingError) -> (size: PixelSize, components: Int) {
    var width: UInt32 = 0
    var height: UInt32 = 0
    var components: Int32 = 0
    let status = rt_jpeg_decoder_start(
      handle, Int32(scaleEighths), &width, &height, &components)
    try check(status, while: "starting decompression")
    guard width > 0, height > 0, components == 3 || components == 4 else {
      throw ImageDecodingError(
        .unsupportedVariant, source: source,
        detail: "libjpeg produced \(width)×\(height) with \(components) components per pixel.")
    }
    return (PixelSize(width: Int(width), height: Int(height)), Int(components))
  }

  /// Decodes up to `count` rows into `destination`, rows `stride` bytes apart.
  ///
  /// - Returns: the rows decoded (fewer than `count` only at the end of the image).
  /// - Throws: ``ImageDecodingError``.
  func readRows(
    into destination: UnsafeMutablePointer<UInt8>, stride: Int, count: Int
  ) throws(ImageDecodingError) -> Int {
    var rowsRead: UInt32 = 0
    let status = rt_jpeg_decoder_read_rows(handle, destination, stride, UInt32(count), &rowsRead)
    try check(status, while: "decoding rows")
    return Int(rowsRead)
  }

  /// Reads past the last scan up to EOI.
  ///
  /// - Throws: ``ImageDecodingError``.
  func finish() throws(ImageDecodingError) {
    try check(rt_jpeg_decoder_finish(handle), while: "finishing")
  }

  /// Warnings raised so far, as sentences for ``RawDecode/warnings``.
  var warningReport: JPEGWarningReport {
    let counts = rt_jpeg_decoder_warnings(handle)
    return JPEGWarningReport(
      counts: counts, imageHeight: imageHeight,
      firstCorrupt: String(cString: rt_jpeg_decoder_first_corrupt_warning(handle)),
      firstOther: String(cString: rt_jpeg_decoder_first_other_warning(handle)),
      first: String(cString: rt_jpeg_decoder_first_warning(handle)))
  }

  private func check(_ status: rt_jpeg_status, while stage: String) throws(ImageDecodingError) {
    guard status != RT_JPEG_OK else { return }
    let message = String(cString: rt_jpeg_decoder_error_message(handle))
    let report = warningReport
    switch status {
    case RT_JPEG_NOT_JPEG:
      throw ImageDecodingError(.unsupportedFormat, source: source, detail: "libjpeg: \(message).")
    case RT_JPEG_UNSUPPORTED_VARIANT:
      throw ImageDecodingError(
        .unsupportedVariant, source: source, detail: "libjpeg, \(stage): \(message).")
    case RT_JPEG_TRUNCATED:
      throw ImageDecodingError(
        .truncated, source: source,
        detail: "the data ends at byte \(inputSize) while \(stage) (libjpeg: \(message)).")
    case RT_JPEG_TOO_LARGE:
      throw ImageDecodingError(.tooLarge, source: source, detail: "libjpeg: \(message).")
    case RT_JPEG_NO_MEMORY:
      throw ImageDecodingError(
        .tooLarge, source: source, detail: "libjpeg ran out of memory while \(stage): \(message).")
    case RT_JPEG_WARNING_REFUSED:
      if report.isTruncated {
        throw ImageDecodingError(.truncated, source: source, detail: report.truncationDetail)
      }
      if report.counts.corrupt_count > 0 {
        throw ImageDecodingError(.corrupt, source: source, detail: report.corruptionDetail)
      }
      throw ImageDecodingError(.warning, source: source, detail: "libjpeg warned: \(message).")
    default:
      throw ImageDecodingError(.corrupt, source: source, detail: "libjpeg, \(stage): \(message).")
    }
  }
}

/// One saved marker segment: its code (0xE1 for APP1, 0xE2 for APP2) and the bytes after the
/// length field.
struct JPEGMarkerSegment {
  var code: Int
  var payload: Data
}

/// The warnings libjpeg raised during one decode, sorted into truncation, corruption and others.
struct JPEGWarningReport {
  let counts: rt_jpeg_warnings
  let imageHeight: Int
  let firstCorrupt: String
  let firstOther: String
  let first: String

  /// The data ended before the image did (a missing EOI alone does not count).
  var isTruncated: Bool { counts.truncated != 0 && counts.missing_eoi_only == 0 }

  var truncationDetail: String {
    let scan = counts.truncated_in_scan > 1 ? " in scan \(counts.truncated_in_scan)" : ""
    return "scan data stops at byte \(counts.truncated_at_byte)\(scan), after row "
      + "\(counts.truncated_after_row) of \(imageHeight); the decoder fills in the rest "
      + "(libjpeg: Premature end of JPEG file)."
  }

  var corruptionDetail: String {
    let more = counts.corrupt_count > 1 ? " (\(counts.corrupt_count) such warnings)" : ""
    return "libjpeg: \(firstCorrupt)\(more)."
  }

  /// Sentences for ``RawDecode/warnings``, one per kind of problem.
  var sentences: [String] {
    var result: [String] = []
    if isTruncated { result.append("truncated file: \(truncationDetail)") }
    if counts.missing_eoi_only != 0 {
      result.append("the file ends without its EOI marker; every row was decoded.")
    }
    if counts.corrupt_count > 0 { result.append("corrupt data: \(corruptionDetail)") }
    if counts.other_count > 0 {
      let more = counts.other_count > 1 ? " (\(counts.other_count) such warnings)" : ""
      result.append("libjpeg warned: \(firstOther)\(more).")
    }
    return result
  }

}

extension JPEGDecompressor {
  /// Applies `strictness` to what libjpeg reported after decoding, adding its warnings to
  /// `warnings`.
  ///
  /// - Throws: `.truncated`, `.corrupt` or `.warning` as the strictness asks.
  func checkReport(
    strictness: DecodeOptions.Strictness, warnings: inout [String]
  ) throws(ImageDecodingError) {
    let report = warningReport
    if strictness >= .failOnTruncation, report.isTruncated {
      throw ImageDecodingError(.truncated, source: source, detail: report.truncationDetail)
    }
    if strictness >= .failOnError, report.counts.corrupt_count > 0 {
      throw ImageDecodingError(.corrupt, source: source, detail: report.corruptionDetail)
    }
    warnings += report.sentences
    if strictness >= .failOnWarning, let first = warnings.first {
      throw ImageDecodingError(.warning, source: source, detail: first)
    }
  }
}
