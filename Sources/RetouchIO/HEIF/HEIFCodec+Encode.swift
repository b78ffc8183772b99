// SPDX-License-Identifier: Apache-2.0

import CRetouchLoaders
import Foundation
import RetouchCore

extension HEIFCodec {
  /// The codec inside a HEIF file Retouch writes.
  enum Compression: Sendable {
    /// HEVC through x265: a `.heic` file, 8 or 10 bits.
    case hevc
    /// AV1 through libaom: an `.avif` file.
    case av1

    var name: String { self == .hevc ? "HEIC" : "AVIF" }
  }

  /// The speed libaom encodes AVIF at (0 slowest … 9 fastest; libheif's default is 6).
  ///
  /// A 12 MP photo at quality 90 on 2 cores: speed 5 took 7.9 s, 6 2.3 s, 7 1.8 s, 8 1.1 s,
  /// for 1.97, 1.96, 1.95 and 1.93 MB at 44.9, 44.7, 44.4 and 44.2 dB PSNR: each step gives up
  /// about a quarter of a dB for a small saving in size.
  package static let av1Speed = 7

  /// x265's preset for HEIC (libheif's default is `slow`).
  ///
  /// A 12 MP photo at quality 90 on 2 cores: `slow` took 11.3 s for 5.45 MB at 48.24 dB PSNR,
  /// `medium` 5.4 s for 5.66 MB at 48.29 dB (the faster presets are no faster here).
  static let x265Preset = "medium"

  /// Encodes `image` as a HEIC (HEVC, libheif's x265 encoder) or an AVIF (AV1, libaom).
  ///
  /// ``EncodeOptions/quality`` (1...100) sets the encoder's lossy quality and
  /// ``EncodeOptions/chromaSubsampling`` its chroma format (4:2:0 or 4:4:4). A 16-bit image is
  /// written as 10-bit HEVC (Main 10, `v × 1023 / 65535`), an 8-bit one at 8 bits. AVIF is always
  /// 8-bit, 16-bit images rounded (`v × 255 / 65535`): libaom 3.6 aborts the process on 10-bit
  /// input as libheif 1.15 hands it over (libheif's own `heif-enc -A -b 10` aborts the same way).
  /// Alpha, when present, is kept as an alpha auxiliary image. `blocks.iccProfile` becomes a
  /// `colr`/`prof` box, `blocks.exif` an `Exif` item (libheif adds the 4-byte TIFF-header offset)
  /// and `blocks.xmp` an `application/rdf+xml` item.
  /// Costs one x265 or libaom encode, on the encoder's own threads: for 12 MP on 2 cores about
  /// 5 s as HEIC (``x265Preset``) and 2 s as AVIF (``av1Speed``).
  ///
  /// - Throws: ``ImageEncodingError`` with `.unsupportedFormat` when libheif has no encoder for
  ///   the codec (nothing else is written in its place), `.invalidParameter` for a size the
  ///   encoder rejects, or `.encoderFailed` with libheif's message.
  static func encode(
    _ image: Image, options: EncodeOptions, blocks: MetadataBlocks,
    compression: Compression = .hevc
  ) throws(ImageEncodingError) -> Data {
    if let failure = HEIFLibrary.initialize() {
      throw ImageEncodingError(
        .unsupportedFormat, detail: "HEIF is unavailable: \(failure).")
    }
    guard let context = heif_context_alloc() else {
      throw ImageEncodingError(.encoderFailed, detail: "libheif could not allocate a context.")
    }
    defer { heif_context_free(context) }

    var encoder: OpaquePointer?
    let codec = compression == .hevc ? heif_compression_HEVC : heif_compression_AV1
    let found = heif_context_get_encoder_for_format(context, codec, &encoder)
    guard HEIFLibrary.succeeded(found), let encoder else {
      let library = compression == .hevc ? "HEVC encoder (x265)" : "AV1 encoder (libaom)"
      throw ImageEncodingError(
        .unsupportedFormat,
        detail:
          "this libheif has no \(library), so \(compression.name) cannot be written: "
          + "\(HEIFLibrary.message(of: found))."
      )
    }
    defer { heif_encoder_release(encoder) }
    try check(heif_encoder_set_lossy_quality(encoder, Int32(options.quality)), "setting quality")
    let chroma = options.chromaSubsampling == .s444 ? "444" : "420"
    try check(
      heif_encoder_set_parameter_string(encoder, "chroma", chroma), "setting chroma \(chroma)")
    switch compression {
    case .hevc:
      try check(
        heif_encoder_set_parameter_string(encoder, "preset", x265Preset),
        "setting preset \(x265Preset)")
    case .av1:
      try check(
        heif_encoder_set_parameter_integer(encoder, "speed", Int32(av1Speed)), "setting speed")
      let threads = Int32(min(64, max(1, ProcessInfo.processInfo.activeProcessorCount)))
      try check(heif_encoder_set_parameter_integer(encoder, "threads", threads), "setting threads")
    }

    let bits = compression == .hevc && image.format.bitDepth == 16 ? 10 : 8
    let picture = try makeHeifImage(image, bits: bits)
    defer { heif_image_release(picture) }
    if let icc = blocks.iccProfile, !icc.isEmpty {
      let status = icc.withUnsafeBytes {
        heif_image_set_raw_color_profile(picture, "prof", $0.baseAddress, $0.count)
      }
      try check(status, "attaching the ICC profile")
    }

    guard let encodingOptions = heif_encoding_options_alloc() else {
      throw ImageEncodingError(
        .encoderFailed, detail: "libheif could not allocate encoding options.")
    }
    defer { heif_encoding_options_free(encodingOptions) }
    encodingOptions.pointee.save_alpha_channel = image.format.hasAlpha ? 1 : 0

    var handle: OpaquePointer?
    try check(
      heif_context_encode_image(context, picture, encoder, encodingOptions, &handle), "encoding")
    guard let handle else {
      throw ImageEncodingError(.encoderFailed, detail: "libheif returned no image handle.")
    }
    defer { heif_image_handle_release(handle) }

    if let exif = blocks.exif, !exif.isEmpty {
      guard exif.count <= Int(Int32.max) else {
        throw ImageEncodingError(
          .invalidParameter, detail: "the EXIF block is too large for libheif.")
      }
      let status = exif.withUnsafeBytes {
        heif_context_add_exif_metadata(context, handle, $0.baseAddress, Int32($0.count))
      }
      try check(status, "adding EXIF")
    }
    if let xmp = blocks.xmp, !xmp.isEmpty {
      guard xmp.count <= Int(Int32.max) else {
        throw ImageEncodingError(
          .invalidParameter, detail: "the XMP packet is too large for libheif.")
      }
      let status = xmp.withUnsafeBytes {
        heif_context_add_XMP_metadata(context, handle, $0.baseAddress, Int32($0.count))
      }
      try check(status, "adding XMP")
    }

    let output = HEIFOutput()
    var writer = heif_writer(writer_api_version: 1, write: heifWrite)
    let written = heif_context_write(context, &writer, Unmanaged.passUnretained(output).toOpaque())
    try check(written, "writing the file")
    return output.data
  }

