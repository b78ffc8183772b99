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
typedef struct {
  uint8_t red[64], green[64], blue[64], pack[64], fields[64], fields16[64], packWords[64];
  uint16_t spread[32];
} rt_lut_indices;

static rt_lut_indices make_indices(void) {
  rt_lut_indices t = {{0}, {0}, {0}, {0}, {0}, {0}, {0}, {0}};
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
  // With the vignette: bits 5-20 of each 21-bit field of a sum into 16-bit lane 4j + c of
  // pixel j (two bytes each); the low bytes of those lanes back into packed bytes; lane
  // 4j + c takes pixel j's multiplier from 16-bit lane 2j (the low half of its 32-bit lane).
  for (int q = 0; q < 8; q++)
    for (int c = 0; c < 3; c++) {
      t.fields16[8 * q + 2 * c] = (uint8_t)(21 * c + 5);
      t.fields16[8 * q + 2 * c + 1] = (uint8_t)(21 * c + 13);
    }
  for (int j = 0; j < 16; j++)
    for (int c = 0; c < 3; c++)
      t.packWords[3 * j + c] = (uint8_t)((j < 8 ? 0 : 64) + 8 * (j % 8) + 2 * c);
  for (int l = 0; l < 32; l++) t.spread[l] = (uint16_t)(2 * (l / 4));
  return t;
}

static inline uint64_t low_bytes(size_t n) { return n >= 64 ? ~0ull : (1ull << n) - 1; }

static inline uint32_t low_lanes32(size_t n) { return n >= 32 ? ~0u : (1u << n) - 1; }

// The Swift kernel's tables for 16 lanes in `mk`: linear light decode[index] * multiplier, at
// most 16383, rounded, and the entry of `encode` there (`shift` 1 for 16-bit entries, 0 for
// bytes; the gather reads 32 bits, so the table is padded and the entry masked). Returns the
// entries as 16-bit lanes.
RT_AVX512 static inline __m256i through_linear_light(__mmask16 mk, __m512i index,
    __m512 multiplier, const float *decode, const void *encode, int shift, int mask) {
  __m512 linear = _mm512_mask_i32gather_ps(_mm512_setzero_ps(), mk, index, decode, 4);
  __m512 l = _mm512_min_ps(_mm512_mul_ps(linear, multiplier), _mm512_set1_ps(16383.0f));
  __m512i offset = _mm512_sll_epi32(_mm512_cvtps_epi32(l), _mm_cvtsi32_si128(shift));
  __m512i entry = _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), mk, offset, encode, 1);
  return _mm512_cvtepi32_epi16(_mm512_and_si512(entry, _mm512_set1_epi32(mask)));
}

// The gain by the tables, for the lanes the integers do not cover (a very dark result from a
// code of 64 or more, a gain of 5.2 or more): the grid coordinate of decode8Scaled[c] * gain
// from linearToAxis. Other lanes keep `t`.
RT_AVX512 static inline __m512i gained_by_tables(
    __m512i c, __m512i t, __mmask32 lanes, const float *gain, const rt_lut_fallback *fb) {
#define RT_TABLE_HALF(h)                                                                          \
  do {                                                                                            \
    __mmask16 mk = (__mmask16)(lanes >> (16 * (h)));                                              \
    if (!mk) break;                                                                               \
    __m512i code = _mm512_cvtepu16_epi32(_mm512_extracti64x4_epi64(c, h));                        \
    __m256i axis = through_linear_light(mk, code, _mm512_maskz_loadu_ps(mk, gain + 16 * (h)),     \
        fb->decode8Scaled, fb->linearToAxis, 1, 0xFFFF);                                          \
    t = _mm512_inserti64x4(                                                                       \
        t, _mm256_mask_blend_epi16(mk, _mm512_extracti64x4_epi64(t, h), axis), h);                \
  } while (0)
  RT_TABLE_HALF(0);
  RT_TABLE_HALF(1);
#undef RT_TABLE_HALF
  return t;
}

