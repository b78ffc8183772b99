// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchAI
import RetouchCore
import RetouchIO
import RetouchRender
import Synchronization

/// The one stateful object of an editing session: the photo, the edit and its undo history,
/// previews that follow every change, suggestions, and the full-resolution export.
///
/// Drives no UI and has no actor isolation: every method may be called from any thread or task.
/// State lives behind one `Mutex`; renders, decodes and the suggestion engine run outside it on
/// `Sendable` snapshots, on detached tasks, so no call blocks on pixel work except the `async`
/// ones that say so.
///
/// Observing: ``states()`` returns an `AsyncStream` of ``EditSessionState`` snapshots, one per
/// change of the committed edit, the shown preview, undo/redo availability or the suggestions
/// (not Observation, which would tie the library to one UI framework's run loop).
///
/// Previews: every change requests a preview of the shown edit at ``previewMaxDimension`` (long
/// edge), rendered from a preview-sized copy of the photo with `renderScale` = preview ÷ original
/// so sharpening, noise reduction and grain look as in the export. Renders are coalesced: while
/// one runs, further requests replace each other and only the newest renders next; a finished
/// render never replaces a preview of a newer request. The last few previews are kept
/// (``keptPreviews``): undo, redo, or a slider dragged back to where it was shows the kept image
/// at once instead of rendering it again. What comes before the per-pixel pass (sharpening,
/// noise reduction, the tone guide) is kept in the session's own ``RenderCache``, so a move of a
/// colour or tone slider re-runs only that pass.
public final class EditController: Sendable {
  /// Renders a preview: (unedited upright preview source, edit, renderScale, options) → image.
  public typealias PreviewRenderer = @Sendable (Image, EditConfig, Double, RenderOptions) -> Image
  /// Proposes suggestions for (photo at preview size, metadata, options).
  public typealias SuggestionProvider =
    @Sendable (Image, PhotoMetadata?, SuggestionOptions) async -> SuggestionResult

  /// The long edge of previews in pixels (default 2048).
  public let previewMaxDimension: Int
  /// How many recently shown previews are kept, so that undo, redo and a slider returned to an
  /// earlier value show them again without rendering (default 3; 0 keeps none). Each costs its
  /// image: about 9.4 MB for a 2048 × 1536 preview.
  public let keptPreviews: Int
  /// What this session's preview renders keep of the preview source between renders (its
  /// sharpened copy and tone guide), apart from other sessions' so that none evicts another's;
  /// emptied by ``destroy()``.
  let renderCache = RenderCache()
  let renderer: PreviewRenderer
  let suggestionProvider: SuggestionProvider
  let learning: any EditLearning
  let state = Mutex(State())
  /// A random identifier of this controller, for the learning record of each photo it edits.
  let sessionID = UUID().uuidString

  /// - Parameters:
  ///   - previewMaxDimension: long edge of previews in pixels, at least 16.
  ///   - renderer: how previews render; the default is `Image.rendered(with:renderScale:options:)`.
  ///     Tests inject a counting or slow one.
  ///   - suggestionProvider: where suggestions come from; the default asks `SuggestionEngine`.
  ///   - learning: told of the first export of the session.
  ///   - keptPreviews: how many recent previews to keep for undo and redo (see
  ///     ``keptPreviews``); negative values count as 0.
  public init(
    previewMaxDimension: Int = 2048, renderer: PreviewRenderer? = nil,
    suggestionProvider: SuggestionProvider? = nil, learning: any EditLearning = NoEditLearning(),
    keptPreviews: Int = 3
  ) {
    self.previewMaxDimension = max(16, previewMaxDimension)
    self.keptPreviews = max(0, keptPreviews)
    self.renderer =
      renderer ?? { image, config, scale, options in
        image.rendered(with: config, renderScale: scale, options: options)
      }
    self.suggestionProvider =
      suggestionProvider ?? { image, metadata, options in
        await SuggestionEngine().suggestionResult(for: image, metadata: metadata, options: options)
      }
    self.learning = learning
  }

  deinit {
    for c in state.withLock({ $0.tearDown() }) { c.finish() }
  }

  // MARK: - State

  struct RenderJob {
    let config: EditConfig
    let generation: Int
    let photo: Int
  }

