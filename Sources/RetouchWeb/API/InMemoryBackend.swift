// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchAI
import RetouchCore
import RetouchEditor
import RetouchIO
import RetouchRender

/// A ``WebBackend`` on a plain folder of photos, with its sessions and undo stacks in memory.
///
/// It really works on files, so the whole web editor can be used end to end before the photo
/// library and the editing session exist: the photos are the JPEG/PNG/HEIC files at the top of
/// `directory`; uploads are written there; deleting moves a file to `.retouch-web/trash`; saving
/// writes the full-resolution render to `.retouch-web/renders/ID.jpg` and the edit as
/// `AdjustmentData` JSON to `.retouch-web/edits/ID.json` (read back at start, so saved edits
/// survive a restart). Originals are never written to.
///
/// Isolation: an actor; decoding, rendering and encoding run off it on `Sendable` snapshots, and
/// every method re-checks the state after such an `await`.
/// Previews: the original decoded once per session with shrink-on-load to about
/// ``Options/previewLongEdge`` and rendered at the matching `renderScale` on every change.
public actor InMemoryBackend: WebBackend {
  /// Sizes and qualities.
  public struct Options: Sendable {
    /// Long edge of editor previews, in pixels.
    public var previewLongEdge = 1280
    /// Long edge of library thumbnails.
    public var thumbnailLongEdge = 320
    /// Long edge of the looks strip's thumbnails.
    public var lookThumbnailLongEdge = 160
    /// JPEG quality of previews (1…100).
    public var previewQuality = 82
    /// JPEG quality of saved renders.
    public var saveQuality = 92

    public init() {}
  }

  /// The identifier of the adjustment data this backend writes (Retouch's own editor format).
  public static let adjustmentFormat = "org.retouch.edit"

  private struct Asset {
    var summary: AssetSummary
    var file: URL
    var edit: EditConfig?
  }

  private struct History {
    var steps: [EditConfig]
    var index = 0
    var mergeKey: EditActionType?
    var current: EditConfig { steps[index] }
    var canUndo: Bool { index > 0 }
    var canRedo: Bool { index < steps.count - 1 }

    /// Pushes a step; consecutive commits of one slider replace the last step instead.
    mutating func commit(_ config: EditConfig, action: EditActionType?) {
      if let action, case .setting = action, action == mergeKey, index > 0, index == steps.count - 1 {
        steps[index] = config
      } else {
        steps.removeSubrange((index + 1)...)
        steps.append(config)
        index += 1
      }
      mergeKey = action
    }
  }

  private struct Session {
    let id: String
    let assetID: String
    let base: Image
    let lookBase: Image
    let fullSize: PixelSize
    let renderScale: Double
    var history: History
    var saved: EditConfig
    /// The asset revision this session last saw (conflict detection on save).
    var assetRevision: Int
    var revision = 0
    var cachedPreview: (revision: Int, jpeg: Data)?
    var lookCache: [String: Data] = [:]
    var lookCacheRevision = -1
    var suggestions: [EditSuggestion]?
  }

  private let directory: URL
  private let stateDirectory: URL
  private let options: Options
  private var assets: [String: Asset] = [:]
  private var sessions: [String: Session] = [:]
  private var savedEdits: [EditSessionSummary] = []
  private var thumbnails: [String: (revision: Int, jpeg: Data)] = [:]

  /// Opens `directory` (created when missing) and lists the photos in it.
  ///
  /// Cost: reads each photo's header (not its pixels).
  /// - Throws: ``WebError`` `.internalError` when the folder cannot be created or read.
  public init(directory: URL, options: Options = Options()) throws(WebError) {
    self.directory = directory
    self.options = options
    stateDirectory = directory.appendingPathComponent(".retouch-web", isDirectory: true)
    let fm = FileManager.default
    let names: [String]
    do {
      for sub in ["trash", "renders", "edits"] {
        try fm.createDirectory(at: stateDirectory.appendingPathComponent(sub), withIntermediateDirectories: true)
      }
      names = try fm.contentsOfDirectory(atPath: directory.path).sorted()
    } catch {
      throw WebError(.internalError, source: directory.lastPathComponent, detail: "cannot use the folder: \(error.localizedDescription)")
    }
    var found: [String: Asset] = [:]
    for name in names where !name.hasPrefix(".") {
      let url = directory.appendingPathComponent(name)
      if let asset = Self.describe(url, name: name, deleted: false) { found[asset.summary.id] = asset }
    }
    let trash = stateDirectory.appendingPathComponent("trash")
    for name in ((try? fm.contentsOfDirectory(atPath: trash.path)) ?? []).sorted() where !name.hasPrefix(".") {
      if let asset = Self.describe(trash.appendingPathComponent(name), name: name, deleted: true) {
        found[asset.summary.id] = asset
      }
    }
    var history: [EditSessionSummary] = []
    for (id, var asset) in found {
      let sidecar = stateDirectory.appendingPathComponent("edits/\(id).json")
      guard let data = try? Data(contentsOf: sidecar),
        let record = try? JSONDecoder().decode(SavedEdit.self, from: data),
        let config = try? EditConfig(json: record.adjustment.data)
      else { continue }
      asset.edit = config
      asset.summary.isEdited = config.hasEdits
      asset.summary.revision = record.revision
      found[id] = asset
      history.append(Self.editSummary(asset.summary, config, savedAt: record.savedAt, revision: record.revision))
    }
    assets = found
    savedEdits = history.sorted { $0.savedAt > $1.savedAt }
  }

  /// What `.retouch-web/edits/ID.json` holds.
  private struct SavedEdit: Codable {
    var adjustment: AdjustmentData
    var savedAt: Double
    var revision: Int
  }

  // MARK: Library

  public func assets(includeDeleted: Bool) async throws(WebError) -> [AssetSummary] {
    assets.values.map(\.summary).filter { includeDeleted || !$0.isDeleted }
      .sorted { ($0.importedAt, $0.name) > ($1.importedAt, $1.name) }
  }

  public func importAsset(fileName: String, data: Data) async throws(WebError) -> AssetSummary {
    guard let format = ImageFormat.sniff(data.prefix(32)), [.jpeg, .png, .heif].contains(format) else {
      let start = ImageFormat.leadingHex(data.prefix(8), count: 8)
      throw WebError(
        .unsupportedMedia, source: fileName,
        detail: "not a JPEG, PNG or HEIC image: the file starts with \(start.isEmpty ? "nothing" : start).")
    }
    do {
      _ = try ImageDecoder().readMetadata(data, source: fileName)
    } catch {
      throw WebError(.unprocessable, source: fileName, detail: error.description)
    }
    let url = uniqueURL(for: fileName, format: format)
    // Written in full under a temporary name, then moved into place (a move never replaces an
    // existing file), so the folder never holds half a photo and nothing is overwritten.
    let temporary = stateDirectory.appendingPathComponent("upload-\(Self.newID())")
    do {
      try data.write(to: temporary)
      try FileManager.default.moveItem(at: temporary, to: url)
    } catch {
      try? FileManager.default.removeItem(at: temporary)
      throw WebError(.internalError, source: fileName, detail: "cannot write the photo: \(error.localizedDescription)")
    }
    guard var asset = Self.describe(url, name: url.lastPathComponent, deleted: false) else {
      try? FileManager.default.removeItem(at: url)
      throw WebError(.unprocessable, source: fileName, detail: "the photo could not be read back.")
    }
    asset.summary.importedAt = Date().timeIntervalSince1970
    assets[asset.summary.id] = asset
    return asset.summary
  }

  public func deleteAsset(id: String) async throws(WebError) {
    var asset = try lookUp(id)
    guard !asset.summary.isDeleted else { return }
    let target = stateDirectory.appendingPathComponent("trash/\(asset.file.lastPathComponent)")
    try move(asset.file, to: target, source: id)
    asset.file = target
    asset.summary.isDeleted = true
    assets[id] = asset
  }

  public func restoreAsset(id: String) async throws(WebError) {
    var asset = try lookUp(id)
    guard asset.summary.isDeleted else { return }
    let target = directory.appendingPathComponent(asset.file.lastPathComponent)
    try move(asset.file, to: target, source: id)
    asset.file = target
    asset.summary.isDeleted = false
    assets[id] = asset
  }

  public func thumbnail(assetID: String) async throws(WebError) -> Data {
    let asset = try lookUp(assetID)
    if let hit = thumbnails[assetID], hit.revision == asset.summary.revision { return hit.jpeg }
    let jpeg = try await Self.renderThumbnail(
      asset.file, edit: asset.edit ?? .neutral, longEdge: options.thumbnailLongEdge, quality: 80)
    thumbnails[assetID] = (asset.summary.revision, jpeg)
    return jpeg
  }

  public func editSessions() async throws(WebError) -> [EditSessionSummary] { savedEdits }

  // MARK: Sessions

  public func openSession(assetID: String) async throws(WebError) -> SessionState {
    let asset = try lookUp(assetID)
    guard !asset.summary.isDeleted else {
      throw WebError(.notFound, source: assetID, detail: "the photo is deleted; restore it to edit it.")
    }
    let loaded = try await Self.loadPreviewBase(asset.file, longEdge: options.previewLongEdge, lookEdge: options.lookThumbnailLongEdge)
    // Re-check after the await: the asset may have changed meanwhile.
    let current = try lookUp(assetID)
    let start = current.edit ?? .neutral
    let id = Self.newID()
    sessions[id] = Session(
      id: id, assetID: assetID, base: loaded.base, lookBase: loaded.lookBase, fullSize: loaded.fullSize,
      renderScale: Double(loaded.base.size.longEdge) / Double(max(1, loaded.fullSize.longEdge)),
      history: History(steps: [start]), saved: start, assetRevision: current.summary.revision)
    return try state(of: id)
  }

  public func state(session: String) async throws(WebError) -> SessionState { try state(of: session) }

  public func preview(session: String, change: EditConfig, commit: Bool, view: PreviewView) async throws(WebError)
    -> RenderedPreview
  {
    let s = try lookUpSession(session)
    let target = try Self.applying(change, to: s.history.current, source: session)
    let shown = view == .uncropped ? target.with(crop: .full) : target
    let jpeg = try await Self.render(s.base, shown, scale: s.renderScale, quality: options.previewQuality)
    guard var after = sessions[session] else {
      throw WebError(.notFound, source: session, detail: "the session was closed.")
    }
    if commit {
      // Committed on top of whatever is current now (another request may have committed while
      // this one rendered); the answer's picture is then one step behind, and the next preview
      // catches up.
      let committed = try Self.applying(change, to: after.history.current, source: session)
      after.history.commit(committed, action: change.actionType)
      after.revision += 1
      if view == .edited, committed == target { after.cachedPreview = (after.revision, jpeg) }
      sessions[session] = after
    }
    return RenderedPreview(jpeg: jpeg, state: try state(of: session))
  }

  public func currentPreview(session: String, view: PreviewView) async throws(WebError) -> Data {
    let s = try lookUpSession(session)
    if view == .edited, let hit = s.cachedPreview, hit.revision == s.revision { return hit.jpeg }
    let config: EditConfig =
      switch view {
      case .edited: s.history.current
      case .uncropped: s.history.current.with(crop: .full)
      case .original: .neutral
      }
    let jpeg = try await Self.render(s.base, config, scale: s.renderScale, quality: options.previewQuality)
    if view == .edited, var after = sessions[session], after.revision == s.revision {
      after.cachedPreview = (s.revision, jpeg)
      sessions[session] = after
    }
    return jpeg
  }

  public func undo(session: String) async throws(WebError) -> SessionState {
    var s = try lookUpSession(session)
    guard s.history.canUndo else { return try state(of: session) }
    s.history.index -= 1
    s.history.mergeKey = nil
    s.revision += 1
    sessions[session] = s
    return try state(of: session)
  }

  public func redo(session: String) async throws(WebError) -> SessionState {
    var s = try lookUpSession(session)
    guard s.history.canRedo else { return try state(of: session) }
    s.history.index += 1
    s.history.mergeKey = nil
    s.revision += 1
    sessions[session] = s
    return try state(of: session)
  }

  public func lookThumbnail(session: String, look: Look?) async throws(WebError) -> Data {
    let s = try lookUpSession(session)
    let key = look?.rawValue ?? "none"
    if s.lookCacheRevision == s.revision, let hit = s.lookCache[key] { return hit }
    let config = s.history.current.with(look: .some(look.map { LookSelection($0) }))
    let scale = Double(s.lookBase.size.longEdge) / Double(max(1, s.fullSize.longEdge))
    let jpeg = try await Self.render(s.lookBase, config, scale: scale, quality: 75)
    if var after = sessions[session], after.revision == s.revision {
      if after.lookCacheRevision != after.revision {
        after.lookCache = [:]
        after.lookCacheRevision = after.revision
      }
      after.lookCache[key] = jpeg
      sessions[session] = after
    }
    return jpeg
  }

  public func suggestions(session: String) async throws(WebError) -> [SuggestionSummary] {
    try await loadSuggestions(session).map {
      SuggestionSummary(id: $0.id, title: LocalizedName($0.title), kind: $0.kind.rawValue)
    }
  }

  public func suggestionThumbnail(session: String, id: String) async throws(WebError) -> Data {
    let list = try await loadSuggestions(session)
    guard let suggestion = list.first(where: { $0.id == id }) else {
      throw WebError(.notFound, source: id, detail: "no such suggestion for this photo.")
    }
    if let thumbnail = suggestion.thumbnail { return try Self.jpeg(thumbnail, quality: 80, source: id) }
    let s = try lookUpSession(session)
    let scale = Double(s.lookBase.size.longEdge) / Double(max(1, s.fullSize.longEdge))
    return try await Self.render(s.lookBase, suggestion.config, scale: scale, quality: 80)
  }

  public func applySuggestion(session: String, id: String) async throws(WebError) -> SessionState {
    let list = try await loadSuggestions(session)
    guard let suggestion = list.first(where: { $0.id == id }) else {
      throw WebError(.notFound, source: id, detail: "no such suggestion for this photo.")
    }
    var s = try lookUpSession(session)
    let current = s.history.current
    // Colour and tone come from the suggestion; geometry and background blur stay.
    var properties = suggestion.config.properties.filter { $0.key.isColorOrTone }
    for (type, value) in current.properties where !type.isColorOrTone { properties[type] = value }
    let applied = EditConfig(
      properties: properties, crop: current.crop, aspectRatio: current.aspectRatio,
      editRotation: current.editRotation, look: suggestion.config.look, actionType: .suggestion)
    s.history.commit(applied, action: .suggestion)
    s.revision += 1
    sessions[session] = s
    return try state(of: session)
  }

  public func save(session: String, overwrite: Bool) async throws(WebError) -> SessionState {
    let s = try lookUpSession(session)
    try checkNoConflict(s, overwrite: overwrite)
    let asset = try lookUp(s.assetID)
    let config = s.history.current
    let rendered: Data? =
      config.hasEdits
      ? try await Self.renderFile(asset.file, config, format: .jpeg, quality: options.saveQuality) : nil
    // Re-check after rendering: another window may have saved meanwhile.
    guard var after = sessions[session] else {
      throw WebError(.notFound, source: session, detail: "the session was closed.")
    }
    try checkNoConflict(after, overwrite: overwrite)
    var current = try lookUp(s.assetID)
    let revision = current.summary.revision + 1
    try writeEdit(assetID: s.assetID, config: config, render: rendered, revision: revision)
    current.edit = config.hasEdits ? config : nil
    current.summary.isEdited = config.hasEdits
    current.summary.revision = revision
    assets[s.assetID] = current
    let now = Date().timeIntervalSince1970
    savedEdits.insert(Self.editSummary(current.summary, config, savedAt: now, revision: revision), at: 0)
    after.saved = config
    after.assetRevision = revision
    sessions[session] = after
    return try state(of: session)
  }

  public func revert(session: String) async throws(WebError) -> SessionState {
    var s = try lookUpSession(session)
    var asset = try lookUp(s.assetID)
    let revision = asset.summary.revision + 1
    try writeEdit(assetID: s.assetID, config: .neutral, render: nil, revision: revision)
    asset.edit = nil
    asset.summary.isEdited = false
    asset.summary.revision = revision
    assets[s.assetID] = asset
    s.history.commit(EditConfig(actionType: .revert), action: .revert)
    s.saved = s.history.current
    s.assetRevision = revision
    s.revision += 1
    sessions[session] = s
    return try state(of: session)
  }

  public func export(session: String, format: ExportFormat, quality: Int) async throws(WebError) -> ExportedFile {
    let s = try lookUpSession(session)
    let asset = try lookUp(s.assetID)
    let data = try await Self.renderFile(
      asset.file, s.history.current, format: format == .jpeg ? .jpeg : .heif, quality: quality)
    let stem = (asset.summary.name as NSString).deletingPathExtension
    return ExportedFile(data: data, fileName: "\(stem)-edited.\(format.fileExtension)", mimeType: format.mimeType)
  }

  public func closeSession(_ session: String) async throws(WebError) {
    guard sessions.removeValue(forKey: session) != nil else {
      throw WebError(.notFound, source: session, detail: "no such session.")
    }
  }

  // MARK: State helpers

  private func lookUp(_ id: String) throws(WebError) -> Asset {
    guard let asset = assets[id] else { throw WebError(.notFound, source: id, detail: "no such photo.") }
    return asset
  }

  private func lookUpSession(_ id: String) throws(WebError) -> Session {
    guard let s = sessions[id] else {
      throw WebError(.notFound, source: id, detail: "no such editing session; open the photo again.")
    }
    return s
  }

  private func state(of id: String) throws(WebError) -> SessionState {
    let s = try lookUpSession(id)
    let asset = try lookUp(s.assetID)
    return SessionState(
      sessionID: id, assetID: s.assetID, name: asset.summary.name, width: s.fullSize.width,
      height: s.fullSize.height, config: s.history.current, canUndo: s.history.canUndo,
      canRedo: s.history.canRedo,
      hasUnsavedChanges: Self.withoutAction(s.history.current) != Self.withoutAction(s.saved),
      revision: s.revision)
  }

  private func checkNoConflict(_ s: Session, overwrite: Bool) throws(WebError) {
    let asset = try lookUp(s.assetID)
    guard overwrite || asset.summary.revision == s.assetRevision else {
      throw WebError(
        .conflict, source: asset.summary.name,
        detail: "this photo was saved from another window after you opened it; save again to replace that edit, or reopen the photo to see it.")
    }
  }

  private func writeEdit(assetID: String, config: EditConfig, render: Data?, revision: Int) throws(WebError) {
    let renderURL = stateDirectory.appendingPathComponent("renders/\(assetID).jpg")
    let editURL = stateDirectory.appendingPathComponent("edits/\(assetID).json")
    let record = SavedEdit(
      adjustment: AdjustmentData(formatIdentifier: Self.adjustmentFormat, formatVersion: "\(EditConfig.formatVersion)", data: config.jsonData()),
      savedAt: Date().timeIntervalSince1970, revision: revision)
    do {
      // Render first, then the edit that points at it: each write is atomic (temporary file and
      // rename), so a crash leaves either the old edit or the new one.
      if let render { try render.write(to: renderURL, options: .atomic) } else if FileManager.default.fileExists(atPath: renderURL.path) {
        try FileManager.default.removeItem(at: renderURL)
      }
      try JSONEncoder().encode(record).write(to: editURL, options: .atomic)
    } catch {
      throw WebError(.internalError, source: assetID, detail: "cannot save the edit: \(error.localizedDescription)")
    }
  }

  private func move(_ from: URL, to: URL, source: String) throws(WebError) {
    do {
      try FileManager.default.moveItem(at: from, to: to)
    } catch {
      throw WebError(.internalError, source: source, detail: "cannot move the photo: \(error.localizedDescription)")
    }
  }

  private func uniqueURL(for fileName: String, format: ImageFormat) -> URL {
    // Only the last path component, without odd characters: the name is a label from the client.
    let cleaned = String(
      (fileName as NSString).lastPathComponent.unicodeScalars.map {
        CharacterSet.alphanumerics.contains($0) || "-_ ".unicodeScalars.contains($0) || $0 == "." ? Character($0) : "_"
      }
    ).trimmingCharacters(in: CharacterSet(charactersIn: ". "))
    var stem = (cleaned as NSString).deletingPathExtension
    if stem.isEmpty { stem = "photo" }
    let ext = format.fileExtension
    var candidate = directory.appendingPathComponent("\(stem).\(ext)")
    var n = 2
    let fm = FileManager.default
    while fm.fileExists(atPath: candidate.path)
      || fm.fileExists(atPath: stateDirectory.appendingPathComponent("trash/\(candidate.lastPathComponent)").path)
    {
      candidate = directory.appendingPathComponent("\(stem)-\(n).\(ext)")
      n += 1
    }
    return candidate
  }

  private func loadSuggestions(_ session: String) async throws(WebError) -> [EditSuggestion] {
    let s = try lookUpSession(session)
    if let list = s.suggestions { return list }
    let base = s.base
    let list = await SuggestionEngine().suggestions(
      for: base, options: SuggestionOptions(offerOriginal: true, thumbnailMaxDimension: options.lookThumbnailLongEdge))
    if var after = sessions[session] {
      after.suggestions = list
      sessions[session] = after
    }
    return list
  }

  // MARK: Pixel work (off the actor)

  private static func withoutAction(_ c: EditConfig) -> EditConfig { c.with(actionType: .some(nil)) }

  /// `change` on top of `base`; a crop action sets crop and aspect ratio outright.
  static func applying(_ change: EditConfig, to base: EditConfig, source: String) throws(WebError) -> EditConfig {
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

  private static func describe(_ url: URL, name: String, deleted: Bool) -> Asset? {
    guard let handle = try? FileHandle(forReadingFrom: url) else { return nil }
    defer { try? handle.close() }
    guard let head = try? handle.read(upToCount: 32), let format = ImageFormat.sniff(head),
      [.jpeg, .png, .heif].contains(format),
      let data = try? ImageDecoder.readFile(url),
      let info = try? ImageDecoder().readMetadata(data, source: name)
    else { return nil }
    var size = info.metadata.pixelSize ?? PixelSize(width: 0, height: 0)
    if info.metadata.orientation.swapsDimensions { size = size.transposed }
    let created = (try? FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate] as? Date) ?? Date()
    return Asset(
      summary: AssetSummary(
        id: stableID(name), name: name, width: size.width, height: size.height, format: format.rawValue,
        isEdited: false, isDeleted: deleted, importedAt: created.timeIntervalSince1970, revision: 0),
      file: url, edit: nil)
  }

  private static func editSummary(_ a: AssetSummary, _ c: EditConfig, savedAt: Double, revision: Int) -> EditSessionSummary {
    EditSessionSummary(
      assetID: a.id, name: a.name, look: c.look?.look.rawValue,
      settings: Dictionary(uniqueKeysWithValues: c.properties.map { ($0.key.rawValue, $0.value) }),
      savedAt: savedAt, revision: revision)
  }

  /// FNV-1a of the file name: stable across restarts, 16 hex digits.
  static func stableID(_ name: String) -> String {
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    for b in name.utf8 {
      h ^= UInt64(b)
      h = h &* 0x100_0000_01b3
    }
    return String(format: "%016llx", h)
  }

  /// A session id nobody can guess (96 random bits).
  static func newID() -> String { AccessGuard.randomHex(bytes: 12) }

  private static func decodeError(_ e: ImageDecodingError) -> WebError {
    WebError(.unprocessable, source: e.source, detail: e.description)
  }

  nonisolated static func loadPreviewBase(_ url: URL, longEdge: Int, lookEdge: Int) async throws(WebError)
    -> (base: Image, lookBase: Image, fullSize: PixelSize)
  {
    var decodeOptions = DecodeOptions()
    decodeOptions.minimumLongEdge = longEdge
    decodeOptions.keeps16Bit = false
    let decoded: DecodedImage
    do {
      decoded = try ImageDecoder(options: decodeOptions).decode(url)
    } catch {
      throw decodeError(error)
    }
    var base = decoded.image.resized(toFitLongEdge: longEdge)
    if base.format != .rgb8 && base.format != .rgba8 { base = PlanarImage(base).image(bitDepth: 8) }
    let full = PixelSize(
      width: Int((Double(decoded.image.width) / decoded.scale).rounded()),
      height: Int((Double(decoded.image.height) / decoded.scale).rounded()))
    return (base, base.resized(toFitLongEdge: lookEdge), full)
  }

  nonisolated static func render(_ image: Image, _ config: EditConfig, scale: Double, quality: Int) async throws(WebError) -> Data {
    let rendered = config.hasEdits ? image.rendered(with: config, renderScale: scale) : image
    return try jpeg(rendered, quality: quality, source: "<preview>")
  }

  nonisolated static func jpeg(_ image: Image, quality: Int, source: String) throws(WebError) -> Data {
    var encodeOptions = EncodeOptions()
    encodeOptions.quality = quality
    do {
      return try ImageEncoder(options: encodeOptions).encode(image, as: .jpeg)
    } catch {
      throw WebError(.internalError, source: source, detail: error.description)
    }
  }

  nonisolated static func renderThumbnail(_ url: URL, edit: EditConfig, longEdge: Int, quality: Int) async throws(WebError) -> Data {
    let loaded = try await loadPreviewBase(url, longEdge: longEdge, lookEdge: longEdge)
    let scale = Double(loaded.base.size.longEdge) / Double(max(1, loaded.fullSize.longEdge))
    return try await render(loaded.base, edit, scale: scale, quality: quality)
  }

  /// The full-resolution render of `config`, encoded with the original's metadata.
  nonisolated static func renderFile(_ url: URL, _ config: EditConfig, format: ImageFormat, quality: Int) async throws(WebError) -> Data {
    let decoded: DecodedImage
    do {
      decoded = try ImageDecoder().decode(url)
    } catch {
      throw decodeError(error)
    }
    let rendered = decoded.image.rendered(with: config)
    var encodeOptions = EncodeOptions()
    encodeOptions.quality = quality
    do {
      return try ImageEncoder(options: encodeOptions).encode(rendered, as: format, metadata: decoded.metadata)
    } catch {
      throw WebError(.internalError, source: url.lastPathComponent, detail: error.description)
    }
  }
}
