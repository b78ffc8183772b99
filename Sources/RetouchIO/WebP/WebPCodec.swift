// SPDX-License-Identifier: Apache-2.0

import CRetouchLoaders
import Foundation
import RetouchCore

/// WebP decoding and encoding through libwebp, loaded on first use (`rt_webp_load`).
///
/// Lossy or lossless, with or without alpha: decoded to 8-bit RGB or RGBA (WebP has no deeper
/// samples). Metadata comes from the container's `ICCP`, `EXIF` and `XMP ` chunks
/// (``WebPContainer``); without `ICCP` the pixels are sRGB, as WebP specifies. Of an animation,
/// the first frame is read, on a transparent canvas, with a warning (as an animated PNG gives
/// its still image).
enum WebPCodec {
  /// Why libwebp cannot be used, or nil once it is loaded (a `static let` runs once,
  /// thread-safely).
  private static let loadFailure: String? = rt_webp_load().map {
    "WebP is unavailable: libwebp (the libwebp7 package) could not be loaded: "
      + "\(String(cString: $0))."
  }

  /// Decodes a still WebP into an 8-bit RGB image, or RGBA when the file has alpha.
  ///
  /// The image is allocated once, after the size in the header has been checked against
  /// ``DecodeOptions/maxPixels``, and libwebp decodes straight into it (incrementally, so that
  /// a file that stops early gives the rows decoded so far: under `.lenient` they come back
  /// with the rest black and transparent, and a warning).
  ///
  /// Of an animation, the first frame (see ``WebPCodec``).
  ///
  /// - Throws: ``ImageDecodingError``: `.tooLarge`, `.truncated` (the header is incomplete, or
  ///   the data stops early and `strictness` refuses that), `.corrupt` (a bitstream error, or a
  ///   first frame that does not fit its canvas), `.unsupportedVariant` (a feature libwebp does
  ///   not decode, or libwebp is missing).
  static func decode(
    _ data: Data, source: String, options: DecodeOptions
  ) throws(ImageDecodingError) -> RawDecode {
    try data.withDecodingBytes { bytes throws(ImageDecodingError) in
      try decode(bytes, source: source, options: options)
    }
  }

  /// Reads the size and the metadata chunks without decoding pixels.
  ///
  /// - Throws: ``ImageDecodingError`` as ``decode(_:source:options:)`` does for the header.
  static func readHeader(
    _ data: Data, source: String, options: DecodeOptions
  ) throws(ImageDecodingError) -> (
    storedSize: PixelSize, blocks: MetadataBlocks, orientationApplied: Bool
  ) {
    try data.withDecodingBytes { bytes throws(ImageDecodingError) in
      let header = try readFeatures(bytes, source: source)
      return (header.size, header.container.metadataBlocks(bytes), false)
    }
  }

  /// The container and libwebp's reading of the bitstream's features.
  private struct Header {
    var container: WebPContainer
    var size: PixelSize
    var hasAlpha: Bool
    var isAnimated: Bool
  }

  private static func readFeatures(_ bytes: UnsafeRawBufferPointer, source: String)
    throws(ImageDecodingError) -> Header
  {
    if let loadFailure {
      throw ImageDecodingError(.unsupportedVariant, source: source, detail: loadFailure)
    }
    guard let container = WebPContainer(bytes) else {
      throw ImageDecodingError(
        .truncated, source: source, detail: "the RIFF header of the WebP file is incomplete.")
    }
    let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
    var features = WebPBitstreamFeatures()
    let status = WebPGetFeaturesInternal(
      base, bytes.count, &features, Int32(WEBP_DECODER_ABI_VERSION))
    guard status == VP8_STATUS_OK else {
      throw error(status, source: source, while: "reading the header")
    }
    return Header(
      container: container,
      size: PixelSize(width: Int(features.width), height: Int(features.height)),
      hasAlpha: features.has_alpha != 0, isAnimated: features.has_animation != 0)
  }

