// SPDX-License-Identifier: Apache-2.0

import CRetouchShims
import Foundation
import RetouchCore
import RetouchTestSupport
import Testing

@testable import RetouchIO

/// The ICC profile embedded in a JPEG's APP2 `ICC_PROFILE` segments, joined in sequence order.
/// A tiny marker walk so these tests do not depend on the JPEG decoder.
func embeddedICCProfile(jpeg: Data) -> Data? {
  let b = [UInt8](jpeg)
  guard b.count > 4, b[0] == 0xFF, b[1] == 0xD8 else { return nil }
  var chunks: [Int: Data] = [:]
  var i = 2
  while i + 4 <= b.count, b[i] == 0xFF {
    let marker = b[i + 1]
    if marker == 0xDA || marker == 0xD9 { break }
    let length = Int(b[i + 2]) << 8 | Int(b[i + 3])
    guard length >= 2, i + 2 + length <= b.count else { return nil }
    let payload = b[(i + 4)..<(i + 2 + length)]
    let tag = Array("ICC_PROFILE".utf8) + [0]
    if marker == 0xE2, payload.count > 14, Array(payload.prefix(12)) == tag {
      let seq = Int(payload[payload.startIndex + 12])
      chunks[seq] = Data(payload.dropFirst(14))
    }
    i += 2 + length
  }
  guard !chunks.isEmpty else { return nil }
  return chunks.keys.sorted().reduce(into: Data()) { $0.append(chunks[$1]!) }
}

func solid(_ value: [Int], format: PixelFormat, width: Int = 8, height: Int = 5) -> Image {
  var image = Image(width: width, height: height, format: format)
  for y in 0..<height { for x in 0..<width { image.setPixel(x: x, y: y, value) } }
  return image
}

@Suite struct ColorManagementTests {
  static let adobeLike = ICCProfiles.rgbProfile(
    primaries: .adobeRGB, curve: .gamma(563.0 / 256.0),
    description: "Adobe RGB (1998)-like test profile")

  @Test(arguments: ColorSpace.allCases)
  func builtInProfilesOpenAndAreDeterministic(space: ColorSpace) throws {
    let data = ICCProfiles.data(for: space)
    #expect(data.count > 128 && data.count < 4096)
    #expect(Array(data[36..<40]) == Array("acsp".utf8))
    let again = ICCProfiles.rgbProfile(
      primaries: space.primaries, curve: .sRGB, description: space.displayName)
    #expect(again == data)  // no timestamp or ID varies between builds
    let context = LCMSContext()
    let profile = try #require(LCMSProfile(data, context: context))
    #expect(profile.isRGB)
    #expect(profile.profileDescription == space.displayName)
    // The stored curve is the sRGB curve.
    let curves = try #require(profile.toneCurves(at: 0.5))
    #expect(curves.allSatisfy { abs($0 - SRGBTransfer.decode(0.5)) < 1e-4 })
    #expect(context.lastError == nil)
  }

