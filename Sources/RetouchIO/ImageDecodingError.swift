// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Why a photo could not be decoded (or was decoded with losses the caller refused).
///
/// Messages read `<source>: <kind>: <detail>`, e.g.
/// `IMG_0042.jpg: truncated file: scan data stops at byte 1204331, after row 2911 of 4000.`
public struct ImageDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The kind of failure; new kinds may be added, so `switch` with a default.
  public struct Kind: Hashable, Sendable, CustomStringConvertible {
    public let label: String
    public var description: String { label }
    /// The bytes are empty.
    public static let empty = Kind(label: "empty file")
    /// The bytes are not a format Retouch reads (or not an image at all).
    public static let unsupportedFormat = Kind(label: "unsupported format")
    /// A format Retouch reads, in a variant it does not (e.g. 12-bit JPEG, arithmetic coding).
    public static let unsupportedVariant = Kind(label: "unsupported variant")
    /// The file ends before the image data does.
    public static let truncated = Kind(label: "truncated file")
    /// The data is malformed.
    public static let corrupt = Kind(label: "corrupt data")
    /// Width × height exceeds ``DecodeOptions/maxPixels`` (checked before any allocation).
    public static let tooLarge = Kind(label: "image too large")
    /// The codec warned and ``DecodeOptions/strictness`` refuses warnings.
    public static let warning = Kind(label: "decoder warning")
    /// The file could not be read from disk.
    public static let unreadable = Kind(label: "unreadable file")
  }

  public let kind: Kind
  /// The file name, or `<memory>`.
  public let source: String
  /// One sentence: what went wrong, with the byte offset and the C library's message if known.
  public let detail: String

  public init(_ kind: Kind, source: String, detail: String) {
    self.kind = kind
    self.source = source
    self.detail = detail
  }

  public var description: String { "\(source): \(kind.label): \(detail)" }
}

/// Why an image could not be encoded.
public struct ImageEncodingError: Error, Sendable, Hashable, CustomStringConvertible {
  public struct Kind: Hashable, Sendable, CustomStringConvertible {
    public let label: String
    public var description: String { label }
    /// The format cannot be written by this build (e.g. no HEVC encoder in libheif).
    public static let unsupportedFormat = Kind(label: "unsupported output format")
    /// A parameter is out of range (quality outside 1...100, size too large for the format).
    public static let invalidParameter = Kind(label: "invalid parameter")
    /// The C encoder failed.
    public static let encoderFailed = Kind(label: "encoder failed")
    /// The output could not be written to disk.
    public static let unwritable = Kind(label: "unwritable output")
  }

  public let kind: Kind
  /// The output file name, or `<memory>`.
  public let destination: String
  public let detail: String

  public init(_ kind: Kind, destination: String = "<memory>", detail: String) {
    self.kind = kind
    self.destination = destination
    self.detail = detail
  }

  public var description: String { "\(destination): \(kind.label): \(detail)" }

  /// Writing to `url` failed with `error` (from Foundation's file writing): names a missing
  /// folder, or a path that runs through a file, where Foundation says only that "the file
  /// doesn't exist"; otherwise keeps the system's reason.
  public static func unwritable(_ url: URL, _ error: any Error) -> ImageEncodingError {
    let folder = url.deletingLastPathComponent().path
    var isDirectory: ObjCBool = false
    let detail =
      if !FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) {
        "its folder \(folder) does not exist."
      } else if !isDirectory.boolValue {
        "\(folder) is a file, not a folder."
      } else {
        (error as NSError).localizedDescription
      }
    return ImageEncodingError(.unwritable, destination: url.lastPathComponent, detail: detail)
  }
}
