// SPDX-License-Identifier: Apache-2.0

// Pixel kernels written in C because measured Swift stays more than 1.5x behind them: each
// needs instructions Swift cannot express (gathers, byte permutes). Every kernel has a Swift
// twin that gives the same bytes or, where said, bytes within one code value; callers use the
// C one only where it reports itself available.

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

/// The tables a pixel near black takes in rt_lut33_apply_rgb8_factors (Retouch's own, so both
/// kernels read the same values): an 8-bit code's linear light times 16383 (256 entries),
/// linear light in 16384 steps to the grid coordinate in 1/256 of a cell (16384 entries), an
/// encoded value in 1/4080 steps to linear light times 16383 (4081 entries), and linear light
/// in 16384 steps to the 8-bit code (16384 entries). The kernel gathers 32 bits per entry, so
/// linearToAxis must have one more entry and linearToCode8 three more bytes.
typedef struct {
  const float *decode8Scaled;
  const uint16_t *linearToAxis;
  const float *decode4080Scaled;
  const uint8_t *linearToCode8;
  /// Near black in integers: 4 * 8192 * 1.055 * decode(c)^(1/2.4) rounded for codes 0-10 (32
  /// entries), and 8 * 8192 * 12.92 * decode(c) rounded for codes 0-63 (64 entries).
  const uint16_t *darkCodeSteps;
  const uint16_t *darkLinearSteps;
} rt_lut_fallback;

/// rt_lut33_apply_rgb8 with per-pixel multipliers of linear light: `gain[i]` before the table
/// and `vignette[i]` after it (either pair may be NULL), each with its 2.4th root
/// (`gainRoot`, `vignetteRoot`). On the power segment of the sRGB curve a multiplier is an affine
/// map of the encoded value, done here in integers from the root; near black from the
/// multiplier itself and `fallback`'s steps; the few pixels left (a very dark result from a
/// bright code, a gain of 5.2 or more) take `fallback`'s tables, gathered, as Retouch's Swift
/// fused kernel does. Not that kernel's bytes: within one code value of them (it reads tables
/// throughout), and as close to the exact float result.
/// Must only be called when rt_lut33_rgb8_available() returns 1.
void rt_lut33_apply_rgb8_factors(
    const uint64_t *table, const uint8_t *src, uint8_t *dst, size_t count, const float *gain,
    const float *gainRoot, const float *vignette, const float *vignetteRoot,
    const rt_lut_fallback *fallback);

#ifdef __cplusplus
}
#endif

#endif