  /// An interleaved RGB(A) libheif image holding `image`'s pixels at `bits` (8, or 10 from a
  /// 16-bit image).
  private static func makeHeifImage(_ image: Image, bits: Int) throws(ImageEncodingError)
    -> OpaquePointer
  {
    let alpha = image.format.hasAlpha
    let chroma: heif_chroma =
      switch (alpha, bits > 8) {
      case (false, false): heif_chroma_interleaved_RGB
      case (true, false): heif_chroma_interleaved_RGBA
      case (false, true): heif_chroma_interleaved_RRGGBB_LE
      case (true, true): heif_chroma_interleaved_RRGGBBAA_LE
      }
    var picture: OpaquePointer?
    let created = heif_image_create(
      Int32(clamping: image.width), Int32(clamping: image.height), heif_colorspace_RGB, chroma,
      &picture)
    guard HEIFLibrary.succeeded(created), let picture else {
      throw ImageEncodingError(
        .encoderFailed, detail: "libheif, creating the image: \(HEIFLibrary.message(of: created)).")
    }
    let added = heif_image_add_plane(
      picture, heif_channel_interleaved, Int32(clamping: image.width),
      Int32(clamping: image.height), Int32(bits))
    var stride: Int32 = 0
    guard HEIFLibrary.succeeded(added),
      let plane = heif_image_get_plane(picture, heif_channel_interleaved, &stride)
    else {
      heif_image_release(picture)
      throw ImageEncodingError(
        .invalidParameter,
        detail: "libheif cannot hold a \(image.size) image: \(HEIFLibrary.message(of: added)).")
    }
    let rowStride = Int(stride)
    let components = image.width * image.format.channelCount
    image.withUnsafeBytes { pixels in
      guard let source = pixels.baseAddress else { return }
      for y in 0..<image.height {
        let out = plane + y * rowStride
        if image.format.bitDepth == 8 {
          out.update(
            from: source.assumingMemoryBound(to: UInt8.self) + y * components, count: components)
          continue
        }
        let row = source.assumingMemoryBound(to: UInt16.self) + y * components
        if bits == 8 {
          for i in 0..<components {
            out[i] = UInt8((UInt32(row[i]) * 255 + 32767) / 65535)
          }
        } else {
          // 10-bit samples in the low bits of little-endian UInt16s, as libheif reads them.
          let wide = UnsafeMutableRawPointer(out)
          for i in 0..<components {
            let v = UInt16((UInt32(row[i]) * 1023 + 32767) / 65535)
            wide.storeBytes(of: v.littleEndian, toByteOffset: i * 2, as: UInt16.self)
          }
        }
      }
    }
    return picture
  }

  private static func check(_ error: heif_error, _ step: String) throws(ImageEncodingError) {
    guard HEIFLibrary.succeeded(error) else {
      let kind: ImageEncodingError.Kind =
        error.code == heif_error_Usage_error ? .invalidParameter : .encoderFailed
      throw ImageEncodingError(kind, detail: "libheif, \(step): \(HEIFLibrary.message(of: error)).")
    }
  }
}

/// Collects what libheif writes; passed to the C callback as its `userdata`.
private final class HEIFOutput {
  var data = Data()
}

/// The `heif_writer` callback: appends to the ``HEIFOutput`` behind `userdata`.
private let heifWrite:
  @convention(c) (OpaquePointer?, UnsafeRawPointer?, Int, UnsafeMutableRawPointer?) -> heif_error =
    {
      _, bytes, count, userdata in
      if let userdata, let bytes, count > 0 {
        let output = Unmanaged<HEIFOutput>.fromOpaque(userdata).takeUnretainedValue()
        output.data.append(bytes.assumingMemoryBound(to: UInt8.self), count: count)
      }
      // A string literal's bytes live as long as the program, as libheif expects of messages.
      let success = UnsafeRawPointer(("Success" as StaticString).utf8Start)
        .assumingMemoryBound(to: CChar.self)
      return heif_error(code: heif_error_Ok, subcode: heif_suberror_Unspecified, message: success)
    }
