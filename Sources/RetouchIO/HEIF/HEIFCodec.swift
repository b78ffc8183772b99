// SPDX-License-Identifier: Apache-2.0

import CRetouchLoaders
import Foundation
import RetouchCore

/// HEIF/HEIC decoding and HEIC encoding through libheif 1.15 (HEVC via libde265 and x265).
///
/// Only the primary image is decoded; thumbnails, depth and auxiliary images (gain maps) are
/// left alone. libheif applies the container's `clap`, `irot` and `imir` transforms when
/// ``DecodeOptions/appliesOrientation`` is set, so the pixels come out upright and the EXIF
/// orientation (informative only in HEIF) is not applied again.
package enum HEIFCodec {
  /// Decodes the primary image to RGB(A): 8-bit sources to `.rgb8`/`.rgba8`, 10- and 12-bit
  /// sources to `.rgb16`/`.rgba16` scaled to the full 16-bit range (`v × 65535 / (2^bits − 1)`,
  /// rounded) unless ``DecodeOptions/keeps16Bit`` is off.
  ///
  /// Costs one HEVC decode of every tile (libheif uses its own threads for grids) plus one copy
  /// into the ``RetouchCore/Image``; the `ispe` size is checked against
  /// ``DecodeOptions/maxPixels`` before anything is decoded. A file cut short cannot be decoded
  /// in part, so truncation throws whatever the strictness.
  ///
  /// - Throws: ``ImageDecodingError`` with kind `.tooLarge`, `.truncated`, `.corrupt`,
  ///   `.unsupportedVariant` (codec or feature libheif lacks) or `.warning` (libheif reported
  ///   decoding warnings and `strictness` is `.failOnWarning`); `detail` holds libheif's message.
  static func decode(
    _ data: Data, source: String, options: DecodeOptions
  ) throws(ImageDecodingError) -> RawDecode {
    try data.withDecodingBytes { buffer throws(ImageDecodingError) in
      try withPrimaryImage(buffer, source: source) { handle throws(ImageDecodingError) in
        try decodePrimary(handle, source: source, options: options)
      }
    }
  }

  /// Reads the container (boxes, metadata items, colour profile) without decoding any pixels.
  ///
  /// `storedSize` is the primary image's `ispe` size, before `irot`/`imir`; `orientationApplied`
  /// says whether a decode with the same options would turn the pixels upright itself.
  ///
  /// - Throws: ``ImageDecodingError`` (`.truncated`, `.corrupt`, `.unsupportedVariant`).
  static func readHeader(
    _ data: Data, source: String, options: DecodeOptions
  ) throws(ImageDecodingError) -> (
    storedSize: PixelSize, blocks: MetadataBlocks, orientationApplied: Bool
  ) {
    try data.withDecodingBytes { buffer throws(ImageDecodingError) in
      try withPrimaryImage(buffer, source: source) { handle throws(ImageDecodingError) in
        var warnings: [String] = []
        return (
          storedSize(of: handle), metadataBlocks(of: handle, warnings: &warnings),
          options.appliesOrientation
        )
      }
    }
  }

  // MARK: - Decoding steps

  /// Opens `buffer` as a HEIF container and calls `body` with its primary image handle. The
  /// context reads the bytes in place, so everything happens inside the buffer's lifetime.
  private static func withPrimaryImage<R>(
    _ buffer: UnsafeRawBufferPointer, source: String,
    _ body: (OpaquePointer) throws(ImageDecodingError) -> R
  ) throws(ImageDecodingError) -> R {
    if let failure = HEIFLibrary.initialize() {
      throw ImageDecodingError(
        .unsupportedVariant, source: source, detail: "HEIF is unavailable: \(failure).")
    }
    guard let context = heif_context_alloc() else {
      throw ImageDecodingError(
        .corrupt, source: source, detail: "libheif could not allocate a context.")
    }
    defer { heif_context_free(context) }
    let read = heif_context_read_from_memory_without_copy(
      context, buffer.baseAddress, buffer.count, nil)
    guard HEIFLibrary.succeeded(read) else {
      throw HEIFLibrary.decodingError(read, source: source, while: "reading the container")
    }
    var handle: OpaquePointer?
    let primary = heif_context_get_primary_image_handle(context, &handle)
    guard HEIFLibrary.succeeded(primary), let handle else {
      throw HEIFLibrary.decodingError(primary, source: source, while: "finding the primary image")
    }
    defer { heif_image_handle_release(handle) }
    return try body(handle)
  }

  /// The primary image's size as coded (`ispe`), before `clap`, `irot` and `imir`.
  private static func storedSize(of handle: OpaquePointer) -> PixelSize {
    PixelSize(
      width: Int(heif_image_handle_get_ispe_width(handle)),
      height: Int(heif_image_handle_get_ispe_height(handle)))
  }

  private static func decodePrimary(
    _ handle: OpaquePointer, source: String, options: DecodeOptions
  ) throws(ImageDecodingError) -> RawDecode {
    let stored = storedSize(of: handle)
    let shown = PixelSize(
      width: Int(heif_image_handle_get_width(handle)),
      height: Int(heif_image_handle_get_height(handle)))
    for size in [stored, shown] {
      let (pixels, overflow) = size.width.multipliedReportingOverflow(by: size.height)
      guard size.width > 0, size.height > 0 else {
        throw ImageDecodingError(
          .corrupt, source: source, detail: "the primary image has no size (\(size)).")
      }
      guard !overflow, pixels <= options.maxPixels else {
        throw ImageDecodingError(
          .tooLarge, source: source,
          detail: "the primary image is \(size), above the limit of \(options.maxPixels) pixels.")
      }
    }

    let alpha = heif_image_handle_has_alpha_channel(handle) != 0
    let lumaBits = Int(heif_image_handle_get_luma_bits_per_pixel(handle))
    let keeps16 = lumaBits > 8 && options.keeps16Bit
    let chroma: heif_chroma =
      switch (alpha, keeps16) {
      case (false, false): heif_chroma_interleaved_RGB
      case (true, false): heif_chroma_interleaved_RGBA
      case (false, true): heif_chroma_interleaved_RRGGBB_LE
      case (true, true): heif_chroma_interleaved_RRGGBBAA_LE
      }

    guard let decodingOptions = heif_decoding_options_alloc() else {
      throw ImageDecodingError(
        .corrupt, source: source, detail: "libheif could not allocate decoding options.")
    }
    defer { heif_decoding_options_free(decodingOptions) }
    decodingOptions.pointee.ignore_transformations = options.appliesOrientation ? 0 : 1
    decodingOptions.pointee.convert_hdr_to_8bit = keeps16 ? 0 : 1
    decodingOptions.pointee.strict_decoding = options.strictness >= .failOnError ? 1 : 0

    var decoded: OpaquePointer?
    let status = heif_decode_image(handle, &decoded, heif_colorspace_RGB, chroma, decodingOptions)
    guard HEIFLibrary.succeeded(status), let decoded else {
      throw HEIFLibrary.decodingError(status, source: source, while: "decoding the primary image")
    }
    defer { heif_image_release(decoded) }

    var warnings: [String] = []
    var reported = [heif_error](repeating: heif_error(), count: 8)
    let warningCount = Int(
      heif_image_get_decoding_warnings(decoded, 0, &reported, Int32(reported.count)))
    for warning in reported.prefix(warningCount) {
      warnings.append("libheif: \(HEIFLibrary.message(of: warning))")
    }
    if options.strictness >= .failOnWarning, let first = warnings.first {
      throw ImageDecodingError(.warning, source: source, detail: "\(first).")
    }

    let image = try copyPixels(
      of: decoded, alpha: alpha, sixteenBit: keeps16, source: source, options: options)
    var raw = RawDecode(
      image: image, storedSize: stored, blocks: metadataBlocks(of: handle, warnings: &warnings))
    raw.orientationApplied = options.appliesOrientation
    raw.warnings = warnings
    raw.sourceBitDepth = max(8, lumaBits)
    return raw
  }

  /// Copies libheif's interleaved plane (rows `stride` bytes apart) into a packed image.
  private static func copyPixels(
    of decoded: OpaquePointer, alpha: Bool, sixteenBit: Bool, source: String,
    options: DecodeOptions
  ) throws(ImageDecodingError) -> Image {
    let width = Int(heif_image_get_width(decoded, heif_channel_interleaved))
    let height = Int(heif_image_get_height(decoded, heif_channel_interleaved))
    guard width > 0, height > 0,
      width.multipliedReportingOverflow(by: height).partialValue <= options.maxPixels
    else {
      throw ImageDecodingError(
        .corrupt, source: source, detail: "libheif returned a \(width)×\(height) image.")
    }
    var stride: Int32 = 0
    guard let plane = heif_image_get_plane_readonly(decoded, heif_channel_interleaved, &stride)
    else {
      throw ImageDecodingError(
        .corrupt, source: source, detail: "libheif returned no interleaved plane.")
    }
    let format = PixelFormat(hasAlpha: alpha, sixteenBit: sixteenBit)
    var image = Image(uninitializedWidth: width, height: height, format: format)
    let rowBytes = image.bytesPerRow
    guard Int(stride) >= rowBytes else {
      throw ImageDecodingError(
        .corrupt, source: source, detail: "libheif's row stride \(stride) is shorter than a row.")
    }
    let sourceStride = Int(stride)
    if !sixteenBit {
      image.withUnsafeMutableBytes { destination in
        guard let out = destination.baseAddress else { return }
        for y in 0..<height {
          (out + y * rowBytes).copyMemory(from: plane + y * sourceStride, byteCount: rowBytes)
        }
      }
      return image
    }
    // 10/12-bit samples in the low bits of little-endian UInt16s: stretch to 0...65535.
    let bits = Int(heif_image_get_bits_per_pixel_range(decoded, heif_channel_interleaved))
    guard (9...16).contains(bits) else {
      throw ImageDecodingError(
        .unsupportedVariant, source: source, detail: "libheif returned \(bits)-bit samples.")
    }
    let maxCode = UInt32((1 << bits) - 1)
    let components = width * format.channelCount
    image.withUnsafeMutableBytes { destination in
      let out = destination.bindMemory(to: UInt16.self)
      let input = UnsafeRawPointer(plane)
      for y in 0..<height {
        let row = input + y * sourceStride
        let base = y * components
        for i in 0..<components {
          let v = UInt32(
            UInt16(littleEndian: row.loadUnaligned(fromByteOffset: i * 2, as: UInt16.self)))
          let clamped = min(v, maxCode)
          out[base + i] = UInt16((clamped * 65535 + maxCode / 2) / maxCode)
        }
      }
    }
    return image
  }

  // MARK: - Metadata

  /// The primary image's EXIF and XMP items and its colour profile (ICC, or `nclx`).
  static func metadataBlocks(of handle: OpaquePointer, warnings: inout [String]) -> MetadataBlocks {
    var blocks = MetadataBlocks()
    let count = Int(heif_image_handle_get_number_of_metadata_blocks(handle, nil))
    if count > 0 {
      var ids = [heif_item_id](repeating: 0, count: count)
      let listed = Int(
        heif_image_handle_get_list_of_metadata_block_IDs(handle, nil, &ids, Int32(count)))
      for id in ids.prefix(listed) {
        let type = heif_image_handle_get_metadata_type(handle, id).map { String(cString: $0) } ?? ""
        let contentType =
          heif_image_handle_get_metadata_content_type(handle, id).map { String(cString: $0) } ?? ""
        let isExif = type == "Exif"
        let isXMP = type == "mime" && contentType == "application/rdf+xml"
        guard (isExif && blocks.exif == nil) || (isXMP && blocks.xmp == nil) else { continue }
        let size = heif_image_handle_get_metadata_size(handle, id)
        guard size > 0 else { continue }
        var bytes = [UInt8](repeating: 0, count: size)
        let status = heif_image_handle_get_metadata(handle, id, &bytes)
        guard HEIFLibrary.succeeded(status) else {
          warnings.append(
            "libheif could not read the \(type) item \(id): \(HEIFLibrary.message(of: status)).")
          continue
        }
        if isXMP {
          blocks.xmp = Data(bytes)
        } else if let exif = tiffPart(ofExifItem: bytes) {
          blocks.exif = exif
        } else {
          warnings.append("the Exif item \(id) has a bad TIFF header offset; EXIF ignored.")
        }
      }
    }

    switch heif_image_handle_get_color_profile_type(handle) {
    case heif_color_profile_type_prof, heif_color_profile_type_rICC:
      let size = heif_image_handle_get_raw_color_profile_size(handle)
      if size > 0 {
        var bytes = [UInt8](repeating: 0, count: size)
        let status = heif_image_handle_get_raw_color_profile(handle, &bytes)
        if HEIFLibrary.succeeded(status) {
          blocks.iccProfile = Data(bytes)
        } else {
          warnings.append(
            "libheif could not read the ICC profile: \(HEIFLibrary.message(of: status)).")
        }
      }
    case heif_color_profile_type_nclx:
      var nclx: UnsafeMutablePointer<heif_color_profile_nclx>?
      let status = heif_image_handle_get_nclx_color_profile(handle, &nclx)
      if HEIFLibrary.succeeded(status), let nclx {
        blocks.nclx = NCLXColorInfo(
          colorPrimaries: Int(nclx.pointee.color_primaries.rawValue),
          transferCharacteristics: Int(nclx.pointee.transfer_characteristics.rawValue),
          matrixCoefficients: Int(nclx.pointee.matrix_coefficients.rawValue),
          fullRange: nclx.pointee.full_range_flag != 0)
        heif_nclx_color_profile_free(nclx)
      }
    default:
      break
    }
    return blocks
  }

  /// The TIFF structure inside a HEIF `Exif` item, which starts with a 4-byte big-endian offset
  /// from the end of that field to the TIFF header (ISO/IEC 23008-12 Annex A.2.1). `nil` when the
  /// offset points outside the item.
  static func tiffPart(ofExifItem item: [UInt8]) -> Data? {
    guard item.count >= 4 else { return nil }
    let offset = Int(item[0]) << 24 | Int(item[1]) << 16 | Int(item[2]) << 8 | Int(item[3])
    let start = 4 + offset
    guard offset >= 0, start < item.count else { return nil }
    return Data(item[start...])
  }
}
