// SPDX-License-Identifier: Apache-2.0

#include "rbref.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum { TABLE_LAST = 4095 };

struct rbref_plan {
  int width, height;
  float gain[3];
  float luma[3];
  float saturation;
  float vignette;
  float tone_max;        // largest linear value after the gains: the tone table's domain
  float inv_tone_max;
  float decode[256];     // code value -> linear light
  float tone[TABLE_LAST + 2];    // knot i: linear (i / 4095)^2 * tone_max -> linear after the curve
  float encode[TABLE_LAST + 2];  // knot i: linear (i / 4095)^2 -> sRGB-encoded * 255
  float *column_term;    // u^2 / 2 per column
  float *row_term;       // v^2 / 2 per row
  // Local tone (optional): base grid, its column taps, and the gain table.
  float *base;
  int base_width, base_height;
  float *gain_table;
  int gain_count;
  float gain_lo, gain_scale;
  int32_t *base_column;
  float *base_column_weight;
};

static double srgb_decode(double e) {
  return e <= 0.04045 ? e / 12.92 : pow((e + 0.055) / 1.055, 2.4);
}

static double srgb_encode(double l) {
  if (l <= 0) return 0;
  if (l >= 1) return 1;
  return l <= 0.0031308 ? l * 12.92 : 1.055 * pow(l, 1 / 2.4) - 0.055;
}

// Blend towards a cubic S (3e^2 - 2e^3) that keeps 0, 1/2 and 1 fixed.
static double s_curve(double e, double strength) {
  double s = e * e * (3 - 2 * e);
  return e + strength * (s - e);
}

static float half_square(int i, int n) {
  float d = (float)(2 * i + 1 - n) / (float)n;
  return d * d * 0.5f;
}

rbref_plan *rbref_plan_create(const rbref_edit *edit, int width, int height) {
  if (!edit || width <= 0 || height <= 0) return NULL;
  rbref_plan *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->column_term = malloc(sizeof(float) * (size_t)width);
  p->row_term = malloc(sizeof(float) * (size_t)height);
  if (!p->column_term || !p->row_term) {
    rbref_plan_destroy(p);
    return NULL;
  }
  p->width = width;
  p->height = height;
  double exposure = exp2(edit->exposure_stops);
  double largest = 1;
  for (int c = 0; c < 3; c++) {
    p->gain[c] = (float)(exposure * edit->white_balance[c]);
    if (p->gain[c] > largest) largest = p->gain[c];
  }
  p->tone_max = (float)largest;
  p->inv_tone_max = (float)(1 / largest);
  p->luma[0] = 0.2126f;
  p->luma[1] = 0.7152f;
  p->luma[2] = 0.0722f;
  p->saturation = edit->saturation;
  p->vignette = edit->vignette;
  for (int i = 0; i < 256; i++) p->decode[i] = (float)srgb_decode(i / 255.0);
  for (int i = 0; i <= TABLE_LAST + 1; i++) {
    int k = i > TABLE_LAST ? TABLE_LAST : i;
    double t = (double)k / TABLE_LAST;
    double l = t * t;
    p->tone[i] = (float)srgb_decode(s_curve(srgb_encode(l * largest), edit->contrast));
    p->encode[i] = (float)(srgb_encode(l) * 255);
  }
  for (int x = 0; x < width; x++) p->column_term[x] = half_square(x, width);
  for (int y = 0; y < height; y++) p->row_term[y] = half_square(y, height);
  return p;
}

void rbref_plan_destroy(rbref_plan *plan) {
  if (!plan) return;
  free(plan->column_term);
  free(plan->row_term);
  free(plan->base);
  free(plan->gain_table);
  free(plan->base_column);
  free(plan->base_column_weight);
  free(plan);
}

// Left tap and weight of the right tap for grid coordinate g in a grid of `count` knots.
static void tap(double g, int count, int *index, float *weight) {
  if (count < 2) { *index = 0; *weight = 0; return; }
  if (g < 0) g = 0;
  if (g > count - 1) g = count - 1;
  int i = (int)g;
  if (i > count - 2) i = count - 2;
  *index = i;
  *weight = (float)(g - i);
}

