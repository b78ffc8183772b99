// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchTestSupport
import Testing

@testable import RetouchIO

/// Every real photo of the shared set, through the public decoder.
@Suite("Decoding the shared photo set")
struct ManifestDecodeTests {
  /// Formats the manifest lists that Retouch does not decode, with the documented error kind (a
  /// DNG is a TIFF, whose variant, camera raw, is refused).
  static let outOfScope: [String: ImageDecodingError.Kind] = [
    "DNG": .unsupportedVariant, "MP4": .unsupportedFormat, "NPZ": .unsupportedFormat,
  ]

  static var entries: [SharedPhotos.Entry] {
    // The 200 MP HEIC has its own test below; everything else runs here.
    SharedPhotos.manifest.filter { $0.id != "g23" }
  }

  @Test func manifestIsThere() {
    #expect(
      SharedPhotos.manifest.count >= 100,
      "shared photos not found at \(SharedPhotos.directory.path)")
  }

  @Test(arguments: entries)
  func decodesWithTheDisplaySize(entry: SharedPhotos.Entry) throws {
    let decoder = ImageDecoder()
    if let kind = Self.outOfScope[entry.format] {
      let error = #expect(throws: ImageDecodingError.self) { try decoder.decode(entry.url) }
      #expect(error?.kind == kind, "\(entry.id): \(String(describing: error))")
      #expect(error?.description.hasPrefix("\(entry.url.lastPathComponent): ") == true)
      return
    }
    let decoded = try decoder.decode(entry.url)
    let expected = try #require(entry.displaySize, "\(entry.id) has no display size")
    #expect(
      decoded.image.width == expected.width && decoded.image.height == expected.height,
      "\(entry.id) \(entry.path): got \(decoded.image.size), manifest says \(expected.width)x\(expected.height)"
    )
    #expect(decoded.metadata.pixelSize != nil)
  }

  @Test func decodesThe200MegapixelHEIC() throws {
    let entry = SharedPhotos.entry("g23")
    var small = DecodeOptions()
    small.maxPixels = 100_000_000
    let error = #expect(throws: ImageDecodingError.self) {
      try ImageDecoder(options: small).decode(entry.url)
    }
    #expect(error?.kind == .tooLarge)
    let decoded = try ImageDecoder().decode(entry.url)
    #expect(decoded.image.size == PixelSize(width: 12240, height: 16320))
  }

  /// landscape_1 … landscape_8 are one photo stored in the eight orientations.
  @Test func theEightOrientationsComeOutIdentical() throws {
    let ids = ["g04", "g05", "g06", "g07", "g08", "g09", "g10", "g11"]
    let images = try ids.map { try ImageDecoder().decode(SharedPhotos.url($0)).image }
    let reference = images[0]
    for (id, image) in zip(ids, images).dropFirst() {
      #expect(image.size == reference.size, "\(id): \(image.size)")
      guard image.size == reference.size else { continue }
      let diff = ImageComparison.meanAbsoluteDifference(image, reference)
      // The eight files were re-encoded separately: JPEG noise of about 5 code values on average
      // is expected (measured 4.3–5.0). A wrong turn or flip must be far above that.
      #expect(diff < 7, "\(id) differs from landscape_1 by \(diff) on average")
      let wrong = ImageComparison.meanAbsoluteDifference(
        image.applyingOrientation(.down), reference)
      #expect(wrong > 3 * diff, "\(id): a 180° mistake (\(wrong)) would not be told apart")
    }
  }

  @Test func orientationCanBeKeptRaw() throws {
    var options = DecodeOptions()
    options.appliesOrientation = false
    let decoded = try ImageDecoder(options: options).decode(SharedPhotos.url("g09"))
    #expect(decoded.image.size == PixelSize(width: 450, height: 600))
    #expect(decoded.metadata.orientation == .right)
  }
}
