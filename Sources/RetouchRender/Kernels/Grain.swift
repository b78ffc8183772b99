// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore

/// A tileable film-grain texture (512 × 512 export pixels) and its box-filtered mip chain.
///
/// Level 0: hashed white noise (sum of four uniform variates, close to Gaussian) blurred with the
/// binomial kernel `[1 2 1]/4` in both directions, wrapping at the tile edges, so grains are
/// clumps about 1.5 export pixels across (neighbour correlation 2/3) rather than single-pixel
/// speckle; then shifted to zero
/// mean and scaled to unit standard deviation. Level `k + 1` is the 2 × 2 box average of level
/// `k`, so level `k` *is* the export grain box-shrunk by `2^k`. Built once per process (≈ 6 ms,
/// 1.4 MB), deterministic: the same on every run and platform.
@usableFromInline
struct GrainTexture: Sendable {
  @usableFromInline static let size = 512
  static let shared = GrainTexture(seed: 0x6772_6169_6E21)
  @usableFromInline let levels: [[Float]]

  init(seed: UInt64) {
    let n = Self.size
    var base = [Float](repeating: 0, count: n * n)
    var state = seed
    for i in 0..<(n * n) {
      var s: Float = 0
      for _ in 0..<4 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        s += Float(z >> 40) / Float(1 << 24)
      }
      base[i] = s - 2
    }
    let k: [Float] = [1, 2, 1].map { $0 / 4 }
    var tmp = base
    for y in 0..<n {
      for x in 0..<n {
        var s: Float = 0
        for j in 0..<3 { s += k[j] * base[y * n + (x + j - 1 + n) % n] }
        tmp[y * n + x] = s
      }
    }
    for y in 0..<n {
      for x in 0..<n {
        var s: Float = 0
        for j in 0..<3 { s += k[j] * tmp[((y + j - 1 + n) % n) * n + x] }
        base[y * n + x] = s
      }
    }
    let mean = base.reduce(0.0) { $0 + Double($1) } / Double(n * n)
    let variance =
      base.reduce(0.0) { $0 + (Double($1) - mean) * (Double($1) - mean) } / Double(n * n)
    let inv = 1 / variance.squareRoot()
    var levels = [base.map { Float((Double($0) - mean) * inv) }]
    var size = n
    while size > 1 {
      let prev = levels[levels.count - 1]
      let half = size / 2
      var next = [Float](repeating: 0, count: half * half)
      for y in 0..<half {
        for x in 0..<half {
          let i = 2 * y * size + 2 * x
          next[y * half + x] = (prev[i] + prev[i + 1] + prev[i + size] + prev[i + size + 1]) * 0.25
        }
      }
      levels.append(next)
      size = half
    }
    self.levels = levels
  }
}

/// Film grain for one output image: monochrome, clumped, fixed in export-pixel coordinates, and
/// averaged over each output pixel's footprint when rendering below full size.
///
/// Output pixel `x` at render scale `s` covers export pixels `[x/s, (x+1)/s)`. The noise is read
/// from the `GrainTexture` mip chain at level `ℓ = log2(1/s)` (trilinear: bilinear within the
/// two nearest levels, blended), so at `s = 2^-k` the preview's grain is exactly the export's
/// grain box-shrunk by `2^k`. The seed shifts the tile by a multiple of 64 export pixels (64
/// placements), which keeps that exactness for every `s ≥ 1/64`. Deterministic: the same seed,
/// scale and row give the same values.
///
/// ``fillRow(y:into:)`` writes `n = amount · 0.05 · T` (encoded units, 0…1 scale; `T` has unit
/// standard deviation at export size). The renderer adds it to each encoded R, G, B component
/// with a midtone weight, ``apply(_:noise:)``: `c' = c + n · 4c(1 − c)`, so the grain is
/// strongest at mid grey (σ ≈ 0.05 ≈ 13 of 255 at `amount` 1) and absent at 0 and 1.
///
/// Cost: creating the field O(output width); each row 4 look-ups per pixel when `s` is a power
/// of two, 8 otherwise: 4000×3000 rows in ≈ 16 ms (power of two) or ≈ 36 ms (trilinear) on one
/// thread (release, shared 2-core AVX-512 VM).
public struct GrainField: Sendable {
  public let amount: Float
  public let renderScale: Double
  public let outputWidth: Int
  public let seed: UInt64
  @usableFromInline let levels: (Int, Int)
  @usableFromInline let levelBlend: Float
  @usableFromInline let columns: [Int32]  // per level: i0, i1 (×2 levels)
  @usableFromInline let columnWeights: [Float]
  @usableFromInline let offset: (x: Double, y: Double)
  @usableFromInline let texture: GrainTexture

  /// The grain strength at `amount` 1: the standard deviation at mid grey (encoded units).
  public static let fullStrength: Float = 0.05

  /// `amount` in 0…1 (clamped); `renderScale` > 0 (output pixels per export pixel).
  public init(amount: Double, renderScale: Double = 1, outputWidth: Int, seed: UInt64 = 0) {
    precondition(renderScale > 0 && outputWidth > 0)
    self.amount = Float(min(max(amount, 0), 1))
    self.renderScale = renderScale
    self.outputWidth = outputWidth
    self.seed = seed
    texture = GrainTexture.shared
    let last = texture.levels.count - 1
    let l = min(max(Foundation.log2(1 / renderScale), 0), Double(last))
    let k0 = min(Int(l.rounded(.down)), last)
    levels = (k0, min(k0 + 1, last))
    levelBlend = Float(l - Double(k0))
    var h = seed &* 0x9E37_79B9_7F4A_7C15
    h ^= h >> 29
    offset = (Double(h % 8) * 64, Double((h >> 3) % 8) * 64)
    var cols = [Int32](repeating: 0, count: outputWidth * 4)
    var wts = [Float](repeating: 0, count: outputWidth * 2)
    for (j, k) in [levels.0, levels.1].enumerated() {
      for x in 0..<outputWidth {
        let (i0, i1, t) = GrainField.taps(
          (Double(x) + 0.5) / renderScale + offset.x, level: k)
        cols[(j * outputWidth + x) * 2] = Int32(i0)
        cols[(j * outputWidth + x) * 2 + 1] = Int32(i1)
        wts[j * outputWidth + x] = t
      }
    }
    columns = cols
    columnWeights = wts
  }

