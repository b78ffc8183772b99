// SPDX-License-Identifier: Apache-2.0

import RetouchCore
import RetouchRender

/// Finds the flat bars a picture is framed in (letterbox or pillarbox bars, a plain mount), so
/// that the analysis measures the picture and not its frame.
///
/// Black bars read as a crushed black point (the pile at code 0 over an empty density above it
/// is what ``ExposureMeasurement/crushedBlack(_:total:pureBlack:cap:)`` looks for), pull the
/// key down and can make a daylight frame read as a night picture: each of the 15 `dev` photos
/// given black bars of 12 % above and below was offered Lift Shadows (black point −0.2 to
/// −0.4), which turned the bars grey.
///
/// A bar is a run of rows (or columns) from an edge in which every pixel lies within
/// ``flatness`` code values of the edge's corner pixel, in every channel. Bars are taken only in
/// pairs, the same colour and about the same thickness on opposite sides, as a frame is made;
/// a dark sky or a white wall reaching one edge is part of the picture.
enum PictureBorder {
  /// Largest difference (8-bit code values, per channel) from the corner pixel within a bar.
  static let flatness = 4
  /// Thinnest bar taken, as a share of the side it lies across (thinner lines are a rim, not a
  /// frame); at least two pixels.
  static let minimumShare = 0.02
  /// Most of a side the two bars together may cover: the picture keeps at least the rest.
  static let maximumShare = 0.5
  /// How far the two bars' thicknesses may differ, as a share of the side (a bar's inner edge
  /// blends with the picture in a downscaled copy); at least two pixels.
  static let symmetryShare = 0.01

  /// A rectangle of whole pixels.
  typealias PixelRect = (x: Int, y: Int, width: Int, height: Int)

  /// Where a framed picture lies.
  struct Framing {
    /// In the analysis copy the frame was found in.
    var inCopy: PixelRect
    /// In the photo the copy stands for, rounded inwards so that no bar pixel is kept.
    var inPhoto: PixelRect
    /// In unit coordinates of the whole frame.
    var picture: NormalizedRect
  }

  /// Where the picture inside `copy`'s frame lies, in `copy` and in the photo of `photoSize` it
  /// stands for, or nil when it has no frame.
  ///
  /// - Parameter copy: an 8-bit RGB image (the analysis copy).
  static func framing(of copy: Image, photoSize: PixelSize) -> Framing? {
    content(of: copy).map {
      Framing(
        inCopy: $0, inPhoto: scaled($0, from: copy.size, to: photoSize),
        picture: normalized($0, in: copy.size))
    }
  }

  /// The picture inside `copy`'s frame as a pixel rectangle, or nil when it has none.
  ///
  /// - Parameter copy: an 8-bit RGB image (the analysis copy).
  static func content(of copy: Image) -> PixelRect? {
    precondition(copy.format == .rgb8)
    let w = copy.width, h = copy.height
    guard w >= 16, h >= 16 else { return nil }
    return copy.withUnsafeBytes { raw -> PixelRect? in
      let px = raw.bindMemory(to: UInt8.self)
      typealias RGB = (Int, Int, Int)
      typealias Bar = (count: Int, colour: RGB)
      func pixel(_ x: Int, _ y: Int) -> RGB {
        let i = (y * w + x) * 3
        return (Int(px[i]), Int(px[i + 1]), Int(px[i + 2]))
      }
      func near(_ a: RGB, _ b: RGB) -> Bool {
        abs(a.0 - b.0) <= flatness && abs(a.1 - b.1) <= flatness && abs(a.2 - b.2) <= flatness
      }
      // Lines from an edge (rows from the top or bottom, columns from the left or right) that
      // are flat in the colour of the edge's first pixel: at most `count` lines of `span`
      // pixels, `at(line, i)` the i-th pixel of a line counted from the edge.
      func bar(count: Int, span: Range<Int>, at: (Int, Int) -> RGB) -> Bar {
        let colour = at(0, span.lowerBound)
        var n = 0
        lines: while n < count {
          for i in span where !near(at(n, i), colour) { break lines }
          n += 1
        }
        return (n, colour)
      }
      // The two bars' thicknesses when they make a frame across a side `side` pixels long.
      func pair(_ a: Bar, _ b: Bar, side: Int) -> (Int, Int)? {
        let thinnest = max(2, Int((minimumShare * Double(side)).rounded(.up)))
        let slack = max(2, Int((symmetryShare * Double(side)).rounded()))
        guard min(a.count, b.count) >= thinnest, abs(a.count - b.count) <= slack,
          Double(a.count + b.count) <= maximumShare * Double(side), near(a.colour, b.colour)
        else { return nil }
        return (a.count, b.count)
      }
      var rect: PixelRect = (0, 0, w, h)
      let top = bar(count: h, span: 0..<w) { n, x in pixel(x, n) }
      let bottom = bar(count: h, span: 0..<w) { n, x in pixel(x, h - 1 - n) }
      if let (t, b) = pair(top, bottom, side: h) {
        rect.y = t
        rect.height = h - t - b
      }
      // Columns only across the rows left between horizontal bars (a mount has all four).
      let rows = rect.y..<(rect.y + rect.height)
      let left = bar(count: w, span: rows) { n, y in pixel(n, y) }
      let right = bar(count: w, span: rows) { n, y in pixel(w - 1 - n, y) }
      if let (l, r) = pair(left, right, side: w) {
        rect.x = l
        rect.width = w - l - r
      }
      return rect.width == w && rect.height == h ? nil : rect
    }
  }