int rbref_plan_set_local_tone(rbref_plan *p, const rbref_local_tone *lt) {
  if (!p || !lt || !lt->base || !lt->gain_table || lt->base_width < 1 || lt->base_height < 1 ||
      lt->gain_count < 2 || !(lt->hi > lt->lo))
    return -1;
  size_t nb = (size_t)lt->base_width * (size_t)lt->base_height;
  p->base = malloc(sizeof(float) * nb);
  p->gain_table = malloc(sizeof(float) * (size_t)(lt->gain_count + 1));
  p->base_column = malloc(sizeof(int32_t) * (size_t)p->width);
  p->base_column_weight = malloc(sizeof(float) * (size_t)p->width);
  if (!p->base || !p->gain_table || !p->base_column || !p->base_column_weight) return -1;
  memcpy(p->base, lt->base, sizeof(float) * nb);
  memcpy(p->gain_table, lt->gain_table, sizeof(float) * (size_t)lt->gain_count);
  p->gain_table[lt->gain_count] = lt->gain_table[lt->gain_count - 1];
  p->base_width = lt->base_width;
  p->base_height = lt->base_height;
  p->gain_count = lt->gain_count;
  p->gain_lo = lt->lo;
  p->gain_scale = (float)(lt->gain_count - 1) / (lt->hi - lt->lo);
  for (int x = 0; x < p->width; x++) {
    int i;
    float w;
    tap((x + 0.5) * lt->base_width / p->width - 0.5, lt->base_width, &i, &w);
    p->base_column[x] = i;
    p->base_column_weight[x] = w;
  }
  return 0;
}

static inline float clamp01(float v) { return v < 0 ? 0 : (v > 1 ? 1 : v); }

// Table knots are spaced uniformly in sqrt(value), which gives the shadows fine steps.
static inline float lookup(const float *table, float unit) {
  float u = sqrtf(clamp01(unit)) * TABLE_LAST;
  int i = (int)u;
  float f = u - (float)i;
  return table[i] + f * (table[i + 1] - table[i]);
}

enum { BLOCK = 512 };

// Each row goes through in blocks of BLOCK pixels: unpack to planar float (decode table and
// gains), the per-pixel maths on planar floats, then pack back to interleaved 8-bit. Planar
// blocks let the compiler vectorise every loop (table reads become gathers).
static void color_rows(const rbref_plan *p, const uint8_t *src, uint8_t *dst, int y0, int y1) {
  const int w = p->width;
  const float g0 = p->gain[0], g1 = p->gain[1], g2 = p->gain[2];
  const float lr = p->luma[0], lg = p->luma[1], lb = p->luma[2];
  const float sat = p->saturation, vig = p->vignette, inv_max = p->inv_tone_max;
  const float *restrict dec = p->decode, *restrict tone = p->tone, *restrict enc = p->encode;
  const float *restrict col = p->column_term;
  float r[BLOCK], g[BLOCK], b[BLOCK];
  int32_t q[3 * BLOCK];
  for (int y = y0; y < y1; y++) {
    const uint8_t *restrict s = src + (size_t)y * (size_t)w * 3;
    uint8_t *restrict d = dst + (size_t)y * (size_t)w * 3;
    const float row = p->row_term[y];
    for (int x0 = 0; x0 < w; x0 += BLOCK) {
      const int n = w - x0 < BLOCK ? w - x0 : BLOCK;
      const uint8_t *restrict sb = s + 3 * x0;
      for (int i = 0; i < n; i++) {
        r[i] = dec[sb[3 * i]] * g0;
        g[i] = dec[sb[3 * i + 1]] * g1;
        b[i] = dec[sb[3 * i + 2]] * g2;
      }
      if (p->base) {
        // Bilinear base from the grid, then the gain table, as a multiplier on linear light.
        int gy;
        float ty;
        tap((y + 0.5) * p->base_height / p->height - 0.5, p->base_height, &gy, &ty);
        const float *restrict b0 = p->base + (size_t)gy * (size_t)p->base_width;
        const float *restrict b1 = p->base_height > 1 ? b0 + p->base_width : b0;
        const int32_t *restrict bc = p->base_column + x0;
        const float *restrict bw = p->base_column_weight + x0;
        const float *restrict gt = p->gain_table;
        const float lo = p->gain_lo, gs = p->gain_scale, last = (float)(p->gain_count - 1) - 0.001f;
        for (int i = 0; i < n; i++) {
          int c = bc[i];
          float top = b0[c] + bw[i] * (b0[c + 1] - b0[c]);
          float bottom = b1[c] + bw[i] * (b1[c + 1] - b1[c]);
          float t = (top + ty * (bottom - top) - lo) * gs;
          t = t < 0 ? 0 : (t > last ? last : t);
          int k = (int)t;
          float gain = gt[k] + (t - (float)k) * (gt[k + 1] - gt[k]);
          r[i] *= gain;
          g[i] *= gain;
          b[i] *= gain;
        }
      }
      for (int i = 0; i < n; i++) {
        float rr = lookup(tone, r[i] * inv_max);
        float gg = lookup(tone, g[i] * inv_max);
        float bb = lookup(tone, b[i] * inv_max);
        float luma = lr * rr + lg * gg + lb * bb;
        float m = 1 - vig * (col[x0 + i] + row);
        q[3 * i] = (int32_t)(lookup(enc, (luma + sat * (rr - luma)) * m) + 0.5f);
        q[3 * i + 1] = (int32_t)(lookup(enc, (luma + sat * (gg - luma)) * m) + 0.5f);
        q[3 * i + 2] = (int32_t)(lookup(enc, (luma + sat * (bb - luma)) * m) + 0.5f);
      }
      uint8_t *restrict db = d + 3 * x0;
      for (int i = 0; i < 3 * n; i++) db[i] = (uint8_t)q[i];
    }
  }
}

