// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A container format, as recognised from a file's first bytes.
public enum ImageFormat: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible
{
  case jpeg, png, heif, avif, tiff, webp, gif, bmp

  public var description: String {
    switch self {
    case .jpeg: "JPEG"
    case .png: "PNG"
    case .heif: "HEIF"
    case .avif: "AVIF"
    case .tiff: "TIFF"
    case .webp: "WebP"
    case .gif: "GIF"
    case .bmp: "BMP"
    }
  }

  /// Whether ``ImageDecoder`` decodes the format (GIF and BMP are recognised, not decoded).
  /// Callers that take photos in (a library import, an upload) check this rather than keep
  /// their own list.
  public var isDecoded: Bool {
    switch self {
    case .jpeg, .png, .heif, .avif, .tiff, .webp: true
    case .gif, .bmp: false
    }
  }

  /// Every file extension a photo in the format goes by (lower case, without the dot), the
  /// usual one first.
  public var fileExtensions: [String] {
    switch self {
    case .jpeg: ["jpg", "jpeg", "jpe"]
    case .png: ["png"]
    case .heif: ["heic", "heif", "hif"]
    case .avif: ["avif"]
    case .tiff: ["tif", "tiff"]
    case .webp: ["webp"]
    case .gif: ["gif"]
    case .bmp: ["bmp"]
    }
  }

  /// The extensions of every format the decoder reads (``isDecoded``): what a folder of photos
  /// is searched for. A file is still judged by its first bytes once opened.
  public static let decodedFileExtensions: Set<String> = Set(
    allCases.filter(\.isDecoded).flatMap(\.fileExtensions))

  /// The usual file extension (without the dot): the first of ``fileExtensions``.
  public var fileExtension: String { fileExtensions[0] }

  /// Recognises the format from the first bytes (at least 12 are needed for HEIF/WebP), never
  /// from a file name. Returns `nil` for anything that is not an image container we know.
  public static func sniff<C: Collection>(_ bytes: C) -> ImageFormat? where C.Element == UInt8 {
    let b = Array(bytes.prefix(32))
    func at(_ i: Int, _ sig: [UInt8]) -> Bool {
      b.count >= i + sig.count && Array(b[i..<(i + sig.count)]) == sig
    }
    if at(0, [0xFF, 0xD8, 0xFF]) { return .jpeg }
    if at(0, [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
    if at(0, Array("II*\0".utf8)) || at(0, Array("MM\0*".utf8)) { return .tiff }
    if at(0, Array("RIFF".utf8)) && at(8, Array("WEBP".utf8)) { return .webp }
    if at(0, Array("GIF87a".utf8)) || at(0, Array("GIF89a".utf8)) { return .gif }
    if at(0, Array("BM".utf8)) && b.count >= 14 { return .bmp }
    if at(4, Array("ftyp".utf8)) && b.count >= 12 {
      let major = String(decoding: b[8..<12], as: UTF8.self)
      if ["avif", "avis"].contains(major) { return .avif }
      if ["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1", "miaf", "MiHE"].contains(
        major)
      {
        // mif1/msf1 files may still carry AV1: look at the compatible brands.
        if ["mif1", "msf1", "miaf"].contains(major), b.count >= 16 {
          var i = 16
          var brands: [String] = []
          while i + 4 <= b.count {
            brands.append(String(decoding: b[i..<(i + 4)], as: UTF8.self))
            i += 4
          }
          if brands.contains("avif")
            && !brands.contains(where: { $0.hasPrefix("hei") || $0.hasPrefix("hev") })
          {
            return .avif
          }
        }
        return .heif
      }
    }
    return nil
  }

  /// A short hex rendering of the first bytes, for error messages ("starts with 89 50 4E 47").
  public static func leadingHex<C: Collection>(_ bytes: C, count: Int = 4) -> String
  where C.Element == UInt8 {
    bytes.prefix(count).map { String(format: "%02X", $0) }.joined(separator: " ")
  }
}
