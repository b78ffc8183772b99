// SPDX-License-Identifier: Apache-2.0

import CRetouchBenchReference
import Foundation
@_spi(Benchmarks) import RetouchAI
import RetouchCore
import RetouchIO
import RetouchRender

/// `retouch-bench ai`: the suggestion engine's two entry points, after `prewarm()`:
/// `suggestions` with 256 px thumbnails on a decoded 12 MP photo (goal ≤ 150 ms median), and
/// `topSuggestion` on a 512 px copy (goal ≤ 15 ms), face detection included in both; plus the
/// stages on their own (analysis copy, analysis, grain, ranking renders) so a regression can be
/// placed, and the analysis's statistics pass beside a C reference of it (same bits, checked).
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
      BenchCase(name: "stage: statistics pass, 512 px, 1 thread", owner: "Retouch") {
        StatisticsPassBenchmark.run(small)
        return (nil, nil)
      },
      BenchCase(name: "stage: statistics pass, 512 px, 1 thread", owner: "C reference") {
        _ = referenceStatistics(small, digest: false)
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
    // The C reference must measure what the Swift pass does, or its time says nothing.
    if cases.contains(where: { $0.owner == "C reference" }) {
      let same =
        StatisticsPassBenchmark.digest(small) == referenceStatistics(small, digest: true)
      print("statistics pass: C reference \(same ? "gives the same bits" : "DIFFERS from Swift")")
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
    let pass = results.filter { $0.name.hasPrefix("stage: statistics pass") }
    if let swift = pass.first(where: { $0.owner == "Retouch" }),
      let c = pass.first(where: { $0.owner == "C reference" }), c.samples.median > 0
    {
      // The project's rule for a C kernel: only where Swift stays more than 1.5× behind.
      print(
        String(
          format: "statistics pass: Swift / C reference = %.2f× (a C twin only above 1.5×)",
          swift.samples.median / c.samples.median))
    }
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

  /// The C reference of the analysis's statistics pass on one thread, over the Swift pass's
  /// bands (one set of counts for all, each band's float sums on their own, added in band order
  /// as the Swift pass does), ending, as the Swift pass does, with the counts as `[Int]` and the
  /// sums added up. With `digest`, returns what ``StatisticsPassBenchmark/digest(_:)`` returns
  /// for the Swift pass; timed without it (the digest hashes both planes).
  static func referenceStatistics(_ image: Image, digest: Bool) -> [UInt64] {
    let t = StatisticsPassBenchmark.tables(for: image)
    let w = image.width, h = image.height
    let bands = ParallelBands.bandRanges(rows: h, count: t.bandCount)
    let slots = 512 + t.highlightBins
    var histogram32 = [UInt32](repeating: 0, count: t.histogramBins)
    var counts = [UInt32](repeating: 0, count: slots)
    var sums = [rbref_stats_sums]()
    // Both planes left uninitialised, as the Swift pass leaves them: every pixel is written.
    var luma: [Float] = []
    let luminance = [Float](unsafeUninitializedCapacity: w * h) { lumBuffer, lumCount in
      luma = [Float](unsafeUninitializedCapacity: w * h) { lumaBuffer, lumaCount in
        t.decode.withUnsafeBufferPointer { dec in
          t.labF.withUnsafeBufferPointer { labF in
            t.bandCenters.withUnsafeBufferPointer { centers in
              t.toXYZ.withUnsafeBufferPointer { toXYZ in
                var tables = rbref_stats_tables(
                  decode: dec.baseAddress, lab_f: labF.baseAddress,
                  band_centers: centers.baseAddress, to_xyz: toXYZ.baseAddress,
                  weights: (t.weights.0, t.weights.1, t.weights.2),
                  histogram_bins: Int32(t.histogramBins), highlight_bins: Int32(t.highlightBins))
                image.withUnsafeBytes { raw in
                  let src = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
                  for band in bands {
                    sums.append(
                      rbref_stats_rows(
                        &tables, src, Int32(w), Int32(h), Int32(band.lowerBound),
                        Int32(band.upperBound), &histogram32, &counts, lumBuffer.baseAddress,
                        lumaBuffer.baseAddress))
                  }
                }
              }
            }
          }
        }
        lumaCount = w * h
      }
      lumCount = w * h
    }
    let histogram = histogram32.map { Int($0) }
    let channelCounts = counts.map { Int($0) }
    var c = [Int](repeating: 0, count: 6)
    var f = [Double](repeating: 0, count: 16)
    for s in sums {
      c[0] += Int(s.shadow_clipped)
      c[1] += Int(s.highlight_clipped)
      c[2] += Int(s.clipped_colour)
      c[3] += Int(s.trusted_count)
      c[4] += Int(s.edge_count)
      c[5] += Int(s.chroma_count)
      let sog = [s.shades_of_gray.0, s.shades_of_gray.1, s.shades_of_gray.2]
      let edge = [s.gray_edge.0, s.gray_edge.1, s.gray_edge.2]
      let hue = [s.hue.0, s.hue.1, s.hue.2, s.hue.3, s.hue.4, s.hue.5, s.hue.6, s.hue.7]
      let values = sog + edge + [s.chroma_sum, s.luma_sum] + hue
      for k in 0..<16 { f[k] += values[k] }
    }
    guard digest else { return [] }
    return StatisticsPassBenchmark.digest(
      counts: c, sums: f, histogram: histogram, channelCounts: channelCounts,
      luminance: luminance, luma: luma)
  }
}
