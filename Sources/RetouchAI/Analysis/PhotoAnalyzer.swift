// SPDX-License-Identifier: Apache-2.0

import Dispatch
import RetouchCore
import RetouchIO
import RetouchRender

/// Measures a photo: exposure, colour cast, faces, subject, grain, softness and scene.
///
/// Everything except grain and the search for faces is measured on a small upright copy (long
/// edge 512...640 px, see ``analysisCopy(of:)``); grain needs the full-resolution pixels, and
/// faces are searched for in a 768-px grey copy of the photo (when it is larger than the copy),
/// so that faces of a tenth of the frame are found (``FaceDetector``). A value type without state:
/// safe to use from any task. Same input, same result, bit for bit (sums run over fixed bands and
/// are added in order, whatever the thread count).
///
/// Cost (release build, 2-core build machine shared with other builds, best of 15–30 runs, on
/// g25, 3024×4032): the copy ≈ 6–7 ms, the measurements on a 384×512 copy ≈ 5 ms (432×576:
/// 6.3 ms) plus face detection, grain ≈ 4 ms, the whole 12 MP `analyze` with grain ≈ 19 ms.
/// `analyzeSmall` makes the grey plane and focus tiles once for faces, subject and scene, and
/// detects faces beside the pixel statistics on a second thread. `retouch-bench ai` on the 12 MP
/// photo's 384×512 copy, six alternating runs of 15 rounds each against the previous build, on
/// the 2-vCPU Xeon while another agent's builds kept the load average at ~3.4 (so both sides
/// slower than idle; medians of the runs' medians): analysis 21.0 → 16.7 ms of CPU (wall
/// 21.1 → 16.2); `topSuggestion` 22.5 → 17.5 ms of CPU (wall 20.7 → 18.8); the faces stage on
/// its own 11.7 → 8.0 ms of CPU. Three alternations at an earlier, quieter moment:
/// topSuggestion 18.5 → 16.9 ms of CPU, wall 17.8 → 14.8. Where the CPU goes now, in perf
/// samples relative to the face detector's C++ scan: pixel statistics 1.7, scene features
/// 0.45, focus tiles 0.27, saliency 0.26, the detector's grey copy 0.24, grey plane 0.13.
/// Later, the statistics pass's sampled pixels in a loop of their own (the pass in 0.88–0.92
/// of its CPU time) and the suggestion engine's measuring copy made beside the last stage:
/// `topSuggestion` 14.3 → 13.4 ms median over 12 alternating runs of 30 (faster in 9).
public struct PhotoAnalyzer: Sendable {
  public init() {}

  /// Builds the lookup tables the first analysis would otherwise build. Cheap; calling it again
  /// does nothing.
  public static func prewarm() {
    PixelStatistics.prewarm()
    _ = SceneFeatures.unitOfCode.count
  }

  /// The 8-bit RGB copy, long edge about 512 px, that ``analyzeSmall(_:fullSize:metadata:)``
  /// expects. Box (area) reduction by an integer factor, then bilinear for the rest when needed;
  /// photos up to 640 px are only converted to 8-bit RGB. Alpha is dropped, transparent pixels
  /// first filled from the opaque ones (``TransparentFill``).
  public static func analysisCopy(of image: Image) -> Image {
    AnalysisCopy.make(from: image)
  }

  /// `image` as the analysis reads it at its own size: without alpha, its transparent pixels
  /// filled from the opaque ones (``TransparentFill``); `image` itself when nothing in it is
  /// transparent. Made once per photo, before its analysis copy.
  static func measurable(_ image: Image) -> Image {
    TransparentFill.filled(image) ?? image
  }

