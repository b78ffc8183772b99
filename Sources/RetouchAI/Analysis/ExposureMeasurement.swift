// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchRender

/// Turns the luminance histogram, the subject and the EXIF facts into an ``ExposureAnalysis``.
enum ExposureMeasurement {
  /// The log-average linear luminance a well-exposed photo's subject has. Measured on the
  /// untouched `dev` photos of the shared set (see the report in the commit that set it): their
  /// blended subject/global key has a median of about 0.11.
  static let targetKey = 0.11
  /// The mean linear luminance a well-exposed face has (skin of L* ≈ 62).
  static let targetFaceLuminance = 0.30
  /// The offset added before taking logs (Reinhard et al. 2002 use a small δ too), so black
  /// pixels do not pull the key to zero. Linear luminance; L* ≈ 0.9.
  static let keyEpsilon = 0.001
  /// Where the brightest half-percent of a normally exposed photo's linear luminance sits
  /// (encoded ≈ 0.96): brightening stops when it gets there.
  static let whiteTarget = 0.92
  /// The L* of the brightest percent below which a frame counts as having no highlight at all
  /// (fully at the lower end): a normally exposed photo's brightest percent sits at L* 80–100.
  /// Among the 98 shared photos, those below 70 are underexposed, dim or night scenes, a
  /// disparity map, and one face close-up at 68.8 (where the ramp gives a tenth: unchanged).
  static let noHighlightLightness = 60.0...70.0
  /// The share of the white point's headroom a frame without highlights is brightened by.
  static let noHighlightShare = 0.6
  /// Brightening never goes beyond this (EV).
  static let maxBrighten = 4.0
  /// Mean linear luminance of the faces (skin at L* 46–62) over which a photo's dark base no
  /// longer reads as a dark scene, fading in to the upper end.
  static let litFaceLuminance = 0.15...0.3
  /// Darkening never goes beyond this (EV).
  static let maxDarken = -2.0
  /// A photo this close above the target key is left alone (EV): bright photos are usually
  /// bright on purpose (snow, beach, high key), dark ones rarely.
  ///
  /// What it costs, measured on the harness's copies of the 85 shared photos at 768 px given
  /// +0.5 and +1 EV (a linear gain, then clipped), simulated as the exposure pull alone: as it
  /// stands, with the blown-share gate below, the copies keep about 80 % of their input
  /// ΔE2000 and 5 of the 85 originals are pulled. Without the dead band and without the gate,
  /// the key's pull still leaves 73 %, because a copy of a dark or low-key photo a stop over
  /// reads as a normal exposure. The measure that tells copies from originals best is the
  /// share of pixels clipped in any channel (ROC area 0.81 at +0.5 EV, 0.89 at +1 EV); a pull
  /// that grows with it reaches 55 %, but only by darkening 8 good photos by up to 0.8 EV
  /// (ΔE2000 up to 10.7: lamps, a bright sky, a flower in bokeh), two of them in `dev`. Good
  /// photos with light in the frame are kept as they are, and the over family pays for it.
  ///
  /// How far a pull goes once it is made is not what holds the family back. Each of the 85
  /// photos and its two copies rendered at exposure 0 to −1.5: the exact inverse of each
  /// copy's gain would leave 24 % of the `dev` copies' ΔE2000 (22 % outside `dev`), while
  /// the pulls below leave 85 % (84 %). Sized differently from the same readings (simulated
  /// as the exposure pull alone), the family moves by 4 points at most: without the 0.8,
  /// 81 % (82 %); with the dead band as a gate instead of a deduction, 82–87 %; each time
  /// darkening copies of bright material further (the leaf on snow a stop over: −1.1 EV and
  /// ΔE2000 9.6 as it stands, 12.8 at −1.4, 19 at −1.9). The copies left alone read as
  /// ordinary exposures by both their key and their clipping: telling them apart is what is
  /// missing. Thirteen histogram readings together (blown, clipped and two-channel-clipped
  /// shares, the top codes' density, key, unblown key, percentiles, bright saturation) do not
  /// tell them apart either: a logistic fit on the 85 photos and their two copies, each photo
  /// left out of its own fit, flags 20–34 % of the +0.5 EV and 53–65 % of the +1 EV copies
  /// once it flags 2 originals (readings as they are or as logarithms, ridge 0.1–10), little
  /// more than these rules darken (27 % and 49 % outside `dev`); flagging 8 originals, 40–62 %
  /// and 74–81 %.
  static let darkenDeadBand = 0.5
  /// Share of the photo in bright colours clipped in two channels
  /// (``ExposureAnalysis/clippedColourShare``) over which it reads as overexposed, fading in
  /// to the upper end.
  ///
  /// A camera renders a lit colour (skin, sand, foliage, sky) below white, and a colour cast
  /// moves one channel against the others, so two channels pushed through white with the third
  /// well below is light added to every channel: an exposure too long. The key cannot show it
  /// (a landscape and backlit dandelions a stop over read +0.03 and −0.05 EV from the target,
  /// inside the dead band), nor can the blown white share (11–12 % in both, as 6 of the 79
  /// harness originals have 10 % or more, the nuthatch before a pale street 12 %). On the
  /// evaluation harness's 79 photos at 768 px, 0.3 % or more is read on one original (a lamp
  /// lit at night, 0.5 %), none of their strong warm or cool casts, and 8 of their copies given
  /// +0.5 EV and 24 given +1 EV; of the 102 shared photos at their own size, on two, both with
  /// the light in the picture (the same lamps, 0.6 %; sun glare on water, 1.0 %), which
  /// ``glowExplainsClipping(_:blownShare:clipped:)`` now tells apart.
  static let clippedColourShare = 0.002...0.006
  /// The exposure a photo that reads overexposed by its clipped colours comes down by at least.
  static let clippedColourEV = -0.6
  /// Where the brightest unclipped detail (``HighlightColor``, log2 R/B) reads as the glow of a
  /// warm light in the picture (the sun, a lamp), fading in to the upper end. Daylight scenes
  /// read −0.4…0.3 there, and the harness's warm casts take those to 0.52 at most.
  static let glowWarmth = 0.6...1.0
  /// The blown share (``ExposureAnalysis/blownShare``) over which clipped colours count again
  /// beside a light in the picture, fully from the upper end.
  static let glowBlownShare = 0.06...0.1
  /// The clipped-colour share (``ExposureAnalysis/clippedColourShare``) over which clipped
  /// colours count again beside a light in the picture, fully from the upper end.
  static let glowClippedShare = 0.01...0.015

  /// How clearly a light in the picture explains the colours clipped around it and the white
  /// blown in it (0...1): its glow is warm (``glowWarmth``), and little of the frame is blown
  /// (``glowBlownShare``) or clipped in colour (``glowClippedShare``).
  ///
  /// A low sun or a lamp clips two channels of its amber glow in a well exposed photo: sun
  /// glare on water (1.0 % clipped colour, the brightest detail at 1.75, 1.5 % blown) and a
  /// street lamp at night (0.5 %, 3.0, 5.7 % blown) read 0.6 and 0.34 EV too bright. The
  /// glare photo was darkened, and the harness's copies of it with every other defect took
  /// the darkening along: its untouched photo ended 7.7 ΔE2000 from itself, its blurred and
  /// noisy copies 2–3 times as far as given. Too much light also blows large parts of the
  /// frame: backlit dandelions against a low sun a stop over read 0.9 % clipped colour with
  /// 12 % blown, and keep their darkening. So do copies of photos whose brightest detail is a
  /// warm colour (yellow leaves against the sky, a flower, a sunset sky, string lights) given
  /// +0.5 or +1 EV: their colours clip over 1–4.6 % of the frame, where the glow of a light
  /// clipped 0.5–1 %. Without that bound the harness's overexposed copies of the 70 shared
  /// photos outside `dev` kept 87.1 % of their ΔE2000 instead of 84.2 %.
  ///
  /// The blown white is the light's too: an ornate street lamp at night fills 8 % of its frame
  /// with blown globes in an amber glow (the brightest detail at 2.4, 0.04 % clipped colour),
  /// and read by its blown share it was darkened by 0.45 EV, as were its harness copies.
  static func glowExplainsClipping(_ highlightWarmth: Double?, blownShare: Double, clipped: Double)
    -> Double
  {
    guard let w = highlightWarmth else { return 0 }
    return smoothstep(glowWarmth.lowerBound, glowWarmth.upperBound, w)
      * (1 - smoothstep(glowBlownShare.lowerBound, glowBlownShare.upperBound, blownShare))
      * (1 - smoothstep(glowClippedShare.lowerBound, glowClippedShare.upperBound, clipped))
  }
  /// Linear luminance (L* ≈ 96) at or above which a pixel counts as blown: white without detail.
  static let blownLuminance = 0.9
  /// L* under which the 75th percentile must lie for a dark photo with lights to read as a
  /// night picture (a black base).
  static let nightBaseLightness = 15.0
  /// Share of pure-black pixels (every channel ≤ 2/255) over which brightening fades out: a
  /// −2 EV underexposure of a normal photo blackens well under 1 %, a night or low-key photo
  /// often a quarter or more.
  static let lowKeyBlackShare = 0.1...0.3
  /// The scene brightness (EV100 from the EXIF) under which a frame without highlights keeps
  /// its darkness, fading in to all of it at the lower end: the light of deep twilight and
  /// night landscapes (a pier in fog at EV100 1, exposed for 8 s), where nothing in the scene
  /// was near white. A lamp-lit room is EV100 5–7 and is metered to grey like any other scene.
  static let nightSceneEV100 = 2.5...4.0
  /// The same share over which brightening fades out when EXIF reads a bright scene: higher,
  /// since the EXIF is evidence of underexposure, but a frame nearly all black is a lit
  /// subject in the dark (the moon: 95 %), not a daylight scene exposed too short. A frame half
  /// black (night-scene pixels given daylight EXIF in a test: 50 %) keeps its brightening.
  static let brightSceneBlackShare = 0.6...0.9
  /// L* of the brightest percent over which a mostly black frame with bright-scene EXIF reads
  /// as a lit subject in the dark rather than an underexposed scene.
  static let litSubjectLightness = 30.0...45.0
  /// Share of the frame lying within ``floorWidth`` of its darkest percent over which a raised
  /// black level stops brightening. Measured with the shared set's photos at 512 px: ordinary
  /// photos keep 2–13 % there, lifted or not, and underexposed ones up to 24 % (a dark sunset
  /// 29 %); a night scene whose black base was lifted keeps half of the frame there.
  static let liftedFloorShare = 0.25...0.4
  /// Width of the black floor above the darkest percent, L*.
  static let floorWidth = 5.0

