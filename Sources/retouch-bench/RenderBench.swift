// SPDX-License-Identifier: Apache-2.0

import CRetouchBenchReference
import Foundation
import RetouchCore
import RetouchEditor
import RetouchIO
@_spi(Benchmarks) import RetouchRender

/// `retouch-bench render`: a typical edit file → edit → JPEG q90 against the codec floor (and,
/// with `--peers`, the peers' chain); re-rendering a preview after a slider move, per stage; the
/// fused colour pass against a C reference; peak memory.
enum RenderBench {
  /// A typical edit, each slider near the strength of the peers' reference chain (gain ≈ +0.14 EV
  /// in linear light, a warm white balance, sigmoidal contrast, saturation ×1.2, unsharp mask,
  /// radial vignette), plus highlights and shadows.
  static let typical: [EditSettingType: Double] = [
    .exposure: 0.14, .temperature: 0.2, .contrast: 0.3, .highlights: -0.3, .shadows: 0.3,
    .saturation: 0.2, .sharpness: 0.5, .vignette: 0.35,
  ]
  /// Colour and tone only: everything goes through the colour LUT (no guide, no sharpening).
  static let colorOnly: [EditSettingType: Double] = [
    .exposure: 0.14, .temperature: 0.2, .contrast: 0.3, .saturation: 0.2,
  ]
  /// The C reference's version of the edit: the peers' gains (R 1.06, G 1.00, B 0.93 on top of
  /// the exposure), an S-curve, saturation ×1.2 and the vignette's strength.
  static let referenceEdit = rbref_edit(
    exposure_stops: 0.14, white_balance: (1.06, 1.00, 0.93), contrast: 0.3, saturation: 1.2,
    vignette: 0.35)

  static let previewLongEdge = 2048
  static var retouchThreads: Int { ProcessInfo.processInfo.activeProcessorCount }

  /// `retouch-bench preview`: only the preview re-render section of `render` (seconds instead
  /// of minutes, for working on the preview path).
  static func runPreview(options: BenchOptions) throws {
    let url = options.inputs.first.map { URL(fileURLWithPath: $0) } ?? options.twelveMegapixelJPEG
    let data = try Data(contentsOf: url)
    let full = try ImageDecoder().decode(data).image
    print("\n# preview: \(url.lastPathComponent), \(full.size)")
    print("cpu: \(cpuModel()); load average at start: \(loadAverage())")
    try preview(data: data, fullSize: full.size, runs: max(30, options.runs * 5))
    print("\nload average at end: \(loadAverage())")
  }

  static func run(options: BenchOptions) throws {
    let url = options.inputs.first.map { URL(fileURLWithPath: $0) } ?? options.twelveMegapixelJPEG
    let data = try Data(contentsOf: url)
    let decoded = try ImageDecoder().decode(data)
    let full = decoded.image
    let rgbBytes = full.byteCount
    print(
      "\n# render: \(url.lastPathComponent), \(full.size) \(full.format.bitDepth)-bit, "
        + "\(data.count / 1024) KB"
    )
    print("cpu: \(cpuModel()); load average at start: \(loadAverage())")
    print(
      "Retouch threads: \(retouchThreads) (ProcessInfo.activeProcessorCount; every stage parallel "
        + "over row bands)"
    )
    print("typical edit: \(describe(typical))")
    print("colour-only edit: \(describe(colorOnly))")

    let endToEnd = try fileToFile(url: url, data: data, size: full.size, options: options)
    if options.peers {
      peers(url: url, ours: endToEnd, options: options)
    } else {
      print(
        "\npeers (OpenCV, libvips, Pillow doing the same chain): not run; add --peers "
          + "(a few minutes)."
      )
    }
    try preview(data: data, fullSize: full.size, runs: max(30, options.runs * 5))
    reference12MP(full, runs: options.runs)

    print("\n## Peak memory, 12 MP edit")
    if let rss = endToEnd.first(where: { $0.name == applyName })?.peakRSS, rss > 0 {
      print(
        String(
          format:
            "retouch apply peak RSS: %.1f MB (%.1f MiB) = %.2f× the 8-bit RGB image (%.1f MB); "
            + "goal ≤ 3×",
          Double(rss) / 1e6, Double(rss) / 1_048_576, Double(rss) / Double(rgbBytes),
          Double(rgbBytes) / 1e6))
    } else {
      print("retouch apply peak RSS: unknown (/usr/bin/time missing)")
    }
    print("\nload average at end: \(loadAverage())")
  }

