// SPDX-License-Identifier: Apache-2.0

/// The eight EXIF/TIFF orientations: how stored pixels must be transformed to display upright.
///
/// Raw values are the TIFF tag 0x0112 values (TIFF 6.0, EXIF 2.32 §4.6.4): 1 is upright,
/// 6 means the stored image must be turned 90° clockwise to display, and so on.
public enum ImageOrientation: Int, Hashable, Sendable, Codable, CaseIterable {
  /// 1: row 0 at the top, column 0 on the left.
  case up = 1
  /// 2: mirrored left–right.
  case upMirrored = 2
  /// 3: turned 180°.
  case down = 3
  /// 4: mirrored top–bottom.
  case downMirrored = 4
  /// 5: transposed (mirrored about the top-left/bottom-right diagonal).
  case leftMirrored = 5
  /// 6: needs a 90° clockwise turn to display.
  case right = 6
  /// 7: transversed (mirrored about the other diagonal).
  case rightMirrored = 7
  /// 8: needs a 90° counter-clockwise turn to display.
  case left = 8

  /// Whether displaying swaps width and height.
  public var swapsDimensions: Bool { rawValue >= 5 }

  /// The displayed size of a stored image of `size`.
  public func displaySize(forStored size: PixelSize) -> PixelSize {
    swapsDimensions ? size.transposed : size
  }

  /// Maps a displayed pixel `(x, y)` (in a `displayed` image) to the stored pixel it comes from.
  @inlinable
  public func sourcePoint(x: Int, y: Int, displayed: PixelSize) -> (x: Int, y: Int) {
    let w = displayed.width, h = displayed.height
    switch self {
    case .up: return (x, y)
    case .upMirrored: return (w - 1 - x, y)
    case .down: return (w - 1 - x, h - 1 - y)
    case .downMirrored: return (x, h - 1 - y)
    case .leftMirrored: return (y, x)
    case .right: return (y, w - 1 - x)
    case .rightMirrored: return (h - 1 - y, w - 1 - x)
    case .left: return (h - 1 - y, x)
    }
  }
}

extension Image {
  /// The image as it should be displayed given its stored `orientation` (the result has
  /// orientation ``ImageOrientation/up``).
  ///
  /// Costs one pass over the image (cache-blocked for the transposing orientations); returns
  /// `self` unchanged for ``ImageOrientation/up``.
  public func applyingOrientation(_ orientation: ImageOrientation) -> Image {
    if orientation == .up { return self }
    let out = orientation.displaySize(forStored: size)
    var result = Image(
      uninitializedWidth: out.width, height: out.height, format: format, colorSpace: colorSpace)
    let bpp = format.bytesPerPixel
    let srcRow = bytesPerRow
    let dstRow = result.bytesPerRow
    withUnsafeBytes { src in
      result.withUnsafeMutableBytes { dst in
        let s = SendableRawPointer(src.baseAddress!)
        let d = SendableRawPointer(dst.baseAddress!)
        ParallelBands.forEach(rows: out.height, minimumBandHeight: 64) { band in
          let block = 64
          var by = band.lowerBound
          while by < band.upperBound {
            let yEnd = min(by + block, band.upperBound)
            var bx = 0
            while bx < out.width {
              let xEnd = min(bx + block, out.width)
              for y in by..<yEnd {
                let dRow = d.pointer + y * dstRow
                for x in bx..<xEnd {
                  let p = orientation.sourcePoint(x: x, y: y, displayed: out)
                  (dRow + x * bpp).copyMemory(
                    from: s.pointer + p.y * srcRow + p.x * bpp, byteCount: bpp)
                }
              }
              bx = xEnd
            }
            by = yEnd
          }
        }
      }
    }
    return result
  }
}
