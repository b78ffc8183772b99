// SPDX-License-Identifier: Apache-2.0

extension Image {
  /// The image scaled to `size` with a separable filter (Lanczos-3 by default), antialiased when
  /// shrinking.
  ///
  /// Works on every ``PixelFormat``; the result has this image's format and colour space.
  ///
  /// - Scheme: per axis, output pixel `i` has its centre at `(i + ½) × in/out` in source pixels;
  ///   when shrinking by `f > 1` the kernel is widened by `f`, so Lanczos-3 reads `6f` source
  ///   pixels. When an axis shrinks by more than 3×, the image is first reduced by the integer
  ///   factor `k = ⌊f / 2⌋` with an exact area (box) average of `k × k` blocks (the last partial
  ///   block averages what is there), into a 16-bit intermediate, and the filter does the
  ///   remaining 2–3× — the same two-step scheme as Pillow's `reducing_gap`, cheaper than a wide
  ///   Lanczos and visually the same.
  /// - Colour: by default the filter runs on the gamma-encoded values, like libvips and Pillow.
  ///   With `inLinearLight` it decodes with the sRGB curve first and re-encodes after (avoids
  ///   dark halos on high-contrast edges; costs table look-ups).
  /// - Alpha: RGBA is resampled with premultiplied alpha (colour weighted by alpha), then
  ///   un-premultiplied, so transparent pixels do not bleed their colour.
  /// - Precision: `Float` weights and accumulators; results are rounded to nearest.
  /// - Cost: a horizontal pass into a `Float` intermediate, then a vertical pass, each parallel
  ///   over row bands with per-band scratch only (nothing allocated per row). Results do not
  ///   depend on the thread count. Measured on the 2-core build machine (Xeon, 2.3 GHz, AVX-512,
  ///   shared with other builds), release build, 2016×1512 → 1080×810 8-bit RGB Lanczos-3:
  ///   12 ms best / 16 ms median of 40 runs with 2 threads on a quiet moment, ~21 ms of CPU
  ///   time on one thread; 35–50 ms wall when other jobs held the cores.
  ///
  /// Traps when `size` is not positive (a programming error, not input-driven).
  public func resized(
    to size: PixelSize, filter: ResamplingFilter = .lanczos3, inLinearLight: Bool = false,
    threads: Int? = nil
  ) -> Image {
    precondition(size.width > 0 && size.height > 0, "target size must be positive, got \(size)")
    if size == self.size { return self }
    var source = self
    var extentX = Double(width), extentY = Double(height)
    let fx = Double(width) / Double(size.width), fy = Double(height) / Double(size.height)
    if filter != .box && (fx > 3 || fy > 3) {
      let kx = fx > 3 ? Int(fx / 2) : 1
      let ky = fy > 3 ? Int(fy / 2) : 1
      let rw = (width + kx - 1) / kx, rh = (height + ky - 1) / ky
      let wx = ResamplingWeights(filter: .box, inCount: width, outCount: rw, scale: Double(kx))
      let wy = ResamplingWeights(filter: .box, inCount: height, outCount: rh, scale: Double(ky))
      source = Resampler.run(
        self, x: wx, y: wy, format: format.withBitDepth(16), linear: inLinearLight,
        threads: threads)
      extentX = Double(width) / Double(kx)
      extentY = Double(height) / Double(ky)
    }
    let wx = ResamplingWeights(
      filter: filter, inCount: source.width, outCount: size.width,
      scale: extentX / Double(size.width))
    let wy = ResamplingWeights(
      filter: filter, inCount: source.height, outCount: size.height,
      scale: extentY / Double(size.height))
    return Resampler.run(
      source, x: wx, y: wy, format: format, linear: inLinearLight, threads: threads)
  }

