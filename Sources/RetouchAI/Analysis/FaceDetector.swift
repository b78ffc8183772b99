// SPDX-License-Identifier: Apache-2.0

import CRetouchFaces
import Foundation
import RetouchCore
import RetouchRender

/// Finds frontal faces in a photo without any downloaded model, and measures each one.
///
/// Detection runs dlib's built-in HOG frontal face detector (compiled into libdlib; no model
/// file) on a grey copy shrunk by area averaging to ``detectionLongEdge`` pixels, without
/// upsampling, so a face must be at least about 80 px in that copy: a tenth of the photo's
/// long edge at the default 768, when the photo is that large. The analysis searches a grey
/// copy of the photo itself, not of its 512-px analysis copy (where a face needed to be a
/// sixth of the frame), and measures the faces in the analysis copy. Candidates are then
/// filtered: a weak detection must also show skin-like colour under it (this removes round
/// badges and textures that dlib takes for faces), unless the photo has no colour to judge by.
///
/// Thread-safe and reentrant: the C++ shim reads dlib's model once into read-only filters that
/// every caller shares, computes dlib's HOG features itself (the same floats as dlib's
/// extractor, checked value for value) and applies the filters with its own vectorised separable
/// filtering (same detections and scores as dlib's scanner). The first call decodes dlib's model
/// (~0.5 s of CPU); ``prewarm()`` does that ahead of time.
/// Deterministic: the same image gives the same faces, bit for bit.
public struct FaceDetector: Sendable {
  /// Long edge, in pixels, of the grey copy the detector searches.
  ///
  /// Chosen on the face photos of the shared set. Cost of `detect(in:)` on a 512-px copy
  /// (release build, `-march=native`, median CPU time over six photos on the 2-core Xeon while
  /// other builds loaded it ~8×, so idle numbers are lower): 320 px 8.9 ms, 384 px 12.9 ms,
  /// 448 px 16.0 ms, 512 px 18.3 ms, of which ~1.5 ms is the grey copy, focus tiles and face
  /// measurements. Faces found (photos whose faces are at least ~15 % of the frame): 320 px
  /// 4 of 6, 384 px the same plus a couple's second face, 448 px all 6 (adds a B&W pair and one
  /// face of a group at a table), 512 px also the other two faces of that group. Split over two
  /// threads the wall time is about half the CPU time on two idle cores.
  ///
  /// 768 px since the analysis searches a copy of the full photo: it finds faces of a tenth of
  /// the frame (all four friends at that table, a father on a lawn at dusk), which matter as
  /// much as large ones (a flash-lit family photo without them read as a night scene and kept
  /// its colour cast). The search costs about three times the 448-px one; on a 12 MP photo
  /// `suggestions` went from 45–49 ms to 53–65 ms (`retouch-bench ai --runs 9`, two
  /// alternating runs each, the detector on two threads there), and `topSuggestion` on a
  /// 512-px copy (searched at 512) from 9.7–10.1 ms to 9.7–11.6 ms.
  public static let defaultDetectionLongEdge = 768

  /// Long edge of the grey copy searched; larger finds smaller faces and costs more (the cost
  /// grows with the pixel count).
  public let detectionLongEdge: Int

  /// 1 or 2: with 2 the detector's image pyramid is split between the calling thread and one
  /// short-lived worker thread (identical result, about half the wall time on two idle cores).
  package let threads: Int

  public init() { self.init(detectionLongEdge: Self.defaultDetectionLongEdge) }

  /// - Parameter detectionLongEdge: 80...2048 pixels (clamped).
  public init(detectionLongEdge: Int) {
    self.init(
      detectionLongEdge: detectionLongEdge,
      threads: ProcessInfo.processInfo.activeProcessorCount >= 2 ? 2 : 1)
  }

  package init(detectionLongEdge: Int, threads: Int) {
    self.detectionLongEdge = min(2048, max(80, detectionLongEdge))
    self.threads = min(2, max(1, threads))
  }

  /// Builds the detector on a background thread so that the first `detect` does not pay for it.
  /// Returns at once; calling it again does nothing.
  public static func prewarm() { _ = warmUp }

