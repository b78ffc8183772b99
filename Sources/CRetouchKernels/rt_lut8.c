// SPDX-License-Identifier: Apache-2.0

#include "rt_kernels.h"

#include <stdlib.h>

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))

#include <immintrin.h>

#define RT_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")))

enum { GRID = 33 };

int rt_lut33_rgb8_available(void) {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw")
      && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq")
      && __builtin_cpu_supports("avx512vbmi");
}

// Byte indices (built per call: a few hundred bytes against a row of pixels): the R, G and B
// bytes of 32 pixels (96 bytes in two registers) into the low byte of 32 16-bit lanes; the
// three result bytes of 16 pixels (bytes 0-2 of each of 16 qwords in two registers) back into
// 48 packed bytes; the bit offsets of the three rounded channels in an interpolated sum.
typedef struct { uint8_t red[64], green[64], blue[64], pack[64], fields[64]; } rt_lut_indices;

static rt_lut_indices make_indices(void) {
  rt_lut_indices t = {{0}, {0}, {0}, {0}, {0}};
  for (int j = 0; j < 32; j++) {
    t.red[2 * j] = (uint8_t)(3 * j);
    t.green[2 * j] = (uint8_t)(3 * j + 1);
    t.blue[2 * j] = (uint8_t)(3 * j + 2);
  }
  for (int j = 0; j < 16; j++)
    for (int c = 0; c < 3; c++) t.pack[3 * j + c] = (uint8_t)((j < 8 ? 0 : 64) + 8 * (j % 8) + c);
  for (int q = 0; q < 8; q++) {
    t.fields[8 * q] = 12;
    t.fields[8 * q + 1] = 33;
    t.fields[8 * q + 2] = 54;
  }
  return t;
}

static inline uint64_t low_bytes(size_t n) { return n >= 64 ? ~0ull : (1ull << n) - 1; }

