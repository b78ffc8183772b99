// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing

@testable import RetouchLibrary

@Suite struct AssetQueryTests {
  @Test func sortsAndFilters() throws {
    let scratch = try ScratchFolder()
    defer { scratch.cleanUp() }
    let clock = TestClock()
    var options = PhotoLibrary.Options()
    options.clock = { clock.now }
    let library = try PhotoLibrary(at: scratch.path("Library"), options: options)
    // Real photos with camera and capture date, imported one by one a minute apart.
    let files = try LibraryFixtures.smallPhotos(["g14", "g52", "g43", "d13"], in: scratch.url)
    var assets: [Asset] = []
    for file in files {
      clock.advance(by: 60)
      assets += try library.importPhotos(from: [file]).imported
    }
    #expect(assets.count == 4)
    let dated = assets.filter { $0.captureDate != nil }
    #expect(dated.count >= 3)

    let byImport = try library.assets(AssetQuery(sort: .importDate, ascending: true)).map(\.id)
    #expect(byImport == assets.map(\.id))
    #expect(try library.assets(AssetQuery(sort: .importDate)).map(\.id) == byImport.reversed())

    let byCapture = try library.assets(AssetQuery(sort: .captureDate, ascending: true))
    let keys = byCapture.map { ($0.captureDate ?? $0.importDate) }
    #expect(keys == keys.sorted())

    let canon = try library.assets(AssetQuery(camera: "canon"))
    #expect(
      Set(canon.map(\.id))
        == Set(assets.filter { $0.cameraMake?.lowercased().contains("canon") == true }.map(\.id)))
    #expect(!canon.isEmpty)
    #expect(try library.assets(AssetQuery(camera: "no such camera")).isEmpty)

    let first = try #require(dated.map { $0.captureDate! }.min())
    let range = first...first
    #expect(
      try library.assets(AssetQuery(captureDates: range)).allSatisfy { $0.captureDate == first })

    try library.performChanges([
      .edit(assets[1].id, output: try LibraryFixtures.output(in: scratch.url, payload: "e"))
    ])
    #expect(try library.assets(AssetQuery(edits: .edited)).map(\.id) == [assets[1].id])
    #expect(try library.assets(AssetQuery(edits: .unedited)).count == 3)
    #expect(
      try library.assets(AssetQuery(sort: .importDate, limit: 2, offset: 1)).map(\.id)
        == Array(byImport.reversed()[1...2]))
  }
}
