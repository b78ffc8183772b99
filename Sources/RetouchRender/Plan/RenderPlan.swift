// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import Synchronization

/// How a render runs.
public struct RenderOptions: Sendable, Hashable {
  /// Apply the vignette (an editor's crop screen may want it off).
  public var includesVignette = true
  /// Worker threads; `nil` uses every core.
  public var threads: Int? = nil
  /// Grid points per axis of the colour LUT (see ``ColorLUT3D``).
  public var lutSize = ColorLUT3D.defaultSize
  /// Seed of the film grain (the same seed gives the same grain).
  public var grainSeed: UInt64 = 0
  /// The photo's depth map, aligned with the upright source, for background blur (without one,
  /// background blur has no effect).
  public var depthMap: DepthMap? = nil
  /// An extra per-pixel colour function (a style match, say) folded into the colour table
  /// before or after the edit's own colour and tone (see ``ColorStage``); nil for none.
  public var colorStage: ColorStage? = nil
  /// Where a render keeps what comes before its per-pixel pass for the next render of the same
  /// source (see ``RenderCache``); nil uses the one the whole process shares.
  public var cache: RenderCache? = nil

  public init() {}
}

/// What renders of one source keep for the next: the output of the stages before the per-pixel
/// pass (geometry, noise reduction, sharpening) and the tone guide, so that moving a colour or
/// tone slider re-runs only that pass.
///
/// Renders share one cache of two sources unless their ``RenderOptions/cache`` names another.
/// An editing session gives its previews a cache of its own, so that sessions do not evict each
/// other's: with an editor, its crop screen and a second session rendering in turn (the editor
/// benchmark's round robin), the shared cache of two missed on 46 of 205 renders, each miss
/// sharpening the preview again; with a cache per session, 12 of 201 missed (the sharpness
/// moves and first renders).
/// Holds at most `capacity` images of at most 32 MB each (previews; full-size renders are not
/// kept); freed with the last reference to it, or emptied by ``removeAll()``. Thread-safe.
/// Equal only to itself.
public final class RenderCache: Sendable, Hashable {
  let prepass: PrepassCache

  /// The cache renders use when their options name none.
  static let shared = RenderCache(capacity: 2)

  /// - Parameter capacity: how many sources (each with its geometry and detail settings) are
  ///   kept, at least 1.
  public init(capacity: Int = 2) {
    prepass = PrepassCache(capacity: capacity, maxBytes: 32 << 20)
  }

  /// Drops everything kept.
  public func removeAll() { prepass.removeAll() }

  public static func == (a: RenderCache, b: RenderCache) -> Bool { a === b }
  public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// An ``EditConfig`` compiled for one image size and render scale: the few passes that render it.
///
/// Passes, each skipped when its settings are neutral:
/// 0. **Background blur** from the photo's depth map (``RenderOptions/depthMap``), on the upright
///    source where the map is aligned (``BackgroundBlur``).
/// 1. **Geometry** — quarter turns, flips, crop and straighten as one affine warp
///    (``GeometryTransform``); an exact copy for whole-pixel maps.
/// 2. **Noise reduction**, then **sharpening**, in place over row bands with halos, on the
///    display-encoded pixels, before any tone change (so noise is judged as the camera left it
///    and sharpening is not amplified by a later contrast boost).
/// 3. **One fused per-pixel pass** over row bands, each row processed start to finish while it
///    is in cache: local tone and clarity (a linear-light gain from the edge-aware
///    ``ToneGuide``, computed once on a small copy), then every global colour and tone setting
///    and the look through one tetrahedral ``ColorLUT3D``, then the vignette (a linear-light
///    multiplier centred on the cropped output) and film grain last.
///
/// The vignette is applied after every other edit but grain (which sits on the print), centred
/// on the crop.
///
/// `renderScale` is the size of the input relative to the full-resolution photo (0.25 for a
/// quarter-size preview): sharpening, noise reduction and grain work in export pixels, so a
/// preview looks like the export shrunk.
public struct RenderPlan: Sendable {
  public let config: EditConfig
  public let renderScale: Double
  public let options: RenderOptions
  /// The geometry pass, or nil when the plan renders colour and tone only.
  public let geometry: GeometryTransform?
  /// The size of the rendered image.
  public let outputSize: PixelSize

  /// Compiles `config` for an upright input of `sourceSize` pixels.
  ///
  /// - Parameters:
  ///   - includesGeometry: false renders colour, tone and detail only (no crop, turns or
  ///     straighten), as `Image.applyingEditConfig(_:renderScale:includesVignette:)` does.
  public init(
    _ config: EditConfig, sourceSize: PixelSize, renderScale: Double = 1,
    includesGeometry: Bool = true,
    options: RenderOptions = RenderOptions()
  ) {
    self.config = config
    self.renderScale = renderScale > 0 && renderScale.isFinite ? renderScale : 1
    self.options = options
    if includesGeometry {
      let g = GeometryTransform(config: config, sourceSize: sourceSize)
      geometry = g.isIdentity(for: sourceSize) ? nil : g
      outputSize = g.outputSize
    } else {
      geometry = nil
      outputSize = sourceSize
    }
  }