  /// Share of pixels (0...1) no more than ``floorWidth`` L* above `lightness` (the darkest
  /// percent's L*).
  static func floorShare(_ hist: [Int], above lightness: Double, total: Int) -> Double {
    let limit = Float(lightness + floorWidth)
    let lOfBin = PixelStatistics.lightnessOfBin
    var count = 0
    for i in 0..<hist.count {
      guard lOfBin[i] <= limit else { break }
      count += hist[i]
    }
    return Double(count) / Double(max(1, total))
  }

  /// Mean L* step between neighbouring black-floor pixels over which the floor counts as
  /// grainy. At 512 px a clean dark floor steps 0.1–0.45 L* (a black frame, a night base, a
  /// sunset underexposed by 2 EV); the harness's sensor noise (σ² = 0.002·x + 2·10⁻⁵ in linear
  /// light, at 768 px) steps 0.9–1.5.
  static let grainyFloor = 0.5...0.8

  /// Mean absolute L* difference of horizontally neighbouring pixels that both lie within
  /// ``floorWidth`` above `lightness` (the darkest percent's L*), the floor cut at L* 8 so it
  /// stays on the linear segment of L*, `L* = 903.3·Y`. 0 without such pairs. One pass over
  /// the luminance plane.
  static func floorGrain(_ stats: PixelStatistics, above lightness: Double) -> Double {
    let scale: Float = 24389.0 / 27.0
    let limit = Float(min(lightness + floorWidth, 8)) / scale
    var sum: Float = 0
    var pairs = 0
    stats.luminancePlane.withUnsafeBufferPointer { plane in
      for y in 0..<stats.height {
        let row = y * stats.width
        var previous = plane[row]
        for x in 1..<max(1, stats.width) {
          let v = plane[row + x]
          if v <= limit && previous <= limit {
            sum += abs(v - previous)
            pairs += 1
          }
          previous = v
        }
      }
    }
    return pairs == 0 ? 0 : Double(sum * scale) / Double(pairs)
  }

  /// Spread of L* between the 1st and 99th percentile over which brightening and darkening
  /// fade in: below about 8 there is no picture to expose (a black or white frame, a flat grey
  /// veil).
  static let minimumContentRange = 8.0...20.0
  /// Stops of linear luminance between the 1st and 99th percentile over which brightening and
  /// darkening fade in too: a bright frame spanning less than about a stop is a veil (fog, or
  /// haze laid over a picture), which ``minimumContentRange`` misses near white (a stop there
  /// spans about 20 L*). An exposure change keeps the stops, so an underexposed photo keeps
  /// its brightening; a veil's contrast is Punch's to restore, not Brighten's.
  ///
  /// Among the harness's 85 untouched photos, the fewest stops are a white frame's 0.3 and
  /// then 2.2 (bridge cables against a bright sky); its haze of `t` 0.55 leaves 1.4 at most.
  /// A fog pier given that haze (0.8 stops, the darkest percent at L* 65) had its missing
  /// white read as underexposure and was brightened by 0.6 EV (ΔE2000 19.6 → 29.8 from the
  /// photo; 3.2 now).
  static let minimumContentStops = 0.75...1.25

  /// How clearly a frame holds a picture to expose at all (0...1), from its darkest and
  /// brightest percent (luminance histogram bins of `bins`): both their spread in L*
  /// (``minimumContentRange``: a black frame, a flat grey veil) and their span in stops
  /// (``minimumContentStops``: a veil near white) must show one. Every brightening and
  /// darkening is scaled by it, unless EXIF of a bright scene proves a dark frame underexposed.
  static func pictureToExpose(darkest: Int, brightest: Int, bins: Int) -> Double {
    let lOfBin = PixelStatistics.lightnessOfBin
    let spread = Double(lOfBin[brightest]) - Double(lOfBin[darkest])
    // A bin's width stands in for an empty (pure black) bin, which spans no finite stops.
    let y = { (bin: Int) in Double(max(bin, 1)) / Double(bins - 1) }
    return smoothstep(minimumContentRange.lowerBound, minimumContentRange.upperBound, spread)
      * smoothstep(
        minimumContentStops.lowerBound, minimumContentStops.upperBound,
        log2(y(brightest) / y(darkest)))
  }

  /// The key (log-average linear luminance) of the luminance histogram `hist` once a crush of
  /// black point `crush` is undone by its exact inverse, `e' = b + (1 − b)·e` on the encoded
  /// value (what Lift Shadows applies, ``ToneFit/blackPointRestore(level:)``), each bin's
  /// luminance encoded as a grey's would be.
  static func restoredKey(_ hist: [Int], total: Int, crush b: Double) -> Double {
    let bins = hist.count
    var sumLog = 0.0
    for i in 0..<bins where hist[i] != 0 {
      let e = SRGBTables.encodeExact(Double(i) / Double(bins - 1))
      let y = SRGBTables.decodeExact(b + (1 - b) * e)
      sumLog += Double(hist[i]) * log(y + keyEpsilon)
    }
    return exp(sumLog / Double(max(1, total))) - keyEpsilon
  }

  /// `log(Y + keyEpsilon)` at the centre of each luminance histogram bin.
  static let logOfBin: [Float] = (0..<PixelStatistics.histogramBins).map {
    Float(log(Double($0) / Double(PixelStatistics.histogramBins - 1) + keyEpsilon))
  }

  struct Inputs {
    var stats: PixelStatistics
    var subject: SubjectAnalysis
    var faces: [FaceObservation]
    var capture: CaptureFacts
    /// How clearly the photo is soft (``SharpnessMeasurement/softness(_:)``, 0...1).
    var softness = 0.0
    /// The colour of the brightest unclipped detail (``HighlightColor``), when read.
    var highlightWarmth: Double? = nil
    /// The photo at its own size, where the crush is read again (``FullResolution``); nil
    /// when only the copy is measured.
    var fullResolution: FullResolution? = nil
  }

  /// The photo an analysis copy stands for, at its own size: where
  /// ``fullResolutionCrush(_:noiseSigma:copyReading:darkOnPurpose:sceneEV100:shadowClipping:copyIsPhoto:)``
  /// reads the crushed black point.
  /// Cost: a point-sampled pass over at most 3 MP (``fullResolutionFloors(_:)``), skipped where
  /// the copy is the photo and read no crush.
  struct FullResolution: Sendable {
    /// The picture at its own size (the region inside a frame of flat bars).
    var picture: PhotoRegion
    /// Its grain (``NoiseAnalysis/sigma``) when measured.
    var noiseSigma: Double?
    /// Whether the picture is no larger than the copy, which then was not resampled.
    var copyIsPhoto: Bool
  }

