// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchEditor
import RetouchIO
import RetouchRender
import RetouchTestSupport
import Testing

/// One built-in editor, made fresh for each use, with a change a user would make in it.
struct BuiltInEditor: Sendable, CustomStringConvertible {
  let description: String
  let format: AdjustmentFormat
  let make: @Sendable () -> any ContentEditingController
  /// Makes a change in a started editor.
  let change: @Sendable (any ContentEditingController) -> Void

  static let all: [BuiltInEditor] = [
    BuiltInEditor(
      description: "retouch", format: RetouchEditingController.format,
      make: { RetouchEditingController() },
      change: { editor in
        let c = (editor as? RetouchEditingController)?.editController
        c?.addConfig(EditConfig(properties: [.exposure: 0.3, .contrast: 0.2, .sharpness: 0.4]))
        c?.addConfig(EditConfig(look: LookSelection(.chrome, strength: 0.6), actionType: .look))
        c?.setCrop(NormalizedRect(x: 0.1, y: 0.1, width: 0.7, height: 0.8), aspectRatio: .free)
      }),
    BuiltInEditor(
      description: "vignette", format: VignetteEdit.format, make: { VignetteEditingController() },
      change: { ($0 as? VignetteEditingController)?.setEdit(VignetteEdit(intensity: 0.9)) }),
    BuiltInEditor(
      description: "sepia", format: SepiaEdit.format, make: { SepiaEditingController() },
      change: { ($0 as? SepiaEditingController)?.setEdit(SepiaEdit(intensity: 0.7)) }),
    BuiltInEditor(
      description: "filter", format: FilterEdit.format, make: { FilterEditingController() },
      change: { ($0 as? FilterEditingController)?.setEdit(FilterEdit(filter: .noir)) }),
  ]
}

/// g04: 600×450 JPEG, orientation 1.
private let original = ContentEditingInput.Photo.file(SharedPhotos.url("g04"))

private func input(
  adjustmentData: AdjustmentData? = nil, renderedPhoto: ContentEditingInput.Photo? = nil
) async throws -> ContentEditingInput {
  try await ContentEditingInput.load(
    original: original, adjustmentData: adjustmentData, renderedPhoto: renderedPhoto,
    displayMaxDimension: 128)
}

/// Starts `editor` on `input`, optionally changes something, finishes; returns the output and
/// the rendered bytes.
private func edit(
  _ editor: any ContentEditingController, _ input: ContentEditingInput,
  change: ((any ContentEditingController) -> Void)? = nil
) async throws -> (ContentEditingOutput, Data) {
  try await editor.startContentEditing(with: input, placeholder: input.displaySizeImage)
  #expect(!editor.shouldShowCancelConfirmation)
  if let change {
    change(editor)
    #expect(editor.shouldShowCancelConfirmation)
  }
  let output = try await editor.finishContentEditing()
  let data = try Data(contentsOf: output.renderedContentURL)
  try? FileManager.default.removeItem(at: output.renderedContentURL)
  return (output, data)
}

@Suite("Content editing")
struct ContentEditingTests {
  @Test(arguments: BuiltInEditor.all)
  func reopeningGivesIdenticalOutput(editor: BuiltInEditor) async throws {
    let (first, rendered) = try await edit(editor.make(), try await input(), change: editor.change)
    let adjustments = try #require(first.adjustmentData)
    #expect(adjustments.formatIdentifier == editor.format.identifier)
    #expect(ImageFormat.sniff(rendered) == .jpeg)
    #expect(rendered != (try SharedPhotos.data("g04")))

    // Reopened from the original plus the adjustment data, unchanged: the same photo.
    let reopenedEditor = editor.make()
    let resumedInput = try await input(
      adjustmentData: adjustments, renderedPhoto: .data(rendered, name: "r.jpg"))
    #expect(try resumedInput.base(for: reopenedEditor) == .original(resuming: adjustments))
    let (second, again) = try await edit(reopenedEditor, resumedInput)
    #expect(again == rendered, "\(editor): reopened output differs")
    #expect(second.adjustmentData == adjustments)
  }