  private static func decode(
    _ bytes: UnsafeRawBufferPointer, source: String, options: DecodeOptions
  ) throws(ImageDecodingError) -> RawDecode {
    let header = try readFeatures(bytes, source: source)
    if header.isAnimated {
      return try firstFrame(bytes, header: header, source: source, options: options)
    }
    let width = header.size.width, height = header.size.height
    let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
    guard width > 0, height > 0, !overflow, pixels <= options.maxPixels else {
      throw ImageDecodingError(
        .tooLarge, source: source,
        detail:
          "the header says \(width)×\(height), above the limit of \(options.maxPixels) pixels.")
    }
    var image = Image(
      uninitializedWidth: width, height: height, format: header.hasAlpha ? .rgba8 : .rgb8)
    let rowBytes = image.bytesPerRow
    var warnings: [String] = []
    // libwebp keeps a pointer to the configuration for the decoder's whole life; it decodes into
    // the image's own memory, so deleting the decoder frees all it allocated.
    let config = UnsafeMutablePointer<WebPDecoderConfig>.allocate(capacity: 1)
    defer { config.deallocate() }
    guard WebPInitDecoderConfigInternal(config, Int32(WEBP_DECODER_ABI_VERSION)) != 0 else {
      throw ImageDecodingError(
        .unsupportedVariant, source: source,
        detail: "the loaded libwebp does not match the decoder interface Retouch was built with.")
    }
    let (status, decodedRows) = image.withUnsafeMutableBytes { out -> (VP8StatusCode, Int) in
      config.pointee.output.colorspace = header.hasAlpha ? MODE_RGBA : MODE_RGB
      config.pointee.output.is_external_memory = 1
      config.pointee.output.u.RGBA.rgba = out.baseAddress?.assumingMemoryBound(to: UInt8.self)
      config.pointee.output.u.RGBA.stride = Int32(rowBytes)
      config.pointee.output.u.RGBA.size = out.count
      guard let decoder = WebPIDecode(nil, 0, config) else { return (VP8_STATUS_OUT_OF_MEMORY, 0) }
      defer { WebPIDelete(decoder) }
      let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
      let status = WebPIUpdate(decoder, base, bytes.count)
      var lastRow: Int32 = 0
      let rows = WebPIDecGetRGB(decoder, &lastRow, nil, nil, nil) == nil ? 0 : Int(lastRow)
      return (status, status == VP8_STATUS_OK ? height : min(max(rows, 0), height))
    }
    switch status {
    case VP8_STATUS_OK:
      break
    case VP8_STATUS_SUSPENDED, VP8_STATUS_NOT_ENOUGH_DATA:
      let detail = "the image data stops after row \(decodedRows) of \(height)."
      if options.strictness >= .failOnTruncation || decodedRows == 0 {
        throw ImageDecodingError(.truncated, source: source, detail: detail)
      }
      image.blackenRows(from: decodedRows)
      warnings.append("truncated file: \(detail) The remaining rows are black.")
    default:
      throw error(status, source: source, while: "decoding the image")
    }
    let blocks = header.container.metadataBlocks(bytes)
    if header.container.isTruncated && status == VP8_STATUS_OK {
      let detail = "the file ends before the size its RIFF header gives; later chunks are lost."
      if options.strictness >= .failOnTruncation {
        throw ImageDecodingError(.truncated, source: source, detail: detail)
      }
      warnings.append(detail)
    }
    var raw = RawDecode(image: image, storedSize: header.size, blocks: blocks)
    raw.warnings = warnings
    return raw
  }

  /// The first frame of an animation, placed on a transparent canvas of the file's size unless
  /// it covers it (the first frame has nothing under it to blend with).
  ///
  /// The frame's own chunks (`ALPH`, `VP8 ` or `VP8L`) are put in a still file of their own and
  /// decoded as one; the metadata is the animation's.
  private static func firstFrame(
    _ bytes: UnsafeRawBufferPointer, header: Header, source: String, options: DecodeOptions
  ) throws(ImageDecodingError) -> RawDecode {
    let frames = header.container.chunks.count(where: { $0.code == "ANMF" })
    guard let anmf = header.container.chunk("ANMF"), anmf.payload.count > 16 else {
      throw ImageDecodingError(
        header.container.isTruncated ? .truncated : .corrupt, source: source,
        detail: "an animated WebP without a whole first frame.")
    }
    let p = anmf.payload.lowerBound
    func u24(_ o: Int) -> Int {
      Int(bytes[p + o]) | Int(bytes[p + o + 1]) << 8 | Int(bytes[p + o + 2]) << 16
    }
    let x = 2 * u24(0), y = 2 * u24(3), width = u24(6) + 1, height = u24(9) + 1
    let canvas = header.size
    let (pixels, overflow) = canvas.width.multipliedReportingOverflow(by: canvas.height)
    guard !overflow, pixels <= options.maxPixels else {
      throw ImageDecodingError(
        .tooLarge, source: source,
        detail:
          "the animation's canvas is \(canvas.width)×\(canvas.height), above the limit of "
          + "\(options.maxPixels) pixels.")
    }
    let parts = WebPContainer.chunks(in: bytes, range: (p + 16)..<anmf.payload.upperBound)
      .filter { ["ALPH", "VP8 ", "VP8L"].contains($0.code) }
    guard x + width <= canvas.width, y + height <= canvas.height, !parts.isEmpty else {
      throw ImageDecodingError(
        .corrupt, source: source,
        detail:
          "the first frame (\(width)×\(height) at \(x), \(y)) does not fit its "
          + "\(canvas.width)×\(canvas.height) canvas, or holds no image.")
    }
    let still = WebPContainer.assemble(
      size: (width, height),
      flags: parts.contains { $0.code == "ALPH" } ? WebPContainer.alphaFlag : 0,
      chunks: parts.map { ($0.code, Data(bytes[$0.payload])) })
    let frame = try decode(still, source: source, options: options)
    var image = frame.image
    if x != 0 || y != 0 || width != canvas.width || height != canvas.height {
      image = Image(width: canvas.width, height: canvas.height, format: .rgba8)
      image.place(frame.image, atX: x, y: y)
    }
    var raw = RawDecode(
      image: image, storedSize: canvas, blocks: header.container.metadataBlocks(bytes))
    raw.warnings = frame.warnings
    if header.container.isTruncated {
      let detail = "the file ends before the size its RIFF header gives; later frames are lost."
      if options.strictness >= .failOnTruncation {
        throw ImageDecodingError(.truncated, source: source, detail: detail)
      }
      raw.warnings.append("truncated file: \(detail)")
    }
    raw.warnings.append(
      "an animated WebP (\(frames) frame\(frames == 1 ? "" : "s") in the file): only its first "
        + "frame is read; the animation is not carried into what is written.")
    return raw
  }

