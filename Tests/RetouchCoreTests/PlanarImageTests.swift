// SPDX-License-Identifier: Apache-2.0

import RetouchCore
import RetouchTestSupport
import Testing

/// A seeded random image (callers note the seed beside the call).
func randomImage(width: Int, height: Int, format: PixelFormat, seed: UInt64) -> Image {
  var rng = SeededRandom(seed: seed)
  var image = Image(width: width, height: height, format: format)
  image.withUnsafeMutableBytes { raw in
    for i in 0..<raw.count { raw[i] = UInt8.random(in: 0...255, using: &rng) }
  }
  return image
}

/// The largest absolute difference between two same-shaped images' components.
func maxDelta(_ a: Image, _ b: Image) -> Int {
  precondition(a.size == b.size && a.format == b.format)
  var worst = 0
  for y in 0..<a.height {
    for x in 0..<a.width {
      for (p, q) in zip(a.pixel(x: x, y: y), b.pixel(x: x, y: y)) { worst = max(worst, abs(p - q)) }
    }
  }
  return worst
}

@Suite struct PlanarImageTests {
  @Test(arguments: [PixelFormat.rgb8, .rgba8], [PlanarImage.Encoding.encoded, .linear])
  func eightBitRoundTripIsExact(format: PixelFormat, encoding: PlanarImage.Encoding) {
    // Every code in every channel: 256 × 3 pixels with shifted codes per channel.
    var image = Image(width: 256, height: 3, format: format)
    for y in 0..<3 {
      for x in 0..<256 {
        image.setPixel(x: x, y: y, (0..<format.channelCount).map { (x + 85 * (y + $0)) % 256 })
      }
    }
    let planar = PlanarImage(image, encoding: encoding, threads: 2)
    #expect(planar.encoding == encoding)
    let back = planar.image(bitDepth: 8)
    #expect(back.format == format)
    #expect(back.hasSamePixels(as: image))
  }

  @Test(arguments: [PixelFormat.rgb16, .rgba16], [PlanarImage.Encoding.encoded, .linear])
  func sixteenBitRoundTripWithinOneCode(format: PixelFormat, encoding: PlanarImage.Encoding) {
    let image = randomImage(width: 211, height: 97, format: format, seed: 16)  // seed 16
    let back = PlanarImage(image, encoding: encoding).image(bitDepth: 16)
    #expect(maxDelta(image, back) <= 1)
  }

  @Test func planesHoldDecodedValues() {
    var image = Image(width: 2, height: 1, format: .rgba8)
    image.setPixel(x: 0, y: 0, [255, 128, 0, 51])
    image.setPixel(x: 1, y: 0, [10, 200, 30, 255])
    let encoded = PlanarImage(image)
    #expect(encoded.value(x: 0, y: 0, channel: 1) == Float(128.0 / 255.0))
    #expect(encoded.value(x: 0, y: 0, channel: 3) == 0.2)
    let linear = PlanarImage(image, encoding: .linear)
    #expect(abs(linear.value(x: 0, y: 0, channel: 1) - SRGBTransfer.decode(128 / 255)) < 1e-6)
    #expect(linear.value(x: 0, y: 0, channel: 3) == 0.2)  // alpha is never transfer-coded
    #expect(linear.value(x: 0, y: 0, channel: 0) == 1)
  }

