// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchTestSupport
import Testing

@testable import RetouchIO

/// The metadata blocks of a JPEG, found by walking its markers up to the first scan; the tests'
/// own extractor, so they do not depend on the JPEG codec.
func jpegBlocks(_ data: Data) -> MetadataBlocks {
  let b = [UInt8](data)
  var blocks = MetadataBlocks()
  var iccChunks: [(Int, [UInt8])] = []
  var i = 2
  while i + 4 <= b.count, b[i] == 0xFF {
    let marker = b[i + 1]
    if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) {
      i += 2
      continue
    }
    if marker == 0xDA || marker == 0xD9 { break }
    let length = Int(b[i + 2]) << 8 | Int(b[i + 3])
    let start = i + 4
    let end = min(i + 2 + length, b.count)
    guard length >= 2, start <= end else { break }
    let payload = Array(b[start..<end])
    func starts(_ s: String) -> Bool { payload.starts(with: Array(s.utf8)) }
    if marker == 0xE1, starts("Exif\0\0") {
      blocks.exif = Data(payload.dropFirst(6))
    } else if marker == 0xE1, starts("http://ns.adobe.com/xap/1.0/\0") {
      blocks.xmp = Data(payload.dropFirst(29))
    } else if marker == 0xE2, starts("ICC_PROFILE\0"), payload.count > 14 {
      iccChunks.append((Int(payload[12]), Array(payload.dropFirst(14))))
    } else if marker == 0xE2, starts("MPF\0") {
      blocks.mpf = Data(payload.dropFirst(4))
    }
    i = end
  }
  if !iccChunks.isEmpty {
    blocks.iccProfile = Data(iccChunks.sorted { $0.0 < $1.0 }.flatMap(\.1))
  }
  return blocks
}

/// The blocks of a shared photo by manifest id.
func photoBlocks(_ id: String) throws -> MetadataBlocks {
  jpegBlocks(try SharedPhotos.data(id))
}

/// Parses a shared photo's metadata with a stored size from its manifest row.
func parsed(_ id: String) throws -> (PhotoMetadata, [String]) {
  let entry = SharedPhotos.entry(id)
  let size = PixelSize(
    width: Int(entry.fields["width"] ?? "") ?? 1, height: Int(entry.fields["height"] ?? "") ?? 1)
  var warnings: [String] = []
  let m = PhotoMetadata(parsing: try photoBlocks(id), storedSize: size, warnings: &warnings)
  return (m, warnings)
}

/// Expected values were read with ExifTool 12.57 (`exiftool -n`) from the same files.
@Suite struct MetadataTests {
  // MARK: EXIF fields from real cameras

  @Test func olympusEP3() throws {
    let (m, warnings) = try parsed("g12")
    #expect(warnings.isEmpty)
    #expect(m.cameraMake == "OLYMPUS IMAGING CORP.")
    #expect(m.cameraModel == "E-P3")
    // ExifTool shows a lens model, but from the Olympus maker note: EXIF 0xA434 is absent.
    #expect(m.lensModel == nil)
    #expect(abs((m.exposureTime ?? 0) - 1.0 / 30) < 1e-9)
    #expect(m.fNumber == 3.6)
    #expect(m.iso == 1600)
    #expect(m.exposureBias == 0)
    #expect(m.meteringMode == .pattern)
    #expect(m.flash == Flash(rawValue: 8))
    #expect(m.flash?.fired == false)
    #expect(m.focalLength == 15)
    #expect(m.dateTimeOriginal == "2014:08:23 13:05:43")
    #expect(m.software == "Version 1.3")
    #expect(m.orientation == .up)
    #expect(m.gps == nil)
    #expect(m.pixelSize == PixelSize(width: 4032, height: 3024))
    #expect(m.blocks.exif != nil)
  }

