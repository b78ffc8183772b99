// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore

/// How an image is encoded.
public struct EncodeOptions: Sendable, Hashable {
  /// Chroma subsampling for JPEG, HEIC and AVIF.
  public enum ChromaSubsampling: String, Sendable, Hashable, Codable {
    /// Half resolution in both directions (what cameras write; smallest files).
    case s420 = "4:2:0"
    /// Full resolution chroma (for graphics and fine coloured detail).
    case s444 = "4:4:4"
  }

  /// 1...100 (JPEG, HEIC, AVIF and lossy WebP). Default 90.
  public var quality: Int = 90
  public var chromaSubsampling: ChromaSubsampling = .s420
  /// Progressive JPEG (implies optimised Huffman tables).
  public var progressive: Bool = false
  /// Optimised Huffman tables for baseline JPEG (a few % smaller, a little slower).
  public var optimizesHuffman: Bool = false
  /// PNG bit depth: `nil` keeps the image's own (8 or 16).
  public var pngBitDepth: Int? = nil
  /// WebP: lossless instead of lossy at ``quality`` (larger files, every pixel kept exactly at
  /// 8 bits, colour under transparent pixels too).
  public var webpLossless: Bool = false
  /// The `Software` tag written into the output's EXIF.
  public var software: String = "Retouch"

  public init() {}
}

/// Encodes images to JPEG, PNG, HEIC, AVIF, WebP or TIFF with metadata corrected for the new
/// pixels.
public struct ImageEncoder: Sendable {
  public var options: EncodeOptions

  public init(options: EncodeOptions = EncodeOptions()) {
    self.options = options
  }

  /// Encodes `image` as `format`, carrying `metadata` (if given) corrected for the new image:
  /// orientation 1, the new pixel size, the image's colour profile, the software tag; the rest of
  /// the original EXIF/XMP kept; the embedded EXIF thumbnail dropped.
  ///
  /// - Throws: ``ImageEncodingError``.
  public func encode(
    _ image: Image, as format: ImageFormat, metadata: PhotoMetadata? = nil
  ) throws(ImageEncodingError) -> Data {
    guard (1...100).contains(options.quality) else {
      throw ImageEncodingError(
        .invalidParameter, detail: "quality \(options.quality) is outside 1...100.")
    }
    let blocks = ExportMetadata.blocks(for: image, from: metadata, software: options.software)
    switch format {
    case .jpeg: return try JPEGCodec.encode(image, options: options, blocks: blocks)
    case .png: return try PNGCodec.encode(image, options: options, blocks: blocks)
    case .heif: return try HEIFCodec.encode(image, options: options, blocks: blocks)
    case .avif:
      return try HEIFCodec.encode(image, options: options, blocks: blocks, compression: .av1)
    case .webp: return try WebPCodec.encode(image, options: options, blocks: blocks)
    case .tiff: return try TIFFCodec.encode(image, blocks: blocks)
    default:
      throw ImageEncodingError(
        .unsupportedFormat,
        detail: "\(format) output is not supported; use jpeg, png, heic, avif, webp or tiff.")
    }
  }

  /// Encodes and writes to `url` atomically (temporary file, then rename). Never writes over
  /// the file the image was read from unless the caller passes that URL.
  ///
  /// - Throws: ``ImageEncodingError``.
  public func write(
    _ image: Image, as format: ImageFormat, metadata: PhotoMetadata? = nil, to url: URL
  ) throws(ImageEncodingError) {
    let data: Data
    do {
      data = try encode(image, as: format, metadata: metadata)
    } catch {
      throw ImageEncodingError(error.kind, destination: url.lastPathComponent, detail: error.detail)
    }
    do {
      try data.write(to: url, options: [.atomic])
    } catch {
      throw .unwritable(url, error)
    }
  }
}
