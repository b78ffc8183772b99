// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore

/// Decodes a JPEG row by row into memory the caller owns, for pipelines that edit and encode
/// rows while later rows are still being decoded.
///
/// Only the common case streams: 8-bit YCbCr, RGB or greyscale data, upright (EXIF orientation 1,
/// or the caller takes care of it), at full size or a DCT scale. CMYK files throw
/// `.unsupportedVariant`; callers then use ``ImageDecoder``. Pixels come out as stored (no colour
/// conversion): check ``needsColorConversion`` before streaming.
///
/// Not thread-safe: create and use it on one thread. Holds a private copy of the file's bytes
/// (libjpeg reads from them until ``finish()``).
public final class JPEGRowDecoder {
  public let source: String
  /// The output size (after shrink-on-load).
  public let size: PixelSize
  /// The file's metadata, parsed from its markers.
  public let metadata: PhotoMetadata
  /// Problems met so far (markers, truncation after ``finish()``).
  public private(set) var warnings: [String]
  /// Rows delivered so far.
  public private(set) var rowsRead = 0

  private let jpeg: JPEGDecompressor
  private let bytes: UnsafeMutableRawBufferPointer
  private let options: DecodeOptions

  /// Reads the header and markers and starts decompression.
  ///
  /// - Throws: ``ImageDecodingError`` as ``ImageDecoder`` would (`.tooLarge` before any pixel
  ///   memory exists), and `.unsupportedVariant` for CMYK/YCCK files.
  public init(_ data: Data, source: String = "<memory>", options: DecodeOptions = DecodeOptions())
    throws(ImageDecodingError)
  {
    guard !data.isEmpty else {
      throw ImageDecodingError(.empty, source: source, detail: "the file has no bytes.")
    }
    guard ImageFormat.sniff(data) == .jpeg else {
      throw ImageDecodingError(
        .unsupportedFormat, source: source,
        detail: "not a JPEG: file starts with \(ImageFormat.leadingHex(data, count: 8)).")
    }
    self.source = source
    self.options = options
    bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: data.count, alignment: 16)
    _ = data.copyBytes(to: bytes)
    do {
      jpeg = try JPEGDecompressor(source: source)
    } catch {
      bytes.deallocate()
      throw error
    }
    jpeg.refuseWarnings(for: options.strictness)
    let header = try jpeg.readHeader(UnsafeRawBufferPointer(bytes), savesMarkers: true)
    var warnings: [String] = []
    let blocks = JPEGMetadataSegments.blocks(from: jpeg.markers(), warnings: &warnings)
    let stored = PixelSize(width: Int(header.width), height: Int(header.height))
    guard stored.pixelCount <= options.maxPixels else {
      throw ImageDecodingError(
        .tooLarge, source: source,
        detail:
          "\(stored) is \(stored.pixelCount) pixels, over the limit of \(options.maxPixels) (DecodeOptions.maxPixels)."
      )
    }
    guard header.data_precision == 8 else {
      throw ImageDecodingError(
        .unsupportedVariant, source: source,
        detail: "\(header.data_precision)-bit JPEG samples; only 8-bit JPEG is decoded.")
    }
    let eighths = JPEGCodec.scaleEighths(for: stored, minimumLongEdge: options.minimumLongEdge)
    let output = try jpeg.start(scaleEighths: eighths)
    guard output.components == 3 else {
      throw ImageDecodingError(
        .unsupportedVariant, source: source,
        detail: "CMYK JPEGs are not decoded row by row; use ImageDecoder.")
    }
    size = output.size
    metadata = PhotoMetadata(parsing: blocks, storedSize: stored, warnings: &warnings)
    self.warnings = warnings
  }

  deinit { bytes.deallocate() }

  /// Whether ``ImageDecoder`` would change the pixels for the file's colour profile (then a
  /// streaming caller must fall back to ``ImageDecoder``), and the colour space the rows are in
  /// when it would not (sRGB, or Display P3 for a P3-tagged file). Found by converting a probe
  /// ramp through the same code ``ImageDecoder`` uses.
  public lazy var colorHandling: (needsConversion: Bool, colorSpace: ColorSpace) = {
    guard let profile = metadata.blocks.iccProfile, !profile.isEmpty else { return (false, .sRGB) }
    var probe = Image(width: 16, height: 1, format: .rgb8)
    for x in 0..<16 { probe.setPixel(x: x, y: 0, [x * 17, 255 - x * 17, (x * 97) % 256]) }
    var scratch: [String] = []
    var converted = ColorConversion.toWorkingSpace(
      probe, profile: profile, nclx: nil, warnings: &scratch)
    let space = converted.colorSpace
    converted.colorSpace = .sRGB
    return (!converted.hasSamePixels(as: probe), space)
  }()

  /// Decodes up to `count` rows of packed 8-bit RGB into `destination`, rows `stride` bytes
  /// apart; returns how many (0 once every row is read).
  ///
  /// - Throws: ``ImageDecodingError`` for damage the strictness refuses.
  public func readRows(into destination: UnsafeMutablePointer<UInt8>, stride: Int, count: Int)
    throws(ImageDecodingError) -> Int
  {
    let remaining = size.height - rowsRead
    guard remaining > 0, count > 0 else { return 0 }
    let n = try jpeg.readRows(into: destination, stride: stride, count: min(count, remaining))
    rowsRead += n
    return n
  }

  /// Ends decoding and applies the strictness checks to what libjpeg reported.
  ///
  /// - Throws: `.truncated`, `.corrupt` or `.warning` as ``DecodeOptions/strictness`` asks.
  public func finish() throws(ImageDecodingError) {
    try jpeg.finish()
    try jpeg.checkReport(strictness: options.strictness, warnings: &warnings)
  }
}