  // MARK: 1. File → edit → JPEG q90

  static let inMemoryName = "decode → edit → encode q90, in memory"
  static let applyName = "retouch apply, file → file"
  static let pipelineName = "JPEGEditPipeline: file bytes → JPEG bytes"
  static let tjbenchName = "tjbench decompress+compress q90"
  static let pipeName = "djpeg | cjpeg q90, file → file"

  static func fileToFile(url: URL, data: Data, size: PixelSize, options: BenchOptions) throws
    -> [BenchResult]
  {
    let work = options.workDirectory
    let config = EditConfig(properties: typical)
    let applyOut = work.appendingPathComponent("render-apply.jpg").path
    let sets = typical.sorted { $0.key < $1.key }.flatMap {
      ["--set", "\($0.key.rawValue)=\($0.value)"]
    }
    var cases: [BenchCase] = [
      BenchCase(name: inMemoryName, owner: "Retouch") {
        let d = try ImageDecoder().decode(data)
        let edited = d.image.rendered(with: config)
        _ = try ImageEncoder().encode(edited, as: .jpeg, metadata: d.metadata)
        return (nil, nil)
      },
      BenchCase(name: pipelineName, owner: "Retouch") {
        // What `retouch apply` runs, called from this process: the file read, the overlapped
        // decode → edit → encode, no process start and no write.
        let file = try ImageDecoder.readFile(url)
        guard
          try JPEGEditPipeline.render(file, source: url.lastPathComponent, config: config) != nil
        else { throw BenchError(description: "the typical edit did not stream") }
        return (nil, nil)
      },
      BenchCase(name: applyName, owner: "Retouch") {
        (
          try runProcess(
            [options.retouchBinary, "apply", url.path, "-o", applyOut, "--quality", "90"] + sets),
          nil
        )
      },
    ]
    let ppm = work.appendingPathComponent("render-input.ppm").path
    if which("djpeg") != nil { try runProcess(["djpeg", "-outfile", ppm, url.path]) }
    if which("tjbench") != nil {
      cases.append(
        BenchCase(name: tjbenchName, owner: "libjpeg-turbo") {
          let d = try IOBench.tjbenchMilliseconds(
            ["tjbench", url.path, "-rgb"], pixels: size.pixelCount, column: .decompress, work: work)
          let c = try IOBench.tjbenchMilliseconds(
            ["tjbench", ppm, "90", "-rgb", "-subsamp", "420", "-componly"], pixels: size.pixelCount,
            column: .compress, work: work)
          return (nil, d + c)
        })
    }
    if which("djpeg") != nil, which("cjpeg") != nil {
      let out = work.appendingPathComponent("render-cjpeg.jpg").path
      cases.append(
        BenchCase(name: pipeName, owner: "libjpeg-turbo") {
          (
            try runProcess([
              "sh", "-c", "djpeg '\(url.path)' | cjpeg -quality 90 -sample 2x2 > '\(out)'",
            ]), nil
          )
        })
    }
    let results = try roundRobin(cases, runs: options.runs)
    printTable(
      "File → typical edit → JPEG q90 4:2:0, \(size)", results, reference: tjbenchName,
      note: """
        threads: Retouch \(retouchThreads) for the edit, 1 for the codec; libjpeg-turbo 1 \
        (djpeg | cjpeg: two processes in a pipe). Ratios to tjbench (in-memory decode + encode, \
        the floor). "in memory" is the plain path (decode, then render, then encode); \
        JPEGEditPipeline is the overlapped one `retouch apply` runs, without the process start.
        """)
    func median(_ name: String) -> Double? { results.first { $0.name == name }?.samples.median }
    if let ours = median(inMemoryName), let floor = median(tjbenchName) {
      print(
        String(format: "in memory / codec floor (tjbench): %.2f×  (goal ≤ 1.4×)", ours / floor))
    }
    if let ours = median(pipelineName), let floor = median(tjbenchName) {
      print(
        String(
          format: "JPEGEditPipeline (file bytes → JPEG bytes) / codec floor (tjbench): %.2f×  "
            + "(goal ≤ 1.4×)", ours / floor))
    }
    if let ours = median(applyName), let floor = median(tjbenchName) {
      print(String(format: "retouch apply / codec floor (tjbench): %.2f×", ours / floor))
    }
    if let ours = median(applyName), let floor = median(pipeName) {
      print(
        String(
          format: "retouch apply / djpeg | cjpeg, file → file: %.2f×  (goal ≤ 1.4×)",
          ours / floor))
    }
    return results
  }

