// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchAI
import RetouchCore
import RetouchEditor
import RetouchIO
import RetouchLibrary
import RetouchRender

/// The web editor's ``WebBackend`` on a `PhotoLibrary`, one `EditController` per opened photo.
///
/// Library calls map one to one: the grid is the library's assets by import date, uploads are
/// sniffed and decoded before `importPhotos(from:)` takes them, delete and restore are change
/// requests, thumbnails are the library's own cache, past edits are its edit sessions.
///
/// A session asks the library for a `ContentEditingInput` and prepares an `EditController` by
/// the resume-or-baked-in rule: Retouch's own adjustment data (or a built-in editor's, whose
/// edit the library records as an `EditConfig`) resumes from the original with the sliders where
/// they were; any other editor's edit is worked on baked into its render. Saving exports the
/// edit at full resolution into a `ContentEditingOutput` and commits it with `performChanges`.
///
/// Two sessions on one photo: a save is refused with `.conflict` when the photo's newest
/// revision (edit or revert) is not the one this session opened or last saved, unless the caller
/// overwrites. The check and the commit run without a suspension point between them, so two
/// saves cannot both pass it.
///
/// Isolation: an actor. Library calls block for a file copy and an `fsync` at most (a few ms);
/// decoding, rendering and encoding run off the actor (`nonisolated` async helpers, or the
/// controller's own render tasks) and every method re-checks its session after an `await`.
public actor LibraryBackend: WebBackend {
  /// Sizes and qualities.
  public struct Options: Sendable {
    /// Long edge of editor previews, in pixels.
    public var previewLongEdge = 1280
    /// Long edge of library thumbnails.
    public var thumbnailLongEdge = 320
    /// Long edge of the looks strip's and the suggestions' thumbnails.
    public var lookThumbnailLongEdge = 160
    /// JPEG quality of previews (1…100).
    public var previewQuality = 82
    /// JPEG quality of the renders committed to the library.
    public var saveQuality = 92
    /// Where the sessions' suggestions come from (nil: `SuggestionEngine`); tests inject one.
    public var suggestionProvider: EditController.SuggestionProvider? = nil
    /// The learning file: when set, each session's suggestions follow the records of similar
    /// photos and a save after suggestions adds a record (nil: no learning).
    public var learning: LearningStore? = nil
    /// Most sessions kept open. Each holds its photo decoded at preview size and its renders,
    /// and a page that goes without closing its session (a crashed tab, a killed browser)
    /// would keep it for good: past this many, opening one closes the least recently used
    /// session without unsaved changes (its page is told to open the photo again). Sessions
    /// with unsaved changes are never closed for it.
    public var maxOpenSessions = 16

    public init() {}
  }

  struct Session {
    let assetID: AssetID
    let name: String
    var input: ContentEditingInput
    let controller: EditController
    /// The upright unedited photo at preview size, and its size over the original's.
    var source: Image
    var scale: Double
    var lookBase: Image
    /// The session edits the previous render with the earlier edit baked in (another editor's).
    var onRender: Bool
    var saved: EditConfig
    /// The newest revision id of the asset when this session opened or last saved it (0: none).
    var assetRevision: Int64
    var revision = 0
    var editedJPEG: (revision: Int, jpeg: Data)?
    var originalJPEG: Data?
    var looks: (revision: Int, jpegs: [String: Data]) = (-1, [:])
    /// When the session was last asked for anything (``LibraryBackend/useClock``).
    var lastUse: UInt64 = 0

    /// Whether its edit differs from the one last saved (the last action's kind aside).
    var hasUnsavedChanges: Bool {
      controller.history.current.with(actionType: .some(nil)) != saved.with(actionType: .some(nil))
    }
  }

  private let library: PhotoLibrary
  private let options: Options
  private var sessions: [String: Session] = [:]
  /// Requests still being answered from a session's controller (its suggestions, their
  /// thumbnails, exports), by session, and the controllers of sessions closed meanwhile. A page
  /// being left stops its thumbnails and closes its session, but the requests already on their
  /// way can reach the server after the close: they are answered as if the close came after
  /// them, and the controller is destroyed when the last of them is done. (Previews and look
  /// thumbnails need no controller once started: they render the session's own copy.)
  private var openRequests: [String: Int] = [:]
  private(set) var closedWhileAnswering: [String: EditController] = [:]
  /// Counts session look-ups, to tell which session was used least recently.
  private var useClock: UInt64 = 0

  /// A backend on `library`.
  public init(library: PhotoLibrary, options: Options = Options()) {
    self.library = library
    self.options = options
  }

  // MARK: Library

  public func assets(includeDeleted: Bool) async throws(WebError) -> [AssetSummary] {
    let query = AssetQuery(sort: .importDate, deletion: includeDeleted ? .all : .live)
    return try Self.mapped { () throws(LibraryError) in try library.assets(query) }.map(
      Self.summary)
  }

  public func importAsset(fileName: String, data: Data) async throws(WebError) -> AssetSummary {
    guard let format = ImageFormat.sniff(data.prefix(32)), format.isDecoded else {
      let start = ImageFormat.leadingHex(data.prefix(8), count: 8)
      throw WebError(
        .unsupportedMedia, source: fileName,
        detail:
          "not a JPEG, PNG, HEIC, AVIF, WebP or TIFF image: the file starts with "
          + "\(start.isEmpty ? "nothing" : start).")
    }
    // The library's import reads headers only; an upload must also decode (a truncated or
    // corrupt file is refused here, not found broken when opened).
    try await Self.checkDecodes(data, name: fileName)
    return try await Self.importFile(data, name: fileName, format: format, into: library)
  }

  public func deleteAsset(id: String) async throws(WebError) {
    let asset = try lookUp(id)
    guard !asset.isDeleted else { return }
    try Self.mapped { () throws(LibraryError) in try library.performChanges([.delete(asset.id)]) }
  }

  public func restoreAsset(id: String) async throws(WebError) {
    let asset = try lookUp(id)
    guard asset.isDeleted else { return }
    try Self.mapped { () throws(LibraryError) in try library.performChanges([.restore(asset.id)]) }
  }

  public func thumbnail(assetID: String) async throws(WebError) -> Data {
    let id = try lookUp(assetID).id
    return try await Self.thumbnail(id, longEdge: options.thumbnailLongEdge, in: library)
  }

  public func editSessions() async throws(WebError) -> [EditSessionSummary] {
    let list = try Self.mapped { () throws(LibraryError) in try library.editSessions(limit: 200) }
    var names: [AssetID: String] = [:]
    return list.map { session in
      let name =
        names[session.assetID] ?? (try? library.asset(session.assetID).originalFilename) ?? "photo"
      names[session.assetID] = name
      return EditSessionSummary(
        assetID: String(session.assetID.rawValue), name: name, look: session.look?.look.rawValue,
        settings: Dictionary(
          uniqueKeysWithValues: session.sliderValues.map { ($0.key.rawValue, $0.value) }),
        savedAt: session.date.timeIntervalSince1970, revision: Int(session.id))
    }
  }

  // MARK: Sessions

  public func openSession(assetID: String) async throws(WebError) -> SessionState {
    let asset = try lookUp(assetID)
    guard !asset.isDeleted else {
      throw WebError(
        .notFound, source: assetID, detail: "the photo is deleted; restore it to edit it.")
    }
    let opened = try await Self.open(asset, in: library, options: options)
    let id = AccessGuard.randomHex(bytes: 12)
    sessions[id] = opened
    closeLeastRecentlyUsed(keeping: id)
    return try state(of: id)
  }

  public func state(session: String) async throws(WebError) -> SessionState {
    try state(of: session)
  }

  public func preview(
    session: String, change: EditConfig, commit: Bool, view: PreviewView
  ) async throws(WebError) -> RenderedPreview {
    let s = try lookUpSession(session)
    let current = s.controller.currentConfig
    let target = try Self.applying(change, to: current, source: session)
    if commit {
      // The usual change adds to the edit (and merges with the previous move of its slider); a
      // crop sets crop and aspect ratio outright, and a look at strength 0 is no look.
      if target == current.combined(with: change) {
        s.controller.addConfig(change)
      } else {
        s.controller.setConfig(target, action: change.actionType)
      }
      try bump(session)
    }
    let jpeg: Data
    if view == .edited && (commit || change.actionType != .crop) {
      if !commit { s.controller.previewConfig(change) }
      guard let shown = await s.controller.settledPreview() else {
        throw WebError(.notFound, source: session, detail: "the session was closed.")
      }
      jpeg = try Self.jpeg(shown.image, quality: options.previewQuality)
      if commit, shown.config == target, var after = sessions[session] {
        after.editedJPEG = (after.revision, jpeg)
        sessions[session] = after
      }
    } else {
      let shown = view == .uncropped ? target.with(crop: .full) : target
      jpeg = try await Self.render(s.source, shown, scale: s.scale, quality: options.previewQuality)
    }
    return RenderedPreview(jpeg: jpeg, state: try state(of: session))
  }

  public func currentPreview(session: String, view: PreviewView) async throws(WebError) -> Data {
    let s = try lookUpSession(session)
    switch view {
    case .edited:
      if let hit = s.editedJPEG, hit.revision == s.revision { return hit.jpeg }
      // The controller renders a preview of every committed change itself (and shows a kept
      // one after undo and redo): encode that rather than render the same edit a second time.
      if let shown = await s.controller.settledPreview(),
        shown.config == s.controller.currentConfig
      {
        let jpeg = try Self.jpeg(shown.image, quality: options.previewQuality)
        if var after = sessions[session], after.revision == s.revision {
          after.editedJPEG = (s.revision, jpeg)
          sessions[session] = after
        }
        return jpeg
      }
    case .original:
      if let hit = s.originalJPEG { return hit }
    case .uncropped: break
    }
    let current = s.controller.currentConfig
    let config: EditConfig =
      switch view {
      case .edited: current
      case .uncropped: current.with(crop: .full)
      case .original: .neutral
      }
    let jpeg = try await Self.render(
      s.source, config, scale: s.scale, quality: options.previewQuality)
    if var after = sessions[session] {
      if view == .original { after.originalJPEG = jpeg }
      if view == .edited, after.revision == s.revision { after.editedJPEG = (s.revision, jpeg) }
      sessions[session] = after
    }
    return jpeg
  }

  public func undo(session: String) async throws(WebError) -> SessionState {
    let s = try lookUpSession(session)
    if s.controller.canUndo {
      s.controller.undoConfig()
      try bump(session)
    }
    return try state(of: session)
  }

  public func redo(session: String) async throws(WebError) -> SessionState {
    let s = try lookUpSession(session)
    if s.controller.canRedo {
      s.controller.redoConfig()
      try bump(session)
    }
    return try state(of: session)
  }

  public func lookThumbnail(session: String, look: Look?) async throws(WebError) -> Data {
    let s = try lookUpSession(session)
    let key = look?.rawValue ?? "none"
    if s.looks.revision == s.revision, let hit = s.looks.jpegs[key] { return hit }
    let config = s.controller.currentConfig.with(look: .some(look.map { LookSelection($0) }))
    let scale = s.scale * Double(s.lookBase.size.longEdge) / Double(max(1, s.source.size.longEdge))
    let jpeg = try await Self.render(s.lookBase, config, scale: scale, quality: 75)
    if var after = sessions[session], after.revision == s.revision {
      if after.looks.revision != after.revision { after.looks = (after.revision, [:]) }
      after.looks.jpegs[key] = jpeg
      sessions[session] = after
    }
    return jpeg
  }

  public func suggestions(session: String) async throws(WebError) -> [SuggestionSummary] {
    let controller = try lookUpSession(session).controller
    return try await answering(session) { () async throws(WebError) -> [SuggestionSummary] in
      await Self.settledSuggestions(of: controller).map {
        SuggestionSummary(id: $0.id, title: LocalizedName($0.title), kind: $0.kind.rawValue)
      }
    }
  }

  public func suggestionThumbnail(session: String, id: String) async throws(WebError) -> Data {
    let s = try lookUpSession(session)
    return try await answering(session) { () async throws(WebError) -> Data in
      let suggestion = try await Self.suggestion(id, of: s.controller)
      if let thumbnail = suggestion.thumbnail { return try Self.jpeg(thumbnail, quality: 80) }
      let longEdge = Double(s.lookBase.size.longEdge)
      let scale = s.scale * longEdge / Double(max(1, s.source.size.longEdge))
      return try await Self.render(s.lookBase, suggestion.config, scale: scale, quality: 80)
    }
  }

  public func applySuggestion(session: String, id: String) async throws(WebError) -> SessionState {
    let controller = try lookUpSession(session).controller
    let suggestion = try await Self.suggestion(id, of: controller)
    try lookUpSession(session).controller.applySuggestion(suggestion)
    try bump(session)
    return try state(of: session)
  }

  public func save(session: String, overwrite: Bool) async throws(WebError) -> SessionState {
    let s = try lookUpSession(session)
    try checkNoConflict(s, overwrite: overwrite)
    let config = s.controller.currentConfig
    var output: ContentEditingOutput?
    if config.hasEdits {
      let data: Data
      do {
        data = try await s.controller.exportData(
          config: config, type: .jpeg, quality: options.saveQuality)
      } catch {
        throw WebError(.internalError, source: s.name, detail: error.description)
      }
      var out = ContentEditingOutput(s.input)
      do {
        try data.write(to: out.renderedContentURL, options: .atomic)
      } catch {
        throw WebError(
          .internalError, source: s.name,
          detail: "cannot write the render: \(error.localizedDescription)")
      }
      out.adjustmentData = RetouchEditingController.adjustmentData(for: config)
      output = out
    }
    defer { if let output { try? FileManager.default.removeItem(at: output.renderedContentURL) } }
    // From here to the commit there is no suspension point: the conflict check and the commit
    // are one step for this actor (another process's write is ordered by SQLite's lock).
    guard var after = sessions[session] else {
      throw WebError(.notFound, source: session, detail: "the session was closed.")
    }
    try checkNoConflict(after, overwrite: overwrite)
    let id = after.assetID
    let isEdited = try Self.mapped { () throws(LibraryError) in try library.asset(id).isEdited }
    if let output {
      try Self.mapped { () throws(LibraryError) in
        try library.performChanges([.edit(id, output: output, editConfig: config)])
      }
    } else if isEdited {
      try Self.mapped { () throws(LibraryError) in
        try library.performChanges([.revertToOriginal(id)])
      }
    }
    after.saved = config
    after.assetRevision = try newestRevision(of: id)
    sessions[session] = after
    return try state(of: session)
  }

  public func revert(session: String) async throws(WebError) -> SessionState {
    var s = try lookUpSession(session)
    let id = s.assetID
    try Self.mapped { () throws(LibraryError) in
      if try library.asset(id).isEdited { try library.performChanges([.revertToOriginal(id)]) }
    }
    s.assetRevision = try newestRevision(of: id)
    s.saved = .neutral
    sessions[session] = s
    if s.onRender {
      // The session worked on another editor's render: start over on the original.
      let reopened = try await Self.prepare(
        s.controller, on: s.input.original, config: .neutral, name: s.name, options: options)
      guard var after = sessions[session] else {
        throw WebError(.notFound, source: session, detail: "the session was closed.")
      }
      (after.source, after.scale, after.lookBase) = (
        reopened.source, reopened.scale, reopened.lookBase
      )
      after.editedJPEG = nil
      after.onRender = false
      after.originalJPEG = nil
      sessions[session] = after
    } else {
      s.controller.setConfig(.neutral, action: .revert)
    }
    try bump(session)
    return try state(of: session)
  }

  public func export(session: String, format: ExportFormat, quality: Int) async throws(WebError)
    -> ExportedFile
  {
    let s = try lookUpSession(session)
    let data = try await answering(session) { () async throws(WebError) -> Data in
      do throws(EditingError) {
        return try await s.controller.exportData(type: format.fileType, quality: quality)
      } catch {
        throw WebError(.internalError, source: s.name, detail: error.description)
      }
    }
    let stem = (s.name as NSString).deletingPathExtension
    return ExportedFile(
      data: data, fileName: "\(stem)-edited.\(format.fileExtension)", mimeType: format.mimeType)
  }

  public func closeSession(_ session: String) async throws(WebError) {
    guard let s = sessions.removeValue(forKey: session) else {
      throw WebError(.notFound, source: session, detail: "no such session.")
    }
    retire(session, s.controller)
  }

  /// Ends every session (their renders and loads stop); call after the server has stopped.
  public func closeAllSessions() {
    for s in sessions.values { s.controller.destroy() }
    for controller in closedWhileAnswering.values { controller.destroy() }
    sessions = [:]
    closedWhileAnswering = [:]
  }

  /// Destroys a closed session's controller, or has the last request still being answered for
  /// it do so.
  private func retire(_ session: String, _ controller: EditController) {
    if openRequests[session] == nil {
      controller.destroy()
    } else {
      closedWhileAnswering[session] = controller
    }
  }

  /// Runs `body`, a request answered from `session`'s controller: closing the session meanwhile
  /// does not cut it short (see ``openRequests``).
  private func answering<T>(_ session: String, _ body: () async throws(WebError) -> T)
    async throws(WebError) -> T
  {
    openRequests[session, default: 0] += 1
    defer {
      if let count = openRequests[session], count > 1 {
        openRequests[session] = count - 1
      } else {
        openRequests[session] = nil
        closedWhileAnswering.removeValue(forKey: session)?.destroy()
      }
    }
    return try await body()
  }

  // MARK: State helpers

  private func lookUp(_ id: String) throws(WebError) -> Asset {
    guard let raw = Int64(id) else {
      throw WebError(.notFound, source: id, detail: "no such photo.")
    }
    return try Self.mapped { () throws(LibraryError) in try library.asset(AssetID(raw)) }
  }

  private func lookUpSession(_ id: String) throws(WebError) -> Session {
    guard var s = sessions[id] else {
      throw WebError(
        .notFound, source: id, detail: "no such editing session; open the photo again.")
    }
    useClock += 1
    s.lastUse = useClock
    sessions[id] = s
    return s
  }

  /// Closes the least recently used sessions without unsaved changes, other than `id`, while
  /// more than ``Options/maxOpenSessions`` are open.
  private func closeLeastRecentlyUsed(keeping id: String) {
    let closable = sessions.filter { $0.key != id && !$0.value.hasUnsavedChanges }
      .sorted { $0.value.lastUse < $1.value.lastUse }
    for (key, session) in closable.prefix(max(0, sessions.count - options.maxOpenSessions)) {
      sessions[key] = nil
      retire(key, session.controller)
    }
  }

  /// Counts one committed change of a session's edit.
  private func bump(_ id: String) throws(WebError) {
    var s = try lookUpSession(id)
    s.revision += 1
    sessions[id] = s
  }

  private func state(of id: String) throws(WebError) -> SessionState {
    let s = try lookUpSession(id)
    let history = s.controller.history
    let size = s.controller.originalSize
    return SessionState(
      sessionID: id, assetID: String(s.assetID.rawValue), name: s.name, width: size.width,
      height: size.height,
      config: history.current, canUndo: history.canUndo, canRedo: history.canRedo,
      hasUnsavedChanges: s.hasUnsavedChanges,
      revision: s.revision)
  }

  private func newestRevision(of id: AssetID) throws(WebError) -> Int64 {
    try Self.mapped { () throws(LibraryError) in try library.history(of: id).first?.id ?? 0 }
  }

  private func checkNoConflict(_ s: Session, overwrite: Bool) throws(WebError) {
    guard !overwrite else { return }
    guard try newestRevision(of: s.assetID) == s.assetRevision else {
      throw WebError(
        .conflict, source: s.name,
        detail:
          "this photo was saved from another window after you opened it; save again to replace "
          + "that edit, or reopen the photo to see it.")
    }
  }

  private static func settledSuggestions(of controller: EditController) async -> [EditSuggestion] {
    controller.processAI()
    return await controller.settledSuggestions().suggestions
  }

  private static func suggestion(_ id: String, of controller: EditController)
    async throws(WebError) -> EditSuggestion
  {
    guard let found = await settledSuggestions(of: controller).first(where: { $0.id == id }) else {
      throw WebError(.notFound, source: id, detail: "no such suggestion for this photo.")
    }
    return found
  }

  // MARK: Work off the actor

  /// `change` on top of `base`; a crop action sets crop and aspect ratio outright, and a look at
  /// strength 0 is removed.
  static func applying(_ change: EditConfig, to base: EditConfig, source: String) throws(WebError)
    -> EditConfig
  {
    var result = base.combined(with: change)
    if change.actionType == .crop {
      result = result.with(crop: change.crop, aspectRatio: change.aspectRatio)
    }
    if let look = result.look, look.strength == 0 { result = result.with(look: .some(nil)) }
    do {
      try result.validate(source: source)
    } catch {
      throw WebError(.badRequest, source: source, detail: error.detail)
    }
    return result
  }

  static func summary(_ asset: Asset) -> AssetSummary {
    let size = asset.displaySize ?? PixelSize(width: 0, height: 0)
    return AssetSummary(
      id: String(asset.id.rawValue), name: asset.originalFilename, width: size.width,
      height: size.height,
      format: asset.format.rawValue, isEdited: asset.isEdited, isDeleted: asset.isDeleted,
      importedAt: asset.importDate.timeIntervalSince1970,
      revision: Int(asset.currentRevisionID ?? 0))
  }

  /// Runs a library call, its error as the web error a client understands.
  @discardableResult
  static func mapped<T>(_ body: () throws(LibraryError) -> T) throws(WebError) -> T {
    do {
      return try body()
    } catch {
      let kind: WebError.Kind =
        switch error.kind {
        case .notFound: .notFound
        case .invalidChange: .conflict
        case .badPhoto: .unprocessable
        case .busy: .unavailable
        default: .internalError
        }
      throw WebError(kind, source: error.source, detail: error.detail)
    }
  }

  /// Decodes an upload to prove it is a whole photo: shrunk on load (a JPEG's entropy data is
  /// still read to its end) and refusing truncation, which the lenient default fills in grey.
  nonisolated static func checkDecodes(_ data: Data, name: String) async throws(WebError) {
    var decodeOptions = DecodeOptions()
    decodeOptions.minimumLongEdge = 64
    decodeOptions.strictness = .failOnTruncation
    do {
      _ = try ImageDecoder(options: decodeOptions).decode(data, source: name)
    } catch {
      throw WebError(.unprocessable, source: name, detail: error.description)
    }
  }

  /// Imports `data` through a temporary file named like the upload (the library records the
  /// name); a duplicate gives the asset already there.
  nonisolated static func importFile(
    _ data: Data, name: String, format: ImageFormat, into library: PhotoLibrary
  ) async throws(WebError) -> AssetSummary {
    let cleaned = String(
      (name as NSString).lastPathComponent.unicodeScalars.map {
        CharacterSet.alphanumerics.contains($0) || "-_ .".unicodeScalars.contains($0)
          ? Character($0) : "_"
      }
    ).trimmingCharacters(in: CharacterSet(charactersIn: ". "))
    var stem = (cleaned as NSString).deletingPathExtension
    if stem.isEmpty { stem = "photo" }
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent(
        "retouch-upload-\(AccessGuard.randomHex(bytes: 8))", isDirectory: true)
    let file = folder.appendingPathComponent("\(stem).\(format.fileExtension)")
    defer { try? FileManager.default.removeItem(at: folder) }
    do {
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      try data.write(to: file)
    } catch {
      throw WebError(
        .internalError, source: name,
        detail: "cannot stage the upload: \(error.localizedDescription)")
    }
    let result = try mapped { () throws(LibraryError) in try library.importPhotos(from: [file]) }
    if let asset = result.imported.first { return summary(asset) }
    if let duplicate = result.duplicates.first {
      return summary(
        try mapped { () throws(LibraryError) in try library.asset(duplicate.existing) })
    }
    throw WebError(
      .unprocessable, source: name,
      detail: result.failures.first?.reason ?? "the library refused it.")
  }

  nonisolated static func thumbnail(_ id: AssetID, longEdge: Int, in library: PhotoLibrary)
    async throws(WebError) -> Data
  {
    let url = try mapped { () throws(LibraryError) in
      try library.thumbnailURL(for: id, maxDimension: longEdge)
    }
    do {
      return try Data(contentsOf: url)
    } catch {
      throw WebError(
        .internalError, source: url.lastPathComponent, detail: error.localizedDescription)
    }
  }

  /// A prepared session on `asset`, by the resume-or-baked-in rule.
  nonisolated static func open(_ asset: Asset, in library: PhotoLibrary, options: Options)
    async throws(WebError)
    -> Session
  {
    let id = asset.id
    let (input, revision, newest) = try mapped { () throws(LibraryError) in
      (
        try library.requestContentEditingInput(for: id), try library.currentRevision(of: id),
        try library.history(of: id).first?.id ?? 0
      )
    }
    var photo = input.original
    var config = EditConfig.neutral
    var onRender = false
    do {
      switch try input.base(for: RetouchEditingController()) {
      case .original(let resuming?): config = try RetouchEditingController.config(from: resuming)
      case .original(nil): break
      case .rendered(let render):
        // A built-in editor's edit is an EditConfig too: resume it rather than bake it in.
        if let edit = revision?.editConfig {
          config = edit
        } else {
          photo = render; onRender = true
        }
      }
    } catch {
      throw WebError(.unprocessable, source: asset.originalFilename, detail: error.description)
    }
    var provider = options.suggestionProvider
    var recorder: any EditLearning = NoEditLearning()
    if let store = options.learning {
      recorder = LearningRecorder(store: store)
      if provider == nil {
        // Read per session, so what was saved a moment ago already counts.
        let engine = SuggestionEngine(learning: store)
        provider = { image, metadata, options in
          await engine.suggestionResult(for: image, metadata: metadata, options: options)
        }
      }
    }
    let controller = EditController(
      previewMaxDimension: options.previewLongEdge, suggestionProvider: provider, learning: recorder
    )
    controller.suggestionOptions = SuggestionOptions(
      offerOriginal: true, thumbnailMaxDimension: options.lookThumbnailLongEdge)
    let prepared = try await prepare(
      controller, on: photo, config: config, name: asset.originalFilename, options: options)
    var session = Session(
      assetID: id, name: asset.originalFilename, input: input, controller: controller,
      source: prepared.source,
      scale: prepared.scale, lookBase: prepared.lookBase, onRender: onRender,
      saved: controller.currentConfig,
      assetRevision: newest)
    session.editedJPEG = prepared.firstJPEG.map { (0, $0) }
    return session
  }

  /// What ``prepare(_:on:config:name:options:)`` gives a session.
  struct Prepared {
    /// The upright unedited photo at preview size, and its size over the original's.
    let source: Image
    let scale: Double
    let lookBase: Image
    /// The first preview of the starting edit, as JPEG.
    let firstJPEG: Data?
  }

  /// Prepares `controller` on `photo` (previews by ``ScaledPreviewSource``) and encodes its
  /// first preview.
  nonisolated static func prepare(
    _ controller: EditController, on photo: ContentEditingInput.Photo, config: EditConfig,
    name: String,
    options: Options
  ) async throws(WebError) -> Prepared {
    do {
      try await controller.prepare(
        source: ScaledPreviewSource(photo.editSource), initialConfig: config)
    } catch {
      controller.destroy()
      throw WebError(.unprocessable, source: name, detail: error.description)
    }
    guard let source = controller.originalPreview else {
      throw WebError(.internalError, source: name, detail: "the editing session has no preview.")
    }
    var first: Data?
    if let preview = controller.preview, preview.config == controller.currentConfig {
      first = try jpeg(preview.image, quality: options.previewQuality)
    }
    return Prepared(
      source: source,
      scale: Double(source.size.longEdge) / Double(max(1, controller.originalSize.longEdge)),
      lookBase: source.resized(toFitLongEdge: options.lookThumbnailLongEdge), firstJPEG: first)
  }

  nonisolated static func render(_ image: Image, _ config: EditConfig, scale: Double, quality: Int)
    async throws(WebError)
    -> Data
  {
    let rendered = config.hasEdits ? image.rendered(with: config, renderScale: scale) : image
    return try jpeg(rendered, quality: quality)
  }

  /// A preview or thumbnail as JPEG; transparency shows as a checkerboard.
  nonisolated static func jpeg(_ image: Image, quality: Int) throws(WebError) -> Data {
    var encodeOptions = EncodeOptions()
    encodeOptions.quality = quality
    do {
      return try ImageEncoder(options: encodeOptions).encode(image.overCheckerboard(), as: .jpeg)
    } catch {
      throw WebError(.internalError, source: "<preview>", detail: error.description)
    }
  }
}

extension ExportFormat {
  /// The editing session's file type for this format.
  fileprivate var fileType: ExportFileType {
    switch self {
    case .jpeg: .jpeg
    case .heic: .heic
    case .avif: .avif
    case .webp: .webp
    case .tiff: .tiff
    }
  }
}