  /// The exposure facts, and how sure we are that a dark photo is dark on purpose (0...1): by
  /// its lights (``darkIntent(hist:total:medianL:p99L:sceneEV:flashFired:)``, a night street, a
  /// lamp-lit room) or by blue light all over it
  /// (``blueLight(_:medianL:sceneEV:flashFired:highlightWarmth:)``, twilight, a storm).
  static func measure(_ input: Inputs) -> (ExposureAnalysis, lights: Double, blueLight: Double) {
    let stats = input.stats
    let hist = stats.histogram
    let n = Double(max(1, stats.pixelCount))
    let bins = hist.count
    let lOfBin = PixelStatistics.lightnessOfBin
    var sumY = 0.0, sumLogY = 0.0, sumL = 0.0, sumL2 = 0.0
    for i in 0..<bins where hist[i] != 0 {
      let c = Double(hist[i])
      let y = Double(i) / Double(bins - 1)
      let l = Double(lOfBin[i])
      sumY += c * y
      sumLogY += c * Double(logOfBin[i])
      sumL += c * l
      sumL2 += c * l * l
    }
    let meanY = sumY / n
    let key = exp(sumLogY / n) - keyEpsilon
    let meanL = sumL / n
    let deviation = max(0, sumL2 / n - meanL * meanL).squareRoot()
    let percentileBins = [0.01, 0.05, 0.25, 0.5, 0.75, 0.95, 0.99].map {
      percentileBin(hist, $0, total: stats.pixelCount)
    }
    let percentiles = percentileBins.map { Double(lOfBin[$0]) }
    let p99Y = Double(percentileBins[6]) / Double(bins - 1)
    let picture = pictureToExpose(
      darkest: percentileBins[0], brightest: percentileBins[6], bins: bins)
    // Pixels at or above `blownLuminance` carry no detail: they are where the light was, not
    // how bright the rest of the photo is.
    let blownBin = firstBlownBin(bins: bins)
    var blownCount = 0, sumLogUnblown = 0.0
    for i in 0..<bins where hist[i] != 0 {
      if i >= blownBin {
        blownCount += hist[i]
      } else {
        sumLogUnblown += Double(hist[i]) * Double(logOfBin[i])
      }
    }
    let blownShare = Double(blownCount) / n
    // Bright colours pushed through white in two channels (``clippedColourShare``).
    let colourClip = Double(stats.totals.clippedColour) / n
    // How far the glow of a light in the picture explains its blown white and clipped colours.
    let glow = glowExplainsClipping(
      input.highlightWarmth, blownShare: blownShare, clipped: colourClip)
    // Pure-black pixels (every channel ≤ 2/255): low key, night, or a lit subject in the dark.
    let blackShare = Double(stats.totals.shadowClipped) / n
    let p995Y = Double(percentileBin(hist, 0.995, total: stats.pixelCount)) / Double(bins - 1)

    // Subject: mean and log-average over the subject region, and over the faces.
    let region = regionMeans(stats, input.subject.region)
    let faceRegion = faceMeans(stats, input.faces)
    let subjectMean = faceRegion.map { 0.7 * $0.mean + 0.3 * region.mean } ?? region.mean

    // How far the photo is from a normal brightness, judged mostly by the subject.
    let sceneEV = sceneEV100(input.capture)
    // A face lit as skin is in daylight says the scene had light: a dark base around it is
    // dark clothes, rock or shade, not night. Not a face lit by coloured light (a stage).
    // The faces' means are measured again only when some face is under coloured light.
    let naturalFaces = input.faces.filter { !$0.hasColoredLighting }
    let naturalRegion =
      naturalFaces.count == input.faces.count ? faceRegion : faceMeans(stats, naturalFaces)
    let litFace =
      naturalRegion.map {
        smoothstep(litFaceLuminance.lowerBound, litFaceLuminance.upperBound, $0.mean)
      } ?? 0
    let intent =
      darkIntent(
        hist: hist, total: stats.pixelCount, medianL: percentiles[3], p99L: percentiles[6],
        sceneEV: sceneEV, flashFired: input.capture.flashFired) * (1 - litFace)
    // The darkness of a frame coloured all over by blue light (twilight, a storm, a night sky)
    // is that light's as much as a night street's is
    // (``blueLight(_:medianL:sceneEV:flashFired:highlightWarmth:)``).
    let blue = blueLight(
      stats, medianL: percentiles[3], sceneEV: sceneEV, flashFired: input.capture.flashFired,
      highlightWarmth: input.highlightWarmth)
    let mood = max(intent, blue)
    let globalEV = log2(targetKey / max(key, 1e-4))
    var ev = 0.6 * log2(targetKey / max(region.key, 1e-4)) + 0.4 * globalEV
    if let face = faceRegion {
      ev = 0.6 * log2(targetFaceLuminance / max(face.mean, 1e-4)) + 0.4 * ev
    }
    let subjectEV = ev
    // A subject that reads bright (a lit sky or lamp taken for the subject, a pale face) does
    // not prove the photo bright enough: a frame whose key is under the target and whose whites
    // sit below where whites belong lacks light whatever its brightest part says. The white
    // point below still bounds how far it goes, so a photo with whites in place is untouched.
    // How far the brightest half-percent sits below where a normal photo's whites do (EV).
    let whiteEV = log2(whiteTarget / max(p995Y, 1e-4))
    // How far the brightest channel tops out below white (``whiteTop(_:total:)``): the most
    // any brightening can add before colours clip. A cut lowers it by exactly the lost gain,
    // so it never holds an underexposed photo back from its own exposure; but in a colourful
    // frame (cut fruit, a dark wood under a patch of sky) the brightest luminance sits far
    // under white while some channel is already there, and the luminance white point alone
    // read it as dark.
    let white = whiteTop(stats.ceilingHistogram, total: stats.pixelCount)
    let missingWhite = missingWhiteEV(atCode: white.code)
    // A blur lowers the top too, by spreading the small bright details that set it (a
    // highlight on fruit, a catchlight, white lettering) over darker surroundings; so on a
    // soft photo ``blurredWhiteEV`` of the missing white is neither room to brighten into nor
    // proof of a cut.
    let cut = max(0, missingWhite - blurredWhiteEV * input.softness)
    let channelRoom = min(whiteEV, cut)
    if globalEV > ev, whiteEV > 0 { ev = globalEV }
    if ev > 0 {
      // Anchor on the white point: an underexposed photo lost exactly the headroom its
      // brightest half-percent now has below where a normal photo's whites sit, while a photo
      // whose whites are already there (lights, sky, a white shirt) is dark on purpose or by
      // its content, not by its exposure. Both must ask for light: the key (how dark the
      // subject is) and the white point (how much room is left above it, by the brightest
      // half-percent's luminance and by the brightest channel).
      // The picture of a night scene without EXIF may be either, so it keeps the older, wider
      // limit (the brightest 1 % not pushed far past white) and is judged by the key and
      // `darkIntent` alone.
      //
      // EXIF of a bright scene does not widen it. The camera chose that exposure for the
      // brightest thing it saw: where that is in the frame at white (the sun behind a
      // silhouette, a sky, a lit window) the photo was exposed for it, and where the camera
      // underexposed, its whites came down with the rest, which the brightest channel reads.
      // Through the wider limit, four of the 85 shared photos were brightened with their own
      // EXIF and not without it (a sunset silhouette by 0.91 EV, a kite in a deep blue sky, a
      // room before a sunlit window, clouds shot by a phone: ΔE2000 5.3–6.2), and copies
      // underexposed by 0.7–2 EV whose EXIF records the shorter exposure went past what they
      // lost (a phone photo 0.7 EV under got 0.91).
      let headroom = log2(1 / max(p99Y, 1e-4)) + 0.3
      // A night picture is a black base (three quarters of the frame near black) with lights;
      // a sunset or backlit silhouette has a lit sky over a quarter of it and is judged by its
      // white point like any other photo.
      let brightScene = (sceneEV ?? 0) >= 10 && input.capture.flashFired != true
      let nightPicture =
        sceneEV == nil && intent > 0.02 && percentiles[6] >= 80
        && percentiles[4] < nightBaseLightness
      ev = min(ev, max(0, nightPicture ? headroom : channelRoom), maxBrighten)
      // Underexposure sends only the darkest few code values to black; a large share of pure
      // black was black in the scene (night, low key) or crushed (Lift Shadows' to judge), so
      // the white point alone does not prove the photo too dark. The night picture without EXIF
      // keeps its own rule above.
      if !nightPicture && !brightScene {
        var n0 = blackShare
        // Sensor noise scatters a black base over the first few L* (clipped at 0, then
        // averaged by the downscale), so almost none of it stays pure black: a floor within
        // 5 L* of a darkest percent under L* 2–4 counts as black when it is grainy.
        let floor = floorShare(hist, above: percentiles[0], total: stats.pixelCount)
        if percentiles[0] < 4, floor > max(n0, lowKeyBlackShare.lowerBound) {
          let grainy = smoothstep(
            grainyFloor.lowerBound, grainyFloor.upperBound,
            floorGrain(stats, above: percentiles[0]))
          n0 = max(n0, floor * grainy * (1 - smoothstep(2, 4, percentiles[0])))
        }
        ev *= 1 - smoothstep(lowKeyBlackShare.lowerBound, lowKeyBlackShare.upperBound, n0)
        // Underexposure lowers the black level. A dark frame whose black level is raised
        // (the darkest percent at L* 3–6 and up) with a large part of it lying on that level
        // is a black base whose blacks were lifted (a matte export of a night scene): taking
        // the lift off is Punch's, and brightening would turn the base grey.
        ev *=
          1 - smoothstep(3, 6, percentiles[0])
          * smoothstep(liftedFloorShare.lowerBound, liftedFloorShare.upperBound, floor)
      }
      // EXIF of a bright scene proves underexposure only of a frame that is the bright scene:
      // a lit subject in a black field (the moon, a lit stage) is exposed for its light, and
      // the EXIF reads bright while nearly all of the frame is pure black and its brightest
      // percent is well lit. The moon at ISO 80, 1/150 s, f/4.9 (95 % of the frame black, the
      // brightest percent at L* 53) was brightened by 2.5 EV, blowing it. A room 4 EV
      // under is as black but has no lit part (its brightest percent under L* 3) and keeps
      // its brightening.
      if brightScene {
        ev *=
          1
          - smoothstep(
            brightSceneBlackShare.lowerBound, brightSceneBlackShare.upperBound, blackShare)
          * smoothstep(
            litSubjectLightness.lowerBound, litSubjectLightness.upperBound, percentiles[6])
      }
      // A black frame or a flat veil has no picture to expose: brightening shows only noise
      // and banding (unless EXIF of a bright scene proves it underexposed).
      if !brightScene {
        ev *= picture
      }
    } else {
      // Darken only what shows overexposure (blown highlights, all channels near white, over
      // more than ~2 % of the photo), judged by the part that still has detail: a blown sky or
      // window behind a well exposed subject stays, as does a bright photo without blown
      // highlights (snow, a white wall, high key). A cast that clips one channel is no sign.
      let unblownKey = exp(sumLogUnblown / max(1, n - Double(blownCount))) - keyEpsilon
      let unblownRegion = regionMeans(stats, input.subject.region, below: Float(blownLuminance))
      ev =
        0.6 * log2(targetKey / max(unblownRegion.key, 1e-4))
        + 0.4 * log2(targetKey / max(unblownKey, 1e-4))
      if let face = faceRegion {
        ev = 0.6 * log2(targetFaceLuminance / max(face.mean, 1e-4)) + 0.4 * ev
      }
      // The key alone cannot tell snow, a white wall or a bright background from too much
      // light, so the pull is also bounded by what the clipping shows (see `clippedEV`).
      let clipped = clippedEV(hist, blownShare: blownShare, total: stats.pixelCount)
      let blown = smoothstep(0.01, 0.08, blownShare)
      ev = max(min(0, ev + darkenDeadBand), -clipped) * 0.8 * blown
      ev = max(ev, maxDarken)
      // The white blown in the glow of a light in the picture is the light's.
      ev *= 1 - glow
      // A white frame (a blank page, a flat white backdrop) has no picture to expose either:
      // darkening only turns its white grey.
      ev *= picture
    }

    // A frame without a single highlight — its brightest percent under L* 60–70, less than a
    // third of white in linear light — lacks light whatever its key says. A camera meters a
    // scene to middle grey, so snow, a beach or a white wall filling the frame comes out grey
    // with nothing near white, and the key reads it as well exposed. Unless the darkness is the
    // scene's (a night picture's lights, a black base) or there is no picture (a flat veil),
    // brighten by part of the white point's headroom; 0.6 of it, because a scene with
    // no white in it at all (a grey day, a dark wood) also has its whites below the target.
    // Never past the brightest channel's room: a dark forest path whose brightest percent
    // sits at L* 59 shows sky through its canopy (0.2 % of it) within 0.07 EV of white, so it
    // was exposed for what it is (it had been brightened by 1 EV, ΔE2000 6.4 from the photo).
    let noHighlights =
      1
      - smoothstep(
        noHighlightLightness.lowerBound, noHighlightLightness.upperBound, percentiles[6])
    // A dim scene's EXIF alone does not make the darkness the scene's: a camera meters a dim
    // room to grey as it does snow, and its dark frames are underexposed unless they show the
    // night (the lights `darkIntent` reads, which the dim EXIF makes count in full) or the
    // light was night's (``nightSceneEV100``). With both lifts held back under EV100 10,
    // copies of three photos shot in dim light (a street lamp, a backlit leaf, a forest path:
    // EV100 5.5–7.9), 0.7 to 2 EV under with their EXIF recording the shorter exposure, stayed
    // as dark as given (ΔE2000 6.7–17 from the photo; 0.3–1.7 with the lifts).
    let litScene = smoothstep(
      nightSceneEV100.lowerBound, nightSceneEV100.upperBound, sceneEV ?? nightSceneEV100.upperBound)
    if noHighlights > 0, mood < 0.5, litScene > 0, input.capture.flashFired != true {
      let lift =
        min(noHighlightShare * noHighlights * max(0, whiteEV), missingWhite) * litScene
        * (1 - smoothstep(lowKeyBlackShare.lowerBound, lowKeyBlackShare.upperBound, blackShare))
        * picture
      ev = max(ev, min(lift, maxBrighten))
    }

    // Whites lowered by an exposure cut: the brightest channel tops out below white (see
    // ``whiteTop(_:total:)``). Nearly every photo has some channel at 255 somewhere, and a cut
    // lowers it by exactly the lost gain. It fades in over 0.4–0.6 EV: a colour cast lowers
    // the brightest channel of a photo without whites by up to a fifth of a stop. Clipped
    // whites lowered by the cut pile up at the top code, which proves the cut even where the
    // key reads the photo bright (a high-key frame a stop under);
    // without that pile the top alone is no proof (a fog, a cat in warm light: no white in the
    // scene), so it counts only where the key does not already read bright (0.11–0.15). The
    // same fades as above keep the scene's own darkness: a night or low-key frame, night's
    // light, no picture to expose. A face says more than the whites: it bounds the lift.
    // On a soft photo, only the part of the missing white a blur cannot explain (`cut`).
    // A crush lowers the key as well (the pier in fog crushed by 0.10: 0.169 → 0.112, read
    // as a lack of light and brightened by 1.2 EV), so that judgement reads the key the photo
    // has once Lift Shadows undoes the crush (``restoredKey(_:total:crush:)``).
    let bottom = blackBottomCode(stats.floorHistogram, total: stats.pixelCount)
    let copyCrush = crushedBlack(
      stats.floorHistogram, total: stats.pixelCount, pureBlack: blackShare)
    let crush =
      input.fullResolution.map { full in
        fullResolutionCrush(
          fullResolutionFloors(full.picture), noiseSigma: full.noiseSigma,
          copyReading: copyCrush, darkOnPurpose: mood >= 0.5, sceneEV100: sceneEV,
          shadowClipping: blackShare, copyIsPhoto: full.copyIsPhoto)
      } ?? copyCrush
    if cut > missingWhiteFade.lowerBound, mood < 0.5, litScene > 0,
      input.capture.flashFired != true
    {
      let piled = readsAsClip(white, ceilings: stats.ceilingHistogram, total: stats.pixelCount)
      let restored = crush > 0 ? restoredKey(hist, total: stats.pixelCount, crush: crush) : key
      let keyFade = 1 - smoothstep(targetKey, brightKey, restored)
      // A small pile that does not stand out from the codes under it proves a cut only past
      // what a colour cast or the scene's own lack of white explains (``thinPileCut``). A
      // bright, even frame with its blacks in place is a bright scene metered to grey
      // (``meteredGrey(deviation:bottomCode:)``), whatever its key says.
      let proof = max(
        meteredGrey(deviation: deviation, bottomCode: bottom),
        !piled
          ? keyFade
          : standsOut(white, ceilings: stats.ceilingHistogram, total: stats.pixelCount)
            ? 1 : max(keyFade, smoothstep(thinPileCut.lowerBound, thinPileCut.upperBound, cut)))
      let lift =
        min(cut, faceRegion == nil ? maxBrighten : subjectEV)
        * smoothstep(missingWhiteFade.lowerBound, missingWhiteFade.upperBound, cut) * proof
        * (1 - smoothstep(lowKeyBlackShare.lowerBound, lowKeyBlackShare.upperBound, blackShare))
        * picture * litScene
      ev = max(ev, min(lift, maxBrighten))
    }

    // Bright colours pushed through white in two channels (``clippedColourShare``) are too much
    // light whatever the key says: a camera renders a lit colour below white, and a cast moves
    // one channel, not two. Not in a photo dark on purpose (lamps at night, blue light), nor
    // where the warm glow of a light in the picture clips them
    // (``glowExplainsClipping(_:blownShare:clipped:)``).
    let clippedColours =
      smoothstep(clippedColourShare.lowerBound, clippedColourShare.upperBound, colourClip)
      * (1 - mood) * (1 - glow)
    if clippedColours > 0 { ev += (min(ev, clippedColourEV) - ev) * clippedColours }

    let darkOnPurpose = mood >= 0.5
    if ev > 0 {
      ev *= 1 - 0.8 * mood
      if darkOnPurpose { ev = min(ev, 0.7) }
    }

    let exposure = ExposureAnalysis(
      meanLuminance: meanY, keyLuminance: max(0, key), lightnessPercentiles: percentiles,
      lightnessDeviation: deviation,
      shadowClipping: blackShare,
      highlightClipping: Double(stats.totals.highlightClipped) / n,
      subjectLuminance: subjectMean, sceneEV100: sceneEV, isDarkOnPurpose: darkOnPurpose,
      suggestedEV: ev, blownShare: blownShare,
      channelFloor: channelFloor(stats.floorHistogram, total: stats.pixelCount),
      crushedBlack: crush,
      missingWhiteEV: missingWhite,
      liftedBlack: liftedBlack(stats.floorHistogram, bottom: bottom, total: stats.pixelCount),
      blackBottom: Double(bottom) / 255, clippedColourShare: colourClip,
      raisedFloor: raisedFloor(stats.floorHistogram, bottom: bottom, total: stats.pixelCount))
    return (exposure, intent, blue)
  }