  /// The decoding error for a libwebp status.
  private static func error(_ status: VP8StatusCode, source: String, while doing: String)
    -> ImageDecodingError
  {
    switch status {
    case VP8_STATUS_NOT_ENOUGH_DATA, VP8_STATUS_SUSPENDED:
      ImageDecodingError(
        .truncated, source: source, detail: "libwebp ran out of data \(doing).")
    case VP8_STATUS_UNSUPPORTED_FEATURE:
      ImageDecodingError(
        .unsupportedVariant, source: source,
        detail: "libwebp does not support a feature of this file (\(doing)).")
    case VP8_STATUS_OUT_OF_MEMORY:
      ImageDecodingError(.tooLarge, source: source, detail: "libwebp ran out of memory \(doing).")
    default:
      ImageDecodingError(
        .corrupt, source: source,
        detail: "libwebp found the bitstream broken \(doing) (status \(status.rawValue)).")
    }
  }

  /// Encodes `image` as a still WebP: lossy at ``EncodeOptions/quality`` or lossless
  /// (``EncodeOptions/webpLossless``), with alpha when the image has it. 16-bit components are
  /// rounded to 8 (WebP holds 8). `blocks` become `ICCP`, `EXIF` and `XMP ` chunks of an
  /// extended (`VP8X`) file.
  ///
  /// - Throws: ``ImageEncodingError``: `.invalidParameter` (a side over WebP's 16383 limit),
  ///   `.unsupportedFormat` (libwebp is missing), `.encoderFailed` (libwebp's error code).
  static func encode(
    _ image: Image, options: EncodeOptions, blocks: MetadataBlocks
  ) throws(ImageEncodingError) -> Data {
    if let loadFailure { throw ImageEncodingError(.unsupportedFormat, detail: loadFailure) }
    guard image.width <= maxSide, image.height <= maxSide else {
      throw ImageEncodingError(
        .invalidParameter,
        detail: "\(image.width)×\(image.height) exceeds WebP's limit of \(maxSide) per side.")
    }
    let alpha = image.format.hasAlpha
    var config = WebPConfig()
    var picture = WebPPicture()
    var writer = WebPMemoryWriter()
    guard
      WebPConfigInitInternal(
        &config, WEBP_PRESET_PHOTO, Float(options.quality), Int32(WEBP_ENCODER_ABI_VERSION)) != 0,
      WebPPictureInitInternal(&picture, Int32(WEBP_ENCODER_ABI_VERSION)) != 0
    else {
      throw ImageEncodingError(
        .encoderFailed,
        detail: "the loaded libwebp does not match the encoder interface Retouch was built with.")
    }
    if options.webpLossless {
      config.lossless = 1
      config.quality = 75  // effort, for lossless: libwebp's default
      config.exact = 1  // keep the colour under transparent pixels
    }
    config.thread_level = 1
    picture.use_argb = options.webpLossless ? 1 : 0
    picture.width = Int32(image.width)
    picture.height = Int32(image.height)
    WebPMemoryWriterInit(&writer)
    defer {
      WebPPictureFree(&picture)
      WebPMemoryWriterClear(&writer)
    }
    // libwebp copies the pixels into its own planes: an 8-bit image is read in place, a 16-bit
    // one through an 8-bit copy.
    let stride = Int32(image.width * image.format.channelCount)
    func importPixels(_ pixels: UnsafePointer<UInt8>?) -> Int32 {
      alpha
        ? WebPPictureImportRGBA(&picture, pixels, stride)
        : WebPPictureImportRGB(&picture, pixels, stride)
    }
    let imported =
      image.format.bitDepth == 8
      ? image.withUnsafeBytes { importPixels($0.baseAddress?.assumingMemoryBound(to: UInt8.self)) }
      : eightBitComponents(of: image).withUnsafeBufferPointer { importPixels($0.baseAddress) }
    let encoded = withUnsafeMutablePointer(to: &writer) {
      writerPointer -> (Int32, WebPEncodingError) in
      picture.writer = WebPMemoryWrite
      picture.custom_ptr = UnsafeMutableRawPointer(writerPointer)
      guard imported != 0, WebPValidateConfig(&config) != 0 else {
        return (0, picture.error_code)
      }
      return (WebPEncode(&config, &picture), picture.error_code)
    }
    guard encoded.0 != 0, let output = writer.mem else {
      throw ImageEncodingError(
        .encoderFailed, detail: "libwebp could not encode the image (error \(encoded.1.rawValue)).")
    }
    let bitstream = Data(bytes: output, count: writer.size)
    return withMetadata(bitstream, size: (image.width, image.height), blocks: blocks)
  }

