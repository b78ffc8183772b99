// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchRender

/// What a photo shows, from its pixels, faces and EXIF facts.
///
/// Honest heuristics, not a trained classifier: each scene gets a score from a few cheap
/// features (see ``SceneFeatures``), and ``classifyScene(_:)`` names a scene only when one is
/// clearly ahead. Measured on the 83 photos of the shared set that carry a category (one
/// orientation variant each): it named a scene for 61 of them and 38 of those were one of the
/// photo's categories (62 %; 46 % of all). Good at sky, nature, people with findable faces and
/// plain food close-ups; it has no real notion of animals or objects (they score low unless
/// nothing else fits), and it confuses warm indoor or night scenes with food and white walls or
/// snow with sky.
public enum SceneClassifier {
  /// A score in 0...1 for every scene.
  ///
  /// Cost: one pass over every other pixel of the analysis copy plus its grey plane, ~1 ms at
  /// 512 px, and a lighter one over the copy with `analysis.color.illuminant` divided out
  /// (``SceneFeatures/measureOnceBalanced(_:illuminant:)``). Deterministic.
  /// - Parameters:
  ///   - image: the small upright analysis copy.
  ///   - analysis: everything else already measured (its `sceneScores` are ignored); this uses
  ///     its faces, subject, capture facts and the dark-on-purpose verdict.
  public static func scores(for image: Image, analysis: PhotoAnalysis) -> [Scene: Double] {
    var features = SceneFeatures(image: image)
    features.measureOnceBalanced(image, illuminant: analysis.color.illuminant)
    return scores(features: features, analysis: analysis)
  }

  /// The lowest best score that names a scene.
  static let floor = 0.5
  /// How far the best score must lead the second.
  static let margin = 0.15

  /// The scene, or nil when no scene is clearly ahead: the best score must be at least 0.5 and
  /// lead the second by 0.15.
  public static func classifyScene(_ analysis: PhotoAnalysis) -> Scene? {
    let ranked = analysis.sceneScores.sorted { a, b in
      a.value != b.value ? a.value > b.value : a.key.rawValue < b.key.rawValue
    }
    guard let best = ranked.first, best.value >= floor else { return nil }
    let second = ranked.count > 1 ? ranked[1].value : 0
    return best.value - second >= margin ? best.key : nil
  }

