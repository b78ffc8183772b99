// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore

/// JPEG decoding and encoding through libjpeg-turbo (via the setjmp-safe shim in CRetouchShims).
///
/// Decoding handles baseline, progressive and arithmetic-coded 8-bit files in greyscale, YCbCr,
/// RGB, CMYK and YCCK, with DCT-domain shrink-on-load. It uses libjpeg's defaults, as `djpeg`
/// and `tjbench` do: the accurate integer IDCT and fancy (triangle-filter) chroma upsampling.
enum JPEGCodec {
  /// Decodes a JPEG into 8-bit RGB, tagged sRGB and left as stored (orientation and colour
  /// conversion happen later, in ``ImageDecoder``).
  ///
  /// Pixels are decoded straight into the image's storage, many rows per libjpeg call. Greyscale
  /// is expanded to RGB; CMYK and YCCK are converted naively (no profile), honouring Adobe's
  /// inverted CMYK. With ``DecodeOptions/minimumLongEdge`` the largest DCT scaling (1/8, 1/4,
  /// 1/2) whose output long edge still reaches it is used. Cost: about 70 ms per 12 MP at full
  /// size on one core, less when scaled; progressive files also buffer ~2 bytes per sample.
  ///
  /// - Throws: ``ImageDecodingError``: `.tooLarge` before any pixel memory is allocated when
  ///   width × height exceeds ``DecodeOptions/maxPixels``; `.unsupportedFormat`,
  ///   `.unsupportedVariant`, `.corrupt` and `.truncated` with libjpeg's message; `.truncated`,
  ///   `.corrupt` or `.warning` for damage the ``DecodeOptions/strictness`` refuses.
  static func decode(_ data: Data, source: String, options: DecodeOptions)
    throws(ImageDecodingError) -> RawDecode
  {
    try data.withDecodingBytes { bytes throws(ImageDecodingError) in
      try decode(bytes: bytes, source: source, options: options)
    }
  }

  /// Reads the header and metadata segments without decoding any pixels (well under a
  /// millisecond for a typical photo).
  ///
  /// - Throws: ``ImageDecodingError`` as for ``decode(_:source:options:)``, except `.tooLarge`
  ///   for the pixel limit (nothing is allocated).
  static func readHeader(_ data: Data, source: String, options: DecodeOptions)
    throws(ImageDecodingError) -> (
      storedSize: PixelSize, blocks: MetadataBlocks, orientationApplied: Bool
    )
  {
    try data.withDecodingBytes { bytes throws(ImageDecodingError) in
      let jpeg = try JPEGDecompressor(source: source)
      let header = try jpeg.readHeader(bytes, savesMarkers: true)
      var warnings: [String] = []
      let blocks = JPEGMetadataSegments.blocks(from: jpeg.markers(), warnings: &warnings)
      return (PixelSize(width: Int(header.width), height: Int(header.height)), blocks, false)
    }
  }

  /// The shrink-on-load scale for a stored size, in eighths: the smallest M in 1…8 whose output
  /// long edge, ⌈longEdge × M / 8⌉ (libjpeg rounds up), is still at least `minimumLongEdge`;
  /// 8 (full size) when no minimum is given.
  ///
  /// libjpeg-turbo has a scaled inverse DCT for every M/8, so a 1080-px preview of a 4032-px
  /// photo decodes at 3/8 (1512 px) rather than 1/2 (2016 px): less IDCT work and less left
  /// for the resampler.
  static func scaleEighths(for size: PixelSize, minimumLongEdge: Int?) -> Int {
    guard let minimum = minimumLongEdge else { return 8 }
    for m in 1...8 where (size.longEdge * m + 7) / 8 >= minimum { return m }
    return 8
  }