  struct State: ~Copyable {
    var phase: EditSessionPhase = .idle
    /// Counts prepared photos, so work started for an earlier photo is dropped.
    var photo = 0
    var source: (any EditSource)?
    var metadata: PhotoMetadata?
    var originalSize = PixelSize(width: 1, height: 1)
    var previewSource: Image?
    var previewScale = 1.0
    var depthMap: DepthMap?
    var originalTask: Task<Result<Image, EditingError>, Never>?
    var history = EditHistory()
    /// The whole edit being previewed without being committed.
    var uncommitted: EditConfig?
    var requestedGeneration = 0
    var shownGeneration = 0
    var preview: PreviewImage?
    /// The most recently shown previews of this photo, newest first (at most `keptPreviews`).
    var recentPreviews: [PreviewImage] = []
    var renderRunning = false
    var pendingRender: RenderJob?
    var previewWaiters:
      [(generation: Int, continuation: CheckedContinuation<PreviewImage?, Never>)] = []
    var observers: [UInt64: AsyncStream<EditSessionState>.Continuation] = [:]
    var nextObserver: UInt64 = 0
    var suggestionOptions = SuggestionOptions()
    var suggestions: SuggestionState = .pending
    var aiRequested = false
    var aiTask: Task<Void, Never>?
    var applied: (lookID: String, config: EditConfig)?
    /// The analysis the suggestions were ranked on (for the learning record).
    var suggestionAnalysis: PhotoAnalysis?
    var exportRecorded = false

    var shownConfig: EditConfig { uncommitted ?? history.current }

    var snapshot: EditSessionState {
      EditSessionState(
        phase: phase, currentConfig: history.current, shownConfig: shownConfig, preview: preview,
        canUndo: history.canUndo, canRedo: history.canRedo, hasEdits: history.current.hasEdits,
        suggestions: suggestions)
    }

    func notify() {
      let s = snapshot
      for c in observers.values { c.yield(s) }
    }

    /// Resumes the waiters whose generation is shown (all of them with `force`).
    mutating func resumeWaiters(force: Bool = false) {
      let ready = previewWaiters.filter { force || $0.generation <= shownGeneration }
      previewWaiters.removeAll { force || $0.generation <= shownGeneration }
      for w in ready { w.continuation.resume(returning: force ? nil : preview) }
    }

    /// Cancels the background work and resumes every waiter; returns the observers' streams,
    /// which the caller finishes outside the lock (finishing runs their termination handlers,
    /// which take the lock).
    mutating func tearDown() -> [AsyncStream<EditSessionState>.Continuation] {
      originalTask?.cancel()
      aiTask?.cancel()
      resumeWaiters(force: true)
      defer { observers = [:] }
      return Array(observers.values)
    }
  }

  // MARK: - Observing

  /// A stream of snapshots: the current one at once, then one after every change (edits,
  /// previews, undo/redo, suggestions, phase). Buffers only the newest snapshot, so a slow
  /// reader skips intermediate ones. Ends when the session is destroyed or the stream is
  /// dropped.
  public func states() -> AsyncStream<EditSessionState> {
    let (stream, continuation) = AsyncStream.makeStream(
      of: EditSessionState.self, bufferingPolicy: .bufferingNewest(1))
    let id: UInt64? = state.withLock { s in
      if case .destroyed = s.phase { return nil }
      let id = s.nextObserver
      s.nextObserver += 1
      s.observers[id] = continuation
      continuation.yield(s.snapshot)
      return id
    }
    guard let id else {
      continuation.finish()
      return stream
    }
    continuation.onTermination = { [weak self] _ in
      _ = self?.state.withLock { $0.observers.removeValue(forKey: id) }
    }
    return stream
  }

  /// The current snapshot.
  public var currentState: EditSessionState { state.withLock { $0.snapshot } }
  /// The committed edit.
  public var currentConfig: EditConfig { state.withLock { $0.history.current } }
  /// The committed quarter turns and flips.
  public var editRotation: EditRotation { currentConfig.editRotation }
  /// Whether the committed edit changes the photo.
  public var hasEdits: Bool { currentConfig.hasEdits }
  public var canUndo: Bool { state.withLock { $0.history.canUndo } }
  public var canRedo: Bool { state.withLock { $0.history.canRedo } }
  /// The undo history.
  public var history: EditHistory { state.withLock { $0.history } }
  /// The newest finished preview (nil before the first).
  public var preview: PreviewImage? { state.withLock { $0.preview } }
  /// The unedited photo at preview size, upright, for hold-to-compare.
  public var originalPreview: Image? { state.withLock { $0.previewSource } }
  /// The metadata of the photo being edited.
  public var metadata: PhotoMetadata? { state.withLock { $0.metadata } }
  /// The upright full-resolution size of the photo.
  public var originalSize: PixelSize { state.withLock { $0.originalSize } }