  // MARK: 1d. Peers (../shared/bench/peers.sh)

  /// One row of peers.sh's results.tsv (group, name, threads, JSON file, peak RSS MiB, output KiB,
  /// foreign load, mode) with the timings from its JSON (seconds).
  struct PeerRow {
    let group: String
    let name: String
    let threads: String
    let times: [Double]
    let rssMiB: Double?
    let foreignLoad: String
  }

  /// `path` relative to the working directory when it lies inside it (reports are committed,
  /// so they name no machine's folders).
  static func shownPath(_ path: String) -> String {
    let here = FileManager.default.currentDirectoryPath + "/"
    return path.hasPrefix(here) ? String(path.dropFirst(here.count)) : path
  }

  static func peers(url: URL, ours: [BenchResult], options: BenchOptions) {
    let script = options.peersScript
    print("\n## Peers: \(script.lastPathComponent) (the reference chain, file → file)")
    guard FileManager.default.fileExists(atPath: script.path) else {
      print("not run: \(script.lastPathComponent) is missing")
      return
    }
    let work = options.workDirectory.appendingPathComponent("peers")
    try? FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    let log = work.appendingPathComponent("peers.log").path
    print(
      "running (SECTIONS='floor edit', MODE=rr, ONLY='\(options.peersOnly)', "
        + "\(options.runs) runs); "
        + "log: \(Self.shownPath(log))"
    )
    fflush(nil)
    let start = now()
    do {
      _ = try spawnAndWait(
        [
          "bash", "-c", "exec bash \"$0\" \"$1\" \"$2\" > \"$3\" 2>&1", script.path, url.path,
          "\(options.runs)", log,
        ],
        stdoutPath: nil,
        environment: [
          "WORK": work.path, "SECTIONS": "floor edit", "MODE": "rr", "ONLY": options.peersOnly,
        ])
    } catch {
      print("peers.sh failed (\(error)); see \(log)")
      return
    }
    print(String(format: "peers.sh took %.0f s", now() - start))
    let rows: [PeerRow]
    do {
      rows = try readPeerResults(work.appendingPathComponent("results.tsv"))
    } catch {
      print("cannot read peers.sh results: \(error)")
      return
    }
    let edits = rows.filter { $0.group == "edit" }
    guard !edits.isEmpty else {
      print("peers.sh reported no edit rows; see \(log)")
      return
    }
    let cores = retouchThreads
    func label(_ r: PeerRow) -> String {
      let threads = r.threads == "def" ? "default = \(cores)" : r.threads
      return "\(r.name) [thr \(threads), load \(r.foreignLoad)]"
    }
    var table: [BenchResult] = []
    for r in ours where r.name == applyName || r.name == inMemoryName || r.name == pipeName {
      table.append(
        BenchResult(name: r.name + " *", owner: r.owner, samples: r.samples, peakRSS: r.peakRSS))
    }
    for r in rows {
      var b = BenchResult(name: label(r), owner: peerOwner(r.name))
      b.samples.values = r.times.map { $0 * 1000 }
      b.peakRSS = r.rssMiB.map { Int($0 * 1_048_576) }
      table.append(b)
    }
    guard let fastest = edits.min(by: { median($0.times) < median($1.times) }) else { return }
    printTable(
      "Typical edit file → file: Retouch beside the peers' reference chain", table,
      reference: label(fastest),
      note: """
        * = this bench's own round robin above; other rows are peers.sh's round robin, run right \
        after (nice \(getuid() == 0 ? "-10, in its own session" : "0")), \
        \(rows.first?.times.count ?? 0) runs.
        Threads: Retouch \(cores); OpenCV: CV_THREADS=1 → cv2.setNumThreads(1), 'default' = \
        OpenCV's own (all \(cores) cores); libvips: VIPS_CONCURRENCY=1 or default (\(cores)); \
        Pillow 1.
        The peers' chain has no local tone (highlights/shadows): ours does that work too.
        load = peers.sh's median foreign load during the row's runs (cores busy with other work). \
        Ratios to the fastest peer edit.
        """)
    let fastestMS = median(fastest.times) * 1000
    func ourMedian(_ name: String) -> Double? { ours.first { $0.name == name }?.samples.median }
    if let apply = ourMedian(applyName) {
      print(
        String(
          format: "retouch apply / fastest peer (%@): %.2f×  (goal ≤ 0.4×)", label(fastest),
          apply / fastestMS))
    }
    if let mem = ourMedian(inMemoryName) {
      print(String(format: "in memory / fastest peer: %.2f×", mem / fastestMS))
    }
    // Both runs timed djpeg | cjpeg: scaling by it cancels a change of machine load between them.
    if let apply = ourMedian(applyName), let ourPipe = ourMedian(pipeName),
      let theirPipe = rows.first(where: { $0.group == "floor" && $0.name.contains("djpeg | cjpeg") }
      )
    {
      let k = median(theirPipe.times) * 1000 / ourPipe
      print(
        String(
          format:
            "load-corrected (each run divided by its own djpeg | cjpeg): retouch apply / fastest "
            + "peer = %.2f×",
          apply / fastestMS * k))
    }
  }

