// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchRender

/// What Retouch measured about one photo: the facts the recipes size their edits by, the ranking
/// orders them by, and learning matches similar photos on.
///
/// Measured on a small upright copy (about 512 px on the long edge) except grain, which needs
/// full resolution. Every luminance is linear-light Rec. 709 luma in 0...1 unless it says L*.
/// Positions are normalized to the upright photo: (0, 0) is its top-left corner, (1, 1) its
/// bottom-right.
public struct PhotoAnalysis: Sendable, Hashable, Codable {
  /// Pixel size of the photo that was analysed (upright, full resolution).
  public var pixelSize: PixelSize
  public var exposure: ExposureAnalysis
  public var color: ColorAnalysis
  /// Detected faces, largest first.
  public var faces: [FaceObservation]
  public var subject: SubjectAnalysis
  /// Grain; nil when it was not measured (`topSuggestion` skips it).
  public var noise: NoiseAnalysis?
  public var sharpness: SharpnessAnalysis
  /// The scene scores, one per scene, each 0...1.
  public var sceneScores: [Scene: Double]
  /// Exposure facts from the file's EXIF; all nil when the file carried none.
  public var capture: CaptureFacts
  /// How much of the picture is exactly flat colour, which tells a screenshot or illustration
  /// from a photograph (``kind``); nil in analyses made before it was measured.
  public var flatAreas: FlatAreaAnalysis?

  public init(
    pixelSize: PixelSize, exposure: ExposureAnalysis, color: ColorAnalysis,
    faces: [FaceObservation], subject: SubjectAnalysis, noise: NoiseAnalysis?,
    sharpness: SharpnessAnalysis, sceneScores: [Scene: Double], capture: CaptureFacts,
    flatAreas: FlatAreaAnalysis? = nil
  ) {
    self.flatAreas = flatAreas
    self.pixelSize = pixelSize
    self.exposure = exposure
    self.color = color
    self.faces = faces
    self.subject = subject
    self.noise = noise
    self.sharpness = sharpness
    self.sceneScores = sceneScores
    self.capture = capture
  }
}

/// What kind of picture was analysed: corrections are for photographs.
public enum PictureKind: String, Sendable, Hashable, Codable {
  /// A colour photograph.
  case photograph
  /// A photograph without colour (a black-and-white print, a monochrome conversion): it has no
  /// cast to remove and no colour to boost.
  case blackAndWhitePhotograph
  /// A picture drawn by a computer: a screenshot, a page, a chart, a flat illustration
  /// (``FlatAreaAnalysis/isGraphic``). Its brightness and colours are as its maker chose them,
  /// so nothing in it is a defect to correct.
  case graphic
}

extension PhotoAnalysis {
  /// What kind of picture this is: a graphic by its flat areas (``FlatAreaAnalysis/isGraphic``),
  /// a black-and-white photograph by its colour (a mean chroma under 1 C*ab over a frame that
  /// is mostly lit, or not one pixel with colour), else a photograph.
  public var kind: PictureKind {
    if flatAreas?.isGraphic == true { return .graphic }
    return isMonochrome ? .blackAndWhitePhotograph : .photograph
  }
}

