// SPDX-License-Identifier: Apache-2.0

import RetouchCore

/// A rectangle of a photo, read where it lies: the measurements made at the photo's own size
/// (grain, the full-resolution black count, the face search's grey copy) take one, so that a
/// picture framed in flat bars (``PictureBorder``) is measured without first being copied out
/// of its frame (a 50 MP photo would need 100 MB and more for that copy).
struct PhotoRegion: Sendable {
  /// The whole photo.
  let image: Image
  /// The region's first column and row in `image`.
  let x: Int
  let y: Int
  /// The region's size in pixels.
  let width: Int
  let height: Int

  /// The whole of `image`.
  init(_ image: Image) {
    self.init(image, rect: (0, 0, image.width, image.height))
  }

  /// The part `rect` of `image`, which must lie inside it and hold at least one pixel.
  init(_ image: Image, rect: PictureBorder.PixelRect) {
    precondition(
      rect.x >= 0 && rect.y >= 0 && rect.width > 0 && rect.height > 0
        && rect.x + rect.width <= image.width && rect.y + rect.height <= image.height,
      "region \(rect) outside a \(image.width)×\(image.height) image")
    self.image = image
    x = rect.x
    y = rect.y
    width = rect.width
    height = rect.height
  }

  var size: PixelSize { PixelSize(width: width, height: height) }
  var pixelCount: Int { width * height }

  /// The index of the first component of the region's pixel (`column`, `row`) in the photo's
  /// components (bytes for 8-bit photos, 16-bit values for 16-bit ones).
  func componentIndex(column: Int, row: Int) -> Int {
    ((y + row) * image.width + x + column) * image.format.channelCount
  }
}
