// SPDX-License-Identifier: Apache-2.0
//
// Hot pixel kernels written in C because Swift cannot reach the CPU instructions they need (see
// each kernel's comment for the measurement). Every kernel has a Swift twin that gives the same
// result bit for bit and runs where the CPU lacks the instructions.

#ifndef RETOUCH_KERNELS_H
#define RETOUCH_KERNELS_H

#include <stdint.h>

/// The tables of the fused 8-bit colour pass (all owned by the caller, read only).
typedef struct {
  /// The 3D table, n³ entries of three 21-bit fields (round(4080·c) per channel).
  const uint64_t *packed;
  /// Grid points per axis.
  int32_t n;
  /// 256 entries: code value → grid coordinate in 1/256 cells, round(v / 255 · (n − 1) · 256).
  const uint32_t *coordinate8;
  /// 16384 entries plus 1 of padding: linear light × 16383 → grid coordinate in 1/256 cells.
  const uint16_t *linear_to_coordinate;
  /// 256 entries: code value → linear light × 16383.
  const float *decode8;
  /// 4081 entries: encoded value in 1/4080 → linear light × 16383.
  const float *decode4080;
  /// 16384 entries plus 3 of padding: linear light × 16383 → 8-bit code.
  const uint8_t *code8;
} rt_fused8_tables;

/// 1 when this CPU has the AVX-512 subsets `rt_fused8_avx512` needs (F, BW, DQ, VL, VBMI).
int rt_fused8_avx512_available(void);

/// Local gain, 3D table and vignette on `count` packed RGB8 pixels at `row`, in place, 16 pixels
/// at a time with AVX-512 gathers. `gains` and `vignette` (one float per pixel) may be NULL.
/// Only call when `rt_fused8_avx512_available()` returned 1.
void rt_fused8_avx512(
    uint8_t *row, int32_t count, const float *gains, const float *vignette,
    const rt_fused8_tables *tables);

#endif
