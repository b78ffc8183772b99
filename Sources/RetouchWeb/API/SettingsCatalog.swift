// SPDX-License-Identifier: Apache-2.0

import RetouchCore
import RetouchRender

/// Everything the editor's controls are built from, taken from RetouchRender's own tables
/// (`EditSettingType`, `EditSetting`, `Look`, `EditAspectRatio`) so the front end never repeats
/// a range, a name or a group.
public struct SettingsCatalog: Sendable, Codable {
  public struct Slider: Sendable, Codable {
    /// The `EditSettingType` raw value: the key in an edit's `settings`.
    public let id: String
    public let name: LocalizedName
    public let symbol: String
    public let minimum: Double
    public let maximum: Double
    public let step: Double
    /// Unit of the value ("EV", "°") or empty.
    public let unit: String
  }

  public struct Group: Sendable, Codable {
    /// "light", "color", "detail" or "effects".
    public let id: String
    public let sliders: [Slider]
  }

  public struct Option: Sendable, Codable {
    public let id: String
    public let name: LocalizedName
  }

  public struct Mixer: Sendable, Codable {
    /// Bands in hue order, each with its centre hue in degrees.
    public let bands: [Band]
    /// "hue", "saturation", "luminance".
    public let channels: [String]
    /// Every mixer slider; the id is `mixer.BAND.CHANNEL`.
    public let sliders: [Slider]
  }

  public struct Band: Sendable, Codable {
    public let id: String
    public let hue: Double
  }

  public struct AspectRatio: Sendable, Codable {
    public let id: String
    public let name: LocalizedName
    /// Width ÷ height for fixed ratios; nil for original and free.
    public let ratio: Double?
  }

  public let groups: [Group]
  public let mixer: Mixer
  public let looks: [Option]
  public let aspectRatios: [AspectRatio]
  public let straighten: Slider

  /// The catalog of this build.
  public static let current = SettingsCatalog()

  init() {
    func slider(_ type: EditSettingType) -> Slider {
      let s = type.setting
      let unit = type == .exposure ? "EV" : type == .straighten ? "°" : ""
      return Slider(
        id: type.rawValue, name: LocalizedName(s.name), symbol: s.symbolName, minimum: s.minimum,
        maximum: s.maximum, step: s.step, unit: unit)
    }
    let shown: [EditSettingType.Group] = [.light, .color, .detail, .effects]
    groups = shown.map { group in
      Group(
        id: group.rawValue,
        sliders: EditSetting.available.filter { $0.type.group == group }.map { slider($0.type) })
    }
    mixer = Mixer(
      bands: ColorBand.allCases.map { Band(id: $0.rawValue, hue: $0.centerHue) },
      channels: MixerChannel.allCases.map(\.rawValue),
      sliders: MixerChannel.allCases.flatMap { EditSetting.colorMixer($0) }.map { slider($0.type) })
    looks = Look.allCases.map { Option(id: $0.rawValue, name: LocalizedName($0.name)) }
    aspectRatios = EditAspectRatio.allCases.map {
      AspectRatio(
        id: $0.rawValue,
        name: LocalizedName(
          en: $0.localizedName(.english), zh: $0.localizedName(.simplifiedChinese)),
        ratio: $0.fixedRatio)
    }
    straighten = slider(.straighten)
  }
}
