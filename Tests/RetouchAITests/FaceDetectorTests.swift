// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchAI
import RetouchCore
import RetouchRender
import Testing

@testable import RetouchAI

@Suite struct FaceDetectorTests {
  // Photos whose faces are at least ~15 % of the frame: the detector (no upsampling, here a
  // search of the 512-px copy) must find them. The other face photos of the set (tiny faces in
  // crowds, a face behind hair) are out of its reach by design.
  @Test(arguments: ["s01", "g46", "g48", "g57", "g63", "g65"])
  func findsClearFaces(id: String) throws {
    let (image, _) = try AnalysisTestPhotos.load(id)
    let faces = FaceDetector().detect(in: image)
    #expect(!faces.isEmpty, "no face found in \(id)")
    for face in faces {
      #expect(face.bounds.isValid)
      #expect(face.bounds.width >= 0.05 && face.bounds.width <= 0.9)
      let aspect =
        face.bounds.width * Double(image.width)
        / (face.bounds.height * Double(image.height))
      #expect(aspect > 0.7 && aspect < 1.4, "face box aspect \(aspect) in \(id)")
      #expect(face.score > 0)
      #expect(face.luminance > 0 && face.luminance < 1)
    }
    // Largest first.
    let areas = faces.map { $0.bounds.width * $0.bounds.height }
    #expect(areas == areas.sorted(by: >))
  }

  @Test(arguments: ["d01", "d08", "g68", "g84"])
  func findsNoFaceWhereThereIsNone(id: String) throws {
    let (image, _) = try AnalysisTestPhotos.load(id)
    #expect(FaceDetector().detect(in: image).isEmpty)
  }

  @Test func astronautHasOneFaceAndNoBadge() throws {
    // dlib also scores the round mission patch on her suit as a weak face; the skin test drops it.
    let (image, _) = try AnalysisTestPhotos.load("s01")
    let faces = FaceDetector().detect(in: image)
    #expect(faces.count == 1)
    let face = try #require(faces.first)
    #expect(face.bounds.midY < 0.5, "the face is in the upper half; the patch is below")
  }

  @Test(arguments: ["s01", "g48", "g65"])
  func skinHueIsNatural(id: String) throws {
    let (image, _) = try AnalysisTestPhotos.load(id)
    let face = try #require(FaceDetector().detect(in: image).first)
    #expect(face.skinHue > 20 && face.skinHue < 75, "skin hue \(face.skinHue) in \(id)")
    #expect(face.skinLab[0] > 30 && face.skinLab[0] < 90)
    #expect(!face.hasColoredLighting)
    #expect(!face.isBlurred)
  }

  /// The astronaut's face box, found once.
  static func astronautFace() throws -> (Image, NormalizedRect) {
    let (image, _) = try AnalysisTestPhotos.load("s01")
    let face = try #require(FaceDetector().detect(in: image).first)
    return (image, face.bounds)
  }

  static func measure(_ image: Image, _ box: NormalizedRect) -> FaceObservation {
    let plane = GreyPlane(image: image)
    return FaceDetector.measure(
      box: box, score: 1, in: image, plane: plane,
      referenceSharpness: FocusMap(plane: plane).referenceSharpness
    ).observation
  }

  @Test func blurredFaceIsBlurred() throws {
    let (image, box) = try Self.astronautFace()
    #expect(!Self.measure(image, box).isBlurred)
    let blurred = AnalysisTestPhotos.blurring(image, in: box, radius: 3, passes: 2)
    #expect(Self.measure(blurred, box).isBlurred)
  }

  @Test func magentaLitFaceHasColoredLighting() throws {
    let (image, box) = try Self.astronautFace()
    #expect(!Self.measure(image, box).hasColoredLighting)
    let magenta = AnalysisTestPhotos.editing(image, in: box) { _, _, p in
      (p.0 * 11 / 10 + 30, p.1 * 5 / 10, p.2 + 70)
    }
    let lit = Self.measure(magenta, box)
    #expect(lit.hasColoredLighting)
    #expect(lit.skinHue < 10 || lit.skinHue > 95)
  }

  @Test func twoColouredLightsAreMixedLighting() throws {
    let (image, box) = try Self.astronautFace()
    let mid = Int(box.midX * Double(image.width))
    let mixed = AnalysisTestPhotos.editing(image, in: box) { x, _, p in
      x < mid ? (p.0 + 40, p.1 / 2, p.2 / 3) : (p.0 / 3, p.1 * 3 / 4, p.2 + 60)
    }
    #expect(Self.measure(mixed, box).hasColoredLighting)
  }

  @Test func detectionIsDeterministicAndSplitMatchesSingleThread() throws {
    let (image, _) = try AnalysisTestPhotos.load("g48")
    let a = FaceDetector().detect(in: image)
    let b = FaceDetector().detect(in: image)
    let single = FaceDetector(detectionLongEdge: FaceDetector.defaultDetectionLongEdge, threads: 1)
      .detect(in: image)
    #expect(a == b)
    #expect(a == single)
    #expect(a.count == 2)
  }