  /// Measures `image`, the upright photo at any size (8- or 16-bit RGB or RGBA).
  ///
  /// A picture framed in flat bars (letterbox or pillarbox bars, a plain mount; see
  /// ``PictureBorder``) is measured without them, and its faces and subject are placed in the
  /// whole frame. The picture is read where it lies in the photo, not copied out of its frame.
  ///
  /// - Parameters:
  ///   - metadata: the file's metadata; its EXIF exposure facts tell a photo that is dark on
  ///     purpose from an underexposed one. Without it that call is more conservative (see
  ///     ``ExposureAnalysis/isDarkOnPurpose``).
  ///   - measureNoise: measure grain at full resolution (≈ 5 ms on 12 MP); nil when false.
  public func analyze(_ image: Image, metadata: PhotoMetadata?, measureNoise: Bool) -> PhotoAnalysis
  {
    let photo = Self.measurable(image)
    return analyze(
      photo, copy: Self.analysisCopy(of: photo), metadata: metadata, measureNoise: measureNoise)
  }

  /// ``analyze(_:metadata:measureNoise:)`` of a photo already made ``measurable(_:)``, with
  /// the analysis copy the caller already made of it (``analysisCopy(of:)``): the copy's
  /// measurements, then what the photo at its own size reads better (grain when
  /// `measureNoise`, the crushed black point).
  func analyze(
    _ image: Image, copy small: Image, metadata: PhotoMetadata?, measureNoise: Bool
  ) -> PhotoAnalysis {
    analyze(
      image, copy: small, metadata: metadata, measureNoise: measureNoise, alongside: {}
    ).analysis
  }

  /// ``analyze(_:copy:metadata:measureNoise:)`` that also runs `alongside`, work of the
  /// caller's that needs none of the analysis, on the core the analysis's last stage leaves
  /// free (see ``analyzeSmall(_:fullSize:metadata:alongside:)``), and returns its result.
  ///
  /// A picture framed in flat bars (``PictureBorder``) is measured without them; the faces and
  /// the subject are placed in the whole frame. `image` is the photo made ``measurable(_:)``.
  func analyze<Extra: Sendable>(
    _ image: Image, copy small: Image, metadata: PhotoMetadata?, measureNoise: Bool,
    alongside: @Sendable () -> Extra
  ) -> (analysis: PhotoAnalysis, extra: Extra) {
    let copy = small.format == .rgb8 ? small : AnalysisCopy.make(from: small)
    guard let frame = PictureBorder.framing(of: copy, photoSize: image.size) else {
      return analyzePicture(
        PhotoRegion(image), copy: copy, metadata: metadata, measureNoise: measureNoise,
        alongside: alongside)
    }
    var (analysis, extra) = analyzePicture(
      PhotoRegion(image, rect: frame.inPhoto), copy: PictureBorder.crop(copy, to: frame.inCopy),
      metadata: metadata, measureNoise: measureNoise, alongside: alongside)
    analysis.placeInFrame(frame.picture, size: image.size)
    return (analysis, extra)
  }

  /// ``analyze(_:copy:metadata:measureNoise:alongside:)`` of a picture without a frame: the
  /// whole photo, or the region inside its frame.
  private func analyzePicture<Extra: Sendable>(
    _ picture: PhotoRegion, copy small: Image, metadata: PhotoMetadata?, measureNoise: Bool,
    alongside: @Sendable () -> Extra
  ) -> (analysis: PhotoAnalysis, extra: Extra) {
    // Grain first: the crush read at the photo's own size (as the exposure is judged) needs it.
    let sigma = measureNoise ? NoiseMeasurement.sigma(of: picture) : nil
    var (analysis, extra) = analyzeSmall(
      small, fullSize: picture.size, metadata: metadata,
      photo: picture.size.longEdge > small.size.longEdge ? picture : nil,
      fullResolution: ExposureMeasurement.FullResolution(
        picture: picture, noiseSigma: sigma,
        copyIsPhoto: picture.pixelCount <= small.pixelCount),
      alongside: alongside)
    analysis.noise = sigma.map {
      Self.noiseAnalysis(sigma: $0, meanLuma: analysis.exposure.meanLuma)
    }
    return (analysis, extra)
  }

