// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchIO
import RetouchRender

/// JPEG in, edit, JPEG out, with decoding, rendering and encoding overlapped on three threads.
///
/// libjpeg decodes and encodes on one core each; rendering needs a core too. Done one after the
/// other, a 12 MP edit costs decode + render + encode. Here the decoder fills rows, the renderer
/// follows a band behind (its sharpening halo below it), and the encoder follows the renderer,
/// so on two cores the wall time approaches the larger of decode and render + encode. The tone
/// guide for shadows, highlights and clarity comes from a 1/8-scale DCT decode made while the
/// full decode runs.
///
/// The output is the same as decode → ``RetouchRender/RenderPlan`` → encode, except for that
/// guide (a DCT-scaled copy instead of a box-shrunk one). Only streamable jobs run here (see
/// ``render(_:source:config:decodeOptions:encodeOptions:renderOptions:)``); the rest return nil
/// and the caller takes the plain path.
public enum JPEGEditPipeline {
  /// Rows per render band (and per hand-over between the threads).
  static let bandRows = 64
  /// Rows the ring buffer holds (a multiple of `bandRows` and of the decoder's 16-row reads).
  /// Rendering cannot start before the tone guide exists, and its 1/8-scale decode still
  /// Huffman-decodes the whole file (30–50 ms for a 12 MP photo here); meanwhile the full decode
  /// runs ahead until the ring is full. 1536 rows of a 4032-px photo (18 MB, against 36 MB for
  /// the whole image) let it keep going through that phase; 512 rows stalled it after ~8 ms
  /// (`retouch apply` typical edit, 12 MP: ~10–20 ms faster, peak memory 53 → 65 MB). Not the
  /// whole image: fresh pages cost their zeroing (a third of a 12 MP convert's time once).
  static let ringRows = 1536

  /// Renders `config` on a JPEG held in memory and returns the encoded JPEG, or nil when the job
  /// cannot stream: the file is not a plain YCbCr/greyscale JPEG, its EXIF orientation is not 1,
  /// its colour profile needs converting, or the edit has geometry or noise reduction.
  ///
  /// - Throws: ``ImageDecodingError`` or ``ImageEncodingError`` as the plain path would.
  public static func render(
    _ data: Data, source: String, config: EditConfig, decodeOptions: DecodeOptions = DecodeOptions(),
    encodeOptions: EncodeOptions = EncodeOptions(), renderOptions: RenderOptions = RenderOptions()
  ) throws -> Output? {
    guard StreamingRender.canStream(config, options: renderOptions), ImageFormat.sniff(data) == .jpeg,
      decodeOptions.minimumLongEdge == nil
    else { return nil }
    let state = PipelineState()

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
        let ring = min(ringRows, jpeg.size.height)
        let pixels = UnsafeMutablePointer<UInt8>.allocate(capacity: ring * jpeg.size.width * 3)
        state.start(
          Header(size: jpeg.size, metadata: jpeg.metadata, colorSpace: color.colorSpace, pixels: pixels, ringRows: ring))
        var row = 0
        while row < jpeg.size.height, !state.isStopped {
          // The slots of the next rows must have been encoded (16 rows, not past the ring's end).
          let count = min(16, ring - row % ring, jpeg.size.height - row)
          guard state.wait(encoded: row + count - ring) else { break }
          let n = try jpeg.readRows(
            into: pixels + (row % ring) * jpeg.size.width * 3, stride: jpeg.size.width * 3, count: count)
          guard n > 0 else {
            throw ImageDecodingError(
              .corrupt, source: source, detail: "the decoder stopped after row \(row) of \(jpeg.size.height).")
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

    let encoder = Thread {
      defer { state.encoderExited() }
      do {
        let jpeg = try JPEGRowEncoder(
          width: size.width, height: size.height, colorSpace: header.colorSpace, options: encodeOptions,
          metadata: header.metadata)
        var written = 0
        let ring = header.ringRows
        while written < size.height {
          guard let ready = state.wait(rendered: written + 1) else { return }
          while written < ready {
            // Up to the ring's end at a time.
            let count = min(ready - written, ring - written % ring)
            try jpeg.writeRows(
              header.pixels + (written % ring) * size.width * 3, stride: size.width * 3, count: count)
            written += count
            state.publish(encoded: written)
          }
        }
        state.setOutput(try jpeg.finish())
      } catch {
        state.stop(error)
      }
    }
    encoder.start()
    defer {
      state.waitForDecoder()
      state.waitForEncoder()
      header.pixels.deallocate()
    }

    var guideSource: Image?
    if RenderPlan.needsToneGuide(config) {
      var small = decodeOptions
      small.minimumLongEdge = ToneGuide.defaultMaxLongEdge
      guideSource = try? ImageDecoder(options: small).decode(data, source: source).image
    }
    let renderer = StreamingRender(
      config, width: size.width, height: size.height, colorSpace: header.colorSpace, guideSource: guideSource,
      options: renderOptions)
    var top = 0
    while top < size.height {
      let bottom = min(size.height, top + bandRows)
      guard state.wait(decoded: min(size.height, bottom + renderer.haloRows)) else { break }
      renderer.render(rows: top..<bottom, in: header.pixels, ringRows: header.ringRows)
      state.publish(rendered: bottom)
      top = bottom
    }
    state.waitForEncoder()
    state.waitForDecoder()
    if let error = state.error { throw error }
    guard let data = state.output else { return nil }
    return Output(data: data, warnings: state.warnings)
  }

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
    /// A ring of `ringRows` rows: row `y` lives in slot `y % ringRows`.
    let pixels: UnsafeMutablePointer<UInt8>
    let ringRows: Int
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
    func publish(rendered n: Int) { locked { rendered = n } }
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
