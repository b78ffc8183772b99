// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchTestSupport
import Testing

@testable import RetouchRender

@Suite("Render plan: whole renders")
struct RenderPlanTests {
  /// Edits that change nothing, spelled in different ways.
  static let neutralConfigs: [EditConfig] = [
    .neutral,
    EditConfig(properties: [.exposure: 0, .straighten: 0, .vignette: 0]),
    EditConfig(look: LookSelection(.chrome, strength: 0)),
    EditConfig(crop: .full, editRotation: EditRotation.rotate90.combined(with: .rotate270)),
  ]

  @Test(arguments: PixelFormat.allCases)
  func neutralConfigIsTheIdentity(format: PixelFormat) {
    let image = syntheticImage(width: 37, height: 29, format: format, seed: 31)
    for config in Self.neutralConfigs {
      let out = image.rendered(with: config)
      guard out.size == image.size && out.format == image.format else {
        Issue.record("\(format) \(config): output is \(out.size) \(out.format)")
        continue
      }
      let d = SpatialTest.difference(out, image)
      // Within one code value (alpha included).
      #expect(d.max <= 1, "\(format) \(config): max \(d.max) at \(d.worst)")
    }
  }

  @Test func allNeutralPlanDoesNotTouchTheInput() {
    let image = syntheticImage(width: 40, height: 20, format: .rgba16, seed: 32)
    let before = image.withUnsafeBytes { Array($0) }
    let plan = RenderPlan(.neutral, sourceSize: image.size)
    #expect(plan.geometry == nil)
    #expect(plan.outputSize == image.size)
    let stages = PixelStages(
      config: .neutral, width: image.width, height: image.height, colorSpace: image.colorSpace,
      guide: nil, renderScale: 1, vignette: 0, options: RenderOptions())
    #expect(stages.isEmpty)
    let out = plan.render(image)
    #expect(out.hasSamePixels(as: image))
    #expect(image.withUnsafeBytes { Array($0) } == before)
    // A real edit writes its own copy too: the caller's image is never modified.
    _ = image.rendered(with: ReferenceEdit.typical)
    #expect(image.withUnsafeBytes { Array($0) } == before)
  }

  /// An 8-bit RGBA photo the caller keeps is rendered into a new image by the fused pass, which
  /// writes colour only: its alpha is copied, not left as whatever the new image's memory
  /// held (a suggestion's thumbnail of a cut-out came out with alpha 0 to 193 where the photo
  /// was opaque, and differently on every run).
  @Test(arguments: [
    EditConfig(properties: [.saturation: 0.13, .vibrance: 0.39]),
    EditConfig(properties: [.contrast: 0.35, .vignette: 0.25]),
    EditConfig(properties: [.exposure: 0.3, .shadows: 0.3]),
  ])
  func keptRGBASourceKeepsItsAlpha(config: EditConfig) {
    let image = syntheticImage(width: 67, height: 41, format: .rgba8, seed: 33)
    let out = image.rendered(with: config)
    #expect(out.format == .rgba8 && out.size == image.size)
    var changed = 0
    for y in 0..<image.height {
      for x in 0..<image.width where out.pixel(x: x, y: y)[3] != image.pixel(x: x, y: y)[3] {
        changed += 1
      }
    }
    #expect(changed == 0, "\(config): alpha changed on \(changed) pixels")
    #expect(!out.hasSamePixels(as: image), "\(config): nothing rendered")
  }

  /// +1 EV doubles scene-linear light: flat greys, full render.
  @Test(arguments: [PixelFormat.rgb16, .rgb8])
  func plusOneStopDoublesLinearLight(format: PixelFormat) {
    for linear in [0.05, 0.18, 0.35] {
      let encoded = SRGBTables.encodeExact(linear)
      let image = SpatialTest.image(16, 16, format: format) { _, _ in (encoded, encoded, encoded) }
      let out = image.rendered(with: EditConfig(properties: [.exposure: 1]))
      let m = Double(format.maxValue)
      // The input is quantised too: compare with twice the input's own linear value.
      let input = SRGBTables.decodeExact(Double(image.pixel(x: 0, y: 0)[0]) / m)
      for c in 0..<3 {
        let got = SRGBTables.decodeExact(Double(out.pixel(x: 8, y: 8)[c]) / m)
        // 16-bit: 0.02 % (LUT interpolation along the grey axis and the 4096-entry tone
        // table; measured ≤ 0.003 %). 8-bit: the output's rounding, half a code value, which is
        // a relative error of about 2.4 × 0.5/255 / e in linear light at encoded value e (1.3 %
        // at 0.1 linear), plus 0.1 %; measured 0.28–0.49 %.
        let e = SRGBTables.encodeExact(2 * input)
        let limit = format.bitDepth == 16 ? 0.0002 : 2.4 * 0.5 / 255 / e + 0.001
        #expect(abs(got / (2 * input) - 1) <= limit, "\(format) \(linear): \(input) → \(got)")
      }
    }
  }