  @Test func canonEOS30D() throws {
    let (m, _) = try parsed("g63")
    #expect(m.cameraMake == "Canon")
    #expect(m.cameraModel == "Canon EOS 30D")
    #expect(m.exposureTime == 0.0125)
    #expect(m.fNumber == 5.6)
    #expect(m.iso == 100)
    // EXIF 0x9207 says 6 (partial); the Canon maker note's own MeteringMode (4) is not used.
    #expect(m.meteringMode == .partial)
    #expect(m.flash?.rawValue == 16)
    #expect(m.focalLength == 240)
    #expect(m.dateTimeOriginal == "2009:07:17 14:37:26")
  }

  @Test func iPhone4S() throws {
    let (m, warnings) = try parsed("g76")
    #expect(warnings.isEmpty)
    #expect(m.cameraMake == "Apple")
    #expect(m.cameraModel == "iPhone 4S")
    #expect(abs((m.exposureTime ?? 0) - 1.0 / 1493) < 1e-9)
    #expect(m.fNumber == 2.4)
    #expect(m.iso == 64)
    #expect(abs((m.brightnessValue ?? 0) - 9.193846154) < 1e-6)
    #expect(m.focalLength == 4.28)
    #expect(m.focalLength35mm == 35)
    #expect(m.orientation == .right)
    #expect(m.software == "5.1.1")
    #expect(m.dateTimeOriginal == "2012:08:26 15:53:03")
    #expect(m.gps == nil)  // this file has no GPS IFD
  }

  @Test func iPhone5WithGPS() throws {
    let (m, _) = try parsed("g77")
    #expect(m.orientation == .down)
    #expect(m.meteringMode == .spot)
    let gps = try #require(m.gps)
    #expect(abs(gps.latitude - 47.6271666666667) < 1e-9)
    #expect(abs(gps.longitude - -122.337333333333) < 1e-9)  // ref W makes it negative
    #expect(abs((gps.altitude ?? 0) - 3.984466589) < 1e-6)
  }

  @Test func canon1300DWithSubsecondsAndLens() throws {
    let (m, _) = try parsed("g89")
    #expect(m.cameraModel == "Canon EOS 1300D")
    #expect(m.lensModel == "EF-S18-55mm f/3.5-5.6 III")
    #expect(m.exposureTime == 0.00625)
    #expect(m.fNumber == 10)
    #expect(m.iso == 400)
    #expect(m.subsecTimeOriginal == "54")
    #expect(m.dateTimeOriginal == "2019:10:26 16:07:24")
  }

  @Test func emptyGPSIsNil() throws {
    // GPSLatitude/GPSLongitude are 0/0 rationals here: no position.
    let (m, _) = try parsed("g59")
    #expect(m.gps == nil)
    #expect(m.cameraMake == "motorola")
    #expect(m.iso == 234)
    #expect(m.subsecTimeOriginal == "023460")
  }

  @Test func pixelWithNegativeAltitudeAndLensMake() throws {
    // Pixel: GPSAltitudeRef 1 (below sea level), altitude 160/100, no lat/long.
    let (m, _) = try parsed("g31")
    #expect(m.gps == nil)
    #expect(m.lensMake == "Google")
    #expect(m.offsetTimeOriginal == "+02:00")
    #expect(m.fNumber == 1.85)
  }

  @Test func exifXMPAndICCTogether() throws {
    let (m, warnings) = try parsed("g25")
    #expect(warnings.isEmpty)
    #expect(m.orientation == .right)
    #expect(m.offsetTimeOriginal == "-07:00")
    #expect(m.subsecTimeOriginal == "250586")
    #expect(m.software == "HDR+ 1.0.334700659zd")
    #expect(m.iso == 38)
    #expect(m.meteringMode == .centerWeighted)
    #expect(m.colorProfile?.description == "sRGB IEC61966-2.1")
    #expect(m.colorProfile?.iccProfile == m.blocks.iccProfile)
    #expect(m.blocks.xmp != nil)
    // 2020:10:01 17:08:26 at -07:00 is 2020-10-02 00:08:26 UTC.
    #expect(m.captureDate == Date(timeIntervalSince1970: 1_601_597_306))
  }

