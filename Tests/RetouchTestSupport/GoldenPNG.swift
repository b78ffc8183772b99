// SPDX-License-Identifier: Apache-2.0

import CPNG
import Foundation
import RetouchCore

/// Reads and writes the 16-bit RGB PNGs that hold golden images, through libpng directly (never
/// through RetouchIO's codec, which is itself under test), storing component values verbatim.
///
/// **Writing** uses libpng's full API with 16-bit RGB rows (big-endian, as PNG stores them) and
/// no colour chunk (`gAMA`, `sRGB`, `iCCP`, `cHRM`): viewers take such a file as sRGB, which is
/// what the values are. The simplified API is not used for writing because its 16-bit formats
/// are "linear": it would tag the file `gAMA 1.0` and viewers would show the golden washed out.
///
/// **Reading** uses the simplified API (`png_image_*`; errors come back in `png_image.message`,
/// no `setjmp` needed) with `PNG_FORMAT_LINEAR_RGB`. For a 16-bit file without colour chunks
/// libpng assumes linear data (unless `PNG_IMAGE_FLAG_16BIT_sRGB` is set, which we never set), so
/// the requested linear output needs no conversion and the values come back exactly as stored.
/// Files with a colour chunk or fewer than 16 bits would be converted, so they are rejected;
/// the round-trip test in RetouchRenderTests checks a full 0…65535 ramp.
///
/// Goldens are RGB: alpha is not stored (``write(_:to:)`` traps on an image with alpha).
public enum GoldenPNG {
  /// A golden file that could not be read or written.
  public struct FileError: Error, CustomStringConvertible {
    public let path: String
    public let detail: String
    public var description: String { "\(path): \(detail)" }
  }

  /// Writes `image` (RGB, 8 or 16-bit; 8-bit values are widened by ×257) as a 16-bit RGB PNG.
  ///
  /// - Throws: ``FileError`` when the file cannot be written. libpng's own errors can only come
  ///   from bad parameters (ruled out by the preconditions) or out of memory, and trap.
  public static func write(_ image: Image, to url: URL) throws(FileError) {
    let data = encode(image)
    do {
      try FileManager.default.createDirectory(
        at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
      try data.write(to: url)
    } catch {
      throw FileError(path: url.path, detail: "cannot write: \(error)")
    }
  }

  /// The PNG bytes of `image` (see ``write(_:to:)``).
  public static func encode(_ image: Image) -> Data {
    precondition(!image.format.hasAlpha, "goldens are RGB; drop alpha first")
    precondition(image.width < 1 << 24 && image.height < 1 << 24)
    let sink = PNGSink()
    guard let png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nil, pngError, pngWarning)
    else { preconditionFailure("png_create_write_struct failed (out of memory)") }
    var pngOptional: png_structp? = png
    var info = png_create_info_struct(png)
    guard info != nil else {
      png_destroy_write_struct(&pngOptional, nil)
      preconditionFailure("png_create_info_struct failed (out of memory)")
    }
    let unmanaged = Unmanaged.passRetained(sink)
    defer { unmanaged.release() }
    png_set_write_fn(png, unmanaged.toOpaque(), pngWrite, pngFlush)
    png_set_compression_level(png, 9)
    png_set_IHDR(
      png, info, png_uint_32(image.width), png_uint_32(image.height), 16, PNG_COLOR_TYPE_RGB,
      PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT)
    png_write_info(png, info)
    var row = [UInt8](repeating: 0, count: image.width * 6)
    let sixteen = image.format.bitDepth == 16
    image.withUnsafeBytes { raw in
      for y in 0..<image.height {
        for i in 0..<(image.width * 3) {
          let v: UInt16
          if sixteen {
            v = raw.load(fromByteOffset: (y * image.width * 3 + i) * 2, as: UInt16.self)
          } else {
            v = UInt16(raw[y * image.width * 3 + i]) * 257
          }
          row[2 * i] = UInt8(v >> 8)
          row[2 * i + 1] = UInt8(v & 0xFF)
        }
        row.withUnsafeMutableBufferPointer { png_write_row(png, $0.baseAddress) }
      }
    }
    png_write_end(png, nil)
    png_destroy_write_struct(&pngOptional, &info)
    return sink.data
  }

