// SPDX-License-Identifier: Apache-2.0
//
// The fused 8-bit colour pass with AVX-512 gathers: the C twin of the Swift kernel
// `ColorLUT3D.apply8Fused` (same tables, same fixed point, same rounding, so the same bytes).
//
// Why C: the pass is table look-ups (decode, grid coordinate, four 3D-table corners, decode,
// encode: 19 per pixel). Swift has no gather instructions and LLVM does not vectorise the Swift
// kernel, so it runs them as scalar loads with the per-pixel arithmetic around each (about 88
// instructions per pixel). AVX-512 does 16 pixels per gather and their arithmetic in a handful
// of vector instructions. Measured speed: see the Swift kernel's discussion.

#include "CRetouchKernels.h"

#include <immintrin.h>
#include <stddef.h>

#define RT_AVX512 __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx512vbmi")))

int rt_fused8_avx512_available(void) {
#if defined(__x86_64__)
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
         __builtin_cpu_supports("avx512vbmi");
#else
  return 0;
#endif
}

#if defined(__x86_64__)

// Linear light × 16383 (≥ 0) → table index: clamp the top, round to nearest even.
RT_AVX512 static inline __m512i rt_linear_index(__m512 l) {
  return _mm512_cvtps_epi32(_mm512_min_ps(l, _mm512_set1_ps(16383.0f)));
}

// Grid coordinate (1/256 cells) of 16 code values after a linear-light gain.
RT_AVX512 static inline __m512i rt_gained_coordinate(
    __m512i codes, __m512 k, const rt_fused8_tables *t) {
  __m512 l = _mm512_mul_ps(_mm512_i32gather_ps(codes, t->decode8, 4), k);
  __m512i x = _mm512_i32gather_epi32(rt_linear_index(l), t->linear_to_coordinate, 2);
  return _mm512_and_si512(x, _mm512_set1_epi32(0xFFFF));
}

// 16 encoded values in 1/4080 times a linear multiplier → 16 8-bit codes (in 32-bit lanes).
RT_AVX512 static inline __m512i rt_vignetted(__m512i v12, __m512 m, const rt_fused8_tables *t) {
  __m512 l = _mm512_mul_ps(_mm512_i32gather_ps(v12, t->decode4080, 4), m);
  __m512i c = _mm512_i32gather_epi32(rt_linear_index(l), (const void *)t->code8, 1);
  return _mm512_and_si512(c, _mm512_set1_epi32(0xFF));
}

// Field `shift` of 8 packed sums (qword lanes), masked to 13 bits, as 8 dwords.
RT_AVX512 static inline __m256i rt_field(__m512i sum, int shift) {
  return _mm512_cvtepi64_epi32(
      _mm512_and_si512(_mm512_srli_epi64(sum, (unsigned)shift), _mm512_set1_epi64(0x1FFF)));
}