/// How much of a picture is exactly flat colour, and what lies between the flat areas: what
/// tells a screenshot, a page, a chart or a flat illustration from a photograph.
///
/// Measured on the analysis copy (inside a frame of flat bars, when the photo has one). Only
/// ``flatShare`` is measured on every picture; the rest only where it reaches
/// ``measuredFlatShare`` (0 otherwise), as no picture less flat is a graphic here.
public struct FlatAreaAnalysis: Sendable, Hashable, Codable {
  /// Share (0...1) of horizontally neighbouring pixel pairs of exactly the same colour. The
  /// shared photographs measure 0–0.62 (the highest an almost all-white minimal scene, 30 MP
  /// compressed to 163 KB) and the moon in its black sky 0.95; pages rendered by a browser
  /// 0.83–0.98 as PNG and 0.74–0.96 as JPEG of quality 60–85, app screens 0.91–0.97.
  public var flatShare: Double
  /// Share (0...1) of pixels with no flat pixel within 3 pixels: texture, as a photograph has
  /// even around its flat clipped areas. Rendered pages and screens 0–0.04; a page that is
  /// half photograph 0.28–0.33.
  public var texturedShare: Double
  /// Clearly different flat colours (more than 8 codes apart) that each cover at least 1 % of
  /// the picture: the panels, bubbles and buttons of an app screen (2–4 on the rendered ones),
  /// the grey steps of a rendered depth map (3–5). A page of text on one ground has one, as
  /// has the black sky around the moon.
  public var flatColors: Int
  /// Lines of text: bands of rows with something drawn in them, between rows with next to
  /// nothing, no taller than 5 % of the picture (4–27 on the rendered pages, 3–12 once saved
  /// as JPEG, whose ringing joins some lines; a subject on a plain ground makes one taller
  /// band, not counted).
  public var textBands: Int
  /// Share (0...1) of the pixels that are not flat lying on a sharp edge (a 3 × 3
  /// neighbourhood spanning 24 codes or more in some channel): anti-aliased text and shapes
  /// (rendered pages 0.77–1, app screens saved as JPEG down to 0.55); 1 where no pixel is
  /// drawn between the flat areas and they meet at a sharp edge (blocks of flat colour two
  /// pixels wide or more, unresized: pixel art, a QR code). Photographs reach as
  /// high where little is left between flat areas (the harness's copies of a casino crushed
  /// into its black 0.72–0.81, of a white scene a stop over 0.93), which is why a graphic also
  /// needs flat colours or lines of text.
  public var edgeShare: Double
  /// ``edgeShare`` of the lines of text alone (the rows of the ``textBands``): what a page
  /// with a photograph in it shows as text around the photograph's texture (0.8–1 on the
  /// rendered articles).
  public var lineEdgeShare: Double
  /// Share (0...1) of the pixels off the ground: more than 8 codes away, in some channel, from
  /// each flat colour (those ``flatColors`` counts; the one of the most flat pairs where none
  /// covers 1 %). What is drawn on a page, ringing aside (pages of dense text and code rendered
  /// by a browser and saved as JPEG 0.07–0.53; diagrams and charts of lines 0.03–0.18).
  public var inkShare: Double
  /// Share (0...1) of the pixels with no pixel of the ground within 3 pixels: the part of the
  /// picture that is more than strokes on flat grounds. Text keeps within reach of its ground
  /// even where JPEG's ringing has left no pixel flat (dense text saved as JPEG 0–0.001). A
  /// photograph's subject has an inside, but a dim one may be thin too (a severely
  /// underexposed room: 0.003 with 5 % off its black ground), which is why text also needs
  /// edges.
  public var inkTexturedShare: Double
  /// Share (0...1) of the pixels off the ground lying on a sharp edge (as ``edgeShare``):
  /// glyphs' strokes (dense text saved as JPEG 0.87–1).
  public var inkEdgeShare: Double

  public init(
    flatShare: Double, texturedShare: Double, flatColors: Int, textBands: Int, edgeShare: Double,
    lineEdgeShare: Double, inkShare: Double = 0, inkTexturedShare: Double = 0,
    inkEdgeShare: Double = 0
  ) {
    self.flatShare = flatShare
    self.texturedShare = texturedShare
    self.flatColors = flatColors
    self.textBands = textBands
    self.edgeShare = edgeShare
    self.lineEdgeShare = lineEdgeShare
    self.inkShare = inkShare
    self.inkTexturedShare = inkTexturedShare
    self.inkEdgeShare = inkEdgeShare
  }

  private enum CodingKeys: String, CodingKey {
    case flatShare, texturedShare, flatColors, textBands, edgeShare, lineEdgeShare, inkShare
    case inkTexturedShare, inkEdgeShare
  }

