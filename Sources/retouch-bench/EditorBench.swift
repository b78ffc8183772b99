// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchEditor
import RetouchIO
import RetouchRender
import Synchronization

/// `retouch-bench editor`: an editing session on a 12 MP JPEG: prepare to the first preview,
/// a committed slider change to its new 2048-px preview, undo/redo, and the full-resolution
/// export against `retouch apply` with the same edit.
enum EditorBench {
  static func run(options: BenchOptions) throws {
    let url = options.inputs.first.map { URL(fileURLWithPath: $0) } ?? options.twelveMegapixelJPEG
    let size = try ImageDecoder().readMetadata(try Data(contentsOf: url)).metadata.pixelSize
    print(
      "\n# editor: \(url.lastPathComponent), \(size.map(\.description) ?? "?"), previews 2048 px")
    print("typical edit (as the render suite): \(RenderBench.describe(RenderBench.typical))")
    print("cpu: \(RenderBench.cpuModel()); load average at start: \(RenderBench.loadAverage())")
    let typical = EditConfig(properties: RenderBench.typical)
    let runs = max(30, options.runs * 5)

    // 1. Prepare to the first preview (a fresh session each time; the background decode of the
    // original is waited for outside the clock so it does not slow the next run), beside the
    // bare shrink-on-load decode it starts with.
    let prepareName = "prepare → first preview"
    let decodeName = "shrink-on-load decode alone (DCT 5/8)"
    let previewName = "FileEditSource.loadPreview (decode + resize)"
    let fileData = try Data(contentsOf: url)
    var shrink = DecodeOptions()
    shrink.minimumLongEdge = 2048
    let prepare = try roundRobin(
      [
        BenchCase(name: prepareName, owner: "Retouch") {
          let controller = EditController()
          let start = now()
          try blocking { () async throws(EditingError) in
            try await controller.prepare(source: FileEditSource(url: url))
          }
          let ms = (now() - start) * 1000
          _ = try blocking { () async throws(EditingError) in try await controller.original() }
          controller.destroy()
          return (nil, ms)
        },
        BenchCase(name: decodeName, owner: "Retouch") {
          _ = try ImageDecoder(options: shrink).decode(fileData)
          return (nil, nil)
        },
        BenchCase(name: previewName, owner: "Retouch") {
          _ = try blocking { () async throws(EditingError) in
            do throws(ImageDecodingError) {
              return try await FileEditSource(url: url).loadPreview(maxDimension: 2048)
            } catch {
              throw EditingError(.unreadablePhoto, detail: error.description)
            }
          }
          return (nil, nil)
        },
      ], runs: options.runs)

    // 2, 3. Slider commits and undo/redo on one prepared session with the typical edit.
    let session = EditController()
    // The same session keeping no previews: its undo and redo render, as any undo does once it
    // goes further back than the kept previews.
    let coldSession = EditController(keptPreviews: 0)
    for s in [session, coldSession] {
      try blocking { () async throws(EditingError) in
        try await s.prepare(source: FileEditSource(url: url), initialConfig: typical)
        _ = try await s.original()
      }
    }
    let sliders = RenderBench.typical.keys.sorted()
    /// The change of the next slider in turn: alternating ±0.01 moves keep the edit within 0.01
    /// of the typical one.
    @Sendable func nextMove(_ counter: borrowing Mutex<Int>) -> EditConfig {
      let i = counter.withLock { s in
        defer { s += 1 }
        return s
      }
      return sliders[i % sliders.count].setting.change(
        by: (i / sliders.count) % 2 == 0 ? 0.01 : -0.01)
    }
    let step = Mutex(0)
    let sliderName = "committed slider change → new preview"
    let undoName = "undo → preview (kept)"
    let redoName = "redo → preview (kept)"
    let coldUndoName = "undo → preview, none kept"
    let coldRedoName = "redo → preview, none kept"
    let coldStep = Mutex(0)
    let bareName = "the same render without a session"
    guard let source = session.originalPreview else { throw BenchError(description: "no preview") }
    let scale = Double(source.size.longEdge) / Double(session.originalSize.longEdge)
    let bareMoves = RenderBench.SliderMoves(RenderBench.typical)
    var sink = 0
    let cases: [BenchCase] = [
      // The floor the session adds to: RenderBench's preview case on the session's own source.
      BenchCase(name: bareName, owner: "Retouch") {
        sink &+= source.rendered(with: bareMoves.next(), renderScale: scale).width
        return (nil, nil)
      },
      BenchCase(name: sliderName, owner: "Retouch") {
        session.addConfig(nextMove(step))
        blockingPreview(session)
        return (nil, nil)
      },
      BenchCase(name: undoName, owner: "Retouch") {
        session.undoConfig()
        blockingPreview(session)
        return (nil, nil)
      },
      BenchCase(name: redoName, owner: "Retouch") {
        session.redoConfig()
        blockingPreview(session)
        return (nil, nil)
      },
      // Each sample commits first (unmeasured), so undo and redo always have a step to take.
      BenchCase(name: coldUndoName, owner: "Retouch") {
        coldSession.addConfig(nextMove(coldStep))
        blockingPreview(coldSession)
        let start = now()
        coldSession.undoConfig()
        blockingPreview(coldSession)
        return (nil, (now() - start) * 1000)
      },
      BenchCase(name: coldRedoName, owner: "Retouch") {
        coldSession.undoConfig()
        blockingPreview(coldSession)
        let start = now()
        coldSession.redoConfig()
        blockingPreview(coldSession)
        return (nil, (now() - start) * 1000)
      },
    ]
    // Undo and redo alternate with commits (which clear redo), so give undo a step to take:
    // each round's shuffled order may run redo with nothing to redo, which is then a no-op
    // render of the same edit, still a full preview.
    let interactive = try roundRobin(cases, runs: runs, warmup: 3)
    if sink == 0 { print("") }

    // 4. Export at full resolution vs retouch apply, file → file, same edit.
    session.setConfig(typical, action: nil)
    let exportOut = options.workDirectory.appendingPathComponent("editor-export.jpg")
    let applyOut = options.workDirectory.appendingPathComponent("editor-apply.jpg").path
    let sets = RenderBench.typical.sorted { $0.key < $1.key }.flatMap {
      ["--set", "\($0.key.rawValue)=\($0.value)"]
    }
    let exportName = "exportData JPEG q90 + write, 12 MP"
    let applyName = "retouch apply, file → file"
    let export = try roundRobin(
      [
        BenchCase(name: exportName, owner: "Retouch") {
          let data = try blocking { () async throws(EditingError) in
            try await session.exportData(quality: 90)
          }
          try data.write(to: exportOut)
          return (nil, nil)
        },
        BenchCase(name: applyName, owner: "Retouch") {
          (
            try runProcess(
              [options.retouchBinary, "apply", url.path, "-o", applyOut, "--quality", "90"] + sets),
            nil
          )
        },
      ], runs: options.runs)
    session.destroy()
    coldSession.destroy()

    printTable(
      "Editing session, 12 MP JPEG, 2048-px previews", prepare + interactive, reference: bareName,
      note: """
        prepare: a new EditController and FileEditSource each run (shrink-on-load preview resized \
        to 2048 px, neutral render), \(options.runs) runs. Ratios to the bare preview render. Slider/undo/redo: one session with the typical edit; each \
        sample commits (or undoes/redoes) and waits for the new preview (settledPreview()), \
        \(runs) samples, interleaved. "(kept)": the session keeps its last 3 previews (the \
        default), so undo and redo show one that exists; "none kept": a session with \
        keptPreviews 0 renders them, as any undo further back than the kept previews does.
        """)
    func m(_ rs: [BenchResult], _ name: String) -> Double {
      rs.first { $0.name == name }?.samples.median ?? .nan
    }
    print(
      String(
        format:
          "prepare: %.1f ms (goal ≤ 250); slider change: %.1f ms (goal ≤ 20); undo %.1f / redo %.1f ms (goal ≤ 20); "
          + "none kept: undo %.1f / redo %.1f ms",
        m(prepare, prepareName), m(interactive, sliderName), m(interactive, undoName),
        m(interactive, redoName),
        m(interactive, coldUndoName), m(interactive, coldRedoName)))
    print(
      String(
        format: "session overhead: slider change / the same render without a session: %.2f×; "
          + "prepare / its shrink-on-load decode: %.2f×",
        m(interactive, sliderName) / m(interactive, bareName),
        m(prepare, prepareName) / m(prepare, decodeName)))
    printTable("Export at full resolution, typical edit", export, reference: applyName)
    print(
      String(
        format: "export / retouch apply: %.2f× (goal ≤ 1.1×)",
        m(export, exportName) / m(export, applyName)))
    print("\nload average at end: \(RenderBench.loadAverage())")
  }

  /// Waits for the session's preview to catch up.
  static func blockingPreview(_ session: EditController) {
    _ = try? blocking { () async throws(EditingError) in await session.settledPreview() }
  }

  /// Runs async work from the synchronous bench and waits for it.
  static func blocking<T: Sendable>(_ work: @escaping @Sendable () async throws(EditingError) -> T)
    throws -> T
  {
    try waitForAsync(work)
  }
}