  @Test func builtInProfilesRoundTripAColour() throws {
    let context = LCMSContext()
    let srgb = try #require(LCMSProfile(ICCProfiles.data(for: .sRGB), context: context))
    let p3 = try #require(LCMSProfile(ICCProfiles.data(for: .displayP3), context: context))
    let colour: [UInt8] = [200, 60, 40, 30, 160, 90, 128, 128, 128]
    // Round trip at 16 bits: an 8-bit intermediate alone would cost up to 2 codes in dark,
    // saturated channels, which says nothing about the profiles. Unoptimised, as ColorConversion
    // runs 16-bit images: lcms's optimised 16-bit path (a 33³ grid) was off by 590 codes here.
    let toP3x16 = try #require(
      LCMSTransform(
        from: srgb, format: rt_lcms_TYPE_RGB_16, to: p3, format: rt_lcms_TYPE_RGB_16,
        flags: rt_lcms_FLAGS_NOOPTIMIZE))
    let toSRGBx16 = try #require(
      LCMSTransform(
        from: p3, format: rt_lcms_TYPE_RGB_16, to: srgb, format: rt_lcms_TYPE_RGB_16,
        flags: rt_lcms_FLAGS_NOOPTIMIZE))
    let wide = colour.map { UInt16($0) * 257 }
    var mid16 = [UInt16](repeating: 0, count: 9), back16 = [UInt16](repeating: 0, count: 9)
    toP3x16.transform(wide, &mid16, count: 3)
    toSRGBx16.transform(mid16, &back16, count: 3)
    #expect(mid16[0] < wide[0])  // the sRGB red is less saturated in P3: really converted
    // Within 1/8 of an 8-bit code.
    #expect(
      zip(wide, back16).allSatisfy { abs(Int($0) - Int($1)) <= 32 },
      "\(wide) → \(mid16) → \(back16)")
    let toP3 = try #require(
      LCMSTransform(from: srgb, format: rt_lcms_TYPE_RGB_8, to: p3, format: rt_lcms_TYPE_RGB_8))
    var mid = [UInt8](repeating: 0, count: 9)
    toP3.transform(colour, &mid, count: 3)
    // Our kernel agrees with lcms on the sRGB → P3 step (8-bit, within rounding).
    var image = Image(width: 3, height: 1, format: .rgb8)
    for x in 0..<3 { image.setPixel(x: x, y: 0, colour[(3 * x)..<(3 * x + 3)].map(Int.init)) }
    let ours = PlanarImage(image).converted(to: .displayP3).image()
    for x in 0..<3 {
      for c in 0..<3 { #expect(abs(ours.pixel(x: x, y: 0)[c] - Int(mid[3 * x + c])) <= 1) }
    }
  }

  @Test func noProfileMeansSRGBUnchanged() {
    let image = solid([10, 200, 30], format: .rgb8)
    var warnings: [String] = []
    let out = ColorConversion.toWorkingSpace(image, profile: nil, nclx: nil, warnings: &warnings)
    #expect(out.hasSamePixels(as: image) && out.colorSpace == .sRGB)
    #expect(warnings.isEmpty)
  }

  @Test func sRGBAndP3EquivalentProfilesOnlyRetag() throws {
    let image = solid([10, 200, 30], format: .rgb8)
    for (profile, space) in [
      (ICCProfiles.data(for: .sRGB), ColorSpace.sRGB),
      (ICCProfiles.data(for: .displayP3), .displayP3),
      // Another build of the same colours under another name: still equal in effect.
      (
        try #require(
          ICCProfiles.rgbProfile(primaries: .sRGB, curve: .sRGB, description: "My sRGB")), .sRGB
      ),
    ] {
      var warnings: [String] = []
      let out = ColorConversion.toWorkingSpace(
        image, profile: profile, nclx: nil, warnings: &warnings)
      #expect(out.colorSpace == space)
      var expected = image
      expected.colorSpace = space
      #expect(out.hasSamePixels(as: expected))
      #expect(warnings.isEmpty)
    }
  }

  @Test(arguments: [PixelFormat.rgb8, .rgba8, .rgb16, .rgba16])
  func adobeRGBGreenIsConvertedToDisplayP3(format: PixelFormat) throws {
    let profile = try #require(Self.adobeLike)
    let m = format.maxValue
    let green = format.hasAlpha ? [0, m, 0, m / 3] : [0, m, 0]
    let image = solid(green, format: format, width: 40, height: 70)
    var warnings: [String] = []
    let out = ColorConversion.toWorkingSpace(
      image, profile: profile, nclx: nil, warnings: &warnings)
    #expect(warnings.isEmpty)
    #expect(out.colorSpace == .displayP3)  // Adobe green lies outside sRGB
    let p = out.pixel(x: 39, y: 69)
    #expect(p != green, "converted, not just relabelled")
    #expect(p[1] > m * 9 / 10 && p[0] < m / 10, "\(p)")
    if format.hasAlpha { #expect(p[3] == m / 3) }  // alpha copied
    // Every band got converted (the transform runs over row bands in parallel).
    #expect(out.pixel(x: 0, y: 0) == p)
  }

  @Test func narrowGamutProfileConvertsToSRGB() throws {
    // sRGB primaries with a plain 1.8 gamma: inside sRGB, but not sRGB. Code 128 is
    // 0.502^1.8 = 0.2893 linear, which the sRGB curve encodes as 0.5753 → 146.7.
    let profile = try #require(
      ICCProfiles.rgbProfile(primaries: .sRGB, curve: .gamma(1.8), description: "gamma 1.8"))
    let image = solid([128, 128, 128], format: .rgb8)
    var warnings: [String] = []
    let out = ColorConversion.toWorkingSpace(
      image, profile: profile, nclx: nil, warnings: &warnings)
    #expect(out.colorSpace == .sRGB)
    #expect(out.pixel(x: 0, y: 0).allSatisfy { abs($0 - 147) <= 1 }, "\(out.pixel(x: 0, y: 0))")
  }

  @Test(arguments: ["s04", "g54"])
  func realAdobeRGBProfilesConvertToP3(id: String) throws {
    let profile = try #require(embeddedICCProfile(jpeg: try SharedPhotos.data(id)))
    let context = LCMSContext()
    let opened = try #require(LCMSProfile(profile, context: context))
    #expect(opened.profileDescription?.contains("Adobe RGB") == true)
    let image = solid([60, 200, 80], format: .rgb8)
    var warnings: [String] = []
    let out = ColorConversion.toWorkingSpace(
      image, profile: profile, nclx: nil, warnings: &warnings)
    #expect(warnings.isEmpty)
    #expect(out.colorSpace == .displayP3)
    #expect(out.pixel(x: 0, y: 0) != [60, 200, 80])
    // Same answer as our synthetic Adobe-like profile, within lcms rounding.
    let adobeLike = try #require(Self.adobeLike)
    let synthetic = ColorConversion.toWorkingSpace(
      image, profile: adobeLike, nclx: nil, warnings: &warnings)
    #expect(
      zip(out.pixel(x: 0, y: 0), synthetic.pixel(x: 0, y: 0)).allSatisfy { abs($0 - $1) <= 2 })
  }

  @Test func realDisplayP3ProfileOnlyRetags() throws {
    let profile = try #require(embeddedICCProfile(jpeg: try SharedPhotos.data("g52")))
    let image = solid([250, 30, 20], format: .rgb8)
    var warnings: [String] = []
    let out = ColorConversion.toWorkingSpace(
      image, profile: profile, nclx: nil, warnings: &warnings)
    #expect(out.colorSpace == .displayP3)
    var expected = image
    expected.colorSpace = .displayP3
    #expect(out.hasSamePixels(as: expected))
  }

  @Test func unreadableAndNonRGBProfilesWarnAndKeepPixels() {
    let image = solid([10, 200, 30], format: .rgb8)
    var cmyk = ICCProfiles.data(for: .sRGB)
    cmyk.replaceSubrange(16..<20, with: Array("CMYK".utf8))
    let cases: [(Data, String)] = [
      (Data("definitely not an ICC profile, just some text".utf8), "lcms2: "),
      (cmyk, "CMYK"),
    ]
    for (profile, needle) in cases {
      var warnings: [String] = []
      let out = ColorConversion.toWorkingSpace(
        image, profile: profile, nclx: nil, warnings: &warnings)
      #expect(out.hasSamePixels(as: image))
      #expect(warnings.count == 1)
      #expect(warnings.first?.contains(needle) == true, "\(warnings)")
    }
  }

  @Test func nclxCodePoints() {
    let image = solid([200, 60, 40], format: .rgb16)
    func run(_ primaries: Int, _ transfer: Int) -> (Image, [String]) {
      var warnings: [String] = []
      let nclx = NCLXColorInfo(
        colorPrimaries: primaries, transferCharacteristics: transfer, matrixCoefficients: 9,
        fullRange: true)
      return (
        ColorConversion.toWorkingSpace(image, profile: nil, nclx: nclx, warnings: &warnings),
        warnings
      )
    }
    let bt709 = run(1, 13)
    #expect(bt709.0.colorSpace == .sRGB && bt709.0.hasSamePixels(as: image) && bt709.1.isEmpty)
    let p3 = run(12, 13)
    #expect(p3.0.colorSpace == .displayP3 && p3.1.isEmpty)
    #expect(p3.0.pixel(x: 0, y: 0) == image.pixel(x: 0, y: 0))
    let bt2020 = run(9, 1)
    #expect(bt2020.0.colorSpace == .displayP3 && bt2020.1.isEmpty)
    // BT.2020 red is more saturated than P3 red: converted values differ and stay red.
    let q = bt2020.0.pixel(x: 0, y: 0)
    #expect(q != image.pixel(x: 0, y: 0) && q[0] > q[1] && q[0] > q[2], "\(q)")
    // HDR is tone-mapped without a warning: PQ into P3 from BT.2020, HLG into sRGB from BT.709.
    let pq = run(9, 16)
    #expect(pq.0.colorSpace == .displayP3 && pq.1.isEmpty && !pq.0.hasSamePixels(as: image))
    let hlg = run(1, 18)
    #expect(hlg.0.colorSpace == .sRGB && hlg.1.isEmpty && !hlg.0.hasSamePixels(as: image))
  }
}