  private static func decode(
    bytes: UnsafeRawBufferPointer, source: String, options: DecodeOptions
  ) throws(ImageDecodingError) -> RawDecode {
    let jpeg = try JPEGDecompressor(source: source)
    jpeg.refuseWarnings(for: options.strictness)
    let header = try jpeg.readHeader(bytes, savesMarkers: true)
    var warnings: [String] = []
    let blocks = JPEGMetadataSegments.blocks(from: jpeg.markers(), warnings: &warnings)
    if options.strictness >= .failOnWarning, let first = warnings.first {
      throw ImageDecodingError(.warning, source: source, detail: first)
    }

    let storedSize = PixelSize(width: Int(header.width), height: Int(header.height))
    guard storedSize.pixelCount <= options.maxPixels else {
      throw ImageDecodingError(
        .tooLarge, source: source,
        detail: "\(storedSize) is \(storedSize.pixelCount) pixels, over the limit of "
          + "\(options.maxPixels) (DecodeOptions.maxPixels).")
    }
    guard header.data_precision == 8 else {
      throw ImageDecodingError(
        .unsupportedVariant, source: source,
        detail: "\(header.data_precision)-bit JPEG samples; only 8-bit JPEG is decoded.")
    }

    let eighths = scaleEighths(for: storedSize, minimumLongEdge: options.minimumLongEdge)
    let output = try jpeg.start(scaleEighths: eighths)
    var image = Image(
      uninitializedWidth: output.size.width, height: output.size.height, format: .rgb8,
      colorSpace: .sRGB)
    let stride = image.bytesPerRow
    let height = output.size.height
    if output.components == 3 {
      try image.withUnsafeMutableBytes { (raw) throws(ImageDecodingError) in
        guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        // The decoder fills the image from the top on this one thread; the pages it reaches
        // are mapped ahead of it on another core.
        let population = PixelBlock.populateAhead(
          UnsafeMutableRawPointer(base), byteCount: raw.count)
        defer { population.finish() }
        var row = 0
        while row < height {
          let read = try jpeg.readRows(
            into: base + row * stride, stride: stride, count: height - row)
          guard read > 0 else { break }
          row += read
        }
      }
    } else {
      try readCMYK(
        jpeg, into: &image, invertedInk: header.saw_adobe_marker != 0)
    }
    try jpeg.finish()

    try jpeg.checkReport(strictness: options.strictness, warnings: &warnings)

    var raw = RawDecode(image: image, storedSize: storedSize, blocks: blocks)
    raw.scaleEighths = eighths
    raw.warnings = warnings
    raw.sourceBitDepth = 8
    raw.convertedFromCMYK = output.components == 4
    return raw
  }

  /// Reads CMYK rows in small batches and converts them to RGB as `R = (1 − C)(1 − K)` and so
  /// on (no profile: the naive conversion). Adobe's APP14 files store ink inverted (0 = full
  /// ink), so there the stored values already are `1 − C` and `1 − K`.
  private static func readCMYK(
    _ jpeg: JPEGDecompressor, into image: inout Image, invertedInk: Bool
  ) throws(ImageDecodingError) {
    let width = image.width
    let height = image.height
    let batchRows = 16
    var scratch = [UInt8](repeating: 0, count: width * 4 * batchRows)
    try image.withUnsafeMutableBytes { (raw) throws(ImageDecodingError) in
      guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
      try scratch.withUnsafeMutableBufferPointer { (cmyk) throws(ImageDecodingError) in
        guard let cmykBase = cmyk.baseAddress else { return }
        var row = 0
        while row < height {
          let read = try jpeg.readRows(
            into: cmykBase, stride: width * 4, count: min(batchRows, height - row))
          guard read > 0 else { break }
          let flip: UInt32 = invertedInk ? 0 : 255
          var rgb = base + row * width * 3
          var src = cmykBase
          for _ in 0..<(read * width) {
            let k = UInt32(src[3]) ^ flip
            rgb[0] = UInt8(truncatingIfNeeded: ((UInt32(src[0]) ^ flip) * k + 127) / 255)
            rgb[1] = UInt8(truncatingIfNeeded: ((UInt32(src[1]) ^ flip) * k + 127) / 255)
            rgb[2] = UInt8(truncatingIfNeeded: ((UInt32(src[2]) ^ flip) * k + 127) / 255)
            rgb += 3
            src += 4
          }
          row += read
        }
      }
    }
  }
}
