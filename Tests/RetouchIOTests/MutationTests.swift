// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchTestSupport
import Testing

@testable import RetouchIO

/// Feeds every decoder thousands of damaged versions of real photos. Each must either throw an
/// ``ImageDecodingError`` or return a valid image; a crash, hang or huge allocation fails the run.
@Suite("Damaged files never crash a decoder")
struct MutationTests {
  /// Seeds are fixed so a failure reproduces; the seed is in the failure message.
  static let seeds: [UInt64] = [0x5EED_0001, 0x5EED_0002]

  enum Mutation: CaseIterable {
    case bitFlips, truncation, splicedHeader, zeroedRun, repeatedChunk, bigNumbers
  }

  static func mutate(_ bytes: [UInt8], _ kind: Mutation, donor: [UInt8], rng: inout SeededRandom)
    -> [UInt8]
  {
    var b = bytes
    let n = b.count
    switch kind {
    case .bitFlips:
      for _ in 0..<Int.random(in: 1...24, using: &rng) {
        // Most structure lives near the start: bias a half of the flips into the first 2 KB.
        let limit = Bool.random(using: &rng) ? min(n, 2048) : n
        let i = Int.random(in: 0..<limit, using: &rng)
        b[i] ^= UInt8(1 << Int.random(in: 0..<8, using: &rng))
      }
    case .truncation:
      b = Array(b.prefix(Int.random(in: 0..<n, using: &rng)))
    case .splicedHeader:
      // Another file's head on this file's body, or this file's head twice.
      let cut = Int.random(in: 1..<min(n, 4096), using: &rng)
      let donorCut = Int.random(in: 1..<min(donor.count, 4096), using: &rng)
      b = Array(donor.prefix(donorCut)) + Array(b[cut...])
    case .zeroedRun:
      let start = Int.random(in: 0..<n, using: &rng)
      let len = Int.random(in: 1...512, using: &rng)
      for i in start..<min(n, start + len) { b[i] = Bool.random(using: &rng) ? 0 : 0xFF }
    case .repeatedChunk:
      let start = Int.random(in: 0..<min(n, 8192), using: &rng)
      let len = Int.random(in: 1...min(256, n - start), using: &rng)
      let at = Int.random(in: 0..<n, using: &rng)
      b.insert(contentsOf: b[start..<(start + len)], at: at)
    case .bigNumbers:
      // Overwrite a 4-byte word near the header with extreme values (sizes, counts, offsets).
      let i = Int.random(in: 0..<max(1, min(n - 4, 1024)), using: &rng)
      let values: [[UInt8]] = [
        [0xFF, 0xFF, 0xFF, 0xFF], [0x7F, 0xFF, 0xFF, 0xFF], [0, 0, 0, 0], [0xFF, 0xFE, 0, 1],
      ]
      let v = values[Int.random(in: 0..<values.count, using: &rng)]
      for k in 0..<4 where i + k < n { b[i + k] = v[k] }
    }
    return b
  }

  /// Small real photos of each format: a camera JPEG with EXIF (g14), a progressive-free phone
  /// JPEG with ICC (g92), PNGs (s02 colour with sRGB chunk, g19 8-bit grey depth map), a HEIC,
  /// an AVIF, three WebPs (lossy with its metadata chunks, lossless, animated) and a TIFF with
  /// EXIF and ICC made from a real photo by our encoder (small, so thousands of decodes stay
  /// fast), and three small TIFF fixtures from other writers.
  static func samples() throws -> [(name: String, bytes: [UInt8])] {
    var list: [(String, [UInt8])] = []
    for id in ["g14", "g92", "s02", "g19"] { list.append((id, [UInt8](try SharedPhotos.data(id)))) }
    let photo = try ImageDecoder().decode(SharedPhotos.url("g04")).image
    let small = photo.resized(to: PixelSize(width: 160, height: 120))
    var o = EncodeOptions()
    o.quality = 60
    list.append(("heic", [UInt8](try ImageEncoder(options: o).encode(small, as: .heif))))
    list.append(("avif", [UInt8](try ImageEncoder(options: o).encode(small, as: .avif))))
    let metadata = try ImageDecoder().readMetadata(SharedPhotos.data("g04")).metadata
    list.append(
      ("webp", [UInt8](try ImageEncoder(options: o).encode(small, as: .webp, metadata: metadata))))
    o.webpLossless = true
    list.append(("webp-lossless", [UInt8](try ImageEncoder(options: o).encode(small, as: .webp))))
    list.append(
      ("tiff", [UInt8](try ImageEncoder().encode(small, as: .tiff, metadata: metadata))))
    // An animated WebP (its first frame is read) and other writers' TIFFs, which reach
    // libtiff's tile, JPEG and palette decoders.
    list.append(
      (
        "webp-animated",
        [UInt8](
          try WebPCodecTests.animation(
            frame: small.resized(to: PixelSize(width: 64, height: 48)), x: 8, y: 6,
            canvas: (80, 60)))
      ))
    for name in ["rgb16-be-tiled.tif", "rgb8-jpeg-ycbcr.tif", "palette.tif"] {
      list.append((name, [UInt8](try codecFixtureData(name))))
    }
    return list
  }

