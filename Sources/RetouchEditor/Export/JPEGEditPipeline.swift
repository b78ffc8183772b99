// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchIO
import RetouchRender
import Synchronization

/// JPEG in, edit, JPEG out, with decoding, rendering and encoding overlapped on three threads.
///
/// libjpeg decodes and encodes on one core each; rendering needs a core too. Done one after the
/// other, a 12 MP edit costs decode + render + encode. Here the decoder fills rows, the renderer
/// follows a band behind (its sharpening halo below it), and the encoder follows the renderer,
/// so on two cores the wall time approaches the larger of decode and render + encode.
///
/// An edit with shadows, highlights or clarity needs the tone guide of the whole photo before
/// its pixel pass can start: the decoder then fills the whole image, while the render thread
/// measures each decoded strip for the guide and sharpens behind it
/// (`renderWithGuide(_:header:state:options:)`); the pixel pass follows with the encoder behind.
///
/// The output is byte for byte what decode → ``RetouchRender/RenderPlan`` → encode gives. Only
/// streamable jobs run here (see
/// ``render(_:source:config:decodeOptions:encodeOptions:renderOptions:)``); the rest return nil
/// and the caller takes the plain path.
public enum JPEGEditPipeline {
  /// Rows per render band (and per hand-over between the threads).
  static let bandRows = 64
  /// Rows the ring buffer holds for an edit without a tone guide (a multiple of `bandRows` and
  /// of the decoder's 16-row reads): 512 rows of a 4032-px photo are 6 MB, against 36 MB for the
  /// whole image, so the pipeline touches less fresh memory; the decoder runs ahead of the
  /// renderer by up to that many rows.
  static let ringRows = 512

  /// Renders `config` on a JPEG held in memory and returns the encoded JPEG, or nil when the job
  /// cannot stream: the file is not a plain YCbCr/greyscale JPEG, its EXIF orientation is not 1,
  /// its colour profile needs converting, or the edit has geometry or noise reduction.
  ///
  /// - Throws: ``ImageDecodingError`` or ``ImageEncodingError`` as the plain path would.
  public static func render(
    _ data: Data, source: String, config: EditConfig,
    decodeOptions: DecodeOptions = DecodeOptions(),
    encodeOptions: EncodeOptions = EncodeOptions(), renderOptions: RenderOptions = RenderOptions()
  ) throws -> Output? {
    try run(
      data, source: source, config: config, decodeOptions: decodeOptions,
      encodeOptions: encodeOptions, renderOptions: renderOptions, file: nil)
  }

  /// ``render(_:source:config:decodeOptions:encodeOptions:renderOptions:)`` with the encoded
  /// bytes written to `file` while the encoder makes them (so the write overlaps the encode
  /// instead of following it), then committed in place of its destination. Returns the
  /// decoder's warnings, or nil when the job cannot stream (the file is then left for the
  /// caller to discard or use).
  ///
  /// - Throws: ``ImageDecodingError`` or ``ImageEncodingError`` as the plain path would (the
  ///   file is then discarded).
  public static func render(
    _ data: Data, source: String, config: EditConfig, to file: OutputFile,
    decodeOptions: DecodeOptions = DecodeOptions(),
    encodeOptions: EncodeOptions = EncodeOptions(), renderOptions: RenderOptions = RenderOptions()
  ) throws -> [String]? {
    let output: Output?
    do {
      output = try run(
        data, source: source, config: config, decodeOptions: decodeOptions,
        encodeOptions: encodeOptions, renderOptions: renderOptions, file: file)
    } catch let error as ImageEncodingError {
      file.discard()
      // Named after the file it was writing, not the memory buffer.
      throw ImageEncodingError(
        error.kind, destination: file.destination.lastPathComponent, detail: error.detail)
    } catch {
      file.discard()
      throw error
    }
    guard let output else { return nil }
    try file.commit()
    return output.warnings
  }

