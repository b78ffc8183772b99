// SPDX-License-Identifier: Apache-2.0

/// A planar `Float32` raster with 3 (RGB) or 4 (RGBA) planes and copy-on-write storage.
///
/// All planes live in one 64-byte-aligned allocation; plane `c` starts `c × planeStride` floats
/// after the base, and `planeStride` is `width × height` rounded up to a multiple of 16 floats,
/// so every plane is 64-byte aligned too. Rows are packed (`width` floats), top row first.
///
/// Colour planes hold values in ``colorSpace`` either still encoded with the sRGB transfer curve
/// (``Encoding/encoded``, `0...1` for in-range colours) or as linear light
/// (``Encoding/linear``). Alpha (plane 3) is straight, `0...1`, and never transfer-coded. Values
/// outside `0...1` are allowed (wide-gamut conversions produce them) and clamp only when
/// converting back to an integer ``Image``.
public struct PlanarImage: Sendable {
  /// Whether colour planes hold transfer-encoded values or linear light.
  public enum Encoding: String, Hashable, Sendable, Codable {
    /// Values as stored in 8/16-bit images, divided by the maximum code value.
    case encoded
    /// Linear light, decoded with the sRGB transfer function (IEC 61966-2-1).
    case linear
  }

  public let width: Int
  public let height: Int
  /// 3 (RGB) or 4 (RGBA, alpha last).
  public let channelCount: Int
  /// Floats from the start of one plane to the start of the next (a multiple of 16).
  public let planeStride: Int
  /// The colour space the colour planes are in.
  public var colorSpace: ColorSpace
  /// How the colour planes are encoded.
  public var encoding: Encoding
  var storage: ImageStorage

  /// Creates an image with every value zero.
  ///
  /// Traps when a dimension is not positive, `channelCount` is not 3 or 4, or the size overflows.
  public init(
    width: Int, height: Int, channelCount: Int, colorSpace: ColorSpace = .sRGB,
    encoding: Encoding = .encoded
  ) {
    self.init(
      width: width, height: height, channelCount: channelCount, colorSpace: colorSpace,
      encoding: encoding, zeroed: true)
  }

  init(
    width: Int, height: Int, channelCount: Int, colorSpace: ColorSpace, encoding: Encoding,
    zeroed: Bool
  ) {
    precondition(
      width > 0 && height > 0, "image dimensions must be positive, got \(width)×\(height)")
    precondition(channelCount == 3 || channelCount == 4, "channelCount must be 3 or 4")
    let (count, o1) = width.multipliedReportingOverflow(by: height)
    let (padded, o2) = count.addingReportingOverflow(15)
    let stride = padded & ~15
    let (floats, o3) = stride.multipliedReportingOverflow(by: channelCount)
    let (bytes, o4) = floats.multipliedReportingOverflow(by: MemoryLayout<Float>.size)
    precondition(!o1 && !o2 && !o3 && !o4, "planar image size overflows: \(width)×\(height)")
    self.width = width
    self.height = height
    self.channelCount = channelCount
    self.planeStride = stride
    self.colorSpace = colorSpace
    self.encoding = encoding
    storage = ImageStorage(byteCount: bytes, zeroed: zeroed)
  }

  /// The size in pixels.
  public var size: PixelSize { PixelSize(width: width, height: height) }
  /// Width × height.
  public var pixelCount: Int { width * height }
  /// Whether there is an alpha plane.
  public var hasAlpha: Bool { channelCount == 4 }

  /// Calls `body` with the base of the planes (plane `c` at `base + c × planeStride`).
  public func withUnsafeFloats<R, E: Error>(
    _ body: (UnsafePointer<Float>) throws(E) -> R
  ) throws(E) -> R {
    try body(UnsafePointer(storage.pointer.assumingMemoryBound(to: Float.self)))
  }

  /// Calls `body` with the base of the planes for writing, un-sharing the storage first if needed.
  public mutating func withUnsafeMutableFloats<R, E: Error>(
    _ body: (UnsafeMutablePointer<Float>) throws(E) -> R
  ) throws(E) -> R {
    if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
    storage.version &+= 1
    return try body(storage.pointer.assumingMemoryBound(to: Float.self))
  }