  /// Measures an analysis copy the caller already made with ``analysisCopy(of:)`` (or any 8-bit
  /// RGB(A) image of about 512 px), without grain (``PhotoAnalysis/noise`` is nil). Faces are
  /// searched for in the copy, so only those of about a sixth of its long edge and larger are
  /// found; ``analyze(_:metadata:measureNoise:)`` searches the photo itself. A picture framed in
  /// flat bars is measured without them, as there (``PictureBorder``).
  ///
  /// - Parameter fullSize: the size of the full photo the copy stands for
  ///   (``PhotoAnalysis/pixelSize``).
  public func analyzeSmall(_ small: Image, fullSize: PixelSize, metadata: PhotoMetadata?)
    -> PhotoAnalysis
  {
    let copy = small.format == .rgb8 ? small : AnalysisCopy.make(from: small)
    guard let frame = PictureBorder.framing(of: copy, photoSize: fullSize) else {
      return analyzeSmall(copy, fullSize: fullSize, metadata: metadata, alongside: {}).analysis
    }
    var analysis = analyzeSmall(
      PictureBorder.crop(copy, to: frame.inCopy),
      fullSize: PixelSize(width: frame.inPhoto.width, height: frame.inPhoto.height),
      metadata: metadata, alongside: {}
    ).analysis
    analysis.placeInFrame(frame.picture, size: fullSize)
    return analysis
  }

  /// ``analyzeSmall(_:fullSize:metadata:)`` that also runs `alongside` beside the softness
  /// measurement, the shorter side of the last stage (the suggestion engine makes its measuring
  /// copy and that copy's Lab pixels there, ~0.7 ms that used to follow the analysis: ~2–3 %
  /// off `topSuggestion`, 4 × 40 interleaved `retouch-bench ai` runs).
  func analyzeSmall<Extra: Sendable>(
    _ small: Image, fullSize: PixelSize, metadata: PhotoMetadata?, photo: PhotoRegion? = nil,
    fullResolution: ExposureMeasurement.FullResolution? = nil,
    alongside: @Sendable () -> Extra
  ) -> (analysis: PhotoAnalysis, extra: Extra) {
    let copy = small.format == .rgb8 ? small : AnalysisCopy.make(from: small)
    // The grey plane and focus tiles are shared by faces, subject and scene (made once).
    let plane = GreyPlane(image: copy)
    let focus = FocusMap(plane: plane)
    // Two sides run at once: face detection and then the subject it decides, beside the pixel
    // statistics, the brightest detail's colour (which reads the statistics' luminance plane),
    // the scene features and the grey pixels. Each side writes only its own slot and the slots
    // are read after both have finished, so the result does not depend on thread timing. Once
    // its own work is done, the statistics side helps scan the detector's pyramid levels
    // (``FaceDetector/Search``; the same detections whoever scans a level), so that the two
    // cores finish together whichever side is longer: the search of a 512-px copy costs about
    // as much as the statistics, that of the photo's own 768-px copy about three times as much.
    // Before, the detector kept to one thread on a copy (its own worker as well made three
    // threads on two cores) and split its pyramid with a worker of its own on a photo; the
    // subject's saliency map followed the search on its side. With the shared search and the
    // map measured first, `retouch-bench ai` on the 2-core AMD EPYC (no AVX-512), alternating
    // rounds of 30: `topSuggestion` on the 512-px copy faster in 10 of 10 rounds (medians
    // 16.1 → 15.0 and 17.4 → 16.2 ms); the portrait, where the map is not needed, 16.4 → 17.2
    // and 18.4 → 18.4 ms (the map's CPU is shared there, not hidden).
    let faceDetector = FaceDetector(
      detectionLongEdge: FaceDetector.defaultDetectionLongEdge, threads: 1)
    let faceSlot = Slot<([FaceObservation], SubjectAnalysis)?>(nil)
    let statsSlot = Slot<StatisticsSide?>(nil)
    let shared = SharedInputs(copy: copy, plane: plane, focus: focus, photo: photo)
    let search = FaceDetector.Search()
    DispatchQueue.concurrentPerform(iterations: 2) { side in
      if side == 0 {
        faceSlot.value = Self.facesSide(shared, detector: faceDetector, sharing: search)
      } else {
        statsSlot.value = Self.statisticsSide(shared)
        search.help()
      }
    }
    let (faces, subject) =
      faceSlot.value ?? Self.facesSide(shared, detector: faceDetector, sharing: nil)
    let measured = statsSlot.value ?? Self.statisticsSide(shared)
    let stats = measured.stats
    let capture = Self.captureFacts(metadata)
    // Softness (about 1 ms), exposure (which reads it) and colour beside the caller's work,
    // then the colour-balanced scene features (which need the illuminant) on both cores.
    let extraSlot = Slot<Extra?>(nil)
    let colourSlot = Slot<(SharpnessAnalysis, ExposureAnalysis, ColorAnalysis)?>(nil)
    let inputs = MeasuredInputs(
      measured: measured, subject: subject, faces: faces, capture: capture, copy: copy,
      fullResolution: fullResolution)
    DispatchQueue.concurrentPerform(iterations: 2) { side in
      if side == 0 {
        extraSlot.value = alongside()
      } else {
        colourSlot.value = Self.exposureAndColour(inputs)
      }
    }
    let (sharpness, exposure, color) = colourSlot.value ?? Self.exposureAndColour(inputs)
    var sceneFeatures = measured.features
    // After the pair of sides, not at the end of the colour's: there its two halves ran one
    // after the other (a parallel loop inside one runs on that side's thread alone) while the
    // other core, done with the caller's work, waited.
    sceneFeatures.measureOnceBalanced(copy, illuminant: color.illuminant)
    var analysis = PhotoAnalysis(
      pixelSize: fullSize, exposure: exposure, color: color, faces: faces, subject: subject,
      noise: nil, sharpness: sharpness, sceneScores: [:], capture: capture,
      flatAreas: measured.flatAreas)
    analysis.exposure.meanLuma = stats.totals.lumaSum / Double(max(1, stats.pixelCount)) / 255
    analysis.sceneScores = SceneClassifier.scores(features: sceneFeatures, analysis: analysis)
    return (analysis, extraSlot.value ?? alongside())
  }

