// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchRender

/// Where the eye is drawn (faces first, then saliency) and which part is in focus.
///
/// - Subject: the union of the main faces (those at least a quarter of the largest face's
///   area), enlarged by 40 % of its size; without faces, the region around the salient mass of a
///   spectral-residual saliency map (see ``SpectralResidual``): the saliency-weighted centroid
///   ± 1.5 standard deviations of the cells above 3 × the mean saliency; when the salient cells
///   cover more than half the frame or that box more than 60 % of it (no clear subject), or the
///   photo is tiny, the centre half.
/// - Focus: ``FocusMap`` tiles (8 along the long edge); the focus region is the bounding box of
///   the textured tiles at least 60 % as sharp as the photo's sharp parts. The photo has a
///   shallow depth of field when that region covers at most 45 % of the frame and, outside it,
///   at least 15 % of the tiles are clearly blurred (some structure, under 30 % of that
///   sharpness) and at least half are blurred or flat. Flat tiles alone (snow, clear sky) do not
///   make a shallow depth of field: bokeh shows as blurred structure somewhere.
/// Cost: ~1–2 ms on a 512-px copy (grey plane, focus tiles, one 64 × 64 saliency map).
public enum SubjectFinder {
  /// - Parameters:
  ///   - image: the small upright analysis copy (8-bit RGB or RGBA).
  ///   - faces: the faces found in it, largest first.
  public static func findSubject(in image: Image, faces: [FaceObservation]) -> SubjectAnalysis {
    let plane = GreyPlane(image: image)
    return findSubject(plane: plane, focus: FocusMap(plane: plane), faces: faces)
  }

  static let center = NormalizedRect(x: 0.25, y: 0.25, width: 0.5, height: 0.5)

  /// The saliency map of a grey plane (``SpectralResidual``), measured before the faces are
  /// known so that it can run while the face search is still to be shared out;
  /// ``findSubject(plane:focus:faces:saliency:)`` reads it only when there is no face.
  package struct Saliency: Sendable {
    let map: [Float]?
    package init(plane: GreyPlane) { map = SpectralResidual.saliency(of: plane) }
  }

  /// - Parameter saliency: the plane's saliency map measured ahead; without it the map is
  ///   measured here when there is no face.
  package static func findSubject(
    plane: GreyPlane, focus: FocusMap, faces: [FaceObservation], saliency: Saliency? = nil
  ) -> SubjectAnalysis {
    let (region, source) = subjectRegion(faces: faces) {
      (saliency ?? Saliency(plane: plane)).map
    }
    let (focusRegion, shallow) = focusAnalysis(focus, fallback: region)
    return SubjectAnalysis(
      region: region, source: source, focusRegion: focusRegion, isShallowDepthOfField: shallow)
  }

  /// The faces' region, or else the salient one of the map `saliency` gives (asked for only
  /// when there is no face), or else the centre.
  static func subjectRegion(
    faces: [FaceObservation], saliency: () -> [Float]?
  ) -> (NormalizedRect, SubjectAnalysis.Source) {
    if let largest = faces.map({ $0.bounds.width * $0.bounds.height }).max(), largest > 0 {
      let main = faces.filter { $0.bounds.width * $0.bounds.height >= largest / 4 }
      var x0 = 1.0, y0 = 1.0, x1 = 0.0, y1 = 0.0
      for f in main {
        x0 = min(x0, f.bounds.x)
        y0 = min(y0, f.bounds.y)
        x1 = max(x1, f.bounds.maxX)
        y1 = max(y1, f.bounds.maxY)
      }
      return (clipped(x0: x0, y0: y0, x1: x1, y1: y1, grow: 0.2, minSize: 0), .faces)
    }
    guard let map = saliency() else { return (center, .center) }
    let n = SpectralResidual.size
    let mean = map.reduce(0, +) / Float(map.count)
    guard mean > 0 else { return (center, .center) }
    var w = 0.0, sx = 0.0, sy = 0.0, sxx = 0.0, syy = 0.0, count = 0
    for y in 0..<n {
      for x in 0..<n where map[y * n + x] > 3 * mean {
        let v = Double(map[y * n + x])
        let cx = (Double(x) + 0.5) / Double(n), cy = (Double(y) + 0.5) / Double(n)
        w += v
        sx += v * cx
        sy += v * cy
        sxx += v * cx * cx
        syy += v * cy * cy
        count += 1
      }
    }
    guard count > 0, count <= n * n / 2, w > 0 else { return (center, .center) }
    let mx = sx / w, my = sy / w
    let dx = (max(0, sxx / w - mx * mx)).squareRoot(), dy = (max(0, syy / w - my * my)).squareRoot()
    let region = clipped(
      x0: mx - 1.5 * dx, y0: my - 1.5 * dy, x1: mx + 1.5 * dx, y1: my + 1.5 * dy, grow: 0,
      minSize: 0.2)
    // Saliency spread over most of the frame names no subject.
    guard region.width * region.height <= 0.6 else { return (center, .center) }
    return (region, .saliency)
  }

