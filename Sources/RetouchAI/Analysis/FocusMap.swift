// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore

/// Detail per tile: how sharp each part of the photo is, independent of its contrast.
///
/// On the grey plane (encoded levels 0...255) each tile sums the squared 4-neighbour Laplacian
/// `L` and the squared forward-difference gradient `G`. Their ratio `L / G` behaves like the
/// square of the image's dominant spatial frequency: for an edge blurred with a Gaussian of
/// radius σ, G ∝ C²/σ and L ∝ C²/σ³, so the ratio falls as 1/σ² whatever the edge contrast C.
/// Tiles with too little gradient energy (sky, walls, noise only) carry no focus information and
/// are marked untextured. Cost: one pass over the plane, ~0.5 ms at 512×384.
package struct FocusMap: Sendable {
  /// Tile grid size.
  package let columns: Int
  package let rows: Int
  /// Per tile, row-major: mean squared Laplacian.
  package let laplacianEnergy: [Double]
  /// Per tile: mean squared gradient.
  package let gradientEnergy: [Double]
  /// Plane size the tiles were measured on.
  package let width: Int
  package let height: Int

  /// Mean squared gradient (in grey levels², 0...255 scale) below which a tile is untextured:
  /// an RMS step of about 3 levels per pixel.
  package static let textureFloor = 9.0

  /// Measures `plane` on a grid with `tilesAcrossLongEdge` tiles along the long edge (and
  /// proportionally fewer along the short one, at least 1).
  package init(plane: GreyPlane, tilesAcrossLongEdge: Int = 8) {
    let w = plane.width, h = plane.height
    let long = max(w, h)
    let cols =
      w >= h
      ? tilesAcrossLongEdge
      : max(1, Int((Double(tilesAcrossLongEdge) * Double(w) / Double(long)).rounded()))
    let rws =
      h >= w
      ? tilesAcrossLongEdge
      : max(1, Int((Double(tilesAcrossLongEdge) * Double(h) / Double(long)).rounded()))
    var lap = [Double](repeating: 0, count: cols * rws)
    var grad = [Double](repeating: 0, count: cols * rws)
    var counts = [Int](repeating: 0, count: cols * rws)
    if w >= 3 && h >= 3 {
      let tileStarts = Self.tileStarts(width: w, columns: cols)
      // Bands of whole tile rows run in parallel, each writing only its own tiles; a tile's sums
      // are still taken row by row from the top, so the result does not depend on the bands.
      lap.withUnsafeMutableBufferPointer { lapOut in
        grad.withUnsafeMutableBufferPointer { gradOut in
          counts.withUnsafeMutableBufferPointer { countOut in
            guard let lb = lapOut.baseAddress, let gb = gradOut.baseAddress,
              let cb = countOut.baseAddress
            else { return }
            let lapPtr = SendableRawPointer(UnsafeMutableRawPointer(lb))
            let gradPtr = SendableRawPointer(UnsafeMutableRawPointer(gb))
            let countPtr = SendableRawPointer(UnsafeMutableRawPointer(cb))
            ParallelBands.forEach(rows: rws, minimumBandHeight: 1) { tileRows in
              Self.accumulate(
                plane, tileRows: tileRows, tileRowCount: rws, tileStarts: tileStarts,
                lap: lapPtr.pointer.assumingMemoryBound(to: Double.self),
                grad: gradPtr.pointer.assumingMemoryBound(to: Double.self),
                counts: countPtr.pointer.assumingMemoryBound(to: Int.self))
            }
          }
        }
      }
    }
    for i in 0..<(cols * rws) where counts[i] > 0 {
      lap[i] /= Double(counts[i])
      grad[i] /= Double(counts[i])
    }
    columns = cols
    rows = rws
    laplacianEnergy = lap
    gradientEnergy = grad
    width = w
    height = h
  }

  /// The first pixel column of each of `cols` tiles across `w` pixels, then `w`: column x
  /// belongs to tile min(cols − 1, x · cols / w), which never decreases with x.
  private static func tileStarts(width w: Int, columns cols: Int) -> [Int] {
    var starts = [Int](repeating: w, count: cols + 1)
    for x in stride(from: w - 1, through: 0, by: -1) {
      starts[min(cols - 1, x * cols / w)] = x
    }
    for tx in stride(from: cols - 1, through: 0, by: -1) {
      starts[tx] = min(starts[tx], starts[tx + 1])
    }
    return starts
  }

  /// Adds the squared Laplacian and gradient of the plane's inner pixels into the tiles of
  /// `tileRows`, row by row from the top. Each row's squared terms are computed first, as
  /// Floats in a scratch row (a loop the compiler vectorises: its index arithmetic wraps);
  /// then each tile's part of the row (`tileStarts`: the first pixel column of each tile, then
  /// `w`) is summed as Doubles from zero in pixel order and added to the tile. The sums are
  /// those of adding pixel by pixel, bit for bit.
  private static func accumulate(
    _ plane: GreyPlane, tileRows: Range<Int>, tileRowCount rws: Int, tileStarts: [Int],
    lap: UnsafeMutablePointer<Double>, grad: UnsafeMutablePointer<Double>,
    counts: UnsafeMutablePointer<Int>
  ) {
    let w = plane.width, h = plane.height
    let cols = tileStarts.count - 1
    var lapTerms = [Float](repeating: 0, count: w)
    var gradTerms = [Float](repeating: 0, count: w)
    plane.values.withUnsafeBufferPointer { v in
      tileStarts.withUnsafeBufferPointer { starts in
        lapTerms.withUnsafeMutableBufferPointer { lapTerms in
          gradTerms.withUnsafeMutableBufferPointer { gradTerms in
            let base = v.baseAddress.unsafelyUnwrapped
            let lt = lapTerms.baseAddress.unsafelyUnwrapped
            let gt = gradTerms.baseAddress.unsafelyUnwrapped
            for y in 1..<(h - 1) {
              let ty = min(rws - 1, y * rws / h)
              guard tileRows.contains(ty) else { continue }
              let mid = base + y * w, above = mid - w, below = mid + w
              var x = 1
              while x < w &- 1 {
                let c = mid[x]
                let l = 4 * c - mid[x &- 1] - mid[x &+ 1] - above[x] - below[x]
                let gx = mid[x &+ 1] - c, gy = below[x] - c
                lt[x] = l * l
                gt[x] = gx * gx + gy * gy
                x &+= 1
              }
              for tx in 0..<cols {
                // The inner pixels 1..<(w − 1) of this tile's columns.
                let x0 = max(1, starts[tx]), x1 = min(w - 1, starts[tx + 1])
                guard x0 < x1 else { continue }
                var lapSum = 0.0, gradSum = 0.0
                var x = x0
                while x < x1 {
                  lapSum += Double(lt[x])
                  gradSum += Double(gt[x])
                  x &+= 1
                }
                lap[ty * cols + tx] += lapSum
                grad[ty * cols + tx] += gradSum
                counts[ty * cols + tx] += x1 - x0
              }
            }
          }
        }
      }
    }
  }

  /// Whether tile `i` has enough detail to judge its focus.
  package func isTextured(_ i: Int) -> Bool { gradientEnergy[i] >= Self.textureFloor }

  /// Sharpness of tile `i`: L / G (about 0.3 for a soft edge to 4+ for pixel-sharp detail).
  package func sharpness(_ i: Int) -> Double {
    laplacianEnergy[i] / max(gradientEnergy[i], Self.textureFloor)
  }

  /// The sharpness that the photo's sharp parts reach: the 90th percentile over textured tiles
  /// (nil when fewer than 2 tiles are textured).
  package var referenceSharpness: Double? {
    let values = (0..<(columns * rows)).filter(isTextured).map(sharpness).sorted()
    guard values.count >= 2 else { return nil }
    return values[min(values.count - 1, Int(Double(values.count) * 0.9))]
  }

  /// The tile's rectangle in normalized coordinates.
  package func tileRect(column: Int, row: Int) -> (x0: Double, y0: Double, x1: Double, y1: Double) {
    (
      Double(column) / Double(columns), Double(row) / Double(rows),
      Double(column + 1) / Double(columns), Double(row + 1) / Double(rows)
    )
  }

  /// Sharpness (L / G) of a pixel rectangle of `plane`, or nil when it is untextured or smaller
  /// than 3×3.
  package static func sharpness(
    of plane: GreyPlane, x0: Int, y0: Int, x1: Int, y1: Int
  ) -> Double? {
    let xa = max(1, x0), ya = max(1, y0)
    let xb = min(plane.width - 1, x1), yb = min(plane.height - 1, y1)
    guard xb - xa >= 3, yb - ya >= 3 else { return nil }
    var lap = 0.0, grad = 0.0
    let w = plane.width
    plane.values.withUnsafeBufferPointer { v in
      for y in ya..<yb {
        let mid = v.baseAddress.unsafelyUnwrapped + y * w, above = mid - w, below = mid + w
        // Wrapping index arithmetic: the columns stay inside the row.
        var x = xa
        while x < xb {
          let c = mid[x]
          let l = 4 * c - mid[x &- 1] - mid[x &+ 1] - above[x] - below[x]
          let gx = mid[x &+ 1] - c, gy = below[x] - c
          lap += Double(l * l)
          grad += Double(gx * gx + gy * gy)
          x &+= 1
        }
      }
    }
    let n = Double((xb - xa) * (yb - ya))
    guard grad / n >= textureFloor else { return nil }
    return lap / grad
  }
}
