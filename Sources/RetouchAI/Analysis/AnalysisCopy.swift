// SPDX-License-Identifier: Apache-2.0

import RetouchCore

/// Makes the small upright copy that every measurement except grain runs on.
enum AnalysisCopy {
  /// The long edge the analysis aims for, in pixels.
  static let targetLongEdge = 512
  /// Photos up to this long edge are analysed as they are (no resampling).
  static let keepLongEdge = 640

  /// An 8-bit RGB copy of `image` with a long edge of about 512 pixels (512...640).
  ///
  /// Photos with a long edge up to 640 are only converted to 8-bit RGB. Larger ones are first
  /// reduced by the integer factor `k = ⌊longEdge / 512⌋` with an exact box (area) average of
  /// `k × k` blocks on the encoded values (the last partial row and column of blocks are
  /// dropped, less than `k` pixels), and when that leaves a long edge above 640 the rest is done
  /// with the bilinear resampler on the small intermediate. Alpha is dropped; 16-bit components
  /// are averaged first and rounded to 8 bits once.
  ///
  /// Cost: one pass over the photo that adds rows into a per-band integer row (vectorised), then
  /// sums `k` neighbours per output pixel; parallel over output rows, nothing allocated per row.
  /// 12 MP 8-bit RGB: about 4 ms on the 2-core build machine (release build).
  static func make(from image: Image) -> Image {
    let longEdge = image.size.longEdge
    if longEdge <= keepLongEdge {
      if image.format == .rgb8 { return image }
      return reduce(image, factor: 1)
    }
    let k = max(1, longEdge / targetLongEdge)
    var reduced = reduce(image, factor: k)
    if reduced.size.longEdge > keepLongEdge {
      reduced = reduced.resized(toFitLongEdge: targetLongEdge, filter: .bilinear)
    }
    return reduced
  }

  /// Box-averages `factor × factor` blocks into an 8-bit RGB image (`factor` 1 converts only).
  private static func reduce(_ image: Image, factor k: Int) -> Image {
    let n = image.format.channelCount
    let sixteen = image.format.bitDepth == 16
    let outW = max(1, image.width / k), outH = max(1, image.height / k)
    let kx = min(k, image.width), ky = min(k, image.height)
    var out = Image(uninitializedWidth: outW, height: outH, format: .rgb8, colorSpace: image.colorSpace)
    let srcWidth = image.width
    // Rounded division of a block sum by the block's size (and by 257 for 16-bit).
    let divisor = UInt64(kx * ky) * (sixteen ? 257 : 1)
    image.withUnsafeBytes { src in
      // Images always hold at least one pixel, so both buffers have a base address.
      guard let srcBase = src.baseAddress else { return }
      let srcPtr = SendableRawPointer(srcBase)
      out.withUnsafeMutableBytes { dst in
        guard let dstBase = dst.baseAddress else { return }
        let dstPtr = SendableRawPointer(dstBase)
        ParallelBands.forEach(rows: outH, minimumBandHeight: 8) { rows in
          let rowLength = outW * kx * n
          let acc = UnsafeMutablePointer<UInt32>.allocate(capacity: rowLength)
          defer { acc.deallocate() }
          let d = dstPtr.pointer.assumingMemoryBound(to: UInt8.self)
          for oy in rows {
            acc.initialize(repeating: 0, count: rowLength)
            for dy in 0..<ky {
              let sy = oy * ky + dy
              if sixteen {
                let s = (srcPtr.pointer.assumingMemoryBound(to: UInt16.self)) + sy * srcWidth * n
                for i in 0..<rowLength { acc[i] &+= UInt32(s[i]) }
              } else {
                let s = (srcPtr.pointer.assumingMemoryBound(to: UInt8.self)) + sy * srcWidth * n
                for i in 0..<rowLength { acc[i] &+= UInt32(s[i]) }
              }
            }
            let row = d + oy * outW * 3
            for ox in 0..<outW {
              var r: UInt64 = 0, g: UInt64 = 0, b: UInt64 = 0
              var p = ox * kx * n
              for _ in 0..<kx {
                r &+= UInt64(acc[p])
                g &+= UInt64(acc[p + 1])
                b &+= UInt64(acc[p + 2])
                p += n
              }
              row[ox * 3] = UInt8(truncatingIfNeeded: (r + divisor / 2) / divisor)
              row[ox * 3 + 1] = UInt8(truncatingIfNeeded: (g + divisor / 2) / divisor)
              row[ox * 3 + 2] = UInt8(truncatingIfNeeded: (b + divisor / 2) / divisor)
            }
          }
        }
      }
    }
    return out
  }
}