  /// Both entry points: `file` nil returns the bytes in ``Output/data``; otherwise they are
  /// written to it and ``Output/data`` is empty.
  static func run(
    _ data: Data, source: String, config: EditConfig, decodeOptions: DecodeOptions,
    encodeOptions: EncodeOptions, renderOptions: RenderOptions, file: OutputFile?
  ) throws -> Output? {
    guard StreamingRender.canStream(config, options: renderOptions),
      ImageFormat.sniff(data) == .jpeg,
      decodeOptions.minimumLongEdge == nil
    else { return nil }
    let state = PipelineState()
    let needsGuide = RenderPlan.needsToneGuide(config)

    let decoder = Thread {
      defer { state.decoderExited() }
      do {
        let jpeg = try JPEGRowDecoder(data, source: source, options: decodeOptions)
        let upright = !decodeOptions.appliesOrientation || jpeg.metadata.orientation == .up
        let color = decodeOptions.convertsColor ? jpeg.colorHandling : (false, .sRGB)
        guard upright, !color.needsConversion else {
          state.stop(nil)
          return
        }
        // An edit with local tone needs the whole photo's guide before its first pixel pass:
        // decode into the whole image (see `renderWithGuide`); others stream through a ring.
        let ring = needsGuide ? jpeg.size.height : min(ringRows, jpeg.size.height)
        let pixels = PixelBlock.allocate(byteCount: ring * jpeg.size.width * 3)
          .bindMemory(to: UInt8.self, capacity: ring * jpeg.size.width * 3)
        state.start(
          Header(
            size: jpeg.size, metadata: jpeg.metadata, colorSpace: color.colorSpace, pixels: pixels,
            ringRows: ring))
        var row = 0
        while row < jpeg.size.height, !state.isStopped {
          // The slots of the next rows must have been encoded (16 rows, not past the ring's end).
          let count = min(16, ring - row % ring, jpeg.size.height - row)
          guard state.wait(encoded: row + count - ring) else { break }
          let n = try jpeg.readRows(
            into: pixels + (row % ring) * jpeg.size.width * 3, stride: jpeg.size.width * 3,
            count: count)
          guard n > 0 else {
            throw ImageDecodingError(
              .corrupt, source: source,
              detail: "the decoder stopped after row \(row) of \(jpeg.size.height).")
          }
          row += n
          state.publish(decoded: row)
        }
        if !state.isStopped {
          try jpeg.finish()
          state.setWarnings(jpeg.warnings)
        }
      } catch {
        state.stop(error)
      }
    }
    decoder.start()

    guard let header = state.waitForHeader() else {
      state.waitForDecoder()
      if let error = state.error { throw error }
      return nil
    }
    let size = header.size

    let target = EncoderTarget(file: file)
    let encoder = Thread {
      defer { state.encoderExited() }
      let file = target.file
      do {
        let jpeg = try JPEGRowEncoder(
          width: size.width, height: size.height, colorSpace: header.colorSpace,
          options: encodeOptions, metadata: header.metadata, writingTo: file)
        var written = 0
        let ring = header.ringRows
        while written < size.height {
          guard let ready = state.wait(rendered: written + 1) else { return }
          while written < ready {
            // Up to the ring's end at a time.
            let count = min(ready - written, ring - written % ring)
            try jpeg.writeRows(
              header.pixels + (written % ring) * size.width * 3, stride: size.width * 3,
              count: count)
            written += count
            state.publish(encoded: written)
          }
        }
        if file != nil {
          _ = try jpeg.finishWritingFile()
          state.setOutput(Data())
        } else {
          state.setOutput(try jpeg.finish())
        }
      } catch {
        state.stop(error)
      }
    }
    encoder.start()
    defer {
      state.waitForDecoder()
      state.waitForEncoder()
      PixelBlock.deallocate(UnsafeMutableRawPointer(header.pixels), byteCount: header.byteCount)
    }

    if needsGuide {
      renderWithGuide(config, header: header, state: state, options: renderOptions)
    } else {
      let renderer = StreamingRender(
        config, width: size.width, height: size.height, colorSpace: header.colorSpace, guide: nil,
        options: renderOptions)
      var top = 0
      var pages = PageMapper(header)
      while top < size.height {
        let bottom = min(size.height, top + bandRows)
        let needed = min(size.height, bottom + renderer.haloRows)
        pages.map(whileWaitingFor: needed, state)
        guard state.wait(decoded: needed) else { break }
        renderer.render(rows: top..<bottom, in: header.pixels, ringRows: header.ringRows)
        state.publish(rendered: bottom)
        top = bottom
      }
    }
    state.waitForEncoder()
    state.waitForDecoder()
    if let error = state.error { throw error }
    guard let data = state.output else { return nil }
    return Output(data: data, warnings: state.warnings)
  }

