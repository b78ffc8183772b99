// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import Testing

@testable import RetouchIO

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

@Suite("Output file written in place of its destination")
struct OutputFileTests {
  /// A fresh directory for one test, removed after it.
  static func withDirectory(_ body: (URL) throws -> Void) throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("output-file-\(UInt64.random(in: 0...UInt64.max))")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    try body(directory)
  }

  static func names(in directory: URL) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
  }

  static func put(_ text: String, into file: OutputFile) {
    let bytes = Array(text.utf8)
    #expect(
      bytes.withUnsafeBytes { write(file.fileDescriptor, $0.baseAddress, $0.count) } == bytes.count)
  }

  /// `photo.jpg` in `directory`, holding "old".
  static func oldPhoto(in directory: URL) throws -> URL {
    let destination = directory.appendingPathComponent("photo.jpg")
    try Data("old".utf8).write(to: destination)
    return destination
  }

  @Test func commitReplacesTheDestinationWhole() throws {
    try Self.withDirectory { directory in
      let destination = try Self.oldPhoto(in: directory)
      let file = try OutputFile(replacing: destination)
      Self.put("new bytes", into: file)
      // Until the commit the destination is the old file, the new one beside it.
      #expect(try String(contentsOf: destination, encoding: .utf8) == "old")
      #expect(try Self.names(in: directory).count == 2)
      try file.commit()
      #expect(try String(contentsOf: destination, encoding: .utf8) == "new bytes")
      #expect(try Self.names(in: directory) == ["photo.jpg"])
    }
  }

  @Test func discardingOrDroppingLeavesTheDestination() throws {
    try Self.withDirectory { directory in
      let destination = try Self.oldPhoto(in: directory)
      try OutputFile(replacing: destination).discard()
      let file = try OutputFile(replacing: destination)
      Self.put("half of it", into: file)
      file.discard()
      do {
        let dropped = try OutputFile(replacing: destination)
        Self.put("also abandoned", into: dropped)
      }
      #expect(try String(contentsOf: destination, encoding: .utf8) == "old")
      #expect(try Self.names(in: directory) == ["photo.jpg"])
      // A new destination that was never committed does not appear.
      let other = directory.appendingPathComponent("new.jpg")
      try OutputFile(replacing: other).discard()
      #expect(try Self.names(in: directory) == ["photo.jpg"])
    }
  }

  @Test func aDirectoryThatCannotTakeTheFileIsUnwritable() {
    let destination = URL(fileURLWithPath: "/nonexistent-\(UInt32.random(in: 0...9999))/a.jpg")
    #expect {
      try OutputFile(replacing: destination)
    } throws: { error in
      guard let error = error as? ImageEncodingError else { return false }
      return error.kind == .unwritable && error.detail.contains("No such file")
    }
  }

  /// An encoder whose file fails to take the bytes stops with an unwritable-output error that
  /// says why, and the destination is left alone.
  @Test func anEncoderThatCannotWriteSaysWhy() throws {
    try Self.withDirectory { directory in
      let destination = directory.appendingPathComponent("photo.jpg")
      let file = try OutputFile(replacing: destination)
      // Every write now fails: the descriptor is made a read-only one (of /dev/null). Closing
      // it instead let a file another test opened meanwhile take its number and the JPEG's
      // bytes (a library's database did, and read as a disk I/O error).
      let readOnly = open("/dev/null", O_RDONLY)
      try #require(readOnly >= 0)
      defer { close(readOnly) }
      try #require(dup2(readOnly, file.fileDescriptor) == file.fileDescriptor)
      let width = 640
      let height = 480
      var rows = [UInt8](repeating: 0, count: width * height * 3)
      for i in rows.indices { rows[i] = UInt8(truncatingIfNeeded: i &* 2_654_435_761 >> 13) }
      #expect {
        let encoder = try JPEGRowEncoder(
          width: width, height: height, colorSpace: .sRGB, writingTo: file)
        try rows.withUnsafeBufferPointer { (p) throws(ImageEncodingError) in
          try encoder.writeRows(p.baseAddress!, stride: width * 3, count: height)
        }
        _ = try encoder.finishWritingFile()
      } throws: { error in
        guard let error = error as? ImageEncodingError else { return false }
        return error.kind == .unwritable && error.detail.contains("Bad file descriptor")
      }
      file.discard()
      #expect(try Self.names(in: directory) == [])
    }
  }
}
