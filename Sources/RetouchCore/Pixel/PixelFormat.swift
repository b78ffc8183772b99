// SPDX-License-Identifier: Apache-2.0

/// The memory layout of one pixel in an interleaved ``Image``.
///
/// Components are stored in R, G, B(, A) order. 16-bit components are native-endian `UInt16`
/// using the full `0...65535` range. Alpha, when present, is straight (not premultiplied).
public enum PixelFormat: String, Hashable, Sendable, Codable, CaseIterable {
  case rgb8, rgba8, rgb16, rgba16

  /// The format with or without alpha at 8 or 16 bits per component.
  public init(hasAlpha: Bool, sixteenBit: Bool) {
    switch (hasAlpha, sixteenBit) {
    case (false, false): self = .rgb8
    case (true, false): self = .rgba8
    case (false, true): self = .rgb16
    case (true, true): self = .rgba16
    }
  }

  /// Components per pixel: 3 or 4.
  public var channelCount: Int {
    switch self {
    case .rgb8, .rgb16: 3
    case .rgba8, .rgba16: 4
    }
  }

  /// Bits per component: 8 or 16.
  public var bitDepth: Int {
    switch self {
    case .rgb8, .rgba8: 8
    case .rgb16, .rgba16: 16
    }
  }

  public var bytesPerComponent: Int { bitDepth / 8 }
  public var bytesPerPixel: Int { channelCount * bytesPerComponent }
  public var hasAlpha: Bool { channelCount == 4 }

  /// The largest component value: 255 or 65535.
  public var maxValue: Int { bitDepth == 8 ? 255 : 65535 }

  /// The format with the same depth and the given alpha presence.
  public func withAlpha(_ alpha: Bool) -> PixelFormat {
    PixelFormat(hasAlpha: alpha, sixteenBit: bitDepth == 16)
  }

  /// The format with the same channels at the given depth (8 or 16).
  public func withBitDepth(_ depth: Int) -> PixelFormat {
    precondition(depth == 8 || depth == 16, "bit depth must be 8 or 16")
    return PixelFormat(hasAlpha: hasAlpha, sixteenBit: depth == 16)
  }
}