typedef struct {
  const rbref_plan *plan;
  const uint8_t *src;
  uint8_t *dst;
  int y0, y1;
} band;

static void *run_band(void *arg) {
  band *b = arg;
  color_rows(b->plan, b->src, b->dst, b->y0, b->y1);
  return NULL;
}

enum { MAX_THREADS = 64 };

int rbref_color_pass(const rbref_plan *plan, const uint8_t *src, uint8_t *dst, int threads) {
  if (!plan || !src || !dst) return 0;
  int n = threads < 1 ? 1 : (threads > MAX_THREADS ? MAX_THREADS : threads);
  if (n > plan->height) n = plan->height;
  band bands[MAX_THREADS];
  pthread_t ids[MAX_THREADS];
  int started[MAX_THREADS] = {0};
  for (int i = 0; i < n; i++) {
    bands[i] = (band){plan, src, dst, plan->height * i / n, plan->height * (i + 1) / n};
  }
  int ran = 1;
  for (int i = 1; i < n; i++) {
    started[i] = pthread_create(&ids[i], NULL, run_band, &bands[i]) == 0;
    ran += started[i];
  }
  run_band(&bands[0]);
  for (int i = 1; i < n; i++) {
    if (started[i]) {
      pthread_join(ids[i], NULL);
    } else {
      run_band(&bands[i]);  // could not start a thread: do its rows here
    }
  }
  return ran;
}

typedef struct {
  const rbref_plan *plan;
  const uint8_t *src;
  uint8_t *dst;
  float amount;
  int y0, y1;
} sharpen_band;

static inline int luma8(const uint8_t *p) { return (54 * p[0] + 183 * p[1] + 19 * p[2]) >> 8; }

static void *run_sharpen(void *arg) {
  sharpen_band *b = arg;
  const int w = b->plan->width, h = b->plan->height;
  const int stride = w * 3;
  int *ybuf = malloc(sizeof(int) * (size_t)w * 3);
  if (!ybuf) return NULL;
  for (int y = b->y0; y < b->y1; y++) {
    const uint8_t *rows[3] = {
      b->src + (size_t)(y > 0 ? y - 1 : 0) * stride, b->src + (size_t)y * stride,
      b->src + (size_t)(y + 1 < h ? y + 1 : h - 1) * stride};
    for (int k = 0; k < 3; k++)
      for (int x = 0; x < w; x++) ybuf[k * w + x] = luma8(rows[k] + 3 * x);
    uint8_t *d = b->dst + (size_t)y * stride;
    const uint8_t *s = rows[1];
    for (int x = 0; x < w; x++) {
      int xl = x > 0 ? x - 1 : 0, xr = x + 1 < w ? x + 1 : w - 1;
      int sum = 0;
      for (int k = 0; k < 3; k++) sum += ybuf[k * w + xl] + ybuf[k * w + x] + ybuf[k * w + xr];
      float delta = b->amount * ((float)ybuf[w + x] - (float)sum * (1.0f / 9));
      for (int c = 0; c < 3; c++) {
        float v = (float)s[3 * x + c] + delta + 0.5f;
        d[3 * x + c] = (uint8_t)(v < 0 ? 0 : (v > 255 ? 255 : v));
      }
    }
  }
  free(ybuf);
  return NULL;
}

