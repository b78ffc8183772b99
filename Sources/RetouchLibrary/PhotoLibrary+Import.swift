// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchIO

/// Where an import stands, reported after each file.
public struct ImportProgress: Sendable, Hashable {
  /// Files looked at so far (imported, duplicate or failed).
  public let completed: Int
  /// Files found in all the given files and folders.
  public let total: Int
  /// The file just looked at.
  public let file: URL
}

/// What an import did with each file.
public struct ImportResult: Sendable {
  /// A file whose content is already in the library.
  public struct Duplicate: Sendable, Hashable {
    public let file: URL
    public let existing: AssetID
  }
  /// A file that was not imported, and why.
  public struct Failure: Sendable, Hashable {
    public let file: URL
    public let reason: String
  }

  /// The new assets, in the order the files were found.
  public internal(set) var imported: [Asset] = []
  public internal(set) var duplicates: [Duplicate] = []
  public internal(set) var failures: [Failure] = []
}

extension PhotoLibrary {
  /// The file extensions a folder import picks up (files given by name are always tried):
  /// those of every format the decoder reads.
  public static var importableExtensions: Set<String> { ImageFormat.decodedFileExtensions }

  /// How many files one import transaction takes: the write lock is held while their originals
  /// are copied and synced, so other writers wait at most about this many file copies.
  static let importChunkSize = 64

  /// Imports photos from files and folders (folders recursively, by ``importableExtensions``,
  /// in path order).
  ///
  /// Each file is read once: its SHA-256 names the original, and only its header and metadata
  /// are parsed (capture date, camera, pixel size, orientation, GPS); no pixels are decoded and
  /// no thumbnails are made (see ``thumbnailURL(for:maxDimension:)``). A file whose content is
  /// already in the library is reported as a duplicate; a file that cannot be read, is not in a
  /// format the decoder reads (``ImageFormat/isDecoded``) or has a broken header is reported as
  /// a failure and skipped, and the rest go in. Originals are copied through a synced temporary
  /// file, renamed, made read-only, and recorded in the database in transactions of
  /// ``importChunkSize`` files.
  ///
  /// - Parameter progress: called after each file, on the calling thread, without the library's
  ///   lock held.
  /// - Throws: ``LibraryError`` only for library-wide failures (database, the library's own
  ///   folders); per-file problems are in the result.
  public func importPhotos(
    from sources: [URL], progress: (ImportProgress) -> Void = { _ in }
  ) throws(LibraryError) -> ImportResult {
    let files = Self.expand(sources)
    var result = ImportResult()
    var chunk: [ParsedPhoto] = []
    var completed = 0
    for file in files {
      completed += 1
      switch Self.parse(file) {
      case .success(let photo): chunk.append(photo)
      case .failure(let reason): result.failures.append(.init(file: file, reason: reason))
      }
      progress(ImportProgress(completed: completed, total: files.count, file: file))
      if chunk.count == Self.importChunkSize {
        try commitImport(chunk, into: &result)
        chunk.removeAll(keepingCapacity: true)
      }
    }
    if !chunk.isEmpty { try commitImport(chunk, into: &result) }
    return result
  }

  /// The files to import from files and folders, in a stable order.
  static func expand(_ sources: [URL]) -> [URL] {
    var files: [URL] = []
    for source in sources {
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: source.path, isDirectory: &isDirectory),
        isDirectory.boolValue
      else {
        files.append(source)  // a missing file is reported as a failure by `parse`
        continue
      }
      var found: [URL] = []
      let enumerator = FileManager.default.enumerator(
        at: source, includingPropertiesForKeys: [.isRegularFileKey], options: [.skipsHiddenFiles])
      while let item = enumerator?.nextObject() as? URL {
        if importableExtensions.contains(item.pathExtension.lowercased()),
          (try? item.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true
        {
          found.append(item)
        }
      }
      files += found.sorted { $0.path < $1.path }
    }
    return files
  }

  /// One file read and understood, ready to go in.
  struct ParsedPhoto {
    let file: URL
    let data: Data
    let hash: String
    let format: ImageFormat
    let metadata: PhotoMetadata
  }

  enum ParseOutcome {
    case success(ParsedPhoto)
    case failure(String)
  }

  /// Reads a file, hashes it and parses its header (no pixels).
  static func parse(_ file: URL) -> ParseOutcome {
    do {
      let data = try ImageDecoder.readFile(file)
      let header = try ImageDecoder().readMetadata(data, source: file.lastPathComponent)
      guard header.format.isDecoded else {
        return .failure(
          "\(file.lastPathComponent): \(header.format) photos are not kept in a library; "
            + "use JPEG, PNG, HEIC, AVIF, WebP or TIFF."
        )
      }
      return .success(
        ParsedPhoto(
          file: file, data: data, hash: SHA256.hexDigest(data), format: header.format,
          metadata: header.metadata))
    } catch {
      return .failure(error.description)
    }
  }

