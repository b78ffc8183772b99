// SPDX-License-Identifier: Apache-2.0

import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif
import RetouchCore
import RetouchEditor
import RetouchIO
import RetouchLibrary
import RetouchRender

/// `retouch-bench library`: import of 1,000 small photos (headers only, no thumbnails), listing
/// 10,000 assets sorted by capture date, and a batch commit of 100 edits (renders made
/// beforehand).
enum LibraryBench {
  /// Camera JPEGs of the manifest with EXIF (camera, date, some with GPS) to make the photos from.
  static let sources = [
    "g14", "g43", "g52", "g26", "g27", "g28", "g44", "g53", "g54", "g62", "d12", "d13",
  ]

  static func run(options: BenchOptions) throws {
    let work = options.workDirectory.appendingPathComponent("library", isDirectory: true)
    let photos = try makePhotos(
      count: 1000, in: work.appendingPathComponent("photos-1000"), options: options)
    let bytes = photos.reduce(0) {
      $0 + ((try? FileManager.default.attributesOfItem(atPath: $1.path)[.size] as? Int) ?? 0)
    }
    print(
      "\n# library: \(photos.count) JPEGs (\(bytes / photos.count / 1024) KB each on average, 160–330 px long edge, EXIF kept)"
    )

    // 1. Import (fresh library each run).
    var importMS = Samples(), importCPU = Samples()
    for run in 0..<min(options.runs, 3) {
      let folder = work.appendingPathComponent("import-\(run)")
      try? FileManager.default.removeItem(at: folder)
      let library = try PhotoLibrary(at: folder)
      let (start, cpuStart) = (now(), cpuSeconds())
      let result = try library.importPhotos(from: [work.appendingPathComponent("photos-1000")])
      importMS.add((now() - start) * 1000)
      importCPU.add((cpuSeconds() - cpuStart) * 1000)
      guard result.imported.count == photos.count else {
        throw BenchError(
          description:
            "imported \(result.imported.count) of \(photos.count) (\(result.failures.first?.reason ?? "duplicates"))"
        )
      }
      try? FileManager.default.removeItem(at: folder)
    }
    let rate = Double(photos.count) / (importMS.median / 1000)
    print(
      String(
        format:
          "import 1,000 photos (hash, header, durable copy; no thumbnails): %.0f ms median (CPU %.0f ms) → %.0f photos/s (target ≥ 50)",
        importMS.median, importCPU.median, rate))

    // 2. Listing 10,000 assets sorted by date. Rows are written straight into the database (an
    //    import of 10,000 files would only time the import again).
    let big = work.appendingPathComponent("list-10000")
    try? FileManager.default.removeItem(at: big)
    let listed = try PhotoLibrary(at: big)
    try fillSyntheticAssets(10_000, in: big)
    var listMS = Samples(), listCPU = Samples()
    var count = 0
    for _ in 0..<(options.runs * 4 + 1) {
      let (start, cpuStart) = (now(), cpuSeconds())
      count = try listed.assets(AssetQuery(sort: .captureDate)).count
      listMS.add((now() - start) * 1000)
      listCPU.add((cpuSeconds() - cpuStart) * 1000)
    }
    print(
      String(
        format:
          "list %d assets by capture date, newest first: %.1f ms median (min %.1f; CPU %.1f ms; target ≤ 20)",
        count, listMS.median, listMS.min, listCPU.median))

    // 3. A batch commit of 100 edits; the renders are made beforehand (excluded).
    let batchFolder = work.appendingPathComponent("batch")
    try? FileManager.default.removeItem(at: batchFolder)
    let library = try PhotoLibrary(at: batchFolder)
    let ids = try library.importPhotos(from: Array(photos.prefix(100))).imported.map(\.id)
    let renders = work.appendingPathComponent("renders")
    try FileManager.default.createDirectory(at: renders, withIntermediateDirectories: true)
    var commitMS = Samples(), commitCPU = Samples()
    for run in 0..<(options.runs + 1) {
      var requests: [ChangeRequest] = []
      for (i, id) in ids.enumerated() {
        var output = ContentEditingOutput(
          try library.requestContentEditingInput(for: id), directory: renders)
        try FileManager.default.copyItem(at: photos[i], to: output.renderedContentURL)
        output.adjustmentData = RetouchEditingController.adjustmentData(
          for: EditConfig(properties: [.exposure: 0.1 * Double(run + 1)]))
        requests.append(.edit(id, output: output))
      }
      let (start, cpuStart) = (now(), cpuSeconds())
      try library.performChanges(requests)
      let ms = (now() - start) * 1000
      if run > 0 {
        commitMS.add(ms)
        commitCPU.add((cpuSeconds() - cpuStart) * 1000)
      }
    }
    try? FileManager.default.removeItem(at: renders)
    print(
      String(
        format:
          "batch commit of 100 edits (copy + fsync each render, one transaction): %.0f ms median (min %.0f; CPU %.0f ms; target ≤ 1000)",
        commitMS.median, commitMS.min, commitCPU.median))
    let check = try library.checkIntegrity(repair: false)
    print(
      "integrity after the commits: \(check.problems.isEmpty ? "clean" : "\(check.problems.count) problems")"
    )
  }

