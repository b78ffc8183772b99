// SPDX-License-Identifier: Apache-2.0

import RetouchCore

/// A depth (or disparity) map aligned with the upright photo: 0 is far, 1 is near, as portrait
/// modes store it (Apple's and Android's depth images are disparity, brighter = nearer).
///
/// Any size: it is sampled in unit coordinates of the photo, bilinearly.
public struct DepthMap: Sendable, Hashable {
  public let width: Int
  public let height: Int
  /// Row-major values in 0…1.
  public let values: [Float]

  /// A map from row-major values (clamped to 0…1).
  public init(width: Int, height: Int, values: [Float]) {
    precondition(
      width > 0 && height > 0 && values.count == width * height, "depth map shape mismatch")
    self.width = width
    self.height = height
    self.values = values.map { $0.isFinite ? min(max($0, 0), 1) : 0 }
  }

  /// A map from a greyscale-looking image (its luma; 8 or 16-bit).
  public init(image: Image) {
    var v = [Float](repeating: 0, count: image.pixelCount)
    let n = image.format.channelCount
    let scale = 1 / Float(image.format.maxValue)
    image.withUnsafeBytes { raw in
      for i in 0..<image.pixelCount {
        var sum: Float = 0
        for c in 0..<3 {
          let o = i * n + c
          sum +=
            image.format.bitDepth == 8
            ? Float(raw[o]) : Float(raw.load(fromByteOffset: o * 2, as: UInt16.self))
        }
        v[i] = sum / 3 * scale
      }
    }
    self.init(width: image.width, height: image.height, values: v)
  }

  /// The value at unit coordinates (`u`, `v`) (pixel centres at half-integers), bilinear, edges clamped.
  public func value(u: Double, v: Double) -> Float {
    let x = min(max(u * Double(width) - 0.5, 0), Double(width - 1))
    let y = min(max(v * Double(height) - 0.5, 0), Double(height - 1))
    let x0 = Int(x), y0 = Int(y)
    let x1 = min(x0 + 1, width - 1), y1 = min(y0 + 1, height - 1)
    let fx = Float(x - Double(x0)), fy = Float(y - Double(y0))
    let a = values[y0 * width + x0] + fx * (values[y0 * width + x1] - values[y0 * width + x0])
    let b = values[y1 * width + x0] + fx * (values[y1 * width + x1] - values[y1 * width + x0])
    return a + fy * (b - a)
  }

  /// The depth the photo is focused at: the 90th percentile of the map (the nearest large
  /// region, the subject of a portrait).
  public var focusDepth: Float {
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.9))]
  }
}

/// Background blur from depth: pixels behind the focus plane are blended with a blurred copy,
/// more the further behind they are, like a wide aperture.
///
/// The blur is three passes of a box filter in each direction (close to a Gaussian, O(1) per
/// pixel for any radius), on the display-encoded values. Its radius is `amount × 1.5 %` of the
/// image's long edge, so a preview at any render scale blurs like the export shrunk. The blend
/// weight is `smoothstep((focus − depth − 0.05) / 0.25)`: the subject and everything within 0.05
/// of it stay sharp, the far background takes the full blur. Without a depth map the setting has
/// no effect (the renderer never guesses depth).
public struct BackgroundBlur: Sendable, Hashable {
  /// 0…1.
  public let amount: Float

  public init(amount: Double) { self.amount = Float(min(max(amount, 0), 1)) }

  public var isNeutral: Bool { amount == 0 }

  /// The box radius in pixels for an image with `longEdge` pixels.
  public func radius(longEdge: Int) -> Int {
    max(0, Int((amount * 0.015 * Float(longEdge) / 1.7).rounded()))
  }

  /// Blurs the background of `image` in place. `depth` is aligned with `image` (unit coordinates).
  public func apply(to image: inout Image, depth: DepthMap, threads: Int? = nil) {
    let r = radius(longEdge: image.size.longEdge)
    guard !isNeutral, r > 0 else { return }
    let w = image.width, h = image.height, n = image.format.channelCount
    let focus = depth.focusDepth
    // Per-pixel weight, from the depth map at the image's resolution.
    var weight = [Float](repeating: 0, count: w * h)
    weight.withUnsafeMutableBufferPointer { wb in
      let out = SendableRawPointer(UnsafeMutableRawPointer(wb.baseAddress!))
      ParallelBands.forEach(rows: h, threads: threads) { rows in
        let p = out.pointer.assumingMemoryBound(to: Float.self)
        for y in rows {
          for x in 0..<w {
            let d = depth.value(u: (Double(x) + 0.5) / Double(w), v: (Double(y) + 0.5) / Double(h))
            p[y * w + x] = SpatialMath.smoothstep((focus - d - 0.05) / 0.25)
          }
        }
      }
    }
    guard weight.contains(where: { $0 > 0 }) else { return }
    var planar = PlanarImage(image, threads: threads)
    let original = planar
    for _ in 0..<3 { Self.boxBlur(&planar, radius: r, threads: threads) }
    // Blend: original where near, blurred where far; alpha untouched.
    var blended = original
    let stride = planar.planeStride
    blended.withUnsafeMutableFloats { dst in
      planar.withUnsafeFloats { blurred in
        weight.withUnsafeBufferPointer { wt in
          for c in 0..<min(3, n) {
            let d = dst + c * stride, b = blurred + c * stride
            for i in 0..<(w * h) { d[i] += wt[i] * (b[i] - d[i]) }
          }
        }
      }
    }
    var result = blended.image(bitDepth: image.format.bitDepth, threads: threads)
    result.colorSpace = image.colorSpace
    image = result.format == image.format ? result : image
  }

  /// One box-filter pass of `radius` along rows, then along columns, edges clamped.
  static func boxBlur(_ planar: inout PlanarImage, radius r: Int, threads: Int?) {
    // Colour planes only (alpha keeps its edges).
    let w = planar.width, h = planar.height, planes = min(3, planar.channelCount)
    let stride = planar.planeStride
    let norm = 1 / Float(2 * r + 1)
    planar.withUnsafeMutableFloats { data in
      let base = SendableRawPointer(UnsafeMutableRawPointer(data))
      // Rows.
      ParallelBands.forEach(rows: h * planes, threads: threads) { lines in
        let line = UnsafeMutablePointer<Float>.allocate(capacity: w)
        defer { line.deallocate() }
        let p = base.pointer.assumingMemoryBound(to: Float.self)
        for l in lines {
          let row = p + (l / h) * stride + (l % h) * w
          line.update(from: row, count: w)
          var sum: Float = 0
          for i in -r...r { sum += line[min(max(i, 0), w - 1)] }
          for x in 0..<w {
            row[x] = sum * norm
            sum += line[min(x + r + 1, w - 1)] - line[max(x - r, 0)]
          }
        }
      }
      // Columns.
      ParallelBands.forEach(rows: w * planes, threads: threads) { columns in
        let line = UnsafeMutablePointer<Float>.allocate(capacity: h)
        defer { line.deallocate() }
        let p = base.pointer.assumingMemoryBound(to: Float.self)
        for col in columns {
          let plane = col / w, x = col % w
          let start = p + plane * stride + x
          for y in 0..<h { line[y] = start[y * w] }
          var sum: Float = 0
          for i in -r...r { sum += line[min(max(i, 0), h - 1)] }
          for y in 0..<h {
            start[y * w] = sum * norm
            sum += line[min(y + r + 1, h - 1)] - line[max(y - r, 0)]
          }
        }
      }
    }
  }
}
