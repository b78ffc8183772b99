// SPDX-License-Identifier: Apache-2.0

extension PlanarImage {
  /// The image with its colours expressed in `space` (sRGB ↔ Display P3), keeping ``encoding``.
  ///
  /// Per pixel: decode to linear light (when ``Encoding/encoded``), multiply by the 3×3 matrix
  /// `space.toXYZ⁻¹ × colorSpace.toXYZ` (both D65, no adaptation), re-encode. Colorimetric and
  /// unclipped: colours outside the target gamut come out below 0 or above 1 and survive until
  /// an integer conversion clamps them. The transfer curve runs through ``SRGBTables`` (error
  /// < 4e-7 in `0...1`, exact `pow` outside). Alpha is copied. Parallel over row bands; our own
  /// kernel rather than an lcms float transform, which is ~25× slower.
  /// Returns `self` when the space is already `space`.
  public func converted(to space: ColorSpace, threads: Int? = nil) -> PlanarImage {
    if space == colorSpace { return self }
    return applyingLinearMatrix(
      colorSpace.conversionMatrix(to: space), tagging: space, threads: threads)
  }

  /// The image reinterpreted as having RGB `primaries` (D65 white, sRGB transfer when encoded)
  /// and converted into `space`; e.g. BT.2020 content into Display P3.
  ///
  /// Same kernel and accuracy as ``converted(to:threads:)``.
  public func converted(
    fromPrimaries primaries: RGBPrimaries, to space: ColorSpace, threads: Int? = nil
  ) -> PlanarImage {
    applyingLinearMatrix(
      ColorSpace.linearMatrix(from: primaries, to: space), tagging: space, threads: threads)
  }

  /// Multiplies every pixel's linear RGB by `matrix` and tags the result `space`.
  ///
  /// When ``encoding`` is ``Encoding/encoded`` the values are decoded first and re-encoded after.
  public func applyingLinearMatrix(
    _ matrix: ColorMatrix, tagging space: ColorSpace, threads: Int? = nil
  ) -> PlanarImage {
    var out = PlanarImage(
      width: width, height: height, channelCount: channelCount, colorSpace: space,
      encoding: encoding, zeroed: false)
    let m = matrix.elements.map { Float($0) }
    let (m0, m1, m2, m3, m4, m5, m6, m7, m8) = (
      m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8]
    )
    let encoded = encoding == .encoded
    let decodeTable = SRGBTables.decodeTable, encodeTable = SRGBTables.encodeTable
    let w = width, stride = planeStride, alpha = hasAlpha
    let src = SendableRawPointer(storage.pointer)
    out.withUnsafeMutableFloats { base in
      let dst = SendableRawPointer(UnsafeMutableRawPointer(base))
      ParallelBands.forEach(rows: height, threads: threads) { band in
        let s = src.pointer.assumingMemoryBound(to: Float.self)
        let d = dst.pointer.assumingMemoryBound(to: Float.self)
        decodeTable.withUnsafeBufferPointer { dt in
          encodeTable.withUnsafeBufferPointer { et in
            let dtp = dt.baseAddress!, etp = et.baseAddress!
            for i in (band.lowerBound * w)..<(band.upperBound * w) {
              var r = s[i], g = s[stride + i], b = s[2 * stride + i]
              if encoded {
                r = SRGBTables.decodeExtended(r, table: dtp)
                g = SRGBTables.decodeExtended(g, table: dtp)
                b = SRGBTables.decodeExtended(b, table: dtp)
              }
              var r2 = m0 * r + m1 * g + m2 * b
              var g2 = m3 * r + m4 * g + m5 * b
              var b2 = m6 * r + m7 * g + m8 * b
              if encoded {
                r2 = SRGBTables.encodeExtended(r2, table: etp)
                g2 = SRGBTables.encodeExtended(g2, table: etp)
                b2 = SRGBTables.encodeExtended(b2, table: etp)
              }
              d[i] = r2
              d[stride + i] = g2
              d[2 * stride + i] = b2
              if alpha { d[3 * stride + i] = s[3 * stride + i] }
            }
          }
        }
      }
    }
    return out
  }
}
