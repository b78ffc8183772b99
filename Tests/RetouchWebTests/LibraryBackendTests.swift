// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchAI
import RetouchCore
import RetouchEditor
import RetouchIO
import RetouchLibrary
import RetouchRender
import RetouchTestSupport
import Testing

@testable import RetouchWeb

/// The web editor's backend on a real library: what a save, a revert and a reopen leave in it.
@Suite
final class LibraryBackendTests {
  let folder: URL
  let library: PhotoLibrary
  let backend: LibraryBackend
  let assetID: String

  init() throws {
    folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "retouch-backend-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    var image = Image(width: 96, height: 64, format: .rgb8)
    for y in 0..<64 { for x in 0..<96 { image.setPixel(x: x, y: y, [x * 2, y * 3, 90]) } }
    let photo = folder.appendingPathComponent("ramp.jpg")
    try ImageEncoder().encode(image, as: .jpeg).write(to: photo)
    library = try PhotoLibrary(at: folder.appendingPathComponent("Library"))
    let imported = try library.importPhotos(from: [photo]).imported
    assetID = String(try #require(imported.first).id.rawValue)
    backend = LibraryBackend(library: library)
  }

  deinit { try? FileManager.default.removeItem(at: folder) }

  var id: AssetID { AssetID(Int64(assetID) ?? -1) }

  func commit(_ change: EditConfig, in session: String) async throws -> SessionState {
    try await backend.preview(session: session, change: change, commit: true, view: .edited).state
  }

  @Test func saveCommitsTheEditAndReopeningResumesIt() async throws {
    let opened = try await backend.openSession(assetID: assetID)
    #expect(opened.width == 96 && opened.height == 64)
    let state = try await commit(EditConfig(properties: [.exposure: 0.5]), in: opened.sessionID)
    #expect(state.revision > opened.revision)
    #expect(state.hasUnsavedChanges)
    let saved = try await backend.save(session: opened.sessionID, overwrite: false)
    #expect(!saved.hasUnsavedChanges)
    #expect(try library.asset(id).isEdited)
    #expect(try library.currentRevision(of: id)?.editConfig?.value(of: .exposure) == 0.5)
    #expect(try await backend.assets(includeDeleted: false).first?.isEdited == true)
    try await backend.closeSession(opened.sessionID)

    let reopened = try await backend.openSession(assetID: assetID)
    #expect(reopened.config.value(of: .exposure) == 0.5)
    #expect(!reopened.canUndo && !reopened.hasUnsavedChanges)
    #expect(try await backend.editSessions().first?.settings["exposure"] == 0.5)
  }

  /// Past the limit, opening a session closes the least recently used one without unsaved
  /// changes; one with unsaved changes stays open however old, and a used one counts as recent.
  @Test func openSessionsAreBoundedWithoutLosingUnsavedEdits() async throws {
    var options = LibraryBackend.Options()
    options.maxOpenSessions = 3
    let backend = LibraryBackend(library: library, options: options)
    let unsaved = try await backend.openSession(assetID: assetID).sessionID
    _ = try await backend.preview(
      session: unsaved, change: EditConfig(properties: [.exposure: 0.4]), commit: true,
      view: .edited)
    let oldest = try await backend.openSession(assetID: assetID).sessionID
    let used = try await backend.openSession(assetID: assetID).sessionID
    _ = try await backend.state(session: oldest)
    _ = try await backend.state(session: used)
    // Four open: `oldest` was used before `used`, so it is closed first.
    let fourth = try await backend.openSession(assetID: assetID).sessionID
    await #expect(throws: WebError.self) { try await backend.state(session: oldest) }
    #expect(try await backend.state(session: unsaved).hasUnsavedChanges)
    _ = try await backend.state(session: used)
    let fifth = try await backend.openSession(assetID: assetID).sessionID
    await #expect(throws: WebError.self) { try await backend.state(session: fourth) }
    for open in [unsaved, used, fifth] { _ = try await backend.state(session: open) }
  }

  @Test func revertBringsBackTheOriginalAsAnUndoStep() async throws {
    let session = try await backend.openSession(assetID: assetID).sessionID
    _ = try await commit(EditConfig(properties: [.contrast: 0.3]), in: session)
    _ = try await backend.save(session: session, overwrite: false)
    let reverted = try await backend.revert(session: session)
    #expect(!reverted.config.hasEdits)
    #expect(reverted.canUndo)
    #expect(!reverted.hasUnsavedChanges)
    #expect(try !library.asset(id).isEdited)
    #expect(try library.history(of: id).first?.kind == .revertToOriginal)
  }

  /// After undo and redo the edited preview is the one each commit showed, byte for byte.
  @Test func undoAndRedoShowThePreviewsOfThoseEdits() async throws {
    let session = try await backend.openSession(assetID: assetID).sessionID
    let first = try await backend.preview(
      session: session, change: EditConfig(properties: [.exposure: 0.6]), commit: true,
      view: .edited)
    let second = try await backend.preview(
      session: session, change: EditConfig(properties: [.contrast: 0.5]), commit: true,
      view: .edited)
    #expect(first.jpeg != second.jpeg)
    _ = try await backend.undo(session: session)
    #expect(try await backend.currentPreview(session: session, view: .edited) == first.jpeg)
    _ = try await backend.redo(session: session)
    #expect(try await backend.currentPreview(session: session, view: .edited) == second.jpeg)
  }

  @Test func aCropChangeSetsTheCropOutright() async throws {
    let session = try await backend.openSession(assetID: assetID).sessionID
    let square = NormalizedRect(x: 0.1, y: 0.1, width: 0.5, height: 0.75)
    let cropped = try await commit(
      EditConfig(crop: square, aspectRatio: .square, actionType: .crop), in: session)
    #expect(cropped.config.crop == square)
    let back = try await commit(
      EditConfig(crop: .full, aspectRatio: .free, actionType: .crop), in: session)
    #expect(back.config.crop == .full)
    #expect(back.config.aspectRatio == .free)
  }

  @Test func exportAndPreviewsAreJPEGsOfTheEdit() async throws {
    let session = try await backend.openSession(assetID: assetID).sessionID
    let change = EditConfig(properties: [.exposure: 1])
    let dragged = try await backend.preview(
      session: session, change: change, commit: false, view: .edited)
    #expect(dragged.state.revision == 0)
    let original = try await backend.currentPreview(session: session, view: .original)
    let brighter = try ImageDecoder().decode(dragged.jpeg, source: "preview").image
    let plain = try ImageDecoder().decode(original, source: "original").image
    #expect(mean(brighter) > mean(plain) + 20)
    _ = try await commit(change, in: session)
    let file = try await backend.export(session: session, format: .jpeg, quality: 80)
    #expect(file.fileName == "ramp-edited.jpg")
    let exported = try ImageDecoder().decode(file.data, source: "export").image
    #expect(exported.width == 96)
    #expect(mean(exported) > mean(plain) + 20)
    // The same edit as WebP, TIFF (lossless) and AVIF: named, typed and decoded as each.
    let others: [(ExportFormat, ImageFormat, String)] = [
      (.webp, .webp, "webp"), (.tiff, .tiff, "tif"), (.avif, .avif, "avif"),
    ]
    for (format, container, ext) in others {
      let file = try await backend.export(session: session, format: format, quality: 80)
      #expect(file.fileName == "ramp-edited.\(ext)")
      #expect(file.mimeType == "image/\(format.rawValue)")
      let decoded = try ImageDecoder().decode(file.data, source: "export")
      #expect(decoded.format == container)
      #expect(ImageComparison.meanAbsoluteDifference(decoded.image, exported) < 3, "\(format)")
    }
  }

  @Test func aSuggestionReplacesColorAndToneAndKeepsTheCrop() async throws {
    var options = LibraryBackend.Options()
    options.suggestionProvider = { _, _, _ in
      SuggestionResult([
        EditSuggestion(
          lookID: "warm", title: LocalizedText("Warm", zh: "暖"), symbolName: "sun.max",
          kind: .style, config: EditConfig(properties: [.temperature: 0.4, .exposure: 0.2]),
          thumbnail: nil,
          score: 1)
      ])
    }
    let backend = LibraryBackend(library: library, options: options)
    let session = try await backend.openSession(assetID: assetID).sessionID
    let crop = NormalizedRect(x: 0, y: 0, width: 0.5, height: 0.5)
    _ = try await backend.preview(
      session: session,
      change: EditConfig(properties: [.exposure: 1], crop: crop, actionType: .crop), commit: true,
      view: .edited)
    let listed = try await backend.suggestions(session: session)
    #expect(listed.map(\.id) == ["warm"])
    #expect(listed.first?.title.zh == "暖")
    #expect(!(try await backend.suggestionThumbnail(session: session, id: "warm")).isEmpty)
    let before = try await backend.state(session: session).revision
    let applied = try await backend.applySuggestion(session: session, id: "warm")
    #expect(applied.revision > before)
    #expect(applied.config.value(of: .exposure) == 0.2)
    #expect(applied.config.value(of: .temperature) == 0.4)
    #expect(applied.config.crop == crop)
    await #expect(throws: WebError.self) {
      _ = try await backend.applySuggestion(session: session, id: "nope")
    }
  }

