// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchIO

/// `retouch info FILE… [--json] [--check]`: what a photo is, as a photographer asks.
enum InfoCommand: Subcommand {
  static let spec = CommandSpec(
    name: "info",
    abstract: "Show format, size, orientation, colour profile, camera and exposure facts.",
    usage: "FILE... [--json] [--check] [--analysis]",
    options: [
      .init(name: "json", value: nil, help: "Print a JSON array, one object per file."),
      .init(name: "check", value: nil, help: "Also decode the pixels and report damage (slower)."),
      .init(
        name: "analysis", value: nil,
        help: "Print what Retouch measures (exposure, colour cast, faces, grain, scene) as JSON."),
    ],
    positionals: 1...Int.max,
    discussion: """
      Reads only the headers unless --check is given. Files that fail are reported and the others
      still shown; the exit code is then that of the first failure (65 bad data, 66 unreadable).
      """)

  static func run(_ arguments: ParsedArguments) throws(CLIError) -> Int32 {
    if arguments.flag("analysis") { return try runAnalysis(arguments) }
    var reports: [InfoReport] = []
    var exitCode: Int32 = 0
    for path in arguments.positionals {
      let url = URL(fileURLWithPath: path)
      do {
        reports.append(try report(for: url, shownAs: path, check: arguments.flag("check")))
      } catch {
        let cliError = CLIError(error)
        if exitCode == 0 { exitCode = cliError.code.rawValue }
        reports.append(InfoReport(file: path, error: error.description))
        if !arguments.flag("json") { Terminal.error("retouch info: \(error.description)") }
      }
    }
    if arguments.flag("json") {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
      guard let data = try? encoder.encode(reports), let text = String(data: data, encoding: .utf8)
      else {
        throw CLIError(code: .software, message: "could not encode the report as JSON.")
      }
      Terminal.out(text)
    } else {
      let texts = reports.filter { $0.error == nil }.map { $0.humanReadable }
      if !texts.isEmpty { Terminal.out(texts.joined(separator: "\n\n")) }
    }
    return exitCode
  }

  static func report(for url: URL, shownAs path: String, check: Bool) throws(ImageDecodingError)
    -> InfoReport
  {
    let data = try ImageDecoder.readFile(url)
    let decoder = ImageDecoder()
    let source = url.lastPathComponent
    var (format, metadata, warnings) = try decoder.readMetadata(data, source: source)
    var decodedSize: PixelSize?
    var workingSpace: ColorSpace?
    if check {
      let decoded = try decoder.decode(data, source: source)
      warnings = decoded.warnings
      decodedSize = decoded.image.size
      workingSpace = decoded.image.colorSpace
      metadata = decoded.metadata
    }
    return InfoReport(
      file: path, format: format, bytes: data.count, metadata: metadata, warnings: warnings,
      decodedSize: decodedSize, workingSpace: workingSpace)
  }
}

/// The facts `info` prints; also its JSON schema (keys sorted, units in the key names).
struct InfoReport: Codable {
  var file: String
  var error: String?
  var format: String?
  var bytes: Int?
  var width: Int?
  var height: Int?
  var orientation: Int?
  var displayWidth: Int?
  var displayHeight: Int?
  var colorProfile: String?
  var iccProfileBytes: Int?
  /// True when code points (a PNG's cICP) name the colour, so the ICC profile beside them is not
  /// used; absent otherwise.
  var iccProfileIgnored: Bool?
  var cameraMake: String?
  var cameraModel: String?
  var lensModel: String?
  var exposureTimeSeconds: Double?
  var fNumber: Double?
  var iso: Int?
  var exposureBiasEV: Double?
  var brightnessValueAPEX: Double?
  var meteringMode: String?
  var flashFired: Bool?
  var focalLengthMM: Double?
  var focalLength35mmMM: Int?
  var dateTimeOriginal: String?
  var offsetTimeOriginal: String?
  var latitude: Double?
  var longitude: Double?
  var altitudeM: Double?
  var software: String?
  var exifBytes: Int?
  var xmpBytes: Int?
  var iptcBytes: Int?
  var multiPictureImages: Int?
  var decodedWidth: Int?
  var decodedHeight: Int?
  var workingColorSpace: String?
  var warnings: [String]?

  init(file: String, error: String) {
    self.file = file
    self.error = error
  }

  init(
    file: String, format: ImageFormat, bytes: Int, metadata m: PhotoMetadata, warnings: [String],
    decodedSize: PixelSize?, workingSpace: ColorSpace?
  ) {
    self.file = file
    self.format = format.description
    self.bytes = bytes
    width = m.pixelSize?.width
    height = m.pixelSize?.height
    orientation = m.orientation.rawValue
    if let size = m.pixelSize {
      let display = m.orientation.displaySize(forStored: size)
      displayWidth = display.width
      displayHeight = display.height
    }
    colorProfile = m.colorProfile?.description ?? m.colorProfile?.nclx?.description
    iccProfileBytes = m.blocks.iccProfile?.count
    if m.blocks.nclx != nil && m.blocks.iccProfile != nil { iccProfileIgnored = true }
    cameraMake = m.cameraMake
    cameraModel = m.cameraModel
    lensModel = m.lensModel
    exposureTimeSeconds = m.exposureTime
    fNumber = m.fNumber
    iso = m.iso
    exposureBiasEV = m.exposureBias
    brightnessValueAPEX = m.brightnessValue
    meteringMode = m.meteringMode.map { "\($0)" }
    flashFired = m.flash?.fired
    focalLengthMM = m.focalLength
    focalLength35mmMM = m.focalLength35mm
    dateTimeOriginal = m.dateTimeOriginal
    offsetTimeOriginal = m.offsetTimeOriginal
    latitude = m.gps?.latitude
    longitude = m.gps?.longitude
    altitudeM = m.gps?.altitude
    software = m.software
    exifBytes = m.blocks.exif?.count
    xmpBytes = m.blocks.xmp?.count
    iptcBytes = m.blocks.iptc?.count
    multiPictureImages = m.multiPicture?.count
    decodedWidth = decodedSize?.width
    decodedHeight = decodedSize?.height
    workingColorSpace = workingSpace?.rawValue
    self.warnings = warnings
  }