  @Test func planesAreAlignedAndCopyOnWrite() {
    var a = PlanarImage(width: 5, height: 3, channelCount: 3)
    #expect(a.planeStride % 16 == 0 && a.planeStride >= 15)
    a.withUnsafeFloats { #expect(Int(bitPattern: $0) % 64 == 0) }
    let b = a
    a.setValue(0.5, x: 4, y: 2, channel: 2)
    #expect(a.value(x: 4, y: 2, channel: 2) == 0.5)
    #expect(b.value(x: 4, y: 2, channel: 2) == 0)
  }

  @Test func transferTablesInvertEachOther() {
    let encodeTable = SRGBTables.encodeTable, decodeTable = SRGBTables.decodeTable
    encodeTable.withUnsafeBufferPointer { et in
      decodeTable.withUnsafeBufferPointer { dt in
        // decode8 then encode returns the code.
        var worstCode: Float = 0
        for v in 0..<256 {
          let e = SRGBTables.encodeClamped(SRGBTables.decode8[v], table: et.baseAddress!)
          worstCode = max(worstCode, abs(e * 255 - Float(v)))
        }
        #expect(worstCode < 1e-3)
        // Dense sweep against the Double formulas.
        var worstEncode: Double = 0, worstDecode: Double = 0, worstInverse: Float = 0
        for i in 0...100_000 {
          let x = Double(i) / 100_000
          let enc = SRGBTables.encodeClamped(Float(x), table: et.baseAddress!)
          worstEncode = max(worstEncode, abs(Double(enc) - SRGBTables.encodeExact(x)))
          let dec = SRGBTables.decodeExtended(Float(x), table: dt.baseAddress!)
          worstDecode = max(worstDecode, abs(Double(dec) - SRGBTables.decodeExact(x)))
          let back = SRGBTables.encodeExtended(dec, table: et.baseAddress!)
          worstInverse = max(worstInverse, abs(back - Float(x)))
        }
        #expect(worstEncode < 5e-7)
        #expect(worstDecode < 5e-7)
        #expect(worstInverse < 2e-6)
        // Extended range mirrors and continues the curve.
        let mirrored = SRGBTables.decodeExtended(-0.5, table: dt.baseAddress!)
        #expect(abs(mirrored + SRGBTransfer.decode(0.5)) < 1e-6)
        #expect(
          abs(SRGBTables.encodeExtended(2, table: et.baseAddress!) - SRGBTransfer.encode(2)) < 1e-5)
        #expect(SRGBTables.encodeClamped(.nan, table: et.baseAddress!) == 0)
      }
    }
    for v in stride(from: Float(0), through: 1, by: 0.01) {
      #expect(abs(SRGBTransfer.encode(SRGBTransfer.decode(v)) - v) < 1e-5)
    }
  }

  @Test func displayP3AndSRGBRoundTripInGamut() {
    var image = Image(width: 3, height: 1, format: .rgb8)
    image.setPixel(x: 0, y: 0, [200, 40, 60])
    image.setPixel(x: 1, y: 0, [255, 255, 255])
    image.setPixel(x: 2, y: 0, [30, 160, 90])
    let srgb = PlanarImage(image)
    let p3 = srgb.converted(to: .displayP3)
    #expect(p3.colorSpace == .displayP3)
    // Converted, not relabelled: a saturated sRGB red is less saturated in P3 terms.
    #expect(p3.value(x: 0, y: 0, channel: 0) < srgb.value(x: 0, y: 0, channel: 0) - 0.02)
    // White stays white (same D65 white point).
    for c in 0..<3 { #expect(abs(p3.value(x: 1, y: 0, channel: c) - 1) < 1e-4) }
    let back = p3.converted(to: .sRGB).image(bitDepth: 8)
    #expect(back.colorSpace == .sRGB)
    #expect(maxDelta(back, image) == 0)
  }

  @Test func wideColoursSurviveUnclippedInFloat() {
    var p3 = PlanarImage(width: 1, height: 1, channelCount: 3, colorSpace: .displayP3)
    p3.setValue(1, x: 0, y: 0, channel: 1)  // P3 pure green is outside sRGB
    let s = p3.converted(to: .sRGB)
    #expect(s.value(x: 0, y: 0, channel: 0) < -0.1)
    #expect(s.value(x: 0, y: 0, channel: 1) > 1)
    let again = s.converted(to: .displayP3)
    #expect(abs(again.value(x: 0, y: 0, channel: 1) - 1) < 1e-4)
    #expect(abs(again.value(x: 0, y: 0, channel: 0)) < 1e-4)
  }

  @Test func bt2020PrimariesMapIntoP3() {
    let m = ColorSpace.linearMatrix(from: .bt2020, to: .displayP3)
    let white = m.applied(to: (1, 1, 1))
    #expect(abs(white.0 - 1) < 1e-6 && abs(white.1 - 1) < 1e-6 && abs(white.2 - 1) < 1e-6)
    let green = m.applied(to: (0, 1, 0))
    #expect(green.0 < 0)  // BT.2020 green lies outside P3
    #expect(RGBPrimaries.displayP3.contains(RGBPrimaries.sRGB.green))
    #expect(!RGBPrimaries.sRGB.contains(RGBPrimaries.adobeRGB.green))
    // The derived matrix agrees with ColorSpace's published one.
    let derived = RGBPrimaries.displayP3.toXYZ.elements
    for (a, b) in zip(derived, ColorSpace.displayP3.toXYZ) { #expect(abs(a - b) < 1e-5) }
  }
}