  var vignetteAmount: Double { options.includesVignette ? config.value(of: .vignette) : 0 }

  /// Whether `config` uses the edge-aware tone guide (shadows, highlights or clarity), so a
  /// renderer must build or fetch one.
  public static func needsToneGuide(_ config: EditConfig) -> Bool {
    config.value(of: .shadows) != 0 || config.value(of: .highlights) != 0
      || config.value(of: .clarity) != 0
  }

  /// Renders `image` (which must be the plan's source size; 8 or 16-bit, RGB or RGBA; alpha kept).
  ///
  /// Synchronous, on the calling thread plus the worker threads. Memory: the output image plus,
  /// when the caller keeps `image` alive, one copy of it; guides and tables are small.
  public func render(_ image: consuming Image) -> Image {
    // `consuming`: when the caller passes its last reference, the pixels are edited in place
    // instead of copied (12 MP: saves 36 MB and ~10 ms).
    var source = consume image
    let threads = options.threads
    let blur = BackgroundBlur(amount: config.value(of: .backgroundBlur))
    let depth = blur.isNeutral ? nil : options.depthMap
    let detail = DetailStages(
      noiseReduction: config.value(of: .noiseReduction), sharpness: config.value(of: .sharpness),
      renderScale: renderScale)
    let wantsGuide = Self.needsToneGuide(config)
    // A source the caller keeps (an editor's preview) is rendered again after every slider
    // move: keep what comes before the per-pixel pass (geometry, detail stages, tone guide), so
    // a move of any other slider re-runs only that pass.
    let key: PrepassCache.Key? =
      depth == nil && (geometry != nil || !detail.isNeutral) && !source.holdsUniqueStorage()
      ? PrepassCache.Key(
        content: source.contentIdentity, colorSpace: source.colorSpace, geometry: geometry,
        detail: detail)
      : nil
    var img: Image
    let guide: ToneGuide?
    let prepass = (options.cache ?? .shared).prepass
    if let key, let kept = prepass.entry(for: key, needsGuide: wantsGuide) {
      (img, guide) = kept
    } else {
      if let depth {
        // On the upright source, where the depth map is aligned; geometry follows.
        blur.apply(to: &source, depth: depth, threads: threads)
      }
      if let geometry {
        img = source.warped(by: geometry)
      } else {
        img = consume source
      }
      // The guide describes the photo itself: taken (or found in the cache) before noise
      // reduction and sharpening rewrite the pixels.
      guide = wantsGuide ? ToneGuideCache.shared.guide(for: img, threads: threads) : nil
      img = detail.applied(to: consume img, threads: threads)
      if let key { prepass.keep(img, guide: guide, for: key) }
    }
    let stages = PixelStages(
      config: config, width: img.width, height: img.height, colorSpace: img.colorSpace,
      guide: guide,
      renderScale: renderScale, vignette: vignetteAmount, options: options)
    if stages.isEmpty { return img }
    if !img.holdsUniqueStorage(), stages.runsOutOfPlace(img.format) {
      // Read the shared pixels once into a new image rather than copying them and editing the copy.
      var output = Image(
        uninitializedWidth: img.width, height: img.height, format: img.format,
        colorSpace: img.colorSpace)
      stages.run(from: img, into: &output, threads: threads)
      return output
    }
    stages.run(on: &img, threads: threads)
    return img
  }
}

/// Noise reduction and sharpening: the stages that read neighbouring pixels, run before the
/// per-pixel pass.
struct DetailStages: Hashable, Sendable {
  let noiseReduction: Double
  let sharpness: Double
  let renderScale: Double

  init(noiseReduction: Double, sharpness: Double, renderScale: Double) {
    self.noiseReduction = max(0, min(noiseReduction, 1))
    self.sharpness = max(0, min(sharpness, 1))
    self.renderScale = renderScale
  }

  var isNeutral: Bool { noiseReduction == 0 && sharpness == 0 }

  /// The stages on `image`: in place when the caller passes its only reference, else (for
  /// sharpening alone) from the shared pixels into a new image instead of a copy edited in place.
  func applied(to image: consuming Image, threads: Int?) -> Image {
    var image = image
    if noiseReduction == 0, sharpness > 0, !image.holdsUniqueStorage() {
      return Sharpening(amount: sharpness, renderScale: renderScale).applied(
        to: image, threads: threads)
    }
    apply(to: &image, threads: threads)
    return image
  }