  /// The vignette is centred on the cropped output, not on the source.
  @Test func vignetteIsCentredOnTheCrop() {
    let image = SpatialTest.image(200, 120, format: .rgb16) { _, _ in (0.5, 0.5, 0.5) }
    let crop = NormalizedRect(x: 0.05, y: 0.3, width: 0.6, height: 0.5)
    let out = image.rendered(with: EditConfig(properties: [.vignette: 1], crop: crop))
    let (w, h) = (out.width, out.height)
    #expect(out.size == PixelSize(width: 120, height: 60))
    var asymmetry = 0
    var brightest = 0
    for y in 0..<h {
      for x in 0..<w {
        let v = out.pixel(x: x, y: y)[1]
        brightest = max(brightest, v)
        asymmetry = max(asymmetry, abs(v - out.pixel(x: w - 1 - x, y: y)[1]))
        asymmetry = max(asymmetry, abs(v - out.pixel(x: x, y: h - 1 - y)[1]))
      }
    }
    // Mirror images of each other to a 16-bit code value (LUT-free path: only the vignette).
    #expect(asymmetry <= 1, "largest mirrored difference \(asymmetry)")
    let centre = out.pixel(x: w / 2, y: h / 2)[1]
    #expect(centre == brightest)
    #expect(centre == image.pixel(x: 0, y: 0)[1], "the centre is untouched")
    // Corners: 2 stops darker in linear light at amount 1 (multiplier 2^-2 at ρ² = 1, less
    // here because the corner pixel centres are half a pixel inside).
    let mask = VignetteMask(amount: 1, width: w, height: h)
    let expected = SRGBTables.encodeExact(
      SRGBTables.decodeExact(0.5) * Double(mask.multiplierReference(x: 0, y: 0)))
    let corner = Double(out.pixel(x: 0, y: 0)[1]) / 65535
    #expect(abs(corner - expected) < 2.0 / 65535, "corner \(corner), expected \(expected)")
  }

  /// Turn, flip and crop put each pixel where it belongs, after a full render with colour edits.
  @Test func geometryAndColourTogether() {
    // Every pixel distinct, neighbours at least 4 code values apart in R or G.
    let source = SpatialTest.image(60, 40, format: .rgb8) { x, y in
      (Double(4 * x) / 255, Double(6 * y) / 255, Double((x * 7 + y * 13) % 256) / 255)
    }
    let colour = EditConfig(properties: [.saturation: 0.3, .temperature: 0.2, .contrast: 0.2])
    let config = colour.with(
      crop: NormalizedRect(x: 0.25, y: 0.1, width: 0.5, height: 0.6), editRotation: .rotate90Flipped
    )
    let out = source.rendered(with: config)
    // Mirror, then turn clockwise: the shown image is 40×60; the crop is x 10..<30, y 6..<42.
    #expect(out.size == PixelSize(width: 20, height: 36))
    let shown = source.applyingOrientation(.rightMirrored)
    #expect(shown.size == PixelSize(width: 40, height: 60))
    let transform = ColorToneTransform(colour, colorSpace: .sRGB)
    var worst = 0
    for y in 0..<out.height {
      for x in 0..<out.width {
        let p = shown.pixel(x: x + 10, y: y + 6).map { Float($0) / 255 }
        let e = transform.apply(p[0], p[1], p[2])
        let expected = [e.0, e.1, e.2].map { Int(($0 * 255).rounded()) }
        let got = out.pixel(x: x, y: y)
        for c in 0..<3 { worst = max(worst, abs(got[c] - expected[c])) }
      }
    }
    // LUT interpolation of a mild colour edit: ≤ 1 code value measured; a pixel off by one place
    // is ≥ 4 code values away.
    #expect(worst <= 2, "largest difference \(worst)")
  }

