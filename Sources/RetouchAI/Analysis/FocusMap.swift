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
      let tileOfX = (0..<w).map { x in min(cols - 1, x * cols / w) }
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
                plane, tileRows: tileRows, tileRowCount: rws, columns: cols, tileOfX: tileOfX,
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

  /// Adds the squared Laplacian and gradient of the plane's inner pixels into the tiles of
  /// `tileRows`, row by row from the top. Per-row sums are taken in scratch rows first (reused
  /// from row to row), and each pixel column's tile is looked up in `tileOfX`: an integer
  /// division per pixel was a good part of this pass (perf samples relative to the face
  /// detector's scan 0.34 → 0.27, about 1.5 → 1.2 ms of CPU at 512×384 on the loaded 2-vCPU
  /// machine).
  private static func accumulate(
    _ plane: GreyPlane, tileRows: Range<Int>, tileRowCount rws: Int, columns cols: Int,
    tileOfX: [Int], lap: UnsafeMutablePointer<Double>, grad: UnsafeMutablePointer<Double>,
    counts: UnsafeMutablePointer<Int>
  ) {
    let w = plane.width, h = plane.height
    var lapRow = [Double](repeating: 0, count: cols)
    var gradRow = [Double](repeating: 0, count: cols)
    var countRow = [Int](repeating: 0, count: cols)
    plane.values.withUnsafeBufferPointer { v in
      tileOfX.withUnsafeBufferPointer { tileOfX in
        for y in 1..<(h - 1) {
          let ty = min(rws - 1, y * rws / h)
          guard tileRows.contains(ty) else { continue }
          for tx in 0..<cols {
            lapRow[tx] = 0
            gradRow[tx] = 0
            countRow[tx] = 0
          }
          for x in 1..<(w - 1) {
            let i = y * w + x
            let c = v[i]
            let l = 4 * c - v[i - 1] - v[i + 1] - v[i - w] - v[i + w]
            let gx = v[i + 1] - c, gy = v[i + w] - c
            let tx = tileOfX[x]
            lapRow[tx] += Double(l * l)
            gradRow[tx] += Double(gx * gx + gy * gy)
            countRow[tx] += 1
          }
          for tx in 0..<cols {
            lap[ty * cols + tx] += lapRow[tx]
            grad[ty * cols + tx] += gradRow[tx]
            counts[ty * cols + tx] += countRow[tx]
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
        for x in xa..<xb {
          let i = y * w + x
          let c = v[i]
          let l = 4 * c - v[i - 1] - v[i + 1] - v[i - w] - v[i + w]
          let gx = v[i + 1] - c, gy = v[i + w] - c
          lap += Double(l * l)
          grad += Double(gx * gx + gy * gy)
        }
      }
    }
    let n = Double((xb - xa) * (yb - ya))
    guard grad / n >= textureFloor else { return nil }
    return lap / grad
  }
}