// 32 pixels a step, in 16-bit lanes until the corners are read:
// - the grid coordinate of a code v in 1/256 of a cell, round(v * 8192 / 255), is
//   32v + (((32v + 128) * 257) >> 16) (checked exact for every v), cell min(t >> 8, 31);
// - the tetrahedron: weights max, mid, min of the three fractions; the corner after the origin
//   steps along the largest fraction's axis, the one before the far corner along all but the
//   smallest's (ties pick either: the corner they disagree on gets weight 0);
// - per 8 pixels, the four corners are gathered as 64-bit packed entries and multiplied by
//   their weights, so all three channels interpolate in one multiply-add per corner, and one
//   multishift takes the three rounded bytes out of each sum.
RT_AVX512 void rt_lut33_apply_rgb8(
    const uint64_t *table, const uint8_t *src, uint8_t *dst, size_t count) {
  const rt_lut_indices indices = make_indices();
  const __m512i red = _mm512_loadu_si512(indices.red), green = _mm512_loadu_si512(indices.green),
                blue = _mm512_loadu_si512(indices.blue), pack = _mm512_loadu_si512(indices.pack),
                fields = _mm512_loadu_si512(indices.fields);
  const __mmask64 evenBytes = 0x5555555555555555ull;
  const __m512i c128 = _mm512_set1_epi16(128), c257 = _mm512_set1_epi16(257);
  const __m512i lastCell = _mm512_set1_epi16(GRID - 2), one = _mm512_set1_epi16(1),
                stepG = _mm512_set1_epi16(GRID), stepB = _mm512_set1_epi16(GRID * GRID),
                diagonal = _mm512_set1_epi16(1 + GRID + GRID * GRID),
                whole = _mm512_set1_epi16(256);
  const __m512i rounding = _mm512_set1_epi64(2048ll | 2048ll << 21 | 2048ll << 42);
  const void *base = (const void *)table;

  while (count > 0) {
    size_t m = count < 32 ? count : 32;
    size_t bytes = 3 * m;
    __m512i v0 = _mm512_maskz_loadu_epi8(low_bytes(bytes), src);
    __m512i v1 = _mm512_maskz_loadu_epi8(bytes > 64 ? low_bytes(bytes - 64) : 0, src + 64);
    __m512i r = _mm512_maskz_permutex2var_epi8(evenBytes, v0, red, v1);
    __m512i g = _mm512_maskz_permutex2var_epi8(evenBytes, v0, green, v1);
    __m512i b = _mm512_maskz_permutex2var_epi8(evenBytes, v0, blue, v1);
#define RT_AXIS(x)                                                                                \
  _mm512_add_epi16(_mm512_slli_epi16(x, 5),                                                       \
      _mm512_mulhi_epu16(_mm512_add_epi16(_mm512_slli_epi16(x, 5), c128), c257))
    __m512i tr = RT_AXIS(r), tg = RT_AXIS(g), tb = RT_AXIS(b);
#undef RT_AXIS
    __m512i ir = _mm512_min_epu16(_mm512_srli_epi16(tr, 8), lastCell);
    __m512i ig = _mm512_min_epu16(_mm512_srli_epi16(tg, 8), lastCell);
    __m512i ib = _mm512_min_epu16(_mm512_srli_epi16(tb, 8), lastCell);
    __m512i dr = _mm512_sub_epi16(tr, _mm512_slli_epi16(ir, 8));
    __m512i dg = _mm512_sub_epi16(tg, _mm512_slli_epi16(ig, 8));
    __m512i db = _mm512_sub_epi16(tb, _mm512_slli_epi16(ib, 8));
    __m512i cell = _mm512_add_epi16(
        _mm512_add_epi16(ir, _mm512_mullo_epi16(ig, stepG)), _mm512_mullo_epi16(ib, stepB));
    __m512i wMax = _mm512_max_epu16(dr, _mm512_max_epu16(dg, db));
    __m512i wMin = _mm512_min_epu16(dr, _mm512_min_epu16(dg, db));
    __m512i wMid = _mm512_sub_epi16(
        _mm512_add_epi16(dr, _mm512_add_epi16(dg, db)), _mm512_add_epi16(wMax, wMin));
    __mmask32 redLargest = _mm512_cmpge_epu16_mask(dr, dg) & _mm512_cmpge_epu16_mask(dr, db);
    __mmask32 greenOverBlue = _mm512_cmpge_epu16_mask(dg, db);
    __m512i stepA = _mm512_mask_blend_epi16(
        redLargest, _mm512_mask_blend_epi16(greenOverBlue, stepB, stepG), one);
    __mmask32 blueSmallest = _mm512_cmple_epu16_mask(db, dr) & _mm512_cmple_epu16_mask(db, dg);
    __mmask32 greenUnderRed = _mm512_cmple_epu16_mask(dg, dr);
    __m512i stepMin = _mm512_mask_blend_epi16(
        blueSmallest, _mm512_mask_blend_epi16(greenUnderRed, one, stepG), stepB);
    __m512i far = _mm512_add_epi16(cell, diagonal);
    __m512i cornerA = _mm512_add_epi16(cell, stepA);
    __m512i cornerB = _mm512_sub_epi16(far, stepMin);
    __m512i w0 = _mm512_sub_epi16(whole, wMax);
    __m512i wA = _mm512_sub_epi16(wMax, wMid);
    __m512i wB = _mm512_sub_epi16(wMid, wMin);

    __m512i out[4];
#define RT_HALF(x, h) _mm512_cvtepu16_epi32(_mm512_extracti64x4_epi64(x, h))
#define RT_EIGHTH(x, e) ((e) ? _mm512_extracti64x4_epi64(x, 1) : _mm512_castsi512_si256(x))
#define RT_CORNER(x, e) _mm512_i32gather_epi64(RT_EIGHTH(x, e), base, 8)
#define RT_WEIGHT(x, e) _mm512_cvtepu32_epi64(RT_EIGHTH(x, e))
#define RT_EIGHT(h, e)                                                                            \
  do {                                                                                            \
    __m512i s = _mm512_mullo_epi64(RT_CORNER(i0, e), RT_WEIGHT(v0, e));                           \
    s = _mm512_add_epi64(s, rounding);                                                            \
    s = _mm512_add_epi64(s, _mm512_mullo_epi64(RT_CORNER(iA, e), RT_WEIGHT(vA, e)));              \
    s = _mm512_add_epi64(s, _mm512_mullo_epi64(RT_CORNER(iB, e), RT_WEIGHT(vB, e)));              \
    s = _mm512_add_epi64(s, _mm512_mullo_epi64(RT_CORNER(i1, e), RT_WEIGHT(v1, e)));              \
    out[2 * h + e] = _mm512_multishift_epi64_epi8(fields, s);                                     \
  } while (0)
    // Per 16 pixels the indices and weights are widened to 32 bits once, then per 8 pixels
    // the corners are gathered and weighted in 64-bit lanes.
#define RT_SIXTEEN(h)                                                                             \
  do {                                                                                            \
    __m512i i0 = RT_HALF(cell, h), iA = RT_HALF(cornerA, h), iB = RT_HALF(cornerB, h),            \
            i1 = RT_HALF(far, h);                                                                 \
    __m512i v0 = RT_HALF(w0, h), vA = RT_HALF(wA, h), vB = RT_HALF(wB, h),                        \
            v1 = RT_HALF(wMin, h);                                                                \
    RT_EIGHT(h, 0);                                                                               \
    RT_EIGHT(h, 1);                                                                               \
  } while (0)
    RT_SIXTEEN(0);
    RT_SIXTEEN(1);
#undef RT_SIXTEEN
#undef RT_EIGHT
#undef RT_WEIGHT
#undef RT_CORNER
#undef RT_EIGHTH
#undef RT_HALF
    // All loads of this step are done, so `dst` may be `src`.
    size_t first = m >= 16 ? 48 : 3 * m;
    _mm512_mask_storeu_epi8(dst, low_bytes(first), _mm512_permutex2var_epi8(out[0], pack, out[1]));
    if (m > 16)
      _mm512_mask_storeu_epi8(
          dst + 48, low_bytes(3 * (m - 16)), _mm512_permutex2var_epi8(out[2], pack, out[3]));
    src += bytes;
    dst += bytes;
    count -= m;
  }
}

#else

int rt_lut33_rgb8_available(void) { return 0; }

void rt_lut33_apply_rgb8(
    const uint64_t *table, const uint8_t *src, uint8_t *dst, size_t count) {
  (void)table;
  (void)src;
  (void)dst;
  (void)count;
  abort();
}

#endif