  func apply(to image: inout Image, threads: Int?) {
    if noiseReduction > 0 {
      NoiseReduction(amount: noiseReduction, renderScale: renderScale).apply(
        to: &image, threads: threads)
    }
    if sharpness > 0 {
      Sharpening(amount: sharpness, renderScale: renderScale).apply(to: &image, threads: threads)
    }
  }
}

/// The store behind ``RenderCache``: what comes before the per-pixel pass — geometry, the
/// detail stages' output and the tone guide — for the last sources rendered, so that moving any
/// slider but those re-runs only the fused pass (2048×1536 preview, typical edit: sharpening
/// and the copy it needs are about a fifth of the render; with a crop or straighten, the warp
/// and the guide too).
///
/// Keyed by the source's content identity (storage and version: any write to the source
/// misses), its colour space, the geometry and the detail settings. Holds ``capacity`` entries
/// (an editor's preview and, say, its crop screen), and only images of at most ``maxBytes``
/// (previews; full-size renders are not kept). Thread-safe: the entry sits behind a `Mutex`;
/// the work runs outside it.
final class PrepassCache: Sendable {
  let capacity: Int
  let maxBytes: Int
  struct Key: Hashable {
    let content: ImageContentIdentity
    let colorSpace: ColorSpace
    let geometry: GeometryTransform?
    let detail: DetailStages
  }
  /// Most recently used first.
  private let recent = Mutex<[(key: Key, image: Image, guide: ToneGuide?)]>([])

  init(capacity: Int, maxBytes: Int) {
    self.capacity = max(1, capacity)
    self.maxBytes = maxBytes
  }

  /// Drops every entry.
  func removeAll() { recent.withLock { $0.removeAll() } }

  /// The kept image and guide for `key`; nil when not kept, or kept without the guide a render
  /// now needs.
  func entry(for key: Key, needsGuide: Bool) -> (Image, ToneGuide?)? {
    recent.withLock { list in
      guard let i = list.firstIndex(where: { $0.key == key }), !needsGuide || list[i].guide != nil
      else { return nil }
      let entry = list.remove(at: i)
      list.insert(entry, at: 0)
      return (entry.image, entry.guide)
    }
  }

  /// Keeps `image` (when small enough) and `guide` for `key`, dropping the least recently used
  /// entry beyond ``capacity``.
  func keep(_ image: Image, guide: ToneGuide?, for key: Key) {
    guard image.byteCount <= maxBytes else { return }
    recent.withLock { list in
      list.removeAll { $0.key == key }
      list.insert((key, image, guide), at: 0)
      if list.count > capacity { list.removeLast(list.count - capacity) }
    }
  }
}

/// The fused per-pixel pass: local tone and clarity, the colour LUT, vignette and grain, each
/// row done start to finish while it is in cache.
struct PixelStages: Sendable {
  let localTone: LocalToneCurve?
  /// ``LocalToneCurve/gain(base:)`` tabulated over `toneTableRange` stops (the curve is smooth:
  /// linear interpolation between 4096 knots stays within 1e-5 of it), so a pixel costs a lerp
  /// instead of three smoothsteps and an exp2.
  let toneGainTable: [Float]
  static let toneTableRange: ClosedRange<Float> = -16...4
  /// The gain of every guide pixel (``toneGainTable`` at its base plus the exposure); rows of
  /// gains are bilinearly upsampled from it like the base itself would be.
  let toneGainGrid: [Float]
  /// ``toneGainGrid`` to the power 1/2.4, upsampled alongside it for the fused pass (see
  /// ``FusedFactors``).
  let toneGainRootGrid: [Float]

  /// ``toneGainTable`` at `base` stops, linearly interpolated.
  static func tabulatedGain(_ table: [Float], base: Float) -> Float {
    let range = toneTableRange
    let t = SpatialMath.clamp(
      (base - range.lowerBound) * (4095 / (range.upperBound - range.lowerBound)), 0, 4094.999)
    let i = Int(truncatingIfNeeded: Int32(t))
    return table[i] + (t - Float(i)) * (table[i + 1] - table[i])
  }
  let clarity: Clarity?
  let toneSampler: ToneGuide.Sampler?
  let exposureStops: Float
  let lut: ColorLUT3D?
  let vignette: VignetteMask?
  let grain: GrainField?
  let luma: (r: Float, g: Float, b: Float)

