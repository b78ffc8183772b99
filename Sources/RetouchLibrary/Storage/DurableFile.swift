// SPDX-License-Identifier: Apache-2.0

import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Crash-safe file writes: bytes go to `<name>.tmp` beside the target, are synced to disk, then
/// renamed over the final name, so a reader (or a crash) sees either no file or the whole file.
///
/// The caller syncs the directory (``syncDirectory(_:)``) once after a batch of renames, before it
/// records the new names in the database.
enum DurableFile {
  /// The suffix of files being written; any left over after a crash are removed by the checker.
  static let temporarySuffix = ".tmp"

  /// Writes `data` to `url` through a synced temporary file and a rename.
  ///
  /// - Parameter readOnly: make the file read-only (0444) before it gets its final name.
  /// - Throws: ``LibraryError`` `.fileSystem` with the system's message; no temporary file is
  ///   left behind.
  static func write(_ data: Data, to url: URL, readOnly: Bool = false) throws(LibraryError) {
    let temporary = url.path + temporarySuffix
    let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw failure("cannot create", url) }
    var ok = true
    var step = "cannot write"
    data.withUnsafeBytes { buffer in
      var offset = 0
      while ok, offset < buffer.count {
        let n = posixWrite(fd, buffer.baseAddress! + offset, buffer.count - offset)
        if n < 0 {
          if errno == EINTR { continue }
          ok = false
        } else {
          offset += n
        }
      }
    }
    if ok, readOnly, fchmod(fd, 0o444) != 0 { (ok, step) = (false, "cannot make read-only") }
    if ok, fsync(fd) != 0 { (ok, step) = (false, "cannot sync") }
    let error = ok ? nil : failure(step, url)
    close(fd)
    if let error {
      unlink(temporary)
      throw error
    }
    guard rename(temporary, url.path) == 0 else {
      let error = failure("cannot rename into place", url)
      unlink(temporary)
      throw error
    }
  }

  /// Syncs a directory so the names created or removed in it survive a crash.
  ///
  /// - Throws: ``LibraryError`` `.fileSystem`.
  static func syncDirectory(_ url: URL) throws(LibraryError) {
    let fd = open(url.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard fd >= 0 else { throw failure("cannot open folder", url) }
    defer { close(fd) }
    guard fsync(fd) == 0 else { throw failure("cannot sync folder", url) }
  }

  /// Creates a directory (and its parents) when missing.
  static func makeDirectory(_ url: URL) throws(LibraryError) {
    do {
      try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    } catch {
      throw LibraryError(
        .fileSystem, source: url.lastPathComponent,
        detail: "cannot create the folder: \(error.localizedDescription)")
    }
  }

  /// Removes a file; a missing file is not an error.
  static func remove(_ url: URL) {
    unlink(url.path)
  }

  /// Whether the file's permission bits allow writing by anyone.
  static func isWritable(_ url: URL) -> Bool {
    var info = stat()
    guard stat(url.path, &info) == 0 else { return false }
    return info.st_mode & 0o222 != 0
  }

  /// Makes a file read-only (0444).
  static func makeReadOnly(_ url: URL) -> Bool { chmod(url.path, 0o444) == 0 }

  private static func failure(_ what: String, _ url: URL) -> LibraryError {
    let message = String(cString: strerror(errno))
    return LibraryError(.fileSystem, source: url.lastPathComponent, detail: "\(what): \(message).")
  }
}

/// `write(2)`, named apart from the enclosing type's `write(_:to:)`.
@inline(__always)
private func posixWrite(_ fd: Int32, _ p: UnsafeRawPointer, _ n: Int) -> Int {
  #if canImport(Glibc)
    Glibc.write(fd, p, n)
  #else
    Darwin.write(fd, p, n)
  #endif
}
