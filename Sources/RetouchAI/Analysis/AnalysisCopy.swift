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
  /// with the bilinear resampler on the small intermediate. Alpha is dropped, transparent
  /// pixels first filled from the opaque ones (``TransparentFill``); 16-bit components are
  /// averaged first and rounded to 8 bits once.
  ///
  /// Cost: one pass over the photo that adds rows into a per-band integer row (vectorised; 16-bit
  /// sums for 8-bit photos), then sums `k` neighbours per output pixel; parallel over output
  /// rows, nothing allocated per row. 12 MP 8-bit RGB (g25, 3024×4032 → 432×576): ~6.8 ms of CPU
  /// (median of `retouch-bench ai`, 8.5 ms with 32-bit sums) on the 2-core build machine while
  /// other jobs ran (release build).
  static func make(from image: Image) -> Image {
    if let opaque = TransparentFill.filled(image) { return make(from: opaque) }
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
  static func reduce(_ image: Image, factor k: Int) -> Image {
    reduce(PhotoRegion(image), factor: k)
  }

  /// The same reduction of a region of a photo, read in place.
  static func reduce(_ region: PhotoRegion, factor k: Int) -> Image {
    let image = region.image
    let n = image.format.channelCount
    let sixteen = image.format.bitDepth == 16
    let outW = max(1, region.width / k), outH = max(1, region.height / k)
    let kx = min(k, region.width), ky = min(k, region.height)
    var out = Image(
      uninitializedWidth: outW, height: outH, format: .rgb8, colorSpace: image.colorSpace)
    // A block sum times this, plus ½, truncated: the rounded block mean in 8-bit code values
    // (a multiply instead of three integer divisions per output pixel).
    let scale = 1 / (Double(kx * ky) * (sixteen ? 257 : 1))
    image.withUnsafeBytes { src in
      // Images always hold at least one pixel, so both buffers have a base address.
      guard let srcBase = src.baseAddress else { return }
      let srcPtr = SendableRawPointer(srcBase)
      out.withUnsafeMutableBytes { dst in
        guard let dstBase = dst.baseAddress else { return }
        let dstPtr = SendableRawPointer(dstBase)
        ParallelBands.forEach(rows: outH, minimumBandHeight: 8) { rows in
          let rowLength = outW * kx * n
          // 8-bit rows are summed in 16 bits while that cannot overflow (ky × 255 ≤ 65535):
          // twice the vector lanes and half the memory traffic of 32-bit sums, same result.
          let narrow = !sixteen && ky <= 257
          let acc = UnsafeMutablePointer<UInt32>.allocate(capacity: narrow ? 0 : rowLength)
          let acc16 = UnsafeMutablePointer<UInt16>.allocate(capacity: narrow ? rowLength : 0)
          defer {
            acc.deallocate()
            acc16.deallocate()
          }
          let d = dstPtr.pointer.assumingMemoryBound(to: UInt8.self)
          for oy in rows {
            if narrow {
              let base = srcPtr.pointer.assumingMemoryBound(to: UInt8.self)
              let first = base + region.componentIndex(column: 0, row: oy * ky)
              for i in 0..<rowLength { acc16[i] = UInt16(first[i]) }
              for dy in 1..<max(1, ky) {
                let s = base + region.componentIndex(column: 0, row: oy * ky + dy)
                for i in 0..<rowLength { acc16[i] &+= UInt16(s[i]) }
              }
            } else {
              acc.initialize(repeating: 0, count: rowLength)
              for dy in 0..<ky {
                let sy = oy * ky + dy
                if sixteen {
                  let s =
                    srcPtr.pointer.assumingMemoryBound(to: UInt16.self)
                    + region.componentIndex(column: 0, row: sy)
                  for i in 0..<rowLength { acc[i] &+= UInt32(s[i]) }
                } else {
                  let s =
                    srcPtr.pointer.assumingMemoryBound(to: UInt8.self)
                    + region.componentIndex(column: 0, row: sy)
                  for i in 0..<rowLength { acc[i] &+= UInt32(s[i]) }
                }
              }
            }
            let row = d + oy * outW * 3
            for ox in 0..<outW {
              var r: UInt32 = 0, g: UInt32 = 0, b: UInt32 = 0
              var p = ox * kx * n
              if narrow {
                for _ in 0..<kx {
                  r &+= UInt32(acc16[p])
                  g &+= UInt32(acc16[p + 1])
                  b &+= UInt32(acc16[p + 2])
                  p += n
                }
              } else {
                for _ in 0..<kx {
                  r &+= acc[p]
                  g &+= acc[p + 1]
                  b &+= acc[p + 2]
                  p += n
                }
              }
              row[ox * 3] = UInt8(truncatingIfNeeded: Int(Double(r) * scale + 0.5))
              row[ox * 3 + 1] = UInt8(truncatingIfNeeded: Int(Double(g) * scale + 0.5))
              row[ox * 3 + 2] = UInt8(truncatingIfNeeded: Int(Double(b) * scale + 0.5))
            }
          }
        }
      }
    }
    return out
  }
}