  // MARK: - Preparing

  /// Loads the photo from `source` and renders the first preview; returns once it exists.
  ///
  /// The preview comes from `source.loadPreview(maxDimension:)` when the source has a cheap
  /// copy (a JPEG file decodes with DCT scaling), else from the original shrunk. The
  /// full-resolution original then loads in the background for export. Calling it again starts
  /// over with the new photo (history, suggestions and previews reset).
  ///
  /// - Parameter initialConfig: the edit to start from (reopening an earlier edit); undo never
  ///   goes back past it.
  /// - Throws: ``EditingError`` `.unreadablePhoto` when neither preview nor original loads
  ///   (the phase becomes `.failed`), `.destroyed` after ``destroy()``.
  public func prepare(source: any EditSource, initialConfig: EditConfig = .neutral)
    async throws(EditingError)
  {
    let photo: Int = try state.withLock { s throws(EditingError) in
      if case .destroyed = s.phase {
        throw EditingError(
          .destroyed, source: source.name, detail: "the editing session has ended.")
      }
      s.originalTask?.cancel()
      s.aiTask?.cancel()
      s.photo += 1
      s.phase = .preparing
      s.source = source
      s.metadata = nil
      s.previewSource = nil
      s.preview = nil
      s.recentPreviews = []
      s.originalTask = nil
      s.depthMap = nil
      s.history = EditHistory(initial: initialConfig)
      s.uncommitted = nil
      s.suggestions = .pending
      s.suggestionAnalysis = nil
      s.applied = nil
      s.exportRecorded = false
      s.notify()
      return s.photo
    }
    do throws(EditingError) {
      let metadata: PhotoMetadata
      do {
        metadata = try await source.loadMetadata()
      } catch {
        throw EditingError(error)
      }
      var previewImage: Image?
      var fullSize = await source.loadOriginalSize()
      if fullSize != nil {
        do {
          previewImage = try await source.loadPreview(maxDimension: previewMaxDimension)
        } catch {
          throw EditingError(error)
        }
      }
      let depth = await source.loadDepthMap()
      let originalTask = Task.detached { () -> Result<Image, EditingError> in
        do throws(ImageDecodingError) {
          return .success(try await source.loadOriginal())
        } catch {
          return .failure(EditingError(error))
        }
      }
      if previewImage == nil {
        // No cheap copy: the original it is.
        let original = try await originalTask.value.get()
        fullSize = original.size
        previewImage = original.resized(toFitLongEdge: previewMaxDimension)
      }
      guard let previewImage, let fullSize else {
        throw EditingError(
          .unreadablePhoto, source: source.name, detail: "the source gave no image.")
      }
      let accepted = state.withLock { s -> Bool in
        guard s.photo == photo, s.phase == .preparing else { return false }
        s.metadata = metadata
        s.originalSize = fullSize
        s.previewSource = previewImage
        s.previewScale = Double(previewImage.size.longEdge) / Double(max(1, fullSize.longEdge))
        s.depthMap = depth
        s.originalTask = originalTask
        return true
      }
      guard accepted else {
        originalTask.cancel()
        throw EditingError(
          .destroyed, source: source.name, detail: "the session ended or was prepared again.")
      }
      requestPreview()
      _ = await settledPreview()
      let startAI = state.withLock { s -> Bool in
        guard s.photo == photo, s.phase == .preparing else { return false }
        s.phase = .ready
        s.notify()
        return s.aiRequested
      }
      if startAI { processAI() }
    } catch {
      state.withLock { s in
        guard s.photo == photo, s.phase == .preparing else { return }
        s.phase = .failed(error)
        s.suggestions = s.aiRequested ? .unavailable : s.suggestions
        s.notify()
      }
      throw error
    }
  }

  /// The full-resolution upright original, waiting for its background load.
  ///
  /// - Throws: ``EditingError`` `.notPrepared`, `.unreadablePhoto`, `.destroyed`.
  public func original() async throws(EditingError) -> Image {
    let task = try state.withLock { s throws(EditingError) in
      if case .destroyed = s.phase {
        throw EditingError(.destroyed, detail: "the editing session has ended.")
      }
      guard let t = s.originalTask else {
        throw EditingError(.notPrepared, detail: "no photo: call prepare(source:) first.")
      }
      return t
    }
    return try await task.value.get()
  }