  /// - Parameter guide: the tone guide of the photo before noise reduction and sharpening, used
  ///   when local tone or clarity is set (renders fetch it from ``ToneGuideCache`` or the
  ///   pre-pass cache, so a re-rendered preview reuses it).
  init(
    config: EditConfig, width: Int, height: Int, colorSpace: ColorSpace, guide: ToneGuide?,
    renderScale: Double, vignette amount: Double, options: RenderOptions
  ) {
    let tone = LocalToneCurve(
      shadows: config.value(of: .shadows), highlights: config.value(of: .highlights))
    let clarity = Clarity(amount: config.value(of: .clarity))
    localTone = tone.isNeutral ? nil : tone
    let range = Self.toneTableRange
    toneGainTable =
      tone.isNeutral
      ? []
      : (0..<4096).map { i in
        tone.gain(base: range.lowerBound + Float(i) * (range.upperBound - range.lowerBound) / 4095)
      }
    self.clarity = clarity.isNeutral ? nil : clarity
    exposureStops = Float(config.value(of: .exposure))
    if localTone != nil || self.clarity != nil, let guide {
      toneSampler = ToneGuide.Sampler(guide: guide, outputWidth: width, outputHeight: height)
      // The shadows/highlights gain of every guide pixel (its base moved by the exposure), so a
      // pixel only interpolates a gain.
      let table = toneGainTable, shift = exposureStops
      toneGainGrid =
        tone.isNeutral
        ? [] : guide.values(.tone).map { Self.tabulatedGain(table, base: $0 + shift) }
      // The roots from a table of the gain table's roots (4096 powers per plan, not one per
      // guide pixel), interpolated the same way.
      let roots =
        tone.isNeutral || !ColorLUT3D.vectorKernelAvailable
        ? [] : table.map { Foundation.pow($0, FusedFactors.rootExponent) }
      toneGainRootGrid =
        roots.isEmpty ? [] : guide.values(.tone).map { Self.tabulatedGain(roots, base: $0 + shift) }
    } else {
      toneSampler = nil
      toneGainGrid = []
      toneGainRootGrid = []
    }
    lut = ColorLUTCache.shared.lut(
      for: config, colorSpace: colorSpace, size: options.lutSize, threads: options.threads,
      stage: options.colorStage)
    let v = VignetteMask(amount: max(-1, min(1, amount)), width: width, height: height)
    self.vignette = v.isNeutral ? nil : v
    let grainAmount = max(0, min(1, config.value(of: .grain)))
    grain =
      grainAmount == 0
      ? nil
      : GrainField(
        amount: grainAmount, renderScale: renderScale, outputWidth: width, seed: options.grainSeed)
    luma = colorSpace.lumaWeights
  }

  var isEmpty: Bool { toneSampler == nil && lut == nil && vignette == nil && grain == nil }

  func run(on image: inout Image, threads: Int?) {
    let width = image.width, height = image.height
    let channels = image.format.channelCount
    let eight = image.format.bitDepth == 8
    image.withUnsafeMutableBytes { raw in
      let base = SendableRawPointer(raw.baseAddress!)
      ParallelBands.forEach(rows: height, minimumBandHeight: 16, threads: threads) { rows in
        let scratch = RowScratch(width: width)
        for y in rows {
          let row = base.pointer + y * width * channels * (eight ? 1 : 2)
          processRow(y, row, width: width, channels: channels, eightBit: eight, scratch: scratch)
        }
      }
    }
  }

  /// The colour table when 8-bit rows take the fused pass
  /// (``fusedRow8(_:_:width:channels:lut:scratch:source:)``): a 33-point table, no clarity, no
  /// grain; nil when they take the separate stages.
  var fusedTable: ColorLUT3D? {
    guard clarity == nil, grain == nil, let lut, lut.supportsFused8 else { return nil }
    return lut
  }

  /// Whether ``run(from:into:threads:)`` can write into a new image instead of editing a copy:
  /// 8-bit pixels whose every row takes the fused pass.
  func runsOutOfPlace(_ format: PixelFormat) -> Bool {
    format.bitDepth == 8 && fusedTable != nil
  }

  /// The stages from `source` into `output` (same size and format; every byte written, alpha
  /// copied as it is), so a source the caller keeps is read once instead of copied and then
  /// edited. Only where ``runsOutOfPlace(_:)``.
  func run(from source: Image, into output: inout Image, threads: Int?) {
    precondition(
      runsOutOfPlace(source.format) && source.size == output.size && source.format == output.format)
    guard let lut = fusedTable else { return }
    let width = source.width, height = source.height
    let channels = source.format.channelCount
    source.withUnsafeBytes { src in
      output.withUnsafeMutableBytes { dst in
        let from = SendableRawPointer(UnsafeMutableRawPointer(mutating: src.baseAddress!))
        let to = SendableRawPointer(dst.baseAddress!)
        ParallelBands.forEach(rows: height, minimumBandHeight: 16, threads: threads) { rows in
          let scratch = RowScratch(width: width)
          for y in rows {
            let offset = y * width * channels
            let row = (to.pointer + offset).assumingMemoryBound(to: UInt8.self)
            let input = UnsafePointer((from.pointer + offset).assumingMemoryBound(to: UInt8.self))
            fusedRow8(
              y, row, width: width, channels: channels, lut: lut, scratch: scratch, source: input)
            // The fused pass writes colour only.
            if channels == 4 {
              for x in 0..<width { row[4 &* x &+ 3] = input[4 &* x &+ 3] }
            }
          }
        }
      }
    }
  }

  /// Six float rows of scratch, made once per band (never per row).
  final class RowScratch {
    let tone, clarity, vignette, grain, toneRoot, vignetteRoot: UnsafeMutablePointer<Float>
    private let block: UnsafeMutablePointer<Float>
    init(width: Int) {
      block = UnsafeMutablePointer<Float>.allocate(capacity: 6 * width)
      (tone, clarity, vignette, grain) = (
        block, block + width, block + 2 * width, block + 3 * width
      )
      (toneRoot, vignetteRoot) = (block + 4 * width, block + 5 * width)
    }
    deinit { block.deallocate() }
  }

