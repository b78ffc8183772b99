// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore

/// A setting as an editor shows it: a slider with a localized name, a symbol, a range and a step.
///
/// Units: exposure in stops (EV, +1 doubles the light), straighten in degrees (clockwise
/// positive), aspect ratio as the index into `EditAspectRatio.allCases`; every other slider is
/// unitless in −1…1 (or 0…1 for one-way effects), where ±1 is the strongest the renderer does.
public struct EditSetting: Sendable, Hashable, Identifiable {
  public let type: EditSettingType
  public let name: LocalizedText
  /// A symbol name in SF Symbols naming.
  public let symbolName: String
  public let minimum: Double
  public let maximum: Double
  /// The smallest meaningful change (for keyboard steps and rounding of displayed values).
  public let step: Double

  public var id: EditSettingType { type }
  /// Neutral is always 0.
  public var neutralValue: Double { 0 }

  /// The name in `language`.
  public func localizedName(_ language: RetouchLanguage = .current) -> String { name(language) }

  /// The change config that moves this slider by `value` (relative to the edit so far), tagged
  /// with the setting as its action so an editor can merge consecutive moves.
  ///
  /// For ``EditSettingType/aspectRatio`` the value is an index into `EditAspectRatio.allCases`.
  public func change(by value: Double) -> EditConfig {
    if type == .aspectRatio {
      let cases = EditAspectRatio.allCases
      let i = max(0, min(cases.count - 1, Int(value.rounded())))
      return EditConfig(aspectRatio: cases[i], actionType: .setting(type))
    }
    return EditConfig(properties: [type: value], actionType: .setting(type))
  }

  /// `value` clamped into the slider's range.
  public func clamp(_ value: Double) -> Double { min(max(value, minimum), maximum) }

  static func format(_ v: Double) -> String {
    v == v.rounded() ? String(Int(v)) : String(v)
  }

  // MARK: Lists in display order

  /// The sliders of an editor's adjust screen: Light, Colour, Detail, Effects.
  public static var available: [EditSetting] {
    EditSettingType.allCases.filter { [.light, .color, .detail, .effects].contains($0.group) }.map(
      \.setting)
  }

  /// The colour-mixer sliders of one channel, one per band in hue order.
  public static func colorMixer(_ channel: MixerChannel) -> [EditSetting] {
    ColorBand.allCases.map { EditSettingType.mixer($0, channel).setting }
  }

  /// The sliders of the crop screen.
  public static var rotationSettings: [EditSetting] {
    [EditSettingType.straighten.setting, EditSettingType.aspectRatio.setting]
  }
}

extension EditSettingType {
  /// The slider for this setting.
  public var setting: EditSetting { Self.settings[self]! }

  /// Every setting's slider, made once: renderers read the ranges for every setting of every
  /// edit they set up, and a mixer slider's row was built from strings each time.
  private static let settings: [EditSettingType: EditSetting] = Dictionary(
    uniqueKeysWithValues: allCases.map { type in
      let (en, zh, symbol, lo, hi, step) = table[type] ?? mixerRow(type)
      return (
        type,
        EditSetting(
          type: type, name: LocalizedText(en, zh: zh), symbolName: symbol, minimum: lo,
          maximum: hi, step: step)
      )
    })

  private typealias Row = (String, String, String, Double, Double, Double)

  private static let table: [EditSettingType: Row] = [
    .exposure: ("Exposure", "曝光", "plusminus.circle", -4, 4, 0.01),
    .brightness: ("Brightness", "亮度", "sun.max", -1, 1, 0.01),
    .contrast: ("Contrast", "对比度", "circle.lefthalf.filled", -1, 1, 0.01),
    .highlights: ("Highlights", "高光", "circle.righthalf.filled.inverse", -1, 1, 0.01),
    .shadows: ("Shadows", "阴影", "circle.lefthalf.filled.inverse", -1, 1, 0.01),
    .whites: ("Whites", "白色色阶", "circle", -1, 1, 0.01),
    .blacks: ("Blacks", "黑色色阶", "circle.fill", -1, 1, 0.01),
    .blackPoint: ("Black Point", "黑点", "circle.bottomhalf.filled", -1, 1, 0.01),
    .dehaze: ("Dehaze", "去雾", "sun.haze", -1, 1, 0.01),
    .saturation: ("Saturation", "饱和度", "drop", -1, 1, 0.01),
    .vibrance: ("Vibrance", "自然饱和度", "drop.halffull", -1, 1, 0.01),
    .temperature: ("Warmth", "色温", "thermometer.medium", -1, 1, 0.01),
    .tint: ("Tint", "色调", "eyedropper.halffull", -1, 1, 0.01),
    .shadowWarmth: ("Shadow Warmth", "阴影暖色", "flame", -1, 1, 0.01),
    .sharpness: ("Sharpness", "锐度", "triangle", 0, 1, 0.01),
    .noiseReduction: ("Noise Reduction", "降噪", "circle.dotted", 0, 1, 0.01),
    .clarity: ("Clarity", "清晰度", "sparkles", -1, 1, 0.01),
    .vignette: ("Vignette", "晕影", "smallcircle.filled.circle", -1, 1, 0.01),
    .grain: ("Grain", "颗粒", "circle.grid.3x3", 0, 1, 0.01),
    .backgroundBlur: ("Background Blur", "背景虚化", "f.cursive.circle", 0, 1, 0.01),
    .straighten: ("Straighten", "拉直", "level", -45, 45, 0.1),
    .aspectRatio: (
      "Aspect Ratio", "宽高比", "aspectratio", 0, Double(EditAspectRatio.allCases.count - 1), 1
    ),
  ]

  private static func mixerRow(_ type: EditSettingType) -> Row {
    guard let (band, channel) = type.mixer else { return ("?", "?", "questionmark", -1, 1, 0.01) }
    let bandNames: [ColorBand: (String, String)] = [
      .red: ("Red", "红色"), .orange: ("Orange", "橙色"), .yellow: ("Yellow", "黄色"),
      .green: ("Green", "绿色"), .aqua: ("Aqua", "浅绿色"), .blue: ("Blue", "蓝色"),
      .purple: ("Purple", "紫色"), .magenta: ("Magenta", "洋红色"),
    ]
    let channelNames: [MixerChannel: (String, String)] = [
      .hue: ("Hue", "色相"), .saturation: ("Saturation", "饱和度"), .luminance: ("Luminance", "明亮度"),
    ]
    let b = bandNames[band]!
    let c = channelNames[channel]!
    return ("\(b.0) \(c.0)", "\(b.1)\(c.1)", "paintpalette", -1, 1, 0.01)
  }
}