  /// CPU seconds used by this process (all threads): the machine is shared, so wall time alone
  /// can be several times the work.
  static func cpuSeconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) * 1e-9
  }

  /// 1,000 distinct small JPEGs from the sample photos (each a different size of one of them),
  /// made once and cached.
  static func makePhotos(count: Int, in folder: URL, options: BenchOptions) throws -> [URL] {
    let urls = (0..<count).map {
      folder.appendingPathComponent(String(format: "photo-%04d.jpg", $0))
    }
    if urls.allSatisfy({ FileManager.default.fileExists(atPath: $0.path) }) { return urls }
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    var decodeOptions = DecodeOptions()
    decodeOptions.minimumLongEdge = 400
    let manifest = try String(
      contentsOf: options.photos.appendingPathComponent("MANIFEST.tsv"), encoding: .utf8)
    var paths: [String: String] = [:]
    for line in manifest.split(separator: "\n") {
      let f = line.split(separator: "\t", omittingEmptySubsequences: false)
      if f.count > 2 { paths[String(f[0])] = String(f[2]) }
    }
    let decoded = try sources.map { id -> DecodedImage in
      guard let path = paths[id] else {
        throw BenchError(description: "photo \(id) is not in the manifest")
      }
      return try ImageDecoder(options: decodeOptions).decode(
        options.photos.appendingPathComponent(path))
    }
    var encodeOptions = EncodeOptions()
    encodeOptions.quality = 85
    for (i, url) in urls.enumerated() {
      let source = decoded[i % decoded.count]
      // Every photo a different size, so every file has its own content.
      let edge = 160 + (i / decoded.count) * 2
      let image = source.image.resized(toFitLongEdge: edge, allowingUpscale: true)
      try ImageEncoder(options: encodeOptions).write(
        image, as: .jpeg, metadata: source.metadata, to: url)
    }
    return urls
  }

  /// Writes `count` asset rows with spread capture dates, as an import would.
  static func fillSyntheticAssets(_ count: Int, in folder: URL) throws {
    let db = try SQLiteDatabase(
      path: folder.appendingPathComponent(PhotoLibrary.databaseFilename).path)
    var rng = SplitMix(seed: 7)
    try db.transaction { () throws(LibraryError) in
      for i in 0..<count {
        let hash = String(format: "%064x", i)
        let captured: Double? =
          rng.next() % 10 == 0 ? nil : 1_300_000_000 + Double(rng.next() % 400_000_000)
        try db.run(
          """
          INSERT INTO assets(original_hash, original_name, original_extension, format, file_size, pixel_width,
            pixel_height, orientation, capture_date, camera_make, camera_model, import_date)
          VALUES (?, ?, 'jpg', 'jpeg', 100000, 4032, 3024, 1, ?, 'Canon', ?, ?)
          """, [hash, "IMG_\(i).jpg", captured, "EOS \(i % 7)D", 1_700_000_000 + Double(i)])
      }
    }
  }
}