  /// Decodes a reading; one stored before the ground was measured reads as no ink.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      flatShare: try c.decode(Double.self, forKey: .flatShare),
      texturedShare: try c.decode(Double.self, forKey: .texturedShare),
      flatColors: try c.decode(Int.self, forKey: .flatColors),
      textBands: try c.decode(Int.self, forKey: .textBands),
      edgeShare: try c.decode(Double.self, forKey: .edgeShare),
      lineEdgeShare: try c.decode(Double.self, forKey: .lineEdgeShare),
      inkShare: try c.decodeIfPresent(Double.self, forKey: .inkShare) ?? 0,
      inkTexturedShare: try c.decodeIfPresent(Double.self, forKey: .inkTexturedShare) ?? 0,
      inkEdgeShare: try c.decodeIfPresent(Double.self, forKey: .inkEdgeShare) ?? 0)
  }

  /// Least ``flatShare`` of a graphic of flat colours with soft edges between them; one with
  /// sharp edges (``sharpEdgeShare``) needs ``sharpGraphicFlatShare``.
  public static let graphicFlatShare = 0.7
  /// Least ``flatShare`` of a graphic of flat colours drawn with sharp edges: a spreadsheet's
  /// grid saved as JPEG (0.61–0.63) keeps less flat than a depth map's soft steps.
  public static let sharpGraphicFlatShare = 0.6
  /// Least ``edgeShare`` of a graphic of flat colours flat over less than
  /// ``graphicFlatShare``: spreadsheets saved as JPEG 0.68–0.88; the shared photos' degraded
  /// copies with two flat colours or more and as flat have edges on at most 0.16 of the rest.
  public static let sharpEdgeShare = 0.5
  /// Least ``flatShare`` of a page of text: dense text saved as JPEG keeps less flat than
  /// shapes do (the tests' page of paragraphs, 0.58 at quality 70).
  public static let textFlatShare = 0.45
  /// Least ``flatShare`` of a page with pictures in it (``pageTextBands``).
  public static let pageFlatShare = 0.3
  /// Least ``flatShare`` of a page of dense text (``inkEdgeShare``): small type saved as JPEG
  /// keeps 0.23–0.5 of its pairs flat as a browser renders it, 0.17 as the tests draw it
  /// denser. Nothing but ``flatShare`` is measured on a less flat picture.
  public static let measuredFlatShare = 0.15
  /// Least ``inkShare`` of a page of dense text: something is written on it.
  public static let denseTextInkShare = 0.02
  /// Most ``inkTexturedShare`` of a page of dense text.
  public static let denseTextTexturedShare = 0.01
  /// Least ``inkEdgeShare`` of a page of dense text. Of the shared photographs and the
  /// harness's degraded copies of them with 2 % or more off their ground, those with under
  /// 0.05 of texture off it have edges on at most 0.27 of it, and those with edges on 0.6 or
  /// more have texture on 0.076 or more (a casino hazed or crushed into its black). Nearest
  /// among other photographs: grey bricks, 0.025 texture and edges on 0.78.
  public static let denseTextEdgeShare = 0.8
  /// Lines of text that make a page of a picture whatever else it shows: a photograph in an
  /// article is texture (0.26–0.33 of the rendered ones) and lowers its flat share (0.37–0.51),
  /// but the lines around it still count (4–13).
  public static let pageTextBands = 4
  /// Most ``texturedShare`` of a graphic (but a page with ``pageTextBands`` lines).
  public static let graphicTexturedShare = 0.05
  /// Least ``edgeShare`` of a graphic: what lies between its flat areas is drawn with edges.
  public static let graphicEdgeShare = 0.25
  /// Least ``edgeShare`` of a page of text on one background, and least ``lineEdgeShare`` of
  /// a page with pictures.
  public static let textEdgeShare = 0.7

  /// Whether the picture is a graphic: hardly any texture (``graphicTexturedShare``) and
  /// either two flat colours or more over a mostly flat picture (``graphicFlatShare``) with
  /// edges between them (``graphicEdgeShare``; sharp ones, ``sharpEdgeShare``, from
  /// ``sharpGraphicFlatShare``), or lines of text (three ``textBands`` or
  /// more, drawn almost only in edges: ``textEdgeShare``) on a ground flat over nearly half
  /// the picture or more (``textFlatShare``); or, whatever its texture, a page with
  /// ``pageTextBands`` lines of text drawn in edges (``lineEdgeShare``) and flat over
  /// ``pageFlatShare`` of it or more; or strokes drawn in edges on flat grounds and nothing else
  /// (``inkShare``, ``inkTexturedShare``, ``inkEdgeShare``): dense text whose lines JPEG's
  /// ringing has joined (a code editor, a terminal, a page of small type), a line drawing.
  ///
  /// A photograph with a large flat area has one flat colour where it clipped, and texture or
  /// smooth gradients in the rest; whole rows of it are flat only where the flat area spans
  /// the frame, so it shows few lines of text if any. No photograph of the shared set is a
  /// graphic, nor any of the harness's degraded copies of them; the nearest: the moon in its
  /// black sky (one colour, no line of text), the white minimal scene blurred (two colours,
  /// edges on 0.02–0.04 of the rest), a casino hazed over its black (one colour, two
  /// text-high bands, edges 0.41–0.56) or crushed into it (the same, texture 0.06–0.08), a
  /// dark room hazed flat (no edges at all). Of the two rendered depth maps, one is a
  /// graphic (five flat grey steps; 21 of its 24 degraded copies), the other, blurrier, not
  /// (3 of 24).
  public var isGraphic: Bool {
    let plain = texturedShare <= Self.graphicTexturedShare
    let edgesNeeded =
      flatShare >= Self.graphicFlatShare ? Self.graphicEdgeShare : Self.sharpEdgeShare
    let shapes =
      plain && flatShare >= Self.sharpGraphicFlatShare && flatColors >= 2
      && edgeShare >= edgesNeeded
    let text =
      plain && flatShare >= Self.textFlatShare && textBands >= 3
      && edgeShare >= Self.textEdgeShare
    let page =
      flatShare >= Self.pageFlatShare && textBands >= Self.pageTextBands
      && lineEdgeShare >= Self.textEdgeShare
    let denseText =
      flatShare >= Self.measuredFlatShare && inkShare >= Self.denseTextInkShare
      && inkTexturedShare <= Self.denseTextTexturedShare && inkEdgeShare >= Self.denseTextEdgeShare
    return shapes || text || page || denseText
  }
}