  /// Straightening a real photo by 10° zooms enough that no corner is empty.
  @Test(arguments: [10.0, -10.0])
  func straightenedPhotoHasNoEmptyCorners(degrees: Double) throws {
    let photo = try TestPhoto.load("d08", minimumLongEdge: 400, longEdge: 400)
    for crop in [NormalizedRect.full, NormalizedRect(x: 0.3, y: 0.05, width: 0.65, height: 0.6)] {
      let config = EditConfig(
        properties: [.straighten: degrees, .exposure: 0.3, .saturation: 0.2], crop: crop)
      let plan = RenderPlan(config, sourceSize: photo.size)
      let out = plan.render(photo)
      let px = crop.pixelRect(width: photo.width, height: photo.height)
      #expect(out.size == PixelSize(width: px.width, height: px.height))
      // Every output corner maps inside the photo, so bilinear sampling never reads outside.
      let map = try #require(plan.geometry).outputToSource
      let (w, h) = (Double(out.width), Double(out.height))
      for (u, v) in [(0.0, 0.0), (w, 0), (0, h), (w, h)] {
        let p = map.apply(u, v)
        #expect(
          p.x >= -1e-6 && p.x <= Double(photo.width) + 1e-6 && p.y >= -1e-6
            && p.y <= Double(photo.height) + 1e-6,
          "\(degrees)° \(crop): corner (\(u), \(v)) → \(p)"
        )
      }
      // And no black along the border (sky and hills in d08; an empty corner would be black).
      for (x, y) in [
        (0, 0), (out.width - 1, 0), (0, out.height - 1), (out.width - 1, out.height - 1),
      ] {
        let p = out.pixel(x: x, y: y)
        #expect(p.max()! > 20, "\(degrees)° \(crop): corner pixel (\(x), \(y)) is \(p)")
      }
    }
  }
}

@Suite("Tone guide cache")
struct ToneGuideCacheTests {
  @Test func reusesTheGuideUntilThePixelsChange() {
    var image = Image(width: 64, height: 48, format: .rgb8)
    for y in 0..<48 { for x in 0..<64 { image.setPixel(x: x, y: y, [x * 4, y * 5, 100]) } }
    let cache = ToneGuideCache(capacity: 2)
    let a = cache.guide(for: image, threads: 1)
    let b = cache.guide(for: image, threads: 1)
    #expect(a.values(.tone) == b.values(.tone))
    let copy = image  // same block, same contents: same key
    #expect(copy.contentIdentity == image.contentIdentity)
    // Writing the pixels (in place, the block being unique) gives a new identity and a new guide.
    image.setPixel(x: 0, y: 0, [255, 255, 255])
    #expect(copy.contentIdentity != image.contentIdentity)
    var dark = image
    for y in 0..<48 { for x in 0..<64 { dark.setPixel(x: x, y: y, [5, 5, 5]) } }
    let c = cache.guide(for: dark, threads: 1)
    #expect(c.values(.tone) != a.values(.tone), "a stale guide was returned for new pixels")
  }

  @Test func renderingTwiceGivesTheSameResultAsAFreshRender() {
    var image = Image(width: 96, height: 64, format: .rgb8)
    for y in 0..<64 {
      for x in 0..<96 { image.setPixel(x: x, y: y, [(x * 7) % 256, (y * 11) % 256, 80]) }
    }
    let edit = EditConfig(properties: [.shadows: 0.7, .highlights: -0.5, .sharpness: 0.5])
    let first = image.applyingEditConfig(edit)
    let second = image.applyingEditConfig(edit.setting(.exposure, to: 0.1)).applyingEditConfig(
      .neutral)
    let third = image.applyingEditConfig(edit)
    #expect(first.hasSamePixels(as: third))
    #expect(!second.hasSamePixels(as: first))
  }

  /// An image with the same pixels in storage of its own (a render of it takes the one-shot
  /// path: no detail cache, edited in place).
  private func independentCopy(_ image: Image) -> Image {
    image.withUnsafeBytes {
      Image(width: image.width, height: image.height, format: image.format, bytes: $0)
    }
  }