  /// What the statistics side of ``analyzeSmall(_:fullSize:metadata:)`` measures.
  private struct StatisticsSide: Sendable {
    let stats: PixelStatistics
    let highlightWarmth: Double?
    let clippedWhite: ClippedWhite.Reading?
    let veil: VeilColour.Reading?
    let features: SceneFeatures
    let greyPixels: GreyPixels.Estimate?
    let flatAreas: FlatAreaAnalysis
  }

  /// What the second pair of sides of ``analyzeSmall(_:fullSize:metadata:)`` reads.
  private struct MeasuredInputs: Sendable {
    let measured: StatisticsSide
    let subject: SubjectAnalysis
    let faces: [FaceObservation]
    let capture: CaptureFacts
    let copy: Image
    let fullResolution: ExposureMeasurement.FullResolution?
  }

  /// Softness, exposure, then colour.
  private static func exposureAndColour(
    _ inputs: MeasuredInputs
  ) -> (SharpnessAnalysis, ExposureAnalysis, ColorAnalysis) {
    let measured = inputs.measured
    let sharpness = SharpnessMeasurement.measure(measured.stats, subject: inputs.subject)
    let (exposure, lights, blueLight) = ExposureMeasurement.measure(
      .init(
        stats: measured.stats, subject: inputs.subject, faces: inputs.faces,
        capture: inputs.capture, softness: SharpnessMeasurement.softness(sharpness),
        highlightWarmth: measured.highlightWarmth, fullResolution: inputs.fullResolution))
    let color = ColorMeasurement.measure(
      measured.stats, exposure: exposure, lights: lights, blueLight: blueLight,
      greyPixels: measured.greyPixels, highlightWarmth: measured.highlightWarmth,
      clippedWhite: measured.clippedWhite, veil: measured.veil)
    return (sharpness, exposure, color)
  }