/// Brightness and contrast, in linear light and in L*.
public struct ExposureAnalysis: Sendable, Hashable, Codable {
  /// Mean linear luminance, 0...1.
  public var meanLuminance: Double
  /// Log-average ("key") linear luminance, 0...1: `exp(mean log(Y + 0.001)) − 0.001`. Good
  /// daylight photos are about 0.08–0.18; an underexposed one is below 0.04.
  public var keyLuminance: Double
  /// Percentiles of L* (0...100) at 1, 5, 25, 50, 75, 95 and 99 %.
  public var lightnessPercentiles: [Double]
  /// Standard deviation of L* (0...100): global contrast.
  public var lightnessDeviation: Double
  /// Share of pixels (0...1) with every channel at or below 2/255 — crushed blacks.
  public var shadowClipping: Double
  /// Share of pixels (0...1) with any channel at or above 253/255 — blown highlights.
  public var highlightClipping: Double
  /// Mean linear luminance of the subject region (faces first, then the salient region).
  public var subjectLuminance: Double
  /// Scene brightness from EXIF: EV100 of the exposure that was used, `log2(N²/t) − log2(ISO/100)`
  /// (ISO 100 assumed when only the ISO is missing; else APEX Bv + 5). Low = dark scene
  /// (daylight ≈ 14–15, a lit room ≈ 6–8, a night street ≈ 3–7); nil without EXIF exposure facts.
  public var sceneEV100: Double?
  /// True when the photo is dark because the scene was (night street, lamp-lit room).
  ///
  /// Needs a dark base (median L* below 25–40) and light sources (a few tenths of a percent up
  /// to 15 % of the photo at L* ≥ 80, or with EXIF also dimmer ones at L* ≥ 65). With EXIF the
  /// exposure must say the scene was dim (``sceneEV100`` at or below 7.5 fully, above 10 not at
  /// all) and the flash must not have fired; a dark photo shot at a bright-scene exposure is
  /// false. Without EXIF the same picture counts for less and needs bright lights (99th
  /// percentile L* of 80–92), so a dark photo without metadata is more often brightened.
  /// Faces lit as skin is in daylight (mean linear luminance 0.15–0.3 and up, not under
  /// coloured light) fade it out: the dark base around them is clothes, rock or shade.
  ///
  /// Also true of a dark frame coloured all over by blue light (twilight, a storm, a night sky;
  /// median L* under 40–55, 85–95 % of its colour blue or aqua, mean chroma 10–20 and up),
  /// which shows no light sources, unless EXIF says the scene was bright or the flash fired.
  public var isDarkOnPurpose: Bool
  /// The exposure change, in EV, that brings the subject to a normal brightness (positive =
  /// brighten), −2...4.
  ///
  /// `0.6·log2(0.11 / subject key) + 0.4·log2(0.11 / key)` (the subject's log-average over
  /// ``SubjectAnalysis/region``); with faces `0.6·log2(0.30 / face mean) + 0.4·` that. When the
  /// frame's own `log2(0.11 / key)` asks for more and its white point has room left, that is
  /// taken instead (a bright sky or lamp read as the subject does not hide an underexposure).
  /// Brightening stops where the brightest half-percent reaches 0.92 linear or the brightest
  /// channel reaches white (``missingWhiteEV``), whichever comes first (a night picture
  /// without EXIF: where the brightest 1 % would pass white by more than 0.3 EV; EXIF of a
  /// bright scene does not widen it, the camera exposed for the brightest thing), is scaled by
  /// `1 − 0.8·intent` (at most +0.7) for photos dark on purpose, fades out when 10–30 % of the
  /// photo is pure black (low key: the black is the scene's; with EXIF of a bright scene, when
  /// 60–90 % is and the brightest percent is lit, L* 30–45 and up: a lit subject such as the
  /// moon in a black field), and needs an L* spread of 8–20 between
  /// the 1st and 99th percentile and 0.75–1.25 stops of linear luminance between them unless
  /// EXIF shows a bright scene (a black frame and a veil are left alone; darkening needs both
  /// too).
  /// A frame without a highlight (its brightest percent under L* 60–70) is brightened by 0.6
  /// of the half-percent's headroom, no further than the brightest channel's room, under the
  /// same fades, and not in night's light (EXIF EV100 of 4 and up fully, 2.5 and under not at
  /// all; a dim room is metered to grey like snow).
  /// Whites held below white (``missingWhiteEV`` of 0.4–0.6 EV and up) brighten by as much,
  /// under the same fades, when clipped whites pile up at the lowered top or the key does not
  /// read bright (0.11–0.15), bounded by the face-led reading when there are faces.
  /// Darkening needs blown highlights (``blownShare`` of 1–8 % ramps it in), is judged on the
  /// pixels that still have detail, ignores the first 0.5 EV above the target, and goes no
  /// further than the clipping shows (the blown share beyond a normal 2 %, read against the
  /// density of the half stop below white), so snow, high-key photos and a blown sky or
  /// background behind a normal subject stay. Bright colours clipped in two channels
  /// (``clippedColourShare`` of 0.2–0.6 % and up) read as overexposure whatever the key says:
  /// the exposure comes down by at least 0.6 EV, unless the photo is dark on purpose. Neither
  /// the clipped colours nor the blown share darken where the warm glow of a light in the
  /// picture (the sun, a lamp) explains them, with little of the frame blown or clipped.
  /// Good photos come out within about ±0.3.
  public var suggestedEV: Double
  /// Mean Rec. 601 luma of the encoded (display) values, 0...1: the brightness grain is judged
  /// against (``NoiseAnalysis/relativeSigma``), as the evaluation harness does.
  public var meanLuma: Double
  /// Share of pixels (0...1) whose linear luminance is at or above 0.9 (L* ≈ 96): white without
  /// detail. Unlike ``highlightClipping`` a single channel clipped by a colour cast or a
  /// saturated colour does not count. Nil in analyses made before it was measured.
  public var blownShare: Double?
  /// L* of the black level in every channel: a grey whose encoded value is the darkest
  /// channel (`min(r, g, b)`) of the pixel at the 0.5th percentile of that minimum, i.e. 99.5 %
  /// of the pixels have all three channels at least this bright. A black level lifted in the
  /// display values (a matte export, a faded print) or a veil of scattered light raises every
  /// channel, so this rises with the darkest percent's L*; a scene whose darkest parts are
  /// deep colours (a blue sky, red fruit, green leaves) or have true black in them keeps it
  /// near 0 however light its darkest percent reads. Nil in analyses made before it was
  /// measured.
  public var channelFloor: Double?
  /// How far the display black point reads as moved up (0...0.10 of the encoded range; at
  /// most 0.06 from an analysis copy alone), with everything under it clipped to black: a
  /// crushed export (`(v − b)/(1 − b)`). 0 when the darkest channel shows no such clip. Read
  /// from the spike a crush leaves at code 0 of the darkest channel (the pixels it clipped)
  /// against the density just above it, on the photo at its own size where the analysis had
  /// it; nil in analyses made before it was measured.
  public var crushedBlack: Double?
  /// How far below white the photo's whites sit, EV in linear light: the brightest encoded
  /// channel of the pixel at the 99.98th percentile of `max(r, g, b)` (or, when a pile of
  /// whites sits a few codes under that top, as a sharpening resize's overshoot leaves it, the
  /// pile's code), read as the exposure that would bring it to 255. 0 when some channel of
  /// more than 0.02 % of the photo is at white, as in nearly every photo with a light, a sky
  /// or a white shirt in it. An exposure cut lowers every white by the same gain, so it reads
  /// the cut exactly wherever the photo had a clipped channel. Nil in analyses made before it
  /// was measured.
  public var missingWhiteEV: Double?
  /// The encoded level (0...1) the display black reads as raised to: the code at the bottom
  /// of the darkest channel (within ten codes of its 0.02nd percentile, past a resize's
  /// undershoot) where the photo's blacks pile up (a lifted export moves every black to one
  /// code and leaves nothing under it). 0 when the floor shows no such pile, or nothing of the
  /// picture lies above it (a frame of one flat colour); nil in analyses made before it was
  /// measured.
  public var liftedBlack: Double?
  /// The encoded level (0...1) under which only 0.02 % of the photo has its darkest channel:
  /// where a lift has put the photo's black. Nil in analyses made before it was measured.
  public var blackBottom: Double?
  /// How surely (0...1) the darkest channel's floor is a raised black level that left no pile:
  /// the bottom (``blackBottom``) at code 14–20 and up with 2–3.5 % of the frame and more
  /// within five codes of it, where a lift puts shadows that only approached black. Says
  /// that there is a lift, not how much (the bottom also holds the photo's own darkest level).
  /// Nil in analyses made before it was measured.
  public var raisedFloor: Double?
  /// Share of pixels (0...1) with exactly two channels at or above 253/255 and the third
  /// under 200/255: a bright colour (skin, sand, foliage, sky) pushed through white. Nil in
  /// analyses made before it was measured.
  public var clippedColourShare: Double?