  /// Share of the photo beyond the code read as a channel's end (above the brightest channel's
  /// top in ``whiteTop(_:total:)``, under the darkest channel's bottom in
  /// ``blackBottomCode(_:total:)``): a few stray hot pixels or ringing edges are not the
  /// photo's white or black.
  static let strayShare = 0.0002
  /// ``ExposureAnalysis/missingWhiteEV`` over which brightening by it fades in (EV).
  static let missingWhiteFade = 0.4...0.6
  /// How far a blur can lower the brightest channel's top (EV): the part of
  /// ``ExposureAnalysis/missingWhiteEV`` a soft photo (``SharpnessMeasurement/softness(_:)``)
  /// counts neither as a cut nor as room to brighten into. Blurred by σ 1 and 2 px at 768 px,
  /// nine in ten of the harness's 85 photos read within 0.11 EV of their own missing white,
  /// but those whose top is set by small details read up to 0.57 EV more (cut fruit 0.21 →
  /// 0.57 → 0.68, a print with white lettering 0.27 → 0.68 → 0.84) and were brightened by
  /// 0.54–0.84 EV. With this allowance the blurred copies of the 70 shared photos outside `dev`
  /// went from 122 % to 113 % of their input ΔE2000; the one cost is a copy of a photo soft
  /// of its own (a storm streaked by motion, a phone's photo of flowers) a stop or so under,
  /// which is brightened a little less.
  static let blurredWhiteEV = 0.5

  /// Share of the photo on the brightest channel's pile (its most filled code near the top
  /// and the codes either side, see ``whiteTop(_:total:)``) from which the pile reads as
  /// clipped whites lowered by a gain. Measured on the shared set's copies 0.7–2 EV under (at
  /// 512 px, at the top code): of 165 copies of photos with a clipped channel, a median of
  /// 0.7 % (up to 20 %), but a third under 0.3 %; of 57 copies of photos without one, a
  /// median of 0.04 %, but 14 at 0.3 % or more (snow, a fog, a blue-hour lake). The pile is
  /// evidence, not proof: without it the key decides.
  static let minimumTopPile = 0.003
  /// Share of the photo on the brightest channel's pile from which it must also stand out as a
  /// spike (``largePileStep``) to read as clipped whites. Whites clipped and then lowered by a
  /// gain all land on one code, so a pile of several percent rises far above the codes just
  /// under it (the shared set's underexposed copies with a pile this large: 4.3–11 times; the
  /// iPhone sky copies, under 5 %, 1.7–2). A large bright area that is smooth (fog, an even
  /// overcast) fills those codes nearly as much: a pier in fog, its top half one grey at L* 74
  /// (a pile of 13 % over 14 % per three codes under it), was brightened by 1.1 EV.
  static let largeTopPile = 0.05
  /// How many times the pile must hold what three codes under it hold on average (see
  /// ``largeTopPile``).
  static let largePileStep = 1.5
  /// How many times a pile under ``largeTopPile`` must hold what three codes under it hold on
  /// average to stand out (``standsOut(_:ceilings:total:)``): the lowered whites of a bridge
  /// 0.7 EV under hold 0.23 times as much, the thin top edge of the pier in fog below 0.10.
  static let smallPileStep = 0.15
  /// The missing white (EV) over which a pile that does not stand out proves a cut whatever
  /// the key says, fading in to the upper end. A pier in fog half a stop over ends its grey
  /// top (8–11 % a code) in a thin edge on the top code (2 % of the frame, a tenth of the
  /// codes under it), 0.57 EV under white: read as a cut, it was brightened by 0.54 EV. The
  /// whites of a leaf on snow 1.3 and 2 EV under also end in thin piles (0.06 and 0.02 of
  /// the codes under them), 1.5 and 2.2 EV under white, with keys as bright as the fog's.
  static let thinPileCut = 0.6...1.0
  /// Codes under the brightest channel's top searched for a pile: a sharpening resize
  /// (Lanczos) overshoots a flat white's edges by up to about 8 codes, and its overshoot holds
  /// a tenth of a percent of a 512 px copy, more than ``strayShare``.
  static let topPileWindow = 10
  /// The key over which a photo reads bright enough that its top alone, without a pile, is
  /// not taken as missing whites (fading in from ``targetKey``).
  static let brightKey = 0.15

