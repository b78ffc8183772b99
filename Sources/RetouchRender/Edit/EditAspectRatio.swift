// SPDX-License-Identifier: Apache-2.0

import RetouchCore

/// The crop shapes an editor offers.
public enum EditAspectRatio: String, Sendable, Hashable, Codable, CaseIterable {
  /// The photo's own shape.
  case original
  /// Any shape.
  case free
  case r21x9 = "21:9", r18x9 = "18:9", r16x9 = "16:9", r4x3 = "4:3", square = "1:1"
  case r3x4 = "3:4", r9x16 = "9:16", r9x18 = "9:18", r9x21 = "9:21"

  /// Width ÷ height for fixed ratios; `nil` for ``original`` and ``free``.
  public var fixedRatio: Double? {
    let parts = rawValue.split(separator: ":")
    guard parts.count == 2, let w = Double(parts[0]), let h = Double(parts[1]) else { return nil }
    return w / h
  }

  /// Width ÷ height for an image of `width × height` (nil for ``free``).
  public func ratio(forImageWidth width: Int, height: Int) -> Double? {
    switch self {
    case .free: nil
    case .original: Double(width) / Double(max(1, height))
    default: fixedRatio
    }
  }

  /// A label for menus ("Original", "Free", "16:9" …), localized.
  public func localizedName(_ language: RetouchLanguage = .current) -> String {
    switch self {
    case .original: language == .simplifiedChinese ? "原始比例" : "Original"
    case .free: language == .simplifiedChinese ? "自由" : "Free"
    case .square: language == .simplifiedChinese ? "正方形" : "Square"
    default: rawValue
    }
  }
}