  /// One value. Slow; for tests and tools.
  public func value(x: Int, y: Int, channel: Int) -> Float {
    precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) outside image")
    precondition(channel >= 0 && channel < channelCount, "channel \(channel) out of range")
    return withUnsafeFloats { $0[channel * planeStride + y * width + x] }
  }

  /// Sets one value. Slow; for tests and tools.
  public mutating func setValue(_ v: Float, x: Int, y: Int, channel: Int) {
    precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) outside image")
    precondition(channel >= 0 && channel < channelCount, "channel \(channel) out of range")
    let i = channel * planeStride + y * width + x
    withUnsafeMutableFloats { $0[i] = v }
  }
}

// MARK: - Conversions from and to interleaved integer images

extension PlanarImage {
  /// Splits an 8- or 16-bit ``Image`` into planes, keeping the encoded values or decoding them to
  /// linear light.
  ///
  /// Encoded: `v / 255` or `v / 65535`. Linear: the sRGB decode through exact tables (256 entries
  /// for 8-bit, 65,536 for 16-bit; see ``SRGBTables``). Alpha is divided by the maximum code only.
  /// One pass, parallel over row bands (`threads` as in ``ParallelBands``); 3 MP 8-bit RGB took
  /// 12–20 ms on the shared 2-core build machine (release).
  public init(_ image: Image, encoding: Encoding = .encoded, threads: Int? = nil) {
    self.init(
      width: image.width, height: image.height, channelCount: image.format.channelCount,
      colorSpace: image.colorSpace, encoding: encoding, zeroed: false)
    let w = width, n = channelCount, stride = planeStride
    let linear = encoding == .linear
    let eight = image.format.bitDepth == 8
    // Touch the lazy tables here, once, rather than inside every band.
    let table8 = eight ? (linear ? SRGBTables.decode8 : SRGBTables.unit8) : []
    let unit8 = SRGBTables.unit8
    let table16 = !eight && linear ? SRGBTables.decode16 : []
    let dst = SendableRawPointer(storage.pointer)
    image.withUnsafeBytes { raw in
      let src = SendableRawPointer(raw.baseAddress!)
      ParallelBands.forEach(rows: height, threads: threads) { band in
        let d = dst.pointer.assumingMemoryBound(to: Float.self)
        for y in band {
          let o = y * w
          let p0 = d + o, p1 = d + stride + o, p2 = d + 2 * stride + o
          if eight {
            let s = src.pointer.assumingMemoryBound(to: UInt8.self) + o * n
            table8.withUnsafeBufferPointer { t in
              for x in 0..<w {
                p0[x] = t[Int(s[x * n])]
                p1[x] = t[Int(s[x * n + 1])]
                p2[x] = t[Int(s[x * n + 2])]
              }
            }
            if n == 4 {
              let p3 = d + 3 * stride + o
              unit8.withUnsafeBufferPointer { u in
                for x in 0..<w { p3[x] = u[Int(s[x * 4 + 3])] }
              }
            }
          } else {
            let s = src.pointer.assumingMemoryBound(to: UInt16.self) + o * n
            let k: Float = 1 / 65535
            if linear {
              table16.withUnsafeBufferPointer { t in
                for x in 0..<w {
                  p0[x] = t[Int(s[x * n])]
                  p1[x] = t[Int(s[x * n + 1])]
                  p2[x] = t[Int(s[x * n + 2])]
                }
              }
            } else {
              for x in 0..<w {
                p0[x] = Float(s[x * n]) * k
                p1[x] = Float(s[x * n + 1]) * k
                p2[x] = Float(s[x * n + 2]) * k
              }
            }
            if n == 4 {
              let p3 = d + 3 * stride + o
              for x in 0..<w { p3[x] = Float(s[x * 4 + 3]) * k }
            }
          }
        }
      }
    }
  }