// The vignette's result on the linear segment from a field on the power segment, per 16-bit
// lane in `*band`: 255 * 12.92 * (y / (255 * 1.055))^2.4 of y = hi / 64 (the power segment's
// value plus 14.025), which is 13-25.2 for multipliers from 1/4 up, as a quadratic in
// z = y - 19 fitted to it (within 0.007 code values):
// (95501587 + 189588 z + 109 z^2 + 2^23) >> 24 with z in 1/64, in 32-bit lanes. Lanes whose y is
// out of that range join `*dark` (the tables). Other lanes keep `codes`.
RT_AVX512 static inline __m512i vignetted_band(
    __m512i hi, __m512i codes, __mmask32 band, __mmask32 *dark) {
  __mmask32 inside = _mm512_mask_cmpge_epu16_mask(band, hi, _mm512_set1_epi16(832))
                     & _mm512_cmple_epu16_mask(hi, _mm512_set1_epi16(1613));
  *dark |= band & ~inside;
  const __m512i k0 = _mm512_set1_epi32(95501587 + (1 << 23)), k1 = _mm512_set1_epi32(189588),
                k2 = _mm512_set1_epi32(109), middle = _mm512_set1_epi32(1216);
#define RT_BAND_HALF(x)                                                                           \
  ({                                                                                              \
    __m512i z = _mm512_sub_epi32(_mm512_cvtepu16_epi32(x), middle);                               \
    __m512i q = _mm512_add_epi32(k0, _mm512_mullo_epi32(z, k1));                                  \
    q = _mm512_add_epi32(q, _mm512_mullo_epi32(_mm512_mullo_epi32(z, z), k2));                    \
    _mm512_cvtepi32_epi16(_mm512_srai_epi32(q, 24));                                              \
  })
  __m256i low = RT_BAND_HALF(_mm512_castsi512_si256(hi));
  __m256i high = RT_BAND_HALF(_mm512_extracti64x4_epi64(hi, 1));
#undef RT_BAND_HALF
  __m512i q = _mm512_inserti64x4(_mm512_castsi256_si512(low), high, 1);
  return _mm512_mask_mov_epi16(codes, inside, q);
}

// The vignette by the tables, for the 16-bit lanes the integers do not cover (a result on the
// linear segment lifted from a field on it, by a multiplier above 1; one outside the
// quadratic's range): the field F = f >> 5 at 1/4080 ((F + 4) >> 3) through decode4080Scaled,
// times the lane's pixel's vignette (`v8`, 8 pixels, 4 lanes each), to linearToCode8. Other
// lanes keep `codes`.
RT_AVX512 static inline __m512i vignetted_by_tables(
    __m512i fields, __m512i codes, __mmask32 lanes, __m512 v8, const rt_lut_fallback *fb) {
#define RT_TABLE_WORDS(h)                                                                         \
  do {                                                                                            \
    __mmask16 mk = (__mmask16)(lanes >> (16 * (h)));                                              \
    if (!mk) break;                                                                               \
    __m512i index = _mm512_srli_epi32(                                                            \
        _mm512_add_epi32(                                                                         \
            _mm512_cvtepu16_epi32(_mm512_extracti64x4_epi64(fields, h)), _mm512_set1_epi32(4)),   \
        3);                                                                                       \
    __m512i pixel = _mm512_add_epi32(                                                             \
        _mm512_srli_epi32(                                                                        \
            _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15), 2),          \
        _mm512_set1_epi32(4 * (h)));                                                              \
    __m256i code = through_linear_light(mk, index, _mm512_permutexvar_ps(pixel, v8),             \
        fb->decode4080Scaled, fb->linearToCode8, 0, 0xFF);                                        \
    codes = _mm512_inserti64x4(                                                                   \
        codes, _mm256_mask_blend_epi16(mk, _mm512_extracti64x4_epi64(codes, h), code), h);        \
  } while (0)
  RT_TABLE_WORDS(0);
  RT_TABLE_WORDS(1);
#undef RT_TABLE_WORDS
  return codes;
}

