// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchTestSupport
import Testing

@testable import RetouchIO

/// IPTC-IIM records (captions, credits, copyright) survive an edit written as JPEG or TIFF.
@Suite struct IPTCTests {
  /// Photoshop resource blocks: a resource before the IPTC one with an odd-length name and an
  /// odd size (both padded to even), then 0x0404; a cut anywhere gives nil, never a trap.
  @Test func photoshopResourcesAreWalked() throws {
    let iptc: [UInt8] = [0x1C, 0x02, 0x74, 0x00, 0x03] + Array("(c)".utf8)
    var blocks: [UInt8] = Array("8BIM".utf8) + [0x03, 0xED, 3] + Array("abc".utf8)
    blocks += [0, 0, 0, 5] + [1, 2, 3, 4, 5, 0]  // size 5, padded
    blocks += Array("8BIM".utf8) + [0x04, 0x04, 0, 0, 0, 0, 0, UInt8(iptc.count)] + iptc
    #expect(JPEGMetadataSegments.photoshopResource(0x0404, in: Data(blocks)) == Data(iptc))
    #expect(JPEGMetadataSegments.photoshopResource(0x0405, in: Data(blocks)) == nil)
    for cut in 0..<(blocks.count - 1) {
      #expect(JPEGMetadataSegments.photoshopResource(0x0404, in: Data(blocks.prefix(cut))) == nil)
    }
    // Random damage (sizes and name lengths included) ends the walk, never traps.
    var rng = SeededRandom(seed: 13)
    var found = 0
    for _ in 0..<2000 {
      var damaged = blocks
      for _ in 0..<(1 + Int(rng.next() % 3)) {
        damaged[Int(rng.next() % UInt64(damaged.count))] = UInt8(truncatingIfNeeded: rng.next())
      }
      if JPEGMetadataSegments.photoshopResource(0x0404, in: Data(damaged)) != nil { found += 1 }
    }
    #expect(found > 0 && found < 2000, "\(found)")
    // What the writer makes reads back.
    let segment = try #require(JPEGMetadataSegments.photoshopSegment(iptc: Data(iptc)))
    let body = segment.dropFirst(JPEGMetadataSegments.photoshopIdentifier.count)
    #expect(JPEGMetadataSegments.photoshopResource(0x0404, in: Data(body)) == Data(iptc))
  }

  /// A TIFF that keeps IPTC only among its Photoshop image resources (tag 34377) gives it too.
  @Test func tiffPhotoshopResourcesAreRead() throws {
    let iptc = Data([0x1C, 0x02, 0x74, 0x00, 0x03] + Array("(c)".utf8))
    let resources = try #require(JPEGMetadataSegments.photoshopSegment(iptc: iptc))
      .dropFirst(JPEGMetadataSegments.photoshopIdentifier.count)
    var tiff = try TIFFCodec.encode(
      Image(width: 4, height: 4, format: .rgb8), blocks: MetadataBlocks(iptc: iptc))
    let written = try TIFFCodec.readHeader(tiff, source: "t", options: DecodeOptions())
    #expect(written.blocks.iptc == iptc)
    // The same directory (alone: only metadata is read) with the records wrapped as resource
    // 0x0404 in a Photoshop resources entry (34377) instead of the IPTC entry (33723).
    let header = try TIFFCodec.readHeader(tiff, source: "t")
    var directory = TIFFWriter.Directory(
      entries: header.ifd0.entries.filter { $0.tag != TIFFCodec.Tag.iptc })
    directory.entries.append(
      TIFFEntry(
        tag: TIFFCodec.Tag.photoshop, type: 1, count: UInt32(resources.count),
        value: Array(resources)))
    tiff = Data(TIFFWriter(bigEndian: false).write(directory))
    let blocks = try TIFFCodec.readHeader(tiff, source: "t", options: DecodeOptions()).blocks
    #expect(blocks.iptc == iptc)
  }

  /// A real photo's IPTC copyright (g33: "Copyright 2014 by Eric Chan") is written back by the
  /// JPEG and TIFF encoders byte for byte, and read back from both.
  @Test(arguments: [ImageFormat.jpeg, .tiff])
  func copyrightSurvivesAnExport(format: ImageFormat) throws {
    let source = try ImageDecoder().decode(SharedPhotos.url("g33"))
    let iptc = try #require(source.metadata.blocks.iptc)
    #expect(String(decoding: iptc, as: UTF8.self).contains("Copyright 2014 by Eric Chan"))
    let small = source.image.resized(to: PixelSize(width: 120, height: 83))
    let data = try ImageEncoder().encode(small, as: format, metadata: source.metadata)
    let read = try ImageDecoder().readMetadata(data)
    #expect(read.metadata.blocks.iptc == iptc)
  }
}
