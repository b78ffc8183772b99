// SPDX-License-Identifier: Apache-2.0

/// Quarter turns and flips: the eight ways to lay a photo on its grid.
///
/// A state is "first mirror left–right (if flipped), then turn clockwise by `quarterTurns × 90°`".
/// These form the dihedral group of the square: states compose with ``combined(with:)``, and
/// every state has an inverse.
public enum EditRotation: String, Sendable, Hashable, Codable, CaseIterable {
  case original, rotate90, rotate180, rotate270
  case flipped, rotate90Flipped, rotate180Flipped, rotate270Flipped

  /// Builds a state from clockwise quarter turns (any integer, taken modulo 4) and a flip.
  public init(quarterTurns: Int, flipped: Bool) {
    let k = ((quarterTurns % 4) + 4) % 4
    switch (k, flipped) {
    case (0, false): self = .original
    case (1, false): self = .rotate90
    case (2, false): self = .rotate180
    case (3, false): self = .rotate270
    case (0, true): self = .flipped
    case (1, true): self = .rotate90Flipped
    case (2, true): self = .rotate180Flipped
    default: self = .rotate270Flipped
    }
  }

  /// Clockwise quarter turns, 0…3 (applied after the flip).
  public var quarterTurns: Int {
    switch self {
    case .original, .flipped: 0
    case .rotate90, .rotate90Flipped: 1
    case .rotate180, .rotate180Flipped: 2
    case .rotate270, .rotate270Flipped: 3
    }
  }

  /// Whether the photo is mirrored left–right before turning.
  public var isFlipped: Bool { rawValue.hasSuffix("Flipped") || self == .flipped }

  /// The clockwise turn in degrees: 0, 90, 180 or 270.
  public var degrees: Int { quarterTurns * 90 }

  /// Whether width and height swap.
  public var swapsDimensions: Bool { quarterTurns % 2 == 1 }

  /// This state followed by a further 90° clockwise turn.
  public func rotatedClockwise() -> EditRotation { combined(with: .rotate90) }

  /// This state followed by a further 90° counter-clockwise turn.
  public func rotatedCounterclockwise() -> EditRotation { combined(with: .rotate270) }

  /// This state followed by a left–right mirror of what is shown.
  public func flippedHorizontally() -> EditRotation { combined(with: .flipped) }

  /// This state followed by a top–bottom mirror of what is shown.
  public func flippedVertically() -> EditRotation { combined(with: .rotate180Flipped) }

  /// `self` first, then `next`.
  ///
  /// With T = Rᵏ·Fᶠ (F applied first) and F·R = R⁻¹·F: a following (k₂, no flip) gives
  /// (k₁ + k₂, f₁); a following (k₂, flip) gives (k₂ − k₁, not f₁).
  public func combined(with next: EditRotation) -> EditRotation {
    if next.isFlipped {
      return EditRotation(quarterTurns: next.quarterTurns - quarterTurns, flipped: !isFlipped)
    }
    return EditRotation(quarterTurns: quarterTurns + next.quarterTurns, flipped: isFlipped)
  }

  /// The state that undoes this one.
  public var inverse: EditRotation {
    EditRotation.allCases.first { combined(with: $0) == .original }!
  }

  /// The size after applying this state to an image of `width × height`.
  public func size(width: Int, height: Int) -> (width: Int, height: Int) {
    swapsDimensions ? (height, width) : (width, height)
  }
}
