// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchAI
import RetouchCore
import RetouchRender
import RetouchTestSupport
import Testing

@Suite struct SubjectFinderTests {
  static func contains(_ r: NormalizedRect, _ x: Double, _ y: Double) -> Bool {
    x >= r.x && x <= r.maxX && y >= r.y && y <= r.maxY
  }

  @Test(arguments: [(0.75, 0.3), (0.25, 0.7)])
  func subjectFollowsABrightBlob(cx: Double, cy: Double) {
    let w = 384, h = 256
    let image = AnalysisTestPhotos.synthetic(width: w, height: h) { x, y in
      let dx = Double(x) / Double(w) - cx, dy = Double(y) / Double(h) - cy
      return dx * dx + dy * dy < 0.004 ? (250, 60, 40) : (90, 100, 95)
    }
    let subject = SubjectFinder.findSubject(in: image, faces: [])
    #expect(subject.source == .saliency)
    #expect(Self.contains(subject.region, cx, cy), "\(subject.region)")
    #expect(subject.region.width * subject.region.height < 0.3)
  }

  @Test func facesComeFirst() {
    let image = AnalysisTestPhotos.synthetic(width: 300, height: 200) { x, _ in
      x > 250 ? (255, 255, 255) : (50, 50, 50)
    }
    let face = FaceObservation(
      bounds: NormalizedRect(x: 0.2, y: 0.3, width: 0.1, height: 0.15), score: 1,
      skinLab: [60, 15, 20], hasColoredLighting: false, isBlurred: false, luminance: 0.3)
    let subject = SubjectFinder.findSubject(in: image, faces: [face])
    #expect(subject.source == .faces)
    #expect(Self.contains(subject.region, 0.2, 0.3) && Self.contains(subject.region, 0.3, 0.45))
    #expect(subject.region.maxX < 0.5)
  }

  @Test func flatImageFallsBackToCentre() {
    let image = AnalysisTestPhotos.synthetic(width: 256, height: 256) { _, _ in (120, 120, 120) }
    let subject = SubjectFinder.findSubject(in: image, faces: [])
    #expect(subject.source == .center)
    #expect(!subject.isShallowDepthOfField)
  }

  @Test func focusRegionIsTheSharpPart() {
    // Left third: fine seeded texture; the rest: the same texture blurred into soft blobs.
    var rng = SeededRandom(seed: 42)
    let w = 384, h = 256
    let noise = (0..<(w * h)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
    let image = AnalysisTestPhotos.synthetic(width: w, height: h) { x, y in
      if x < w / 3 {
        let v = noise[y * w + x] / 2 + 64
        return (v, v, v)
      }
      let wave: Double = sin(Double(x) / 9) * cos(Double(y) / 11)
      let v = UInt8(128 + 40 * wave)
      return (v, v, v)
    }
    let subject = SubjectFinder.findSubject(in: image, faces: [])
    #expect(subject.focusRegion.maxX <= 0.4, "\(subject.focusRegion)")
    #expect(subject.isShallowDepthOfField)
  }

  @Test func shallowDepthOfFieldOnTheNuthatchNotTheLandscape() throws {
    let (nuthatch, _) = try AnalysisTestPhotos.load("d11")
    #expect(SubjectFinder.findSubject(in: nuthatch, faces: []).isShallowDepthOfField)
    let (landscape, _) = try AnalysisTestPhotos.load("d08")
    let s = SubjectFinder.findSubject(in: landscape, faces: [])
    #expect(!s.isShallowDepthOfField)
    #expect(s.focusRegion.width * s.focusRegion.height > 0.5)
  }

  @Test func deterministic() throws {
    let (image, _) = try AnalysisTestPhotos.load("d14")
    #expect(
      SubjectFinder.findSubject(in: image, faces: [])
        == SubjectFinder.findSubject(in: image, faces: []))
  }
}