  /// The box grown by `grow` × its size on each side, at least `minSize` on each side, moved
  /// inside the frame.
  static func clipped(
    x0: Double, y0: Double, x1: Double, y1: Double, grow: Double, minSize: Double
  ) -> NormalizedRect {
    func axis(_ a: Double, _ b: Double) -> (Double, Double) {
      let g = (b - a) * grow
      var lo = a - g, hi = b + g
      if hi - lo < minSize {
        let c = (lo + hi) / 2
        lo = c - minSize / 2
        hi = c + minSize / 2
      }
      if lo < 0 { hi -= lo; lo = 0 }
      if hi > 1 { lo -= hi - 1; hi = 1 }
      return (max(0, lo), min(1, hi))
    }
    let (xa, xb) = axis(x0, x1), (ya, yb) = axis(y0, y1)
    return NormalizedRect(x: xa, y: ya, width: max(1e-3, xb - xa), height: max(1e-3, yb - ya))
  }

  /// Focus region and shallow depth of field from the tiles.
  package static func focusAnalysis(
    _ focus: FocusMap, fallback: NormalizedRect
  ) -> (NormalizedRect, Bool) {
    guard let ref = focus.referenceSharpness, ref > 0 else { return (fallback, false) }
    var x0 = 1.0, y0 = 1.0, x1 = 0.0, y1 = 0.0
    var sharpTiles: [Int] = []
    for row in 0..<focus.rows {
      for column in 0..<focus.columns {
        let i = row * focus.columns + column
        guard focus.isTextured(i), focus.sharpness(i) >= 0.6 * ref else { continue }
        sharpTiles.append(i)
        let r = focus.tileRect(column: column, row: row)
        x0 = min(x0, r.x0)
        y0 = min(y0, r.y0)
        x1 = max(x1, r.x1)
        y1 = max(y1, r.y1)
      }
    }
    guard !sharpTiles.isEmpty else { return (fallback, false) }
    let region = NormalizedRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    var outside = 0, blurred = 0, flat = 0
    for row in 0..<focus.rows {
      for column in 0..<focus.columns {
        let r = focus.tileRect(column: column, row: row)
        let cx = (r.x0 + r.x1) / 2, cy = (r.y0 + r.y1) / 2
        if cx > region.x && cx < region.maxX && cy > region.y && cy < region.maxY { continue }
        outside += 1
        let i = row * focus.columns + column
        if focus.isSoft(i, reference: ref) {
          blurred += 1
        } else if !focus.isTextured(i) {
          flat += 1
        }
      }
    }
    let area = region.width * region.height
    let shallow =
      area <= 0.45 && outside > 0 && Double(blurred) >= 0.15 * Double(outside)
      && Double(blurred + flat) >= 0.5 * Double(outside)
    return (region, shallow)
  }
}

extension FocusMap {
  /// Whether tile `i` is clearly out of focus: it has some structure (mean squared gradient at
  /// least 1, so not a flat patch) and its L/G sharpness is under 30 % of `reference`.
  package func isSoft(_ i: Int, reference: Double) -> Bool {
    gradientEnergy[i] >= 1 && laplacianEnergy[i] / gradientEnergy[i] < 0.3 * reference
  }
}
