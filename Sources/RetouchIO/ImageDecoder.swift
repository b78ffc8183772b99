// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore

/// Decodes JPEG, PNG, HEIF, WebP and TIFF photos into upright, colour-managed `RetouchCore`
/// `Image`s.
///
/// The format is sniffed from the bytes, never from the file name. Decoding is synchronous and
/// uses the calling thread (plus the codec's own threads, for HEVC). Safe to use from any thread.
public struct ImageDecoder: Sendable {
  public var options: DecodeOptions

  public init(options: DecodeOptions = DecodeOptions()) {
    self.options = options
  }

  /// Reads and decodes the file at `url`.
  ///
  /// - Throws: ``ImageDecodingError`` (`source` is the file's last path component).
  public func decode(_ url: URL) throws(ImageDecodingError) -> DecodedImage {
    let data = try Self.readFile(url)
    return try decode(data, source: url.lastPathComponent)
  }

  /// Decodes an encoded photo held in memory.
  ///
  /// - Throws: ``ImageDecodingError``.
  public func decode(_ data: Data, source: String = "<memory>") throws(ImageDecodingError)
    -> DecodedImage
  {
    let format = try Self.format(of: data, source: source)
    var raw: RawDecode
    switch format {
    case .jpeg: raw = try JPEGCodec.decode(data, source: source, options: options)
    case .png: raw = try PNGCodec.decode(data, source: source, options: options)
    case .heif, .avif: raw = try HEIFCodec.decode(data, source: source, options: options)
    case .webp: raw = try WebPCodec.decode(data, source: source, options: options)
    case .tiff: raw = try TIFFCodec.decode(data, source: source, options: options)
    default:
      throw ImageDecodingError(
        .unsupportedFormat, source: source,
        detail:
          "\(format) files are recognised but not decoded; convert to JPEG, PNG, HEIC, WebP or "
          + "TIFF first.")
    }
    return finish(raw, format: format, source: source)
  }

  /// Reads only the container and its metadata, without decoding pixels (fast; for `info`).
  ///
  /// - Throws: ``ImageDecodingError``.
  public func readMetadata(_ data: Data, source: String = "<memory>") throws(ImageDecodingError)
    -> (format: ImageFormat, metadata: PhotoMetadata, warnings: [String])
  {
    let format = try Self.format(of: data, source: source)
    let header: (storedSize: PixelSize, blocks: MetadataBlocks, orientationApplied: Bool)
    switch format {
    case .jpeg: header = try JPEGCodec.readHeader(data, source: source, options: options)
    case .png: header = try PNGCodec.readHeader(data, source: source, options: options)
    case .heif, .avif: header = try HEIFCodec.readHeader(data, source: source, options: options)
    case .webp: header = try WebPCodec.readHeader(data, source: source, options: options)
    case .tiff: header = try TIFFCodec.readHeader(data, source: source, options: options)
    default:
      throw ImageDecodingError(
        .unsupportedFormat, source: source,
        detail:
          "\(format) files are recognised but not read; convert to JPEG, PNG, HEIC, WebP or "
          + "TIFF first.")
    }
    var warnings: [String] = []
    let metadata = PhotoMetadata(
      parsing: header.blocks, storedSize: header.storedSize, warnings: &warnings)
    return (format, metadata, warnings)
  }

  func finish(_ raw: RawDecode, format: ImageFormat, source: String) -> DecodedImage {
    var warnings = raw.warnings
    // The metadata stays the file's own (stored size, declared orientation); the pixels are
    // upright. HEIF codecs apply `irot`/`imir` themselves, which the EXIF orientation mirrors.
    let metadata = PhotoMetadata(
      parsing: raw.blocks, storedSize: raw.storedSize, warnings: &warnings)
    var image = raw.image
    if !raw.orientationApplied && options.appliesOrientation {
      image = image.applyingOrientation(metadata.orientation)
    }
    if options.convertsColor {
      image = ColorConversion.toWorkingSpace(
        image, profile: raw.blocks.iccProfile, nclx: raw.blocks.nclx, warnings: &warnings)
    }
    return DecodedImage(
      image: image, format: format, metadata: metadata, warnings: warnings,
      scale: Double(raw.scaleEighths) / 8)
  }

  static func format(of data: Data, source: String) throws(ImageDecodingError) -> ImageFormat {
    guard !data.isEmpty else {
      throw ImageDecodingError(.empty, source: source, detail: "the file has no bytes.")
    }
    guard let format = ImageFormat.sniff(data) else {
      throw ImageDecodingError(
        .unsupportedFormat, source: source,
        detail:
          "not a JPEG, PNG, HEIC, AVIF, WebP or TIFF image: file starts with "
          + "\(ImageFormat.leadingHex(data, count: 8)).")
    }
    return format
  }

  /// Reads a file's bytes (memory-mapped when safe), mapping failures to ``ImageDecodingError``
  /// of kind `.unreadable`. A symbolic link is followed: what must be a regular file is the
  /// file it points to (a directory, device or pipe is refused either way).
  public static func readFile(_ url: URL) throws(ImageDecodingError) -> Data {
    let name = url.lastPathComponent
    let url = url.resolvingSymlinksInPath()
    let attributes: [FileAttributeKey: Any]
    do {
      attributes = try FileManager.default.attributesOfItem(atPath: url.path)
    } catch {
      throw ImageDecodingError(
        .unreadable, source: name, detail: "no such file, or it cannot be read.")
    }
    if let type = attributes[.type] as? FileAttributeType, type == .typeSymbolicLink {
      // Still a link after resolving: it points to nothing (or round in a loop).
      throw ImageDecodingError(
        .unreadable, source: name, detail: "a symbolic link to no file.")
    }
    if let type = attributes[.type] as? FileAttributeType, type != .typeRegular {
      throw ImageDecodingError(
        .unreadable, source: name, detail: "not a regular file (\(type.rawValue)).")
    }
    if let size = (attributes[.size] as? NSNumber)?.int64Value, size > maxFileBytes {
      throw ImageDecodingError(
        .tooLarge, source: name,
        detail: "the file is \(size) bytes, above the \(maxFileBytes)-byte limit.")
    }
    do {
      return try Data(contentsOf: url, options: [.mappedIfSafe])
    } catch {
      let reason =
        (error as NSError).localizedFailureReason ?? (error as NSError).localizedDescription
      throw ImageDecodingError(.unreadable, source: name, detail: "\(reason)")
    }
  }

  /// Files larger than this (4 GiB) are refused before reading: no photo format we read needs more.
  public static let maxFileBytes: Int64 = 4 << 30
}
