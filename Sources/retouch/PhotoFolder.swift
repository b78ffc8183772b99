// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchIO

/// A folder of photos that a command (`match`, `auto`) works through one photo at a time.
struct PhotoFolder {
  /// The folder.
  let url: URL
  /// Its photos (files in a format the decoder reads, by extension, not hidden), by name.
  let photos: [URL]

  /// The folder at `url`, or nil when `url` is a file; a missing path is an error.
  static func at(_ url: URL) throws(CLIError) -> PhotoFolder? {
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) else {
      throw CLIError(
        code: .noInput,
        message: "\(url.lastPathComponent): unreadable file: no such file or folder.")
    }
    guard isFolder.boolValue else { return nil }
    let names: [String]
    do {
      names = try FileManager.default.contentsOfDirectory(atPath: url.path)
    } catch {
      throw CLIError(
        code: .noInput,
        message: "\(url.lastPathComponent): unreadable folder: \(error.localizedDescription)")
    }
    let photos = names.filter {
      !$0.hasPrefix(".")
        && ImageFormat.decodedFileExtensions.contains(($0 as NSString).pathExtension.lowercased())
    }.sorted().map { url.appendingPathComponent($0) }
    return PhotoFolder(url: url, photos: photos)
  }

  /// Creates the output folder `output` (refusing this folder itself: the originals are never
  /// replaced).
  func makeOutputFolder(_ output: URL) throws(CLIError) {
    try ConvertCommand.refuseOverwriting(url, with: output)
    do {
      try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
    } catch {
      throw CLIError(
        code: .cantCreate,
        message:
          "\(output.lastPathComponent): cannot create the output folder: "
          + error.localizedDescription)
    }
  }

  /// Runs `body` on every photo in turn, with a progress line on stderr when it is a terminal.
  /// A photo that fails is reported (as `retouch COMMAND: …`) and the rest still run.
  ///
  /// - Returns: the number of photos that failed and the exit code of the first failure
  ///   (0 when none failed).
  func forEachPhoto(
    command: String, _ body: (URL) throws(CLIError) -> Void
  ) -> (failed: Int, exitCode: Int32) {
    let progress = Terminal.stderrIsTerminal
    var failed = 0
    var firstFailure: CLIError?
    for (i, photo) in photos.enumerated() {
      if progress {
        FileHandle.standardError.write(
          Data("\r\u{1B}[K[\(i + 1)/\(photos.count)] \(photo.lastPathComponent)".utf8))
      }
      do {
        try body(photo)
      } catch {
        if progress { FileHandle.standardError.write(Data("\n".utf8)) }
        Terminal.error("retouch \(command): \(error.message)")
        failed += 1
        if firstFailure == nil { firstFailure = error }
      }
    }
    if progress { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
    return (failed, firstFailure?.code.rawValue ?? 0)
  }
}