  /// Runs every per-pixel stage on output row `y` (at `row`, packed 8- or 16-bit), in place.
  func processRow(
    _ y: Int, _ row: UnsafeMutableRawPointer, width: Int, channels: Int, eightBit eight: Bool,
    scratch: RowScratch
  ) {
    if eight, let lut = fusedTable {
      fusedRow8(
        y, row.assumingMemoryBound(to: UInt8.self), width: width, channels: channels, lut: lut,
        scratch: scratch)
      return
    }
    if let sampler = toneSampler {
      if localTone != nil { sampler.fillRow(y: y, values: toneGainGrid, into: scratch.tone) }
      if clarity != nil { sampler.fillRow(y: y, layer: .clarity, into: scratch.clarity) }
      if eight && clarity == nil {
        localGain8(row.assumingMemoryBound(to: UInt8.self), width, channels, scratch.tone)
      } else if eight {
        localGain(
          row.assumingMemoryBound(to: UInt8.self), width, channels, scratch.tone, scratch.clarity)
      } else {
        localGain(
          row.assumingMemoryBound(to: UInt16.self), width, channels, scratch.tone, scratch.clarity)
      }
    }
    if let lut {
      if eight {
        lut.apply8(row, width: width, rows: 0..<1, channels: channels)
      } else {
        lut.apply16(row, width: width, rows: 0..<1, channels: channels)
      }
    }
    if vignette != nil || grain != nil {
      let unit = vignette?.fillRow(y: y, into: scratch.vignette)
      grain?.fillRow(y: y, into: scratch.grain)
      let v = vignette == nil ? nil : scratch.vignette
      let g = grain == nil ? nil : scratch.grain
      if eight, let v, g == nil, let inner = unit, Self.code8RoundTrips {
        // Inside the inner ellipse the multiplier is exactly 1 and 8-bit codes round-trip, so
        // those pixels are left alone.
        let p = row.assumingMemoryBound(to: UInt8.self)
        vignette8(p, inner.lowerBound, channels, v)
        vignette8(
          p + inner.upperBound * channels, width - inner.upperBound, channels, v + inner.upperBound)
      } else if eight {
        finish(row.assumingMemoryBound(to: UInt8.self), width, channels, v, g)
      } else {
        finish(row.assumingMemoryBound(to: UInt16.self), width, channels, v, g)
      }
    }
  }

  /// ``processRow(_:_:width:channels:eightBit:scratch:)`` for 8-bit rows with a colour table
  /// and neither clarity nor grain: local tone, table and vignette in one pass
  /// (``ColorLUT3D/apply8Fused(_:count:channels:gains:vignette:source:vectorKernel:)``), the
  /// vignette skipped inside its inner ellipse, where it is exactly 1.
  ///
  /// - Parameter source: the row to read when it is not `row` itself (nil: in place).
  func fusedRow8(
    _ y: Int, _ row: UnsafeMutablePointer<UInt8>, width: Int, channels: Int, lut: ColorLUT3D,
    scratch: RowScratch, source: UnsafePointer<UInt8>? = nil
  ) {
    // The multipliers' roots only for the C twin, which reads them (see `FusedFactors`).
    let roots = channels == 3 && ColorLUT3D.vectorKernelAvailable
    var gains: FusedFactors?
    if let sampler = toneSampler, localTone != nil {
      if roots {
        sampler.fillRows(
          y: y, toneGainGrid, into: scratch.tone, toneGainRootGrid, into: scratch.toneRoot)
      } else {
        sampler.fillRow(y: y, values: toneGainGrid, into: scratch.tone)
      }
      gains = FusedFactors(
        linear: UnsafePointer(scratch.tone), root: roots ? UnsafePointer(scratch.toneRoot) : nil)
    }
    guard let vignette else {
      lut.apply8Fused(
        row, count: width, channels: channels, gains: gains, vignette: nil, source: source)
      return
    }
    let inner =
      roots
      ? vignette.fillRow(y: y, into: scratch.vignette, roots: scratch.vignetteRoot)
      : vignette.fillRow(y: y, into: scratch.vignette)
    let v = FusedFactors(
      linear: UnsafePointer(scratch.vignette),
      root: roots ? UnsafePointer(scratch.vignetteRoot) : nil)
    func span(_ range: Range<Int>, vignette: Bool) {
      let x = range.lowerBound
      lut.apply8Fused(
        row + x * channels, count: range.count, channels: channels,
        gains: gains?.advanced(by: x), vignette: vignette ? v.advanced(by: x) : nil,
        source: source.map { $0 + x * channels })
    }
    // Left of the inner ellipse, inside it (multiplier 1), right of it.
    span(0..<inner.lowerBound, vignette: true)
    span(inner, vignette: false)
    span(inner.upperBound..<width, vignette: true)
  }

