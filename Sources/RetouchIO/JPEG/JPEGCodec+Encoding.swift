// SPDX-License-Identifier: Apache-2.0

import CRetouchShims
import Foundation
import RetouchCore

/// The sample layouts the JPEG encoder takes directly, besides ``RetouchCore/Image``s.
enum JPEGSampleLayout {
  /// One byte per pixel, stored as a greyscale JPEG.
  case grey
  /// R, G, B bytes, stored as YCbCr.
  case rgb
  /// C, M, Y, K bytes, stored as CMYK (with an Adobe APP14 marker, transform 0).
  case cmyk
  /// C, M, Y, K bytes, stored as YCCK (Adobe APP14 marker, transform 2).
  case ycck

  var bytesPerPixel: Int {
    switch self {
    case .grey: 1
    case .rgb: 3
    case .cmyk, .ycck: 4
    }
  }
}

extension JPEGCodec {
  /// The largest width or height libjpeg writes (`JPEG_MAX_DIMENSION`).
  static let maxDimension = 65500

  /// Encodes any ``RetouchCore/Image`` as a baseline or progressive JPEG with its metadata.
  ///
  /// 8-bit RGB rows go to libjpeg straight from the image's storage. Other formats are converted
  /// in batches of 16 rows: 16-bit components to 8 with rounding (`round(v × 255 / 65535)`), and
  /// alpha composited over white (`c·a + 1·(1 − a)`, straight alpha, in the stored encoding).
  /// After SOI come APP1 EXIF, APP1 XMP and the APP2 ICC chunks, each when present; the JFIF APP0
  /// is left out when EXIF is written. Uses the accurate integer DCT, as `cjpeg` does.
  ///
  /// - Throws: ``ImageEncodingError``: `.invalidParameter` for quality outside 1...100, a side
  ///   over 65500 px, or an EXIF/XMP block too large for one APP1 segment; `.encoderFailed`
  ///   with libjpeg's message.
  static func encode(_ image: Image, options: EncodeOptions, blocks: MetadataBlocks)
    throws(ImageEncodingError) -> Data
  {
    try encode(image, options: options, blocks: blocks, restartInterval: 0)
  }

  /// ``encode(_:options:blocks:)`` with restart markers every `restartInterval` MCUs (0: none).
  static func encode(
    _ image: Image, options: EncodeOptions, blocks: MetadataBlocks, restartInterval: Int
  ) throws(ImageEncodingError) -> Data {
    let compressor = try startCompressor(
      width: image.width, height: image.height, layout: .rgb, options: options, blocks: blocks,
      restartInterval: restartInterval)
    let width = image.width
    let height = image.height
    if image.format == .rgb8 {
      let stride = image.bytesPerRow
      try image.withUnsafeBytes { (raw) throws(ImageEncodingError) in
        guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        try compressor.writeRows(base, stride: stride, count: height)
      }
    } else {
      let batchRows = 16
      var scratch = [UInt8](repeating: 0, count: width * 3 * batchRows)
      try image.withUnsafeBytes { (raw) throws(ImageEncodingError) in
        try scratch.withUnsafeMutableBufferPointer { (rgb) throws(ImageEncodingError) in
          guard let rgbBase = rgb.baseAddress else { return }
          var row = 0
          while row < height {
            let count = min(batchRows, height - row)
            reduceToRGB8(
              raw, format: image.format, width: width, rows: row..<(row + count), into: rgbBase)
            try compressor.writeRows(rgbBase, stride: width * 3, count: count)
            row += count
          }
        }
      }
    }
    return try compressor.finish()
  }

  /// Encodes raw samples in one of the layouts libjpeg takes directly (greyscale, RGB, CMYK,
  /// YCCK); for tests and tools that need such files. CMYK samples are written as given:
  /// Adobe-style inverted ink is the caller's to produce.
  ///
  /// - Throws: ``ImageEncodingError`` as for ``encode(_:options:blocks:)``.
  static func encode(
    samples: [UInt8], width: Int, height: Int, layout: JPEGSampleLayout, options: EncodeOptions,
    blocks: MetadataBlocks = MetadataBlocks(), restartInterval: Int = 0
  ) throws(ImageEncodingError) -> Data {
    guard width > 0, height > 0, samples.count == width * height * layout.bytesPerPixel else {
      throw ImageEncodingError(
        .invalidParameter,
        detail: "\(samples.count) samples do not make a \(width)×\(height) \(layout) image.")
    }
    let compressor = try startCompressor(
      width: width, height: height, layout: layout, options: options, blocks: blocks,
      restartInterval: restartInterval)
    try samples.withUnsafeBufferPointer { (buffer) throws(ImageEncodingError) in
      guard let base = buffer.baseAddress else { return }
      try compressor.writeRows(base, stride: width * layout.bytesPerPixel, count: height)
    }
    return try compressor.finish()
  }