  @Test(arguments: seeds)
  func mutatedSamplesOnlyThrowOrDecode(seed: UInt64) throws {
    var rng = SeededRandom(seed: seed)
    let samples = try Self.samples()
    var options = DecodeOptions()
    options.maxPixels = 4_000_000  // bounds the work a forged header can ask for
    let strictness: [DecodeOptions.Strictness] = [.lenient, .failOnTruncation, .failOnWarning]
    var decoded = 0
    var thrown = 0
    let perSample = 600
    for (index, sample) in samples.enumerated() {
      let donor = samples[(index + 1) % samples.count].bytes
      for round in 0..<perSample {
        let kind = Mutation.allCases[round % Mutation.allCases.count]
        let bytes = Self.mutate(sample.bytes, kind, donor: donor, rng: &rng)
        options.strictness = strictness[round % strictness.count]
        do {
          let result = try ImageDecoder(options: options).decode(Data(bytes), source: "mutant")
          let image = result.image
          #expect(
            image.width > 0 && image.height > 0 && image.pixelCount <= options.maxPixels,
            "seed \(seed) \(sample.name) round \(round): bad size \(image.size)")
          #expect(image.byteCount == image.pixelCount * image.format.bytesPerPixel)
          decoded += 1
        } catch {
          #expect(error.source == "mutant")
          #expect(!error.detail.isEmpty, "seed \(seed) \(sample.name) round \(round): empty detail")
          thrown += 1
        }
      }
    }
    // Both outcomes must occur, or the mutations are not reaching the decoders.
    #expect(decoded > 100 && thrown > 100, "decoded \(decoded), thrown \(thrown)")
  }

  @Test(arguments: [
    "g14", "s02", "heic", "avif", "webp", "webp-lossless", "webp-animated", "tiff",
  ])
  func everyTruncationPointIsHandled(name: String) throws {
    let samples = try Self.samples()
    let bytes = try #require(samples.first(where: { $0.name == name })).bytes
    let step = max(1, bytes.count / 400)
    var lenientImages = 0
    for cut in stride(from: 0, to: bytes.count, by: step) {
      let prefix = Data(bytes.prefix(cut))
      var strict = DecodeOptions()
      strict.strictness = .failOnTruncation
      #expect(
        throws: ImageDecodingError.self, "\(name) cut at \(cut) decoded under failOnTruncation"
      ) {
        try ImageDecoder(options: strict).decode(prefix)
      }
      if let result = try? ImageDecoder().decode(prefix) {
        #expect(!result.warnings.isEmpty, "\(name) cut at \(cut) decoded without a warning")
        lenientImages += 1
      }
    }
    if !["heic", "avif", "tiff"].contains(name) {
      // JPEG, PNG and WebP show what is there: most cuts past the headers still give an image.
      // (HEIC, AVIF and our TIFF keep the directory that locates the image data at the end.)
      #expect(
        lenientImages > 100, "\(name): only \(lenientImages) truncated files decoded leniently")
    }
  }
}
