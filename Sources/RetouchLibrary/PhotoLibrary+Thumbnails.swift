// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchIO

extension PhotoLibrary {
  /// A small JPEG of the asset's current look (its render, or its original when unedited), made
  /// the first time it is asked for and cached in `Thumbnails/` under the source file's name.
  ///
  /// Import never makes thumbnails (it reads headers only); call this from a grid, or
  /// ``makeThumbnails(for:maxDimension:)`` as a separate step. Cost: one shrink-on-load decode and
  /// one small encode the first time (tens of milliseconds for a 12 MP JPEG), a file check after.
  ///
  /// - Parameter maxDimension: long edge in pixels, 16…2048.
  /// - Throws: ``LibraryError`` `.notFound`, `.badPhoto` (the source cannot be decoded),
  ///   `.fileSystem`.
  public func thumbnailURL(for id: AssetID, maxDimension: Int = 256) throws(LibraryError) -> URL {
    let size = min(max(maxDimension, 16), 2048)
    let sourceURL = try currentImageURL(of: id)
    let stem = sourceURL.deletingPathExtension().lastPathComponent
    let url = thumbnailsDirectory.appendingPathComponent("\(stem)-\(size).jpg")
    if FileManager.default.fileExists(atPath: url.path) { return url }
    var decodeOptions = DecodeOptions()
    decodeOptions.minimumLongEdge = size
    do {
      let decoded = try ImageDecoder(options: decodeOptions).decode(sourceURL)
      var image = decoded.image
      if image.size.longEdge > size { image = image.resized(toFitLongEdge: size) }
      var encodeOptions = EncodeOptions()
      encodeOptions.quality = 80
      let data = try ImageEncoder(options: encodeOptions).encode(image, as: .jpeg)
      try DurableFile.write(data, to: url)
    } catch let error as ImageDecodingError {
      throw LibraryError(.badPhoto, source: "photo \(id)", detail: error.description)
    } catch let error as ImageEncodingError {
      throw LibraryError(.fileSystem, source: "photo \(id)", detail: error.description)
    } catch let error as LibraryError {
      throw error
    } catch {
      throw LibraryError(.fileSystem, source: "photo \(id)", detail: "\(error)")
    }
    return url
  }

  /// Makes the thumbnails of `ids` (a separate step after an import), skipping photos that fail.
  ///
  /// - Returns: how many thumbnails exist afterwards.
  @discardableResult
  public func makeThumbnails(for ids: [AssetID], maxDimension: Int = 256) -> Int {
    ids.reduce(0) { count, id in
      count + ((try? thumbnailURL(for: id, maxDimension: maxDimension)) == nil ? 0 : 1)
    }
  }

  /// Removes the cached thumbnails made from the file whose name without extension is `stem`.
  func removeThumbnails(forSourceNamed stem: String) {
    let names =
      (try? FileManager.default.contentsOfDirectory(atPath: thumbnailsDirectory.path)) ?? []
    for name in names where name.hasPrefix(stem + "-") {
      DurableFile.remove(thumbnailsDirectory.appendingPathComponent(name))
    }
  }
}