  /// Lightness deviation (L*, ``ExposureAnalysis/lightnessDeviation``) under which a frame
  /// without white reads as a bright scene metered to grey, fading out to the upper end
  /// (``meteredGrey(deviation:bottomCode:)``). A leaf on snow 0.7 and 1.3 EV under measures
  /// 7.1 and 6.2; the photos of the shared set that lack white while their key reads bright
  /// are not even: a pier in fog 23, a cat 12.8.
  static let meteredFlatDeviation = 8.0...11.0
  /// The darkest channel's bottom code (``blackBottomCode(_:total:)``) over which an even frame
  /// is a veil, not a metered scene, fading in to the upper end: haze or fog over a photo
  /// lifts its blacks to code 120 and more (the harness's hazed copies), where the snow's
  /// shadows stay at codes 3–5.
  static let meteredVeilBottom = 30.0...60.0

  /// How sure a frame whose whites are missing is a bright scene metered to grey (0...1): a
  /// camera's meter sets the average of what it sees to middle grey, so snow, sand or a white
  /// wall filling the frame comes out even and grey with nothing near white, and its key still
  /// reads bright (a leaf on snow 0.7 EV under: key 0.36, its brightest channel 0.89 EV short
  /// of white; left as it was, it stayed ΔE2000 10.7 from the photo). Such a frame is even
  /// (``meteredFlatDeviation``) and keeps its shadows near black (``meteredVeilBottom``),
  /// which a hazed or fogged frame, just as even and as short of white, does not.
  static func meteredGrey(deviation: Double, bottomCode: Int) -> Double {
    (1 - smoothstep(meteredFlatDeviation.lowerBound, meteredFlatDeviation.upperBound, deviation))
      * (1
        - smoothstep(
          meteredVeilBottom.lowerBound, meteredVeilBottom.upperBound, Double(bottomCode)))
  }

  /// The brightest channel's top code and the share of the photo piled there: the top is the
  /// code above which only ``strayShare`` of the photo lies; when no pile of at least
  /// ``minimumTopPile`` sits there but one does within ``topPileWindow`` codes under it (the
  /// most filled code and its neighbours), standing thirty times above the thin overshoot over
  /// it, that pile's code. `ceilings` counts `max(r, g, b)` per code.
  static func whiteTop(_ ceilings: [Int], total: Int) -> (code: Int, pile: Double) {
    guard ceilings.count == 256, total > 0 else { return (255, 0) }
    let top = percentileBin(ceilings, 1 - strayShare, total: total)
    func pile(at code: Int) -> Double {
      share(of: ceilings, from: code - 1, through: code + 1, total: total)
    }
    let atTop = pile(at: top)
    if atTop >= minimumTopPile { return (top, atTop) }
    var mode = top
    for code in stride(from: top, through: max(top - topPileWindow, 0), by: -1)
    where ceilings[code] > ceilings[mode] {
      mode = code
    }
    // The overshoot above a pile is thin: per three codes, a thirtieth of the pile at most (a
    // Lanczos copy of a white background 0.7 EV under: a 413th). A histogram that merely
    // rises toward its top has no such step; a white a few codes under a brighter highlight
    // that had its own clip mostly has less of one (two such photos 0.7–2 EV under: 10–34
    // times, so one of the six copies still reads the lower white, 0.09 EV short of white).
    let piled = pile(at: mode)
    let above = share(of: ceilings, from: mode + 2, through: top, total: total)
    let overshoot = above / Double(max(top - mode - 1, 1)) * 3
    guard piled >= minimumTopPile, piled >= 30 * overshoot else { return (top, atTop) }
    return (mode, piled)
  }

  /// Whether the pile at the brightest channel's top (``whiteTop(_:total:)``) reads as clipped
  /// whites lowered by a gain: at least ``minimumTopPile`` of the photo, and when it holds
  /// ``largeTopPile`` or more, ``largePileStep`` times what three codes just under it hold on
  /// average (codes 2–7 under its code), which a smooth bright area fills and a lowered clip
  /// does not.
  static func readsAsClip(_ white: (code: Int, pile: Double), ceilings: [Int], total: Int)
    -> Bool
  {
    guard white.pile >= minimumTopPile else { return false }
    guard white.pile >= largeTopPile else { return true }
    return pileStep(white, ceilings: ceilings, total: total) >= largePileStep
  }

  /// How many times the pile at the brightest channel's top holds what three codes just under
  /// it hold on average (codes 2–7 under its code; infinite when those are empty).
  static func pileStep(_ white: (code: Int, pile: Double), ceilings: [Int], total: Int)
    -> Double
  {
    let under = share(of: ceilings, from: white.code - 7, through: white.code - 2, total: total)
    return under > 0 ? white.pile / (under / 2) : .infinity
  }

  /// Whether a pile at the brightest channel's top that ``readsAsClip(_:ceilings:total:)``
  /// stands out from the codes just under it: a large pile always does (its reading demands
  /// it), a smaller one when it holds ``smallPileStep`` times what three codes under it hold
  /// on average. A clip lowered by a gain puts all its pixels on one code; the thin top edge
  /// of a smooth bright area holds a fraction of the codes under it.
  static func standsOut(_ white: (code: Int, pile: Double), ceilings: [Int], total: Int)
    -> Bool
  {
    white.pile >= largeTopPile
      || pileStep(white, ceilings: ceilings, total: total) >= smallPileStep
  }

  /// How far the brightest channel's top `code` (``whiteTop(_:total:)``) sits below white,
  /// EV in linear light (``ExposureAnalysis/missingWhiteEV``).
  static func missingWhiteEV(atCode code: Int) -> Double {
    min(maxBrighten, log2(1 / Double(max(SRGBTables.decode8[code], 1e-4))))
  }

  /// Share of `total` counted in `hist` from code `first` through `last`, clamped to the
  /// histogram (0 when that leaves no code).
  static func share(of hist: [Int], from first: Int, through last: Int, total: Int) -> Double {
    let lo = max(first, 0), hi = min(last, hist.count - 1)
    guard lo <= hi, total > 0 else { return 0 }
    return Double(hist[lo...hi].reduce(0, +)) / Double(total)
  }

  /// Spike-to-density ratio (code values) of the darkest channel at 0 over which a clip reads
  /// as a crushed black point, fading in to its upper end; ``neutralCrushSpikeRatio`` where dark
  /// neutrals went to pure black with it.
  static let crushSpikeRatio = 8.0...12.0
  /// The ratio range of ``crushSpikeRatio`` where the clip blackened the photo's dark neutral
  /// tones in every channel too (``neutralCrushShare``).
  ///
  /// A mild crush reads under its own size: 0.05 spans 12.75 codes, but most photos thin out
  /// towards black, so the density just above the clip is more than what lay under it and the
  /// ratio underestimates the clip. On the harness's copies of
  /// 85 photos at their own 768 px, of the 71 crushed by 0.05 with 1 % or more at 0, 38 read 12
  /// and more, 21 read 8–12 and 12 under 8 (two frames of a night scene at 8.8 and 9.3 kept
  /// their crush). A lower ramp alone (6–10) also read the spike of a colour clipped to 0 in one
  /// channel, whose codes above an exposure a stop over thins to about half: seven frames of
  /// that night scene a stop over read 9.1–9.5 and were given Lift Shadows (8.7 → 10.1
  /// ΔE2000 from the photo), and the outside photos' over family went from 85.3 % to 86.5 %
  /// of its input. A crush clips dark neutrals with the colours; a colour clipped alone does
  /// not: 25 of the 28 crushed copies at 8–12 have pure black at 0.09–1.2 of their spike,
  /// those over-exposed frames 0.01–0.04. With the ramp moved for neutral blacks only, the crush
  /// family went from 49.9 % to 49.1 % of its input ΔE2000 on `dev` and from 76.2 % to 74.6 %
  /// on 70 other photos, with their untouched photos unchanged, the under, noise, cast and
  /// lift families within 0.1 point, and over from 85.3 % to 85.4 % (a portrait a stop over,
  /// 5.8 → 6.4).
  static let neutralCrushSpikeRatio = 6.0...10.0
  /// Pure black (every channel at 2/255 or under) as a share of the darkest channel's spike at
  /// 0 over which the clip counts as having blackened dark neutrals
  /// (``neutralCrushSpikeRatio``), fading in to the upper end.
  static let neutralCrushShare = 0.05...0.1
  /// Share of pixels clipped to 0 in their darkest channel over which the clip is the scene's
  /// black (a lit subject in a black frame), fading out to the upper end. A crush of a photo
  /// with deep colours or dark parts clips up to four fifths of it (a deep blue sky has no
  /// red); among the untouched photos only a frame 96 % black has more than half.
  static let crushLowKeyShare = 0.8...0.9
  /// The largest black-point move ``crushedBlack(_:total:pureBlack:cap:)`` reports.
  static let maxCrushedBlack = 0.06

