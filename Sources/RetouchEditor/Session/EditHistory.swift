// SPDX-License-Identifier: Apache-2.0

import RetouchRender

/// The undo history of an edit: a plain value, so undo and redo are data.
///
/// Holds whole edits (states), not differences: `states[0]` is where the session started,
/// ``position`` the one shown. Committing a change drops everything after ``position`` (redo
/// is cleared) and appends the new state, except that consecutive moves of one slider (the same
/// `EditActionType.setting`, other than the aspect-ratio picker) replace the last state instead,
/// so a drag made of many small commits is one undo step. An undo ends the merging: the next
/// commit is a step of its own.
public struct EditHistory: Sendable, Hashable {
  /// Every state, oldest first; never empty.
  public private(set) var states: [EditConfig]
  /// The index of the current state in ``states``.
  public private(set) var position = 0
  /// The action of the last commit when it may still merge with the next one.
  private var mergeableAction: EditActionType?

  /// A history whose first state (the one undo returns to at most) is `initial`.
  public init(initial: EditConfig = .neutral) {
    states = [initial.with(actionType: .some(nil))]
  }

  /// The edit shown now.
  public var current: EditConfig { states[position] }
  public var canUndo: Bool { position > 0 }
  public var canRedo: Bool { position < states.count - 1 }

  /// Commits `change` on top of the current edit (slider values add; see
  /// `EditConfig.combined(with:)`), merging with the previous commit when both move one slider.
  public mutating func add(_ change: EditConfig) {
    commit(current.combined(with: change), action: change.actionType)
  }

  /// Commits a whole new state (a suggestion, a crop, a reset) as one step.
  public mutating func commit(_ state: EditConfig, action: EditActionType?) {
    let merges =
      action != nil && action == mergeableAction && !canRedo && position > 0
    if merges {
      states[position] = state
    } else {
      states.removeSubrange((position + 1)...)
      states.append(state)
      position = states.count - 1
    }
    mergeableAction = Self.merges(action) ? action : nil
  }

  /// Steps back; false when there is nothing to undo.
  @discardableResult
  public mutating func undo() -> Bool {
    guard canUndo else { return false }
    position -= 1
    mergeableAction = nil
    return true
  }

  /// Steps forward again; false when there is nothing to redo.
  @discardableResult
  public mutating func redo() -> Bool {
    guard canRedo else { return false }
    position += 1
    mergeableAction = nil
    return true
  }

  static func merges(_ action: EditActionType?) -> Bool {
    if case .setting(let t) = action { return t != .aspectRatio }
    return false
  }
}
