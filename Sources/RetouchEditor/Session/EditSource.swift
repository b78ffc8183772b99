// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchIO
import RetouchRender

/// Where an editing session gets its photo: the app supplies one, `EditController` asks it.
///
/// Every method may be called from any task, more than once, and concurrently (the controller
/// loads the preview and the full-resolution original at the same time), so conforming types
/// are `Sendable` and should not hold mutable state outside a lock.
public protocol EditSource: Sendable {
  /// A name for messages (the file name, or `<memory>`).
  var name: String { get }

  /// The photo at full resolution, upright (orientation applied), in the working colour space.
  ///
  /// Cost: a full decode (a 12 MP JPEG takes 70–85 ms on one core).
  /// - Throws: ``RetouchIO/ImageDecodingError`` when the photo cannot be read.
  func loadOriginal() async throws(ImageDecodingError) -> Image

  /// The photo's metadata as its file declares it (stored pixel size, orientation, EXIF).
  ///
  /// - Throws: ``RetouchIO/ImageDecodingError``.
  func loadMetadata() async throws(ImageDecodingError) -> PhotoMetadata

  /// The encoded file, so an export can keep what it carried (metadata blocks, and for a JPEG
  /// the overlapped decode–render–encode path); nil when the source has no file.
  ///
  /// - Throws: ``RetouchIO/ImageDecodingError``.
  func loadEncodedData() async throws(ImageDecodingError) -> Data?

  /// A cheap upright copy whose long edge is exactly `maxDimension` (or the original's, when
  /// smaller), or nil when the source has nothing cheaper than ``loadOriginal()`` (the
  /// controller then shrinks the original itself).
  ///
  /// - Throws: ``RetouchIO/ImageDecodingError``.
  func loadPreview(maxDimension: Int) async throws(ImageDecodingError) -> Image?

  /// The upright size of ``loadOriginal()``'s image, without decoding it, or nil when unknown.
  /// The controller needs it to render a preview at the right scale before the original has
  /// loaded.
  func loadOriginalSize() async -> PixelSize?

  /// The photo's depth map (for background blur), aligned with the upright photo; nil by default.
  func loadDepthMap() async -> DepthMap?

  /// The movie of a Live Photo, paired with the still; nil by default.
  func loadPairedMovie() async -> URL?
}

extension EditSource {
  public func loadPreview(maxDimension: Int) async throws(ImageDecodingError) -> Image? { nil }
  public func loadOriginalSize() async -> PixelSize? { nil }
  public func loadDepthMap() async -> DepthMap? { nil }
  public func loadPairedMovie() async -> URL? { nil }
}

/// An ``EditSource`` over an encoded JPEG, PNG, HEIC, AVIF, WebP or TIFF photo: a file path or
/// bytes in memory.
///
/// A file is read when asked for (memory-mapped when safe), never kept open. Previews of JPEGs
/// decode with DCT scaling straight to near the asked size (shrink-on-load; a 12 MP JPEG to
/// 2048 px in about a third of a full decode), then are resampled (Lanczos-3) to the exact size.
public struct FileEditSource: EditSource {
  enum Storage: Sendable {
    case file(URL)
    case bytes(Data)
  }

  let storage: Storage
  public let name: String
  /// How the photo is decoded (limits, strictness); orientation is always applied.
  public let decodeOptions: DecodeOptions

  /// A photo file. Nothing is read until the controller asks.
  public init(url: URL, decodeOptions: DecodeOptions = DecodeOptions()) {
    storage = .file(url)
    name = url.lastPathComponent
    self.decodeOptions = Self.upright(decodeOptions)
  }

  /// An encoded photo held in memory.
  public init(data: Data, name: String = "<memory>", decodeOptions: DecodeOptions = DecodeOptions())
  {
    storage = .bytes(data)
    self.name = name
    self.decodeOptions = Self.upright(decodeOptions)
  }

  static func upright(_ options: DecodeOptions) -> DecodeOptions {
    var o = options
    o.appliesOrientation = true
    o.minimumLongEdge = nil
    return o
  }

  /// The encoded bytes.
  ///
  /// - Throws: ``RetouchIO/ImageDecodingError`` `.unreadable` for a missing file.
  public func data() throws(ImageDecodingError) -> Data {
    switch storage {
    case .file(let url): try ImageDecoder.readFile(url)
    case .bytes(let data): data
    }
  }

  public func loadOriginal() async throws(ImageDecodingError) -> Image {
    try ImageDecoder(options: decodeOptions).decode(try data(), source: name).image
  }

  public func loadMetadata() async throws(ImageDecodingError) -> PhotoMetadata {
    try ImageDecoder(options: decodeOptions).readMetadata(try data(), source: name).metadata
  }

  public func loadEncodedData() async throws(ImageDecodingError) -> Data? { try data() }

  /// Shrink-on-load for JPEGs; nil for other formats (they have no cheap scaled decode).
  public func loadPreview(maxDimension: Int) async throws(ImageDecodingError) -> Image? {
    let bytes = try data()
    guard ImageFormat.sniff(bytes) == .jpeg, maxDimension > 0 else { return nil }
    var o = decodeOptions
    o.minimumLongEdge = maxDimension
    let decoded = try ImageDecoder(options: o).decode(bytes, source: name)
    guard let stored = decoded.metadata.pixelSize else { return nil }
    let full = decoded.metadata.orientation.displaySize(forStored: stored)
    return decoded.image.resized(to: full.fitting(longEdge: maxDimension))
  }

  /// From the header: the stored size, turned by the EXIF orientation. Only JPEGs, whose
  /// header size is exactly the decoded size.
  public func loadOriginalSize() async -> PixelSize? {
    guard let bytes = try? data(), ImageFormat.sniff(bytes) == .jpeg,
      let metadata = try? ImageDecoder(options: decodeOptions).readMetadata(bytes, source: name)
        .metadata,
      let stored = metadata.pixelSize
    else { return nil }
    return metadata.orientation.displaySize(forStored: stored)
  }
}