  /// The local gain for one pixel in linear light: the shadows/highlights gain interpolated
  /// from the guide grid (its base moved by the exposure the LUT applies afterwards, so they
  /// judge the exposed photo), times clarity's midtone contrast.
  @inline(__always)
  func gain(_ r: Float, _ g: Float, _ b: Float, toneGain: Float, clarityBase: Float) -> Float {
    var k: Float = localTone == nil ? 1 : toneGain
    if let clarity {
      let y = luma.r * r + luma.g * g + luma.b * b
      k *= clarity.gain(log2Luminance: SpatialMath.log2(max(y, 1.0 / 4096)), base: clarityBase)
    }
    return k
  }

  /// Multiplies each pixel's linear R, G, B by its local gain (see ``gain(_:_:_:toneGain:clarityBase:)``).
  func localGain<C: RenderComponent>(
    _ row: UnsafeMutablePointer<C>, _ width: Int, _ channels: Int,
    _ tone: UnsafeMutablePointer<Float>,
    _ clarityBase: UnsafeMutablePointer<Float>
  ) {
    C.decodeTable.withUnsafeBufferPointer { dec in
      SRGBTables.encodeTable.withUnsafeBufferPointer { enc in
        Self.linearToCode8.withUnsafeBufferPointer { code8 in
          let d = dec.baseAddress!, e = enc.baseAddress!, c8 = code8.baseAddress!
          var p = row
          for x in 0..<width {
            let r = d[p[0].index], g = d[p[1].index], b = d[p[2].index]
            let k = gain(r, g, b, toneGain: tone[x], clarityBase: clarityBase[x])
            p[0] = C(linear: r * k, encodeTable: e, code8: c8)
            p[1] = C(linear: g * k, encodeTable: e, code8: c8)
            p[2] = C(linear: b * k, encodeTable: e, code8: c8)
            p += channels
          }
        }
      }
    }
  }

  /// ``localGain(_:_:_:_:_:)`` for 8-bit rows without clarity: `gains` holds the row's gains
  /// (upsampled from the guide grid), and the decode table is pre-scaled to ``linearToCode8``'s
  /// index (one multiply and one clamp fewer per component; an ulp apart from the unscaled
  /// product, so a rare component may round to the neighbouring code).
  ///
  /// Measured (release, 2048×1536 8-bit, shared 2-core VM): a gain per pixel from a table lerp
  /// of the base cost a sixth of the streaming render; interpolating gains computed once per
  /// guide pixel removes it. Earlier steps: two loops instead of one, then the pre-scaled table
  /// (local tone incl. guide build 31–35 → 22.6–23.5 ms on one thread).
  func localGain8(
    _ row: UnsafeMutablePointer<UInt8>, _ width: Int, _ channels: Int,
    _ gains: UnsafeMutablePointer<Float>
  ) {
    Self.decode8Scaled.withUnsafeBufferPointer { dec in
      Self.linearToCode8.withUnsafeBufferPointer { code8 in
        let d = dec.baseAddress.unsafelyUnwrapped, c8 = code8.baseAddress.unsafelyUnwrapped
        // Gains are positive, so only the top needs a clamp.
        @inline(__always) func code(_ l: Float) -> UInt8 {
          c8[Int(truncatingIfNeeded: SpatialMath.roundToUInt32(l < 16383 ? l : 16383))]
        }
        var p = row
        for x in 0..<width {
          let k = gains[x]
          let r = d[Int(p[0])], g = d[Int(p[1])], b = d[Int(p[2])]
          p[0] = code(r * k)
          p[1] = code(g * k)
          p[2] = code(b * k)
          p += channels
        }
      }
    }
  }

  /// The vignette alone on 8-bit pixels: the pre-scaled decode table times the multiplier indexes
  /// ``linearToCode8`` directly (as ``localGain8(_:_:_:_:)`` does), one multiply and one look-up per
  /// component.
  func vignette8(
    _ row: UnsafeMutablePointer<UInt8>, _ width: Int, _ channels: Int,
    _ multipliers: UnsafeMutablePointer<Float>
  ) {
    guard width > 0 else { return }
    Self.decode8Scaled.withUnsafeBufferPointer { dec in
      Self.linearToCode8.withUnsafeBufferPointer { code8 in
        let d = dec.baseAddress.unsafelyUnwrapped, c8 = code8.baseAddress.unsafelyUnwrapped
        var p = row
        for x in 0..<width {
          // Vignette multipliers are positive (≤ 4 at −1): only the top needs a clamp.
          let m = multipliers[x]
          for c in 0..<3 {
            let l = d[Int(p[c])] * m
            p[c] = c8[Int(truncatingIfNeeded: SpatialMath.roundToUInt32(l < 16383 ? l : 16383))]
          }
          p += channels
        }
      }
    }
  }