  @Test func retouchEditorResumesItsSliders() async throws {
    let editor = RetouchEditingController()
    let config = EditConfig(
      properties: [.exposure: 0.25, .straighten: 2],
      crop: NormalizedRect(x: 0, y: 0, width: 0.5, height: 1),
      aspectRatio: .free, editRotation: .rotate90, look: LookSelection(.noir, strength: 0.4))
    let data = RetouchEditingController.adjustmentData(for: config)
    try await editor.startContentEditing(
      with: try await input(adjustmentData: data, renderedPhoto: original), placeholder: nil)
    let resumed = try #require(editor.editController?.currentConfig)
    #expect(resumed.properties == config.properties && resumed.crop == config.crop)
    #expect(
      resumed.editRotation == .rotate90 && resumed.look == config.look
        && resumed.aspectRatio == .free)
    editor.cancelContentEditing()
    #expect(editor.editController == nil)
  }

  @Test(arguments: BuiltInEditor.all)
  func canHandleOnlyItsOwnFormatUpToItsVersion(editor: BuiltInEditor) {
    let controller = editor.make()
    let own = editor.format
    #expect(
      controller.canHandle(
        AdjustmentData(formatIdentifier: own.identifier, formatVersion: own.version, data: Data())))
    #expect(
      controller.canHandle(
        AdjustmentData(formatIdentifier: own.identifier, formatVersion: "0.9", data: Data())))
    for newer in ["2", "1.1", "10", "x"] {
      #expect(
        !controller.canHandle(
          AdjustmentData(formatIdentifier: own.identifier, formatVersion: newer, data: Data())))
    }
    for other in BuiltInEditor.all where other.description != editor.description {
      let foreign = AdjustmentData(
        formatIdentifier: other.format.identifier, formatVersion: "1", data: Data())
      #expect(!controller.canHandle(foreign), "\(editor) claims \(other)'s data")
    }
    #expect(
      !controller.canHandle(
        AdjustmentData(formatIdentifier: "com.example.other", formatVersion: "1", data: Data())))
  }

  /// An editor that cannot resume the previous edit works on the rendered photo, edit baked in.
  @Test func foreignEditIsEditedBakedIn() async throws {
    let (vignetteOutput, vignetted) = try await edit(
      VignetteEditingController(), try await input(),
      change: { ($0 as? VignetteEditingController)?.setEdit(VignetteEdit(intensity: 1)) })
    let previous = try #require(vignetteOutput.adjustmentData)
    let sepia = SepiaEditingController()
    let bakedInput = try await input(
      adjustmentData: previous, renderedPhoto: .data(vignetted, name: "v.jpg"))
    #expect(try bakedInput.base(for: sepia) == .rendered(.data(vignetted, name: "v.jpg")))
    let (output, sepiaOnVignette) = try await edit(sepia, bakedInput)
    #expect(output.adjustmentData?.formatIdentifier == SepiaEdit.format.identifier)
    // The vignette is still there: darker corners than sepia on the original.
    let (_, sepiaOnOriginal) = try await edit(SepiaEditingController(), try await input())
    let a = try ImageDecoder().decode(sepiaOnVignette).image
    let b = try ImageDecoder().decode(sepiaOnOriginal).image
    let cornerA = a.pixel(x: 2, y: 2).reduce(0, +), cornerB = b.pixel(x: 2, y: 2).reduce(0, +)
    #expect(
      cornerA + 30 < cornerB, "corner \(cornerA) with the vignette baked in, \(cornerB) without")

    // Without a rendered photo the edit cannot be baked in: a clear error, not the original.
    let bare = try await input(adjustmentData: previous)
    let error = #expect(throws: EditingError.self) { try bare.base(for: sepia) }
    #expect(error?.kind == .missingRenderedPhoto)
    await #expect(throws: EditingError.self) {
      try await sepia.startContentEditing(with: bare, placeholder: nil)
    }
  }

  @Test(arguments: BuiltInEditor.all)
  func badAdjustmentDataIsAClearError(editor: BuiltInEditor) async throws {
    let id = editor.format.identifier
    let other = BuiltInEditor.all.first { $0.description != editor.description }!.format.identifier
    let cases: [(AdjustmentData, EditingError.Kind)] = [
      (
        AdjustmentData(formatIdentifier: other, formatVersion: "1", data: Data("{}".utf8)),
        .foreignAdjustmentData
      ),
      (
        AdjustmentData(
          formatIdentifier: id, formatVersion: "1", data: Data("{\"settings\": [1,".utf8)),
        .corruptAdjustmentData
      ),
      (
        AdjustmentData(formatIdentifier: id, formatVersion: "1", data: Data([0xFF, 0x00, 0x13])),
        .corruptAdjustmentData
      ),
      (
        AdjustmentData(formatIdentifier: id, formatVersion: "2", data: Data("{}".utf8)),
        .newerAdjustmentData
      ),
    ]
    for (data, kind) in cases {
      let error = #expect(throws: EditingError.self) { try Self.decode(data, as: editor) }
      #expect(error?.kind == kind, "\(editor) \(data.formatVersion): \(String(describing: error))")
      #expect(error?.description.contains(": \(kind.label): ") == true)
    }
    // Starting on corrupt data of its own format throws instead of guessing.
    let corrupt = cases[1].0
    let started = await #expect(throws: EditingError.self) {
      try await editor.make().startContentEditing(
        with: try await input(adjustmentData: corrupt, renderedPhoto: original), placeholder: nil)
    }
    #expect(started?.kind == .corruptAdjustmentData)
  }

  @Test func retouchDataInANewerEditFormatIsNewer() {
    let json = Data(
      #"{"format": "retouch.edit", "version": 7, "settings": {"exposure": 0.2}}"#.utf8)
    let data = RetouchEditingController.format.adjustmentData(json)
    let error = #expect(throws: EditingError.self) {
      try RetouchEditingController.config(from: data)
    }
    #expect(error?.kind == .newerAdjustmentData)
    let outOfRange = RetouchEditingController.format.adjustmentData(
      Data(#"{"settings": {"exposure": 99}}"#.utf8))
    #expect(throws: EditingError.self) { try RetouchEditingController.config(from: outOfRange) }
    let badIntensity = VignetteEdit.format.adjustmentData(Data(#"{"intensity": 3}"#.utf8))
    let e2 = #expect(throws: EditingError.self) {
      try VignetteEditingController.edit(from: badIntensity)
    }
    #expect(e2?.kind == .corruptAdjustmentData)
  }

  static func decode(_ data: AdjustmentData, as editor: BuiltInEditor) throws(EditingError) {
    switch editor.description {
    case "retouch": _ = try RetouchEditingController.config(from: data)
    case "vignette": _ = try VignetteEditingController.edit(from: data)
    case "sepia": _ = try SepiaEditingController.edit(from: data)
    default: _ = try FilterEditingController.edit(from: data)
    }
  }

  @Test func finishingWithoutStartingThrows() async {
    let error = await #expect(throws: EditingError.self) {
      try await RetouchEditingController().finishContentEditing()
    }
    #expect(error?.kind == .notEditing)
  }

  @Test func outputIsAFreshJPEGPath() async throws {
    let i = try await input()
    let a = ContentEditingOutput(i), b = ContentEditingOutput(i)
    #expect(a.renderedContentURL != b.renderedContentURL)
    #expect(a.renderedContentURL.pathExtension == "jpg" && a.adjustmentData == nil)
    #expect(i.orientation == .up && i.metadata.pixelSize == PixelSize(width: 600, height: 450))
    #expect(i.displaySizeImage?.size == PixelSize(width: 128, height: 96))
  }
}