  /// The image scaled so its long edge is `longEdge` pixels, keeping the aspect ratio (each side
  /// at least 1 pixel, rounded to nearest).
  ///
  /// Returns the image unchanged when it already fits, unless `allowingUpscale` is true, in which
  /// case smaller images are enlarged (for thumbnails of small originals). Same filter, colour
  /// and cost notes as ``resized(to:filter:inLinearLight:threads:)``.
  public func resized(
    toFitLongEdge longEdge: Int, allowingUpscale: Bool = false,
    filter: ResamplingFilter = .lanczos3, inLinearLight: Bool = false, threads: Int? = nil
  ) -> Image {
    precondition(longEdge > 0, "long edge must be positive, got \(longEdge)")
    if size.longEdge <= longEdge && !allowingUpscale { return self }
    let s = Double(longEdge) / Double(size.longEdge)
    let target = PixelSize(
      width: max(1, Int((Double(width) * s).rounded())),
      height: max(1, Int((Double(height) * s).rounded())))
    return resized(to: target, filter: filter, inLinearLight: inLinearLight, threads: threads)
  }
}

/// The separable two-pass kernel behind ``Image/resized(to:filter:inLinearLight:threads:)``.
enum Resampler {
  /// Resamples `src` with the given per-axis weights into a new image of `format` (same channel
  /// count as `src`, any depth).
  static func run(
    _ src: Image, x wx: ResamplingWeights, y wy: ResamplingWeights, format: PixelFormat,
    linear: Bool, threads: Int?
  ) -> Image {
    precondition(format.channelCount == src.format.channelCount, "channel count must match")
    let n = src.format.channelCount
    let srcW = src.width
    let dstW = wx.outCount, dstH = wy.outCount
    // Intermediate rows: dstW × n floats, +1 so an RGB pixel can be stored as a whole SIMD4,
    // rounded up to 8 floats so the vertical pass runs whole SIMD8 vectors.
    let interStride = (dstW * n + 1 + 7) & ~7
    let eight = src.format.bitDepth == 8
    let colorTable: [Float] =
      eight ? (linear ? SRGBTables.decode8 : SRGBTables.unit8) : (linear ? SRGBTables.decode16 : [])
    let unit8 = SRGBTables.unit8
    let encodeTable = linear ? SRGBTables.encodeTable : []
    let outEight = format.bitDepth == 8
    var result = Image(
      uninitializedWidth: dstW, height: dstH, format: format, colorSpace: src.colorSpace)

    // Each band of output rows keeps a ring of the last `taps` horizontally filtered source rows
    // (~150 KB for a 1080-wide Lanczos shrink, so it stays in L2) instead of a whole-image
    // intermediate. Rows at band borders are filtered twice; every row is computed by the same
    // code whichever band does it, so results do not depend on the banding. A whole-image
    // float intermediate (20 MB for 2016×1512 → 1080 wide) spent much of its time in page
    // faults (perf, 2-core machine).
    src.withUnsafeBytes { srcRaw in
      result.withUnsafeMutableBytes { dstRaw in
        let srcPtr = SendableRawPointer(srcRaw.baseAddress!)
        let dstPtr = SendableRawPointer(dstRaw.baseAddress!)
        ParallelBands.forEach(rows: dstH, minimumBandHeight: 8, threads: threads) { band in
          let ringRows = wy.taps
          let ring = UnsafeMutableRawPointer.allocate(
            byteCount: ringRows * interStride * 4, alignment: 64)
          let tags = UnsafeMutablePointer<Int>.allocate(capacity: ringRows)
          tags.initialize(repeating: -1, count: ringRows)
          // One spare zero pixel: the paired horizontal kernel may read one past the window.
          let buf = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: srcW + 1)
          buf[srcW] = SIMD4()
          let acc = UnsafeMutablePointer<Float>.allocate(capacity: interStride)
          let rowPtrs = UnsafeMutablePointer<UnsafeRawPointer>.allocate(capacity: ringRows)
          defer {
            ring.deallocate()
            tags.deallocate()
            buf.deallocate()
            acc.deallocate()
            rowPtrs.deallocate()
          }
          colorTable.withUnsafeBufferPointer { ct in
            unit8.withUnsafeBufferPointer { u8 in
              encodeTable.withUnsafeBufferPointer { et in
                wx.pairedWeights.withUnsafeBufferPointer { xw in
                  wx.starts.withUnsafeBufferPointer { xs in
                    wy.weights.withUnsafeBufferPointer { yw in
                      for y in band {
                        let first = wy.starts[y]
                        for k in 0..<ringRows {
                          let sy = first + k
                          let slot = sy % ringRows
                          let row = ring + slot * interStride * 4
                          if tags[slot] != sy {
                            loadRow(
                              srcPtr.pointer, y: sy, width: srcW, channels: n, eight: eight,
                              colorTable: ct.isEmpty ? nil : ct.baseAddress, unit8: u8.baseAddress!,
                              into: buf)
                            filterRow(
                              buf, to: row, count: dstW, channels: n, pairs: wx.pairCount,
                              starts: xs.baseAddress!, weights: xw.baseAddress!)
                            tags[slot] = sy
                          }
                          rowPtrs[k] = UnsafeRawPointer(row)
                        }
                        let w = yw.baseAddress! + y * ringRows
                        var i = 0
                        while i < interStride {
                          var sum = SIMD8<Float>()
                          for k in 0..<ringRows {
                            sum +=
                              w[k]
                              * rowPtrs[k].loadUnaligned(
                                fromByteOffset: i * 4, as: SIMD8<Float>.self)
                          }
                          UnsafeMutableRawPointer(acc).storeBytes(
                            of: sum, toByteOffset: i * 4, as: SIMD8<Float>.self)
                          i += 8
                        }
                        let rowOffset = y * dstW * n
                        if outEight {
                          let d = dstPtr.pointer.assumingMemoryBound(to: UInt8.self) + rowOffset
                          storeRow(
                            acc, width: dstW, channels: n, to: d, maxValue: 255,
                            encode: linear ? et.baseAddress : nil)
                        } else {
                          let d = dstPtr.pointer.assumingMemoryBound(to: UInt16.self) + rowOffset
                          storeRow(
                            acc, width: dstW, channels: n, to: d, maxValue: 65535,
                            encode: linear ? et.baseAddress : nil)
                        }
                      }
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
    return result
  }

  /// The horizontal filter for one row: `count` output pixels of `channels` floats each.
  @inline(__always)
  static func filterRow(
    _ buf: UnsafeMutablePointer<SIMD4<Float>>, to out: UnsafeMutableRawPointer, count: Int,
    channels n: Int, pairs: Int, starts: UnsafePointer<Int>, weights: UnsafePointer<SIMD8<Float>>
  ) {
    // Two taps per SIMD8 step (pixels k and k+1 side by side): half the multiply-add
    // instructions of a SIMD4-per-tap loop, on AVX (haswell target) one 256-bit op each.
    var wp = weights
    let raw = UnsafeRawPointer(buf)
    for x in 0..<count {
      let s = starts[x] * 16
      var sum = SIMD8<Float>()
      for p in 0..<pairs {
        sum += wp[p] * raw.loadUnaligned(fromByteOffset: s + p * 32, as: SIMD8<Float>.self)
      }
      wp += pairs
      let acc = sum.lowHalf + sum.highHalf
      // For RGB the 4th lane lands on the next pixel's first slot and is overwritten next.
      out.storeBytes(of: acc, toByteOffset: x * n * 4, as: SIMD4<Float>.self)
    }
  }

  /// Loads source row `y` as one `SIMD4<Float>` per pixel in `0...1` (colour through
  /// `colorTable`, or `/65535` when it is nil for 16-bit), premultiplying colour by alpha.
  @inline(__always)
  static func loadRow(
    _ base: UnsafeMutableRawPointer, y: Int, width: Int, channels n: Int, eight: Bool,
    colorTable: UnsafePointer<Float>?, unit8: UnsafePointer<Float>,
    into buf: UnsafeMutablePointer<SIMD4<Float>>
  ) {
    if eight {
      let s = base.assumingMemoryBound(to: UInt8.self) + y * width * n
      let t = colorTable!
      if n == 3 {
        for x in 0..<width {
          buf[x] = SIMD4(t[Int(s[3 * x])], t[Int(s[3 * x + 1])], t[Int(s[3 * x + 2])], 0)
        }
      } else {
        for x in 0..<width {
          let a = unit8[Int(s[4 * x + 3])]
          buf[x] = SIMD4(
            t[Int(s[4 * x])] * a, t[Int(s[4 * x + 1])] * a, t[Int(s[4 * x + 2])] * a, a)
        }
      }
    } else {
      let s = base.assumingMemoryBound(to: UInt16.self) + y * width * n
      let k: Float = 1 / 65535
      for x in 0..<width {
        var v: SIMD4<Float>
        if let t = colorTable {
          v = SIMD4(t[Int(s[n * x])], t[Int(s[n * x + 1])], t[Int(s[n * x + 2])], 0)
        } else {
          v = SIMD4(Float(s[n * x]), Float(s[n * x + 1]), Float(s[n * x + 2]), 0) * k
        }
        if n == 4 {
          let a = Float(s[4 * x + 3]) * k
          v *= a
          v[3] = a
        }
        buf[x] = v
      }
    }
  }

  /// Converts one accumulated row (interleaved, `0...1`, premultiplied when there is alpha) to
  /// integer codes: un-premultiply, optional sRGB encode, clamp, scale, round to nearest.
  @inline(__always)
  static func storeRow(
    _ acc: UnsafeMutablePointer<Float>, width: Int, channels n: Int,
    to d: UnsafeMutablePointer<UInt8>, maxValue: Float, encode: UnsafePointer<Float>?
  ) {
    let count = width * n
    if n == 3 && encode == nil {
      // Fast path: a flat clamp-scale-round over the row, 8 values at a time.
      let lo = SIMD8<Float>(repeating: 0), hi = SIMD8<Float>(repeating: maxValue)
      let raw = UnsafeRawPointer(acc)
      var i = 0
      while i + 8 <= count {
        var v = raw.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self) * hi
        v = pointwiseMin(pointwiseMax(v, lo), hi)
        let r = roundToUInt32(v)
        for j in 0..<8 { d[i + j] = UInt8(truncatingIfNeeded: r[j]) }
        i += 8
      }
      while i < count {
        d[i] = UInt8(truncatingIfNeeded: roundToUInt32(min(max(acc[i] * maxValue, 0), maxValue)))
        i += 1
      }
      return
    }
    prepare(acc, width: width, channels: n, encode: encode)
    for i in 0..<count {
      d[i] = UInt8(truncatingIfNeeded: roundToUInt32(min(max(acc[i], 0), 1) * maxValue))
    }
  }

  @inline(__always)
  static func storeRow(
    _ acc: UnsafeMutablePointer<Float>, width: Int, channels n: Int,
    to d: UnsafeMutablePointer<UInt16>, maxValue: Float, encode: UnsafePointer<Float>?
  ) {
    prepare(acc, width: width, channels: n, encode: encode)
    for i in 0..<width * n {
      d[i] = UInt16(truncatingIfNeeded: roundToUInt32(min(max(acc[i], 0), 1) * maxValue))
    }
  }

  /// Un-premultiplies and sRGB-encodes a row in place (values stay in `0...1` scale).
  @inline(__always)
  static func prepare(
    _ acc: UnsafeMutablePointer<Float>, width: Int, channels n: Int, encode: UnsafePointer<Float>?
  ) {
    if n == 4 {
      for x in 0..<width {
        let a = acc[4 * x + 3]
        if a > 1e-7 {
          let inv = 1 / a
          acc[4 * x] *= inv
          acc[4 * x + 1] *= inv
          acc[4 * x + 2] *= inv
        }
      }
    }
    if let et = encode {
      for x in 0..<width {
        for c in 0..<3 {
          acc[n * x + c] = SRGBTables.encodeClamped(acc[n * x + c], table: et)
        }
      }
    }
  }
}