  /// `rect` (a pixel rectangle of an image `from` large) scaled to an image `to` large, rounded
  /// inwards so that no bar pixel is kept.
  private static func scaled(_ rect: PixelRect, from: PixelSize, to: PixelSize) -> PixelRect {
    let sx = Double(to.width) / Double(from.width), sy = Double(to.height) / Double(from.height)
    let x0 = Int((Double(rect.x) * sx).rounded(.up))
    let y0 = Int((Double(rect.y) * sy).rounded(.up))
    let x1 = max(x0 + 1, Int((Double(rect.x + rect.width) * sx).rounded(.down)))
    let y1 = max(y0 + 1, Int((Double(rect.y + rect.height) * sy).rounded(.down)))
    return (x0, y0, min(x1, to.width) - x0, min(y1, to.height) - y0)
  }

  /// The pixels of `image` inside `rect` (any pixel format), as a new image.
  static func crop(_ image: Image, to rect: PixelRect) -> Image {
    var out = Image(
      uninitializedWidth: rect.width, height: rect.height, format: image.format,
      colorSpace: image.colorSpace)
    let bpp = image.format.bytesPerPixel
    let srcRow = image.bytesPerRow, dstRow = out.bytesPerRow
    image.withUnsafeBytes { src in
      out.withUnsafeMutableBytes { dst in
        guard let s = src.baseAddress, let d = dst.baseAddress else { return }
        for y in 0..<rect.height {
          (d + y * dstRow).copyMemory(
            from: s + (rect.y + y) * srcRow + rect.x * bpp, byteCount: dstRow)
        }
      }
    }
    return out
  }

  /// The pixel rectangle `rect` of an image `size` large, normalized.
  private static func normalized(_ rect: PixelRect, in size: PixelSize) -> NormalizedRect {
    let w = Double(size.width), h = Double(size.height)
    return NormalizedRect(
      x: Double(rect.x) / w, y: Double(rect.y) / h, width: Double(rect.width) / w,
      height: Double(rect.height) / h)
  }

  /// `r`, normalized to the picture inside a frame, normalized to the whole frame instead.
  static func inFrame(_ r: NormalizedRect, picture: NormalizedRect) -> NormalizedRect {
    NormalizedRect(
      x: picture.x + r.x * picture.width, y: picture.y + r.y * picture.height,
      width: r.width * picture.width, height: r.height * picture.height)
  }
}

extension PhotoAnalysis {
  /// Moves an analysis of the picture inside a frame (at `picture`, normalized) to the whole
  /// frame of `size`: the faces and the subject are placed in it.
  mutating func placeInFrame(_ picture: NormalizedRect, size: PixelSize) {
    pixelSize = size
    for i in faces.indices {
      faces[i].bounds = PictureBorder.inFrame(faces[i].bounds, picture: picture)
    }
    subject.region = PictureBorder.inFrame(subject.region, picture: picture)
    subject.focusRegion = PictureBorder.inFrame(subject.focusRegion, picture: picture)
  }
}