  /// The render of an edit with local tone (shadows, highlights, clarity), whose pixel pass
  /// needs the tone guide of the whole photo: the decoder fills the whole image while this
  /// thread follows it, measuring each decoded strip for the guide (before it is sharpened) and
  /// sharpening each band once the rows below it have arrived; then the guide is filtered and
  /// the pixel pass runs band by band with the encoder a band behind.
  ///
  /// The guide is the one ``RenderPlan`` builds from the full-size photo, so the output equals
  /// decode → plan → encode byte for byte. Against the previous design (a guide from a separate
  /// 1/8-scale decode, which still Huffman-decodes the whole file, 30–40 ms of CPU on a 12 MP
  /// photo, with the decoder held back by a ring meanwhile): 12 MP typical edit, `retouch
  /// apply` file → file, medians of 11 alternating runs, 220 → 209 ms; CPU 0.36 → 0.31 s; peak
  /// memory 65 → 82 MB (2.2× the 8-bit image). While the decoder runs, measuring and sharpening
  /// stay on this one thread (a second worker only slowed the decoder, which sets the pace); the
  /// pixel pass hands 16-row strips to whichever worker is free, because the encoder thread
  /// takes a core part of the time and fixed halves waited on each other.
  static func renderWithGuide(
    _ config: EditConfig, header: Header, state: PipelineState, options: RenderOptions
  ) {
    let size = header.size
    let (w, h) = (size.width, size.height)
    precondition(header.ringRows == h, "the guide needs the whole image")
    let f = ToneGuide.factor(width: w, height: h)
    let (gw, gh) = ((w + f - 1) / f, (h + f - 1) / f)
    var luminance = [Float](repeating: 0, count: gw * gh)
    let renderer = StreamingRender(
      config, width: w, height: h, colorSpace: header.colorSpace, guide: nil, options: options)
    var measured = 0  // guide rows done
    var top = 0
    var pages = PageMapper(header)
    luminance.withUnsafeMutableBufferPointer { lum in
      while top < h {
        let bottom = min(h, top + bandRows)
        // Every guide row touching the band is measured before the band is sharpened.
        let guideRows = (bottom + f - 1) / f
        let needed = min(h, max(bottom + renderer.haloRows, guideRows * f))
        pages.map(whileWaitingFor: needed, state)
        guard state.wait(decoded: needed) else { return }
        ToneGuide.downscaledLog2Luminance(
          rows: measured..<guideRows, of: header.pixels, width: w, height: h, format: .rgb8,
          colorSpace: header.colorSpace, factor: f, into: lum.baseAddress!, threads: 1)
        measured = guideRows
        // While the decoder runs, this thread alone measures and sharpens (both together take
        // less than the decode): a second worker would only slow the decoder, which sets the pace.
        renderer.sharpen(rows: top..<bottom, in: header.pixels, ringRows: h, threads: 1)
        top = bottom
      }
    }
    guard top == h else { return }  // stopped
    renderer.setGuide(
      ToneGuide(
        log2Luminance: luminance, width: gw, height: gh, factor: f, sourceWidth: w, sourceHeight: h,
        threads: options.threads))
    // Strips of rows handed out in order to every worker as it comes free (the encoder thread
    // takes a core part of the time, so fixed halves would wait on each other); the rows done
    // without a gap above them are published to the encoder.
    let strips = (h + stripRows - 1) / stripRows
    let progress = Mutex((done: [Bool](repeating: false, count: strips), prefix: 0))
    let pixels = SendableRawPointer(UnsafeMutableRawPointer(header.pixels))
    let shared = SharedRenderer(renderer: renderer)
    let next = Atomic<Int>(0)
    let workerCount = max(1, options.threads ?? ProcessInfo.processInfo.activeProcessorCount)
    let finished = DispatchSemaphore(value: 0)
    for _ in 0..<workerCount {
      let worker = Thread {
        defer { finished.signal() }
        yieldToTheEncoder()
        let renderer = shared.renderer
        while !state.isStopped {
          let i = next.wrappingAdd(1, ordering: .relaxed).oldValue
          guard i < strips else { break }
          let rows = i * stripRows..<min(h, (i + 1) * stripRows)
          renderer.applyPixelStages(
            rows: rows, in: pixels.pointer.assumingMemoryBound(to: UInt8.self), ringRows: h,
            threads: 1)
          let ready = progress.withLock { p -> Int in
            p.done[i] = true
            while p.prefix < strips && p.done[p.prefix] { p.prefix += 1 }
            return min(h, p.prefix * stripRows)
          }
          state.publish(rendered: ready)
        }
      }
      worker.start()
    }
    for _ in 0..<workerCount { finished.wait() }
  }

