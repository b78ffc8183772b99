// SPDX-License-Identifier: Apache-2.0

import RetouchCore

/// Runs a neighbourhood kernel over an ``Image`` in place, in parallel row bands with halos.
///
/// A kernel that reads rows `y − halo … y + halo` to write row `y` cannot simply run bands in
/// place side by side: the band below may already have rewritten the rows this band reads. So
/// the run has two parallel phases: first every band copies its own first and last `halo` rows
/// aside (`2 × halo` rows per band, a few MB for 12 MP), then every band runs, reading its own
/// rows from the image (each band reads a row before it writes it) and its neighbours' rows from
/// those copies. Bands are at least `max(bandHeight, halo)` rows, so halos only ever reach the
/// adjacent band. Bands are grouped into one job per thread; each job makes its scratch once and
/// reuses it for all its bands, so nothing is allocated per row.
enum HaloBands {
  static func share(_ p: UnsafeRawPointer) -> SendableRawPointer {
    SendableRawPointer(UnsafeMutableRawPointer(mutating: p))
  }
  static func share<T>(_ p: UnsafePointer<T>) -> SendableRawPointer {
    SendableRawPointer(UnsafeMutableRawPointer(mutating: p))
  }
  static func share<T>(_ p: UnsafeMutablePointer<T>) -> SendableRawPointer {
    SendableRawPointer(UnsafeMutableRawPointer(p))
  }

  /// What one band may read and write.
  struct Band {
    /// The rows this band writes.
    let rows: Range<Int>
    let halo: Int
    let width: Int
    let height: Int
    let format: PixelFormat
    let bytesPerRow: Int
    let image: UnsafeMutableRawPointer
    /// The last `halo` rows of the band above, as they were before any band ran.
    let above: UnsafeRawPointer?
    /// The first `halo` rows of the band below, as they were before any band ran.
    let below: UnsafeRawPointer?
    /// Where the band writes its rows: `image` itself, or another buffer of the same layout
    /// when the run is out of place (`image` then stays as it is, and every row, halos
    /// included, is read from it).
    let output: UnsafeMutableRawPointer

    /// The original bytes of image row `y`, clamped into the image (replicated edges); `y` must
    /// lie within `halo` rows of the band.
    @inline(__always)
    func source(row: Int) -> UnsafeRawPointer {
      let y = min(max(row, 0), height - 1)
      if output != image {
        precondition(y >= rows.lowerBound - halo && y < rows.upperBound + halo)
        return UnsafeRawPointer(image + y * bytesPerRow)
      }
      if y < rows.lowerBound {
        let i = y - (rows.lowerBound - halo)
        precondition(i >= 0, "row \(y) is outside the band's halo")
        return above! + i * bytesPerRow
      }
      if y >= rows.upperBound {
        let i = y - rows.upperBound
        precondition(i < halo, "row \(y) is outside the band's halo")
        return below! + i * bytesPerRow
      }
      return UnsafeRawPointer(image + y * bytesPerRow)
    }

    /// Where to write row `y` of the band.
    @inline(__always)
    func destination(row y: Int) -> UnsafeMutableRawPointer {
      precondition(rows.contains(y))
      return output + y * bytesPerRow
    }
  }

  static func run<Scratch>(
    _ image: inout Image, halo: Int, bandHeight: Int, threads: Int?,
    makeScratch: @escaping @Sendable () -> Scratch,
    body: @escaping @Sendable (inout Scratch, Band) -> Void
  ) {
    let h = image.height
    let bands = bandRanges(height: h, halo: halo, bandHeight: bandHeight)
    let bpr = image.bytesPerRow
    let slot = halo * bpr
    let (width, format) = (image.width, image.format)
    let saved = UnsafeMutableRawPointer.allocate(
      byteCount: max(1, bands.count * 2 * slot), alignment: 64)
    defer { saved.deallocate() }
    let savedShared = SendableRawPointer(saved)
    image.withUnsafeMutableBytes { raw in
      let img = SendableRawPointer(raw.baseAddress!)
      if bands.count > 1 && halo > 0 {
        ParallelBands.forEach(rows: bands.count, minimumBandHeight: 1, threads: threads) { ids in
          for b in ids {
            let r = bands[b]
            let top = savedShared.pointer + b * 2 * slot
            top.copyMemory(from: img.pointer + r.lowerBound * bpr, byteCount: slot)
            top.advanced(by: slot).copyMemory(
              from: img.pointer + (r.upperBound - halo) * bpr, byteCount: slot)
          }
        }
      }
      schedule(bands.count, threads: threads, makeScratch: makeScratch, body: body) { b in
        Band(
          rows: bands[b], halo: halo, width: width, height: h, format: format, bytesPerRow: bpr,
          image: img.pointer,
          above: b > 0 ? UnsafeRawPointer(savedShared.pointer + (b - 1) * 2 * slot + slot) : nil,
          below: b + 1 < bands.count
            ? UnsafeRawPointer(savedShared.pointer + (b + 1) * 2 * slot) : nil,
          output: img.pointer)
      }
    }
  }