  static func median(_ v: [Double]) -> Double {
    var s = Samples()
    s.values = v
    return s.median
  }

  static func peerOwner(_ name: String) -> String {
    if name.hasPrefix("OpenCV") { return "OpenCV" }
    if name.hasPrefix("pyvips-binary") { return "libvips 8.18" }
    if name.hasPrefix("pyvips") { return "libvips" }
    if name.hasPrefix("Pillow") { return "Pillow" }
    if name.hasPrefix("ImageMagick") { return "ImageMagick" }
    if name.hasPrefix("GraphicsMagick") { return "GraphicsMagick" }
    if name.hasPrefix("djpeg") || name.hasPrefix("cjpeg") { return "libjpeg-turbo" }
    return String(name.prefix(while: { $0 != " " }))
  }

  static func readPeerResults(_ url: URL) throws -> [PeerRow] {
    let text = try String(contentsOf: url, encoding: .utf8)
    var rows: [PeerRow] = []
    for line in text.split(separator: "\n") where !line.isEmpty {
      let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
      guard f.count >= 7 else { throw BenchError(description: "results.tsv: short line '\(line)'") }
      let json = try Data(contentsOf: URL(fileURLWithPath: f[3]))
      guard let object = try JSONSerialization.jsonObject(with: json) as? [String: Any],
        let results = object["results"] as? [[String: Any]], let first = results.first,
        let raw = first["times"] as? [Any]
      else { throw BenchError(description: "\(f[3]): no times") }
      let times = raw.compactMap { ($0 as? NSNumber)?.doubleValue ?? ($0 as? Double) }
      guard !times.isEmpty, times.count == raw.count
      else { throw BenchError(description: "\(f[3]): no times") }
      rows.append(
        PeerRow(
          group: f[0], name: f[1], threads: f[2], times: times, rssMiB: Double(f[4]),
          foreignLoad: f[6]))
    }
    return rows
  }

  // MARK: 2. Preview re-render after a slider move

  /// An editor's state between slider moves: the edit so far and which slider moves next.
  final class SliderMoves {
    var config: EditConfig
    let sliders: [EditSettingType]
    var step = 0
    init(_ properties: [EditSettingType: Double]) {
      config = EditConfig(properties: properties)
      sliders = properties.keys.sorted()
    }
    /// Moves the next slider by 0.01, up on even passes through the sliders and down on odd ones,
    /// so values stay within 0.01 of the start and never reach 0.
    func next() -> EditConfig {
      let t = sliders[step % sliders.count]
      let delta = (step / sliders.count) % 2 == 0 ? 0.01 : -0.01
      config = config.setting(t, to: config.value(of: t) + delta)
      step += 1
      return config
    }
  }

