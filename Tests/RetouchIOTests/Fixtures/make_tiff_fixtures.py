#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the TIFF fixtures described in README.md with other writers than ours.

Pillow (which writes compressed TIFFs through libtiff) and tifffile make the layouts and
compressions that Retouch reads but never writes. Needs `pip install pillow tifffile
imagecodecs numpy`; run from this folder: python3 make_tiff_fixtures.py. The pixel formulas are
repeated in TIFFCodecTests.swift, which checks every decoded pixel against them.
"""
import numpy as np
import tifffile
from PIL import Image

W, H = 13, 11  # tiles of 16 leave partial tiles on both edges
y, x = np.mgrid[0:H, 0:W]

rgb8 = (np.dstack([20 * x, 20 * y, x * y]) % 256).astype(np.uint8)
rgb16 = np.dstack([(4099 * x) % 65536, (5003 * y) % 65536, (257 * x * y + 1) % 65536]).astype(
    np.uint16)
alpha8 = ((23 * y + 11 * x) % 256).astype(np.uint8)
grey8 = ((16 * x + 8 * y) % 256).astype(np.uint8)
# Smooth, for JPEG: (10x + 100, 12y + 60, 5x + 5y + 30).
smooth8 = np.dstack([10 * x + 100, 12 * y + 60, 5 * x + 5 * y + 30]).astype(np.uint8)

# libtiff through Pillow: LZW, JPEG in YCbCr, grey with alpha, a palette, CMYK, and two pages
# of which the first says orientation 6.
tifffile.imwrite("rgb8-lzw-predictor.tif", rgb8, compression="lzw", predictor=True)
Image.fromarray(smooth8).save("rgb8-jpeg-ycbcr.tif", compression="jpeg", quality=95)
Image.fromarray(np.dstack([grey8, alpha8]), "LA").save("grey-alpha8.tif")
palette = Image.fromarray(((x + y) % 4).astype(np.uint8), "P")
palette.putpalette([c for i in range(4) for c in (i * 60, 255 - i * 60, i * 37 % 256)])
palette.save("palette.tif", compression="packbits")
Image.fromarray(rgb8).convert("CMYK").save("cmyk8.tif", compression="tiff_adobe_deflate")
first = Image.fromarray(rgb8)
first.save("two-pages-orientation6.tif", save_all=True,
           append_images=[Image.fromarray(255 - rgb8)], tiffinfo={274: 6})

# tifffile: 16-bit big-endian tiles, premultiplied alpha, separate planes with alpha,
# white-is-zero grey,
# and floating-point samples (refused).
tifffile.imwrite("rgb16-be-tiled.tif", rgb16, byteorder=">", tile=(16, 16), compression="zlib",
                 predictor=True)
premultiplied = (rgb8.astype(np.uint32) * alpha8[..., None] // 255).astype(np.uint8)
tifffile.imwrite("rgba8-associated-packbits.tif", np.dstack([premultiplied, alpha8]),
                 extrasamples=["assocalpha"], compression="packbits")
rgba16 = np.dstack([rgb16, alpha8.astype(np.uint16) * 257])
tifffile.imwrite("rgba16-planar.tif", np.moveaxis(rgba16, -1, 0).copy(), planarconfig="separate",
                 photometric="rgb", extrasamples=["unassalpha"], compression="zlib")
tifffile.imwrite("grey8-miniswhite.tif", grey8, photometric="miniswhite")
tifffile.imwrite("float32.tif", rgb8.astype(np.float32) / 255, photometric="rgb")