/// Encodes a JPEG row by row from memory the caller owns, with the same metadata handling as
/// ``ImageEncoder`` (EXIF and XMP corrected for the new image, the colour space's ICC profile).
///
/// Not thread-safe: create and use it on one thread.
public final class JPEGRowEncoder {
  public let width: Int
  public let height: Int
  public private(set) var rowsWritten = 0
  private let compressor: JPEGCompressor

  /// Starts a JPEG of `width × height` packed 8-bit RGB rows in `colorSpace`.
  ///
  /// - Parameter file: where the bytes go as they are produced (finish with
  ///   ``finishWritingFile()``); nil keeps them in memory for ``finish()``.
  /// - Throws: ``ImageEncodingError`` for bad parameters or encoder failure.
  public init(
    width: Int, height: Int, colorSpace: ColorSpace, options: EncodeOptions = EncodeOptions(),
    metadata: PhotoMetadata? = nil, writingTo file: OutputFile? = nil
  ) throws(ImageEncodingError) {
    guard width > 0, height > 0 else {
      throw ImageEncodingError(.invalidParameter, detail: "\(width)×\(height) has no pixels.")
    }
    self.width = width
    self.height = height
    let blocks = ExportMetadata.blocks(
      size: PixelSize(width: width, height: height), colorSpace: colorSpace, from: metadata,
      software: options.software)
    compressor = try JPEGCodec.startCompressor(
      width: width, height: height, layout: .rgb, options: options, blocks: blocks,
      restartInterval: 0, fileDescriptor: file?.fileDescriptor)
  }

  /// Encodes `count` rows (packed RGB, `stride` bytes apart).
  public func writeRows(_ rows: UnsafePointer<UInt8>, stride: Int, count: Int)
    throws(ImageEncodingError)
  {
    guard count > 0 else { return }
    guard rowsWritten + count <= height else {
      throw ImageEncodingError(.invalidParameter, detail: "more than \(height) rows written.")
    }
    try compressor.writeRows(rows, stride: stride, count: count)
    rowsWritten += count
  }

  /// Finishes the file and returns its bytes.
  ///
  /// - Throws: `.invalidParameter` when fewer rows than `height` were written.
  public func finish() throws(ImageEncodingError) -> Data {
    try checkComplete()
    return try compressor.finish()
  }

  /// Finishes a file started with `writingTo:`; returns the bytes written to it.
  ///
  /// - Throws: `.invalidParameter` when fewer rows than `height` were written; `.encoderFailed`
  ///   (with the system's reason) when the file could not be written.
  public func finishWritingFile() throws(ImageEncodingError) -> Int {
    try checkComplete()
    return try compressor.finishWritingFile()
  }

  private func checkComplete() throws(ImageEncodingError) {
    guard rowsWritten == height else {
      throw ImageEncodingError(
        .invalidParameter, detail: "only \(rowsWritten) of \(height) rows were written.")
    }
  }
}
