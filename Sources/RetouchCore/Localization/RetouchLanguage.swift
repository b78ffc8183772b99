// SPDX-License-Identifier: Apache-2.0

import Foundation

/// The languages Retouch's user-facing names (settings, looks, suggestions, scenes) come in.
public enum RetouchLanguage: String, Sendable, Hashable, Codable, CaseIterable {
  case english = "en"
  case simplifiedChinese = "zh-Hans"

  /// The language for a BCP 47 tag or POSIX locale name ("zh-CN", "zh_Hans", "en-GB"):
  /// Chinese for any `zh` tag (Simplified as the written form we ship), English otherwise.
  public init(identifier: String) {
    let lower = identifier.lowercased()
    self = lower.hasPrefix("zh") ? .simplifiedChinese : .english
  }

  /// From `RETOUCH_LANG`, then `LC_ALL`/`LC_MESSAGES`/`LANG`, then the system's preferred
  /// languages.
  public static var current: RetouchLanguage {
    let env = ProcessInfo.processInfo.environment
    for key in ["RETOUCH_LANG", "LC_ALL", "LC_MESSAGES", "LANG"] {
      if let v = env[key], !v.isEmpty, v != "C", v != "POSIX" {
        return RetouchLanguage(identifier: v)
      }
    }
    return RetouchLanguage(identifier: Locale.preferredLanguages.first ?? "en")
  }
}

/// A user-facing string in every language Retouch ships.
public struct LocalizedText: Sendable, Hashable, Codable {
  public let english: String
  public let simplifiedChinese: String

  public init(_ english: String, zh simplifiedChinese: String) {
    self.english = english
    self.simplifiedChinese = simplifiedChinese
  }

  public func callAsFunction(_ language: RetouchLanguage = .current) -> String {
    switch language {
    case .english: english
    case .simplifiedChinese: simplifiedChinese
    }
  }
}