  public init(
    meanLuminance: Double, keyLuminance: Double, lightnessPercentiles: [Double],
    lightnessDeviation: Double, shadowClipping: Double, highlightClipping: Double,
    subjectLuminance: Double, sceneEV100: Double?, isDarkOnPurpose: Bool, suggestedEV: Double,
    meanLuma: Double = 0, blownShare: Double? = nil, channelFloor: Double? = nil,
    crushedBlack: Double? = nil, missingWhiteEV: Double? = nil, liftedBlack: Double? = nil,
    blackBottom: Double? = nil, clippedColourShare: Double? = nil, raisedFloor: Double? = nil
  ) {
    self.blackBottom = blackBottom
    self.raisedFloor = raisedFloor
    self.clippedColourShare = clippedColourShare
    self.liftedBlack = liftedBlack
    self.missingWhiteEV = missingWhiteEV
    self.blownShare = blownShare
    self.channelFloor = channelFloor
    self.crushedBlack = crushedBlack
    self.meanLuminance = meanLuminance
    self.keyLuminance = keyLuminance
    self.lightnessPercentiles = lightnessPercentiles
    self.lightnessDeviation = lightnessDeviation
    self.shadowClipping = shadowClipping
    self.highlightClipping = highlightClipping
    self.subjectLuminance = subjectLuminance
    self.sceneEV100 = sceneEV100
    self.isDarkOnPurpose = isDarkOnPurpose
    self.suggestedEV = suggestedEV
    self.meanLuma = meanLuma
  }
}