  /// Vignette (a linear-light multiplier) and grain (on encoded values).
  func finish<C: RenderComponent>(
    _ row: UnsafeMutablePointer<C>, _ width: Int, _ channels: Int,
    _ vignette: UnsafeMutablePointer<Float>?,
    _ grain: UnsafeMutablePointer<Float>?
  ) {
    C.decodeTable.withUnsafeBufferPointer { dec in
      SRGBTables.encodeTable.withUnsafeBufferPointer { enc in
        Self.linearToCode8.withUnsafeBufferPointer { code8 in
          let d = dec.baseAddress!, e = enc.baseAddress!, c8 = code8.baseAddress!
          var p = row
          if let vignette, grain == nil {
            // The common case: one multiply in linear light and one table look-up per component.
            for x in 0..<width {
              let m = vignette[x]
              for c in 0..<3 { p[c] = C(linear: d[p[c].index] * m, encodeTable: e, code8: c8) }
              p += channels
            }
            return
          }
          for x in 0..<width {
            for c in 0..<3 {
              var v =
                vignette.map { SRGBTables.encodeClamped(d[p[c].index] * $0[x], table: e) }
                ?? p[c].unit
              if let grain { v = GrainField.apply(v, noise: grain[x]) }
              p[c] = C(unit: v)
            }
            p += channels
          }
        }
      }
    }
  }
}

extension PixelStages {
  /// Linear light in 0…1 → 8-bit code, in 16384 steps: one look-up instead of an interpolated
  /// encode and a rounding. Steps are 6.1e-5 of linear light, at most 0.2 code values where
  /// the curve is steepest (near black).
  static let linearToCode8: [UInt8] = (0..<16384).map { i in
    UInt8((SRGBTables.encodeExact(Double(i) / 16383) * 255).rounded())
  }

  /// ``SRGBTables/decode8`` times 16383, the scale of ``linearToCode8``'s index (saves a
  /// multiply per component; the product differs from the unscaled one by at most an ulp).
  static let decode8Scaled: [Float] = SRGBTables.decode8.map { $0 * 16383 }

  /// Whether every 8-bit code survives decode → ``linearToCode8`` unchanged (so a multiplier of
  /// exactly 1 can skip pixels). True for these tables; checked once rather than assumed.
  static let code8RoundTrips: Bool = (0..<256).allSatisfy { v in
    let t = SpatialMath.clamp(SRGBTables.decode8[v], 0, 1) * 16383
    return Int(linearToCode8[Int(SpatialMath.roundToUInt32(t))]) == v
  }
}

/// The last few colour LUTs the renderer built, so renders of a configuration seen a moment ago
/// (undo, redo, a preview and then its export, the same edit on another size) skip the build.
///
/// Keyed by everything ``ColorToneTransform`` reads: the covered settings' values, the look, the
/// colour space and the grid size (the table does not depend on thread count). Holds at most
/// ``capacity`` tables (4 for the shared one) of about 0.9 MB each at 33 points, most recently used first. Thread-safe:
/// the list sits behind a `Mutex`; a table is built outside the lock, so two renders missing the
/// same key at once both build it (the same values) and one copy is kept. A slider drag changes
/// the key on every frame, so it gains nothing here; the build itself is what it waits for.
final class ColorLUTCache: Sendable {
  struct Key: Hashable, Sendable {
    let settings: [EditSettingType: Double]
    let look: LookSelection?
    let colorSpace: ColorSpace
    let size: Int
    let stage: ColorStage?
  }

  /// The cache renders use.
  static let shared = ColorLUTCache(capacity: 4)

  /// Tables kept at most (≥ 1).
  let capacity: Int
  private let recent = Mutex<[(key: Key, lut: ColorLUT3D?)]>([])

  init(capacity: Int) { self.capacity = max(1, capacity) }

  /// The table for `config`'s colour and tone settings and look (with `stage` before or after
  /// them), or nil when they are neutral and there is no stage (the transform is the identity);
  /// built with `threads` workers on a miss.
  func lut(
    for config: EditConfig, colorSpace: ColorSpace, size: Int, threads: Int?,
    stage: ColorStage? = nil
  ) -> ColorLUT3D? {
    let key = Key(
      settings: config.properties.filter { ColorToneTransform.coveredSettings.contains($0.key) },
      look: config.look, colorSpace: colorSpace, size: size, stage: stage)
    let hit: ColorLUT3D?? = recent.withLock { list in
      guard let i = list.firstIndex(where: { $0.key == key }) else { return nil }
      let entry = list.remove(at: i)
      list.insert(entry, at: 0)
      return .some(entry.lut)
    }
    if let hit { return hit }
    let transform = ColorToneTransform(config, colorSpace: colorSpace)
    let lut: ColorLUT3D?
    if let stage {
      lut = ColorLUT3D(size: size, threads: threads, evaluating: stage.composed(with: transform))
    } else {
      lut = transform.isIdentity ? nil : ColorLUT3D(transform, size: size, threads: threads)
    }
    recent.withLock { list in
      list.removeAll { $0.key == key }
      list.insert((key, lut), at: 0)
      if list.count > capacity { list.removeLast(list.count - capacity) }
    }
    return lut
  }

