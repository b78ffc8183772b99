// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchRender
import Synchronization

/// The parameters of a small single-purpose editor: stored as its adjustment data (JSON with
/// sorted keys) and turned into an `EditConfig` to render.
public protocol ParametricEdit: Codable, Sendable, Hashable {
  /// The editor's format; each editor has its own identifier.
  static var format: AdjustmentFormat { get }
  /// The parameters a fresh edit starts with.
  static var initial: Self { get }
  /// Whether decoded parameters are usable (finite, in range); others are refused as corrupt.
  var isValid: Bool { get }
  /// The edit these parameters render.
  var config: EditConfig { get }
}

/// A ``ContentEditingController`` for one ``ParametricEdit``: resumes its own parameters,
/// refuses every other editor's adjustment data (and then edits the rendered photo).
public final class ParametricEditingController<Edit: ParametricEdit>: ContentEditingController {
  let run: ContentEditingRun
  private let parameters = Mutex(Edit.initial)

  /// - Parameter quality: JPEG quality of the rendered photo, 1…100.
  public init(quality: Int = 90) { run = ContentEditingRun(quality: quality) }

  /// The parameters being edited.
  public var edit: Edit { parameters.withLock { $0 } }

  /// Sets the parameters; the preview follows (one undo step in ``editController``).
  public func setEdit(_ edit: Edit) {
    parameters.withLock { $0 = edit }
    run.controller?.setConfig(edit.config, action: .look)
  }

  /// The session of the edit in progress (previews), nil outside one.
  public var editController: EditController? { run.controller }

  public func canHandle(_ adjustmentData: AdjustmentData) -> Bool {
    Edit.format.canHandle(adjustmentData)
  }

  /// The parameters stored in `adjustmentData`.
  ///
  /// - Throws: ``EditingError`` `.foreignAdjustmentData`, `.newerAdjustmentData`,
  ///   `.corruptAdjustmentData` (bad JSON or values out of range).
  public static func edit(from adjustmentData: AdjustmentData) throws(EditingError) -> Edit {
    let payload = try Edit.format.payload(of: adjustmentData)
    let decoded: Edit
    do {
      decoded = try JSONDecoder().decode(Edit.self, from: payload)
    } catch {
      throw EditingError(
        .corruptAdjustmentData, source: "adjustment data",
        detail:
          "'\(Edit.format.identifier)' data is not valid JSON for this editor (\(Self.explain(error)))."
      )
    }
    guard decoded.isValid else {
      throw EditingError(
        .corruptAdjustmentData, source: "adjustment data",
        detail: "'\(Edit.format.identifier)' parameters are out of range.")
    }
    return decoded
  }

  /// `edit` as this editor's adjustment data.
  public static func adjustmentData(for edit: Edit) -> AdjustmentData {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    // Plain numbers and strings always encode.
    return Edit.format.adjustmentData((try? encoder.encode(edit)) ?? Data())
  }

  static func explain(_ error: any Error) -> String {
    if case DecodingError.dataCorrupted(let c) = error { return c.debugDescription }
    if case DecodingError.keyNotFound(let k, _) = error { return "missing '\(k.stringValue)'" }
    if case DecodingError.typeMismatch(_, let c) = error { return c.debugDescription }
    if case DecodingError.valueNotFound(_, let c) = error { return c.debugDescription }
    return "\(error)"
  }

  public func startContentEditing(with input: ContentEditingInput, placeholder: Image?)
    async throws(EditingError)
  {
    var resumed = Edit.initial
    _ = try await run.start(input, editor: self, fresh: resumed.config) {
      data throws(EditingError) in
      resumed = try Self.edit(from: data)
      return resumed.config
    }
    parameters.withLock { $0 = resumed }
  }

  public func finishContentEditing() async throws(EditingError) -> ContentEditingOutput {
    let edit = self.edit
    return try await run.finish { _ in Self.adjustmentData(for: edit) }
  }

  public func cancelContentEditing() { run.cancel() }

  public var shouldShowCancelConfirmation: Bool { run.hasChanges }
}

/// A vignette-intensity editor: darkens the corners by `intensity`.
public struct VignetteEdit: ParametricEdit {
  public static let format = AdjustmentFormat(identifier: "org.retouch.vignette", version: "1")
  public static let initial = VignetteEdit(intensity: 0.5)
  /// 0…1; the vignette slider's value.
  public var intensity: Double
  public init(intensity: Double) { self.intensity = intensity }
  public var isValid: Bool { intensity.isFinite && (0...1).contains(intensity) }
  public var config: EditConfig { EditConfig(properties: [.vignette: intensity]) }
}

/// A sepia-intensity editor: the Sepia look at `intensity`.
public struct SepiaEdit: ParametricEdit {
  public static let format = AdjustmentFormat(identifier: "org.retouch.sepia", version: "1")
  public static let initial = SepiaEdit(intensity: 0.5)
  /// 0…1; the look's strength.
  public var intensity: Double
  public init(intensity: Double) { self.intensity = intensity }
  public var isValid: Bool { intensity.isFinite && (0...1).contains(intensity) }
  public var config: EditConfig { EditConfig(look: LookSelection(.sepia, strength: intensity)) }
}

/// A filter-picker editor: one of three filters at full strength.
public struct FilterEdit: ParametricEdit {
  public enum Filter: String, Codable, Sendable, Hashable, CaseIterable {
    /// A strong vignette (0.8).
    case vignette
    /// The Noir look.
    case noir
    /// The Chrome look.
    case chrome
  }

  public static let format = AdjustmentFormat(identifier: "org.retouch.filter", version: "1")
  public static let initial = FilterEdit(filter: .chrome)
  public var filter: Filter
  public init(filter: Filter) { self.filter = filter }
  public var isValid: Bool { true }
  public var config: EditConfig {
    switch filter {
    case .vignette: EditConfig(properties: [.vignette: 0.8])
    case .noir: EditConfig(look: LookSelection(.noir))
    case .chrome: EditConfig(look: LookSelection(.chrome))
    }
  }
}

/// The vignette-intensity editor.
public typealias VignetteEditingController = ParametricEditingController<VignetteEdit>
/// The sepia-intensity editor.
public typealias SepiaEditingController = ParametricEditingController<SepiaEdit>
/// The filter-picker editor (Vignette / Noir / Chrome).
public typealias FilterEditingController = ParametricEditingController<FilterEdit>