  /// Interleaves the planes into an 8- or 16-bit ``Image`` (RGB or RGBA to match the planes).
  ///
  /// Values are clamped to `0...1`, re-encoded with the sRGB curve when ``encoding`` is
  /// ``Encoding/linear`` (``SRGBTables/encodeClamped(_:table:)``, error < 1.3e-7), scaled to the
  /// code range and rounded to nearest (ties to even) with the magic-number trick. Encoded 8-bit
  /// round trips are exact and 16-bit ones exact to within one code value (exact in practice).
  /// Parallel over row bands.
  public func image(bitDepth: Int = 8, threads: Int? = nil) -> Image {
    precondition(bitDepth == 8 || bitDepth == 16, "bit depth must be 8 or 16")
    let format: PixelFormat =
      switch (bitDepth, hasAlpha) {
      case (8, false): .rgb8
      case (8, true): .rgba8
      case (_, false): .rgb16
      case (_, true): .rgba16
      }
    var result = Image(
      uninitializedWidth: width, height: height, format: format, colorSpace: colorSpace)
    let w = width, n = channelCount, stride = planeStride
    let linear = encoding == .linear
    let scale: Float = bitDepth == 8 ? 255 : 65535
    let encodeTable = linear ? SRGBTables.encodeTable : []
    let src = SendableRawPointer(storage.pointer)
    result.withUnsafeMutableBytes { raw in
      let dst = SendableRawPointer(raw.baseAddress!)
      ParallelBands.forEach(rows: height, threads: threads) { band in
        let s = UnsafePointer(src.pointer.assumingMemoryBound(to: Float.self))
        encodeTable.withUnsafeBufferPointer { et in
          // An empty array's buffer may still have a base address: decide on `linear` itself.
          let etp = linear ? et.baseAddress : nil
          for y in band {
            let o = y * w
            for c in 0..<n {
              let p = s + c * stride + o
              let encode = linear && c < 3
              if bitDepth == 8 {
                let d = dst.pointer.assumingMemoryBound(to: UInt8.self) + o * n + c
                storeRow(p, count: w, to: d, step: n, scale: scale, encode: encode ? etp : nil)
              } else {
                let d = dst.pointer.assumingMemoryBound(to: UInt16.self) + o * n + c
                storeRow(p, count: w, to: d, step: n, scale: scale, encode: encode ? etp : nil)
              }
            }
          }
        }
      }
    }
    return result
  }
}

/// Writes `count` floats (clamped to `0...1`, optionally sRGB-encoded) as rounded integer codes
/// `0...scale` to every `step`-th element of `d`.
@inline(__always)
private func storeRow(
  _ p: UnsafePointer<Float>, count: Int, to d: UnsafeMutablePointer<UInt8>, step: Int,
  scale: Float, encode: UnsafePointer<Float>?
) {
  var x = 0
  if let et = encode {
    for i in 0..<count {
      d[i * step] = UInt8(
        truncatingIfNeeded: roundToUInt32(SRGBTables.encodeClamped(p[i], table: et) * scale))
    }
    return
  }
  let zero = SIMD8<Float>(repeating: 0), one = SIMD8<Float>(repeating: 1)
  let k = SIMD8<Float>(repeating: scale)
  let raw = UnsafeRawPointer(p)
  while x + 8 <= count {
    let v = raw.loadUnaligned(fromByteOffset: x * 4, as: SIMD8<Float>.self)
    let r = roundToUInt32(pointwiseMin(pointwiseMax(v, zero), one) * k)
    for i in 0..<8 { d[(x + i) * step] = UInt8(truncatingIfNeeded: r[i]) }
    x += 8
  }
  while x < count {
    d[x * step] = UInt8(truncatingIfNeeded: roundToUInt32(min(max(p[x], 0), 1) * scale))
    x += 1
  }
}

@inline(__always)
private func storeRow(
  _ p: UnsafePointer<Float>, count: Int, to d: UnsafeMutablePointer<UInt16>, step: Int,
  scale: Float, encode: UnsafePointer<Float>?
) {
  if let et = encode {
    for i in 0..<count {
      d[i * step] = UInt16(
        truncatingIfNeeded: roundToUInt32(SRGBTables.encodeClamped(p[i], table: et) * scale))
    }
    return
  }
  for i in 0..<count {
    d[i * step] = UInt16(truncatingIfNeeded: roundToUInt32(min(max(p[i], 0), 1) * scale))
  }
}