  /// - Parameter fileDescriptor: an open file to write the bytes to as they are produced
  ///   (nil: a memory buffer, returned by `finish()`).
  static func startCompressor(
    width: Int, height: Int, layout: JPEGSampleLayout, options: EncodeOptions,
    blocks: MetadataBlocks, restartInterval: Int, fileDescriptor: Int32? = nil
  ) throws(ImageEncodingError) -> JPEGCompressor {
    guard (1...100).contains(options.quality) else {
      throw ImageEncodingError(
        .invalidParameter, detail: "quality \(options.quality) is outside 1...100.")
    }
    guard width <= maxDimension, height <= maxDimension else {
      throw ImageEncodingError(
        .invalidParameter,
        detail: "\(width)×\(height) is too large for JPEG: at most \(maxDimension) px per side.")
    }
    guard (0...65535).contains(restartInterval) else {
      throw ImageEncodingError(
        .invalidParameter, detail: "restart interval \(restartInterval) is outside 0...65535.")
    }
    let exif = blocks.exif.map { JPEGMetadataSegments.exifIdentifier + $0 }
    let xmp = blocks.xmp.map { JPEGMetadataSegments.xmpIdentifier + $0 }
    for (name, segment) in [("EXIF", exif), ("XMP", xmp)] {
      if let segment, segment.count > JPEGMetadataSegments.maxSegmentPayload {
        throw ImageEncodingError(
          .invalidParameter,
          detail: "the \(name) block needs a \(segment.count)-byte APP1 segment; JPEG allows "
            + "\(JPEGMetadataSegments.maxSegmentPayload).")
      }
    }
    if let icc = blocks.iccProfile, icc.count > 255 * JPEGMetadataSegments.maxICCChunk {
      throw ImageEncodingError(
        .invalidParameter, detail: "the ICC profile of \(icc.count) bytes needs over 255 chunks.")
    }

    var settings = rt_jpeg_encode_settings()
    settings.width = UInt32(width)
    settings.height = UInt32(height)
    switch layout {
    case .grey:
      settings.input_color = Int32(RT_JPEG_COLOR_GRAY.rawValue)
    case .rgb:
      settings.input_color = Int32(RT_JPEG_COLOR_RGB.rawValue)
    case .cmyk:
      settings.input_color = Int32(RT_JPEG_COLOR_CMYK.rawValue)
    case .ycck:
      settings.input_color = Int32(RT_JPEG_COLOR_CMYK.rawValue)
      settings.stored_color = Int32(RT_JPEG_COLOR_YCCK.rawValue)
    }
    settings.quality = Int32(options.quality)
    settings.subsample_420 = options.chromaSubsampling == .s420 ? 1 : 0
    settings.progressive = options.progressive ? 1 : 0
    settings.optimize_huffman = options.optimizesHuffman ? 1 : 0
    settings.write_jfif = exif == nil ? 1 : 0
    settings.restart_interval = UInt32(restartInterval)

    // A q90 4:2:0 photo takes about 3 bits per pixel; the buffer grows (realloc) when needed.
    let metadataBytes = (exif?.count ?? 0) + (xmp?.count ?? 0) + (blocks.iccProfile?.count ?? 0)
    let sizeHint = width * height * layout.bytesPerPixel / 6 + metadataBytes + 4096

    let compressor = try JPEGCompressor()
    if let fileDescriptor { try compressor.write(toFileDescriptor: fileDescriptor) }
    try compressor.start(settings, sizeHint: sizeHint)
    if let exif { try compressor.writeMarker(code: JPEGMetadataSegments.app1, payload: exif) }
    if let xmp { try compressor.writeMarker(code: JPEGMetadataSegments.app1, payload: xmp) }
    if let icc = blocks.iccProfile, !icc.isEmpty { try compressor.writeICCProfile(icc) }
    if let iptc = blocks.iptc, !iptc.isEmpty,
      let segment = JPEGMetadataSegments.photoshopSegment(iptc: iptc)
    {
      try compressor.writeMarker(code: JPEGMetadataSegments.app13, payload: segment)
    }
    return compressor
  }

  /// Converts `rows` of an image in any format to packed 8-bit RGB: 16-bit components rounded to
  /// 8 bits, alpha composited over white.
  static func reduceToRGB8(
    _ raw: UnsafeRawBufferPointer, format: PixelFormat, width: Int, rows: Range<Int>,
    into destination: UnsafeMutablePointer<UInt8>
  ) {
    guard let base = raw.baseAddress else { return }
    let channels = format.channelCount
    let pixelCount = rows.count * width
    let firstComponent = rows.lowerBound * width * channels
    var out = destination
    switch format {
    case .rgb8:
      destination.update(
        from: base.assumingMemoryBound(to: UInt8.self) + firstComponent, count: pixelCount * 3)
    case .rgba8:
      var p = base.assumingMemoryBound(to: UInt8.self) + firstComponent
      for _ in 0..<pixelCount {
        let a = UInt32(p[3])
        let white = 255 * (255 - a) + 127
        out[0] = UInt8(truncatingIfNeeded: (UInt32(p[0]) * a + white) / 255)
        out[1] = UInt8(truncatingIfNeeded: (UInt32(p[1]) * a + white) / 255)
        out[2] = UInt8(truncatingIfNeeded: (UInt32(p[2]) * a + white) / 255)
        p += 4
        out += 3
      }
    case .rgb16:
      var p = base.assumingMemoryBound(to: UInt16.self) + firstComponent
      for _ in 0..<(pixelCount * 3) {
        out[0] = UInt8(truncatingIfNeeded: (UInt32(p[0]) * 255 + 32767) / 65535)
        p += 1
        out += 1
      }
    case .rgba16:
      // c·a + 65535·(65535 − a) is at most 65535², so 64-bit sums have room to spare.
      let full: UInt64 = 65535 * 65535
      var p = base.assumingMemoryBound(to: UInt16.self) + firstComponent
      for _ in 0..<pixelCount {
        let a = UInt64(p[3])
        let white = 65535 * (65535 - a)
        for c in 0..<3 {
          let value = (UInt64(p[c]) * a + white) * 255
          out[c] = UInt8(truncatingIfNeeded: (value + full / 2) / full)
        }
        p += 4
        out += 3
      }
    }
  }
}