  static func preview(data: Data, fullSize: PixelSize, runs: Int) throws {
    var o = DecodeOptions()
    o.minimumLongEdge = previewLongEdge
    let shrunk = try ImageDecoder(options: o).decode(data).image
    let source = shrunk.resized(to: fullSize.fitting(longEdge: previewLongEdge))
    let scale = Double(source.size.longEdge) / Double(fullSize.longEdge)
    let typicalMoves = SliderMoves(typical)
    let colorMoves = SliderMoves(colorOnly)
    let typicalConfig = EditConfig(properties: typical)
    let withoutSharpen = typicalConfig.setting(.sharpness, to: 0)
    let lut = ColorLUT3D(ColorToneTransform(typicalConfig, colorSpace: source.colorSpace))
    let cRef = try CReference(source)
    let cTypical = try CReference(
      typical: source, shadows: typical[.shadows] ?? 0, highlights: typical[.highlights] ?? 0,
      sharpen: 1.5)
    var sink = 0

    let typicalName = "typical edit, one slider moved"
    let sharpMovedName = "typical edit, sharpness moved"
    let sharpSource = source.withUnsafeBytes {
      Image(
        width: source.width, height: source.height, format: source.format,
        colorSpace: source.colorSpace, bytes: $0)
    }
    var sharpStep = 0
    let colorName = "colour-only edit, one slider moved"
    let c1Name = "C reference colour pass, 1 thread"
    let c2Name = "C reference colour pass, 2 threads"
    let cTypicalName = "C reference typical pass, 2 threads"
    let lutName = "stage: colour LUT build (33³, typical)"
    let guideName = "stage: tone guide build"
    let sharpenName = "stage: sharpen (σ = \(String(format: "%.2f", scale)) px)"
    let noSharpName = "render without sharpening"
    let copyName = "stage: image copy (copy-on-write)"
    let lutApplyName = "kernel: colour LUT apply alone"
    // The same table kernel forced to its Swift version, and both on one thread: the C twin is
    // kept only while Swift stays more than 1.5× behind it.
    let vector = ColorLUT3D.vectorKernelAvailable
    let kernelName = vector ? "C twin (AVX-512)" : "Swift (no AVX-512 here)"
    let lutSwiftName = "kernel: colour LUT apply alone, Swift"
    let lut1Name = "kernel: colour LUT apply alone, 1 thread"
    let lutSwift1Name = "kernel: colour LUT apply alone, Swift, 1 thread"
    let fusedName = "kernel: gain, LUT, vignette"
    let fusedSwiftName = "kernel: gain, LUT, vignette, Swift"
    let fused1Name = "kernel: gain, LUT, vignette, 1 thread"
    let fusedSwift1Name = "kernel: gain, LUT, vignette, Swift, 1 thread"
    // A gain and a vignette on every pixel: the shadows/highlights gains of a row of the photo
    // and the vignette of a row near the top (outside its inner ellipse).
    let fusedGains: [Float] = {
      var g = [Float](repeating: 1, count: source.width)
      let guide = ToneGuide(image: source)
      let sampler = ToneGuide.Sampler(
        guide: guide, outputWidth: source.width, outputHeight: source.height)
      let tone = LocalToneCurve(
        shadows: typical[.shadows] ?? 0, highlights: typical[.highlights] ?? 0)
      sampler.fillRow(y: source.height / 2, layer: .tone, into: &g)
      return g.map { tone.gain(base: $0) }
    }()
    let fusedVignette: [Float] = {
      var v = [Float](repeating: 1, count: source.width)
      VignetteMask(amount: typical[.vignette] ?? 0, width: source.width, height: source.height)
        .fillRow(y: source.height / 10, into: &v)
      return v
    }()
    /// The fused pass on an un-shared copy of the source, timed without the copy.
    func fusedApply(_ name: String, threads: Int?, vectorKernel: Bool) -> BenchCase {
      BenchCase(name: name, owner: "Retouch") {
        var copy = source
        copy.withUnsafeMutableBytes { _ in }
        let start = now()
        lut.applyFused(
          to: &copy, gains: fusedGains, vignette: fusedVignette, threads: threads,
          vectorKernel: vectorKernel)
        return (nil, (now() - start) * 1000)
      }
    }
    /// The table applied to an un-shared copy of the source, timed without the copy.
    func lutApply(_ name: String, threads: Int?, vectorKernel: Bool) -> BenchCase {
      BenchCase(name: name, owner: "Retouch") {
        var copy = source
        copy.withUnsafeMutableBytes { _ in }
        let start = now()
        lut.apply(to: &copy, threads: threads, vectorKernel: vectorKernel)
        return (nil, (now() - start) * 1000)
      }
    }
    let plusVignetteName = "render: colour-only + vignette"
    let plusToneName = "render: colour-only + highlights, shadows"
    var plusVignette = colorOnly
    plusVignette[.vignette] = typical[.vignette]
    var plusTone = colorOnly
    plusTone[.highlights] = typical[.highlights]
    plusTone[.shadows] = typical[.shadows]
    let cases: [BenchCase] = [
      BenchCase(name: typicalName, owner: "Retouch") {
        sink &+= source.applyingEditConfig(typicalMoves.next(), renderScale: scale).width
        return (nil, nil)
      },
      BenchCase(name: sharpMovedName, owner: "Retouch") {
        // The one slider whose move re-runs the detail stages (sharpening) as well. Its own
        // source, as a second editor would have.
        sharpStep += 1
        let edit = typicalConfig.setting(
          .sharpness, to: (typical[.sharpness] ?? 0) + (sharpStep % 2 == 0 ? 0.01 : -0.01))
        sink &+= sharpSource.applyingEditConfig(edit, renderScale: scale).width
        return (nil, nil)
      },
      BenchCase(name: colorName, owner: "Retouch") {
        sink &+= source.applyingEditConfig(colorMoves.next(), renderScale: scale).width
        return (nil, nil)
      },
      BenchCase(name: c1Name, owner: "C -O3 native") { (nil, cRef.run(threads: 1)) },
      BenchCase(name: c2Name, owner: "C -O3 native") { (nil, cRef.run(threads: 2)) },
      BenchCase(name: cTypicalName, owner: "C -O3 native") { (nil, cTypical.run(threads: 2)) },
      BenchCase(name: lutName, owner: "Retouch") {
        sink &+=
          ColorLUT3D(ColorToneTransform(typicalMoves.config, colorSpace: source.colorSpace)).size
        return (nil, nil)
      },
      BenchCase(name: guideName, owner: "Retouch") {
        sink &+= ToneGuide(image: source).width
        return (nil, nil)
      },
      BenchCase(name: sharpenName, owner: "Retouch") {
        var copy = source
        copy.withUnsafeMutableBytes { _ in }  // un-share before the clock starts
        let start = now()
        Sharpening(amount: typical[.sharpness] ?? 0, renderScale: scale).apply(to: &copy)
        return (nil, (now() - start) * 1000)
      },
      BenchCase(name: copyName, owner: "Retouch") {
        var copy = source
        copy.withUnsafeMutableBytes { sink &+= Int($0[0]) }
        return (nil, nil)
      },
      lutApply(lutApplyName, threads: nil, vectorKernel: true),
      lutApply(lutSwiftName, threads: nil, vectorKernel: false),
      lutApply(lut1Name, threads: 1, vectorKernel: true),
      lutApply(lutSwift1Name, threads: 1, vectorKernel: false),
      fusedApply(fusedName, threads: nil, vectorKernel: true),
      fusedApply(fusedSwiftName, threads: nil, vectorKernel: false),
      fusedApply(fused1Name, threads: 1, vectorKernel: true),
      fusedApply(fusedSwift1Name, threads: 1, vectorKernel: false),
      BenchCase(name: noSharpName, owner: "Retouch") {
        sink &+= source.applyingEditConfig(withoutSharpen, renderScale: scale).width
        return (nil, nil)
      },
      BenchCase(name: plusVignetteName, owner: "Retouch") {
        sink &+=
          source.applyingEditConfig(EditConfig(properties: plusVignette), renderScale: scale).width
        return (nil, nil)
      },
      BenchCase(name: plusToneName, owner: "Retouch") {
        sink &+=
          source.applyingEditConfig(EditConfig(properties: plusTone), renderScale: scale).width
        return (nil, nil)
      },
    ]
    let results = try roundRobin(cases, runs: runs, warmup: 3)
    func m(_ name: String) -> Double { results.first { $0.name == name }?.samples.median ?? .nan }
    let main = results.filter {
      [typicalName, sharpMovedName, colorName, c1Name, c2Name, cTypicalName].contains($0.name)
    }
    printTable(
      "Preview re-render after one slider move, \(source.size) 8-bit RGB, in memory", main,
      reference: c2Name,
      note: """
        Source decoded once with shrink-on-load (\(shrunk.size)) and resized; each iteration moves \
        one slider by ±0.01 and calls applyingEditConfig(_:renderScale: \
        \(String(format: "%.3f", scale))): LUT, guide, sharpening, fused pass and the output. \
        \(runs) samples, interleaved. The sliders are moved in turn, sharpness one move in 8: \
        the other moves reuse the detail stages' output kept for the source (as an editor's \
        preview does); "sharpness moved" re-runs them every time.
        threads: Retouch \(retouchThreads); C reference as named (per-pixel: decode table, gains, \
        4096-entry tone table, saturation, vignette, encode table); its typical pass adds a 3×3 \
        luma sharpen and local tone (bilinear base from Retouch's tone guide, gain table), without \
        the LUT build Retouch's figure includes (Retouch's tone guide is cached across slider \
        moves of one preview, as an editor re-renders the same source).
        """)
    print(
      String(
        format: "typical: %.1f ms (goal ≤ 16 ms); colour-only: %.1f ms (goal ≤ 5 ms)",
        m(typicalName), m(colorName)))
    print(
      String(
        format: "ours / C reference (2 threads): colour-only %.2f×, typical %.2f× "
          + "(goal ≤ 1.5×); "
          + "ours / C (1 thread): colour-only %.2f×, typical %.2f×",
        m(colorName) / m(c2Name), m(typicalName) / m(c2Name), m(colorName) / m(c1Name),
        m(typicalName) / m(c1Name)))
    print(
      String(
        format:
          "typical / C reference typical pass (2 threads, same per-pixel work): %.2f× (goal ≤ 1.5×)",
        m(typicalName) / m(cTypicalName)))

    let stages = results.filter { !main.map(\.name).contains($0.name) }
    printTable(
      "Where the typical preview's time goes (kernels timed directly, same round robin)", stages,
      reference: noSharpName,
      note: """
        Ratios to the render without sharpening (= copy + LUT build + guide + fused pass). \
        "colour LUT apply alone" is the 8-bit table kernel renders use here: \(kernelName); \
        "Swift" forces its Swift version (the same bytes).
        """)
    print(
      String(
        format: "colour table kernel, Swift / \(kernelName): %.2f× on 2 threads, %.2f× on 1 "
          + "thread (a C kernel is kept only while Swift stays more than 1.5× behind it)",
        m(lutSwiftName) / m(lutApplyName), m(lutSwift1Name) / m(lut1Name)))
    print(
      String(
        format: "gain, table and vignette kernel, Swift / \(kernelName): %.2f× on 2 threads, "
          + "%.2f× on 1 thread (the same rule)",
        m(fusedSwiftName) / m(fusedName), m(fusedSwift1Name) / m(fused1Name)))
    let fused = m(noSharpName) - m(lutName) - m(guideName) - m(copyName)
    print(
      String(
        format:
          "fused per-row pass (local tone, LUT, vignette), derived: render without sharpening "
          + "− LUT build − "
          + "guide − copy = %.1f ms", fused))
    print(
      String(
        format:
          "sum of stages (copy %.1f + LUT %.1f + guide %.1f + sharpen %.1f + fused %.1f) "
          + "= %.1f ms; "
          + "whole typical render %.1f ms", m(copyName), m(lutName), m(guideName), m(sharpenName),
        fused,
        m(copyName) + m(lutName) + m(guideName) + m(sharpenName) + fused, m(typicalName)))
    print(
      String(
        format:
          "inside the fused pass, derived from the variants: vignette row pass %.1f ms "
          + "(= colour-only + vignette − colour-only); local tone row pass %.1f ms "
          + "(= colour-only + highlights, shadows − "
          + "colour-only − guide)", m(plusVignetteName) - m(colorName),
        m(plusToneName) - m(colorName) - m(guideName)))
    if sink == 42 { print("") }  // keeps the results alive
  }