  /// The display black point a crush moved (see ``ExposureAnalysis/crushedBlack``).
  ///
  /// A crush `(v − b)/(1 − b)` sends every darkest channel under `b` to code 0: a spike there,
  /// over a density just above it that is the photo's own. With that density about even below
  /// `b`, the spike spans `255·b` of it, so `b ≈ spike / density / 255`.
  /// Measured on the harness's crushed copies (512 px, darkest channel): of 74 photos, 40 of
  /// the copies crushed by 0.05 and 57 of those crushed by 0.10 have 1 % or more at 0 with a
  /// ratio of 8 or more; of the untouched photos two do (a nearly black frame, 96 % at 0, and
  /// one at a ratio of 8.4). The estimate is rough (its quartiles are 0.04–0.13 for both
  /// crushes), so it is capped at ``maxCrushedBlack``: the inverse with the capped estimate,
  /// simulated on the `dev` copies, gave a mean ΔE2000 of 1.8 and 2.8 (crushed by 0.05 and
  /// 0.10; 2.3 and 4.5 before), with a cap of 0.10 2.7 and 2.9. Through `retouch auto` the
  /// crush family went from 91 to 79 % of its input ΔE2000 on `dev`, 108 to 92 % on 59 other
  /// photos.
  ///
  /// `pureBlack` is the share of the photo black in every channel: a spike that came with as
  /// much as a tenth of it in neutral black is judged on ``neutralCrushSpikeRatio``.
  ///
  /// A crushed JPEG reads far less: compression scatters the clipped pixels over codes 0–3,
  /// and the downscale to 512 px averages them into code 1. Of the same copies saved at q90,
  /// 13 (crushed by 0.05) and 21 (by 0.10) of 74 are read. Counting codes 0–1 as the spike
  /// reads 34 and 47, but also reads a crush in 6 to 8 of the 74 untouched photos (deep
  /// colours against a blue sky, a red flower, a portrait with black in it), so the spike
  /// stays at code 0.
  ///
  /// The copy's resampling also spreads the pile (the harness's copies are 768 px): where the
  /// photo is larger than its copy the reading is made again at the photo's own size
  /// (``fullResolutionCrush(_:noiseSigma:copyReading:darkOnPurpose:sceneEV100:shadowClipping:copyIsPhoto:)``),
  /// capped at `cap`.
  static func crushedBlack(
    _ floors: [Int], total: Int, pureBlack: Double = 0, cap: Double = maxCrushedBlack
  ) -> Double {
    guard floors.count > 4, total > 0 else { return 0 }
    let n = Double(total)
    let spike = Double(floors[0]) / n
    guard spike >= 0.01 else { return 0 }
    let density = Double(floors[1] + floors[2] + floors[3] + floors[4]) / (4 * n)
    let ratio = spike / max(density, 1e-6)
    let neutral = smoothstep(
      neutralCrushShare.lowerBound, neutralCrushShare.upperBound, pureBlack / spike)
    let from =
      crushSpikeRatio.lowerBound
      + (neutralCrushSpikeRatio.lowerBound - crushSpikeRatio.lowerBound) * neutral
    let to =
      crushSpikeRatio.upperBound
      + (neutralCrushSpikeRatio.upperBound - crushSpikeRatio.upperBound) * neutral
    let sure =
      smoothstep(from, to, ratio)
      * (1 - smoothstep(crushLowKeyShare.lowerBound, crushLowKeyShare.upperBound, spike))
    return min(ratio / 255, cap) * sure
  }

  /// Most pixels ``fullResolutionFloors(_:)`` counts: past it, every n-th pixel of every n-th
  /// row (a point sample keeps each code's share, where averaging would blur the clip).
  static let fullCountSamples = 3_000_000

  /// The darkest encoded channel's counts at codes 0...4 over the photo at its own size
  /// (``fullResolutionFloors(_:)``).
  struct BlackCount: Equatable {
    /// Pixels whose darkest channel is at code 0, 1, 2, 3 and 4.
    var floors: [Int]
    /// Pixels counted.
    var total: Int
    /// Of the counted pixels at 0 with a counted neighbour to their right, the share whose
    /// neighbour is at 0 too (0 without any): near 1 where whole regions were clipped, as a
    /// crush clips shadows, about a third where noise scatters single pixels below black.
    var clumped: Double
    /// Pixels black in every channel (code 2 and under, as ``PassContext/shadowCode``).
    var pureBlack = 0
  }

  /// Counts of the darkest encoded channel at codes 0...4 of a photo or a region of one (read
  /// in place) at its own resolution (8- or 16-bit RGB(A); a 16-bit value counts by its high
  /// byte): the input of ``crushedBlack(_:total:pureBlack:cap:)`` without the analysis copy's
  /// resampling.
  static func fullResolutionFloors(_ region: PhotoRegion) -> BlackCount {
    let image = region.image
    let w = region.width, h = region.height
    let step = max(1, Int((Double(w * h) / Double(fullCountSamples)).squareRoot().rounded(.up)))
    let channels = image.format.channelCount
    let wide = image.format.bitDepth != 8
    let rowCount = (h + step - 1) / step
    let columns = (w + step - 1) / step
    // Per sampled row: the 5 counts, the zeros with a neighbour, the zero pairs and the pure
    // blacks, added in row order afterwards (the same totals whatever the bands).
    let slots = 8
    let pureCode = Int(PassContext.shadowCode)
    var perRow = [Int](repeating: 0, count: rowCount * slots)
    image.withUnsafeBytes { raw in
      guard let base = raw.baseAddress, channels >= 3 else { return }
      let src = SendableRawPointer(base)
      perRow.withUnsafeMutableBufferPointer { out in
        guard let o = out.baseAddress else { return }
        let counts = SendableRawPointer(UnsafeMutableRawPointer(o))
        ParallelBands.forEach(rows: rowCount) { rows in
          let c = counts.pointer.assumingMemoryBound(to: Int.self)
          for r in rows {
            let y = r * step
            var n = (0, 0, 0, 0, 0)
            var withNeighbour = 0, pairs = 0, pure = 0
            var previousZero = false
            for x in stride(from: 0, to: w, by: step) {
              let i = region.componentIndex(column: x, row: y)
              let lo: Int
              let hi: Int
              if wide {
                let p = src.pointer.assumingMemoryBound(to: UInt16.self)
                lo = Int(min(p[i], p[i + 1], p[i + 2]) >> 8)
                hi = Int(max(p[i], p[i + 1], p[i + 2]) >> 8)
              } else {
                let p = src.pointer.assumingMemoryBound(to: UInt8.self)
                lo = Int(min(p[i], p[i + 1], p[i + 2]))
                hi = Int(max(p[i], p[i + 1], p[i + 2]))
              }
              if hi <= pureCode { pure += 1 }
              if previousZero {
                withNeighbour += 1
                if lo == 0 { pairs += 1 }
              }
              previousZero = lo == 0
              switch lo {
              case 0: n.0 += 1
              case 1: n.1 += 1
              case 2: n.2 += 1
              case 3: n.3 += 1
              case 4: n.4 += 1
              default: break
              }
            }
            let row = c + r * slots
            row[0] = n.0
            row[1] = n.1
            row[2] = n.2
            row[3] = n.3
            row[4] = n.4
            row[5] = withNeighbour
            row[6] = pairs
            row[7] = pure
          }
        }
      }
    }
    var sums = [Int](repeating: 0, count: slots)
    for r in 0..<rowCount {
      for k in 0..<slots { sums[k] += perRow[r * slots + k] }
    }
    return BlackCount(
      floors: Array(sums[0..<5]), total: rowCount * columns,
      clumped: sums[5] > 0 ? Double(sums[6]) / Double(sums[5]) : 0, pureBlack: sums[7])
  }

  /// The share of clipped pixels lying beside another (``BlackCount/clumped``) over which a
  /// full-resolution spike reads as a crush, fading in to its upper end. On the harness's
  /// copies at 768 px (79 photos) whose spike reads: crushed (123), a median of 0.90, 6 under
  /// 0.6 and 86 over 0.8; with its sensor noise (145), a median of 0.45, 119 under 0.6 and 7
  /// over 0.8 (photos with large black areas).
  static let clumpedCrush = 0.6...0.8

  /// Grain (``NoiseAnalysis/sigma``, 8-bit codes) over which pixels at 0 are the noise's, not
  /// a crush's, fading out to the upper end: noise under black clips as a crush does. Clean Up
  /// starts at 2.5.
  static let grainyCrushSigma = 1.5...2.5

  /// The largest black-point move
  /// ``fullResolutionCrush(_:noiseSigma:copyReading:darkOnPurpose:sceneEV100:shadowClipping:copyIsPhoto:)``
  /// reports.
  static let maxFullResolutionCrushedBlack = 0.10

  /// The scene brightness (EV100 from the EXIF) over which the full-resolution crush reading
  /// counts, fading in to all of it at the upper end: under dim light (a room, a museum, a
  /// street at night) a clipped black is the camera's (the painting: EV100 4.6, the cat: 5.8).
  static let dimSceneEV100 = 6.0...8.0

  /// ``ExposureAnalysis/crushedBlack`` read again from the photo at its own resolution
  /// (``fullResolutionFloors(_:)``), where the analysis copy's resampling has not spread the
  /// clip's spike over the codes next to it: the larger of that and the copy's (`copyReading`),
  /// as far as the scene is lit.
  ///
  /// The copy's reading misses most mild crushes: shrinking the harness's 768 px copies to
  /// 512 px averages the pixels at 0 with their neighbours. Counted at their own size, the
  /// spike reads the black point better (on the 79 photos' copies crushed by 0.05 and 0.10,
  /// medians 0.058 and 0.089 where read, 123 of 158 read), so it is capped higher
  /// (``maxFullResolutionCrushedBlack``).
  ///
  /// A full-size photo whose blacks the camera clipped reads as crushed too: the three among
  /// the 74 shared photos that did (a museum painting at ISO 1600, a cat indoors, a shop front
  /// at night) are dim scenes, where cameras set black above the sensor's noise and clip it as
  /// sharply as a crush. So the reading counts only as far as the EXIF reads a brighter scene
  /// (``dimSceneEV100``; a photo without EXIF counts as lit), and not in a frame a sixth or
  /// more pure black (``lowKeyBlackShare``; the shop front is a third black), nor in a photo
  /// dark on purpose.
  ///
  /// Sensor noise under black clips single pixels to 0, which the copy averages away and the
  /// full count reads as a spike (the harness's noisy copies: 145 of 158 read, the noise family
  /// went from 35 % to 60 % of its input ΔE2000 on `dev` when Lift Shadows took them). Where
  /// the grain was measured, a grainy photo (``grainyCrushSigma``) keeps the copy's reading;
  /// every noisy copy of the harness measures σ 3.2 codes or more, its crushed copies 1.9 or
  /// less. Where it was not, the clipped pixels must lie in regions (``clumpedCrush``), which
  /// tells most noise from a crush but also misses crushes of fine dark detail (feathers,
  /// foliage: 9 of the 30 crushed copies of `dev` measure 0.6–0.8).
  ///
  /// When the photo is no larger than its copy (`copyIsPhoto`), the copy was not resampled
  /// either, so its own reading counted the noise's clipped pixels too: a grainy photo's copy
  /// reading is dropped (the harness's noisy copies of photos up to 640 px read 0.04–0.06 and
  /// got their black point lowered with Clean Up). Such a copy that read no crush at all had
  /// no spike to read, which the count would find again: `count` is then not made (skipping
  /// it took `topSuggestion` on a 512 px copy from 16.6 to 15.1 ms median).
  ///
  /// Read inside the exposure measurement, before the key is judged (a crush lowers it), so
  /// it takes the facts it needs from there: the copy's own reading, whether the photo is
  /// dark on purpose, the scene's EV100 and the pure-black share.
  static func fullResolutionCrush(
    _ count: @autoclosure () -> BlackCount, noiseSigma: Double?, copyReading: Double,
    darkOnPurpose: Bool, sceneEV100: Double?, shadowClipping: Double, copyIsPhoto: Bool
  ) -> Double {
    let clean =
      1
      - smoothstep(grainyCrushSigma.lowerBound, grainyCrushSigma.upperBound, noiseSigma ?? 0)
    let copy = copyReading * (copyIsPhoto ? clean : 1)
    guard !darkOnPurpose, !(copyIsPhoto && copy == 0) else { return copy }
    let count = count()
    let full = crushedBlack(
      count.floors, total: count.total,
      pureBlack: Double(count.pureBlack) / Double(max(1, count.total)),
      cap: maxFullResolutionCrushedBlack)
    guard full > copy else { return copy }
    let lit = smoothstep(dimSceneEV100.lowerBound, dimSceneEV100.upperBound, sceneEV100 ?? 10)
    let lowKey = smoothstep(
      lowKeyBlackShare.lowerBound, lowKeyBlackShare.upperBound, shadowClipping)
    let regions =
      noiseSigma == nil
      ? smoothstep(clumpedCrush.lowerBound, clumpedCrush.upperBound, count.clumped) : 1
    return copy + (full - copy) * lit * (1 - lowKey) * regions * clean
  }