  package static func scores(features f: SceneFeatures, analysis: PhotoAnalysis) -> [Scene: Double]
  {
    let faceArea = analysis.faces.map { $0.bounds.width * $0.bounds.height }.max() ?? 0
    let people =
      analysis.faces.isEmpty
      ? 0 : min(1, 0.6 + 0.1 * Double(min(analysis.faces.count, 3)) + 3 * faceArea)
    let ev = analysis.capture.ev100
    let flash = analysis.capture.flashFired ?? false
    // Darkness of the scene: EXIF (EV100 under ~5 is night or a dim room) or a very dark frame
    // (a lamp or the moon metered at night gives a bright EV for a mostly black photo).
    let dark = max(ev.map { ramp($0, from: 7, to: 3) } ?? 0, ramp(f.meanValue, from: 0.3, to: 0.12))
    // EXIF says a dim place (EV100 ~3–9: rooms, dusk), nil without EXIF.
    let dimEV: Double? = ev.map { ramp($0, from: 10, to: 8) * ramp($0, from: 2, to: 4) }
    let outdoorBright: Double = ev.map { ramp($0, from: 10, to: 13) } ?? 0.5

    // Bright neutral tops are clouds outdoors but lit ceilings and walls in dim places.
    func skyShareOf(blueTop: Double, brightTop: Double) -> Double {
      blueTop + 0.4 * brightTop * (1 - 0.8 * (dimEV ?? 0))
    }
    let skyShare = skyShareOf(blueTop: f.skyBlueTop, brightTop: f.brightTop)
    // The indoor score is an excuse for a warm estimate (it moves Cool Down's ramp), so what
    // makes it must not be made by a warm cast. Sky and foliage are also read on the photo as
    // it looks with its measured cast removed (``SceneFeatures/balanced``), and the larger
    // reading counts: a warm cast takes the blue out of a daylight sky (harness copies of a
    // pebble beach without EXIF: indoor 0 → 0.33), while a lamp-lit room shows no sky or
    // foliage either way. Lamp-coloured pixels count only as far as they are there both as
    // shot and once balanced: a cast turns bark or walls lamp-orange (indoor 0.22 → 0.42 on a
    // nuthatch on a trunk), and balancing takes that back; in a real lamp-lit room (d01) the
    // estimate removes only part of the lamp's colour, so the lamp colours stay.
    let balanced = f.balanced
    let outdoorSky = max(
      skyShare,
      balanced.map { skyShareOf(blueTop: $0.skyBlueTop, brightTop: $0.brightTop) } ?? 0)
    let outdoorGreen = max(f.green, balanced?.green ?? 0)
    let sky = ramp(skyShare, from: 0.15, to: 0.55) * (1 - 0.6 * dark)
    let nature = max(
      ramp(f.green, from: 0.08, to: 0.4) * (1 - 0.5 * ramp(f.axisAligned, from: 0.45, to: 0.65)),
      0.6 * ramp(skyShare, from: 0.2, to: 0.5) * ramp(f.green + f.earth, from: 0.1, to: 0.35))
    let city =
      ramp(f.axisAligned, from: 0.4, to: 0.6) * ramp(f.neutral, from: 0.2, to: 0.5)
      * (1 - ramp(f.green, from: 0.1, to: 0.3)) * (1 - 0.5 * dark)
    let lights =
      ramp(f.brightSpots, from: 0.003, to: 0.02) * (1 - ramp(f.brightSpots, from: 0.2, to: 0.4))
    let light =
      max(dark * (0.5 + 0.5 * lights), analysis.exposure.isDarkOnPurpose ? 0.7 : 0)
      * (1 - 0.5 * ramp(people, from: 0.6, to: 0.9))
    let indoor =
      (0.6 * (dimEV ?? 0.4) + (flash ? 0.2 : 0)
        + 0.2 * ramp(min(f.warmLight, balanced?.warmLight ?? 1), from: 0.2, to: 0.5))
      * (1 - ramp(outdoorSky, from: 0.1, to: 0.3)) * (1 - ramp(outdoorGreen, from: 0.1, to: 0.3))
      * (1 - outdoorBright * (ev == nil ? 0 : 1))
    let closeUp = max(
      analysis.subject.isShallowDepthOfField ? 1 : 0,
      ramp(analysis.subject.region.width * analysis.subject.region.height, from: 0.15, to: 0.4))
    let food =
      ramp(f.warmCenter, from: 0.15, to: 0.45) * (0.6 + 0.4 * closeUp)
      * (1 - ramp(people, from: 0.5, to: 0.7)) * (1 - 0.7 * ramp(skyShare, from: 0.1, to: 0.3))
      * (1 - dark) * (1 - ramp(f.brightSpots, from: 0.02, to: 0.08))
    let plainBackground = 1 - ramp(f.texturedShare, from: 0.3, to: 0.7)
    let object =
      0.6 * (analysis.subject.source == .saliency ? 1 : 0) * plainBackground
      * (1 - ramp(f.green, from: 0.1, to: 0.3)) * (1 - sky) * (1 - dark)
    let animals =
      0.5 * (analysis.subject.isShallowDepthOfField ? 1 : 0) * (analysis.faces.isEmpty ? 1 : 0)
      * (1 - ramp(f.warmCenter, from: 0.15, to: 0.3))
    return [
      .people: people, .animals: animals, .food: food, .object: object, .indoor: indoor,
      .city: city, .sky: sky, .nature: nature, .light: light,
    ].mapValues { min(1, max(0, $0)) }
  }

  /// 0 at `from`, 1 at `to` (either order), linear between, clamped.
  static func ramp(_ v: Double, from a: Double, to b: Double) -> Double {
    min(1, max(0, (v - a) / (b - a)))
  }
}

