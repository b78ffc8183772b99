// SPDX-License-Identifier: Apache-2.0

/// Every adjustable setting of an edit. Each is a slider (see ``EditSetting``).
///
/// Raw values are the stable JSON keys of ``EditConfig``; never rename one.
public enum EditSettingType: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
  // Light
  case exposure, brightness, contrast, highlights, shadows, whites, blacks, blackPoint, dehaze
  // Colour
  case saturation, vibrance, temperature, tint, shadowWarmth
  // Detail
  case sharpness, noiseReduction, clarity
  // Effects
  case vignette, grain, backgroundBlur
  // Geometry
  case straighten, aspectRatio
  // Colour mixer: hue, saturation and luminance of eight bands.
  case redHue = "mixer.red.hue", redSaturation = "mixer.red.saturation", redLuminance =
    "mixer.red.luminance"
  case orangeHue = "mixer.orange.hue", orangeSaturation = "mixer.orange.saturation"
  case orangeLuminance = "mixer.orange.luminance"
  case yellowHue = "mixer.yellow.hue", yellowSaturation = "mixer.yellow.saturation"
  case yellowLuminance = "mixer.yellow.luminance"
  case greenHue = "mixer.green.hue", greenSaturation = "mixer.green.saturation"
  case greenLuminance = "mixer.green.luminance"
  case aquaHue = "mixer.aqua.hue", aquaSaturation = "mixer.aqua.saturation", aquaLuminance =
    "mixer.aqua.luminance"
  case blueHue = "mixer.blue.hue", blueSaturation = "mixer.blue.saturation", blueLuminance =
    "mixer.blue.luminance"
  case purpleHue = "mixer.purple.hue", purpleSaturation = "mixer.purple.saturation"
  case purpleLuminance = "mixer.purple.luminance"
  case magentaHue = "mixer.magenta.hue", magentaSaturation = "mixer.magenta.saturation"
  case magentaLuminance = "mixer.magenta.luminance"

  /// The group an editor shows the setting in.
  public enum Group: String, Sendable, Hashable, Codable, CaseIterable {
    case light, color, detail, effects, geometry, colorMixer
  }

  public var group: Group {
    switch self {
    case .exposure, .brightness, .contrast, .highlights, .shadows, .whites, .blacks, .blackPoint,
      .dehaze:
      .light
    case .saturation, .vibrance, .temperature, .tint, .shadowWarmth: .color
    case .sharpness, .noiseReduction, .clarity: .detail
    case .vignette, .grain, .backgroundBlur: .effects
    case .straighten, .aspectRatio: .geometry
    default: .colorMixer
    }
  }

  /// The colour-mixer band and channel, for mixer settings.
  public var mixer: (band: ColorBand, channel: MixerChannel)? {
    guard group == .colorMixer else { return nil }
    let parts = rawValue.split(separator: ".")
    guard parts.count == 3, let band = ColorBand(rawValue: String(parts[1])),
      let channel = MixerChannel(rawValue: String(parts[2]))
    else { return nil }
    return (band, channel)
  }

  /// The mixer setting for a band and channel.
  public static func mixer(_ band: ColorBand, _ channel: MixerChannel) -> EditSettingType {
    mixerTypes[band]![channel]!
  }

  /// Every mixer setting by band and channel, parsed from the raw values once (building and
  /// parsing the string on every call was most of the cost of a colour transform's set-up).
  private static let mixerTypes: [ColorBand: [MixerChannel: EditSettingType]] = Dictionary(
    uniqueKeysWithValues: ColorBand.allCases.map { band in
      (
        band,
        Dictionary(
          uniqueKeysWithValues: MixerChannel.allCases.map { channel in
            (channel, EditSettingType(rawValue: "mixer.\(band.rawValue).\(channel.rawValue)")!)
          })
      )
    })

  /// Whether the setting works in pixels (its effect depends on render scale).
  public var isSpatial: Bool {
    switch self {
    case .sharpness, .noiseReduction, .clarity, .grain, .backgroundBlur, .highlights, .shadows: true
    default: false
    }
  }

  /// Whether the setting is part of an edit's colour and tone (what a suggestion replaces), as
  /// opposed to geometry or depth blur.
  public var isColorOrTone: Bool {
    switch self {
    case .straighten, .aspectRatio, .backgroundBlur: false
    default: true
    }
  }

  /// Display order.
  public static func < (a: Self, b: Self) -> Bool {
    allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
  }
}

/// The eight hue bands of the colour mixer, centred on these hues (degrees, HSV hue of sRGB):
/// red 0, orange 30, yellow 60, green 120, aqua 180, blue 225, purple 270, magenta 315.
public enum ColorBand: String, Sendable, Hashable, Codable, CaseIterable {
  case red, orange, yellow, green, aqua, blue, purple, magenta

  /// The band's centre hue in degrees.
  public var centerHue: Double {
    switch self {
    case .red: 0
    case .orange: 30
    case .yellow: 60
    case .green: 120
    case .aqua: 180
    case .blue: 225
    case .purple: 270
    case .magenta: 315
    }
  }
}

/// What a colour-mixer slider moves within its band.
public enum MixerChannel: String, Sendable, Hashable, Codable, CaseIterable {
  case hue, saturation, luminance
}