  // MARK: - Suggestions

  /// What ``processAI()`` asks for: max suggestions, offering the original, themes, disabled
  /// looks. Set it before calling ``processAI()``.
  public var suggestionOptions: SuggestionOptions {
    get { state.withLock { $0.suggestionOptions } }
    set { state.withLock { $0.suggestionOptions = newValue } }
  }

  /// Where the suggestions are.
  public var suggestionState: SuggestionState { state.withLock { $0.suggestions } }

  /// Asks for suggestions; returns at once. They run on their own once the photo has loaded
  /// (on the unedited preview-size photo); the state goes pending → loading → done or
  /// unavailable (an empty result is `.unavailable`). Calling it again while they run or after
  /// they finished does nothing.
  public func processAI() {
    let job: (Image, PhotoMetadata?, SuggestionOptions, Int)? = state.withLock { s in
      s.aiRequested = true
      guard case .ready = s.phase, case .pending = s.suggestions, let image = s.previewSource else {
        return nil
      }
      s.suggestions = .loading
      s.notify()
      return (image, s.metadata, s.suggestionOptions, s.photo)
    }
    guard let (image, metadata, options, photo) = job else { return }
    let provider = suggestionProvider
    let task = Task.detached { [weak self] in
      let result = await provider(image, metadata, options)
      self?.state.withLock { s in
        guard s.photo == photo, case .loading = s.suggestions else { return }
        let list = result.suggestions
        s.suggestions = Task.isCancelled || list.isEmpty ? .unavailable : .done(list)
        s.suggestionAnalysis = result.analysis
        s.notify()
      }
    }
    state.withLock { s in
      if s.photo == photo { s.aiTask = task }
    }
  }

  /// Waits until the suggestions are done or unavailable and returns that state (`.pending` at
  /// once when ``processAI()`` was not called). A failed `prepare` or ``destroy()`` makes them
  /// unavailable, so this never waits on a session that will not load.
  public func settledSuggestions() async -> SuggestionState {
    let now = suggestionState
    if now.isFinished || !state.withLock({ $0.aiRequested }) { return now }
    for await snapshot in states() where snapshot.suggestions.isFinished {
      return snapshot.suggestions
    }
    return suggestionState
  }

  // MARK: - Edits

  /// Shows `change` on top of the committed edit without committing it (a slider being
  /// dragged): a preview renders, the history does not change. Each call replaces the previous
  /// uncommitted change.
  public func previewConfig(_ change: EditConfig) {
    update { s in s.uncommitted = s.history.current.combined(with: change) }
  }

  /// Drops the uncommitted change, showing the committed edit again.
  public func cancelPreviewConfig() {
    update { s in s.uncommitted = nil }
  }

  /// Commits `change` on top of the edit so far (slider values add: two +0.1 exposures give
  /// 0.2). Consecutive changes of one slider (same `actionType`) merge into one undo step.
  public func addConfig(_ change: EditConfig) {
    update { s in
      s.uncommitted = nil
      s.history.add(change)
    }
  }

  /// Commits a whole edit as one undo step (a reset, or an edit restored from elsewhere).
  public func setConfig(_ config: EditConfig, action: EditActionType? = .revert) {
    update { s in
      s.uncommitted = nil
      s.history.commit(config.with(actionType: .some(action)), action: action)
    }
  }

  /// Steps back one undo step; does nothing when there is none.
  public func undoConfig() {
    update { s in
      s.uncommitted = nil
      s.history.undo()
    }
  }

  /// Steps forward one undone step; does nothing when there is none.
  public func redoConfig() {
    update { s in
      s.uncommitted = nil
      s.history.redo()
    }
  }

  /// Applies a suggestion: every colour and tone setting and the look become the suggestion's
  /// own (earlier slider moves of those are replaced); crop, aspect ratio, straighten, quarter
  /// turns, flips and background blur are kept. One undo step; redo is cleared.
  public func applySuggestion(_ suggestion: EditSuggestion) {
    applySuggestion(config: suggestion.config, lookID: suggestion.lookID)
  }

