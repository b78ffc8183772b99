#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the synthetic PNG fixtures described in README.md (standard library only).

Run from this folder: python3 make_png_fixtures.py. The pixel formulas are repeated in
PNGCodecTests.swift, which checks every decoded pixel against them.
"""
import struct
import zlib

W, H = 13, 11  # odd sizes so every Adam7 pass has partial blocks


def chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def png(ihdr, idat, extra_before=b"", extra_after=b""):
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + extra_before
            + chunk(b"IDAT", zlib.compress(idat, 9)) + extra_after + chunk(b"IEND", b""))


def ihdr(w, h, depth, color_type, interlace=0):
    return struct.pack(">IIBBBBB", w, h, depth, color_type, 0, 0, interlace)


def pack_bits(values, depth):
    """Packs sub-byte samples MSB first, padding the last byte with zeros."""
    out, acc, n = bytearray(), 0, 0
    for v in values:
        acc = (acc << depth) | v
        n += depth
        if n == 8:
            out.append(acc)
            acc, n = 0, 0
    if n:
        out.append(acc << (8 - n))
    return bytes(out)


def raw_rows(w, h, row_bytes):
    return b"".join(b"\x00" + row_bytes(y) for y in range(h))


def write(name, data):
    with open(name, "wb") as f:
        f.write(data)


# palette-2bit-trns.png: 2-bit palette of 4 entries, tRNS for the first 3; index (x + y) % 4.
palette = b"".join(bytes((i * 60, 255 - i * 60, (i * 37) % 256)) for i in range(4))
write("palette-2bit-trns.png", png(
    ihdr(W, H, 2, 3),
    raw_rows(W, H, lambda y: pack_bits([(x + y) % 4 for x in range(W)], 2)),
    extra_before=chunk(b"PLTE", palette) + chunk(b"tRNS", bytes((0, 85, 170)))))

# grey8.png: 8-bit grey, (x * 16 + y * 8) % 256.
write("grey8.png", png(ihdr(W, H, 8, 0),
                       raw_rows(W, H, lambda y: bytes((x * 16 + y * 8) % 256 for x in range(W)))))

# grey4.png: 4-bit grey, (x + y) % 16 (expands to v * 17).
write("grey4.png", png(ihdr(W, H, 4, 0),
                       raw_rows(W, H, lambda y: pack_bits([(x + y) % 16 for x in range(W)], 4))))

# grey-alpha8.png: 8-bit grey + alpha, grey (x * 19) % 256, alpha (y * 23) % 256.
write("grey-alpha8.png", png(ihdr(W, H, 8, 4), raw_rows(W, H, lambda y: b"".join(
    bytes(((x * 19) % 256, (y * 23) % 256)) for x in range(W)))))


# adam7-rgb8.png: interlaced RGB, (x * 20 % 256, y * 20 % 256, x * y % 256).
def rgb8(x, y):
    return bytes((x * 20 % 256, y * 20 % 256, x * y % 256))


passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2),
          (0, 1, 1, 2)]
adam7 = bytearray()
for x0, y0, dx, dy in passes:
    xs, ys = range(x0, W, dx), range(y0, H, dy)
    if len(xs) == 0 or len(ys) == 0:
        continue
    for y in ys:
        adam7 += b"\x00" + b"".join(rgb8(x, y) for x in xs)
write("adam7-rgb8.png", png(ihdr(W, H, 8, 2, interlace=1), bytes(adam7)))


# rgba16.png: 16-bit RGBA, big-endian samples.
def rgba16(x, y):
    return (x * 4099 % 65536, y * 5003 % 65536, (x * y * 257 + 1) % 65536, 65535 - x * 1000)


write("rgba16.png", png(ihdr(W, H, 16, 6), raw_rows(W, H, lambda y: b"".join(
    struct.pack(">4H", *rgba16(x, y)) for x in range(W)))))

# huge-ihdr.png: IHDR claims 100000 × 100000 RGB; the data is one tiny row.
write("huge-ihdr.png", png(ihdr(100000, 100000, 8, 2), b"\x00" * 16))

# bad-crc.png: grey8.png with the IDAT CRC's last byte flipped.
good = png(ihdr(W, H, 8, 0), raw_rows(W, H, lambda y: bytes((x * 16 + y * 8) % 256 for x in range(W))))
idat_end = good.index(b"IEND") - 4  # the IDAT CRC ends where IEND's length field begins
write("bad-crc.png", good[:idat_end - 1] + bytes((good[idat_end - 1] ^ 0xFF,)) + good[idat_end:])

# xmp-ztxt-after-idat.png: 2 × 2 RGB with an XMP packet in a zTXt chunk after the image data.
xmp = (b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf='
       b'"http://www.w3.org/1999/02/22-rdf-syntax-ns#"/></x:xmpmeta>')
write("xmp-ztxt-after-idat.png", png(
    ihdr(2, 2, 8, 2), raw_rows(2, 2, lambda y: bytes(6)),
    extra_after=chunk(b"zTXt", b"XML:com.adobe.xmp\x00\x00" + zlib.compress(xmp))))

# apng-2frames.png: an animated PNG (APNG), 13 × 11 8-bit RGB in two frames. The default image
# (IDAT, also frame 1) is adam7-rgb8.png's pixels without interlacing; frame 2 (fdAT) is black.
def fctl(sequence):
    return struct.pack(">IIIIIHHBB", sequence, W, H, 0, 0, 1, 10, 0, 0)


frame2 = zlib.compress(raw_rows(W, H, lambda y: bytes(3 * W)), 9)
write("apng-2frames.png", png(
    ihdr(W, H, 8, 2), raw_rows(W, H, lambda y: b"".join(rgb8(x, y) for x in range(W))),
    extra_before=chunk(b"acTL", struct.pack(">II", 2, 0)) + chunk(b"fcTL", fctl(0)),
    extra_after=chunk(b"fcTL", fctl(1)) + chunk(b"fdAT", struct.pack(">I", 2) + frame2)))