  @Test func keptSourceRendersLikeAFreshOneAcrossSliderMoves() throws {
    // An editor keeps its preview source and re-renders it: the detail stages' output is reused
    // and the per-pixel pass writes a new image. Each render must equal a one-shot render of an
    // independent copy, the source must stay untouched, and a write to the source must show.
    var source = try TestPhoto.load("d04", minimumLongEdge: 300, longEdge: 300)
    let original = independentCopy(source)
    let base = EditConfig(properties: [
      .sharpness: 0.6, .noiseReduction: 0.3, .contrast: 0.3, .vignette: 0.4,
    ])
    for exposure in [0.0, 0.2, -0.3, 0.2] {
      let edit = base.setting(.exposure, to: exposure)
      let kept = source.applyingEditConfig(edit)
      let fresh = independentCopy(source).applyingEditConfig(edit)
      #expect(
        kept.hasSamePixels(as: fresh), "exposure \(exposure): the kept source renders differently")
    }
    #expect(source.hasSamePixels(as: original), "rendering changed the source")
    // A new sharpness misses the kept detail output.
    let sharper = base.setting(.sharpness, to: 1)
    #expect(
      source.applyingEditConfig(sharper).hasSamePixels(
        as: independentCopy(source).applyingEditConfig(sharper)))
    // So does a write to the source.
    source.setPixel(x: 10, y: 10, [255, 0, 0])
    let afterWrite = source.applyingEditConfig(base)
    #expect(afterWrite.hasSamePixels(as: independentCopy(source).applyingEditConfig(base)))
    #expect(
      !afterWrite.hasSamePixels(as: original.applyingEditConfig(base)),
      "a stale detail output was used")
  }

  @Test func keptSourceWithGeometryRendersLikeAFreshOne() throws {
    // With a crop, a straighten angle and a turn, the warped (and sharpened) image and its tone
    // guide are kept between renders of the same source.
    let source = try TestPhoto.load("d04", minimumLongEdge: 300, longEdge: 300)
    let base = EditConfig(
      properties: [.straighten: 4, .sharpness: 0.5, .shadows: 0.4, .vignette: 0.3],
      crop: NormalizedRect(x: 0.1, y: 0.2, width: 0.7, height: 0.6), editRotation: .rotate90)
    for exposure in [0.0, 0.3, 0.3, -0.2] {
      let edit = base.setting(.exposure, to: exposure)
      let kept = source.rendered(with: edit)
      let fresh = independentCopy(source).rendered(with: edit)
      #expect(kept.size == fresh.size && kept.hasSamePixels(as: fresh), "exposure \(exposure)")
    }
    // Another crop misses.
    let other = base.setting(.exposure, to: 0.3)
    let recropped = EditConfig(
      properties: [.straighten: 4, .sharpness: 0.5, .shadows: 0.4, .vignette: 0.3, .exposure: 0.3],
      crop: NormalizedRect(x: 0, y: 0, width: 0.5, height: 0.5), editRotation: .rotate90)
    #expect(
      source.rendered(with: recropped).hasSamePixels(
        as: independentCopy(source).rendered(with: recropped)))
    #expect(!source.rendered(with: recropped).hasSamePixels(as: source.rendered(with: other)))
  }
}

@Suite("Render cache")
struct RenderCacheTests {
  static func source(_ seed: Int) -> Image {
    var image = Image(width: 96, height: 64, format: .rgb8)
    for y in 0..<64 {
      for x in 0..<96 {
        image.setPixel(x: x, y: y, [(x * 7 + seed) % 256, (y * 11 + seed * 3) % 256, 80])
      }
    }
    return image
  }

  /// Whether `cache` keeps the sharpened copy of `image` for a sharpness of `amount`.
  static func keeps(_ cache: RenderCache, _ image: Image, sharpness amount: Double) -> Bool {
    let key = PrepassCache.Key(
      content: image.contentIdentity, colorSpace: image.colorSpace, geometry: nil,
      detail: DetailStages(noiseReduction: 0, sharpness: amount, renderScale: 1))
    return cache.prepass.entry(for: key, needsGuide: false) != nil
  }

  /// A session's own cache keeps its source while other sources are rendered through the
  /// shared cache and through a second session's cache; emptied, it keeps nothing.
  @Test func aSessionsCacheIsNotEvictedByOtherRenders() {
    let mine = Self.source(0)
    let edit = EditConfig(properties: [.sharpness: 0.4, .exposure: 0.2])
    var options = RenderOptions()
    options.cache = RenderCache()
    let first = mine.rendered(with: edit, renderScale: 1, options: options)
    var other = RenderOptions()
    other.cache = RenderCache()
    for seed in 1...4 {
      _ = Self.source(seed).rendered(with: edit, renderScale: 1)
      _ = Self.source(seed).rendered(with: edit, renderScale: 1, options: other)
    }
    let cache = options.cache!
    #expect(Self.keeps(cache, mine, sharpness: 0.4))
    #expect(!Self.keeps(RenderCache.shared, mine, sharpness: 0.4))
    // A render from the kept copy equals the first one.
    let again = mine.rendered(with: edit, renderScale: 1, options: options)
    #expect(again.hasSamePixels(as: first))
    cache.removeAll()
    #expect(!Self.keeps(cache, mine, sharpness: 0.4))
    // Options naming different caches are different options.
    #expect(options != other)
  }
}