  /// Reads a 16-bit RGB PNG written by ``write(_:to:)`` as an `.rgb16` image tagged `colorSpace`.
  ///
  /// - Throws: ``FileError`` when the file is missing, not a PNG, not 16-bit RGB, carries a
  ///   colour chunk (libpng would convert the values), or libpng reports an error.
  public static func read(_ url: URL, colorSpace: ColorSpace = .sRGB) throws(FileError) -> Image {
    let data: Data
    do { data = try Data(contentsOf: url) } catch {
      throw FileError(path: url.path, detail: "cannot read: \(error)")
    }
    return try decode(data, path: url.path, colorSpace: colorSpace)
  }

  /// Decodes PNG bytes (see ``read(_:colorSpace:)``).
  public static func decode(_ data: Data, path: String = "<memory>", colorSpace: ColorSpace = .sRGB)
    throws(FileError) -> Image
  {
    let chunks = chunkTypes(data)
    for bad in ["gAMA", "sRGB", "iCCP", "cHRM"] where chunks.contains(bad) {
      throw FileError(
        path: path, detail: "has a \(bad) chunk; golden values must be stored verbatim.")
    }
    var image = png_image()
    image.version = png_uint_32(PNG_IMAGE_VERSION)
    defer { png_image_free(&image) }
    let begun = data.withUnsafeBytes { raw in
      png_image_begin_read_from_memory(&image, raw.baseAddress, raw.count)
    }
    guard begun != 0 else { throw FileError(path: path, detail: "libpng: \(message(image))") }
    let isLinear = image.format & png_uint_32(PNG_FORMAT_FLAG_LINEAR) != 0
    let isColor = image.format & png_uint_32(PNG_FORMAT_FLAG_COLOR) != 0
    let hasAlpha = image.format & png_uint_32(PNG_FORMAT_FLAG_ALPHA) != 0
    guard isLinear, isColor, !hasAlpha else {
      throw FileError(path: path, detail: "not a 16-bit RGB PNG (format flags \(image.format)).")
    }
    let width = Int(image.width)
    let height = Int(image.height)
    guard width > 0, height > 0, width * height <= 1 << 26 else {
      throw FileError(path: path, detail: "bad size \(width)×\(height).")
    }
    image.format = png_uint_32(PNG_FORMAT_LINEAR_RGB)
    var pixels = [UInt16](repeating: 0, count: width * height * 3)
    let finished = pixels.withUnsafeMutableBytes { buf in
      // The row stride is in components, not bytes.
      png_image_finish_read(&image, nil, buf.baseAddress, png_int_32(width * 3), nil)
    }
    guard finished != 0 else { throw FileError(path: path, detail: "libpng: \(message(image))") }
    let bytes = pixels.withUnsafeBytes { Array($0) }
    return Image(width: width, height: height, format: .rgb16, colorSpace: colorSpace, bytes: bytes)
  }

  /// The chunk types in file order (stops at the first malformed length).
  public static func chunkTypes(_ data: Data) -> [String] {
    let bytes = [UInt8](data)
    var types: [String] = []
    var i = 8
    while i + 8 <= bytes.count {
      let length = bytes[i..<(i + 4)].reduce(0) { $0 << 8 | Int($1) }
      types.append(String(decoding: bytes[(i + 4)..<(i + 8)], as: UTF8.self))
      let next = i + 12 + length
      guard length >= 0, next > i else { break }
      i = next
    }
    return types
  }

  static func message(_ image: png_image) -> String {
    withUnsafeBytes(of: image.message) { raw in
      String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
    }
  }
}

/// The bytes libpng writes, collected in memory.
private final class PNGSink {
  var data = Data()
}

private let pngWrite: @convention(c) (png_structp?, png_bytep?, Int) -> Void = {
  png, bytes, count in
  guard let png, let bytes, let io = png_get_io_ptr(png) else { return }
  Unmanaged<PNGSink>.fromOpaque(io).takeUnretainedValue().data.append(bytes, count: count)
}

private let pngFlush: @convention(c) (png_structp?) -> Void = { _ in }

/// libpng's error callback must not return; without a `setjmp` (which Swift cannot arm) the only
/// way out is to stop. Writing a golden can fail only on out-of-memory or bad parameters, which
/// the preconditions rule out.
private let pngError: @convention(c) (png_structp?, png_const_charp?) -> Void = { _, message in
  let text = message.map { String(cString: $0) } ?? "unknown error"
  fatalError("libpng error while writing a golden: \(text)")
}

private let pngWarning: @convention(c) (png_structp?, png_const_charp?) -> Void = { _, _ in }