/// The cheap image features the scene scores are built from, each a share (0...1) of the
/// pixels (every other pixel in both directions) unless it says otherwise. Hue, saturation and
/// value are HSV of the gamma-encoded components.
package struct SceneFeatures: Sendable {
  /// Top third that looks like blue sky (hue 185–255°, saturation ≥ 0.12, value ≥ 0.3).
  package var skyBlueTop = 0.0
  /// Top third that is bright and nearly neutral (value ≥ 0.7, saturation < 0.15): cloud and
  /// haze outdoors, ceilings and walls indoors.
  package var brightTop = 0.0
  /// Foliage greens and yellow-greens (hue 55–170°, saturation ≥ 0.18, value ≥ 0.12).
  package var green = 0.0
  /// Earth and rock: dull oranges and browns (hue 15–55°, saturation 0.12–0.45).
  package var earth = 0.0
  /// Nearly neutral pixels (saturation < 0.12, value 0.12...0.95): concrete, asphalt, walls.
  package var neutral = 0.0
  /// Centre half: saturated reds, oranges and yellows (hue ≥ 340° or < 55°, saturation ≥ 0.45,
  /// value ≥ 0.3).
  package var warmCenter = 0.0
  /// Warm, moderately saturated light overall (hue 15–50°, saturation 0.25–0.7): lamp light.
  package var warmLight = 0.0
  /// Near-white pixels (value ≥ 0.96): light sources and clipped highlights.
  package var brightSpots = 0.0
  /// Mean HSV value (0...1).
  package var meanValue = 0.0
  /// Among pixels with a strong gradient, the share whose gradient lies within ~14° of an
  /// axis: man-made straight edges push it above the ~0.3 of random textures.
  package var axisAligned = 0.0
  /// Share of the focus tiles that are textured.
  package var texturedShare = 0.0
  /// ``skyBlueTop``, ``brightTop``, ``green`` and ``warmLight`` of the copy with its measured
  /// illuminant divided out (``measureOnceBalanced(_:illuminant:)``); nil until measured.
  package var balanced: (skyBlueTop: Double, brightTop: Double, green: Double, warmLight: Double)?

  package init() {}

  package init(image: Image) {
    let plane = GreyPlane(image: image)
    self.init(image: image, plane: plane, focus: FocusMap(plane: plane))
  }

  /// Cost: one pass over every other pixel of the copy and of its grey plane. The per-pixel
  /// tests count into integers without branches (the hue and the thresholds depend on the
  /// photo's content), with one division for the hue instead of one per branch; the counts are
  /// exact, so the shares are the same as when they were summed as Doubles. Measured as perf
  /// samples relative to the face detector's C++ scan in `retouch-bench ai` (alternating runs):
  /// 0.57 → 0.45, about 2.5 → 2 ms of CPU on a 384×512 copy on the loaded 2-vCPU machine.
  package init(image: Image, plane: GreyPlane, focus: FocusMap) {
    let w = image.width, h = image.height
    var n = 0, top = 0, center = 0
    var valueSum = 0.0
    var nGreen = 0, nEarth = 0, nNeutral = 0, nWarmLight = 0, nBright = 0
    var nSkyBlue = 0, nBrightTop = 0, nWarmCenter = 0
    image.withUnsafeBytes { raw in
      let reader = PixelReader(raw, image: image)
      let unit = Self.unitOfCode
      for y in stride(from: 0, to: h, by: 2) {
        let inTop = y < h / 3
        let centerRow = y >= h / 4 && y < h * 3 / 4
        for x in stride(from: 0, to: w, by: 2) {
          let (r8, g8, b8) = reader.rgb(x: x, y: y)
          let p = Self.hsv(unit[Int(r8)], unit[Int(g8)], unit[Int(b8)])
          let (hue, s, mx) = (p.hue, p.s, p.v)
          n += 1
          valueSum += mx
          nGreen &+= Self.isFoliage(p) ? 1 : 0
          nEarth &+= hue >= 15 && hue < 55 && s >= 0.12 && s < 0.45 ? 1 : 0
          nNeutral &+= s < 0.12 && mx >= 0.12 && mx <= 0.95 ? 1 : 0
          nWarmLight &+= Self.isLampLight(p) ? 1 : 0
          nBright &+= mx >= 0.96 ? 1 : 0
          if inTop {
            top += 1
            let sky = Self.isSky(p)
            nSkyBlue &+= sky ? 1 : 0
            nBrightTop &+= !sky && Self.isBrightNeutral(p) ? 1 : 0
          }
          if centerRow && x >= w / 4 && x < w * 3 / 4 {
            center += 1
            nWarmCenter &+= (hue >= 340 || hue < 55) && s >= 0.45 && mx >= 0.3 ? 1 : 0
          }
        }
      }
    }
    let sums = [
      valueSum, Double(nGreen), Double(nEarth), Double(nNeutral), Double(nWarmLight),
      Double(nBright), Double(nSkyBlue), Double(nWarmCenter), Double(nBrightTop),
    ]
    let count = Double(max(1, n))
    meanValue = sums[0] / count
    green = sums[1] / count
    earth = sums[2] / count
    neutral = sums[3] / count
    warmLight = sums[4] / count
    brightSpots = sums[5] / count
    skyBlueTop = sums[6] / Double(max(1, top))
    brightTop = sums[8] / Double(max(1, top))
    warmCenter = sums[7] / Double(max(1, center))

    var strong = 0, aligned = 0
    let pw = plane.width
    plane.values.withUnsafeBufferPointer { v in
      for y in stride(from: 1, to: plane.height - 1, by: 2) {
        for x in stride(from: 1, to: pw - 1, by: 2) {
          let i = y &* pw &+ x
          let gx = v[i &+ 1] - v[i &- 1], gy = v[i &+ pw] - v[i &- pw]
          let ax = abs(gx), ay = abs(gy)
          let isStrong = ax + ay >= 40
          strong &+= isStrong ? 1 : 0
          aligned &+= isStrong && min(ax, ay) < 0.25 * max(ax, ay) ? 1 : 0
        }
      }
    }
    axisAligned = strong >= 50 ? Double(aligned) / Double(strong) : 0
    let tiles = focus.columns * focus.rows
    texturedShare = Double((0..<tiles).filter(focus.isTextured).count) / Double(max(1, tiles))
  }

  /// Measures ``balanced``: the sky, foliage and lamp-light shares of `image` as it looks once
  /// the light's colour is removed, each channel scaled in linear light by `1 / illuminant` (the
  /// ``ColorAnalysis/illuminant``, R, G, B relative to green) and clipped at white.
  ///
  /// Cost: one pass over every other pixel of the copy through three 256-entry tables, about a
  /// third of the main pass, in two halves on two cores (the pixels are counted, so the result
  /// does not depend on the split). Leaves ``balanced`` nil when `illuminant` is not three
  /// positive finite numbers.
  package mutating func measureOnceBalanced(_ image: Image, illuminant: [Double]) {
    guard illuminant.count == 3, illuminant.allSatisfy({ $0.isFinite && $0 > 0 }) else { return }
    let (red, green, blue) = (
      gainTable(1 / illuminant[0]), gainTable(1 / illuminant[1]), gainTable(1 / illuminant[2])
    )
    let w = image.width, h = image.height
    // The sampled rows (every other one), in two halves.
    let halves = ParallelBands.bandRanges(rows: (h + 1) / 2, count: 2)
    let counted = ParallelBands.map(count: halves.count) { half -> BalancedCounts in
      var c = BalancedCounts()
      image.withUnsafeBytes { raw in
        let reader = PixelReader(raw, image: image)
        for row in halves[half] {
          let y = 2 * row
          let inTop = y < h / 3
          for x in stride(from: 0, to: w, by: 2) {
            let (r8, g8, b8) = reader.rgb(x: x, y: y)
            let p = Self.hsv(red[Int(r8)], green[Int(g8)], blue[Int(b8)])
            c.n &+= 1
            c.green &+= Self.isFoliage(p) ? 1 : 0
            c.warmLight &+= Self.isLampLight(p) ? 1 : 0
            if inTop {
              c.top &+= 1
              let sky = Self.isSky(p)
              c.skyBlue &+= sky ? 1 : 0
              c.brightTop &+= !sky && Self.isBrightNeutral(p) ? 1 : 0
            }
          }
        }
      }
      return c
    }
    let c = counted.reduce(into: BalancedCounts()) { $0.add($1) }
    balanced = (
      skyBlueTop: Double(c.skyBlue) / Double(max(1, c.top)),
      brightTop: Double(c.brightTop) / Double(max(1, c.top)),
      green: Double(c.green) / Double(max(1, c.n)),
      warmLight: Double(c.warmLight) / Double(max(1, c.n))
    )
  }

  /// The pixel counts of ``measureOnceBalanced(_:illuminant:)`` over some rows.
  private struct BalancedCounts: Sendable {
    var n = 0, top = 0, green = 0, skyBlue = 0, brightTop = 0, warmLight = 0

    mutating func add(_ other: BalancedCounts) {
      n += other.n
      top += other.top
      green += other.green
      skyBlue += other.skyBlue
      brightTop += other.brightTop
      warmLight += other.warmLight
    }
  }

  /// Each 8-bit code divided by 255: the same Doubles as dividing, without three divisions
  /// per pixel.
  static let unitOfCode: [Double] = (0..<256).map { Double($0) / 255 }

  /// HSV of gamma-encoded components in 0...1: hue in degrees (0..<360; 0 for a neutral
  /// pixel), saturation and value. One division by the chroma, the numerator and sector offset
  /// chosen by which channel is largest (the same value as dividing in each branch).
  @inline(__always)
  static func hsv(_ r: Double, _ g: Double, _ b: Double) -> (hue: Double, s: Double, v: Double) {
    let mx = max(r, g, b), mn = min(r, g, b)
    let d = mx - mn
    let isR = mx == r, isG = mx == g
    let num = isR ? g - b : isG ? b - r : r - g
    let offset: Double = isR ? 0 : isG ? 2 : 4
    let hue = d > 0 ? 60 * (num / (d > 0 ? d : 1) + offset) : 0
    return (hue < 0 ? hue + 360 : hue, mx > 0 ? d / mx : 0, mx)
  }

  // The pixel classes both passes count (the photo as shot and once balanced).

  /// Foliage green: hue 55–170°, saturation ≥ 0.18, not dark.
  @inline(__always)
  static func isFoliage(_ p: (hue: Double, s: Double, v: Double)) -> Bool {
    p.hue >= 55 && p.hue < 170 && p.s >= 0.18 && p.v >= 0.12
  }
  /// Lamp light: warm (hue 15–50°) and moderately saturated (0.25–0.7).
  @inline(__always)
  static func isLampLight(_ p: (hue: Double, s: Double, v: Double)) -> Bool {
    p.hue >= 15 && p.hue < 50 && p.s >= 0.25 && p.s < 0.7
  }
  /// Sky blue: hue 185–255°, saturation ≥ 0.12, value ≥ 0.3.
  @inline(__always)
  static func isSky(_ p: (hue: Double, s: Double, v: Double)) -> Bool {
    p.hue >= 185 && p.hue < 255 && p.s >= 0.12 && p.v >= 0.3
  }
  /// Bright and nearly neutral (value ≥ 0.7, saturation < 0.15): cloud, or a lit ceiling.
  @inline(__always)
  static func isBrightNeutral(_ p: (hue: Double, s: Double, v: Double)) -> Bool {
    p.v >= 0.7 && p.s < 0.15
  }
}

/// The encoded value (0...1) of each 8-bit sRGB code once its linear light is multiplied by
/// `gain` and clipped at white.
private func gainTable(_ gain: Double) -> [Double] {
  (0..<256).map { SRGBTables.encodeExact(min(1, SRGBTables.decodeExact(Double($0) / 255) * gain)) }
}
