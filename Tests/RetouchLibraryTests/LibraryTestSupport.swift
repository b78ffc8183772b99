// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchEditor
import RetouchIO
import RetouchLibrary
import RetouchRender
import RetouchTestSupport

/// A fresh folder under the temporary directory, removed by `cleanUp()`.
struct ScratchFolder {
  let url: URL

  init(_ name: String = #function) throws {
    let safe = name.filter { $0.isLetter || $0.isNumber }
    url = FileManager.default.temporaryDirectory
      .appendingPathComponent(
        "retouch-library-tests-\(safe)-\(UUID().uuidString.prefix(8))", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  func path(_ component: String) -> URL { url.appendingPathComponent(component) }

  func cleanUp() {
    // Originals are read-only files; removal needs only the folder's write permission.
    try? FileManager.default.removeItem(at: url)
  }
}

/// A clock the tests move by hand.
final class TestClock: Sendable {
  private let seconds = AtomicSeconds()
  init(_ start: Date = Date(timeIntervalSince1970: 1_700_000_000)) {
    seconds.set(start.timeIntervalSince1970)
  }
  var now: Date { Date(timeIntervalSince1970: seconds.get()) }
  func advance(by interval: TimeInterval) { seconds.set(seconds.get() + interval) }
}

import Synchronization

final class AtomicSeconds: Sendable {
  private let value = Mutex<Double>(0)
  func get() -> Double { value.withLock { $0 } }
  func set(_ v: Double) { value.withLock { $0 = v } }
}

enum LibraryFixtures {
  /// Small JPEGs made from real photos (metadata carried over: camera, date, orientation reset
  /// to upright by the encoder), written into `folder`; returns their URLs.
  ///
  /// - Parameter ids: manifest ids of JPEG photos.
  static func smallPhotos(_ ids: [String], longEdge: Int = 160, in folder: URL) throws -> [URL] {
    var urls: [URL] = []
    for id in ids {
      var options = DecodeOptions()
      options.minimumLongEdge = longEdge
      let decoded = try ImageDecoder(options: options).decode(SharedPhotos.url(id))
      let image = decoded.image.resized(toFitLongEdge: longEdge)
      let url = folder.appendingPathComponent("\(id).jpg")
      try ImageEncoder().write(image, as: .jpeg, metadata: decoded.metadata, to: url)
      urls.append(url)
    }
    return urls
  }

  /// A small synthetic photo, different for each `seed`, encoded as `format`.
  static func syntheticPhoto(seed: UInt64, format: ImageFormat = .png, size: Int = 48) throws
    -> Data
  {
    var rng = SeededRandom(seed: seed)
    var image = Image(width: size, height: size * 3 / 4, format: .rgb8, colorSpace: .sRGB)
    let color = (0..<3).map { _ in Int(rng.next() % 256) }
    image.fillRect(x: 0, y: 0, width: image.width, height: image.height, color: color)
    image.fillRect(
      x: Int(rng.next() % 20), y: Int(rng.next() % 10), width: 8, height: 8, color: [255, 255, 255])
    return try ImageEncoder().encode(image, as: format)
  }

  /// A JPEG "render" (a flat image) an editor would write, at `url`.
  static func writeRender(to url: URL, shade: UInt8 = 128) throws {
    var image = Image(width: 32, height: 24, format: .rgb8, colorSpace: .sRGB)
    image.fillRect(x: 0, y: 0, width: 32, height: 24, color: [Int(shade), Int(shade), Int(shade)])
    try ImageEncoder().write(image, as: .jpeg, to: url)
  }

  /// An output holding a render and some adjustment data, ready to commit.
  static func output(
    in folder: URL, identifier: String = "org.example.test", payload: String, shade: UInt8 = 128
  ) throws
    -> ContentEditingOutput
  {
    var output = ContentEditingOutput(detachedInput, directory: folder)
    try writeRender(to: output.renderedContentURL, shade: shade)
    output.adjustmentData = AdjustmentData(
      formatIdentifier: identifier, formatVersion: "1", data: Data(payload.utf8))
    return output
  }

  /// An input that stands for no photo in particular: an output only takes its file name from
  /// its input's folder, so outputs for any asset (even a deleted one) can be made from it.
  static var detachedInput: ContentEditingInput {
    ContentEditingInput(
      original: .data(Data(), name: "none"), orientation: .up, metadata: PhotoMetadata(),
      displaySizeImage: nil,
      adjustmentData: nil, renderedPhoto: nil)
  }
}