  /// Copies a chunk's originals into place and records them, in one transaction.
  private func commitImport(_ photos: [ParsedPhoto], into result: inout ImportResult)
    throws(LibraryError)
  {
    let now = options.clock().timeIntervalSince1970
    let outcome = try withDatabase {
      db throws(LibraryError) -> ([Asset], [ImportResult.Duplicate], [ImportResult.Failure]) in
      var written: [URL] = []
      do throws(LibraryError) {
        return try db.transaction { () throws(LibraryError) in
          var imported: [Asset] = [], duplicates: [ImportResult.Duplicate] = [],
            failures: [ImportResult.Failure] = []
          var directories = Set<URL>()
          // The index in `rows` of the copy of each content that goes in; a second copy of the
          // same content in this chunk is a duplicate of it.
          var firstIndex: [String: Int] = [:]
          var rows: [(photo: ParsedPhoto, copyOf: Int?)] = []
          for photo in photos {
            if let existing = try db.scalarInt(
              "SELECT id FROM assets WHERE original_hash = ?", [photo.hash])
            {
              duplicates.append(.init(file: photo.file, existing: AssetID(existing)))
              continue
            }
            if let first = firstIndex[photo.hash] {
              rows.append((photo, first))
              continue
            }
            let destination = originalURL(hash: photo.hash, extension: photo.format.fileExtension)
            let directory = destination.deletingLastPathComponent()
            if !directories.contains(directory) {
              try DurableFile.makeDirectory(directory)
              directories.insert(directory)
            }
            do throws(LibraryError) {
              try DurableFile.write(photo.data, to: destination, readOnly: true)
            } catch {
              failures.append(.init(file: photo.file, reason: error.description))
              continue
            }
            written.append(destination)
            firstIndex[photo.hash] = rows.count
            rows.append((photo, nil))
          }
          for directory in directories { try DurableFile.syncDirectory(directory) }
          try DurableFile.syncDirectory(originalsDirectory)
          var ids: [AssetID?] = Array(repeating: nil, count: rows.count)
          for (i, row) in rows.enumerated() {
            if let first = row.copyOf {
              if let id = ids[first] {
                duplicates.append(.init(file: row.photo.file, existing: id))
              }
              continue
            }
            let asset = try insertAsset(row.photo, importDate: now, in: db)
            ids[i] = asset.id
            imported.append(asset)
          }
          return (imported, duplicates, failures)
        }
      } catch {
        for url in written { DurableFile.remove(url) }
        throw error
      }
    }
    result.imported += outcome.0
    result.duplicates += outcome.1
    result.failures += outcome.2
  }

  private func insertAsset(_ photo: ParsedPhoto, importDate: Double, in db: SQLiteDatabase)
    throws(LibraryError) -> Asset
  {
    let m = photo.metadata
    try db.run(
      """
      INSERT INTO assets(original_hash, original_name, original_extension, format, file_size, pixel_width,
        pixel_height, orientation, capture_date, camera_make, camera_model, import_date, latitude, longitude,
        altitude) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      """,
      [
        photo.hash, photo.file.lastPathComponent, photo.format.fileExtension, photo.format.rawValue,
        photo.data.count,
        m.pixelSize?.width, m.pixelSize?.height, m.orientation.rawValue,
        m.captureDate?.timeIntervalSince1970,
        Self.trimmed(m.cameraMake), Self.trimmed(m.cameraModel), importDate, m.gps?.latitude,
        m.gps?.longitude,
        m.gps?.altitude,
      ])
    return Asset(
      id: AssetID(db.lastInsertRowID), originalHash: photo.hash,
      originalFilename: photo.file.lastPathComponent,
      format: photo.format, fileSize: photo.data.count, pixelSize: m.pixelSize,
      orientation: m.orientation,
      captureDate: m.captureDate, cameraMake: Self.trimmed(m.cameraMake),
      cameraModel: Self.trimmed(m.cameraModel),
      location: m.gps, importDate: Date(timeIntervalSince1970: importDate), deletedDate: nil,
      currentRevisionID: nil)
  }

  /// EXIF strings come padded with spaces or NULs; an empty one is no value.
  static func trimmed(_ s: String?) -> String? {
    guard
      let t = s?.trimmingCharacters(
        in: .whitespacesAndNewlines.union(CharacterSet(charactersIn: "\0"))),
      !t.isEmpty
    else { return nil }
    return t
  }
}
