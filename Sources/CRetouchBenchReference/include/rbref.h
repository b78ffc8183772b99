// SPDX-License-Identifier: Apache-2.0

// A C reference of the fused per-pixel colour pass, for `retouch-bench render` only: the floor
// that Retouch's Swift renderer is compared with. Not part of any library or of the CLI.

#ifndef RBREF_H
#define RBREF_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The edit the reference applies (each value neutral at 0, except the white-balance gains at 1).
typedef struct rbref_edit {
  /// Exposure in stops: linear light is multiplied by 2^stops.
  float exposure_stops;
  /// Per-channel white-balance gains on linear R, G, B.
  float white_balance[3];
  /// S-curve strength in -1...1 on sRGB-encoded values (folded into the tone table).
  float contrast;
  /// Chroma factor around Rec. 709 luma of linear light (1 = unchanged).
  float saturation;
  /// Vignette strength: linear light is multiplied by 1 - vignette * rho^2, rho = 1 at corners.
  float vignette;
} rbref_edit;

typedef struct rbref_plan rbref_plan;

/// Builds the tables for `edit` on a `width` x `height` image (two 4097-entry tables, the
/// 256-entry decode table and the vignette's row and column terms). Returns NULL when memory
/// runs out or the size is not positive.
rbref_plan *rbref_plan_create(const rbref_edit *edit, int width, int height);

void rbref_plan_destroy(rbref_plan *plan);

/// Runs the colour pass from `src` to `dst` (8-bit interleaved RGB, width * 3 bytes per row, no
/// padding; may be the same buffer) on `threads` threads (1 or more; the caller's thread is one
/// of them). Per pixel: 8-bit -> linear via table, gains, tone table with linear interpolation,
/// saturation around luma, vignette multiplier, encode via table, round to 8 bits.
/// Returns the number of threads that actually ran (thread creation can fail; the work is then
/// done on fewer threads).
int rbref_color_pass(const rbref_plan *plan, const uint8_t *src, uint8_t *dst, int threads);

/// Local tone for the reference's "typical" pass: a linear-light gain per pixel, read from a
/// small grid of base values (stops) covering the image, through a gain table over `lo...hi`
/// stops (the same shape of work as Retouch's shadows/highlights).
typedef struct rbref_local_tone {
  const float *base;
  int base_width, base_height;
  const float *gain_table;
  int gain_count;
  float lo, hi;
} rbref_local_tone;

/// Adds local tone to a plan (copies the grid and the table). Returns 0 on success.
int rbref_plan_set_local_tone(rbref_plan *plan, const rbref_local_tone *local);

/// A 3×3 luma sharpen from `src` to `dst` (distinct 8-bit RGB buffers of the plan's size): the
/// luma's difference from its 3×3 mean, times `amount`, added to R, G and B. Returns the threads
/// that ran.
int rbref_sharpen_pass(const rbref_plan *plan, const uint8_t *src, uint8_t *dst, float amount, int threads);


/// The sums of the analysis's fused statistics pass over some rows (`retouch-bench ai`'s C
/// reference of RetouchAI's `PixelStatistics` pass; the same fields, summed in the same order).
typedef struct rbref_stats_sums {
  int64_t shadow_clipped, highlight_clipped, clipped_colour, trusted_count;
  double shades_of_gray[3];
  double gray_edge[3];
  int64_t edge_count;
  double chroma_sum;
  int64_t chroma_count;
  double hue[8];
  double luma_sum;
} rbref_stats_sums;

/// The tables and constants of the statistics pass (the Swift pass's own, passed in).
typedef struct rbref_stats_tables {
  /// 8-bit code to linear light (256 entries).
  const float *decode;
  /// CIE f(t) at 4096 points over t in 0...1.
  const float *lab_f;
  /// The colour-mixer bands' centre hues, ascending, the first repeated at 360 (9 entries).
  const float *band_centers;
  /// Linear RGB to XYZ, row-major (9 entries).
  const float *to_xyz;
  /// Luminance weights of linear R, G and B.
  float weights[3];
  /// Bins of the luminance histogram and of the unclipped pixels' highlight counts.
  int histogram_bins, highlight_bins;
} rbref_stats_tables;

/// The statistics pass over rows `row_begin..<row_end` of an 8-bit RGB image (`width` * 3 bytes
/// per row): fills `luminance` and `luma` (width * height floats, the rows' entries), adds to
/// `histogram` (histogram_bins counts) and `counts` (512 + highlight_bins counts: darkest
/// channel, brightest channel, unclipped pixels' luminance) and returns the sums.
rbref_stats_sums rbref_stats_rows(
    const rbref_stats_tables *tables, const uint8_t *src, int width, int height, int row_begin,
    int row_end, uint32_t *histogram, uint32_t *counts, float *luminance, float *luma);

#ifdef __cplusplus
}
#endif

#endif