  private static let warmUp: Void = {
    Thread.detachNewThread { _ = rt_faces_prewarm() }
  }()

  /// Faces in `image` (an upright photo or a small copy of one, 8- or 16-bit RGB or RGBA),
  /// largest first, each with its skin colour, lighting and blur measured.
  ///
  /// A 512-px copy is searched whole at the default size: the bench's `faces alone` stage went
  /// from 4.6–4.9 ms to 5.2 ms when the default left 448 px. Earlier, at 448 px: ~8 ms of CPU
  /// on a 512-px copy (`retouch-bench ai`, median of 5 alternating runs of 15 rounds, release
  /// build, 2-vCPU Xeon shared with other builds; 10 ms with dlib's feature extraction and the
  /// earlier filter loop, ~15 ms with dlib's own scanner, with which the sizes in
  /// ``defaultDetectionLongEdge`` were compared). The C++ scan of the 448-px search copy alone,
  /// one thread, best of 100: pyramid 0.7 ms, features 3.05 ms (dlib's 3.85), filters 1.5 ms
  /// (1.97). The very first call in a process also
  /// decodes dlib's model (~0.5 s of CPU) unless ``prewarm()`` already did. Returns an empty
  /// list when the image is too small to hold a findable face or when the detector fails (out
  /// of memory).
  public func detect(in image: Image) -> [FaceObservation] {
    let plane = GreyPlane(image: image)
    return detect(in: image, plane: plane, focus: FocusMap(plane: plane))
  }

  /// `detect(in:)` with the grey plane and focus map already computed for `image`.
  ///
  /// - Parameters:
  ///   - searchPlane: the grey copy to search instead of `plane`, made from the photo `image`
  ///     stands for when that is larger (``searchPlane(of:longEdge:)``), so that faces too small
  ///     to find in `image` are found; they are measured in `image` all the same.
  ///   - search: a search whose pyramid levels another thread helps scan; without it the
  ///     detector uses ``threads``.
  package func detect(
    in image: Image, plane: GreyPlane, focus: FocusMap, searchPlane: GreyPlane? = nil,
    sharing search: Search? = nil
  ) -> [FaceObservation] {
    let searched = searchPlane ?? plane
    let candidates =
      if let search {
        Self.candidates(in: searched, longEdge: detectionLongEdge, threshold: 0, sharing: search)
      } else {
        Self.candidates(
          in: searched, longEdge: detectionLongEdge, threshold: 0, threads: threads)
      }
    var faces: [FaceObservation] = []
    for c in candidates {
      let face = Self.measure(
        box: c.bounds, score: c.score, in: image, plane: plane,
        referenceSharpness: focus.referenceSharpness)
      guard Self.isPlausible(face.observation, measurement: face.measurement) else { continue }
      faces.append(face.observation)
    }
    return faces.sorted { a, b in
      let aa = a.bounds.width * a.bounds.height, ba = b.bounds.width * b.bounds.height
      return aa != ba ? aa > ba : a.score > b.score
    }
  }

  /// The grey copy of `photo` (a region of a photo of any size, 8- or 16-bit RGB or RGBA) to
  /// search with a long edge of `longEdge`: box-averaged by the integer factor that keeps it at
  /// least that long, then area-resized the rest of the way.
  ///
  /// Cost: one pass over the region (the analysis copy's reduction, ~4 ms of CPU on 12 MP).
  static func searchPlane(of photo: PhotoRegion, longEdge: Int) -> GreyPlane {
    let k = max(1, photo.size.longEdge / max(1, longEdge))
    let reduced = AnalysisCopy.reduce(photo, factor: k)
    return GreyPlane(image: reduced).areaResized(toFitLongEdge: longEdge)
  }

  /// Raw detections (normalized boxes and dlib scores above `threshold`) on a grey copy of
  /// `plane` with the given long edge.
  package static func candidates(
    in plane: GreyPlane, longEdge: Int, threshold: Double, threads: Int = 1
  ) -> [(bounds: NormalizedRect, score: Double)] {
    guard let small = searchCopy(of: plane, longEdge: longEdge) else { return [] }
    let bytes = small.bytes()
    return boxes(width: small.width, height: small.height) { out, capacity in
      bytes.withUnsafeBufferPointer { src in
        rt_faces_detect(
          src.baseAddress, Int32(small.width), Int32(small.height), Int32(small.width),
          threshold, Int32(threads), out, capacity)
      }
    }
  }

