// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchAI
import RetouchCore
import RetouchIO
import RetouchRender

/// `retouch-bench ai`: the suggestion engine's two entry points, after `prewarm()`:
/// `suggestions` with 256 px thumbnails on a decoded 12 MP photo (goal ≤ 150 ms median), and
/// `topSuggestion` on a 512 px copy (goal ≤ 15 ms), face detection included in both; plus the
/// stages on their own (analysis copy, analysis, grain, ranking renders) so a regression can be
/// placed.
enum AIBench {
  static func run(options: BenchOptions) throws {
    if options.inputs.count > 1 { try printResults(options.inputs) }
    let url = options.inputs.first.map { URL(fileURLWithPath: $0) } ?? options.twelveMegapixelJPEG
    let decoded = try ImageDecoder().decode(url)
    let full = decoded.image
    let metadata = decoded.metadata
    let small = full.resized(toFitLongEdge: 512)
    print(
      "\n# ai: \(url.lastPathComponent), \(full.size) \(full.format.bitDepth)-bit; 512 px copy \(small.size)"
    )
    print("cpu: \(RenderBench.cpuModel()); load average at start: \(RenderBench.loadAverage())")

    SuggestionEngine.prewarm()
    // prewarm returns at once; the first timed round is a warm-up anyway, and this waits for
    // the background work so it does not compete with the timed runs.
    _ = SuggestionEngine().topSuggestion(for: small)
    Thread.sleep(forTimeInterval: 0.5)

    let engine = SuggestionEngine()
    var count = 0
    var topFound = false
    // A portrait, so that the faces' part of `topSuggestion` is timed too (the 12 MP photo has
    // none): detection finds them, then each is measured and every colour recipe is checked
    // against their skin.
    let portrait = try? ImageDecoder().decode(options.portrait).image.resized(toFitLongEdge: 512)
    var portraitFaces = 0
    if let portrait {
      portraitFaces =
        PhotoAnalyzer().analyzeSmall(portrait, fullSize: portrait.size, metadata: nil)
        .faces.count
    }
    var allCases = [
      BenchCase(name: "suggestions, 12 MP, thumbnails 256", owner: "Retouch") {
        let list = engine.suggestions(
          for: full, metadata: metadata, options: SuggestionOptions(), isCancelled: { false })
        count = list.count
        return (nil, nil)
      },
      BenchCase(name: "suggestions + themes, 12 MP", owner: "Retouch") {
        _ = engine.suggestions(
          for: full, metadata: metadata, options: SuggestionOptions(includeThemes: true),
          isCancelled: { false })
        return (nil, nil)
      },
      BenchCase(name: "topSuggestion, 512 px copy", owner: "Retouch") {
        topFound = engine.topSuggestion(for: small, metadata: metadata) != nil
        return (nil, nil)
      },
      BenchCase(name: "stage: analysis copy of 12 MP", owner: "Retouch") {
        _ = PhotoAnalyzer.analysisCopy(of: full)
        return (nil, nil)
      },
      BenchCase(name: "stage: analysis of 512 px copy", owner: "Retouch") {
        _ = PhotoAnalyzer().analyzeSmall(small, fullSize: full.size, metadata: metadata)
        return (nil, nil)
      },
      BenchCase(name: "stage: analysis incl. grain, 12 MP", owner: "Retouch") {
        _ = PhotoAnalyzer().analyze(full, metadata: metadata, measureNoise: true)
        return (nil, nil)
      },
      BenchCase(name: "stage: faces alone, 512 px copy", owner: "Retouch") {
        _ = FaceDetector().detect(in: small)
        return (nil, nil)
      },
    ]
    if let portrait {
      allCases.insert(
        BenchCase(name: "topSuggestion, 512 px portrait", owner: "Retouch") {
          _ = engine.topSuggestion(for: portrait)
          return (nil, nil)
        }, at: 3)
    }
    let cases = allCases.filter { c in
      options.only.map { c.name.range(of: $0, options: .regularExpression) != nil } ?? true
    }
    guard !cases.isEmpty else {
      print("no case matches --only \(options.only ?? "")")
      return
    }
    // The machine is shared: CPU time (all of this process's threads) is logged beside the wall
    // time so that a slower neighbour can be told from a slower case.
    var cpu = [Samples](repeating: Samples(), count: cases.count)
    let timed = cases.enumerated().map { i, c in
      BenchCase(name: c.name, owner: c.owner) {
        let start = LibraryBench.cpuSeconds()
        let result = try c.run()
        cpu[i].add((LibraryBench.cpuSeconds() - start) * 1000)
        return result
      }
    }
    let results = try roundRobin(timed, runs: max(options.runs, 9))
    printTable(
      "suggestion engine (after prewarm)", results, reference: "topSuggestion, 512 px copy",
      note:
        "goals: suggestions with thumbnails on 12 MP ≤ 150 ms; topSuggestion on 512 px ≤ 15 ms. "
        + "\(count) suggestions; top suggestion \(topFound ? "found" : "nil (photo left alone)")."
        + (portrait.map {
          " Portrait: \(options.portrait.lastPathComponent), \($0.size), "
            + "\(portraitFaces) face(s) found."
        } ?? " Portrait not found: its case is skipped."))
    // The warm-up round is in `cpu` too; skip it like roundRobin does.
    print("\nCPU time, all threads (median ms, timed rounds only):")
    for (i, c) in cases.enumerated() {
      var s = Samples()
      for v in cpu[i].values.dropFirst() { s.add(v) }
      let name = c.name.padding(toLength: 40, withPad: " ", startingAt: 0)
      print("  " + name + String(format: "%7.1f", s.median))
    }
  }

