// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore

extension PhotoMetadata {
  /// Parses the raw blocks of a container into typed fields.
  ///
  /// EXIF (through libexif) fills the camera, exposure, date, GPS and orientation fields; the
  /// XMP packet supplies orientation (`tiff:Orientation`), capture date
  /// (`exif:DateTimeOriginal`, then `photoshop:DateCreated`) and software (`xmp:CreatorTool`)
  /// only where EXIF has none. The colour profile comes from the ICC description, or from the
  /// HEIF `nclx` code points when there is no profile. The MPF index becomes ``multiPicture``.
  /// ``blocks`` keeps the raw blocks and ``pixelSize`` is `storedSize`.
  ///
  /// Never fails: a malformed or hostile block adds a sentence to `warnings` and the fields
  /// that could be read are kept. Cost: linear in the blocks' size (a few KiB to 64 KiB).
  package init(parsing blocks: MetadataBlocks, storedSize: PixelSize, warnings: inout [String]) {
    self.init()
    self.blocks = blocks
    pixelSize = storedSize

    var hasEXIFOrientation = false
    if let exif = blocks.exif, !exif.isEmpty {
      EXIFReader.read(exif, into: &self, warnings: &warnings)
      hasEXIFOrientation = Self.exifHasOrientation(exif)
    }
    if let xmp = blocks.xmp, !xmp.isEmpty {
      applyXMPFallbacks(XMPPacket(xmp), useOrientation: !hasEXIFOrientation, warnings: &warnings)
    }
    if let icc = blocks.iccProfile, !icc.isEmpty {
      var description = ICCDescription.read(icc)
      if description == nil {
        warnings.append("ICC profile (\(icc.count) bytes) has no readable description.")
      }
      // Code points outrank a profile (a PNG's cICP over its iCCP): they name the colour.
      if let nclx = blocks.nclx { description = ICCDescription.name(for: nclx) }
      colorProfile = ColorProfileInfo(description: description, iccProfile: icc, nclx: blocks.nclx)
    } else if let nclx = blocks.nclx {
      colorProfile = ColorProfileInfo(description: ICCDescription.name(for: nclx), nclx: nclx)
    }
    if let mpf = blocks.mpf, !mpf.isEmpty {
      multiPicture = MPFIndex.read(mpf, warnings: &warnings)
    }
  }

  /// Whether IFD0 carries an Orientation tag (so EXIF, not XMP, decides it).
  private static func exifHasOrientation(_ exif: Data) -> Bool {
    guard let tiff = TIFFReader(exif), let ifd0 = tiff.directory(at: tiff.firstIFDOffset) else {
      return false
    }
    return ifd0.entry(0x0112) != nil
  }

  private mutating func applyXMPFallbacks(
    _ xmp: XMPPacket, useOrientation: Bool, warnings: inout [String]
  ) {
    if useOrientation, let text = xmp.value(of: .tiff("Orientation")) {
      if let raw = Int(text), let o = ImageOrientation(rawValue: raw) {
        orientation = o
      } else {
        warnings.append("XMP tiff:Orientation \"\(text.prefix(16))\" is not 1...8; using 1.")
      }
    }
    if dateTimeOriginal == nil {
      let candidates = [
        xmp.value(of: .exif("DateTimeOriginal")), xmp.value(of: .photoshop("DateCreated")),
      ]
      for case let text? in candidates {
        guard let parsed = XMPPacket.exifDate(fromXMP: text) else { continue }
        dateTimeOriginal = parsed.date
        if subsecTimeOriginal == nil { subsecTimeOriginal = parsed.subsec }
        if offsetTimeOriginal == nil { offsetTimeOriginal = parsed.offset }
        break
      }
    }
    if software == nil { software = xmp.value(of: .xmp("CreatorTool")) }
  }
}