  /// Ratio of the pile at the darkest channel's floor to the density above it over which the
  /// floor reads as a raised black level (``liftedBlack(_:bottom:total:)``), fading in to the upper
  /// end.
  static let liftPileRatio = 2.0...4.0

  /// The darkest channel's 0.02nd-percentile code (``ExposureAnalysis/blackBottom`` × 255).
  static func blackBottomCode(_ floors: [Int], total: Int) -> Int {
    guard floors.count == 256, total > 0 else { return 0 }
    return percentileBin(floors, strayShare, total: total)
  }

  /// The encoded level (0...1) the black point reads as raised to, with the photo's blacks
  /// piled on it (``ExposureAnalysis/liftedBlack``); 0 without such a pile.
  ///
  /// A lift `b + (1 − b)·v` moves every pixel whose darkest channel was 0 to the code of `b`
  /// and leaves nothing under it, so the darkest channel's 0.02nd percentile (`bottom`, from
  /// ``blackBottomCode(_:total:)``) reads `b` and the pixels at that code and the next
  /// outnumber the density of the ten codes above. Measured at the bottom on the shared set at
  /// 512 px (box-averaged): untouched photos reach a ratio of 0.9 at most (their floors
  /// are spread or at 0), a lifted copy of a photo with true black in it 1.5–57, and a hazy
  /// one, whose veil is a lift in linear light, as much (Punch takes the veil first).
  ///
  /// A caller's copy made with a sharpening filter (Lanczos) rings under the pile's edges and
  /// puts a few pixels up to 7 codes below it (0.2 % of a lifted mountain photo at 512 px), so
  /// the bottom lands under the pile. The pile is therefore the most filled pair of codes
  /// within ``liftPileReach`` above the bottom, and counts only when what lies under it is at
  /// most a third of it. On the 85 shared photos at 512 px, lifted by 0.08 and by 0.16 and
  /// shrunk with Lanczos, 18 and 21 lifts are read (6 and 7 at the bottom alone), box-averaged
  /// 23 and 25 (19 and 25); the untouched photos read none either way. Without a pile, the
  /// floor's edge may still show that there is a lift (``raisedFloor(_:bottom:total:)``).
  static func liftedBlack(_ floors: [Int], bottom: Int, total: Int) -> Double {
    guard bottom >= 3, bottom + liftPileReach + 12 < floors.count, total > 0 else { return 0 }
    var code = bottom
    for c in bottom...(bottom + liftPileReach)
    where floors[c] + floors[c + 1] > floors[code] + floors[code + 1] {
      code = c
    }
    let pile = share(of: floors, from: code, through: code + 1, total: total)
    let under = share(of: floors, from: bottom, through: code - 1, total: total)
    guard under <= pile / 3 else { return 0 }
    let density = share(of: floors, from: code + 2, through: code + 11, total: total) / 5
    let ratio = pile / max(density, 1 / Double(total))
    let picture = share(of: floors, from: code + 2, through: floors.count - 1, total: total)
    return Double(code) / 255
      * smoothstep(liftPileRatio.lowerBound, liftPileRatio.upperBound, ratio)
      * smoothstep(liftedPicture.lowerBound, liftedPicture.upperBound, picture)
  }

  /// The darkest channel's bottom code (``blackBottomCode(_:total:)``) from which a floor
  /// holding much of the frame reads as a raised black level (``raisedFloor(_:bottom:total:)``),
  /// fading in to the upper end.
  static let liftEdgeBottom = 14.0...20.0
  /// The share of the frame whose darkest channel lies within ``liftEdgeWidth`` codes of the
  /// bottom over which that floor reads as a raised black level, fading in to the upper end.
  static let liftEdgeShare = 0.02...0.035
  /// How many codes from the bottom up count as the floor's edge.
  static let liftEdgeWidth = 5

  /// How surely the darkest channel's floor is a raised black level where no pile shows it
  /// (0...1, ``ExposureAnalysis/raisedFloor``): a bottom well above black
  /// (``liftEdgeBottom``) on which much of the frame stands (``liftEdgeShare``), with picture
  /// above it (``liftedPicture``).
  ///
  /// A lift `b + (1 − b)·v` moves the photo's deep shadows (its darkest channel at codes 0–4)
  /// to the five codes above `b`, and leaves nothing under them. A photo whose blacks were
  /// clipped piles them on one code, which ``liftedBlack(_:bottom:total:)`` reads; one whose
  /// shadows only approach black (most photos) leaves no pile, but a floor with a sharp edge.
  /// A scene's own raised floor (fog, a storm, a pale frame) is approached gradually, so few
  /// pixels lie near it. Measured at 512 px (box-averaged), the darkest channel's five codes
  /// from the bottom hold 1.1–1.7 % of the frame in the two shared photos (of 85) whose bottom
  /// is at code 14 or more (a storm at dusk, a sea of clouds under the sun) and in their
  /// harness copies with casts or overexposure; no other copy of the 70 photos outside `dev`,
  /// lifted and hazed ones aside (a haze is a veil, which Punch takes first), reaches code 14
  /// with 0.3 % there. The harness's mildest lift (0.08, code
  /// 20) puts 2–98 % of the frame there, over 3.5 % on 40 of the 70.
  ///
  /// The bottom is the lift plus the photo's own darkest level, which a photo without black
  /// keeps a few codes over 0, so it proves a lift but does not size it: taken as the level,
  /// a lifted photo whose blackest pixels had been at code 8 lost 7 codes of its shadows.
  /// ``ToneFit/blackLevelRemoval(_:strength:)`` sizes the fix.
  static func raisedFloor(_ floors: [Int], bottom: Int, total: Int) -> Double {
    guard floors.count == 256, total > 0, bottom + liftEdgeWidth < floors.count else { return 0 }
    let edge = share(of: floors, from: bottom, through: bottom + liftEdgeWidth - 1, total: total)
    let picture = share(
      of: floors, from: bottom + liftEdgeWidth, through: floors.count - 1, total: total)
    return smoothstep(liftEdgeBottom.lowerBound, liftEdgeBottom.upperBound, Double(bottom))
      * smoothstep(liftEdgeShare.lowerBound, liftEdgeShare.upperBound, edge)
      * smoothstep(liftedPicture.lowerBound, liftedPicture.upperBound, picture)
  }

  /// Share of the photo above a pile (its darkest channel two codes or more over it) over which
  /// the pile reads as a lifted black, fading in to the upper end. A frame of one flat colour
  /// is all pile with nothing under it, as a lift leaves, but nothing above it either: a grey
  /// card at code 128 read a lift of 0.50 and was taken to code 86. A lift leaves the picture
  /// above its black: a disparity map that is black over half its frame keeps the rest above
  /// the pile when lifted (the picture's spread in L* would not do: lifted, that map spans
  /// a few L*, and its lifted copies lost their fix).
  static let liftedPicture = 0.005...0.02

  /// How far above the darkest channel's bottom the pile of a lifted black level is looked for
  /// (codes): past a resize's undershoot.
  static let liftPileReach = 10

  /// The percentile of the per-pixel darkest channel that ``ExposureAnalysis/channelFloor``
  /// reads.
  static let channelFloorPercentile = 0.005

  /// L* of a grey at the ``channelFloorPercentile`` of `floors` (counts of `min(r, g, b)` per
  /// encoded code value).
  static func channelFloor(_ floors: [Int], total: Int) -> Double {
    let code = percentileBin(floors, channelFloorPercentile, total: total)
    return PixelStatistics.lightness(Double(SRGBTables.decode8[code]))
  }

  /// The first luminance-histogram bin (of `bins`) at or above ``blownLuminance``.
  static func firstBlownBin(bins: Int) -> Int {
    Int((blownLuminance * Double(bins - 1)).rounded(.up))
  }

  /// Share of pixels a well-exposed photo has blown (``blownLuminance`` and up): a lamp, the
  /// sun, a patch of sky. Only blown pixels beyond it count as evidence of overexposure.
  static let normalBlownShare = 0.02