  @Test(arguments: [
    ("g04", ImageOrientation.up), ("g05", .upMirrored), ("g06", .down), ("g07", .downMirrored),
    ("g08", .leftMirrored), ("g09", .right), ("g10", .rightMirrored), ("g11", .left),
  ])
  func orientationFiles(id: String, expected: ImageOrientation) throws {
    let (m, warnings) = try parsed(id)
    #expect(m.orientation == expected)
    #expect(warnings.isEmpty)
    #expect(expected.rawValue == SharedPhotos.entry(id).orientation)
  }

  @Test func xmpFallbackForSoftware() throws {
    // g04's EXIF is minimal (no Software); its XMP names the creator tool.
    let (m, _) = try parsed("g04")
    #expect(m.software == "Adobe Photoshop CS5 Macintosh")
    #expect(m.cameraMake == nil)
  }

  @Test func iccDescriptions() throws {
    let (p3, _) = try parsed("g52")
    #expect(p3.colorProfile?.description == "Display P3")  // v4 'mluc'
    #expect(p3.cameraModel == "NIKON D800E")
    #expect(p3.software == "Adobe Photoshop CC 2015.5 (Macintosh)")  // EXIF wins over XMP
    let (adobe, _) = try parsed("g54")
    #expect(adobe.colorProfile?.description == "Adobe RGB (1998)")  // v2 'desc'
    #expect(adobe.flash?.fired == true)
    let (generic, _) = try parsed("g05")
    #expect(generic.colorProfile?.description == "Generic RGB Profile")
  }

  @Test func nclxWithoutProfile() {
    var warnings: [String] = []
    let nclx = NCLXColorInfo(
      colorPrimaries: 12, transferCharacteristics: 13, matrixCoefficients: 1, fullRange: true)
    let m = PhotoMetadata(
      parsing: MetadataBlocks(nclx: nclx), storedSize: PixelSize(width: 8, height: 8),
      warnings: &warnings)
    #expect(m.colorProfile == ColorProfileInfo(description: "Display P3", nclx: nclx))
    let bt709 = NCLXColorInfo(
      colorPrimaries: 1, transferCharacteristics: 1, matrixCoefficients: 1, fullRange: false)
    #expect(ICCDescription.name(for: bt709) == "BT.709 / sRGB")
    let pq = NCLXColorInfo(
      colorPrimaries: 9, transferCharacteristics: 16, matrixCoefficients: 9, fullRange: false)
    #expect(ICCDescription.name(for: pq) == "BT.2100 PQ")
  }

  // MARK: MPF

  @Test(arguments: ["g28", "g31"])
  func multiPictureIndex(id: String) throws {
    let data = try SharedPhotos.data(id)
    let (m, warnings) = try parsed(id)
    #expect(warnings.isEmpty)
    let entries = try #require(m.multiPicture)
    #expect(entries.count == 2)
    #expect(entries[0].attribute & 0xFF_FFFF == 0x03_0000)  // baseline primary image
    #expect(entries[0].offset == 0)
    for e in entries {
      #expect(e.size > 0 && e.size <= data.count)
    }
    // The second image is a whole JPEG: its SOI sits at the stored offset plus the position of
    // the MP header's endian marker (just after "MPF\0" in the APP2 segment).
    let b = [UInt8](data)
    let mpf = try #require(b.firstRange(of: Array("MPF\0".utf8)))
    let soi = mpf.upperBound + entries[1].offset
    #expect(soi + 2 <= b.count && b[soi] == 0xFF && b[soi + 1] == 0xD8)
  }