// 32 pixels a step, in 16-bit lanes until the corners are read:
// - the grid coordinate of a code v in 1/256 of a cell, round(v * 8192 / 255), is
//   32v + (((32v + 128) * 257) >> 16) (checked exact for every v), cell min(t >> 8, 31);
// - the tetrahedron: weights max, mid, min of the three fractions; the corner after the origin
//   steps along the largest fraction's axis, the one before the far corner along all but the
//   smallest's (ties pick either: the corner they disagree on gets weight 0);
// - per 8 pixels, the four corners are gathered as 64-bit packed entries and multiplied by
//   their weights, so all three channels interpolate in one multiply-add per corner, and one
//   multishift takes the three rounded bytes out of each sum (with a vignette, bits 5-20 of
//   each channel into 16-bit lanes, where the vignette is applied to 8 pixels' 24 values at
//   once).
RT_AVX512 __attribute__((always_inline)) static inline void apply(
    const uint64_t *table, const uint8_t *src, uint8_t *dst, size_t count, const float *gain,
    const float *gainRoot, const float *vignette, const float *vignetteRoot,
    const rt_lut_fallback *fallback) {
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
  // The gain and the vignette in integers. On the power segment of the sRGB curve a multiplier k
  // of linear light maps an encoded value e to a * (e + 0.055) - 0.055 with a = k^(1/2.4):
  // - a gain turns code c into the grid coordinate (1/256 cells) a * 32.125 * (c + 14.025) -
  //   450.56, here (round(a * 32768) * P(c)) >> 17 - 450 with P(c) = 128c + c/2 + 1802 (codes
  //   from 11; darkCodeSteps below, on the curve's linear segment); where that is below 332 the
  //   result is on the linear segment, k * 8192 * 12.92 * decode(c), here
  //   (round(k * 8192) * darkLinearSteps[c]) >> 16 (codes below 64);
  // - the vignette turns an interpolated field f (e * 255 * 4096) into the code
  //   b * (f + 57446.4) / 4096 - 14.025; from F = f >> 5 in 16-bit lanes,
  //   hi = (round(b * 32768) * (F + 1795)) >> 16 is that value plus 14.025 in 1/64, and the
  //   code (hi - 866) >> 6, at most 255 (F from 1321, results from 11; below that see
  //   vignetted_band); a field and result both on the linear segment give v * f / 4096, here
  //   ((round(v * 8192) * F) >> 16 + 8) >> 4.
  // Within one 1/256 cell and 0.53 code values of the exact values (the Swift kernel's tables
  // are within 0.2 code values), so the two kernels differ by at most one code value.
  const __m512 c32768 = _mm512_set1_ps(32768.0f), c65535 = _mm512_set1_ps(65535.0f);
  const __m512 c8192f = _mm512_set1_ps(8192.0f);
  const __m512i c64 = _mm512_set1_epi16(64);
  __m512i darkCode = _mm512_setzero_si512(), darkLinear0 = darkCode, darkLinear1 = darkCode;
  if (gain) {
    darkCode = _mm512_loadu_si512(fallback->darkCodeSteps);
    darkLinear0 = _mm512_loadu_si512(fallback->darkLinearSteps);
    darkLinear1 = _mm512_loadu_si512(fallback->darkLinearSteps + 32);
  }
  const __m512i c1802 = _mm512_set1_epi16(1802), c450 = _mm512_set1_epi16(450),
                c11 = _mm512_set1_epi16(11), c332 = _mm512_set1_epi16(332),
                c8192 = _mm512_set1_epi16(8192);
  const __m512i fields16 = _mm512_loadu_si512(indices.fields16),
                packWords = _mm512_loadu_si512(indices.packWords),
                spread = _mm512_loadu_si512(indices.spread);
  const __m256 c32768h = _mm256_set1_ps(32768.0f), c8192h = _mm256_set1_ps(8192.0f);
  const __m512i c1795 = _mm512_set1_epi16(1795), c866 = _mm512_set1_epi16(866),
                c255w = _mm512_set1_epi16(255), c1321 = _mm512_set1_epi16(1321),
                c10w = _mm512_set1_epi16(10),
                c8w = _mm512_set1_epi16(8);

  while (count > 0) {
    size_t m = count < 32 ? count : 32;
    size_t bytes = 3 * m;
    __m512i v0 = _mm512_maskz_loadu_epi8(low_bytes(bytes), src);
    __m512i v1 = _mm512_maskz_loadu_epi8(bytes > 64 ? low_bytes(bytes - 64) : 0, src + 64);
    __m512i r = _mm512_maskz_permutex2var_epi8(evenBytes, v0, red, v1);
    __m512i g = _mm512_maskz_permutex2var_epi8(evenBytes, v0, green, v1);
    __m512i b = _mm512_maskz_permutex2var_epi8(evenBytes, v0, blue, v1);
    __m512i tr, tg, tb;
    if (gain) {
      // round(root * 32768) per pixel as 16 bits; roots of 2 or more take the tables.
      __m512 s0 = _mm512_mul_ps(_mm512_maskz_loadu_ps((__mmask16)low_lanes32(m), gainRoot), c32768);
      __m512 s1 = _mm512_mul_ps(
          _mm512_maskz_loadu_ps((__mmask16)(low_lanes32(m) >> 16), gainRoot + 16), c32768);
      // Only lanes of the row: the gains after its end may be unmapped memory.
      __mmask16 ok0 = _mm512_mask_cmp_ps_mask((__mmask16)low_lanes32(m), s0, c65535, _CMP_LT_OQ);
      __mmask16 ok1 =
          _mm512_mask_cmp_ps_mask((__mmask16)(low_lanes32(m) >> 16), s1, c65535, _CMP_LT_OQ);
      __m512i a = _mm512_inserti64x4(
          _mm512_castsi256_si512(_mm512_cvtepi32_epi16(_mm512_maskz_cvtps_epi32(ok0, s0))),
          _mm512_cvtepi32_epi16(_mm512_maskz_cvtps_epi32(ok1, s1)), 1);
      // round(gain * 8192) as 16 bits, for results on the linear segment.
      __m512 k0 = _mm512_mul_ps(_mm512_maskz_loadu_ps(ok0, gain), c8192f);
      __m512 k1 = _mm512_mul_ps(_mm512_maskz_loadu_ps(ok1, gain + 16), c8192f);
      __m512i ks = _mm512_inserti64x4(
          _mm512_castsi256_si512(_mm512_cvtepi32_epi16(_mm512_cvtps_epi32(k0))),
          _mm512_cvtepi32_epi16(_mm512_cvtps_epi32(k1)), 1);
      // Lanes past the row and roots of 2 or more (gains above 5.2) are not done in integers.
      __mmask32 exact = ~((__mmask32)ok0 | (__mmask32)ok1 << 16) & low_lanes32(m);
#define RT_GAINED(c, t)                                                                           \
  do {                                                                                            \
    __m512i p = _mm512_add_epi16(                                                                 \
        _mm512_add_epi16(_mm512_slli_epi16(c, 7), _mm512_srli_epi16(c, 1)), c1802);               \
    p = _mm512_mask_permutexvar_epi16(p, _mm512_cmplt_epu16_mask(c, c11), c, darkCode);           \
    __m512i x = _mm512_sub_epi16(_mm512_srli_epi16(_mm512_mulhi_epu16(a, p), 1), c450);           \
    __mmask32 linear = _mm512_cmplt_epi16_mask(x, c332);                                          \
    __m512i xl = _mm512_mulhi_epu16(ks, _mm512_permutex2var_epi16(darkLinear0, c, darkLinear1));  \
    t = _mm512_mask_mov_epi16(_mm512_min_epi16(x, c8192), linear, xl);                            \
    __mmask32 tables = (exact | (linear & _mm512_cmpge_epu16_mask(c, c64))) & low_lanes32(m);     \
    if (tables) t = gained_by_tables(c, t, tables, gain, fallback);                               \
  } while (0)
      RT_GAINED(r, tr);
      RT_GAINED(g, tg);
      RT_GAINED(b, tb);
#undef RT_GAINED
    } else {
#define RT_AXIS(x)                                                                                \
  _mm512_add_epi16(_mm512_slli_epi16(x, 5),                                                       \
      _mm512_mulhi_epu16(_mm512_add_epi16(_mm512_slli_epi16(x, 5), c128), c257))
      tr = RT_AXIS(r);
      tg = RT_AXIS(g);
      tb = RT_AXIS(b);
#undef RT_AXIS
    }
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
    s = _mm512_add_epi64(s, _mm512_mullo_epi64(RT_CORNER(iA, e), RT_WEIGHT(vA, e)));              \
    s = _mm512_add_epi64(s, _mm512_mullo_epi64(RT_CORNER(iB, e), RT_WEIGHT(vB, e)));              \
    s = _mm512_add_epi64(s, _mm512_mullo_epi64(RT_CORNER(i1, e), RT_WEIGHT(v1, e)));              \
    if (vignette) {                                                                               \
      size_t first = 16 * (h) + 8 * (e);                                                          \
      size_t alive = m > first ? (m - first < 8 ? m - first : 8) : 0;                             \
      __mmask8 live = (__mmask8)((1u << alive) - 1);                                              \
      __mmask32 used = 0x77777777u & (alive >= 8 ? ~0u : (1u << (4 * alive)) - 1);                \
      /* Bits 5-20 of each field (the encoded value x 32640) in 16-bit lane 4j + c. */            \
      __m512i fw = _mm512_multishift_epi64_epi8(fields16, s);                                     \
      __m256 rootf = _mm256_mul_ps(_mm256_maskz_loadu_ps(live, vignetteRoot + first), c32768h);   \
      __m512i root = _mm512_permutexvar_epi16(                                                    \
          spread, _mm512_castsi256_si512(_mm256_cvtps_epi32(rootf)));                             \
      __m512i hi = _mm512_mulhi_epu16(root, _mm512_add_epi16(fw, c1795));                         \
      __m512i o = _mm512_min_epu16(_mm512_srli_epi16(_mm512_subs_epu16(hi, c866), 6), c255w);     \
      __mmask32 low = _mm512_mask_cmplt_epu16_mask(used, fw, c1321);                              \
      __mmask32 band = _mm512_mask_cmplt_epu16_mask(used & ~low, o, c11);                        \
      __mmask32 dark = 0;                                                                         \
      if (low) {                                                                                  \
        __m512i scaled = _mm512_permutexvar_epi16(                                                \
            spread, _mm512_castsi256_si512(_mm256_cvtps_epi32(                                    \
                        _mm256_mul_ps(_mm256_maskz_loadu_ps(live, vignette + first), c8192h))));  \
        __m512i ol = _mm512_srli_epi16(_mm512_add_epi16(_mm512_mulhi_epu16(scaled, fw), c8w), 4); \
        o = _mm512_mask_mov_epi16(o, low, ol);                                                    \
        dark = _mm512_mask_cmpgt_epu16_mask(low, o, c10w);                                        \
      }                                                                                           \
      if (band) o = vignetted_band(hi, o, band, &dark);                                           \
      if (dark)                                                                                   \
        o = vignetted_by_tables(fw, o, dark,                                                      \
            _mm512_castps256_ps512(_mm256_maskz_loadu_ps(live, vignette + first)), fallback);     \
      out[2 * h + e] = o;                                                                         \
    } else {                                                                                      \
      out[2 * h + e] = _mm512_multishift_epi64_epi8(fields, _mm512_add_epi64(s, rounding));       \
    }                                                                                             \
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
    // With the vignette the codes are the low bytes of 16-bit lanes.
    const __m512i packing = vignette ? packWords : pack;
    _mm512_mask_storeu_epi8(
        dst, low_bytes(first), _mm512_permutex2var_epi8(out[0], packing, out[1]));
    if (m > 16)
      _mm512_mask_storeu_epi8(
          dst + 48, low_bytes(3 * (m - 16)), _mm512_permutex2var_epi8(out[2], packing, out[3]));
    src += bytes;
    dst += bytes;
    count -= m;
    if (gain) {
      gain += m;
      gainRoot += m;
    }
    if (vignette) {
      vignette += m;
      vignetteRoot += m;
    }
  }
}

