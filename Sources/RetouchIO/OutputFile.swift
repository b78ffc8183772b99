// SPDX-License-Identifier: Apache-2.0

import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A file being written in place of `destination`: the bytes go to a new file beside it (same
/// directory, so the same file system), which ``commit()`` renames over the destination in one
/// step. Whoever reads the destination sees the old file or the whole new one, never a part;
/// a write that fails or is abandoned (``discard()``, or the object going away uncommitted)
/// removes the new file and leaves the destination as it was.
///
/// An encoder can write to ``fileDescriptor`` while it runs (see `JPEGRowEncoder`'s
/// `writingTo:`), so the file is written as the bytes are made rather than after them.
///
/// When the destination exists, ``commit()`` flushes the new file to the disk before renaming,
/// so a crash cannot leave the old file replaced by an incomplete one; a new destination is not
/// flushed (a crash can only leave it incomplete, and nothing is lost).
///
/// Not thread-safe: one writer, one committer.
public final class OutputFile {
  /// Where the file ends up.
  public let destination: URL
  /// The descriptor of the new file, open for writing.
  public let fileDescriptor: Int32
  private let temporaryPath: String
  private var finished = false

  /// Creates the new file beside `destination` (readable as the process's umask allows).
  ///
  /// - Throws: ``ImageEncodingError/Kind/unwritable`` when the directory cannot take it.
  public init(replacing destination: URL) throws(ImageEncodingError) {
    self.destination = destination
    let name = destination.lastPathComponent
    let directory = destination.deletingLastPathComponent().path
    var path = ""
    var fd: Int32 = -1
    // A fresh random name a few times over: another writer may have just taken one.
    for _ in 0..<8 {
      let suffix = String(UInt64.random(in: 0...UInt64.max), radix: 36)
      path = directory + "/." + name + "." + suffix + ".partial"
      fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
      if fd >= 0 || errno != EEXIST { break }
    }
    guard fd >= 0 else {
      throw ImageEncodingError(
        .unwritable, destination: name, detail: "cannot create a file beside it: \(Self.reason()).")
    }
    fileDescriptor = fd
    temporaryPath = path
  }

  deinit { discard() }

  /// Puts the written file in the destination's place.
  ///
  /// - Throws: ``ImageEncodingError/Kind/unwritable`` when it cannot be flushed or renamed
  ///   (the new file is then removed and the destination left as it was).
  public func commit() throws(ImageEncodingError) {
    precondition(!finished, "committed or discarded already")
    let name = destination.lastPathComponent
    if FileManager.default.fileExists(atPath: destination.path), fsync(fileDescriptor) != 0 {
      let reason = Self.reason()
      discard()
      throw ImageEncodingError(.unwritable, destination: name, detail: "flushing: \(reason).")
    }
    if close(fileDescriptor) != 0 {
      let reason = Self.reason()
      finished = true
      unlink(temporaryPath)
      throw ImageEncodingError(.unwritable, destination: name, detail: "closing: \(reason).")
    }
    finished = true
    if rename(temporaryPath, destination.path) != 0 {
      let reason = Self.reason()
      unlink(temporaryPath)
      throw ImageEncodingError(.unwritable, destination: name, detail: "\(reason).")
    }
  }

  /// Removes the new file; the destination is left as it was. Does nothing once committed.
  public func discard() {
    guard !finished else { return }
    finished = true
    close(fileDescriptor)
    unlink(temporaryPath)
  }

  private static func reason() -> String { String(cString: strerror(errno)) }
}