  /// ``run(_:halo:bandHeight:threads:makeScratch:body:)`` from `source` into `output` (the same
  /// size and format; the kernel must write every byte of its rows, alpha included): `source` is
  /// only read, so bands read their halos from it directly and nothing is copied aside. For a
  /// source the caller keeps, this replaces copying it whole on one thread before an in-place
  /// run.
  static func run<Scratch>(
    from source: Image, into output: inout Image, halo: Int, bandHeight: Int, threads: Int?,
    makeScratch: @escaping @Sendable () -> Scratch,
    body: @escaping @Sendable (inout Scratch, Band) -> Void
  ) {
    precondition(source.size == output.size && source.format == output.format)
    let h = source.height
    let bands = bandRanges(height: h, halo: halo, bandHeight: bandHeight)
    let (bpr, width, format) = (source.bytesPerRow, source.width, source.format)
    source.withUnsafeBytes { src in
      output.withUnsafeMutableBytes { dst in
        let input = share(src.baseAddress!)
        let out = SendableRawPointer(dst.baseAddress!)
        schedule(bands.count, threads: threads, makeScratch: makeScratch, body: body) { b in
          Band(
            rows: bands[b], halo: halo, width: width, height: h, format: format,
            bytesPerRow: bpr, image: input.pointer, above: nil, below: nil, output: out.pointer)
        }
      }
    }
  }

  /// Bands of at least `max(bandHeight, halo)` rows, so a halo only reaches the adjacent band.
  private static func bandRanges(height h: Int, halo: Int, bandHeight: Int) -> [Range<Int>] {
    ParallelBands.bandRanges(rows: h, count: max(1, h / max(bandHeight, halo, 1)))
  }

  /// Runs `body` on bands `0..<count` (made by `band`), grouped into one job per thread (not
  /// ParallelBands' usual four), so scratch is made `threads` times and reused by the job's bands.
  private static func schedule<Scratch>(
    _ count: Int, threads: Int?, makeScratch: @escaping @Sendable () -> Scratch,
    body: @escaping @Sendable (inout Scratch, Band) -> Void, band: @Sendable (Int) -> Band
  ) {
    let threadCount = max(1, threads ?? ParallelBands.defaultThreadCount)
    // ParallelBands makes `rows / minimumBandHeight` jobs at most: floor, so there are at
    // least `threadCount` of them (a ceiling here left 93 bands on one thread).
    let perJob = max(1, count / threadCount)
    ParallelBands.forEach(rows: count, minimumBandHeight: perJob, threads: threads) { ids in
      var scratch = makeScratch()
      for b in ids { body(&scratch, band(b)) }
    }
  }
}

/// Conversions between interleaved integer rows and planar Float rows in `0…1` (encoded values).
enum PixelRows {
  /// Loads R, G, B of one row as `value / maxValue`.
  @inline(__always)
  static func load(
    _ src: UnsafeRawPointer, format: PixelFormat, width: Int,
    r: UnsafeMutablePointer<Float>, g: UnsafeMutablePointer<Float>, b: UnsafeMutablePointer<Float>
  ) {
    // Constant strides (3 or 4) and wrapping index arithmetic let the loops vectorise.
    switch format {
    case .rgb8: load(src.assumingMemoryBound(to: UInt8.self), 3, 1 / 255, width, r, g, b)
    case .rgba8: load(src.assumingMemoryBound(to: UInt8.self), 4, 1 / 255, width, r, g, b)
    case .rgb16: load(src.assumingMemoryBound(to: UInt16.self), 3, 1 / 65535, width, r, g, b)
    case .rgba16: load(src.assumingMemoryBound(to: UInt16.self), 4, 1 / 65535, width, r, g, b)
    }
  }

  @inline(__always)
  static func load<T: FixedWidthInteger & UnsignedInteger>(
    _ p: UnsafePointer<T>, _ n: Int, _ s: Float, _ width: Int,
    _ r: UnsafeMutablePointer<Float>, _ g: UnsafeMutablePointer<Float>,
    _ b: UnsafeMutablePointer<Float>
  ) {
    for x in 0..<width {
      let q = p + x &* n
      r[x] = Float(q[0]) * s
      g[x] = Float(q[1]) * s
      b[x] = Float(q[2]) * s
    }
  }

  /// Loads the weighted sum `wr·R + wg·G + wb·B` of one row (encoded values, 0…1).
  @inline(__always)
  static func loadLuma(
    _ src: UnsafeRawPointer, format: PixelFormat, width: Int,
    weights: (r: Float, g: Float, b: Float), into y: UnsafeMutablePointer<Float>
  ) {
    switch format {
    case .rgb8: loadLuma(src.assumingMemoryBound(to: UInt8.self), 3, 255, width, weights, y)
    case .rgba8: loadLuma(src.assumingMemoryBound(to: UInt8.self), 4, 255, width, weights, y)
    case .rgb16: loadLuma(src.assumingMemoryBound(to: UInt16.self), 3, 65535, width, weights, y)
    case .rgba16: loadLuma(src.assumingMemoryBound(to: UInt16.self), 4, 65535, width, weights, y)
    }
  }