RT_AVX512 void rt_lut33_apply_rgb8(
    const uint64_t *table, const uint8_t *src, uint8_t *dst, size_t count) {
  apply(table, src, dst, count, NULL, NULL, NULL, NULL, NULL);
}

RT_AVX512 void rt_lut33_apply_rgb8_factors(
    const uint64_t *table, const uint8_t *src, uint8_t *dst, size_t count, const float *gain,
    const float *gainRoot, const float *vignette, const float *vignetteRoot,
    const rt_lut_fallback *fallback) {
  // One specialised copy per case, so none tests for the factors per step.
  if (gain && vignette)
    apply(table, src, dst, count, gain, gainRoot, vignette, vignetteRoot, fallback);
  else if (gain)
    apply(table, src, dst, count, gain, gainRoot, NULL, NULL, fallback);
  else if (vignette)
    apply(table, src, dst, count, NULL, NULL, vignette, vignetteRoot, fallback);
  else
    apply(table, src, dst, count, NULL, NULL, NULL, NULL, NULL);
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

void rt_lut33_apply_rgb8_factors(
    const uint64_t *table, const uint8_t *src, uint8_t *dst, size_t count, const float *gain,
    const float *gainRoot, const float *vignette, const float *vignetteRoot,
    const rt_lut_fallback *fallback) {
  (void)table;
  (void)src;
  (void)dst;
  (void)count;
  (void)gain;
  (void)gainRoot;
  (void)vignette;
  (void)vignetteRoot;
  (void)fallback;
  abort();
}

#endif