  @Test func mpfValuesMatchExifTool() throws {
    let (m, _) = try parsed("g28")
    #expect(
      m.multiPicture == [
        MultiPictureEntry(attribute: 0x03_0000, size: 44891, offset: 0),
        // ExifTool prints 44821: it adds 2834, the file position of the MP endian marker.
        MultiPictureEntry(attribute: 0, size: 6003, offset: 41987),
      ])
  }

  // MARK: XMP

  @Test func xmpAttributeAndElementForms() {
    let packet = """
      <x:xmpmeta xmlns:x="adobe:ns:meta/">
      <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
      <rdf:Description rdf:about="" xmlns:t="http://ns.adobe.com/tiff/1.0/" t:Orientation = '8'
        xmlns:xmp="http://ns.adobe.com/xap/1.0/">
        <xmp:CreatorTool>Tom &amp; Jerry&#x21;</xmp:CreatorTool>
        <exif:DateTimeOriginal>2021-03-04T05:06:07.25+09:30</exif:DateTimeOriginal>
      </rdf:Description></rdf:RDF></x:xmpmeta>
      """
    var warnings: [String] = []
    let m = PhotoMetadata(
      parsing: MetadataBlocks(xmp: Data(packet.utf8)), storedSize: PixelSize(width: 2, height: 3),
      warnings: &warnings)
    #expect(warnings.isEmpty)
    #expect(m.orientation == .left)
    #expect(m.software == "Tom & Jerry!")
    #expect(m.dateTimeOriginal == "2021:03:04 05:06:07")
    #expect(m.subsecTimeOriginal == "25")
    #expect(m.offsetTimeOriginal == "+09:30")
    #expect(m.blocks.xmp == Data(packet.utf8))
  }

  @Test func exifOrientationBeatsXMP() throws {
    var blocks = try photoBlocks("g09")  // EXIF orientation 6
    blocks.xmp = Data(#"<rdf:Description tiff:Orientation="3"/>"#.utf8)
    var warnings: [String] = []
    let m = PhotoMetadata(
      parsing: blocks, storedSize: PixelSize(width: 450, height: 600), warnings: &warnings)
    #expect(m.orientation == .right)
  }

  @Test func photoshopDateCreatedFallback() {
    let xmp = #"<rdf:Description photoshop:DateCreated="2013-03-05T17:29:26.075"/>"#
    var warnings: [String] = []
    let m = PhotoMetadata(
      parsing: MetadataBlocks(xmp: Data(xmp.utf8)), storedSize: PixelSize(width: 1, height: 1),
      warnings: &warnings)
    #expect(m.dateTimeOriginal == "2013:03:05 17:29:26")
    #expect(m.subsecTimeOriginal == "075")
    #expect(m.offsetTimeOriginal == nil)
  }

  // MARK: Malformed input

  @Test func invalidOrientationWarnsAndIsUp() throws {
    var exif = [UInt8](try #require(try photoBlocks("g09").exif))
    // Find the IFD0 Orientation entry (II order) and store 9.
    let tiff = try #require(TIFFReader(bytes: exif))
    let count = Int(try #require(tiff.u16(at: tiff.firstIFDOffset)))
    var patched = false
    for i in 0..<count {
      let p = tiff.firstIFDOffset + 2 + i * 12
      if tiff.u16(at: p) == 0x0112 {
        let valueAt = p + 8
        if tiff.bigEndian { exif[valueAt + 1] = 9 } else { exif[valueAt] = 9 }
        patched = true
      }
    }
    #expect(patched)
    var warnings: [String] = []
    let m = PhotoMetadata(
      parsing: MetadataBlocks(exif: Data(exif)), storedSize: PixelSize(width: 1, height: 1),
      warnings: &warnings)
    #expect(m.orientation == .up)
    #expect(warnings.contains { $0.contains("orientation 9") })
  }

  @Test func garbageBlocksWarn() {
    var warnings: [String] = []
    let junk = Data("this is not metadata at all".utf8)
    let m = PhotoMetadata(
      parsing: MetadataBlocks(exif: junk, xmp: junk, iccProfile: junk, mpf: junk),
      storedSize: PixelSize(width: 5, height: 7), warnings: &warnings)
    #expect(warnings.count == 3)  // EXIF, ICC and MPF; junk XMP simply has no properties
    #expect(m.cameraMake == nil)
    #expect(m.pixelSize == PixelSize(width: 5, height: 7))
    #expect(m.colorProfile?.description == nil)
    #expect(m.multiPicture == nil)
  }

  // MARK: Export

  /// Parses an exported EXIF block back.
  func reparse(_ blocks: MetadataBlocks) -> (PhotoMetadata, [String]) {
    var warnings: [String] = []
    let m = PhotoMetadata(
      parsing: blocks, storedSize: PixelSize(width: 1, height: 1), warnings: &warnings)
    return (m, warnings)
  }

  /// IFD directories of an exported block: (IFD0, EXIF IFD, next-IFD link of IFD0).
  func directories(_ exif: Data) throws -> (TIFFReader, TIFFDirectory, TIFFDirectory) {
    let tiff = try #require(TIFFReader(exif))
    let ifd0 = try #require(tiff.directory(at: tiff.firstIFDOffset))
    let p = try #require(ifd0.entry(0x8769)?.integer(bigEndian: tiff.bigEndian))
    let exifIFD = try #require(tiff.directory(at: Int(p)))
    return (tiff, ifd0, exifIFD)
  }

  @Test func exportRoundTripKeepsCameraFacts() throws {
    let (source, _) = try parsed("g76")
    let image = Image(width: 640, height: 480, format: .rgb8)
    let out = ExportMetadata.blocks(for: image, from: source, software: "Retouch 0.1")
    let exif = try #require(out.exif)
    #expect(exif.count <= ExportMetadata.maximumEXIFBytes)
    let (m, warnings) = reparse(out)
    #expect(warnings.isEmpty)
    #expect(m.cameraMake == source.cameraMake)
    #expect(m.cameraModel == source.cameraModel)
    #expect(m.exposureTime == source.exposureTime)
    #expect(m.fNumber == source.fNumber)
    #expect(m.iso == source.iso)
    #expect(m.dateTimeOriginal == source.dateTimeOriginal)
    #expect(m.brightnessValue == source.brightnessValue)
    #expect(m.focalLength35mm == source.focalLength35mm)
    #expect(m.orientation == .up)
    #expect(m.software == "Retouch 0.1")
    let (tiff, ifd0, exifIFD) = try directories(exif)
    #expect(ifd0.nextOffset == 0)  // no IFD1 thumbnail
    #expect(exifIFD.entry(0xA002)?.integer(bigEndian: tiff.bigEndian) == 640)
    #expect(exifIFD.entry(0xA003)?.integer(bigEndian: tiff.bigEndian) == 480)
    #expect(exifIFD.entry(0xA001)?.integer(bigEndian: tiff.bigEndian) == 1)
    // DateTime (0x0132) is the original's, not the time of export.
    #expect(ifd0.entry(0x0132)?.value == Array("2012:08:26 15:53:03\0".utf8))
    #expect(out.mpf == nil)
    // The image's own profile, or nil (never empty bytes) while none is available.
    let icc = ICCProfiles.data(for: .sRGB)
    #expect(out.iccProfile == (icc.isEmpty ? nil : icc))
    if let written = out.iccProfile {
      #expect(ICCDescription.read(written) != nil)
    }
  }

  @Test(arguments: ["g77", "g12", "g63", "g89", "g25", "g52", "g31"])
  func exportKeepsEveryTypedField(id: String) throws {
    let (source, _) = try parsed(id)
    let image = Image(width: 33, height: 17, format: .rgb8, colorSpace: .displayP3)
    let out = ExportMetadata.blocks(for: image, from: source, software: "Retouch")
    let (m, warnings) = reparse(MetadataBlocks(exif: out.exif))
    #expect(warnings.isEmpty)
    #expect(m.gps == source.gps)
    #expect(m.lensModel == source.lensModel)
    #expect(m.lensMake == source.lensMake)
    #expect(m.exposureBias == source.exposureBias)
    #expect(m.meteringMode == source.meteringMode)
    #expect(m.flash == source.flash)
    #expect(m.focalLength == source.focalLength)
    #expect(m.offsetTimeOriginal == source.offsetTimeOriginal)
    #expect(m.subsecTimeOriginal == source.subsecTimeOriginal)
    #expect(m.orientation == .up)
    let (tiff, ifd0, exifIFD) = try directories(try #require(out.exif))
    #expect(ifd0.nextOffset == 0)
    #expect(exifIFD.entry(0xA001)?.integer(bigEndian: tiff.bigEndian) == 0xFFFF)
    #expect(exifIFD.entry(0xA005) == nil)  // no DCF interoperability code for Display P3
  }

  @Test func exportWithoutMetadataWritesMinimalEXIF() throws {
    let image = Image(width: 7, height: 9, format: .rgba8)
    let out = ExportMetadata.blocks(for: image, from: nil, software: "Retouch")
    let (m, _) = reparse(out)
    #expect(m.orientation == .up)
    #expect(m.software == "Retouch")
    #expect(m.cameraMake == nil)
    #expect(out.xmp == nil)
    let (tiff, ifd0, exifIFD) = try directories(try #require(out.exif))
    #expect(ifd0.entry(0x0112)?.integer(bigEndian: tiff.bigEndian) == 1)
    #expect(exifIFD.entry(0xA002)?.integer(bigEndian: tiff.bigEndian) == 7)
    #expect(exifIFD.entry(0xA003)?.integer(bigEndian: tiff.bigEndian) == 9)
    #expect(exifIFD.entry(0xA001)?.integer(bigEndian: tiff.bigEndian) == 1)
    // Deterministic: the same inputs give the same bytes.
    #expect(ExportMetadata.blocks(for: image, from: nil, software: "Retouch") == out)
  }

  @Test func exportFromTypedFieldsWithoutEXIFBlock() throws {
    var source = PhotoMetadata()
    source.cameraMake = "Maker"
    source.cameraModel = "Model X"
    source.exposureTime = 1.0 / 1493
    source.fNumber = 2.4
    source.iso = 64
    source.exposureBias = -0.7
    source.focalLength = 4.28
    source.dateTimeOriginal = "2012:08:26 15:53:03"
    source.offsetTimeOriginal = "-07:00"
    source.gps = GPSLocation(latitude: -33.8568, longitude: 151.2153, altitude: -12.5)
    source.orientation = .right
    let out = ExportMetadata.blocks(
      for: Image(width: 4, height: 3, format: .rgb8), from: source, software: "Retouch")
    let (m, warnings) = reparse(out)
    #expect(warnings.isEmpty)
    #expect(m.cameraMake == "Maker" && m.cameraModel == "Model X")
    #expect(abs((m.exposureTime ?? 0) - 1.0 / 1493) < 1e-12)
    #expect(m.fNumber == 2.4 && m.iso == 64 && m.focalLength == 4.28)
    #expect(abs((m.exposureBias ?? 0) - -0.7) < 1e-9)
    #expect(m.dateTimeOriginal == "2012:08:26 15:53:03" && m.offsetTimeOriginal == "-07:00")
    let gps = try #require(m.gps)
    #expect(abs(gps.latitude - -33.8568) < 1e-6 && abs(gps.longitude - 151.2153) < 1e-6)
    #expect(gps.altitude == -12.5)
    #expect(m.orientation == .up)
  }

  @Test func exportCorrectsXMPOnly() throws {
    // d16's XMP holds exif:PixelXDimension/PixelYDimension 4912×3264 as elements.
    let source = try #require(try photoBlocks("d16").xmp)
    var metadata = PhotoMetadata()
    metadata.blocks.xmp = source
    let out = ExportMetadata.blocks(
      for: Image(width: 300, height: 200, format: .rgb8), from: metadata, software: "Retouch")
    let xmp = String(decoding: try #require(out.xmp), as: UTF8.self)
    #expect(xmp.contains("<exif:PixelXDimension>300</exif:PixelXDimension>"))
    #expect(xmp.contains("<exif:PixelYDimension>200</exif:PixelYDimension>"))
    // Nothing else changed: undoing the two substitutions gives the source back.
    let restored = xmp.replacingOccurrences(of: ">300<", with: ">4912<")
      .replacingOccurrences(of: ">200<", with: ">3264<")
    #expect(Data(restored.utf8) == source)

    let attributes =
      #"<rdf:Description tiff:Orientation="6" tiff:ImageWidth='10' exif:ExposureTime="1/60"/>"#
    metadata.blocks.xmp = Data(attributes.utf8)
    let out2 = ExportMetadata.blocks(
      for: Image(width: 300, height: 200, format: .rgb8), from: metadata, software: "Retouch")
    #expect(
      out2.xmp
        == Data(
          #"<rdf:Description tiff:Orientation="1" tiff:ImageWidth='300' exif:ExposureTime="1/60"/>"#
            .utf8))
  }

  /// Canon (offsets relative to the TIFF header, big or little endian) and Olympus (offsets
  /// relative to the maker note) maker notes.
  @Test(arguments: ["g63", "g12", "g89"])
  func exportKeepsMakerNoteAtItsOffset(id: String) throws {
    let (source, _) = try parsed(id)
    let out = ExportMetadata.blocks(
      for: Image(width: 64, height: 48, format: .rgb8), from: source, software: "Retouch")
    let (tiff, _, exifIFD) = try directories(try #require(out.exif))
    let (sourceTIFF, _, sourceExif) = try directories(try #require(source.blocks.exif))
    let note = try #require(sourceExif.entry(0x927C))
    let kept = try #require(exifIFD.entry(0x927C))
    #expect(kept.value == note.value)
    #expect(kept.valueOffset == note.valueOffset)
    #expect(tiff.bigEndian == sourceTIFF.bigEndian)
  }

  @Test func exportSetsInteroperabilityForTheColorSpace() throws {
    // g63 has an interoperability IFD saying R98; make it R03 (Adobe RGB) first.
    var (source, _) = try parsed("g63")
    var exif = [UInt8](try #require(source.blocks.exif))
    let r98 = try #require(exif.firstRange(of: Array("R98\0".utf8)))
    exif.replaceSubrange(r98, with: Array("R03\0".utf8))
    source.blocks.exif = Data(exif)
    let out = ExportMetadata.blocks(
      for: Image(width: 8, height: 8, format: .rgb8), from: source, software: "Retouch")
    let (tiff, _, exifIFD) = try directories(try #require(out.exif))
    let p = try #require(exifIFD.entry(0xA005)?.integer(bigEndian: tiff.bigEndian))
    let interop = try #require(tiff.directory(at: Int(p)))
    #expect(interop.entry(0x0001)?.value == Array("R98\0".utf8))
    #expect(exifIFD.entry(0xA001)?.integer(bigEndian: tiff.bigEndian) == 1)
    let p3 = ExportMetadata.blocks(
      for: Image(width: 8, height: 8, format: .rgb8, colorSpace: .displayP3), from: source,
      software: "Retouch")
    let (p3TIFF, _, p3Exif) = try directories(try #require(p3.exif))
    #expect(p3Exif.entry(0xA005) == nil)
    #expect(p3Exif.entry(0xA001)?.integer(bigEndian: p3TIFF.bigEndian) == 0xFFFF)
  }

  // MARK: Hostile input (seeded fuzzing)

  /// Mutates `bytes`: bit flips, overwritten 16/32-bit words with huge or small values (counts
  /// and offsets), truncation, and duplicated ranges.
  func mutate(_ bytes: [UInt8], rng: inout SeededRandom) -> [UInt8] {
    var b = bytes
    guard !b.isEmpty else { return b }
    for _ in 0..<Int.random(in: 1...8, using: &rng) {
      switch Int.random(in: 0..<6, using: &rng) {
      case 0:
        let i = Int.random(in: 0..<b.count, using: &rng)
        b[i] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &rng)
      case 1, 2:
        guard b.count >= 4 else { continue }
        // Aim at directory structure near the start half of the time.
        let range = Bool.random(using: &rng) ? 0..<min(b.count - 3, 512) : 0..<(b.count - 3)
        let i = Int.random(in: range, using: &rng)
        let values: [UInt32] = [
          0xFFFF_FFFF, 0x7FFF_FFFF, 0xFFFF, 0x8000_0000, 0, 1, UInt32(b.count),
          UInt32(b.count - 1), UInt32.random(in: 0...UInt32.max, using: &rng),
        ]
        let v = values[Int.random(in: 0..<values.count, using: &rng)]
        for k in 0..<4 { b[i + k] = UInt8(truncatingIfNeeded: v >> (8 * UInt32(k))) }
      case 3:
        b = Array(b.prefix(Int.random(in: 0...b.count, using: &rng)))
        if b.isEmpty { return b }
      case 4:
        let i = Int.random(in: 0..<b.count, using: &rng)
        b[i] = UInt8.random(in: 0...255, using: &rng)
      default:
        let i = Int.random(in: 0..<b.count, using: &rng)
        let n = Int.random(in: 0...min(64, b.count - i), using: &rng)
        b.insert(contentsOf: b[i..<i + n], at: Int.random(in: 0...b.count, using: &rng))
      }
    }
    return b
  }

  /// Seed 0x5EED_0001; 2,000 mutants per source block kind, each parsed and exported.
  @Test func fuzzSeed5EED0001ParsesAndExportsMutants() throws {
    var rng = SeededRandom(seed: 0x5EED_0001)
    let sources = try ["g76", "g63", "g12", "g25", "g28", "g54", "g52"].map(photoBlocks)
    let image = Image(width: 3, height: 2, format: .rgb8)
    var parsedCount = 0
    for round in 0..<2000 {
      let s = sources[round % sources.count]
      var blocks = MetadataBlocks()
      if let e = s.exif { blocks.exif = Data(mutate([UInt8](e), rng: &rng)) }
      if let x = s.xmp { blocks.xmp = Data(mutate([UInt8](x), rng: &rng)) }
      if let i = s.iccProfile { blocks.iccProfile = Data(mutate([UInt8](i), rng: &rng)) }
      if let m = s.mpf { blocks.mpf = Data(mutate([UInt8](m), rng: &rng)) }
      var warnings: [String] = []
      let m = PhotoMetadata(
        parsing: blocks, storedSize: PixelSize(width: 3, height: 2), warnings: &warnings)
      #expect(m.blocks == blocks)
      let out = ExportMetadata.blocks(for: image, from: m, software: "Retouch")
      let exif = try #require(out.exif)
      #expect(exif.count <= ExportMetadata.maximumEXIFBytes)
      // Whatever went in, the export is well-formed with orientation 1 and no thumbnail (its
      // values may still be nonsense, e.g. a mutated GPS position, which is carried as is).
      let (again, _) = reparse(MetadataBlocks(exif: exif))
      #expect(again.orientation == .up)
      let tiff = try #require(TIFFReader(exif))
      let ifd0 = try #require(tiff.directory(at: tiff.firstIFDOffset))
      #expect(ifd0.skippedEntries == 0 && ifd0.nextOffset == 0)
      parsedCount += 1
    }
    #expect(parsedCount == 2000)
  }
}