  // MARK: 3. The colour pass at 12 MP against the C reference

  static func reference12MP(_ full: Image, runs: Int) {
    guard let cRef = try? CReference(full) else {
      print("\nC reference: cannot allocate at \(full.size)")
      return
    }
    let color = EditConfig(properties: colorOnly)
    let typicalConfig = EditConfig(properties: typical)
    var sink = 0
    let colorName = "colour-only edit, render"
    let c2Name = "C reference colour pass, 2 threads"
    let cases = [
      BenchCase(name: colorName, owner: "Retouch") {
        sink &+= full.applyingEditConfig(color).width
        return (nil, nil)
      },
      BenchCase(name: "typical edit, render", owner: "Retouch") {
        sink &+= full.applyingEditConfig(typicalConfig).width
        return (nil, nil)
      },
      BenchCase(name: "C reference colour pass, 1 thread", owner: "C -O3 native") {
        (nil, cRef.run(threads: 1))
      },
      BenchCase(name: c2Name, owner: "C -O3 native") { (nil, cRef.run(threads: 2)) },
    ]
    guard let results = try? roundRobin(cases, runs: runs) else { return }
    printTable(
      "Render only (no codec), \(full.size) 8-bit RGB, in memory", results, reference: c2Name,
      note:
        "threads: Retouch \(retouchThreads); C as named. The render includes its output copy; C "
        + "writes a second buffer."
    )
    let ours = results.first { $0.name == colorName }?.samples.median ?? .nan
    let c = results.first { $0.name == c2Name }?.samples.median ?? .nan
    print(
      String(format: "colour-only / C reference (2 threads): %.2f× (goal ≤ 1.5×)", ours / c))
    if sink == 42 { print("") }
  }