  /// The keys held, most recently used first.
  var keys: [Key] { recent.withLock { $0.map(\.key) } }
}

/// An 8- or 16-bit display-encoded component, as the fused pass reads and writes it.
protocol RenderComponent {
  /// The code for linear light `l` (clamped to 0…1).
  init(linear l: Float, encodeTable: UnsafePointer<Float>, code8: UnsafePointer<UInt8>)
  /// Linear light for every code value.
  static var decodeTable: [Float] { get }
  /// The value rounded from an encoded `v` (clamped to 0…1 first; no trapping conversion).
  init(unit v: Float)
  /// The encoded value in 0…1.
  var unit: Float { get }
  var index: Int { get }
}

extension UInt8: RenderComponent {
  static var decodeTable: [Float] { SRGBTables.decode8 }
  @inline(__always) init(
    linear l: Float, encodeTable: UnsafePointer<Float>, code8: UnsafePointer<UInt8>
  ) {
    let t = SpatialMath.clamp(l, 0, 1) * 16383
    self = code8[Int(truncatingIfNeeded: SpatialMath.roundToUInt32(t))]
  }
  @inline(__always) init(unit v: Float) {
    self = UInt8(truncatingIfNeeded: SpatialMath.roundToUInt32(SpatialMath.clamp(v, 0, 1) * 255))
  }
  @inline(__always) var unit: Float { Float(self) * (1 / 255) }
  @inline(__always) var index: Int { Int(self) }
}

extension UInt16: RenderComponent {
  static var decodeTable: [Float] { SRGBTables.decode16 }
  @inline(__always) init(
    linear l: Float, encodeTable: UnsafePointer<Float>, code8: UnsafePointer<UInt8>
  ) {
    self.init(unit: SRGBTables.encodeClamped(l, table: encodeTable))
  }
  @inline(__always) init(unit v: Float) {
    self = UInt16(truncatingIfNeeded: SpatialMath.roundToUInt32(SpatialMath.clamp(v, 0, 1) * 65535))
  }
  @inline(__always) var unit: Float { Float(self) * (1 / 65535) }
  @inline(__always) var index: Int { Int(self) }
}

extension Image {
  /// Colour, tone and detail of `config` (and its vignette, unless `includesVignette` is false)
  /// at `renderScale`, without crop, straighten, turns or flips.
  ///
  /// `renderScale` is this image's size relative to the full-resolution photo (0.25 for a
  /// quarter-size preview), so sharpening, noise reduction and grain look as they will in the
  /// export.
  public consuming func applyingEditConfig(
    _ config: EditConfig, renderScale: Double = 1, includesVignette: Bool = true
  ) -> Image {
    var options = RenderOptions()
    options.includesVignette = includesVignette
    let plan = RenderPlan(
      config, sourceSize: size, renderScale: renderScale, includesGeometry: false, options: options)
    return plan.render(consume self)
  }

  /// The full render of `config`: turns and flips, crop, straighten, then colour, tone and
  /// detail, with the vignette last and centred on the crop. See ``RenderPlan``.
  public consuming func rendered(
    with config: EditConfig, renderScale: Double = 1, options: RenderOptions = RenderOptions()
  ) -> Image {
    let plan = RenderPlan(config, sourceSize: size, renderScale: renderScale, options: options)
    return plan.render(consume self)
  }
}

/// The last few tone guides, keyed by the contents of the image they were built from
/// (`Image.contentIdentity`: the same pixel block, unwritten since): an editor re-renders the
/// same preview after every slider move, and the guide (3–4 ms at 2048×1536) does not change.
/// Thread-safe behind a `Mutex`; a guide is built outside the lock.
final class ToneGuideCache: Sendable {
  static let shared = ToneGuideCache(capacity: 2)
  let capacity: Int
  struct Key: Hashable {
    let content: ImageContentIdentity
    /// The guide's luminance uses the colour space's weights.
    let colorSpace: ColorSpace
  }
  private let recent = Mutex<[(key: Key, guide: ToneGuide)]>([])

  init(capacity: Int) { self.capacity = max(1, capacity) }

  func guide(for image: Image, threads: Int?) -> ToneGuide {
    let key = Key(content: image.contentIdentity, colorSpace: image.colorSpace)
    if let hit = recent.withLock({ list -> ToneGuide? in
      guard let i = list.firstIndex(where: { $0.key == key }) else { return nil }
      let entry = list.remove(at: i)
      list.insert(entry, at: 0)
      return entry.guide
    }) {
      return hit
    }
    let guide = ToneGuide(image: image, threads: threads)
    recent.withLock { list in
      list.removeAll { $0.key == key }
      list.insert((key, guide), at: 0)
      if list.count > capacity { list.removeLast(list.count - capacity) }
    }
    return guide
  }
}
