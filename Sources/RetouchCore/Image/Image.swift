// SPDX-License-Identifier: Apache-2.0

/// An interleaved RGB or RGBA raster, 8 or 16 bits per component, with copy-on-write storage.
///
/// Rows are tightly packed (`bytesPerRow == width × format.bytesPerPixel`), top row first.
/// Copies share storage until one of them is mutated. The pixels are display-referred values in
/// ``colorSpace``; images from `RetouchIO` decoders are upright unless asked otherwise.
public struct Image: Sendable {
  public let width: Int
  public let height: Int
  public let format: PixelFormat
  /// The colour space the component values are encoded in.
  public var colorSpace: ColorSpace
  var storage: ImageStorage

  /// Creates an image with every component zero (black, transparent when there is alpha).
  ///
  /// Traps when `width` or `height` is not positive or the byte count overflows: callers that
  /// size images from input check against a pixel limit first.
  public init(width: Int, height: Int, format: PixelFormat, colorSpace: ColorSpace = .sRGB) {
    self.init(width: width, height: height, format: format, colorSpace: colorSpace, zeroed: true)
  }

  /// Creates an image whose bytes are left uninitialised, for code that writes every byte.
  public init(
    uninitializedWidth width: Int, height: Int, format: PixelFormat,
    colorSpace: ColorSpace = .sRGB
  ) {
    self.init(width: width, height: height, format: format, colorSpace: colorSpace, zeroed: false)
  }

  private init(width: Int, height: Int, format: PixelFormat, colorSpace: ColorSpace, zeroed: Bool) {
    precondition(
      width > 0 && height > 0, "image dimensions must be positive, got \(width)×\(height)")
    let (rowBytes, o1) = width.multipliedReportingOverflow(by: format.bytesPerPixel)
    let (total, o2) = rowBytes.multipliedReportingOverflow(by: height)
    precondition(!o1 && !o2, "image byte size overflows: \(width)×\(height)")
    self.width = width
    self.height = height
    self.format = format
    self.colorSpace = colorSpace
    storage = ImageStorage(byteCount: total, zeroed: zeroed)
  }

  /// Creates an image from packed bytes (`width × height × bytesPerPixel` of them; 16-bit
  /// components native-endian).
  public init<C: Collection>(
    width: Int, height: Int, format: PixelFormat, colorSpace: ColorSpace = .sRGB, bytes: C
  ) where C.Element == UInt8 {
    self.init(uninitializedWidth: width, height: height, format: format, colorSpace: colorSpace)
    precondition(
      bytes.count == storage.byteCount, "expected \(storage.byteCount) bytes, got \(bytes.count)")
    let dst = storage.pointer.assumingMemoryBound(to: UInt8.self)
    var i = 0
    for b in bytes {
      dst[i] = b
      i += 1
    }
  }

  /// Bytes per row (no padding).
  public var bytesPerRow: Int { width * format.bytesPerPixel }
  /// Total bytes of pixel data.
  public var byteCount: Int { storage.byteCount }
  /// Width × height.
  public var pixelCount: Int { width * height }
  /// The size in pixels.
  public var size: PixelSize { PixelSize(width: width, height: height) }

  /// Calls `body` with the packed pixel bytes.
  public func withUnsafeBytes<R, E: Error>(
    _ body: (UnsafeRawBufferPointer) throws(E) -> R
  ) throws(E) -> R {
    try body(UnsafeRawBufferPointer(start: storage.pointer, count: storage.byteCount))
  }

  /// Calls `body` with the pixel bytes for writing, first un-sharing the storage if needed.
  public mutating func withUnsafeMutableBytes<R, E: Error>(
    _ body: (UnsafeMutableRawBufferPointer) throws(E) -> R
  ) throws(E) -> R {
    if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
    storage.version &+= 1
    return try body(UnsafeMutableRawBufferPointer(start: storage.pointer, count: storage.byteCount))
  }

  /// The components of one pixel as integers (0...255 or 0...65535). Slow; for tests and tools.
  public func pixel(x: Int, y: Int) -> [Int] {
    precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) outside image")
    let n = format.channelCount
    let offset = (y * width + x) * n
    if format.bitDepth == 8 {
      let p = storage.pointer.assumingMemoryBound(to: UInt8.self)
      return (0..<n).map { Int(p[offset + $0]) }
    } else {
      let p = storage.pointer.assumingMemoryBound(to: UInt16.self)
      return (0..<n).map { Int(p[offset + $0]) }
    }
  }

  /// Sets one pixel's components. Slow; for tests and tools.
  public mutating func setPixel(x: Int, y: Int, _ components: [Int]) {
    precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) outside image")
    let n = format.channelCount
    precondition(components.count == n, "expected \(n) components")
    let offset = (y * width + x) * n
    let eightBit = format.bitDepth == 8
    let maxValue = format.maxValue
    withUnsafeMutableBytes { raw in
      for c in 0..<n {
        let v = min(max(components[c], 0), maxValue)
        if eightBit {
          raw.storeBytes(of: UInt8(v), toByteOffset: offset + c, as: UInt8.self)
        } else {
          raw.storeBytes(of: UInt16(v), toByteOffset: (offset + c) * 2, as: UInt16.self)
        }
      }
    }
  }

  /// Whether this value is the only one holding its pixels, so mutating it will not copy them
  /// (false while a caller keeps another copy, e.g. the source an editor re-renders).
  package mutating func holdsUniqueStorage() -> Bool { isKnownUniquelyReferenced(&storage) }

  /// Names the current pixel contents: equal identities mean equal pixels (the same block,
  /// not written since). For caches of values derived from the pixels (e.g. a tone guide).
  package var contentIdentity: ImageContentIdentity {
    ImageContentIdentity(
      serial: storage.serial, version: storage.version, size: size, format: format)
  }

  /// Whether both images have the same size, format, colour space and bytes.
  public func hasSamePixels(as other: Image) -> Bool {
    guard width == other.width, height == other.height, format == other.format,
      colorSpace == other.colorSpace
    else { return false }
    if storage === other.storage { return true }
    return memcmp(storage.pointer, other.storage.pointer, storage.byteCount) == 0
  }
}

/// A size in whole pixels.
public struct PixelSize: Hashable, Sendable, Codable, CustomStringConvertible {
  public var width: Int
  public var height: Int
  public init(width: Int, height: Int) {
    self.width = width
    self.height = height
  }
  public var pixelCount: Int { width * height }
  public var longEdge: Int { max(width, height) }
  public var description: String { "\(width)×\(height)" }
  /// The size with width and height exchanged.
  public var transposed: PixelSize { PixelSize(width: height, height: width) }

  /// The largest size with this aspect ratio whose long edge is at most `maxLongEdge`
  /// (never larger than `self`, never smaller than 1×1).
  public func fitting(longEdge maxLongEdge: Int) -> PixelSize {
    guard longEdge > maxLongEdge, maxLongEdge > 0 else { return self }
    let s = Double(maxLongEdge) / Double(longEdge)
    return PixelSize(
      width: max(1, Int((Double(width) * s).rounded())),
      height: max(1, Int((Double(height) * s).rounded())))
  }
}

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#elseif canImport(Musl)
  import Musl
#endif

/// See `Image.contentIdentity`.
package struct ImageContentIdentity: Hashable, Sendable {
  let serial: UInt64
  let version: UInt64
  let size: PixelSize
  let format: PixelFormat
}