  /// The C reference colour pass over one 8-bit RGB image, from its pixels to a buffer of its own.
  final class CReference {
    let plan: OpaquePointer
    let source: UnsafeMutableRawBufferPointer
    let output: UnsafeMutableRawBufferPointer
    /// Scratch for the typical pass's sharpened copy.
    let sharpened: UnsafeMutableRawBufferPointer
    let sharpenAmount: Float

    /// The typical pass: the colour pass plus local tone from `guide` (Retouch's own tone base for
    /// the same image and the same curve) and a 3×3 luma sharpen before it.
    convenience init(typical image: Image, shadows: Double, highlights: Double, sharpen: Float)
      throws
    {
      try self.init(image, sharpen: sharpen)
      let guide = ToneGuide(image: image)
      let base = guide.values(.tone)
      let curve = LocalToneCurve(shadows: shadows, highlights: highlights)
      let table = (0..<4096).map { curve.gain(base: -16 + Float($0) * 20 / 4095) }
      let status = base.withUnsafeBufferPointer { b in
        table.withUnsafeBufferPointer { t in
          var local = rbref_local_tone(
            base: b.baseAddress, base_width: Int32(guide.width), base_height: Int32(guide.height),
            gain_table: t.baseAddress, gain_count: Int32(t.count), lo: -16, hi: 4)
          return rbref_plan_set_local_tone(plan, &local)
        }
      }
      guard status == 0 else { throw BenchError(description: "rbref_plan_set_local_tone failed") }
    }

