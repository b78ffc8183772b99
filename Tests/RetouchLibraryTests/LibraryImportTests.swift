// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchIO
import RetouchTestSupport
import Testing

@testable import RetouchLibrary

@Suite struct LibraryImportTests {
  /// A folder with good photos, a broken file in the middle, a duplicate under another name and
  /// a HEIC in a subfolder.
  func makeIncomingFolder(_ scratch: ScratchFolder) throws -> URL {
    let incoming = scratch.path("incoming")
    try FileManager.default.createDirectory(
      at: incoming.appendingPathComponent("sub"), withIntermediateDirectories: true)
    let made = try LibraryFixtures.smallPhotos(["g14", "g43", "g52"], in: scratch.url)
    try FileManager.default.copyItem(
      at: made[0], to: incoming.appendingPathComponent("1-canon.jpg"))
    try FileManager.default.copyItem(
      at: made[1], to: incoming.appendingPathComponent("2-iphone.jpg"))
    try Data("this is not a photo at all".utf8).write(
      to: incoming.appendingPathComponent("3-broken.jpg"))
    try FileManager.default.copyItem(
      at: made[2], to: incoming.appendingPathComponent("4-nikon.jpg"))
    try FileManager.default.copyItem(
      at: made[0], to: incoming.appendingPathComponent("5-copy-of-canon.jpg"))
    try LibraryFixtures.syntheticPhoto(seed: 7).write(
      to: incoming.appendingPathComponent("6-drawing.png"))
    try FileManager.default.copyItem(
      at: SharedPhotos.url("g16"), to: incoming.appendingPathComponent("sub/7-phone.heic"))
    try Data("notes".utf8).write(to: incoming.appendingPathComponent("readme.txt"))
    return incoming
  }

  @Test func importsFolderSkippingBadFileAndDuplicates() throws {
    let scratch = try ScratchFolder()
    defer { scratch.cleanUp() }
    let incoming = try makeIncomingFolder(scratch)
    let library = try PhotoLibrary(at: scratch.path("Library"))
    var reports: [ImportProgress] = []
    let result = try library.importPhotos(from: [incoming]) { reports.append($0) }

    #expect(
      result.imported.map(\.originalFilename) == [
        "1-canon.jpg", "2-iphone.jpg", "4-nikon.jpg", "6-drawing.png", "7-phone.heic",
      ])
    #expect(result.failures.map(\.file.lastPathComponent) == ["3-broken.jpg"])
    #expect(result.failures.first?.reason.contains("unsupported format") == true)
    #expect(result.duplicates.map(\.file.lastPathComponent) == ["5-copy-of-canon.jpg"])
    #expect(result.duplicates.first?.existing == result.imported.first?.id)
    // Progress after every file (the .txt is not a photo and not counted), in order.
    #expect(reports.map(\.completed) == Array(1...7))
    #expect(reports.allSatisfy { $0.total == 7 })
    #expect(try library.assets().count == 5)

    // A second import of the same folder adds nothing.
    let again = try library.importPhotos(from: [incoming])
    #expect(again.imported.isEmpty)
    #expect(again.duplicates.count == 6)
  }

  @Test func originalsAreByteIdenticalReadOnlyAndNamedByHash() throws {
    let scratch = try ScratchFolder()
    defer { scratch.cleanUp() }
    let incoming = try makeIncomingFolder(scratch)
    let library = try PhotoLibrary(at: scratch.path("Library"))
    let result = try library.importPhotos(from: [incoming])
    for asset in result.imported {
      let source = try Data(contentsOf: Self.source(of: asset, in: incoming))
      let original = library.originalURL(for: asset)
      #expect(try Data(contentsOf: original) == source)
      #expect(asset.originalHash == SHA256.hexDigest(source))
      #expect(original.deletingPathExtension().lastPathComponent == asset.originalHash)
      #expect(!FileManager.default.isWritableFile(atPath: original.path) || getuid() == 0)
      let mode =
        (try FileManager.default.attributesOfItem(atPath: original.path)[.posixPermissions]
        as? NSNumber)?.intValue
      #expect(mode == 0o444)
    }
  }

  @Test func metadataColumnsMatchTheFileHeaders() throws {
    let scratch = try ScratchFolder()
    defer { scratch.cleanUp() }
    let incoming = try makeIncomingFolder(scratch)
    let library = try PhotoLibrary(at: scratch.path("Library"))
    let result = try library.importPhotos(from: [incoming])
    for imported in result.imported {
      let asset = try library.asset(imported.id)
      let file = Self.source(of: asset, in: incoming)
      let header = try ImageDecoder().readMetadata(try Data(contentsOf: file))
      #expect(asset.format == header.format)
      #expect(asset.pixelSize == header.metadata.pixelSize)
      #expect(asset.orientation == header.metadata.orientation)
      #expect(asset.captureDate == header.metadata.captureDate)
      #expect(asset.cameraModel == PhotoLibrary.trimmed(header.metadata.cameraModel))
      #expect(asset.location == header.metadata.gps)
    }
    let heic = try #require(result.imported.first { $0.format == .heif })
    #expect(heic.pixelSize == PixelSize(width: 4032, height: 3024))
    #expect(heic.orientation.rawValue == 6)
    #expect(heic.camera?.contains("iPhone 13 Pro Max") == true)
    #expect(result.imported[0].camera?.contains("Canon") == true)
  }

  /// A folder import picks up WebP, TIFF and AVIF files too: the original is kept byte for byte,
  /// with its format and size recorded, and it decodes from the library.
  @Test(arguments: [(ImageFormat.webp, "webp"), (.tiff, "tif"), (.avif, "avif")])
  func importsWebPTIFFAndAVIF(format: ImageFormat, ext: String) throws {
    let scratch = try ScratchFolder()
    defer { scratch.cleanUp() }
    let incoming = scratch.path("incoming")
    try FileManager.default.createDirectory(at: incoming, withIntermediateDirectories: true)
    let bytes = try LibraryFixtures.syntheticPhoto(seed: 3, format: format, size: 64)
    try bytes.write(to: incoming.appendingPathComponent("photo.\(ext)"))
    let library = try PhotoLibrary(at: scratch.path("Library"))
    let result = try library.importPhotos(from: [incoming])
    let asset = try #require(result.imported.first, "\(result.failures)")
    #expect(asset.format == format)
    #expect(asset.pixelSize == PixelSize(width: 64, height: 48))
    #expect(try Data(contentsOf: library.originalURL(for: asset)) == bytes)
    #expect(library.originalURL(for: asset).pathExtension == ext)
    let decoded = try ImageDecoder().decode(library.originalURL(for: asset))
    #expect(decoded.image.size == PixelSize(width: 64, height: 48))
  }

  static func source(of asset: Asset, in incoming: URL) -> URL {
    let direct = incoming.appendingPathComponent(asset.originalFilename)
    return FileManager.default.fileExists(atPath: direct.path)
      ? direct : incoming.appendingPathComponent("sub/\(asset.originalFilename)")
  }
}