  /// ``applySuggestion(_:)`` for a bare edit (`lookID` names it for learning).
  public func applySuggestion(config suggestion: EditConfig, lookID: String) {
    update { s in
      s.uncommitted = nil
      let current = s.history.current
      var properties = current.properties.filter { !$0.key.isColorOrTone }
      for (k, v) in suggestion.properties where k.isColorOrTone { properties[k] = v }
      let next = EditConfig(
        properties: properties, crop: current.crop, aspectRatio: current.aspectRatio,
        editRotation: current.editRotation, look: suggestion.look, actionType: .suggestion)
      s.history.commit(next, action: .suggestion)
      s.applied = (lookID, suggestion)
    }
  }

  /// Turns the photo 90° clockwise (the crop turns with it). One undo step.
  public func rotateClockwise() { turn(.rotate90) }
  /// Turns the photo 90° counter-clockwise. One undo step.
  public func rotateCounterclockwise() { turn(.rotate270) }
  /// Mirrors what is shown left–right. One undo step.
  public func flipHorizontally() { turn(.flipped) }
  /// Mirrors what is shown top–bottom. One undo step.
  public func flipVertically() { turn(.rotate180Flipped) }

  /// Sets the crop (unit coordinates of the turned photo) as one undo step.
  public func setCrop(_ crop: NormalizedRect, aspectRatio: EditAspectRatio? = nil) {
    update { s in
      let next = s.history.current.with(
        crop: crop, aspectRatio: aspectRatio, actionType: .some(.crop))
      s.uncommitted = nil
      s.history.commit(next, action: .crop)
    }
  }

  /// Chooses a crop shape: the crop becomes the largest centred rectangle of that shape in the
  /// turned photo (the whole photo for `.original` and `.free`). One undo step.
  public func setAspectRatio(_ ratio: EditAspectRatio) {
    update { s in
      let current = s.history.current
      let turned = current.editRotation.size(
        width: s.originalSize.width, height: s.originalSize.height)
      let crop =
        ratio == .original || ratio == .free
        ? NormalizedRect.full
        : CropGeometry.centeredCrop(
          ratio: ratio.ratio(forImageWidth: turned.width, height: turned.height) ?? 1,
          imageWidth: turned.width, imageHeight: turned.height)
      s.uncommitted = nil
      s.history.commit(
        current.with(crop: crop, aspectRatio: ratio, actionType: .some(.setting(.aspectRatio))),
        action: .setting(.aspectRatio))
    }
  }

  func turn(_ step: EditRotation) {
    update { s in
      let c = s.history.current
      let next = c.with(
        crop: Self.crop(c.crop, after: step),
        aspectRatio: Self.aspectRatio(c.aspectRatio, after: step),
        editRotation: c.editRotation.combined(with: step), actionType: .some(.rotation))
      s.uncommitted = nil
      s.history.commit(next, action: .rotation)
    }
  }

  /// The crop rectangle carried through a turn or flip of what is shown.
  static func crop(_ r: NormalizedRect, after step: EditRotation) -> NormalizedRect {
    var r = r
    if step.isFlipped {
      r = NormalizedRect(x: 1 - r.maxX, y: r.y, width: r.width, height: r.height)
    }
    for _ in 0..<step.quarterTurns {
      // A clockwise turn maps (x, y) to (1 − y, x).
      r = NormalizedRect(x: 1 - r.maxY, y: r.x, width: r.height, height: r.width)
    }
    return r
  }

  /// A fixed ratio turns with the photo (4:3 becomes 3:4 after a quarter turn).
  static func aspectRatio(_ a: EditAspectRatio, after step: EditRotation) -> EditAspectRatio {
    guard step.swapsDimensions else { return a }
    let parts = a.rawValue.split(separator: ":")
    guard parts.count == 2 else { return a }
    return EditAspectRatio(rawValue: "\(parts[1]):\(parts[0])") ?? a
  }

  /// Applies a change to the state, then requests a preview of what is now shown and tells
  /// observers.
  private func update(_ body: (inout State) -> Void) {
    state.withLock { s in
      if case .destroyed = s.phase { return }
      body(&s)
      s.notify()
    }
    requestPreview()
  }

  // MARK: - Previews

  /// Asks for a preview of the shown edit; coalesced with any render in flight.
  private func requestPreview() {
    let start = state.withLock { s -> Bool in
      guard s.previewSource != nil else { return false }
      if case .destroyed = s.phase { return false }
      s.requestedGeneration += 1
      s.pendingRender = RenderJob(
        config: s.shownConfig, generation: s.requestedGeneration, photo: s.photo)
      if s.renderRunning { return false }
      s.renderRunning = true
      return true
    }
    if start {
      Task.detached { [weak self] in self?.renderPending() }
    }
  }

