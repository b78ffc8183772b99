// SPDX-License-Identifier: Apache-2.0

// Pixel kernels written in C because measured Swift stays more than 1.5x behind them: each
// needs instructions Swift cannot express (gathers, byte permutes). Every kernel has a Swift
// twin that gives the same bytes; callers use the C one only where it reports itself available.

#ifndef RT_KERNELS_H
#define RT_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// 1 when this CPU and operating system run rt_lut33_apply_rgb8 (x86-64 with AVX-512 F, BW,
/// VL, DQ and VBMI enabled), else 0. Asks the CPU each time: callers keep the answer.
int rt_lut33_rgb8_available(void);

/// Tetrahedral interpolation of a 33-point colour table on `count` packed 8-bit RGB pixels,
/// from `src` to `dst` (the same buffer, or buffers that do not overlap).
///
/// `table` holds 33^3 entries, red fastest, then green, then blue; each entry packs the
/// output's R, G and B as round(4080 * c) in three 21-bit fields (bits 0, 21 and 42). The
/// result is exactly Retouch's Swift 8-bit table kernel: an input code v sits at
/// round(v * 8192 / 255) in 1/256 of a cell (the last cell taking v = 255), the four corners of
/// the tetrahedron are weighted in 1/256, and each channel is rounded once, (sum + 2048) >> 12.
/// Must only be called when rt_lut33_rgb8_available() returns 1.
void rt_lut33_apply_rgb8(
    const uint64_t *table, const uint8_t *src, uint8_t *dst, size_t count);

#ifdef __cplusplus
}
#endif

#endif