  @inline(__always)
  static func loadLuma<T: FixedWidthInteger & UnsignedInteger>(
    _ p: UnsafePointer<T>, _ n: Int, _ maxValue: Float, _ width: Int,
    _ weights: (r: Float, g: Float, b: Float), _ y: UnsafeMutablePointer<Float>
  ) {
    let (wr, wg, wb) = (weights.r / maxValue, weights.g / maxValue, weights.b / maxValue)
    for x in 0..<width {
      let q = p + x &* n
      y[x] = Float(q[0]) * wr + Float(q[1]) * wg + Float(q[2]) * wb
    }
  }

  /// Stores R, G, B (clamped to 0…1, rounded to nearest) into one row; alpha is left alone.
  @inline(__always)
  static func store(
    _ dst: UnsafeMutableRawPointer, format: PixelFormat, width: Int,
    r: UnsafePointer<Float>, g: UnsafePointer<Float>, b: UnsafePointer<Float>
  ) {
    switch format {
    case .rgb8: store(dst.assumingMemoryBound(to: UInt8.self), 3, width, r, g, b)
    case .rgba8: store(dst.assumingMemoryBound(to: UInt8.self), 4, width, r, g, b)
    case .rgb16: store(dst.assumingMemoryBound(to: UInt16.self), 3, width, r, g, b)
    case .rgba16: store(dst.assumingMemoryBound(to: UInt16.self), 4, width, r, g, b)
    }
  }

  @inline(__always)
  static func store<T: FixedWidthInteger & UnsignedInteger>(
    _ p: UnsafeMutablePointer<T>, _ n: Int, _ width: Int,
    _ r: UnsafePointer<Float>, _ g: UnsafePointer<Float>, _ b: UnsafePointer<Float>
  ) {
    let m = Float(T.max)
    for x in 0..<width {
      let q = p + x &* n
      q[0] = T(truncatingIfNeeded: quantize(r[x], m))
      q[1] = T(truncatingIfNeeded: quantize(g[x], m))
      q[2] = T(truncatingIfNeeded: quantize(b[x], m))
    }
  }

  @inline(__always)
  static func quantize(_ v: Float, _ maxValue: Float) -> UInt32 {
    SpatialMath.roundToUInt32(min(max(v, 0), 1) * maxValue)
  }

  /// Replicates the edges of a `width`-long row into `pad` (which has `radius` extra slots on
  /// each side) so that horizontal taps need no bounds checks.
  @inline(__always)
  static func pad(
    _ row: UnsafePointer<Float>, width: Int, radius: Int, into pad: UnsafeMutablePointer<Float>
  ) {
    for i in 0..<radius { pad[i] = row[0] }
    (pad + radius).update(from: row, count: width)
    for i in 0..<radius { pad[radius + width + i] = row[width - 1] }
  }
}

/// Reference helpers shared by the scalar references (plain Double arithmetic).
enum ReferencePixels {
  /// The image's RGB as Double planes in 0…1.
  static func planes(_ image: Image) -> (r: [Double], g: [Double], b: [Double]) {
    let n = image.pixelCount
    var r = [Double](repeating: 0, count: n)
    var g = r
    var b = r
    let m = Double(image.format.maxValue)
    for y in 0..<image.height {
      for x in 0..<image.width {
        let p = image.pixel(x: x, y: y)
        let i = y * image.width + x
        r[i] = Double(p[0]) / m
        g[i] = Double(p[1]) / m
        b[i] = Double(p[2]) / m
      }
    }
    return (r, g, b)
  }

  /// Writes RGB planes back (clamped, rounded), keeping alpha.
  static func write(_ r: [Double], _ g: [Double], _ b: [Double], into image: inout Image) {
    let m = Double(image.format.maxValue)
    func q(_ v: Double) -> Int { Int((min(max(v, 0), 1) * m).rounded()) }
    for y in 0..<image.height {
      for x in 0..<image.width {
        let i = y * image.width + x
        var p = image.pixel(x: x, y: y)
        p[0] = q(r[i])
        p[1] = q(g[i])
        p[2] = q(b[i])
        image.setPixel(x: x, y: y, p)
      }
    }
  }

  /// `Σ_k kernel[k] · plane[clamp(x + k − R)]` along rows then columns (replicated edges).
  static func separable(_ p: [Double], width w: Int, height h: Int, kernel: [Double]) -> [Double] {
    let r = kernel.count / 2
    var tmp = [Double](repeating: 0, count: w * h)
    for y in 0..<h {
      for x in 0..<w {
        var s = 0.0
        for k in 0..<kernel.count { s += kernel[k] * p[y * w + min(max(x + k - r, 0), w - 1)] }
        tmp[y * w + x] = s
      }
    }
    var out = tmp
    for y in 0..<h {
      for x in 0..<w {
        var s = 0.0
        for k in 0..<kernel.count { s += kernel[k] * tmp[min(max(y + k - r, 0), h - 1) * w + x] }
        out[y * w + x] = s
      }
    }
    return out
  }
}