  public var isNeutral: Bool { amount == 0 }

  /// Bilinear taps (wrapping) at export coordinate `e` on mip level `k`.
  @usableFromInline
  static func taps(_ e: Double, level k: Int) -> (Int, Int, Float) {
    let size = GrainTexture.size >> k
    let c = e / Double(1 << k) - 0.5
    let f = c.rounded(.down)
    let i0 = ((Int(f) % size) + size) % size
    return (i0, (i0 + 1) % size, Float(c - f))
  }

  /// Writes the grain values `n` (see the type) for output row `y` into `row[0..<outputWidth]`.
  @inlinable
  public func fillRow(y: Int, into row: UnsafeMutablePointer<Float>) {
    let scale = amount * GrainField.fullStrength
    let ey = (Double(y) + 0.5) / renderScale + offset.y
    let blend = levelBlend
    let singleLevel = blend == 0 || levels.0 == levels.1
    columns.withUnsafeBufferPointer { cols in
      columnWeights.withUnsafeBufferPointer { wts in
        for j in 0..<(singleLevel ? 1 : 2) {
          let k = j == 0 ? levels.0 : levels.1
          let size = GrainTexture.size >> k
          let (r0, r1, ty) = GrainField.taps(ey, level: k)
          let weight = singleLevel ? scale : (j == 0 ? (1 - blend) * scale : blend * scale)
          texture.levels[k].withUnsafeBufferPointer { tex in
            let row0 = tex.baseAddress! + r0 * size
            let row1 = tex.baseAddress! + r1 * size
            let c = cols.baseAddress! + j * outputWidth * 2
            let w = wts.baseAddress! + j * outputWidth
            for x in 0..<outputWidth {
              let i0 = Int(c[2 * x])
              let i1 = Int(c[2 * x + 1])
              let t = w[x]
              let a = row0[i0] + t * (row0[i1] - row0[i0])
              let b = row1[i0] + t * (row1[i1] - row1[i0])
              let v = (a + ty * (b - a)) * weight
              row[x] = j == 0 ? v : row[x] + v
            }
          }
        }
      }
    }
  }

  /// Adds grain `noise` to one encoded component `c` (0…1) with the midtone weight `4c(1 − c)`.
  @inlinable
  public static func apply(_ c: Float, noise: Float) -> Float {
    c + noise * 4 * c * (1 - c)
  }

  /// Adds the grain to an 8- or 16-bit image in place (encoded values, R, G, B; alpha kept), in
  /// parallel row bands: the unfused path, also used by tests. No-op when ``isNeutral``.
  public func apply(to image: inout Image, threads: Int? = nil) {
    guard !isNeutral else { return }
    precondition(image.width == outputWidth, "grain field made for width \(outputWidth)")
    let field = self
    let w = image.width
    let format = image.format
    let height = image.height
    let bpr = image.bytesPerRow
    image.withUnsafeMutableBytes { raw in
      let base = SendableRawPointer(raw.baseAddress!)
      ParallelBands.forEach(rows: height, minimumBandHeight: 8, threads: threads) { rows in
        let buf = UnsafeMutablePointer<Float>.allocate(capacity: w * 4)
        defer { buf.deallocate() }
        let (n, r, g, b) = (buf, buf + w, buf + 2 * w, buf + 3 * w)
        for y in rows {
          let p = base.pointer + y * bpr
          field.fillRow(y: y, into: n)
          PixelRows.load(p, format: format, width: w, r: r, g: g, b: b)
          for x in 0..<w {
            r[x] = GrainField.apply(r[x], noise: n[x])
            g[x] = GrainField.apply(g[x], noise: n[x])
            b[x] = GrainField.apply(b[x], noise: n[x])
          }
          PixelRows.store(p, format: format, width: w, r: r, g: g, b: b)
        }
      }
    }
  }

  /// Scalar reference for one output pixel: the trilinear mip look-up in Double.
  public func noiseReference(x: Int, y: Int) -> Float {
    let ex = (Double(x) + 0.5) / renderScale + offset.x
    let ey = (Double(y) + 0.5) / renderScale + offset.y
    func bilinear(_ k: Int) -> Double {
      let size = GrainTexture.size >> k
      let tex = texture.levels[k]
      let cx = ex / Double(1 << k) - 0.5
      let cy = ey / Double(1 << k) - 0.5
      let fx = cx.rounded(.down)
      let fy = cy.rounded(.down)
      func at(_ i: Int, _ j: Int) -> Double {
        Double(tex[(((j % size) + size) % size) * size + ((i % size) + size) % size])
      }
      let (i, j) = (Int(fx), Int(fy))
      let (tx, ty) = (cx - fx, cy - fy)
      return (at(i, j) * (1 - tx) + at(i + 1, j) * tx) * (1 - ty)
        + (at(i, j + 1) * (1 - tx) + at(i + 1, j + 1) * tx) * ty
    }
    let t = Double(levelBlend)
    let v = t == 0 ? bilinear(levels.0) : bilinear(levels.0) * (1 - t) + bilinear(levels.1) * t
    return Float(v * Double(amount) * Double(GrainField.fullStrength))
  }
}
