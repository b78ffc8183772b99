// SPDX-License-Identifier: Apache-2.0

import RetouchCore

/// The preset looks users know from photo apps. Each one's formula is documented in
/// `Kernels/LookFormulas.swift` with what it is modelled on.
public enum Look: String, Sendable, Hashable, Codable, CaseIterable {
  case chrome, fade, instant, noir, mono, tonal, process, transfer, sepia

  public var name: LocalizedText {
    switch self {
    case .chrome: LocalizedText("Chrome", zh: "铬黄")
    case .fade: LocalizedText("Fade", zh: "褪色")
    case .instant: LocalizedText("Instant", zh: "拍立得")
    case .noir: LocalizedText("Noir", zh: "黑色")
    case .mono: LocalizedText("Mono", zh: "单色")
    case .tonal: LocalizedText("Tonal", zh: "色调")
    case .process: LocalizedText("Process", zh: "冲印")
    case .transfer: LocalizedText("Transfer", zh: "岁月")
    case .sepia: LocalizedText("Sepia", zh: "棕褐")
    }
  }

  /// A symbol name (SF Symbols naming) for menus.
  public var symbolName: String {
    switch self {
    case .noir, .mono, .tonal: "circle.lefthalf.filled"
    case .sepia: "camera.filters"
    default: "camera.filters"
    }
  }
}

/// A preset look with how strongly it is applied (0 = not at all, 1 = fully).
public struct LookSelection: Sendable, Hashable, Codable {
  public var look: Look
  /// 0…1; values outside are clamped when rendering.
  public var strength: Double

  public init(_ look: Look, strength: Double = 1) {
    self.look = look
    self.strength = strength
  }
}
