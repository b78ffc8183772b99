// SPDX-License-Identifier: Apache-2.0

#include "rbref.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>

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
  free(plan);
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
