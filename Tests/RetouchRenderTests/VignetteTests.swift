// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import Testing

@testable import RetouchRender

@Suite struct VignetteTests {
  static func rows(_ mask: VignetteMask) -> [[Float]] {
    let row = UnsafeMutablePointer<Float>.allocate(capacity: mask.width)
    defer { row.deallocate() }
    return (0..<mask.height).map { y in
      mask.fillRow(y: y, into: row)
      return Array(UnsafeBufferPointer(start: row, count: mask.width))
    }
  }

  @Test func neutralIsExactlyOne() {
    let m = Self.rows(VignetteMask(amount: 0, width: 37, height: 21))
    #expect(m.allSatisfy { $0.allSatisfy { $0 == 1 } })
  }

  @Test(arguments: [(1.0, 64, 48), (-0.7, 101, 33), (0.25, 40, 90)])
  func matchesReference(amount: Double, width: Int, height: Int) {
    let mask = VignetteMask(amount: amount, width: width, height: height)
    let m = Self.rows(mask)
    var worst: Float = 0
    for y in 0..<height {
      for x in 0..<width {
        worst = max(worst, abs(m[y][x] / mask.multiplierReference(x: x, y: y) - 1))
      }
    }
    // 257-entry table over ρ² with linear interpolation: 1e-4 relative.
    #expect(worst < 1e-4, "worst \(worst)")
  }

  /// The roots the fused pass's C twin reads are the multipliers to the power 1/2.4, and the
  /// multipliers are the ones the plain fill gives.
  @Test(arguments: [0.35, -0.9, 1.0])
  func rootsAreTheMultipliersRoots(amount: Double) {
    let mask = VignetteMask(amount: amount, width: 65, height: 47)
    let plain = Self.rows(mask)
    let row = UnsafeMutablePointer<Float>.allocate(capacity: 2 * mask.width)
    defer { row.deallocate() }
    var worst: Float = 0
    for y in 0..<mask.height {
      let inner = mask.fillRow(y: y, into: row, roots: row + mask.width)
      #expect(inner == mask.unitRange(y: y) ?? mask.width..<mask.width)
      for x in 0..<mask.width {
        #expect(row[x] == plain[y][x], "(\(x), \(y))")
        let want = Foundation.pow(Double(row[x]), 1 / 2.4)
        worst = max(worst, Float(abs(Double(row[mask.width + x]) - want) / want))
      }
    }
    // SpatialMath.exp2's accuracy (relative).
    #expect(worst < 1e-5, "relative error \(worst)")
  }

  @Test func darkensOrLightensCornersAndKeepsTheCentre() {
    let dark = Self.rows(VignetteMask(amount: 1, width: 121, height: 81))
    let light = Self.rows(VignetteMask(amount: -1, width: 121, height: 81))
    #expect(dark[40][60] == 1 && light[40][60] == 1)
    #expect(dark[0][0] < 0.3 && dark[0][0] > 0.2)  // about −2 stops
    #expect(light[0][0] > 3.3)  // about +2 stops
    // Monotone along the diagonal from the centre out.
    for i in 0..<40 {
      #expect(dark[40 - i - 1][60 - i - 1] <= dark[40 - i][60 - i])
      #expect(light[40 - i - 1][60 - i - 1] >= light[40 - i][60 - i])
    }
    // Elliptical: the midpoints of the long and short edges get the same value.
    #expect(abs(dark[40][0] - dark[0][60]) < 0.02)
  }

  @Test(arguments: [(64, 48), (65, 47)])
  func isSymmetric(width: Int, height: Int) {
    let m = Self.rows(VignetteMask(amount: 0.8, width: width, height: height))
    for y in 0..<height {
      for x in 0..<width {
        #expect(m[y][x] == m[height - 1 - y][x])
        #expect(m[y][x] == m[y][width - 1 - x])
      }
    }
  }

  /// The renderer skips the columns `unitRange(y:)` reports, so they must be exactly the ones
  /// whose multiplier is 1 (odd and even sizes, both signs).
  @Test(arguments: [(0.35, 64, 48), (-0.9, 65, 47), (1.0, 7, 5)])
  func unitRangeIsExactlyTheColumnsWithMultiplierOne(amount: Double, width: Int, height: Int) {
    let mask = VignetteMask(amount: amount, width: width, height: height)
    var row = [Float](repeating: 0, count: width)
    for y in 0..<height {
      row.withUnsafeMutableBufferPointer { _ = mask.fillRow(y: y, into: $0.baseAddress!) }
      let ones = row.indices.filter { row[$0] == 1 }
      let range = mask.unitRange(y: y)
      #expect(Array(range ?? 0..<0) == ones, "row \(y)")
    }
  }

  /// Decoding an 8-bit code and encoding it through the renderer's table gives it back, which
  /// is what lets the vignette leave multiplier-1 pixels alone.
  @Test func eightBitCodesRoundTrip() {
    #expect(PixelStages.code8RoundTrips)
  }
}