  /// WebP's largest width or height.
  static let maxSide = 16383

  /// The encoder's file, rebuilt as an extended file carrying `blocks` (unchanged when there
  /// are none): `VP8X`, `ICCP`, the image chunks (`ALPH` and `VP8 `, or `VP8L`), `EXIF`, `XMP `.
  static func withMetadata(
    _ file: Data, size: (width: Int, height: Int), blocks: MetadataBlocks
  ) -> Data {
    let icc = blocks.iccProfile.flatMap { $0.isEmpty ? nil : $0 }
    let exif = blocks.exif.flatMap { $0.isEmpty ? nil : $0 }
    let xmp = blocks.xmp.flatMap { $0.isEmpty ? nil : $0 }
    guard icc != nil || exif != nil || xmp != nil else { return file }
    return file.withUnsafeBytes { bytes -> Data in
      guard let container = WebPContainer(bytes) else { return file }
      var flags: UInt8 = 0
      var imageChunks: [(code: String, payload: Data)] = []
      // The encoder's own VP8X (written with alpha) is replaced; ALPH, or a VP8L that uses
      // alpha, says what its flag said.
      for chunk in container.chunks where ["ALPH", "VP8 ", "VP8L"].contains(chunk.code) {
        if chunk.code == "ALPH"
          || (chunk.code == "VP8L" && WebPContainer.losslessUsesAlpha(bytes[chunk.payload]))
        {
          flags |= WebPContainer.alphaFlag
        }
        imageChunks.append((chunk.code, Data(bytes[chunk.payload])))
      }
      var chunks: [(code: String, payload: Data)] = []
      if let icc {
        flags |= WebPContainer.iccFlag
        chunks.append(("ICCP", icc))
      }
      chunks += imageChunks
      if let exif {
        flags |= WebPContainer.exifFlag
        chunks.append(("EXIF", exif))
      }
      if let xmp {
        flags |= WebPContainer.xmpFlag
        chunks.append(("XMP ", xmp))
      }
      return WebPContainer.assemble(size: size, flags: flags, chunks: chunks)
    }
  }

  /// A 16-bit image's components rounded to 8 bits (`round(v × 255 / 65535)`), packed.
  static func eightBitComponents(of image: Image) -> [UInt8] {
    image.withUnsafeBytes { raw -> [UInt8] in
      raw.bindMemory(to: UInt16.self).map {
        UInt8(truncatingIfNeeded: (UInt32($0) * 255 + 32767) / 65535)
      }
    }
  }
}

extension Image {
  /// Copies an 8-bit RGB or RGBA `image` into this RGBA8 image with its top-left corner at
  /// (`x`, `y`) (RGB becomes opaque). The caller checks that it fits.
  fileprivate mutating func place(_ image: Image, atX x: Int, y: Int) {
    precondition(format == .rgba8 && image.format.bitDepth == 8)
    let channels = image.format.channelCount
    let (w, h, canvasWidth) = (image.width, image.height, width)
    image.withUnsafeBytes { src in
      withUnsafeMutableBytes { dst in
        let s = src.bindMemory(to: UInt8.self), d = dst.bindMemory(to: UInt8.self)
        for row in 0..<h {
          for column in 0..<w {
            let i = (row * w + column) * channels
            let o = ((y + row) * canvasWidth + x + column) * 4
            d[o] = s[i]
            d[o + 1] = s[i + 1]
            d[o + 2] = s[i + 2]
            d[o + 3] = channels == 4 ? s[i + 3] : 255
          }
        }
      }
    }
  }
}