int rbref_sharpen_pass(const rbref_plan *plan, const uint8_t *src, uint8_t *dst, float amount, int threads) {
  if (!plan || !src || !dst || src == dst) return 0;
  int n = threads < 1 ? 1 : (threads > MAX_THREADS ? MAX_THREADS : threads);
  if (n > plan->height) n = plan->height;
  sharpen_band bands[MAX_THREADS];
  pthread_t ids[MAX_THREADS];
  int started[MAX_THREADS] = {0};
  for (int i = 0; i < n; i++)
    bands[i] = (sharpen_band){plan, src, dst, amount, plan->height * i / n, plan->height * (i + 1) / n};
  int ran = 1;
  for (int i = 1; i < n; i++) {
    started[i] = pthread_create(&ids[i], NULL, run_sharpen, &bands[i]) == 0;
    ran += started[i];
  }
  run_sharpen(&bands[0]);
  for (int i = 1; i < n; i++) {
    if (started[i]) pthread_join(ids[i], NULL);
    else run_sharpen(&bands[i]);
  }
  return ran;
}

// MARK: - The analysis's statistics pass

// Products and sums are evaluated as written, one rounding each (as Swift does): no fused
// multiply-adds, so the reference's sums can be compared bit for bit.
#pragma STDC FP_CONTRACT OFF

static inline int stats_rounded_index(float v, int max) {
  float clamped = v > 0 ? v : 0;
  clamped = clamped < (float)max ? clamped : (float)max;
  return (int)lrintf(clamped);
}

static inline float stats_hue(int r, int g, int b, int mx, int c) {
  float cf = (float)c, h;
  if (mx == r) {
    h = (float)(g - b) / cf;
    if (h < 0) h += 6;
  } else if (mx == g) {
    h = (float)(b - r) / cf + 2;
  } else {
    h = (float)(r - g) / cf + 4;
  }
  h *= 60;
  return h < 359.999f ? h : 359.999f;
}

static void stats_add_hue(rbref_stats_sums *s, int band, float w) { s->hue[band] += (double)w; }

