// SPDX-License-Identifier: Apache-2.0

import RetouchCore
import Testing

@testable import RetouchAI

/// The measurements made at a photo's own size read a region of it in place (a framed picture
/// is not copied out of its frame) and must read exactly what a copy of that region reads.
@Suite struct PhotoRegionTests {
  @Test(arguments: [PixelFormat.rgb8, .rgba8, .rgb16, .rgba16])
  func aRegionReadsAsItsCopy(format: PixelFormat) {
    let photo = AnalysisCopyTests.noise(width: 900, height: 700, format: format)
    let rect: PictureBorder.PixelRect = (x: 37, y: 53, width: 610, height: 480)
    let region = PhotoRegion(photo, rect: rect)
    let copy = PictureBorder.crop(photo, to: rect)
    #expect(region.size == copy.size)

    func bytes(_ image: Image) -> [UInt8] { image.withUnsafeBytes { Array($0) } }
    let reducedRegion = bytes(AnalysisCopy.reduce(region, factor: 3))
    let reducedCopy = bytes(AnalysisCopy.reduce(copy, factor: 3))
    #expect(reducedRegion.count == reducedCopy.count)
    let differing = zip(reducedRegion, reducedCopy).enumerated().filter {
      $0.element.0 != $0.element.1
    }
    .map(\.offset)
    #expect(
      differing.isEmpty,
      "\(differing.count) of \(reducedCopy.count) bytes differ, first at \(differing.first ?? 0)")

    let sigma = NoiseMeasurement.sigma(of: region)
    #expect(sigma != nil)
    #expect(sigma == NoiseMeasurement.sigma(of: PhotoRegion(copy)))

    let floors = ExposureMeasurement.fullResolutionFloors(region)
    #expect(floors.floors.reduce(0, +) > 0, "the noise should put some pixels near black")
    #expect(floors == ExposureMeasurement.fullResolutionFloors(PhotoRegion(copy)))
  }
}