    convenience init(_ image: Image) throws { try self.init(image, sharpen: 0) }

    init(_ image: Image, sharpen: Float) throws {
      guard image.format.bitDepth == 8, image.format.channelCount == 3 else {
        throw BenchError(description: "C reference needs 8-bit RGB, got \(image.format)")
      }
      var edit = RenderBench.referenceEdit
      guard let p = rbref_plan_create(&edit, Int32(image.width), Int32(image.height)) else {
        throw BenchError(description: "rbref_plan_create failed")
      }
      plan = p
      source = .allocate(byteCount: image.byteCount, alignment: 64)
      output = .allocate(byteCount: image.byteCount, alignment: 64)
      sharpened = .allocate(byteCount: image.byteCount, alignment: 64)
      sharpenAmount = sharpen
      image.withUnsafeBytes { source.copyMemory(from: $0) }
    }

    deinit {
      rbref_plan_destroy(plan)
      source.deallocate()
      output.deallocate()
      sharpened.deallocate()
    }

    /// Runs the pass (sharpen first when the reference has one); returns its milliseconds.
    func run(threads: Int) -> Double {
      let start = now()
      var input = source.baseAddress!.assumingMemoryBound(to: UInt8.self)
      if sharpenAmount > 0 {
        let s = sharpened.baseAddress!.assumingMemoryBound(to: UInt8.self)
        _ = rbref_sharpen_pass(plan, input, s, sharpenAmount, Int32(threads))
        input = s
      }
      _ = rbref_color_pass(
        plan, input, output.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(threads))
      return (now() - start) * 1000
    }
  }

  // MARK: Machine facts

  static func describe(_ p: [EditSettingType: Double]) -> String {
    p.sorted { $0.key < $1.key }.map { "\($0.key.rawValue) \($0.value)" }.joined(separator: ", ")
  }

  static func loadAverage() -> String {
    let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?"
    return text.split(separator: " ").prefix(3).joined(separator: " ")
  }

  static func cpuModel() -> String {
    let text = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
    let model = text.split(separator: "\n").first { $0.hasPrefix("model name") }
      .map {
        $0.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) }
          ?? "?"
      }
    let avx512 = text.contains(" avx512f") ? ", AVX-512" : ""
    return (model ?? "unknown") + avx512
  }
}