  /// A page being left closes its session while thumbnails it asked for are still on their way:
  /// those the server received before the close are answered, later ones are refused, and the
  /// session's controller goes when the last answer is sent.
  @Test func requestsReceivedBeforeTheCloseAreAnswered() async throws {
    let (entered, enter) = AsyncStream<Void>.makeStream()
    let (gate, open) = AsyncStream<Void>.makeStream()
    var options = LibraryBackend.Options()
    options.suggestionProvider = { _, _, _ in
      enter.yield()
      for await _ in gate { break }
      return SuggestionResult([
        EditSuggestion(
          lookID: "warm", title: LocalizedText("Warm", zh: "暖"), symbolName: "sun.max",
          kind: .style, config: EditConfig(properties: [.temperature: 0.4]), thumbnail: nil,
          score: 1)
      ])
    }
    let backend = LibraryBackend(library: library, options: options)
    let session = try await backend.openSession(assetID: assetID).sessionID
    async let thumbnail = backend.suggestionThumbnail(session: session, id: "warm")
    async let listed = backend.suggestions(session: session)
    for await _ in entered { break }
    try await backend.closeSession(session)
    #expect(await backend.closedWhileAnswering[session] != nil)
    await #expect(throws: WebError.self) {
      _ = try await backend.suggestionThumbnail(session: session, id: "warm")
    }
    open.yield()
    #expect(try await listed.map(\.id) == ["warm"])
    let jpeg = try await ImageDecoder().decode(thumbnail, source: "thumbnail").image
    #expect(jpeg.width > 0)
    #expect(await backend.closedWhileAnswering.isEmpty)
  }

  /// A cut-out's previews show its transparent half as a white and #CCCCCC checkerboard of
  /// 8-pixel squares (JPEG previews have no alpha), its opaque half as it is; exported as TIFF
  /// it keeps its alpha.
  @Test func transparencyShowsAsACheckerboard() async throws {
    var image = Image(width: 64, height: 48, format: .rgba8)
    for y in 0..<48 {
      for x in 0..<64 {
        image.setPixel(x: x, y: y, x < 32 ? [200, 40, 40, 0] : [30, 90, 200, 255])
      }
    }
    let added = try await backend.importAsset(
      fileName: "cut-out.png", data: ImageEncoder().encode(image, as: .png))
    let session = try await backend.openSession(assetID: added.id).sessionID
    let jpeg = try await backend.currentPreview(session: session, view: .original)
    let preview = try ImageDecoder().decode(jpeg, source: "preview").image
    #expect(preview.size == image.size)
    func near(_ pixel: [Int], _ expected: [Int]) -> Bool {
      zip(pixel, expected).allSatisfy { abs($0 - $1) <= 8 }
    }
    #expect(near(preview.pixel(x: 3, y: 3), [255, 255, 255]), "\(preview.pixel(x: 3, y: 3))")
    #expect(near(preview.pixel(x: 11, y: 3), [204, 204, 204]), "\(preview.pixel(x: 11, y: 3))")
    #expect(near(preview.pixel(x: 11, y: 11), [255, 255, 255]))
    #expect(near(preview.pixel(x: 50, y: 20), [30, 90, 200]), "\(preview.pixel(x: 50, y: 20))")
    let tiff = try await backend.export(session: session, format: .tiff, quality: 90)
    let exported = try ImageDecoder().decode(tiff.data, source: "export").image
    #expect(exported.format == .rgba8)
    #expect(exported.pixel(x: 3, y: 3)[3] == 0 && exported.pixel(x: 50, y: 20)[3] == 255)
  }

  @Test func uploadsAreSniffedDecodedAndImported() async throws {
    await #expect(throws: WebError.self) {
      _ = try await self.backend.importAsset(fileName: "x.jpg", data: Data("not a photo".utf8))
    }
    var image = Image(width: 40, height: 30, format: .rgb8)
    for y in 0..<30 { for x in 0..<40 { image.setPixel(x: x, y: y, [x * 6, 200, y * 8]) } }
    let png = try ImageEncoder().encode(image, as: .png)
    let added = try await backend.importAsset(fileName: "../odd name.jpg", data: png)
    #expect(added.name == "odd name.png")
    #expect(added.format == "png")
    #expect(try await backend.assets(includeDeleted: false).first?.id == added.id)
    try await backend.deleteAsset(id: added.id)
    #expect(try await backend.assets(includeDeleted: false).count == 1)
    try await backend.restoreAsset(id: added.id)
    #expect(try await backend.assets(includeDeleted: false).count == 2)
    // A WebP upload is named by what it is, whatever the name it came with.
    let webp = try await backend.importAsset(
      fileName: "from the web.jpg", data: ImageEncoder().encode(image, as: .webp))
    #expect(webp.name == "from the web.webp")
    #expect(webp.format == "webp")
    let tiff = try await backend.importAsset(
      fileName: "scan", data: ImageEncoder().encode(image, as: .tiff))
    #expect(tiff.name == "scan.tif")
    #expect(tiff.format == "tiff")
    let avif = try await backend.importAsset(
      fileName: "phone.jpg", data: ImageEncoder().encode(image, as: .avif))
    #expect(avif.name == "phone.avif")
    #expect(avif.format == "avif")
  }

  /// Mean 8-bit sample value.
  func mean(_ image: Image) -> Double {
    var total = 0
    for y in 0..<image.height {
      for x in 0..<image.width { total += image.pixel(x: x, y: y).prefix(3).reduce(0, +) }
    }
    return Double(total) / Double(image.width * image.height * 3)
  }
}
