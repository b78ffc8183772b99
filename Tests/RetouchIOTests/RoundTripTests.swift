// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchTestSupport
import Testing

@testable import RetouchIO

@Suite("Decode → encode → decode")
struct RoundTripTests {
  @Test(arguments: [ImageFormat.jpeg, .png, .heif, .webp, .tiff])
  func metadataSurvivesAndOrientationBecomesUp(format: ImageFormat) throws {
    // iPhone 5: orientation 3, camera, exposure, date and GPS.
    let original = try ImageDecoder().decode(SharedPhotos.url("g77"))
    let m0 = original.metadata
    #expect(m0.orientation == .down)
    #expect(m0.gps != nil)
    let small = original.image.resized(to: original.image.size.fitting(longEdge: 640))
    let data = try ImageEncoder().encode(small, as: format, metadata: m0)
    let back = try ImageDecoder().decode(data)
    let m1 = back.metadata
    #expect(back.format == format)
    #expect(back.image.size == small.size, "an upright file must not be turned again")
    #expect(m1.orientation == .up)
    #expect(m1.cameraMake == m0.cameraMake && m1.cameraModel == m0.cameraModel)
    #expect(m1.exposureTime == m0.exposureTime)
    #expect(m1.fNumber == m0.fNumber)
    #expect(m1.iso == m0.iso)
    #expect(m1.dateTimeOriginal == m0.dateTimeOriginal)
    #expect(m1.gps == m0.gps)
    #expect(m1.software == "Retouch")
  }

  /// An Adobe RGB photo is converted into the Display P3 working space: values change, and the
  /// output is tagged with a Display P3 profile.
  @Test func wideGamutProfilesAreConvertedNotRelabelled() throws {
    let url = SharedPhotos.url("s04")  // rocket.jpg, Adobe RGB (1998)
    let converted = try ImageDecoder().decode(url)
    var raw = DecodeOptions()
    raw.convertsColor = false
    let unconverted = try ImageDecoder(options: raw).decode(url)
    #expect(converted.image.colorSpace == .displayP3)
    let diff = ImageComparison.meanAbsoluteDifference(converted.image, unconverted.image)
    #expect(diff > 1, "Adobe RGB values were relabelled, not converted (mean change \(diff))")
    let out = try ImageEncoder().encode(converted.image, as: .jpeg, metadata: converted.metadata)
    let back = try ImageDecoder().decode(out)
    #expect(back.metadata.colorProfile?.description == "Display P3")
    #expect(back.image.colorSpace == .displayP3)
  }

  /// A Display P3 photo keeps its P3 values and its P3 tag through a round trip.
  @Test func displayP3StaysDisplayP3() throws {
    let decoded = try ImageDecoder().decode(SharedPhotos.url("g52"))
    #expect(decoded.image.colorSpace == .displayP3)
    let png = try ImageEncoder().encode(decoded.image, as: .png, metadata: decoded.metadata)
    let back = try ImageDecoder().decode(png)
    #expect(back.image.colorSpace == .displayP3)
    #expect(back.image.hasSamePixels(as: decoded.image))
  }
}