  /// Lowers the calling thread's priority a little (Linux: its own nice value, +4), so that
  /// the encoder thread, which must encode every row in order after the workers render it,
  /// is not left with a backlog to encode alone once they finish. The pixel workers are
  /// threads of the pipeline's own (they end with the job, so nothing needs restoring). 12 MP
  /// typical edit, `retouch apply`: the encoder used to finish 6–12 ms after the last strip
  /// was rendered; 40 alternating runs with the previous build, median 127.8 → 123.7 ms.
  static func yieldToTheEncoder() {
    #if os(Linux)
      // On Linux the nice value is per thread, and `who` 0 names the calling thread.
      let which = __priority_which_t(PRIO_PROCESS.rawValue)
      errno = 0
      let nice = getpriority(which, 0)
      if errno == 0 { _ = setpriority(which, 0, nice + 4) }
    #endif
  }

  /// The file the encoder thread writes to, if any.
  struct EncoderTarget: @unchecked Sendable {
    // Invariant: only the encoder thread writes to the file, and the caller commits or
    // discards it only after that thread has exited (`waitForEncoder`).
    let file: OutputFile?
  }

  /// A renderer whose pixel stages several threads run on disjoint rows.
  struct SharedRenderer: @unchecked Sendable {
    // Invariant: only `applyPixelStages` is called through it, on disjoint rows; that method
    // reads the renderer's immutable state and makes its own scratch.
    let renderer: StreamingRender
  }

  /// The pages of the decoder's rows, mapped ahead of it by the render thread while it waits
  /// for rows: the decoder fills fresh memory on one core (a whole 12 MP image, 36 MB, for an
  /// edit with a tone guide; the ring otherwise) and would stop for the kernel's zeroing of
  /// every page it reaches first, while the render thread is idle about half of the time in
  /// that phase. 12 MP typical edit, `retouch apply` file → file, 30 alternating runs: median
  /// 264 → 234 ms, the decoder done at 64–77 ms instead of 88–98.
  struct PageMapper {
    let base: UnsafeMutableRawPointer
    let byteCount: Int
    var mapped = 0

    init(_ header: Header) {
      base = UnsafeMutableRawPointer(header.pixels)
      byteCount = header.byteCount
    }

    /// Maps the next pages, a huge page at a time, until `rows` rows are decoded or all are
    /// mapped.
    mutating func map(whileWaitingFor rows: Int, _ state: PipelineState) {
      mapped = PixelBlock.populate(base, byteCount: byteCount, from: mapped) {
        !state.hasDecoded(rows)
      }
    }
  }