/// Colour: the estimated illuminant (the cast) and how colourful the photo is.
public struct ColorAnalysis: Sendable, Hashable, Codable {
  /// Estimated illuminant as linear RGB (the photo's own primaries) normalised to green = 1.
  public var illuminant: [Double]
  /// The cast along blue–amber, log2(R/B) of the illuminant: positive = warm cast. A channel gain
  /// pair (1 + s, 1/(1 + s)) moves it by 2·log2(1 + s); below ±0.15 is neutral.
  public var warmth: Double
  /// The cast along green–magenta, log2(G / sqrt(R·B)): positive = green cast.
  public var greenTint: Double
  /// How much to trust the estimate, 0...1: lowered by few trusted pixels (clipped, very dark
  /// or very saturated ones are left out), by disagreement between the two estimators
  /// (shades-of-gray and gray-edge), by one dominant colour, when the light is the scene
  /// (a photo dark on purpose, or a warm estimate in a backlit photo with the light in frame),
  /// and in fog or mist (a raised black level, unless the frame is mostly its own brightest
  /// material, such as snow).
  /// About 0.6 and above for ordinary daylight photos; below 0.25 means "don't correct".
  public var confidence: Double
  /// Mean chroma (CIE C*ab, D65) over the photo (every fourth pixel of every fourth row of the
  /// analysis copy): about 5 for muted photos, 30+ for vivid ones.
  public var meanChroma: Double
  /// Shares (summing to 1; all 0 for a grey photo) of the eight colour-mixer hue bands (red,
  /// orange, yellow, green, aqua, blue, purple, magenta, centred as RetouchRender's `ColorBand`).
  /// Each pixel (of the same sample as ``meanChroma``) counts with the mixer's own colourfulness
  /// weight, `smoothstep(0, 0.15, max − min)` of its encoded RGB, split between the two bands
  /// whose centres bracket its HSV hue with the mixer's raised-cosine weights — so a share says
  /// how much of the photo a band's slider moves.
  public var hueShares: [Double]
  /// The green–magenta axis as the photo's grey pixels read it (``greenTint``'s units), a
  /// second opinion from another method; nil when too few pixels qualify (or in analyses
  /// written before it existed). When both agree, a small tint is more likely a cast.
  public var greyPixelTint: Double?
  /// The blue–amber axis as the photo's grey pixels read it (``warmth``'s units, clamped to
  /// ±3); nil as ``greyPixelTint`` is. When both agree, a warm or cool reading is more likely a
  /// cast.
  public var greyPixelWarmth: Double?
  /// The blue–amber colour of the brightest unclipped detail (``warmth``'s units, clamped to
  /// ±3): about the cast in a daylight frame whose brightest part is cloud, sky or a white
  /// wall, 0.5 and up where the light itself is in the picture (the glow of a sunset or a
  /// lamp). Nil when too few pixels qualify (or in analyses written before it existed), which
  /// the cast rules read as "may be the light".
  public var highlightWarmth: Double?
  /// The blue–amber colour (``warmth``'s units) a patch of clipped white was given after it
  /// clipped: 0 for a white patch, and the cast itself when the photo's colour balance was
  /// changed after capture (a camera renders what clips white). Nil without such a patch (or in
  /// analyses written before it existed). See `ClippedWhite` in the analysis sources.
  public var clippedWhiteWarmth: Double?
  /// The green–magenta colour (``greenTint``'s units) of the same patch, read only where it
  /// clipped in green alone (at least this green) or in red and blue alone (at most this
  /// magenta); 0 otherwise. Nil as ``clippedWhiteWarmth`` is.
  public var clippedWhiteTint: Double?
  /// How much of the estimate (0...1) is the colour of a veil over the frame (haze, fog): the
  /// darkest pixels of a frame without blacks, when they are one colour, show the light's
  /// colour through the veil. Nil when no veil was read (or in analyses written before it
  /// existed). See `VeilColour` in the analysis sources.
  public var veilShare: Double?
  /// L* of the veil over a frame whose darkest pixels lie well above black, as it will be once
  /// its colour is balanced: the channels' own floors (the mean of each one's lowest 0.1 %)
  /// read against the veil's colour. Unlike ``ExposureAnalysis/channelFloor`` (the darkest
  /// channel) it is not lowered by a cast. Nil when no veil was read. See
  /// `ColorMeasurement.veilLevel` in the analysis sources.
  public var veilFloor: Double?

