// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchAI
import RetouchCore
import RetouchIO
import RetouchRender
import RetouchTestSupport

/// Shared-set photos as the analysis sees them: upright, 8-bit, 512 px on the long edge.
enum AnalysisTestPhotos {
  static func load(_ id: String) throws -> (image: Image, metadata: PhotoMetadata) {
    var options = DecodeOptions()
    options.minimumLongEdge = 1024
    options.keeps16Bit = false
    let decoded = try ImageDecoder(options: options).decode(SharedPhotos.url(id))
    return (decoded.image.resized(toFitLongEdge: 512), decoded.metadata)
  }

  /// A PhotoAnalysis with real faces, subject and capture facts, and neutral stand-ins for the
  /// exposure and colour measurements (the scene scores read none of those but the
  /// dark-on-purpose verdict), with the scene scores filled in.
  static func analysis(of image: Image, metadata: PhotoMetadata? = nil) -> PhotoAnalysis {
    let faces = FaceDetector().detect(in: image)
    let subject = SubjectFinder.findSubject(in: image, faces: faces)
    let capture = CaptureFacts(
      exposureTime: metadata?.exposureTime, fNumber: metadata?.fNumber, iso: metadata?.iso,
      brightnessValue: metadata?.brightnessValue, flashFired: metadata?.flash?.fired)
    let exposure = ExposureAnalysis(
      meanLuminance: 0.18, keyLuminance: 0.18, lightnessPercentiles: [], lightnessDeviation: 0,
      shadowClipping: 0, highlightClipping: 0, subjectLuminance: 0.18,
      sceneEV100: capture.ev100, isDarkOnPurpose: false, suggestedEV: 0)
    let color = ColorAnalysis(
      illuminant: [1, 1, 1], warmth: 0, greenTint: 0, confidence: 1, meanChroma: 0,
      hueShares: Array(repeating: 0.125, count: 8))
    var analysis = PhotoAnalysis(
      pixelSize: image.size, exposure: exposure, color: color, faces: faces, subject: subject,
      noise: nil,
      sharpness: SharpnessAnalysis(subjectSharpness: 0, globalSharpness: 0, isSoft: false),
      sceneScores: [:], capture: capture)
    analysis.sceneScores = SceneClassifier.scores(for: image, analysis: analysis)
    return analysis
  }

  /// An 8-bit RGB image filled by `color(x, y)`.
  static func synthetic(
    width: Int, height: Int, _ color: (Int, Int) -> (UInt8, UInt8, UInt8)
  ) -> Image {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(width * height * 3)
    for y in 0..<height {
      for x in 0..<width {
        let (r, g, b) = color(x, y)
        bytes += [r, g, b]
      }
    }
    return Image(width: width, height: height, format: .rgb8, bytes: bytes)
  }

  /// `image` with the pixels inside `rect` (normalized) replaced by `transform(r, g, b)`.
  static func editing(
    _ image: Image, in rect: NormalizedRect,
    _ transform: (_ x: Int, _ y: Int, _ rgb: (Int, Int, Int)) -> (Int, Int, Int)
  ) -> Image {
    var out = image
    let x0 = Int(rect.x * Double(image.width)), x1 = Int(rect.maxX * Double(image.width))
    let y0 = Int(rect.y * Double(image.height)), y1 = Int(rect.maxY * Double(image.height))
    for y in max(0, y0)..<min(image.height, y1) {
      for x in max(0, x0)..<min(image.width, x1) {
        let p = image.pixel(x: x, y: y)
        let (r, g, b) = transform(x, y, (p[0], p[1], p[2]))
        out.setPixel(x: x, y: y, [clamp(r), clamp(g), clamp(b)] + p.dropFirst(3))
      }
    }
    return out
  }

  static func clamp(_ v: Int) -> Int { min(255, max(0, v)) }
}

extension AnalysisTestPhotos {
  /// `image` with a separable box blur of `radius` applied `passes` times inside `rect`
  /// (reading neighbours from outside the rect as they are).
  static func blurring(_ image: Image, in rect: NormalizedRect, radius: Int, passes: Int) -> Image {
    var out = image
    for _ in 0..<passes {
      for horizontal in [true, false] {
        let source = out
        out = editing(source, in: rect) { x, y, _ in
          var sum = (0, 0, 0), n = 0
          for d in -radius...radius {
            let sx = horizontal ? min(source.width - 1, max(0, x + d)) : x
            let sy = horizontal ? y : min(source.height - 1, max(0, y + d))
            let p = source.pixel(x: sx, y: sy)
            sum = (sum.0 + p[0], sum.1 + p[1], sum.2 + p[2])
            n += 1
          }
          return (sum.0 / n, sum.1 / n, sum.2 / n)
        }
      }
    }
    return out
  }
}