  /// Renders the newest pending request until none is left.
  private func renderPending() {
    while true {
      let next: (RenderJob, Image, Double, RenderOptions, kept: Image?)? = state.withLock { s in
        guard let job = s.pendingRender, let source = s.previewSource, job.photo == s.photo else {
          s.renderRunning = false
          s.pendingRender = nil
          return nil
        }
        s.pendingRender = nil
        var options = RenderOptions()
        options.depthMap = s.depthMap
        options.cache = renderCache
        let kept = s.recentPreviews.first { Self.rendersAlike($0.config, job.config) }?.image
        return (job, source, s.previewScale, options, kept)
      }
      guard let (job, source, scale, options, kept) = next else { return }
      let image = kept ?? renderer(source, job.config, scale, options)
      state.withLock { s in
        // A newer request may already be shown (or the photo changed): never go backwards.
        guard job.photo == s.photo, job.generation > s.shownGeneration else { return }
        if case .destroyed = s.phase { return }
        let preview = PreviewImage(
          image: image, config: job.config, generation: job.generation, renderScale: scale)
        s.preview = preview
        s.shownGeneration = job.generation
        s.recentPreviews.removeAll { Self.rendersAlike($0.config, job.config) }
        s.recentPreviews.insert(preview, at: 0)
        if s.recentPreviews.count > keptPreviews { s.recentPreviews.removeLast() }
        s.resumeWaiters()
        s.notify()
      }
    }
  }

  /// Whether two edits render the same preview: everything but the action that made them.
  static func rendersAlike(_ a: EditConfig, _ b: EditConfig) -> Bool {
    a.properties == b.properties && a.crop == b.crop && a.editRotation == b.editRotation
      && a.aspectRatio == b.aspectRatio && a.look == b.look
  }

  /// Waits until every change requested so far is shown, and returns that preview (nil before
  /// the photo is prepared or after ``destroy()``).
  public func settledPreview() async -> PreviewImage? {
    await withCheckedContinuation { (c: CheckedContinuation<PreviewImage?, Never>) in
      state.withLock { s in
        if case .destroyed = s.phase { return c.resume(returning: nil) }
        guard s.previewSource != nil else { return c.resume(returning: nil) }
        if s.shownGeneration >= s.requestedGeneration { return c.resume(returning: s.preview) }
        s.previewWaiters.append((s.requestedGeneration, c))
      }
    }
  }

  /// The preview a crop screen shows: the committed edit's colour, tone, turns and flips on the
  /// whole photo, without crop, straighten or vignette (those are what the screen adjusts).
  /// Rendered on demand on the calling task (a few tens of ms at 2048 px).
  public func cropScreenPreview() async -> Image? {
    let job: (Image, EditConfig, Double)? = state.withLock { s in
      guard let source = s.previewSource else { return nil }
      if case .destroyed = s.phase { return nil }
      let c = s.history.current
      return (
        source, c.with(properties: c.properties.filter { $0.key != .straighten }, crop: .full),
        s.previewScale
      )
    }
    guard let (source, config, scale) = job else { return nil }
    var options = RenderOptions()
    options.includesVignette = false
    options.cache = renderCache
    return renderer(source, config, scale, options)
  }

  // MARK: - Export

  /// The edit at full resolution, for callers who encode themselves: crop, straighten, turns
  /// and flips, colour, tone and detail, the vignette last.
  ///
  /// - Parameters:
  ///   - config: the edit (default: the committed one).
  ///   - editRotation: replaces the edit's quarter turns and flips when given.
  /// - Throws: ``EditingError`` `.notPrepared`, `.unreadablePhoto`, `.destroyed`.
  public func renderForExport(config: EditConfig? = nil, editRotation: EditRotation? = nil)
    async throws(EditingError) -> Image
  {
    let (edit, depth) = try exportJob(config: config, editRotation: editRotation)
    let original = try await original()
    var options = RenderOptions()
    options.depthMap = depth
    return original.rendered(with: edit, renderScale: 1, options: options)
  }

