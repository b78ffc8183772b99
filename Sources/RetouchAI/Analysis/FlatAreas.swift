// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore

/// How much of a picture is made of exactly flat colour, and what the rest looks like: the
/// measure that tells a screenshot, a page or a flat illustration from a photograph
/// (``FlatAreaAnalysis``).
///
/// A photograph has no two neighbouring pixels of exactly the same colour outside what clipped
/// to black or white, and little even there once resized: its sensor's noise sees to that.
/// A picture drawn by a computer is flat wherever nothing is drawn. The analysis copy keeps
/// that: resizing a flat area leaves it flat.
///
/// Cost: one pass over the copy compares neighbours; a copy less flat than a page of text can
/// be (most photographs: 59 of the 86 shared ones measured) stops there. Otherwise a dozen
/// passes of byte arithmetic: on a 2-core EPYC server, the least of 60 runs on 512-pixel
/// copies took 4.0 ms (the moon in its black sky) to 6.7 ms (a page of small type). Deterministic.
enum FlatAreas {
  /// Colour codes a 3 × 3 neighbourhood must span, in some channel, for its centre to lie on a
  /// sharp edge (``FlatAreaAnalysis/edgeShare``).
  static let edgeRange = 24
  /// Distance, in pixels of the copy, from the nearest flat pixel beyond which a pixel counts
  /// as texture (``FlatAreaAnalysis/texturedShare``).
  static let textureDistance = 3
  /// Least share of the neighbouring pairs one flat colour must cover to count
  /// (``FlatAreaAnalysis/flatColors``).
  static let flatColorShare = 0.01
  /// Tallest band of rows, as a share of the copy's height, that counts as a line of text
  /// (``FlatAreaAnalysis/textBands``): the rendered pages' lines measure 5–13 rows of a 320-row
  /// copy; a lit part of a photograph against a black or white ground is taller (a casino
  /// crushed into its black: bands of 8–107 rows of 384).
  static let textLineHeight = 0.05
  /// Codes, in every channel, within which two colours count as one: a flat colour is counted
  /// with a larger one this close, and a pixel this close to a flat colour is on the ground
  /// (``FlatAreaAnalysis/inkShare``: JPEG's ringing around text).
  static let colourTolerance = 8

  /// The reading of an 8-bit RGB copy (``FlatAreaAnalysis``); all zero for any other format or
  /// a copy narrower than two pixels.
  static func measure(_ image: Image) -> FlatAreaAnalysis {
    let none = FlatAreaAnalysis(
      flatShare: 0, texturedShare: 0, flatColors: 0, textBands: 0, edgeShare: 0,
      lineEdgeShare: 0, inkShare: 0, inkTexturedShare: 0, inkEdgeShare: 0)
    let (w, h) = (image.width, image.height)
    guard image.format == .rgb8, w >= 2, h >= 1 else { return none }
    return image.withUnsafeBytes { raw in
      let p = raw.bindMemory(to: UInt8.self)
      // `equal[i]`: pixel i has the colour of its right neighbour; `flat[i]`: it or its left
      // neighbour does.
      var equal = [Bool](repeating: false, count: w * h)
      var flat = [Bool](repeating: false, count: w * h)
      var equalPairs = 0
      for y in 0..<h {
        let row = y &* w
        for x in 0..<(w &- 1) {
          let q = 3 &* (row &+ x)
          guard p[q] == p[q &+ 3], p[q &+ 1] == p[q &+ 4], p[q &+ 2] == p[q &+ 5] else {
            continue
          }
          equalPairs &+= 1
          equal[row &+ x] = true
          flat[row &+ x] = true
          flat[row &+ x &+ 1] = true
        }
      }
      let pairs = h * (w - 1)
      var reading = none
      reading.flatShare = Double(equalPairs) / Double(pairs)
      guard reading.flatShare >= FlatAreaAnalysis.measuredFlatShare else { return reading }
      reading.texturedShare = texturedShare(flat, width: w, height: h)
      let colors = flatColors(p, equal: equal, pairs: pairs)
      reading.flatColors = colors.count
      let onGround = ground(p, colors: colors.grounds, count: w * h)
      reading.inkTexturedShare = texturedShare(onGround, width: w, height: h)
      let (rows, ink, sharp) = drawnRows(p, flat: flat, ground: onGround, width: w)
      let lines = textLines(rows, width: w)
      reading.textBands = lines.count
      // Flat blocks two pixels wide or more (pixel art, a QR code) meet without a pixel drawn
      // between them: where they meet at a sharp edge, every boundary is one.
      let drawn = rows.reduce(0) { $0 + $1.drawn }
      reading.edgeShare = drawn > 0 ? edgeShare(rows, in: [0..<h]) : sharp ? 1 : 0
      reading.lineEdgeShare = edgeShare(rows, in: lines)
      reading.inkShare = Double(ink.pixels) / Double(w * h)
      reading.inkEdgeShare = ink.pixels == 0 ? 0 : Double(ink.edges) / Double(ink.pixels)
      return reading
    }
  }

