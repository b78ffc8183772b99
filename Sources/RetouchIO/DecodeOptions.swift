// SPDX-License-Identifier: Apache-2.0

import RetouchCore

/// How a photo is decoded.
public struct DecodeOptions: Sendable, Hashable {
  /// How a decoder treats damage, ordered from most to least forgiving.
  public enum Strictness: Int, Sendable, Hashable, Comparable, Codable {
    /// Decode whatever is there; damage becomes a warning in ``DecodedImage/warnings``.
    case lenient
    /// Throw ``ImageDecodingError/Kind/truncated`` when the data stops early.
    case failOnTruncation
    /// Also throw on corrupt data the codec could recover from.
    case failOnError
    /// Throw on any codec warning.
    case failOnWarning
    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
  }

  /// The largest width × height accepted, checked against the header before any pixel memory is
  /// allocated. Default 268,435,456 (16384²): above Pillow's 178,956,970 decompression-bomb error
  /// (2 × `MAX_IMAGE_PIXELS`) so that 200 MP phone photos open, and far below what would exhaust
  /// memory on a 2 GB device at 8 bytes per pixel.
  public var maxPixels: Int = 268_435_456

  /// Default `.lenient`: a truncated photo opens with what is there and a warning, like
  /// camera-roll viewers do; editors that must not save a damaged photo ask for more.
  public var strictness: Strictness = .lenient

  /// Turn the pixels upright according to the EXIF orientation (or HEIF `irot`/`imir`).
  /// With `false`, pixels come out as stored and ``PhotoMetadata/orientation`` says how to show them.
  public var appliesOrientation: Bool = true

  /// Convert pixels from an embedded ICC profile to the working space (sRGB or Display P3,
  /// whichever holds the source's gamut). With `false`, values are left as stored and tagged sRGB.
  public var convertsColor: Bool = true

  /// Shrink on load: the decoder may return an image scaled down by a cheap factor (JPEG DCT
  /// scaling by M/8, M = 1…7; HEIF, PNG and WebP decode at full size) as long as the long edge
  /// of the result stays at least `minimumLongEdge`. `nil` decodes at full size.
  public var minimumLongEdge: Int? = nil

  /// Keep 16-bit sources (PNG, 10/12-bit HEIF) at 16 bits. With `false` they are reduced to 8.
  public var keeps16Bit: Bool = true

  public init() {}
}

/// A decoded photo: upright pixels (unless asked otherwise) and the file's metadata.
public struct DecodedImage: Sendable {
  /// The pixels, in `Image.colorSpace`.
  public var image: Image
  /// The container format the bytes were sniffed as.
  public var format: ImageFormat
  /// The file's own metadata: ``PhotoMetadata/pixelSize`` is the full stored size even when the
  /// image was shrunk on load, and ``PhotoMetadata/orientation`` is what the file declares even
  /// though ``image`` is already upright (with ``DecodeOptions/appliesOrientation``): never apply
  /// it again. Encoders write orientation 1 for upright pixels.
  public var metadata: PhotoMetadata
  /// Problems the decoder recovered from (truncation, corrupt segments, profile failures).
  public var warnings: [String]
  /// The shrink-on-load scale applied: output size ÷ stored size (1 = full size; JPEG previews
  /// decode at M/8).
  public var scale: Double

  public init(
    image: Image, format: ImageFormat, metadata: PhotoMetadata, warnings: [String] = [],
    scale: Double = 1
  ) {
    self.image = image
    self.format = format
    self.metadata = metadata
    self.warnings = warnings
    self.scale = scale
  }
}

/// What a format decoder hands back before orientation and colour management are applied.
package struct RawDecode: Sendable {
  /// Pixels as stored (or already transformed when ``orientationApplied``), in the source's own
  /// colour encoding.
  package var image: Image
  /// Full stored size before any shrink-on-load.
  package var storedSize: PixelSize
  /// Shrink-on-load scale in eighths (8 = full size).
  package var scaleEighths: Int = 8
  /// The metadata blocks found in the container.
  package var blocks: MetadataBlocks
  /// True when the codec already turned the pixels upright (libheif applies `irot`/`imir`), so
  /// the EXIF orientation must not be applied again.
  package var orientationApplied: Bool = false
  package var warnings: [String] = []
  /// A CMYK JPEG was converted to RGB without a profile (naive inversion).
  package var convertedFromCMYK: Bool = false
  /// Original bits per component of the source (8, 10, 12, 16).
  package var sourceBitDepth: Int = 8

  package init(image: Image, storedSize: PixelSize, blocks: MetadataBlocks) {
    self.image = image
    self.storedSize = storedSize
    self.blocks = blocks
  }
}
