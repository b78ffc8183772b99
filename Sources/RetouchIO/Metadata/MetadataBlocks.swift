// SPDX-License-Identifier: Apache-2.0

import Foundation

/// The raw metadata blocks of a container, as found in the file.
public struct MetadataBlocks: Sendable, Hashable, Codable {
  /// The EXIF block as a TIFF structure (starting at the `II*\0`/`MM\0*` header, without the
  /// JPEG APP1 `Exif\0\0` prefix or the HEIF item's 4-byte offset).
  public var exif: Data?
  /// The XMP packet (UTF-8 XML), standard part only.
  public var xmp: Data?
  /// The embedded ICC profile.
  public var iccProfile: Data?
  /// The JPEG APP2 `MPF\0` payload (the Multi-Picture Format index), if any.
  public var mpf: Data?
  /// HEIF `colr` of type `nclx`, when the file signals colour that way instead of an ICC profile.
  public var nclx: NCLXColorInfo?
  /// The IPTC-IIM records (captions, credits, copyright, keywords as newsrooms and agencies
  /// write them): a JPEG's Photoshop resource 0x0404 in APP13, or a TIFF's tag 33723.
  public var iptc: Data?

  public init(
    exif: Data? = nil, xmp: Data? = nil, iccProfile: Data? = nil, mpf: Data? = nil,
    nclx: NCLXColorInfo? = nil, iptc: Data? = nil
  ) {
    self.exif = exif
    self.xmp = xmp
    self.iccProfile = iccProfile
    self.mpf = mpf
    self.nclx = nclx
    self.iptc = iptc
  }
}

/// Colour signalled by code points (ITU-T H.273), as HEIF/AVIF `nclx` boxes do.
public struct NCLXColorInfo: Sendable, Hashable, Codable, CustomStringConvertible {
  public var colorPrimaries: Int
  public var transferCharacteristics: Int
  public var matrixCoefficients: Int
  public var fullRange: Bool

  public init(
    colorPrimaries: Int, transferCharacteristics: Int, matrixCoefficients: Int, fullRange: Bool
  ) {
    self.colorPrimaries = colorPrimaries
    self.transferCharacteristics = transferCharacteristics
    self.matrixCoefficients = matrixCoefficients
    self.fullRange = fullRange
  }

  public var description: String {
    "nclx primaries \(colorPrimaries), transfer \(transferCharacteristics), matrix \(matrixCoefficients)\(fullRange ? ", full range" : "")"
  }
}
