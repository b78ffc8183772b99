// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchRender
import RetouchTestSupport
import Testing

@testable import RetouchAI

/// A black-and-white photo stays black and white: no suggestion but a theme moves its white
/// balance, split-tones it or carries colour settings that do nothing on it, and the looks that
/// are only about colour are not offered.
@Suite("Black-and-white photos")
struct MonochromeTests {
  let engine = SuggestionEngine()
  static let colourOnlyLooks: Set<String> = [
    "true-color", "vivid", "muted", "warm-up", "cool-down", "fix-tint",
  ]

  /// The settings of `config` that colour a photo or act only on colour.
  static func colourSettings(_ config: EditConfig) -> [EditSettingType] {
    config.properties.keys.filter { $0.group == .color || $0.group == .colorMixer }
      .sorted { $0.rawValue < $1.rawValue }
  }

  /// `image` as a black-and-white conversion gives it: each pixel's Rec. 709 luma of its
  /// encoded values in all three channels.
  static func grey(_ image: Image) -> Image {
    AnalysisTestPhotos.synthetic(width: image.width, height: image.height) { x, y in
      let p = image.pixel(x: x, y: y)
      let v = UInt8(
        (0.2126 * Double(p[0]) + 0.7152 * Double(p[1]) + 0.0722 * Double(p[2])).rounded())
      return (v, v, v)
    }
  }

  /// Every suggestion, themes included, without thumbnails.
  func suggestions(for image: Image) async -> [EditSuggestion] {
    await engine.suggestions(
      for: image, options: .init(includeThemes: true, thumbnailMaxDimension: 0))
  }

  func expectMonochromeEdits(_ list: [EditSuggestion], _ label: String) {
    let others = list.filter { !$0.isTheme }
    #expect(others.count >= 2, "\(label): \(list.map(\.lookID))")
    for s in others {
      #expect(
        Self.colourSettings(s.config).isEmpty,
        "\(label): \(s.lookID) colours it with \(Self.colourSettings(s.config))")
      #expect(!Self.colourOnlyLooks.contains(s.lookID), "\(label): \(s.lookID) offered")
    }
    // Themes restyle on purpose: Sepia still tones it.
    #expect(list.contains { $0.isTheme && $0.lookID == "sepia" }, "\(label): \(list.map(\.lookID))")
  }

  /// A historical portrait as it was printed, and two colour photos converted to black and
  /// white: a bright living room and a dark forest path (its median under L* 15, where only a
  /// frame with no colour at all counts).
  @Test(arguments: ["g57", "d01", "d19"])
  func blackAndWhitePhotoGetsNoColour(id: String) async throws {
    let (image, _) = try TestPhotos.load(id)
    let photo = id == "g57" ? image : Self.grey(image)
    let analysis = PhotoAnalyzer().analyze(photo, metadata: nil, measureNoise: false)
    #expect(analysis.isMonochrome, "\(id): chroma \(analysis.color.meanChroma)")
    expectMonochromeEdits(await suggestions(for: photo), id)
  }

  /// The same colour photos keep their colour looks and settings: the rule reads the photo,
  /// it does not strip colour from everything.
  @Test(arguments: ["d01", "d19"])
  func colourPhotoKeepsItsColourEdits(id: String) async throws {
    let (image, _) = try TestPhotos.load(id)
    #expect(!PhotoAnalyzer().analyze(image, metadata: nil, measureNoise: false).isMonochrome)
    let list = await suggestions(for: image).filter { !$0.isTheme }
    #expect(
      list.contains { !Self.colourSettings($0.config).isEmpty }, "\(id): \(list.map(\.lookID))")
  }

  /// A colour photo that is mostly black has as little mean chroma as a grey one, but its lit
  /// part has colour: the moon is not black and white.
  @Test func mostlyBlackColourPhotoIsNotMonochrome() throws {
    let (image, _) = try TestPhotos.load("g70")
    let analysis = PhotoAnalyzer().analyze(image, metadata: nil, measureNoise: false)
    #expect(analysis.color.meanChroma < PhotoAnalysis.monochromeChroma)
    #expect(!analysis.isMonochrome)
  }

  /// A warm cast laid on a black-and-white photo gives it colour again: that is a cast to
  /// remove, not a black-and-white photo.
  @Test func castOnBlackAndWhiteIsStillRemoved() async throws {
    let (image, _) = try TestPhotos.load("g57")
    let warm = TestPhotos.scaled(image, gains: (1.3, 1, 1 / 1.3))
    #expect(!PhotoAnalyzer().analyze(warm, metadata: nil, measureNoise: false).isMonochrome)
    let list = await engine.suggestions(for: warm, options: .init(thumbnailMaxDimension: 0))
    #expect(list.contains { $0.config.value(of: .temperature) < -0.05 }, "\(list.map(\.lookID))")
  }
}
