// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore

/// What a photo editor needs to know about a photo, read from its EXIF, XMP, ICC and container.
///
/// Typed fields follow the EXIF 2.32 tags of the same names (units stated per field). The raw
/// ``blocks`` keep everything else so an export can carry it on.
public struct PhotoMetadata: Sendable, Hashable, Codable {
  /// Stored pixel size of the full-resolution image (before orientation).
  public var pixelSize: PixelSize?
  /// How the stored pixels must be turned to display upright (TIFF tag 0x0112; else XMP
  /// `tiff:Orientation`). Values outside 1...8 read as `ImageOrientation.up` with a warning.
  public var orientation: ImageOrientation = .up
  /// The colour profile the file declares.
  public var colorProfile: ColorProfileInfo?

  public var cameraMake: String?
  public var cameraModel: String?
  public var lensMake: String?
  public var lensModel: String?
  /// Seconds (0x829A).
  public var exposureTime: Double?
  /// Aperture as an f-number (0x829D).
  public var fNumber: Double?
  /// ISO speed: ISOSpeed (0x8833) when present, else PhotographicSensitivity (0x8827).
  public var iso: Int?
  /// Exposure compensation in EV (0x9204).
  public var exposureBias: Double?
  /// APEX brightness value Bv (0x9203): log2(B / (N·K)) with B in cd/m²; negative when dark.
  public var brightnessValue: Double?
  /// Metering mode (0x9207).
  public var meteringMode: MeteringMode?
  /// Flash (0x9209).
  public var flash: Flash?
  /// Millimetres (0x920A).
  public var focalLength: Double?
  /// Millimetres on a 35 mm frame (0xA405).
  public var focalLength35mm: Int?
  /// When the photo was taken, as written: `YYYY:MM:DD HH:MM:SS` (0x9003; else DateTime 0x0132,
  /// else XMP `exif:DateTimeOriginal` or `photoshop:DateCreated` converted to this form).
  public var dateTimeOriginal: String?
  /// The UTC offset of ``dateTimeOriginal``, `±HH:MM` (0x9011).
  public var offsetTimeOriginal: String?
  /// Sub-second digits of ``dateTimeOriginal`` (0x9291).
  public var subsecTimeOriginal: String?
  public var gps: GPSLocation?
  /// The program that wrote the file (0x0131; else XMP `xmp:CreatorTool`).
  public var software: String?
  /// Multi-Picture Format entries (gain maps, depth, previews) when the JPEG has an MPF index.
  public var multiPicture: [MultiPictureEntry]?

  /// The raw blocks, kept so nothing the user had is lost on export.
  public var blocks: MetadataBlocks = MetadataBlocks()

  public init() {}

  /// The capture time as a `Date`, using ``offsetTimeOriginal`` when present (UTC otherwise).
  public var captureDate: Date? {
    guard let s = dateTimeOriginal else { return nil }
    let parts = s.split(whereSeparator: { $0 == ":" || $0 == " " || $0 == "T" || $0 == "-" })
      .compactMap { Int($0) }
    guard parts.count >= 6 else { return nil }
    var c = DateComponents()
    (c.year, c.month, c.day, c.hour, c.minute, c.second) = (
      parts[0], parts[1], parts[2], parts[3], parts[4], parts[5]
    )
    var offsetSeconds = 0
    if let o = offsetTimeOriginal, o.count >= 6, let h = Int(o.dropFirst().prefix(2)),
      let m = Int(o.suffix(2))
    {
      offsetSeconds = (h * 3600 + m * 60) * (o.hasPrefix("-") ? -1 : 1)
    }
    c.timeZone = TimeZone(secondsFromGMT: offsetSeconds)
    var cal = Calendar(identifier: .gregorian)
    cal.timeZone = c.timeZone!
    return cal.date(from: c)
  }
}

/// The colour profile a file declares.
public struct ColorProfileInfo: Sendable, Hashable, Codable {
  /// The profile's description tag (`desc`), e.g. "Display P3".
  public var description: String?
  /// The ICC bytes, when the file embeds a profile.
  public var iccProfile: Data?
  /// Code-point colour (HEIF), when the file signals colour without a profile.
  public var nclx: NCLXColorInfo?

  public init(description: String? = nil, iccProfile: Data? = nil, nclx: NCLXColorInfo? = nil) {
    self.description = description
    self.iccProfile = iccProfile
    self.nclx = nclx
  }
}

/// EXIF metering mode (0x9207).
public enum MeteringMode: Int, Sendable, Hashable, Codable {
  case unknown = 0, average = 1, centerWeighted = 2, spot = 3, multiSpot = 4, pattern = 5,
    partial = 6, other = 255
}

/// EXIF flash (0x9209) decoded.
public struct Flash: Sendable, Hashable, Codable {
  /// The raw tag value.
  public var rawValue: Int
  /// Bit 0: the flash fired.
  public var fired: Bool { rawValue & 1 != 0 }
  public init(rawValue: Int) { self.rawValue = rawValue }
}

/// Where the photo was taken (WGS-84).
public struct GPSLocation: Sendable, Hashable, Codable {
  /// Degrees, north positive.
  public var latitude: Double
  /// Degrees, east positive.
  public var longitude: Double
  /// Metres above sea level (negative below).
  public var altitude: Double?
  public init(latitude: Double, longitude: Double, altitude: Double? = nil) {
    self.latitude = latitude
    self.longitude = longitude
    self.altitude = altitude
  }
}

/// One image listed in a JPEG's Multi-Picture Format index (CIPA DC-007).
public struct MultiPictureEntry: Sendable, Hashable, Codable {
  /// Individual image attribute: type code in the low 24 bits (e.g. 0x030000 primary,
  /// 0x010001 large thumbnail, 0x020002 multi-frame disparity).
  public var attribute: UInt32
  /// Byte length of the image, from its SOI to its EOI.
  public var size: Int
  /// Byte offset of the image's SOI as stored in the MP entry: relative to the MP header's
  /// endian marker (the byte after `MPF\0` in the APP2 segment), and 0 for the first image.
  /// Add the file position of that marker to get a file offset.
  public var offset: Int
  public init(attribute: UInt32, size: Int, offset: Int) {
    self.attribute = attribute
    self.size = size
    self.offset = offset
  }
}
