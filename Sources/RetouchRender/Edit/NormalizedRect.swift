// SPDX-License-Identifier: Apache-2.0

/// A rectangle in unit coordinates of an image: (0, 0) is the top-left corner, (1, 1) the
/// bottom-right; ``full`` is the whole image.
public struct NormalizedRect: Sendable, Hashable, Codable, CustomStringConvertible {
  public var x: Double
  public var y: Double
  public var width: Double
  public var height: Double

  public init(x: Double, y: Double, width: Double, height: Double) {
    self.x = x
    self.y = y
    self.width = width
    self.height = height
  }

  /// The whole image.
  public static let full = NormalizedRect(x: 0, y: 0, width: 1, height: 1)

  public var maxX: Double { x + width }
  public var maxY: Double { y + height }
  public var midX: Double { x + width / 2 }
  public var midY: Double { y + height / 2 }

  /// Whether the rectangle covers the whole image (within 1e-9).
  public var isFull: Bool {
    abs(x) < 1e-9 && abs(y) < 1e-9 && abs(width - 1) < 1e-9 && abs(height - 1) < 1e-9
  }

  /// Whether it lies inside the image with a positive size.
  public var isValid: Bool {
    x.isFinite && y.isFinite && width.isFinite && height.isFinite && width > 0 && height > 0
      && x >= -1e-9 && y >= -1e-9 && maxX <= 1 + 1e-9 && maxY <= 1 + 1e-9
  }

  /// The pixel rectangle for an image of `width × height`, rounded outwards to whole pixels and
  /// clamped to the image; at least 1×1.
  public func pixelRect(width w: Int, height h: Int) -> (x: Int, y: Int, width: Int, height: Int) {
    // Edges within 1e-6 px of a whole pixel snap to it, so 0.1 + 0.5 (= 0.6000000000000001)
    // of 450 rows is row 270, not 271.
    let eps = 1e-6
    func down(_ v: Double) -> Int {
      v.isFinite ? Int(max(-1, min(Double(Int32.max), (v + eps).rounded(.down)))) : 0
    }
    func up(_ v: Double) -> Int {
      v.isFinite ? Int(max(-1, min(Double(Int32.max), (v - eps).rounded(.up)))) : 0
    }
    let x0 = max(0, min(w - 1, down(x * Double(w))))
    let y0 = max(0, min(h - 1, down(y * Double(h))))
    let x1 = max(x0 + 1, min(w, up(maxX * Double(w))))
    let y1 = max(y0 + 1, min(h, up(maxY * Double(h))))
    return (x0, y0, x1 - x0, y1 - y0)
  }

  public var description: String { "(\(x), \(y), \(width), \(height))" }

  // Encoded as [x, y, width, height].
  public init(from decoder: any Decoder) throws {
    var c = try decoder.unkeyedContainer()
    x = try c.decode(Double.self)
    y = try c.decode(Double.self)
    width = try c.decode(Double.self)
    height = try c.decode(Double.self)
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.unkeyedContainer()
    try c.encode(x)
    try c.encode(y)
    try c.encode(width)
    try c.encode(height)
  }
}