  private static func facesSide(
    _ shared: SharedInputs, detector: FaceDetector, sharing search: FaceDetector.Search?
  ) -> ([FaceObservation], SubjectAnalysis) {
    // Promised before the search copy is made, so that a statistics side done sooner waits
    // for the pyramid instead of leaving the whole search to this side.
    search?.expect()
    // The saliency map is needed only when there is no face, but measured first it is part of
    // the work the two cores share (through the detector's levels), not a tail after the search.
    let saliency = SubjectFinder.Saliency(plane: shared.plane)
    let searchPlane = shared.photo.map {
      FaceDetector.searchPlane(of: $0, longEdge: detector.detectionLongEdge)
    }
    let faces = detector.detect(
      in: shared.copy, plane: shared.plane, focus: shared.focus, searchPlane: searchPlane,
      sharing: search)
    let subject = SubjectFinder.findSubject(
      plane: shared.plane, focus: shared.focus, faces: faces, saliency: saliency)
    return (faces, subject)
  }

  private static func statisticsSide(_ shared: SharedInputs) -> StatisticsSide {
    let stats = PixelStatistics(shared.copy)
    return StatisticsSide(
      stats: stats,
      highlightWarmth: HighlightColor.warmth(
        shared.copy, luminance: stats.luminancePlane, counts: stats.highlightCounts),
      clippedWhite: ClippedWhite.reading(shared.copy),
      veil: VeilColour.reading(
        shared.copy, luminance: stats.luminancePlane, histogram: stats.histogram),
      features: SceneFeatures(image: shared.copy, plane: shared.plane, focus: shared.focus),
      greyPixels: GreyPixels.estimate(shared.copy), flatAreas: FlatAreas.measure(shared.copy))
  }

  /// The read-only inputs both sides of ``analyzeSmall(_:fullSize:metadata:)`` share.
  private struct SharedInputs: Sendable {
    let copy: Image
    let plane: GreyPlane
    let focus: FocusMap
    /// The picture at its own size when it is larger than the copy: faces are searched for in
    /// a grey copy of it (``FaceDetector/searchPlane(of:longEdge:)``).
    let photo: PhotoRegion?
  }

  /// A result written by exactly one side of a `concurrentPerform` and read only after it
  /// returned (which orders the write before the read); hence `@unchecked Sendable`.
  private final class Slot<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
  }

  /// Grain of the full-resolution photo, to add to an analysis made with
  /// ``analyzeSmall(_:fullSize:metadata:)``.
  public func measureNoise(of image: Image, analysis: PhotoAnalysis) -> NoiseAnalysis? {
    Self.noise(of: PhotoRegion(image), analysis: analysis)
  }

  /// ``measureNoise(of:analysis:)`` of a picture read in place.
  private static func noise(of picture: PhotoRegion, analysis: PhotoAnalysis) -> NoiseAnalysis? {
    NoiseMeasurement.sigma(of: picture).map {
      noiseAnalysis(sigma: $0, meanLuma: analysis.exposure.meanLuma)
    }
  }

  static func noiseAnalysis(sigma: Double, meanLuma: Double) -> NoiseAnalysis {
    NoiseAnalysis(sigma: sigma, relativeSigma: sigma / 255 / max(meanLuma, 1.0 / 255))
  }

  /// The EXIF exposure facts of `metadata` (all nil without it).
  static func captureFacts(_ metadata: PhotoMetadata?) -> CaptureFacts {
    guard let m = metadata else { return CaptureFacts() }
    return CaptureFacts(
      exposureTime: m.exposureTime, fNumber: m.fNumber, iso: m.iso,
      brightnessValue: m.brightnessValue, flashFired: m.flash?.fired)
  }
}