  /// The grey copy of `plane` searched at `longEdge`, or nil when it is under 64 px on a side
  /// (too small for any pyramid level the detector scans).
  fileprivate static func searchCopy(of plane: GreyPlane, longEdge: Int) -> GreyPlane? {
    let small = plane.areaResized(toFitLongEdge: longEdge)
    return small.width >= 64 && small.height >= 64 ? small : nil
  }

  /// The detections `detect` (the C call, given room for up to 64 boxes) writes on a
  /// `width` × `height` search image, as normalized boxes and scores; none when it failed.
  fileprivate static func boxes(
    width: Int, height: Int, _ detect: (UnsafeMutablePointer<rt_face_box>?, Int32) -> Int32
  ) -> [(bounds: NormalizedRect, score: Double)] {
    var boxes = [rt_face_box](repeating: rt_face_box(), count: 64)
    let n = boxes.withUnsafeMutableBufferPointer { dst in
      detect(dst.baseAddress, Int32(dst.count))
    }
    guard n > 0 else { return [] }
    let sw = Double(width), sh = Double(height)
    return boxes.prefix(Int(n)).compactMap { b in
      let x0 = max(0, Double(b.left) / sw), y0 = max(0, Double(b.top) / sh)
      let x1 = min(1, Double(b.left + b.width) / sw), y1 = min(1, Double(b.top + b.height) / sh)
      guard x1 > x0, y1 > y0 else { return nil }
      return (NormalizedRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0), b.score)
    }
  }

  /// ``candidates(in:longEdge:threshold:threads:)`` on the calling thread, with the levels of the
  /// detector's image pyramid shared with whatever thread calls `search`'s
  /// ``Search/help()`` meanwhile (same detections whoever scans which level).
  package static func candidates(
    in plane: GreyPlane, longEdge: Int, threshold: Double, sharing search: Search
  ) -> [(bounds: NormalizedRect, score: Double)] {
    guard search.start(in: plane, longEdge: longEdge, threshold: threshold) else { return [] }
    return search.finish()
  }

  /// One face search whose image pyramid another thread can help scan: the thread that starts
  /// it builds the pyramid (``start(in:longEdge:threshold:)``), then scans levels in order,
  /// largest first (``finish()``); a helper calling ``help()`` meanwhile takes the next level
  /// nobody has taken, until none is left. The analysis has its statistics side help once its
  /// own work is done, so that both cores finish nearer together.
  ///
  /// Thread-safe: the C++ search hands out its levels through an atomic counter and waits for
  /// the helper's levels under a lock. For one search only.
  package final class Search: @unchecked Sendable {
    private let handle: OpaquePointer?
    /// Size of the searched copy (set by `start`, read by `finish` on the same thread).
    private var searched = (width: 0, height: 0)

    /// Nil handle (a search that finds nothing) only when out of memory.
    package init() { handle = rt_faces_search_create() }

    deinit { rt_faces_search_destroy(handle) }

    /// Promises that the calling thread, already running, goes on to start this search (or
    /// calls ``close()``): from then on ``help()`` waits for the pyramid instead of returning.
    /// Only a thread that is running may promise; a helper waiting for a thread that has not
    /// started yet could wait forever on a single core.
    package func expect() { rt_faces_search_expect(handle) }

    /// Gives up a search promised with ``expect()``: a waiting helper returns.
    package func close() { rt_faces_search_close(handle) }

    /// Scans levels of the search nobody has taken yet until none is left, and returns how
    /// many it scanned. Before the pyramid is built it waits for it if the search was promised
    /// (``expect()``), else returns 0 at once.
    @discardableResult
    package func help() -> Int { Int(rt_faces_search_help(handle)) }

    /// Builds the pyramid of a grey copy of `plane` with the given long edge; from then on
    /// helpers scan. False (and the search closed) when the copy is too small to hold a face or
    /// memory ran out. Call once.
    package func start(in plane: GreyPlane, longEdge: Int, threshold: Double) -> Bool {
      guard let small = FaceDetector.searchCopy(of: plane, longEdge: longEdge), let handle else {
        close()
        return false
      }
      searched = (small.width, small.height)
      let bytes = small.bytes()
      return bytes.withUnsafeBufferPointer { src in
        rt_faces_search_start(
          handle, src.baseAddress, Int32(small.width), Int32(small.height), Int32(small.width),
          threshold)
      } == 0
    }

    /// Scans the levels left, waits for those helpers took, and returns the detections as
    /// ``FaceDetector/candidates(in:longEdge:threshold:threads:)`` does. After a successful
    /// ``start(in:longEdge:threshold:)``, on the same thread.
    package func finish() -> [(bounds: NormalizedRect, score: Double)] {
      FaceDetector.boxes(width: searched.width, height: searched.height) { out, capacity in
        rt_faces_search_finish(handle, out, capacity)
      }
    }
  }

  /// What `measure` found beyond the public observation (used to filter false detections).
  package struct Measurement: Sendable {
    /// Share of inner-face pixels whose colour is skin-like (0...1).
    package var skinFraction: Double
    /// Mean CIE C*ab over the inner face.
    package var chroma: Double
    /// Face sharpness (L/G, see ``FocusMap``), nil when the face has too little detail to tell.
    package var sharpness: Double?
  }

  /// Skin hue range in CIELAB h° (degrees) for natural skin under ordinary light: measured skin
  /// of all types sits around 30–70°; the margins allow for warm and cool white balance.
  static let naturalSkinHue = 10.0...95.0

  /// Measures one face box of `image`: skin colour, lighting, blur and luminance.
  ///
  /// The inner face box (the middle 60 % across, 20–90 % down: cheeks, nose, mouth; less hair
  /// and background) is read in CIELAB (D65). Skin-like pixels are those with L* 20...97,
  /// C*ab 5...65 and a hue in ``naturalSkinHue``; `skinLab` is their mean, or the mean of the
  /// whole inner box when fewer than 5 % qualify. Coloured light is flagged when the face's mean
  /// colour is strongly chromatic outside the natural hue range, far more saturated than skin
  /// (C*ab > 45), or when its left and right halves differ in hue by more than 45° while both
  /// are clearly coloured (two coloured sources). Blur compares the face's L/G sharpness with
  /// the photo's `referenceSharpness` (its sharp parts): below 35 % of it is blurred.
  package static func measure(
    box: NormalizedRect, score: Double, in image: Image, plane: GreyPlane,
    referenceSharpness: Double?
  ) -> (observation: FaceObservation, measurement: Measurement) {
    let w = Double(image.width), h = Double(image.height)
    let fx0 = box.x + box.width * 0.2, fx1 = box.x + box.width * 0.8
    let fy0 = box.y + box.height * 0.2, fy1 = box.y + box.height * 0.9
    let x0 = max(0, min(image.width - 1, Int(fx0 * w)))
    let x1 = max(x0 + 1, min(image.width, Int((fx1 * w).rounded(.up))))
    let y0 = max(0, min(image.height - 1, Int(fy0 * h)))
    let y1 = max(y0 + 1, min(image.height, Int((fy1 * h).rounded(.up))))
    let midX = (x0 + x1) / 2
    let lab = LabConverter(colorSpace: image.colorSpace)
    let (wr, wg, wb) = image.colorSpace.lumaWeights

    var skinSum = (0.0, 0.0, 0.0), skinCount = 0
    var allSum = (0.0, 0.0, 0.0), allCount = 0
    // a*, b* and count per half, in locals (an array of tuples updated per pixel cost a
    // uniqueness and bounds check each time).
    var leftA = 0.0, leftB = 0.0, leftCount = 0, rightA = 0.0, rightB = 0.0, rightCount = 0
    var lumSum = 0.0
    image.withUnsafeBytes { raw in
      let reader = PixelReader(raw, image: image)
      for y in y0..<y1 {
        for x in x0..<x1 {
          let (r8, g8, b8) = reader.rgb(x: x, y: y)
          let (r, g, b) = lab.linear(r8, g8, b8)
          lumSum += Double(wr * r + wg * g + wb * b)
          let v = lab.lab(linear: r, g, b)
          let (l, a, bb) = (v.x, v.y, v.z)
          let L = Double(l), A = Double(a), B = Double(bb)
          allSum.0 += L
          allSum.1 += A
          allSum.2 += B
          allCount += 1
          guard L >= 15 && L <= 97 else { continue }
          if x < midX {
            leftA += A
            leftB += B
            leftCount += 1
          } else {
            rightA += A
            rightB += B
            rightCount += 1
          }
          let c = (A * A + B * B).squareRoot()
          // The hue (an `atan2`) only for pixels that pass the cheaper tests.
          guard L >= 20 && c >= 5 && c <= 65 else { continue }
          var hue = atan2(B, A) * 180 / .pi
          if hue < 0 { hue += 360 }
          if naturalSkinHue.contains(hue) {
            skinSum.0 += L
            skinSum.1 += A
            skinSum.2 += B
            skinCount += 1
          }
        }
      }
    }
    let n = Double(max(1, allCount))
    let skinFraction = Double(skinCount) / n
    let skinLab: [Double] =
      skinFraction >= 0.05
      ? [
        skinSum.0 / Double(skinCount), skinSum.1 / Double(skinCount), skinSum.2 / Double(skinCount),
      ]
      : [allSum.0 / n, allSum.1 / n, allSum.2 / n]

    // Lighting: the mean colour of the lit face (not only the skin-like part).
    let litCount = Double(max(1, leftCount + rightCount))
    let meanA = (leftA + rightA) / litCount, meanB = (leftB + rightB) / litCount
    let chroma = (meanA * meanA + meanB * meanB).squareRoot()
    let hue = Self.hue(meanA, meanB)
    var colored = (chroma >= 12 && !naturalSkinHue.contains(hue)) || chroma > 45
    if leftCount > 0 && rightCount > 0 {
      let (a0, b0) = (leftA / Double(leftCount), leftB / Double(leftCount))
      let (a1, b1) = (rightA / Double(rightCount), rightB / Double(rightCount))
      let c0 = (a0 * a0 + b0 * b0).squareRoot(), c1 = (a1 * a1 + b1 * b1).squareRoot()
      var dh = abs(Self.hue(a0, b0) - Self.hue(a1, b1))
      if dh > 180 { dh = 360 - dh }
      if c0 >= 12 && c1 >= 12 && dh > 45 { colored = true }
    }

    // Blur: the same inner box on the grey plane (which has the image's size).
    let sx = Double(plane.width) / w, sy = Double(plane.height) / h
    let sharp = FocusMap.sharpness(
      of: plane, x0: Int(Double(x0) * sx), y0: Int(Double(y0) * sy),
      x1: Int(Double(x1) * sx), y1: Int(Double(y1) * sy))
    var blurred = false
    if let ref = referenceSharpness {
      blurred = (sharp ?? 0) < 0.35 * ref
    }

    let observation = FaceObservation(
      bounds: box, score: score, skinLab: skinLab, hasColoredLighting: colored,
      isBlurred: blurred, luminance: lumSum / n)
    return (
      observation,
      Measurement(skinFraction: skinFraction, chroma: chroma, sharpness: sharp)
    )
  }

  /// dlib score above which a detection is kept without looking at its colour.
  static let confidentScore = 0.5

  /// Whether a detection is a face rather than a face-like pattern: confident detections are
  /// kept; weaker ones need skin-like colour under at least 30 % of the inner face, or a
  /// colourless face (black-and-white photos). The round mission badge on the astronaut portrait
  /// of the shared set scores 0.04 with 16 % skin-like pixels; real weak faces there show 30–96 %.
  static func isPlausible(_ face: FaceObservation, measurement m: Measurement) -> Bool {
    if face.score >= confidentScore { return true }
    if m.chroma < 4 { return true }  // no colour to judge by (monochrome photo)
    return m.skinFraction >= 0.3
  }

  private static func hue(_ a: Double, _ b: Double) -> Double {
    let h = atan2(b, a) * 180 / .pi
    return h < 0 ? h + 360 : h
  }
}