  /// Encodes the edit at full resolution as JPEG, HEIC, AVIF, WebP or TIFF.
  ///
  /// Metadata is the source's (or `metadata`, with whatever tags the caller added to its EXIF
  /// or XMP blocks) corrected for the new pixels: orientation 1, the new size, the colour
  /// profile of the output, EXIF thumbnail dropped. A JPEG source exported as JPEG with the
  /// source's metadata takes the overlapped decode–render–encode path when the edit allows it
  /// (see `JPEGEditPipeline`); otherwise the original is rendered and encoded. The first
  /// export of a session tells the learning hook.
  ///
  /// - Parameters:
  ///   - config: the edit (default: the committed one).
  ///   - editRotation: replaces the edit's quarter turns and flips when given.
  ///   - quality: 1…100.
  /// - Throws: ``EditingError`` `.exportFailed` (bad quality, encoder failure),
  ///   `.unreadablePhoto`, `.notPrepared`, `.destroyed`.
  public func exportData(
    config: EditConfig? = nil, editRotation: EditRotation? = nil, type: ExportFileType = .jpeg,
    quality: Int = 90, metadata: PhotoMetadata? = nil
  ) async throws(EditingError) -> Data {
    let (edit, depth) = try exportJob(config: config, editRotation: editRotation)
    let (source, sourceMetadata) = state.withLock { ($0.source, $0.metadata) }
    var encodeOptions = EncodeOptions()
    encodeOptions.quality = quality
    guard (1...100).contains(quality) else {
      throw EditingError(.exportFailed, detail: "quality \(quality) is outside 1…100.")
    }
    let keepsSourceMetadata = metadata == nil || metadata == sourceMetadata
    var data: Data?
    if type == .jpeg, keepsSourceMetadata, depth == nil || edit.value(of: .backgroundBlur) == 0,
      let source, let encoded = try? await source.loadEncodedData()
    {
      do {
        data = try JPEGEditPipeline.render(
          encoded, source: source.name, config: edit, encodeOptions: encodeOptions)?.data
      } catch let e as ImageDecodingError {
        throw EditingError(e)
      } catch let e as ImageEncodingError {
        throw EditingError(e)
      } catch {
        throw EditingError(.exportFailed, source: source.name, detail: "\(error)")
      }
    }
    if data == nil {
      let image = try await renderForExport(config: edit)
      do {
        data = try ImageEncoder(options: encodeOptions).encode(
          image, as: type.imageFormat, metadata: metadata ?? sourceMetadata)
      } catch {
        throw EditingError(error)
      }
    }
    recordExport(edit)
    return data ?? Data()
  }

  private func exportJob(config: EditConfig?, editRotation: EditRotation?) throws(EditingError)
    -> (EditConfig, DepthMap?)
  {
    try state.withLock { s throws(EditingError) in
      if case .destroyed = s.phase {
        throw EditingError(.destroyed, detail: "the editing session has ended.")
      }
      guard s.originalTask != nil else {
        throw EditingError(.notPrepared, detail: "no photo: call prepare(source:) first.")
      }
      var edit = config ?? s.history.current
      if let editRotation { edit = edit.with(editRotation: editRotation) }
      return (edit, s.depthMap)
    }
  }

  private func recordExport(_ edit: EditConfig) {
    let record: EditExportRecord? = state.withLock { s in
      guard !s.exportRecorded else { return nil }
      s.exportRecorded = true
      let offered = s.suggestions.suggestions
      return EditExportRecord(
        appliedLookID: s.applied?.lookID, suggestedConfig: s.applied?.config, exportedConfig: edit,
        offeredLookIDs: offered.map(\.lookID), metadata: s.metadata,
        analysis: offered.isEmpty ? nil : s.suggestionAnalysis,
        sessionID: "\(sessionID)-\(s.photo)")
    }
    if let record { learning.recordExport(record) }
  }

  // MARK: - Ending

  /// Ends the session: cancels loads, renders and suggestions, frees the photo and previews,
  /// finishes every observer stream and resumes waiters with nil. Later calls to edit do nothing;
  /// exports throw `.destroyed`.
  public func destroy() {
    let streams = state.withLock { s in
      s.phase = .destroyed
      if !s.suggestions.isFinished { s.suggestions = .unavailable }
      s.notify()
      defer {
        s.originalTask = nil
        s.aiTask = nil
        s.previewSource = nil
        s.suggestionAnalysis = nil
        s.preview = nil
        s.recentPreviews = []
        s.pendingRender = nil
        s.source = nil
        s.depthMap = nil
      }
      return s.tearDown()
    }
    renderCache.removeAll()
    for c in streams { c.finish() }
  }
}