  /// The overexposure (EV, 0...2) the clipping itself shows.
  ///
  /// A linear gain of e EV sends every pixel that was within e EV below white to white, so the
  /// blown share beyond ``normalBlownShare`` is the part of the histogram that was pushed
  /// through the top. Assuming the histogram continued above white as densely as in the half
  /// stop just below ``blownLuminance``, that part spans `0.5 × excess / shoulder` EV. A bright
  /// photo that is bright on purpose (snow, a white wall, a bright background) has little blown
  /// and a dense shoulder, so it measures small even where its key is far above the target.
  static func clippedEV(_ hist: [Int], blownShare: Double, total: Int) -> Double {
    let excess = blownShare - normalBlownShare
    guard excess > 0 else { return 0 }
    let bins = hist.count
    let top = firstBlownBin(bins: bins)
    let low = Int((blownLuminance / 2.squareRoot() * Double(bins - 1)).rounded(.up))
    var count = 0
    for i in low..<min(top, bins) { count += hist[i] }
    let shoulder = Double(count) / Double(max(1, total))
    return min(-maxDarken, 0.5 * excess / max(shoulder, normalBlownShare))
  }

  /// The scene brightness as EV100 from the EXIF exposure: `log2(N²/t) − log2(ISO/100)`; when
  /// the ISO is missing (some cameras keep it only in maker notes) ISO 100 is assumed, which
  /// gives the brightest scene the exposure allows (so a dim result stays trustworthy); without
  /// exposure time or aperture, the APEX brightness value plus 5 (Sv of ISO 100); else nil.
  static func sceneEV100(_ c: CaptureFacts) -> Double? {
    if let ev = c.ev100 { return ev }
    if let t = c.exposureTime, let f = c.fNumber, t > 0, f > 0 {
      return log2(f * f / t)
    }
    return c.brightnessValue.map { $0 + 5 }
  }

  /// How sure we are that a dark photo is dark because the scene was (0...1).
  ///
  /// A dark base (median L* below 25–40) with small bright lights (a few tenths of a percent to
  /// 15 % of the photo at L* ≥ 80) is the picture of a night street or a lamp-lit room. With EXIF
  /// the camera's exposure must agree: EV100 at or below 7.5 (a dim scene) counts fully, above 10
  /// (daylight or a bright room) not at all, and a fired flash means the subject was lit, so
  /// darkness there is a mistake. Without EXIF the same picture counts for less (0.7 at most)
  /// and needs brighter lights.
  static func darkIntent(
    hist: [Int], total: Int, medianL: Double, p99L: Double, sceneEV: Double?, flashFired: Bool?
  ) -> Double {
    let darkBase = 1 - smoothstep(25, 40, medianL)
    guard darkBase > 0 else { return 0 }
    let share80 = share(hist, total: total, atLeastLightness: 80)
    let smallLights = smoothstep(0.001, 0.004, share80) * (1 - smoothstep(0.15, 0.3, share80))
    if let ev = sceneEV {
      if flashFired == true { return 0 }
      let dimScene = 1 - smoothstep(7.5, 10, ev)
      let share65 = share(hist, total: total, atLeastLightness: 65)
      let anyLights = max(smallLights, smoothstep(0.0005, 0.002, share65) * 0.8)
      return dimScene * darkBase * anyLights
    }
    let brightLights = smoothstep(80, 92, p99L)
    return 0.7 * darkBase * smallLights * brightLights
  }

  /// Share of the photo's colour (``ColorAnalysis/hueShares``) over which a frame coloured by
  /// blue light begins to count as such, counting fully at the upper end.
  static let blueLightShare = 0.85...0.95
  /// Mean chroma over which that colour is strong enough to be the light's, not a grey frame's
  /// slight tint.
  static let blueLightChroma = 10.0...20.0
  /// How blue the brightest detail (``HighlightColor``, −log2 R/B) reads over which the blue
  /// is the light's, counting fully at the upper end.
  static let blueLightHighlight = 0.2...0.5

  /// How clearly a dark frame is coloured all over by blue light (0...1): its median under
  /// L* 40–55, nearly all of its colour blue or aqua, and strong. Twilight and the blue hour, a
  /// storm, a night sky or an aurora are dark by their light, which they show without the small
  /// bright lights ``darkIntent`` looks for. Not with a fired flash, nor with EXIF of a bright
  /// scene (EV100 8–10 and up), nor where the brightest detail (``HighlightColor``) is not blue
  /// (``blueLightHighlight``): a deep blue sky in daylight is as dark and as blue all over, but
  /// its clouds are white, where the brightest parts of a twilight or a storm are its blue
  /// light (a blue-hour lake −2.0 log2 R/B, a storm −0.74; a kite's clouds −0.06).
  ///
  /// Given to the harness without EXIF, a blue-hour lake in mist had been brightened by 1.1
  /// stops (ΔE2000 13.2 on the untouched photo, and its 24 degraded copies carried the same
  /// lift), a storm warmed by a full Temperature step and a rocket launch at dusk brightened
  /// by half a stop; all three are left alone now. On the 64 photos outside `dev` the summed
  /// ΔE2000 of all 1,536 single degradations fell by 4.5 % (every family the same or better,
  /// untouched photos edited 16 → 13, their mean ΔE2000 1.32 → 0.96); nothing on `dev`
  /// changed. The cost had been underexposed copies of photos mostly blue already, until the
  /// brightest detail's colour told them apart: the kite in its sky 0.7–2 EV under had been
  /// lifted by 0.2–0.3 EV (ΔE2000 6.7–16.2 from the photo; 2.4–2.6 now) and a bridge under a
  /// blue sky 2 EV down a little less than it lost (4.8; 0.67 now). A mildly underexposed
  /// storm or aurora is still lifted less.
  static func blueLight(
    _ stats: PixelStatistics, medianL: Double, sceneEV: Double?, flashFired: Bool?,
    highlightWarmth: Double?
  ) -> Double {
    guard flashFired != true else { return 0 }
    let blueLit =
      highlightWarmth.map {
        smoothstep(blueLightHighlight.lowerBound, blueLightHighlight.upperBound, -$0)
      } ?? 1
    let dark = (1 - smoothstep(40, 55, medianL)) * blueLit
    let blue = ColorAnalysis.blueShare(of: stats.totals.hueShares)
    return dark * smoothstep(blueLightShare.lowerBound, blueLightShare.upperBound, blue)
      * smoothstep(blueLightChroma.lowerBound, blueLightChroma.upperBound, stats.totals.meanChroma)
      * (1 - smoothstep(8, 10, sceneEV ?? 0))
  }

  /// Share of pixels with L* at or above `threshold`.
  static func share(_ hist: [Int], total: Int, atLeastLightness threshold: Float) -> Double {
    let lOfBin = PixelStatistics.lightnessOfBin
    var count = 0
    var i = hist.count - 1
    while i >= 0 && lOfBin[i] >= threshold {
      count += hist[i]
      i -= 1
    }
    return Double(count) / Double(max(1, total))
  }

  /// The first bin at which the cumulative count reaches `q` of `total`.
  static func percentileBin(_ hist: [Int], _ q: Double, total: Int) -> Int {
    let goal = max(1, Int((q * Double(total)).rounded(.up)))
    var cumulative = 0
    for i in 0..<hist.count {
      cumulative += hist[i]
      if cumulative >= goal { return i }
    }
    return hist.count - 1
  }

  static func smoothstep(_ e0: Double, _ e1: Double, _ x: Double) -> Double {
    let t = min(1, max(0, (x - e0) / (e1 - e0)))
    return t * t * (3 - 2 * t)
  }

  /// Mean and log-average linear luminance over `rect` of the analysis copy.
  /// Pixels at or above `below` (linear) are left out; with none left the key is 0.
  static func regionMeans(
    _ stats: PixelStatistics, _ rect: NormalizedRect, below: Float = .infinity
  ) -> (mean: Double, key: Double) {
    let r = pixelRect(rect, width: stats.width, height: stats.height)
    var sum = 0.0, sumLog = 0.0
    var skipped = 0
    let binScale = Float(PixelStatistics.histogramBins - 1)
    let maxBin = PixelStatistics.histogramBins - 1
    stats.luminancePlane.withUnsafeBufferPointer { plane in
      logOfBin.withUnsafeBufferPointer { logTable in
        for y in r.y0..<r.y1 {
          var rowSum: Float = 0, rowLog: Float = 0
          let row = plane.baseAddress.unsafelyUnwrapped + y * stats.width
          // Wrapping index arithmetic (the rectangle is inside the plane).
          var x = r.x0
          while x < r.x1 {
            let v = row[x]
            x &+= 1
            if v >= below {
              skipped &+= 1
              continue
            }
            rowSum += v
            rowLog += logTable[min(maxBin, max(0, Int(v * binScale + 0.5)))]
          }
          sum += Double(rowSum)
          sumLog += Double(rowLog)
        }
      }
    }
    let count = Double(max(1, (r.x1 - r.x0) * (r.y1 - r.y0) - skipped))
    return (sum / count, exp(sumLog / count) - keyEpsilon)
  }

  /// Area-weighted mean luminance over the face boxes, nil without faces.
  static func faceMeans(_ stats: PixelStatistics, _ faces: [FaceObservation]) -> (
    mean: Double, key: Double
  )? {
    guard !faces.isEmpty else { return nil }
    var weighted = 0.0, weightedKey = 0.0, area = 0.0
    for face in faces.prefix(8) {
      let a = max(1e-6, face.bounds.width * face.bounds.height)
      let m = regionMeans(stats, face.bounds)
      weighted += a * m.mean
      weightedKey += a * m.key
      area += a
    }
    return (weighted / area, weightedKey / area)
  }

  /// The pixel box of a normalized rect, clamped to the image and at least one pixel.
  static func pixelRect(_ rect: NormalizedRect, width: Int, height: Int) -> (
    x0: Int, y0: Int, x1: Int, y1: Int
  ) {
    func clampIndex(_ v: Double, _ limit: Int) -> Int {
      guard v.isFinite else { return 0 }
      return min(limit, max(0, Int((v * Double(limit)).rounded())))
    }
    var x0 = clampIndex(rect.x, width), x1 = clampIndex(rect.maxX, width)
    var y0 = clampIndex(rect.y, height), y1 = clampIndex(rect.maxY, height)
    if x1 <= x0 {
      x0 = min(x0, width - 1)
      x1 = x0 + 1
    }
    if y1 <= y0 {
      y0 = min(y0, height - 1)
      y1 = y0 + 1
    }
    return (x0, y0, x1, y1)
  }
}
