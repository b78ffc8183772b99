// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchIO
import Testing

@testable import RetouchLibrary

@Suite struct ThumbnailTests {
  /// Import makes no thumbnails; the first request makes one of the current look, later ones
  /// reuse it, an edit gets its own, and the checker drops thumbnails of purged photos.
  @Test func madeLazilyOfTheCurrentLook() throws {
    let scratch = try ScratchFolder()
    defer { scratch.cleanUp() }
    let clock = TestClock()
    var options = PhotoLibrary.Options()
    options.clock = { clock.now }
    let library = try PhotoLibrary(at: scratch.path("Library"), options: options)
    let photos = try LibraryFixtures.smallPhotos(["g14"], longEdge: 400, in: scratch.url)
    let id = try #require(try library.importPhotos(from: photos).imported.first?.id)
    let folder = library.url.appendingPathComponent("Thumbnails")
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)

    let thumb = try library.thumbnailURL(for: id, maxDimension: 128)
    let header = try ImageDecoder().readMetadata(try Data(contentsOf: thumb))
    #expect(header.metadata.pixelSize.map { max($0.width, $0.height) } == 128)
    let modified =
      try FileManager.default.attributesOfItem(atPath: thumb.path)[.modificationDate] as? Date
    #expect(try library.thumbnailURL(for: id, maxDimension: 128) == thumb)
    #expect(
      try FileManager.default.attributesOfItem(atPath: thumb.path)[.modificationDate] as? Date
        == modified)

    try library.performChanges([
      .edit(id, output: try LibraryFixtures.output(in: scratch.url, payload: "e"))
    ])
    let edited = try library.thumbnailURL(for: id, maxDimension: 128)
    #expect(edited != thumb)
    #expect(try library.checkIntegrity().problems.isEmpty)

    try library.performChanges([.delete(id)])
    clock.advance(by: library.options.deletionRetention + 1)
    try library.purgeExpiredDeletions()
    _ = try library.checkIntegrity()
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
  }
}