  var humanReadable: String {
    var rows: [(String, String)] = []
    var line = "\(format ?? "?"), \(width ?? 0)×\(height ?? 0)"
    if let bytes { line += ", \(Self.byteString(bytes))" }
    rows.append(("format", line))
    if let o = orientation {
      let turn = Self.orientationText[o] ?? "?"
      var text = "\(o) (\(turn))"
      if o != 1, let w = displayWidth, let h = displayHeight { text += ", displays \(w)×\(h)" }
      rows.append(("orientation", text))
    }
    rows.append(
      (
        "color",
        colorProfile.map { p in
          iccProfileBytes.map { bytes in
            iccProfileIgnored == true
              ? "\(p) (code points; an ICC profile of \(Self.byteString(bytes)) is not used)"
              : "\(p) (ICC, \(Self.byteString(bytes)))"
          } ?? p
        }
          ?? "none declared (sRGB assumed)"
      ))
    let camera = [cameraMake, cameraModel].compactMap { $0 }.joined(separator: " ")
    if !camera.isEmpty {
      rows.append(("camera", camera + (lensModel.map { ", lens \($0)" } ?? "")))
    }
    var exposure: [String] = []
    if let t = exposureTimeSeconds {
      exposure.append(t < 1 && t > 0 ? "1/\(Int((1 / t).rounded())) s" : "\(Self.trim(t)) s")
    }
    if let f = fNumber { exposure.append("f/\(Self.trim(f))") }
    if let iso { exposure.append("ISO \(iso)") }
    if let b = exposureBiasEV { exposure.append(String(format: "%+.1f EV", b)) }
    if let bv = brightnessValueAPEX { exposure.append(String(format: "Bv %.2f", bv)) }
    if let m = meteringMode { exposure.append("metering \(m)") }
    if let fired = flashFired { exposure.append(fired ? "flash fired" : "no flash") }
    if !exposure.isEmpty { rows.append(("exposure", exposure.joined(separator: ", "))) }
    if let fl = focalLengthMM {
      rows.append(
        (
          "focal length",
          "\(Self.trim(fl)) mm" + (focalLength35mmMM.map { " (\($0) mm in 35 mm)" } ?? "")
        ))
    }
    if let d = dateTimeOriginal {
      rows.append(("taken", d + (offsetTimeOriginal.map { " \($0)" } ?? "")))
    }
    if let lat = latitude, let lon = longitude {
      var g = String(
        format: "%.5f° %@, %.5f° %@", abs(lat), lat >= 0 ? "N" : "S", abs(lon), lon >= 0 ? "E" : "W"
      )
      if let alt = altitudeM { g += String(format: ", %.0f m", alt) }
      rows.append(("location", g))
    }
    if let s = software { rows.append(("software", s)) }
    var blocks: [String] = []
    if let e = exifBytes { blocks.append("EXIF \(Self.byteString(e))") }
    if let x = xmpBytes { blocks.append("XMP \(Self.byteString(x))") }
    if let i = iptcBytes { blocks.append("IPTC \(Self.byteString(i))") }
    if let n = multiPictureImages { blocks.append("MPF \(n) images") }
    if !blocks.isEmpty { rows.append(("metadata", blocks.joined(separator: ", "))) }
    if let w = decodedWidth, let h = decodedHeight {
      rows.append(("decoded", "\(w)×\(h) upright, \(workingColorSpace ?? "?") working space"))
    }
    for w in warnings ?? [] { rows.append(("warning", w)) }
    let width = rows.map { $0.0.count }.max() ?? 0
    return
      ([file]
      + rows.map { "  " + $0.0 + String(repeating: " ", count: width - $0.0.count + 2) + $0.1 })
      .joined(separator: "\n")
  }

  static let orientationText: [Int: String] = [
    1: "upright", 2: "mirrored", 3: "turned 180°", 4: "mirrored upside down",
    5: "mirrored, turned 90° counter-clockwise", 6: "turn 90° clockwise to view",
    7: "mirrored, turned 90° clockwise", 8: "turn 90° counter-clockwise to view",
  ]

  static func byteString(_ n: Int) -> String {
    if n < 1024 { return "\(n) B" }
    if n < 1024 * 1024 { return String(format: "%.1f KB", Double(n) / 1024) }
    return String(format: "%.1f MB", Double(n) / 1_048_576)
  }

  static func trim(_ v: Double) -> String {
    v == v.rounded() ? String(Int(v)) : String(format: "%.1f", v)
  }
}