  /// Rows per strip of the pixel pass in ``renderWithGuide(_:header:state:options:)``.
  static let stripRows = 16

  /// The encoded photo and what the decoder recovered from.
  public struct Output: Sendable {
    public let data: Data
    public let warnings: [String]
  }

  struct Header: @unchecked Sendable {
    // Invariant: `pixels` is written by the decoder thread for rows it has not yet published,
    // by the render thread for rows decoded but not yet published as rendered, and read by the
    // encoder thread for rows published as rendered: one stage touches a row at a time.
    let size: PixelSize
    let metadata: PhotoMetadata
    let colorSpace: ColorSpace
    /// A ring of `ringRows` rows: row `y` lives in slot `y % ringRows` (a ``PixelBlock``).
    let pixels: UnsafeMutablePointer<UInt8>
    let ringRows: Int
    var byteCount: Int { ringRows * size.width * 3 }
  }

  /// The hand-over between the three threads: counters of rows done per stage, the header, the
  /// result and the first error, all guarded by one condition lock.
  final class PipelineState: @unchecked Sendable {
    // Invariant: every stored property is read and written with `condition` locked.
    private let condition = NSCondition()
    private var header: Header?
    private var decoded = 0
    private var rendered = 0
    private var encoded = 0
    private var stopped = false
    private var decoderRunning = true
    private var encoderRunning = true
    private var result: Data?
    private var firstError: (any Error)?
    private var decodeWarnings: [String] = []

    private func locked<T>(_ body: () -> T) -> T {
      condition.lock()
      defer {
        condition.broadcast()
        condition.unlock()
      }
      return body()
    }

    private func wait(until ready: () -> Bool) {
      condition.lock()
      while !ready() { condition.wait() }
      condition.unlock()
    }

    var isStopped: Bool { locked { stopped } }
    var error: (any Error)? { locked { firstError } }
    var output: Data? { locked { result } }
    var warnings: [String] { locked { decodeWarnings } }
    func setWarnings(_ w: [String]) { locked { decodeWarnings = w } }

    func start(_ h: Header) { locked { header = h } }
    func publish(decoded n: Int) { locked { decoded = n } }
    func publish(rendered n: Int) { locked { rendered = max(rendered, n) } }
    func publish(encoded n: Int) { locked { encoded = n } }
    func setOutput(_ data: Data) { locked { result = data } }
    func decoderExited() { locked { decoderRunning = false } }
    func encoderExited() { locked { encoderRunning = false } }

    /// Stops every stage; a nil error means "cannot stream" (the caller falls back).
    func stop(_ e: (any Error)?) {
      locked {
        if firstError == nil, let e { firstError = e }
        stopped = true
      }
    }

    /// The header once the decoder has read it; nil when it stopped first.
    func waitForHeader() -> Header? {
      wait { header != nil || stopped || !decoderRunning }
      return locked { stopped ? nil : header }
    }

    /// Whether `n` rows are decoded or the decoder is done (without waking the other threads).
    func hasDecoded(_ n: Int) -> Bool {
      condition.lock()
      defer { condition.unlock() }
      return decoded >= n || stopped || !decoderRunning
    }

    /// Waits until `n` rows are decoded; false when the pipeline stopped.
    func wait(decoded n: Int) -> Bool {
      wait { decoded >= n || stopped || !decoderRunning }
      return locked { !stopped && decoded >= n }
    }

    /// Waits until `n` rows are encoded (their ring slots free); false when the pipeline stopped.
    func wait(encoded n: Int) -> Bool {
      wait { encoded >= n || stopped || !encoderRunning }
      return locked { !stopped && encoded >= n }
    }

    /// Waits until more than `n - 1` rows are rendered; nil when the pipeline stopped.
    func wait(rendered n: Int) -> Int? {
      wait { rendered >= n || stopped }
      return locked { stopped ? nil : rendered }
    }

    func waitForDecoder() { wait { !decoderRunning } }
    func waitForEncoder() { wait { !encoderRunning } }
  }
}