  /// With more than one `--input`: the face detector's raw detections (dlib score above 0, box in
  /// pixels of the search copy, here the 512-px copy itself) and the faces kept, per photo,
  /// decoded as the analysis tests do (upright, 8-bit, 512 px), so that a change to the detector
  /// can be checked for identical detections before it is timed. Also a count and checksum of
  /// the weaker candidates down to −0.5 (more of the scan is compared that way), and a checksum
  /// of the whole `analyzeSmall` result (its JSON, every Double written exactly) for changes to the
  /// other measurements.
  static func printResults(_ paths: [String]) throws {
    print("\n# faces: raw detections (x y w h in search-copy px, score) and faces kept")
    var decodeOptions = DecodeOptions()
    decodeOptions.minimumLongEdge = 1024
    decodeOptions.keeps16Bit = false
    for path in paths {
      let decoded = try ImageDecoder(options: decodeOptions).decode(URL(fileURLWithPath: path))
      let small = decoded.image.resized(toFitLongEdge: 512)
      let plane = GreyPlane(image: small)
      let edge = FaceDetector.defaultDetectionLongEdge
      let search = plane.areaResized(toFitLongEdge: edge)
      let (sw, sh) = (Double(search.width), Double(search.height))
      func line(_ c: (bounds: NormalizedRect, score: Double)) -> String {
        let b = c.bounds
        return String(
          format: "%.0f %.0f %.0f %.0f %.9f", b.x * sw, b.y * sh, b.width * sw, b.height * sh,
          c.score)
      }
      let raw = FaceDetector.candidates(in: plane, longEdge: edge, threshold: 0, threads: 2)
      let weak = FaceDetector.candidates(in: plane, longEdge: edge, threshold: -0.5, threads: 2)
      var hash: UInt64 = 14_695_981_039_346_656_037
      for c in weak {
        for byte in line(c).utf8 { hash = (hash ^ UInt64(byte)) &* 1_099_511_628_211 }
      }
      let kept = FaceDetector().detect(in: small)
      let encoder = JSONEncoder()
      encoder.outputFormatting = .sortedKeys
      let result = PhotoAnalyzer().analyzeSmall(
        small, fullSize: decoded.image.size, metadata: decoded.metadata)
      let analysis = try encoder.encode(result)
      var analysisHash: UInt64 = 14_695_981_039_346_656_037
      for byte in analysis { analysisHash = (analysisHash ^ UInt64(byte)) &* 1_099_511_628_211 }
      print(
        "\(URL(fileURLWithPath: path).lastPathComponent): \(raw.count) raw, \(kept.count) kept; "
          + "\(weak.count) down to -0.5, checksum \(String(hash, radix: 16)); "
          + "analysis \(String(analysisHash, radix: 16))")
      for c in raw { print("  raw " + line(c)) }
      for f in kept { print("  kept " + line((f.bounds, f.score))) }
    }
  }
}