  /// Which pixels lie within ``colourTolerance`` codes of one of `colors` in every channel.
  private static func ground(_ p: UnsafeBufferPointer<UInt8>, colors: [SIMD3<Int>], count: Int)
    -> [Bool]
  {
    let t = colourTolerance
    let grounds = colors.map { ($0.x, $0.y, $0.z) }
    var onGround = [Bool](repeating: false, count: count)
    for i in 0..<count {
      let (r, g, b) = (Int(p[3 * i]), Int(p[3 * i + 1]), Int(p[3 * i + 2]))
      for c in grounds where abs(r - c.0) <= t && abs(g - c.1) <= t && abs(b - c.2) <= t {
        onGround[i] = true
        break
      }
    }
    return onGround
  }

  /// Share of the pixels with no pixel of `flat` (the flat ones, or the ground) within
  /// ``textureDistance`` across and down (a square of 7 × 7 pixels around them).
  private static func texturedShare(_ flat: [Bool], width w: Int, height h: Int) -> Double {
    flat.withUnsafeBufferPointer { texturedShare($0, width: w, height: h) }
  }

  /// ``texturedShare(_:width:height:)`` on a buffer: row sweeps mark the pixels with a flat
  /// one within reach along their row; then, a row at a time, the nearest such row above and
  /// below each column.
  private static func texturedShare(_ flat: UnsafeBufferPointer<Bool>, width w: Int, height h: Int)
    -> Double
  {
    let r = textureDistance
    let nearRow = UnsafeMutableBufferPointer<Bool>.allocate(capacity: w * h)
    let nearAbove = UnsafeMutableBufferPointer<Bool>.allocate(capacity: w * h)
    let reach = UnsafeMutableBufferPointer<Int>.allocate(capacity: w)
    defer {
      nearRow.deallocate()
      nearAbove.deallocate()
      reach.deallocate()
    }
    for y in 0..<h {
      let row = y * w
      var left = -r - 1
      for x in 0..<w {
        if flat[row + x] { left = x }
        nearRow[row + x] = x - left <= r
      }
      var right = w + r + 1
      for x in stride(from: w - 1, through: 0, by: -1) {
        if flat[row + x] { right = x }
        if right - x <= r { nearRow[row + x] = true }
      }
    }
    // `reach[x]`: the last row so far, going down (then up), marked in column x.
    for x in 0..<w { reach[x] = -r - 1 }
    for y in 0..<h {
      let row = y * w
      for x in 0..<w {
        if nearRow[row + x] { reach[x] = y }
        nearAbove[row + x] = y - reach[x] <= r
      }
    }
    for x in 0..<w { reach[x] = h + r + 1 }
    var textured = 0
    for y in stride(from: h - 1, through: 0, by: -1) {
      let row = y * w
      for x in 0..<w {
        if nearRow[row + x] { reach[x] = y }
        if !nearAbove[row + x] && reach[x] - y > r { textured += 1 }
      }
    }
    return Double(textured) / Double(w * h)
  }

  /// Per row of the copy, how many of its pixels are not flat (`drawn`) and how many of those
  /// lie on a sharp edge (``sharpEdges``); over the copy, how many pixels are off the `ground`
  /// (`ink`) and how many of those lie on a sharp edge; and whether any pixel at all lies on
  /// one (`sharp`).
  private static func drawnRows(
    _ p: UnsafeBufferPointer<UInt8>, flat: [Bool], ground: [Bool], width w: Int
  ) -> (rows: [(drawn: Int, edges: Int)], ink: (pixels: Int, edges: Int), sharp: Bool) {
    let h = flat.count / w
    let edge = sharpEdges(p, width: w, height: h)
    var ink = (pixels: 0, edges: 0)
    let rows = (0..<h).map { y in
      var drawn = 0
      var edges = 0
      for i in (y * w)..<(y * w + w) {
        if !flat[i] {
          drawn += 1
          if edge[i] { edges += 1 }
        }
        if !ground[i] {
          ink.pixels += 1
          if edge[i] { ink.edges += 1 }
        }
      }
      return (drawn, edges)
    }
    return (rows, ink, edge.contains(true))
  }