  public init(
    illuminant: [Double], warmth: Double, greenTint: Double, confidence: Double,
    meanChroma: Double, hueShares: [Double], greyPixelTint: Double? = nil,
    greyPixelWarmth: Double? = nil, highlightWarmth: Double? = nil,
    clippedWhiteWarmth: Double? = nil, clippedWhiteTint: Double? = nil, veilShare: Double? = nil,
    veilFloor: Double? = nil
  ) {
    self.veilShare = veilShare
    self.veilFloor = veilFloor
    self.clippedWhiteWarmth = clippedWhiteWarmth
    self.clippedWhiteTint = clippedWhiteTint
    self.greyPixelTint = greyPixelTint
    self.greyPixelWarmth = greyPixelWarmth
    self.highlightWarmth = highlightWarmth
    self.illuminant = illuminant
    self.warmth = warmth
    self.greenTint = greenTint
    self.confidence = confidence
    self.meanChroma = meanChroma
    self.hueShares = hueShares
  }
}

/// One detected face.
public struct FaceObservation: Sendable, Hashable, Codable {
  /// The face box in the upright photo.
  public var bounds: NormalizedRect
  /// Detector confidence (dlib HOG score; above 0 = a face).
  public var score: Double
  /// Mean skin colour under the face as CIELAB (D65): L*, a*, b*.
  public var skinLab: [Double]
  /// True when the face is lit by mixed or strongly coloured light (stage light): its colour is
  /// left as lit.
  public var hasColoredLighting: Bool
  /// True when the face measures blurred compared with the rest of the photo's detail.
  public var isBlurred: Bool
  /// Mean linear luminance of the face, 0...1.
  public var luminance: Double

  public init(
    bounds: NormalizedRect, score: Double, skinLab: [Double], hasColoredLighting: Bool,
    isBlurred: Bool, luminance: Double
  ) {
    self.bounds = bounds
    self.score = score
    self.skinLab = skinLab
    self.hasColoredLighting = hasColoredLighting
    self.isBlurred = isBlurred
    self.luminance = luminance
  }

  /// Hue angle of the skin colour in degrees (CIELAB h°, 0..<360).
  public var skinHue: Double {
    let h = atan2(skinLab[2], skinLab[1]) * 180 / .pi
    return h < 0 ? h + 360 : h
  }
}

