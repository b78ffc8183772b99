// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchEditor
import RetouchRender
import RetouchTestSupport
import Testing

@testable import RetouchLibrary

/// One of the built-in editors, how to make it and a change to make in it.
struct LibraryEditor: Sendable, CustomStringConvertible {
  let description: String
  let format: AdjustmentFormat
  let make: @Sendable () -> any ContentEditingController
  let change: @Sendable (any ContentEditingController) -> Void
  /// The edit the change amounts to, as the edit-session grid shows it.
  let expectedConfig: EditConfig

  static let all: [LibraryEditor] = [
    LibraryEditor(
      description: "retouch", format: RetouchEditingController.format,
      make: { RetouchEditingController() },
      change: { editor in
        let c = (editor as? RetouchEditingController)?.editController
        c?.addConfig(EditConfig(properties: [.exposure: 0.3, .contrast: 0.2]))
        c?.addConfig(EditConfig(look: LookSelection(.chrome, strength: 0.6), actionType: .look))
      },
      expectedConfig: EditConfig(
        properties: [.exposure: 0.3, .contrast: 0.2], look: LookSelection(.chrome, strength: 0.6))),
    LibraryEditor(
      description: "vignette", format: VignetteEdit.format, make: { VignetteEditingController() },
      change: { ($0 as? VignetteEditingController)?.setEdit(VignetteEdit(intensity: 0.9)) },
      expectedConfig: VignetteEdit(intensity: 0.9).config),
    LibraryEditor(
      description: "sepia", format: SepiaEdit.format, make: { SepiaEditingController() },
      change: { ($0 as? SepiaEditingController)?.setEdit(SepiaEdit(intensity: 0.7)) },
      expectedConfig: SepiaEdit(intensity: 0.7).config),
    LibraryEditor(
      description: "filter", format: FilterEdit.format, make: { FilterEditingController() },
      change: { ($0 as? FilterEditingController)?.setEdit(FilterEdit(filter: .noir)) },
      expectedConfig: FilterEdit(filter: .noir).config),
  ]
}

@Suite struct LibraryContentEditingTests {
  /// requestContentEditingInput → editor → output → performChanges → reopen: the library keeps
  /// the editor's render and adjustment data, the same editor resumes from the original with
  /// its own data and gives identical output, and another editor gets the render baked in.
  @Test(arguments: LibraryEditor.all)
  func roundTripThroughTheLibrary(editor: LibraryEditor) async throws {
    let scratch = try ScratchFolder("roundTrip\(editor.description)")
    defer { scratch.cleanUp() }
    let library = try PhotoLibrary(at: scratch.path("Library"))
    let photos = try LibraryFixtures.smallPhotos(["g04"], longEdge: 200, in: scratch.url)
    let id = try #require(try library.importPhotos(from: photos).imported.first?.id)

    let input = try library.requestContentEditingInput(for: id, displayMaxDimension: 64)
    #expect(input.adjustmentData == nil && input.renderedPhoto == nil)
    #expect(input.originalURL == library.originalURL(for: try library.asset(id)))
    #expect((input.displaySizeImage?.size.longEdge ?? 0) <= 64)
    let first = editor.make()
    try await first.startContentEditing(with: input, placeholder: input.displaySizeImage)
    editor.change(first)
    let output = try await first.finishContentEditing()
    let rendered = try Data(contentsOf: output.renderedContentURL)
    try library.performChanges([.edit(id, output: output)])
    try? FileManager.default.removeItem(at: output.renderedContentURL)

    // Stored as the editor made it.
    let current = try #require(try library.currentRevision(of: id))
    #expect(current.adjustmentData == output.adjustmentData)
    #expect(current.adjustmentData?.formatIdentifier == editor.format.identifier)
    #expect(try Data(contentsOf: library.currentImageURL(of: id)) == rendered)
    #expect(try library.editSessions(of: id).map(\.config) == [editor.expectedConfig])

    // Reopened by the same kind of editor: the original plus its data; no change → same output.
    let again = try library.requestContentEditingInput(for: id)
    #expect(again.adjustmentData == output.adjustmentData)
    let resumed = editor.make()
    #expect(try again.base(for: resumed) == .original(resuming: output.adjustmentData))
    try await resumed.startContentEditing(with: again, placeholder: nil)
    let reopened = try await resumed.finishContentEditing()
    #expect(try Data(contentsOf: reopened.renderedContentURL) == rendered)
    #expect(reopened.adjustmentData == output.adjustmentData)
    try? FileManager.default.removeItem(at: reopened.renderedContentURL)

    // Any other editor refuses the data and gets the library's render.
    for other in LibraryEditor.all where other.description != editor.description {
      let base = try again.base(for: other.make())
      #expect(
        base == .rendered(.file(try library.currentImageURL(of: id))),
        "\(other) on \(editor)'s edit")
    }
  }
}