  /// Whether each pixel lies on a sharp edge: its 3 × 3 neighbourhood (clipped at the copy's
  /// edges) spans ``edgeRange`` codes or more in some channel. Per channel, the least and
  /// greatest code of each pixel and its row neighbours, then of three such rows.
  private static func sharpEdges(_ p: UnsafeBufferPointer<UInt8>, width w: Int, height h: Int)
    -> [Bool]
  {
    var edge = [Bool](repeating: false, count: w * h)
    var lows = [UInt8](repeating: 0, count: w * h)
    var highs = [UInt8](repeating: 0, count: w * h)
    lows.withUnsafeMutableBufferPointer { lo in
      highs.withUnsafeMutableBufferPointer { hi in
        edge.withUnsafeMutableBufferPointer { edge in
          for c in 0..<3 {
            for y in 0..<h {
              let row = y * w
              // The first and last pixels of the row have one neighbour in it.
              let first = (p[3 * row + c], p[3 * (row + 1) + c])
              lo[row] = min(first.0, first.1)
              hi[row] = max(first.0, first.1)
              let last = (p[3 * (row + w - 2) + c], p[3 * (row + w - 1) + c])
              lo[row + w - 1] = min(last.0, last.1)
              hi[row + w - 1] = max(last.0, last.1)
              var q = 3 * row + c
              for x in 1..<(w - 1) {
                q += 3
                let (a, b, d) = (p[q - 3], p[q], p[q + 3])
                // Two-argument min and max: with three, the variadic overloads are called.
                lo[row + x] = min(min(a, b), d)
                hi[row + x] = max(max(a, b), d)
              }
            }
            for y in 0..<h {
              let (up, row, down) = (max(y - 1, 0) * w, y * w, min(y + 1, h - 1) * w)
              for x in 0..<w {
                let least = min(min(lo[up + x], lo[row + x]), lo[down + x])
                let greatest = max(max(hi[up + x], hi[row + x]), hi[down + x])
                if Int(greatest) - Int(least) >= edgeRange { edge[row + x] = true }
              }
            }
          }
        }
      }
    }
    return edge
  }

  /// The bands of rows with something drawn in them, separated by rows with next to nothing,
  /// that are no taller than ``textLineHeight`` of the copy: lines of text. A row enters a band
  /// with more than 2 % of its pixels not flat and leaves it at 0.5 % or fewer (so a band's
  /// ragged edge is not counted twice).
  private static func textLines(_ rows: [(drawn: Int, edges: Int)], width w: Int) -> [Range<Int>] {
    let enter = 0.02 * Double(w)
    let leave = 0.005 * Double(w)
    let tallest = textLineHeight * Double(rows.count)
    var lines: [Range<Int>] = []
    var start: Int?
    for y in 0...rows.count {
      let drawn = y < rows.count ? Double(rows[y].drawn) : 0
      if let top = start {
        guard y == rows.count || drawn <= leave else { continue }
        if Double(y - top) <= tallest { lines.append(top..<y) }
        start = nil
      } else if drawn > enter {
        start = y
      }
    }
    return lines
  }

  /// Share of the pixels not flat in the rows `bands` that lie on a sharp edge; 0 without such
  /// pixels.
  private static func edgeShare(_ rows: [(drawn: Int, edges: Int)], in bands: [Range<Int>])
    -> Double
  {
    var drawn = 0
    var edges = 0
    for band in bands {
      for y in band {
        drawn += rows[y].drawn
        edges += rows[y].edges
      }
    }
    return drawn == 0 ? 0 : Double(edges) / Double(drawn)
  }

  /// How many clearly different colours (more than ``colourTolerance`` codes apart in some
  /// channel) each make up at least ``flatColorShare`` of the equal neighbouring pairs
  /// (`equal`: a pixel has its right neighbour's colour), counted largest first (ties in code
  /// order), a colour that close to a larger one counted with it; and those colours, the
  /// grounds (the colour of the most pairs alone when none is that large).
  private static func flatColors(
    _ p: UnsafeBufferPointer<UInt8>, equal: [Bool], pairs: Int
  ) -> (count: Int, grounds: [SIMD3<Int>]) {
    // A run of equal pairs along a row is one colour (runs end at each row's last pixel).
    var counts: [UInt32: Int] = [:]
    var i = 0
    while i < equal.count {
      guard equal[i] else {
        i += 1
        continue
      }
      var end = i + 1
      while end < equal.count && equal[end] { end += 1 }
      let q = 3 * i
      counts[UInt32(p[q]) << 16 | UInt32(p[q + 1]) << 8 | UInt32(p[q + 2]), default: 0] += end - i
      i = end
    }
    let least = flatColorShare * Double(pairs)
    let byShare: (Dictionary<UInt32, Int>.Element, Dictionary<UInt32, Int>.Element) -> Bool = {
      $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key
    }
    let big = counts.filter { Double($0.value) >= least }.sorted(by: byShare)
    var kept: [SIMD3<Int>] = []
    func colour(_ code: UInt32) -> SIMD3<Int> {
      SIMD3(Int(code >> 16), Int(code >> 8 & 255), Int(code & 255))
    }
    for (code, _) in big {
      let c = colour(code)
      let apart = kept.allSatisfy { k in
        let d = c &- k
        return max(abs(d.x), abs(d.y), abs(d.z)) > colourTolerance
      }
      if apart { kept.append(c) }
    }
    if kept.isEmpty, let top = counts.min(by: byShare)?.key { return (0, [colour(top)]) }
    return (kept.count, kept)
  }
}