/// Where the eye is drawn and what is sharp.
public struct SubjectAnalysis: Sendable, Hashable, Codable {
  public enum Source: String, Sendable, Hashable, Codable {
    case faces, saliency, center
  }
  /// The subject region.
  public var region: NormalizedRect
  public var source: Source
  /// The region that is in focus (bounding box of the sharpest tiles).
  public var focusRegion: NormalizedRect
  /// True when a sharp part stands against a clearly blurred rest (shallow depth of field).
  public var isShallowDepthOfField: Bool

  public init(
    region: NormalizedRect, source: Source, focusRegion: NormalizedRect,
    isShallowDepthOfField: Bool
  ) {
    self.region = region
    self.source = source
    self.focusRegion = focusRegion
    self.isShallowDepthOfField = isShallowDepthOfField
  }
}

/// Grain, measured at full resolution.
public struct NoiseAnalysis: Sendable, Hashable, Codable {
  /// Noise standard deviation in 8-bit code values (Immerkær's estimator on flat regions).
  public var sigma: Double
  /// The same relative to the mean luma (0...1 scale), as the evaluation harness reports it.
  public var relativeSigma: Double

  public init(sigma: Double, relativeSigma: Double) {
    self.sigma = sigma
    self.relativeSigma = relativeSigma
  }
}

/// Softness.
public struct SharpnessAnalysis: Sendable, Hashable, Codable {
  /// log(var(Laplacian) / var(luma)) of the 8-bit luma over the subject at analysis size
  /// (higher = sharper; depends on content, about −3…+1 for sharp photos).
  public var subjectSharpness: Double
  /// The same over the whole photo.
  public var globalSharpness: Double
  /// True when the photo (its subject) measures soft enough for Crisp to help.
  public var isSoft: Bool
  /// ``subjectSharpness`` at the analysis size minus the same at half that size: how fast
  /// detail falls off towards the finest scale. Hardly depends on content: about −1.4…−0.5 for
  /// sharp photos, below −1.6 for soft ones (near 0 when grain dominates).
  public var subjectFalloff: Double

  public init(
    subjectSharpness: Double, globalSharpness: Double, isSoft: Bool, subjectFalloff: Double = 0
  ) {
    self.subjectSharpness = subjectSharpness
    self.globalSharpness = globalSharpness
    self.isSoft = isSoft
    self.subjectFalloff = subjectFalloff
  }
}

/// Exposure facts from EXIF.
public struct CaptureFacts: Sendable, Hashable, Codable {
  public var exposureTime: Double?
  public var fNumber: Double?
  public var iso: Int?
  /// EXIF BrightnessValue (APEX Bv).
  public var brightnessValue: Double?
  public var flashFired: Bool?
  /// EV100 = log2(N²/t) − log2(ISO/100), when all three are known.
  public var ev100: Double? {
    guard let t = exposureTime, let n = fNumber, let iso, t > 0, n > 0, iso > 0 else { return nil }
    return log2(n * n / t) - log2(Double(iso) / 100)
  }

  public init(
    exposureTime: Double? = nil, fNumber: Double? = nil, iso: Int? = nil,
    brightnessValue: Double? = nil, flashFired: Bool? = nil
  ) {
    self.exposureTime = exposureTime
    self.fNumber = fNumber
    self.iso = iso
    self.brightnessValue = brightnessValue
    self.flashFired = flashFired
  }
}

/// What a photo shows, as far as Retouch can tell.
public enum Scene: String, Sendable, Hashable, Codable, CaseIterable, CodingKeyRepresentable {
  case people, animals, food, object, indoor, city, sky, nature, light

  public var title: LocalizedText {
    switch self {
    case .people: LocalizedText("People", zh: "人物")
    case .animals: LocalizedText("Animals", zh: "动物")
    case .food: LocalizedText("Food", zh: "美食")
    case .object: LocalizedText("Object", zh: "物品")
    case .indoor: LocalizedText("Indoor", zh: "室内")
    case .city: LocalizedText("City", zh: "城市")
    case .sky: LocalizedText("Sky", zh: "天空")
    case .nature: LocalizedText("Nature", zh: "自然")
    case .light: LocalizedText("Light", zh: "光影")
    }
  }

  /// SF Symbols name for the scene.
  public var symbolName: String {
    switch self {
    case .people: "person.2"
    case .animals: "pawprint"
    case .food: "fork.knife"
    case .object: "cube"
    case .indoor: "sofa"
    case .city: "building.2"
    case .sky: "cloud.sun"
    case .nature: "leaf"
    case .light: "sparkles"
    }
  }
}
