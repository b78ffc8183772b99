// SPDX-License-Identifier: Apache-2.0

import RetouchCore
import RetouchRender

/// One proposed edit: an ordinary `EditConfig` (no hidden settings) with a name and a thumbnail,
/// so an editor can show it, apply it, adjust it and save it.
public struct EditSuggestion: Sendable, Identifiable {
  /// What a suggestion is for.
  public enum Kind: String, Sendable, Hashable, Codable {
    /// "Original": no edit, offered first when nothing improves the photo.
    case original
    /// Fixes something measurable (Brighten, Cool Down, Clean Up…).
    case correction
    /// A matter of taste (Vivid, Matte…), sized to the photo.
    case style
    /// Restyles the photo (Noir, Film…); only on request, after everything else.
    case theme
  }

  /// Stable identifier, unique in one list: the recipe id (`lookID`).
  public var id: String { lookID }
  /// The recipe this came from ("brighten", "vivid", "noir", "original"…): what `disabledLooks`
  /// and learning refer to.
  public let lookID: String
  public let title: LocalizedText
  /// SF Symbols name.
  public let symbolName: String
  public let kind: Kind
  /// The whole edit. Never crops or rotates.
  public let config: EditConfig
  /// A small rendering of the photo with `config` applied (long edge
  /// `SuggestionOptions.thumbnailMaxDimension`), nil when thumbnails were not asked for.
  public let thumbnail: Image?
  /// Ranking score: higher is better; only the order within one list means anything.
  public let score: Double

  public var isTheme: Bool { kind == .theme }

  public init(
    lookID: String, title: LocalizedText, symbolName: String, kind: Kind, config: EditConfig,
    thumbnail: Image?, score: Double
  ) {
    self.lookID = lookID
    self.title = title
    self.symbolName = symbolName
    self.kind = kind
    self.config = config
    self.thumbnail = thumbnail
    self.score = score
  }
}

/// What a caller asks of `SuggestionEngine.suggestions`.
public struct SuggestionOptions: Sendable, Hashable {
  /// At most this many suggestions (themes not counted), at least 1. Default 10.
  public var maxSuggestions: Int
  /// Lead with an "Original" suggestion when nothing improves the photo.
  public var offerOriginal: Bool
  /// Append themes after the others (outside `maxSuggestions`).
  public var includeThemes: Bool
  /// Recipe ids never to offer.
  public var disabledLooks: Set<String>
  /// Long edge of each thumbnail in pixels; 0 = no thumbnails.
  public var thumbnailMaxDimension: Int

  public init(
    maxSuggestions: Int = 10, offerOriginal: Bool = false, includeThemes: Bool = false,
    disabledLooks: Set<String> = [], thumbnailMaxDimension: Int = 256
  ) {
    self.maxSuggestions = maxSuggestions
    self.offerOriginal = offerOriginal
    self.includeThemes = includeThemes
    self.disabledLooks = disabledLooks
    self.thumbnailMaxDimension = thumbnailMaxDimension
  }
}

/// Suggestions with the analysis they were ranked on.
public struct SuggestionResult: Sendable {
  /// Best first; empty when nothing is offered or the work was cancelled.
  public var suggestions: [EditSuggestion]
  /// What the engine measured; nil when it was cancelled before measuring, or when the list
  /// came from somewhere that did not measure (a test's stand-in).
  public var analysis: PhotoAnalysis?

  public init(_ suggestions: [EditSuggestion], analysis: PhotoAnalysis? = nil) {
    self.suggestions = suggestions
    self.analysis = analysis
  }
}