  @Test func sixteenBitInputGivesTheSameFaces() throws {
    let (image, _) = try AnalysisTestPhotos.load("s01")
    var wide = Image(width: image.width, height: image.height, format: .rgba16)
    for y in 0..<image.height {
      for x in 0..<image.width {
        let p = image.pixel(x: x, y: y)
        wide.setPixel(x: x, y: y, [p[0] * 257, p[1] * 257, p[2] * 257, 65535])
      }
    }
    let eight = FaceDetector().detect(in: image), sixteen = FaceDetector().detect(in: wide)
    #expect(sixteen.count == eight.count)
    #expect(sixteen.first?.bounds == eight.first?.bounds)
    let dh = abs((sixteen.first?.skinHue ?? 0) - (eight.first?.skinHue ?? 180))
    #expect(dh < 1)
  }

  @Test func tinyAndFlatImagesHaveNoFaces() {
    let tiny = AnalysisTestPhotos.synthetic(width: 40, height: 30) { _, _ in (200, 150, 120) }
    #expect(FaceDetector().detect(in: tiny).isEmpty)
    let flat = AnalysisTestPhotos.synthetic(width: 512, height: 384) { _, _ in (128, 128, 128) }
    #expect(FaceDetector().detect(in: flat).isEmpty)
  }

  /// The shim computes dlib's HOG features and filters itself; these are dlib's own detections
  /// (box in pixels of the 448-px search copy, score) on two photos, recorded with dlib's
  /// feature extraction before it was replaced. Any change to the features, the filters or the
  /// pyramid moves the scores, so this catches what the coarser tests above would not.
  @Test(arguments: [
    ("s01", [(150, 64, 88, 87, 1.114275280)]),
    ("g48", [(89, 135, 104, 104, 1.189033333), (165, 229, 73, 73, 0.938689534)]),
  ])
  func rawDetectionsAreDlibs(id: String, expected: [(Int, Int, Int, Int, Double)]) throws {
    let (image, _) = try AnalysisTestPhotos.load(id)
    let plane = GreyPlane(image: image)
    let edge = 448  // the search size the detections were recorded at
    let search = plane.areaResized(toFitLongEdge: edge)
    for threads in [1, 2] {
      let found = FaceDetector.candidates(
        in: plane, longEdge: edge, threshold: 0, threads: threads)
      try #require(found.count == expected.count, "\(id), \(threads) threads")
      for (c, e) in zip(found, expected) {
        let b = c.bounds
        let box = [
          b.x * Double(search.width), b.y * Double(search.height),
          b.width * Double(search.width), b.height * Double(search.height),
        ].map {
          Int($0.rounded())
        }
        #expect(box == [e.0, e.1, e.2, e.3], "\(id) box")
        #expect(abs(c.score - e.4) < 5e-9, "\(id) score \(c.score)")
      }
    }
  }

  /// A shared search finds what a one-thread search finds, whichever thread scans which
  /// pyramid level: here every level scanned by the "helper" call (deterministically), and with
  /// a real helper thread racing the starting one. Weak detections included (threshold −0.5).
  @Test(arguments: ["s01", "g48", "g57"])
  func sharedSearchMatchesOneThread(id: String) throws {
    let (image, _) = try AnalysisTestPhotos.load(id)
    let plane = GreyPlane(image: image)
    let edge = FaceDetector.defaultDetectionLongEdge
    let expected = FaceDetector.candidates(in: plane, longEdge: edge, threshold: -0.5, threads: 1)
    try #require(!expected.isEmpty)
    func same(_ found: [(bounds: NormalizedRect, score: Double)]) -> Bool {
      found.count == expected.count
        && zip(found, expected).allSatisfy { $0.bounds == $1.bounds && $0.score == $1.score }
    }

    let helped = FaceDetector.Search()
    try #require(helped.start(in: plane, longEdge: edge, threshold: -0.5))
    let levels = helped.help()
    #expect(levels >= 5, "the helper scanned \(levels) levels")
    #expect(helped.help() == 0)
    #expect(same(helped.finish()), "\(id): all levels scanned by the helper")

    for round in 0..<4 {
      let search = FaceDetector.Search()
      search.expect()
      let helper = Thread { search.help() }
      helper.start()
      let found = FaceDetector.candidates(
        in: plane, longEdge: edge, threshold: -0.5, sharing: search)
      #expect(same(found), "\(id), round \(round)")
    }
  }

  /// A helper never waits for a search that will not come: one not promised returns at once,
  /// and a promised one that is given up (a copy too small to hold a face) releases it.
  @Test func helperReturnsWhenNoSearchComes() {
    let unpromised = FaceDetector.Search()
    #expect(unpromised.help() == 0)

    let tiny = GreyPlane(
      image: AnalysisTestPhotos.synthetic(width: 40, height: 30) { _, _ in (90, 90, 90) })
    let search = FaceDetector.Search()
    search.expect()
    let returned = DispatchSemaphore(value: 0)
    Thread {
      search.help()
      returned.signal()
    }.start()
    // Time for the helper to be waiting: had the failed start not closed the search, it would
    // never return (the thread is then left blocked, and the test fails below).
    Thread.sleep(forTimeInterval: 0.05)
    #expect(!search.start(in: tiny, longEdge: 40, threshold: 0))
    #expect(returned.wait(timeout: .now() + 10) == .success, "the helper still waits")
  }
}
