// SPDX-License-Identifier: Apache-2.0

import Foundation

/// The handle of a crop rectangle being dragged.
public enum CropHandle: String, Sendable, Hashable, Codable, CaseIterable {
  case topLeft, top, topRight, right, bottomRight, bottom, bottomLeft, left
}

/// Crop maths an editor's crop screen needs, in unit coordinates of the shown image.
public enum CropGeometry {
  /// The largest rectangle of `ratio` (width ÷ height, in pixels) centred in an image of
  /// `width × height`.
  public static func centeredCrop(ratio: Double, imageWidth: Int, imageHeight: Int)
    -> NormalizedRect
  {
    let w = Double(imageWidth), h = Double(imageHeight)
    guard ratio > 0, w > 0, h > 0 else { return .full }
    var cw = w, ch = w / ratio
    if ch > h {
      ch = h
      cw = h * ratio
    }
    return NormalizedRect(x: (w - cw) / 2 / w, y: (h - ch) / 2 / h, width: cw / w, height: ch / h)
  }

  /// Corrects `rect` to `aspect` while `handle` is being dragged: the opposite corner (or the
  /// opposite edge's midpoint) stays where it is, the rectangle keeps the ratio and stays inside
  /// the image. For ``EditAspectRatio/free`` only the bounds are enforced.
  ///
  /// Corner drags keep the dragged width and derive the height (unless that leaves the image,
  /// then the height wins); edge drags keep the dragged dimension and centre the other on the
  /// fixed edge.
  public static func corrected(
    _ rect: NormalizedRect, to aspect: EditAspectRatio, imageWidth: Int, imageHeight: Int,
    dragging handle: CropHandle
  ) -> NormalizedRect {
    let W = Double(max(1, imageWidth)), H = Double(max(1, imageHeight))
    // Work in pixels so the ratio is a pixel ratio.
    var x0 = rect.x * W, y0 = rect.y * H, x1 = rect.maxX * W, y1 = rect.maxY * H
    if x1 < x0 { swap(&x0, &x1) }
    if y1 < y0 { swap(&y0, &y1) }
    guard let r = aspect.ratio(forImageWidth: imageWidth, height: imageHeight) else {
      return clampToUnit(
        NormalizedRect(x: x0 / W, y: y0 / H, width: (x1 - x0) / W, height: (y1 - y0) / H))
    }
    // The fixed anchor and the directions the rectangle grows in from it.
    let ax: Double, ay: Double, dx: Double, dy: Double
    switch handle {
    case .topLeft: (ax, ay, dx, dy) = (x1, y1, -1, -1)
    case .topRight: (ax, ay, dx, dy) = (x0, y1, 1, -1)
    case .bottomLeft: (ax, ay, dx, dy) = (x1, y0, -1, 1)
    case .bottomRight: (ax, ay, dx, dy) = (x0, y0, 1, 1)
    case .left: (ax, ay, dx, dy) = (x1, (y0 + y1) / 2, -1, 0)
    case .right: (ax, ay, dx, dy) = (x0, (y0 + y1) / 2, 1, 0)
    case .top: (ax, ay, dx, dy) = ((x0 + x1) / 2, y1, 0, -1)
    case .bottom: (ax, ay, dx, dy) = ((x0 + x1) / 2, y0, 0, 1)
    }
    var w = max(1, x1 - x0), h = max(1, y1 - y0)
    if dx != 0 { h = w / r } else { w = h * r }
    // The room available from the anchor in each direction.
    let roomX = dx > 0 ? W - ax : dx < 0 ? ax : 2 * min(ax, W - ax)
    let roomY = dy > 0 ? H - ay : dy < 0 ? ay : 2 * min(ay, H - ay)
    let s = min(1, roomX / w, roomY / h)
    w *= s
    h *= s
    let nx0 = dx > 0 ? ax : dx < 0 ? ax - w : ax - w / 2
    let ny0 = dy > 0 ? ay : dy < 0 ? ay - h : ay - h / 2
    return clampToUnit(NormalizedRect(x: nx0 / W, y: ny0 / H, width: w / W, height: h / H))
  }

  /// The zoom needed after straightening by `degrees` so the rotated photo covers the whole
  /// crop of `cropWidth × cropHeight` pixels when the crop is centred in a `imageWidth ×
  /// imageHeight` photo (≥ 1; 1 at 0°).
  ///
  /// A `w × h` frame rotated by θ needs a covering rectangle of `w·cosθ + h·sinθ` by
  /// `w·sinθ + h·cosθ`; the scale is the larger of those over the photo's own sides.
  public static func straightenScale(
    degrees: Double, cropWidth: Double, cropHeight: Double, imageWidth: Double, imageHeight: Double
  ) -> Double {
    let t = abs(degrees) * .pi / 180
    let c = cos(t), s = sin(t)
    let needW = cropWidth * c + cropHeight * s
    let needH = cropWidth * s + cropHeight * c
    return max(1, needW / imageWidth, needH / imageHeight)
  }

  static func clampToUnit(_ r: NormalizedRect) -> NormalizedRect {
    let w = min(1, max(1e-6, r.width)), h = min(1, max(1e-6, r.height))
    let x = min(max(0, r.x), 1 - w), y = min(max(0, r.y), 1 - h)
    return NormalizedRect(x: x, y: y, width: w, height: h)
  }
}