RT_AVX512 void rt_fused8_avx512(
    uint8_t *row, int32_t count, const float *gains, const float *vignette,
    const rt_fused8_tables *t) {
  const int32_t n = t->n;
  const __m512i last_cell = _mm512_set1_epi32(n - 2);
  const __m512i step_g = _mm512_set1_epi32(n);
  const __m512i step_b = _mm512_set1_epi32(n * n);
  const __m512i one = _mm512_set1_epi32(1);
  const __m512i diagonal = _mm512_set1_epi32(1 + n + n * n);
  const __m512i full = _mm512_set1_epi32(256);
  // Byte shuffles between 16 interleaved RGB pixels and three planes of 16 bytes.
  uint8_t split_bytes[64], join_bytes[64];
  for (int i = 0; i < 64; i++) {
    split_bytes[i] = (uint8_t)(i < 48 ? 3 * (i % 16) + i / 16 : 0);
    join_bytes[i] = (uint8_t)(i < 48 ? 16 * (i % 3) + i / 3 : 0);
  }
  const __m512i split = _mm512_loadu_si512(split_bytes);
  const __m512i join = _mm512_loadu_si512(join_bytes);

  for (int32_t x = 0; x < count; x += 16) {
    const int32_t m = count - x < 16 ? count - x : 16;
    const __mmask64 bytes = m == 16 ? 0xFFFFFFFFFFFFull : ((1ull << (3 * m)) - 1);
    const __mmask16 lanes = (__mmask16)((1u << m) - 1);
    uint8_t *p = row + 3 * (ptrdiff_t)x;
    const __m512i planes = _mm512_permutexvar_epi8(split, _mm512_maskz_loadu_epi8(bytes, p));
    const __m512i r = _mm512_cvtepu8_epi32(_mm512_castsi512_si128(planes));
    const __m512i g = _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(planes, 1));
    const __m512i b = _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(planes, 2));

    __m512i xr, xg, xb;
    if (gains) {
      const __m512 k = _mm512_maskz_loadu_ps(lanes, gains + x);
      xr = rt_gained_coordinate(r, k, t);
      xg = rt_gained_coordinate(g, k, t);
      xb = rt_gained_coordinate(b, k, t);
    } else {
      xr = _mm512_i32gather_epi32(r, (const void *)t->coordinate8, 4);
      xg = _mm512_i32gather_epi32(g, (const void *)t->coordinate8, 4);
      xb = _mm512_i32gather_epi32(b, (const void *)t->coordinate8, 4);
    }
    const __m512i ir = _mm512_min_epi32(_mm512_srli_epi32(xr, 8), last_cell);
    const __m512i ig = _mm512_min_epi32(_mm512_srli_epi32(xg, 8), last_cell);
    const __m512i ib = _mm512_min_epi32(_mm512_srli_epi32(xb, 8), last_cell);
    const __m512i dr = _mm512_sub_epi32(xr, _mm512_slli_epi32(ir, 8));
    const __m512i dg = _mm512_sub_epi32(xg, _mm512_slli_epi32(ig, 8));
    const __m512i db = _mm512_sub_epi32(xb, _mm512_slli_epi32(ib, 8));
    const __m512i cell = _mm512_add_epi32(
        ir, _mm512_add_epi32(_mm512_mullo_epi32(ig, step_g), _mm512_mullo_epi32(ib, step_b)));

    // The tetrahedron: from corner 000 along the largest fraction's axis (A), then the second
    // largest (B), to 111; weights (256 − max), (max − mid), (mid − min), min.
    const __m512i w_max = _mm512_max_epi32(dr, _mm512_max_epi32(dg, db));
    const __m512i w_min = _mm512_min_epi32(dr, _mm512_min_epi32(dg, db));
    const __m512i w_mid =
        _mm512_sub_epi32(_mm512_add_epi32(dr, _mm512_add_epi32(dg, db)), _mm512_add_epi32(w_max, w_min));
    __m512i step_a = _mm512_mask_blend_epi32(_mm512_cmpge_epi32_mask(dg, db), step_b, step_g);
    step_a = _mm512_mask_blend_epi32(
        _mm512_cmpge_epi32_mask(dr, dg) & _mm512_cmpge_epi32_mask(dr, db), step_a, one);
    __m512i step_min = _mm512_mask_blend_epi32(_mm512_cmple_epi32_mask(dg, dr), one, step_g);
    step_min = _mm512_mask_blend_epi32(
        _mm512_cmple_epi32_mask(db, dr) & _mm512_cmple_epi32_mask(db, dg), step_min, step_b);
    const __m512i corner_a = _mm512_add_epi32(cell, step_a);
    const __m512i corner_1 = _mm512_add_epi32(cell, diagonal);
    const __m512i corner_b = _mm512_sub_epi32(corner_1, step_min);
    const __m512i w0 = _mm512_sub_epi32(full, w_max);
    const __m512i wa = _mm512_sub_epi32(w_max, w_mid);
    const __m512i wb = _mm512_sub_epi32(w_mid, w_min);

    // Eight pixels per half: 64-bit gathers and multiply-adds of the packed entries.
    __m512i sums[2];
    for (int h = 0; h < 2; h++) {
#define RT_HALF(v) (h ? _mm512_extracti64x4_epi64((v), 1) : _mm512_castsi512_si256(v))
      const __m512i e0 = _mm512_i32gather_epi64(RT_HALF(cell), (const void *)t->packed, 8);
      const __m512i ea = _mm512_i32gather_epi64(RT_HALF(corner_a), (const void *)t->packed, 8);
      const __m512i eb = _mm512_i32gather_epi64(RT_HALF(corner_b), (const void *)t->packed, 8);
      const __m512i e1 = _mm512_i32gather_epi64(RT_HALF(corner_1), (const void *)t->packed, 8);
      __m512i s = _mm512_mullo_epi64(e0, _mm512_cvtepu32_epi64(RT_HALF(w0)));
      s = _mm512_add_epi64(s, _mm512_mullo_epi64(ea, _mm512_cvtepu32_epi64(RT_HALF(wa))));
      s = _mm512_add_epi64(s, _mm512_mullo_epi64(eb, _mm512_cvtepu32_epi64(RT_HALF(wb))));
      s = _mm512_add_epi64(s, _mm512_mullo_epi64(e1, _mm512_cvtepu32_epi64(RT_HALF(w_min))));
#undef RT_HALF
      sums[h] = s;
    }

    __m128i out_r, out_g, out_b;
    if (vignette) {
      // Fields rounded to 1/4080, decoded, multiplied, encoded once.
      const __m512i half_step = _mm512_set1_epi64(128ll | 128ll << 21 | 128ll << 42);
      const __m512i s0 = _mm512_add_epi64(sums[0], half_step);
      const __m512i s1 = _mm512_add_epi64(sums[1], half_step);
      const __m512 v = _mm512_maskz_loadu_ps(lanes, vignette + x);
#define RT_FIELD16(shift) \
  _mm512_inserti64x4(_mm512_castsi256_si512(rt_field(s0, (shift))), rt_field(s1, (shift)), 1)
      out_r = _mm512_cvtepi32_epi8(rt_vignetted(RT_FIELD16(8), v, t));
      out_g = _mm512_cvtepi32_epi8(rt_vignetted(RT_FIELD16(29), v, t));
      out_b = _mm512_cvtepi32_epi8(rt_vignetted(RT_FIELD16(50), v, t));
#undef RT_FIELD16
    } else {
      const __m512i rounding = _mm512_set1_epi64(2048ll | 2048ll << 21 | 2048ll << 42);
      const __m512i s0 = _mm512_add_epi64(sums[0], rounding);
      const __m512i s1 = _mm512_add_epi64(sums[1], rounding);
#define RT_BYTES(shift)                                               \
  _mm_unpacklo_epi64(                                                 \
      _mm512_cvtepi64_epi8(_mm512_srli_epi64(s0, (unsigned)(shift))), \
      _mm512_cvtepi64_epi8(_mm512_srli_epi64(s1, (unsigned)(shift))))
      out_r = RT_BYTES(12);
      out_g = RT_BYTES(33);
      out_b = RT_BYTES(54);
#undef RT_BYTES
    }
    __m512i result = _mm512_castsi128_si512(out_r);
    result = _mm512_inserti32x4(result, out_g, 1);
    result = _mm512_inserti32x4(result, out_b, 2);
    _mm512_mask_storeu_epi8(p, bytes, _mm512_permutexvar_epi8(join, result));
  }
}

#else

void rt_fused8_avx512(
    uint8_t *row, int32_t count, const float *gains, const float *vignette,
    const rt_fused8_tables *tables) {
  (void)row; (void)count; (void)gains; (void)vignette; (void)tables;
}

#endif