rbref_stats_sums rbref_stats_rows(
    const rbref_stats_tables *t, const uint8_t *src, int width, int height, int row_begin,
    int row_end, uint32_t *histogram, uint32_t *counts, float *luminance, float *luma) {
  rbref_stats_sums s;
  memset(&s, 0, sizeof s);
  const float *dec = t->decode, *f_table = t->lab_f, *centers = t->band_centers;
  const float *m = t->to_xyz;
  const float wr = t->weights[0], wg = t->weights[1], wb = t->weights[2];
  const float bin_scale = (float)(t->histogram_bins - 1);
  const int max_bin = t->histogram_bins - 1;
  const float highlight_scale = (float)(t->highlight_bins - 1);
  const float xn = m[0] + m[1] + m[2], zn = m[6] + m[7] + m[8];
  // Swift's Float.pi, rounded toward zero.
  const float pi = 0x1.921fb4p+1f;
  for (int y = row_begin; y < row_end; y++) {
    const uint8_t *row = src + (size_t)y * width * 3;
    const uint8_t *next = y + 1 < height ? row + (size_t)width * 3 : NULL;
    const size_t row_start = (size_t)y * width;
    double row_sog[3] = {0, 0, 0}, row_edge[3] = {0, 0, 0}, row_luma = 0, row_chroma = 0;
    int64_t sampled = 0;
    for (int x = 0; x < width; x++) {
      const uint8_t *p = row + 3 * x;
      const uint8_t r8 = p[0], g8 = p[1], b8 = p[2];
      const float lr = dec[r8], lg = dec[g8], lb = dec[b8];
      const float y_lin = wr * lr + wg * lg + wb * lb;
      luminance[row_start + x] = y_lin;
      const float l601 = 0.299f * (float)r8 + 0.587f * (float)g8 + 0.114f * (float)b8;
      luma[row_start + x] = l601;
      row_luma += (double)l601;
      histogram[stats_rounded_index(y_lin * bin_scale, max_bin)] += 1;
      uint8_t hi8 = r8 > g8 ? r8 : g8, lo8 = r8 < g8 ? r8 : g8;
      hi8 = hi8 > b8 ? hi8 : b8;
      lo8 = lo8 < b8 ? lo8 : b8;
      counts[lo8] += 1;
      counts[256 + hi8] += 1;
      if (hi8 < 250) {
        float pos = (y_lin >= 0 ? (y_lin < 1 ? y_lin : 1) : 0) * highlight_scale;
        counts[512 + (int)pos] += 1;
      }
      if (hi8 >= 253) {
        s.highlight_clipped++;
        if (lo8 < 200) {
          uint8_t mid8 = r8 ^ g8 ^ b8 ^ hi8 ^ lo8;
          if (mid8 >= 253) s.clipped_colour++;
        }
      }
      if (hi8 <= 2) s.shadow_clipped++;
      float mx = lr > lg ? lr : lg, mn = lr < lg ? lr : lg;
      mx = mx > lb ? mx : lb;
      mn = mn < lb ? mn : lb;
      if (hi8 < 250 && y_lin > 0.008f && (mx - mn) <= 0.75f * mx) {
        s.trusted_count++;
        double v[3] = {lr, lg, lb};
        for (int c = 0; c < 3; c++) {
          double v2 = v[c] * v[c];
          row_sog[c] += v2 * v2 * v2;
        }
        if (x + 1 < width && next) {
          const uint8_t *q = p + 3, *d = next + 3 * x;
          uint8_t q_max = q[0] > q[1] ? q[0] : q[1], d_max = d[0] > d[1] ? d[0] : d[1];
          q_max = q_max > q[2] ? q_max : q[2];
          d_max = d_max > d[2] ? d_max : d[2];
          if (q_max < 250 && d_max < 250) {
            float dxr = dec[q[0]] - lr, dxg = dec[q[1]] - lg, dxb = dec[q[2]] - lb;
            float dyr = dec[d[0]] - lr, dyg = dec[d[1]] - lg, dyb = dec[d[2]] - lb;
            row_edge[0] += (double)(dxr * dxr + dyr * dyr);
            row_edge[1] += (double)(dxg * dxg + dyg * dyg);
            row_edge[2] += (double)(dxb * dxb + dyb * dyb);
            s.edge_count++;
          }
        }
      }
    }
    if ((y & 3) == 0) {
      for (int x = 0; x < width; x += 4) {
        const uint8_t *p = row + 3 * x;
        const uint8_t r8 = p[0], g8 = p[1], b8 = p[2];
        const float lr = dec[r8], lg = dec[g8], lb = dec[b8];
        const float X = m[0] * lr + m[1] * lg + m[2] * lb;
        const float Z = m[6] * lr + m[7] * lg + m[8] * lb;
        const float fx = f_table[stats_rounded_index(X / xn * 4095, 4095)];
        const float fy = f_table[stats_rounded_index(luminance[row_start + x] * 4095, 4095)];
        const float fz = f_table[stats_rounded_index(Z / zn * 4095, 4095)];
        const float a = 500 * (fx - fy), bb = 200 * (fy - fz);
        row_chroma += (double)sqrtf(a * a + bb * bb);
        sampled++;
        int e_max = r8 > g8 ? r8 : g8, e_min = r8 < g8 ? r8 : g8;
        e_max = e_max > b8 ? e_max : b8;
        e_min = e_min < b8 ? e_min : b8;
        if (e_max <= e_min) continue;
        const float c = (float)(e_max - e_min) / 255;
        float tt = c / 0.15f;
        tt = tt < 1 ? tt : 1;
        const float weight = tt * tt * (3 - 2 * tt);
        const float hue = stats_hue(r8, g8, b8, e_max, e_max - e_min);
        int band = 0;
        while (band < 7 && hue >= centers[band + 1]) band++;
        const float lower = centers[band], upper = centers[band + 1];
        const float u = (hue - lower) / (upper - lower);
        const float wi = 0.5f + 0.5f * cosf(pi * u);
        stats_add_hue(&s, band, weight * wi);
        stats_add_hue(&s, (band + 1) & 7, weight * (1 - wi));
      }
    }
    for (int c = 0; c < 3; c++) {
      s.shades_of_gray[c] += row_sog[c];
      s.gray_edge[c] += row_edge[c];
    }
    s.chroma_sum += row_chroma;
    s.chroma_count += sampled;
    s.luma_sum += row_luma;
  }
  return s;
}
