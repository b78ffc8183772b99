// SPDX-License-Identifier: Apache-2.0

#include "CRetouchFaces.h"

#include <dlib/image_processing/frontal_face_detector.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#if defined(__AVX512F__) || defined(__SSSE3__)
#include <immintrin.h>  // the orientation table's gather, the pyramid's byte shuffle
#endif

namespace {

using Detector = dlib::frontal_face_detector;
using Scanner = Detector::image_scanner_type;
// The frontal detector's own pyramid: each level (N − 1) / N of the one before.
constexpr unsigned kPyramidN = 6;
using Pyramid = dlib::pyramid_down<kPyramidN>;
using Grey = dlib::array2d<unsigned char>;

// dlib's frontal model: 10×10-cell filters over 8-px HOG cells (an 80×80-px window).
constexpr long kTaps = 10;

// One of the model's five pose filters, decomposed by dlib into separable (row, column) pairs
// per HOG plane, with its bias.
struct Filter {
  struct Pair {
    unsigned plane;
    float row[kTaps];
    float col[kTaps];
  };
  std::vector<Pair> pairs;
  double bias = 0;
};

// Everything scanning needs from dlib's model, read once and never changed afterwards (so all
// threads share it without locking).
struct Model {
  std::vector<Filter> filters;
  dlib::test_box_overlap overlaps;
  dlib::default_fhog_feature_extractor features;
  long cell = 8, windowRows = 10, windowCols = 10, boxRows = 10, boxCols = 10;
  unsigned long minLayer = 64;

  Model() {
    // Deserialising dlib's embedded model costs ~0.5 s of CPU (measured on the 2-core build
    // machine), hence once per process.
    Detector d = dlib::get_frontal_face_detector();
    const Scanner &scanner = d.get_scanner();
    overlaps = d.get_overlap_tester();
    features = scanner.get_feature_extractor();
    cell = (long)scanner.get_cell_size();
    windowCols = (long)scanner.get_fhog_window_width();
    windowRows = (long)scanner.get_fhog_window_height();
    boxCols = windowCols - 2 * (long)scanner.get_padding();
    boxRows = windowRows - 2 * (long)scanner.get_padding();
    minLayer = std::max(scanner.get_min_pyramid_layer_width(),
                        scanner.get_min_pyramid_layer_height());
    if (windowCols != kTaps || windowRows != kTaps) throw std::runtime_error("unexpected model");
    for (unsigned long i = 0; i < d.num_detectors(); i++) {
      const auto &w = d.get_w(i);
      Scanner::fhog_filterbank bank = scanner.build_fhog_filterbank(w);
      Filter f;
      f.bias = w(scanner.get_num_dimensions());
      for (unsigned p = 0; p < bank.row_filters.size(); p++) {
        for (unsigned long j = 0; j < bank.row_filters[p].size(); j++) {
          Filter::Pair pair;
          pair.plane = p;
          for (long t = 0; t < kTaps; t++) {
            pair.row[t] = bank.row_filters[p][j](t);
            pair.col[t] = bank.col_filters[p][j](t);
          }
          f.pairs.push_back(pair);
        }
      }
      filters.push_back(std::move(f));
    }
  }
};

// Like the model it is never destroyed: a detached prewarm thread may still be building it while
// the process exits. A function-local static is built once, thread-safely, and retried on the
// next call if it threw.
const Model &model() {
  static const Model *m = new Model();
  return *m;
}

// Lets clang keep 16-float vectors whole (one zmm register) where the CPU has AVX-512; by default
// -march=native splits them into 256-bit halves, which for the 36 histogram vectors below means
// spilling to the stack.
#if defined(__clang__)
#define RT_WIDE __attribute__((min_vector_width(512)))
#else
#define RT_WIDE
#endif

// Felzenszwalb's 31-plane HOG features of an 8-bit grey image, as dlib's extract_fhog_features
// computes them for the frontal detector (8-px cells, 10×10 filter padding): the same floats,
// bit for bit, written straight into the zero-padded planes the filters read (no dlib planes, no
// copy). The arithmetic is dlib's, operation for operation (no fused multiply-adds where its
// compiled code has none, fused ones where the compiler contracts its `h += a * b`, the same
// association), because the detector's scores must not change: the pixels dlib handles in its
// 8-lane loop and the few right-hand pixels it handles one by one are each computed as it
// computes them, and every histogram bin receives its votes in the same (raster) order. Checked
// against dlib on every pyramid level of five crops of each of the 78 JPEGs of the shared photo
// set (4,253 images, 49.5 million feature values): no value differs.
//
// Why: dlib's extraction was half of the detector's CPU time (3.85 ms of ~7.7 for all ten
// pyramid levels of a 448×336 search copy, one thread, best of 100, 2-vCPU Xeon shared with
// another job); most of it went to a store per vote (four per pixel) into histogram bins that
// neighbouring pixels hit again at once, each add waiting on the one before through memory.
// Here: 3.05 ms (same conditions), of which the 16-wide orientation tests are about a third.
// Where the CPU has AVX-512 the orientation is then read from a table of every integer gradient
// (one gather per sixteen pixels): the detector's grey copy and scan took 0.93 of their CPU time
// (portrait, one thread, 200 alternating rounds in one process), with the same detections and
// scores on grey copies of 86 shared photos at three search sizes. Without AVX-512 a table of
// bytes takes the gather's place (sixteen loads), and the votes into the histograms are scalar
// adds instead of vector selects (see the vote loop).
namespace hog {

constexpr int kCell = 8;
constexpr int kBins = 18;
constexpr int kPlanes = 31;
// Filter padding of the frontal model (10×10 windows): (10 − 1) / 2 cells before, 10 / 2 after.
constexpr int kPadBefore = (kTaps - 1) / 2;

typedef float V16 __attribute__((vector_size(64)));
typedef int32_t I16 __attribute__((vector_size(64)));
typedef uint8_t B16 __attribute__((vector_size(16), aligned(1)));

// dlib's unit vectors of the nine unsigned orientations (20° apart), as floats.
constexpr float kDirX[9] = {1.0f, 0.9397f, 0.7660f, 0.500f, 0.1736f,
                            -0.1736f, -0.5000f, -0.7660f, -0.9397f};
constexpr float kDirY[9] = {0.0f, 0.3420f, 0.6428f, 0.8660f, 0.9848f,
                            0.9848f, 0.8660f, 0.6428f, 0.3420f};

// Sizes of the feature planes for an image, or rows = 0 when it is too small for any.
struct Size {
  int cellsR = 0, cellsC = 0, rows = 0, cols = 0;
  Size(long nr, long nc) {
    cellsR = (int)((float)nr / (float)kCell + 0.5);
    cellsC = (int)((float)nc / (float)kCell + 0.5);
    const int hogR = std::max(cellsR - 2, 0), hogC = std::max(cellsC - 2, 0);
    if (cellsR == 0 || cellsC == 0 || hogR == 0 || hogC == 0) return;
    rows = hogR + kTaps - 1;
    cols = hogC + kTaps - 1;
  }
};

#pragma clang fp contract(off)

// The orientation (0..17) dlib snaps a gradient to: the first of dot₀, −dot₀, dot₁, −dot₁, …
// that is strictly larger than every earlier one and than 0, dot = gx·dx + gy·dy unfused.
// (dlib's one-by-one code may fuse that dot; for integer gradients in −255...255 both give the
// same orientation, checked over all 511² of them.)
inline int orientation(float gx, float gy) {
  float best = 0;
  int o = 0;
  for (int k = 0; k < 9; k++) {
    const float a = gx * kDirX[k];
    const float b = gy * kDirY[k];
    const float dot = a + b;
    if (dot > best) {
      best = dot;
      o = k;
    }
    if (-dot > best) {
      best = -dot;
      o = k + 9;
    }
  }
  return o;
}

#if defined(__AVX512F__)
// `orientation` of every integer gradient (gx, gy) in −255...255 (the only ones 8-bit pixels
// give), at (gy + 255) · 511 + gx + 255: 1 MB, built once (~261 k evaluations). One gather from
// it replaces the nine-step orientation test on sixteen pixels, which was about a third of the
// feature extraction.
const int32_t *orientation_table() {
  static const int32_t *table = [] {
    int32_t *t = new int32_t[511 * 511];
    for (int gy = -255; gy <= 255; gy++)
      for (int gx = -255; gx <= 255; gx++)
        t[(gy + 255) * 511 + gx + 255] = orientation((float)gx, (float)gy);
    return t;
  }();
  return table;
}
#else
// The same orientations as bytes (255 KB; the gradients of photos are mostly small, so the rows
// they read stay in the first-level cache), for CPUs without a gather worth using: sixteen loads
// from it replace the nine-step test of sixteen pixels, which in 256-bit halves took a third of
// the detector's CPU time on the 2-core AMD EPYC (AVX2). `retouch-bench ai` there, alternating
// runs: `topSuggestion` on the 512-px copy 16.8–17.2 → 15.4–15.5 ms (CPU 31.4–32.1 → 28.6–28.9
// ms); `retouch info --analysis` gives the same output, face scores included, on all 78 JPEGs of
// the shared photo set.
const uint8_t *orientation_table() {
  static const uint8_t *table = [] {
    uint8_t *t = new uint8_t[511 * 511];
    for (int gy = -255; gy <= 255; gy++)
      for (int gx = -255; gx <= 255; gx++)
        t[(gy + 255) * 511 + gx + 255] = (uint8_t)orientation((float)gx, (float)gy);
    return t;
  }();
  return table;
}
#endif

// Features of `img` (nr × nc, `step` bytes per row) into `out`: kPlanes planes of size.rows rows
// with row stride `stride` (>= size.cols), already zeroed (the border stays zero).
//
// The orientation histograms are built without a store per vote. Each pixel votes into the two
// cells around it horizontally (and two rows of cells): cell j receives, in raster order, the
// pixels x = 8j − 12 … 8j − 5 (as its right neighbour) and then x = 8j − 4 … 8j + 3 (as its
// left one). Sixteen cells are kept in registers, one vector per orientation, and the 16 steps
// of those pixel runs add each lane's vote to the vector of that lane's orientation (the other
// vectors keep their value). To load "pixel 8j + q" for 16 consecutive cells at once, every row
// is first transposed into eight phase rows (q = 0…7), and the gradients, orientations and vote
// weights are computed in that layout.
RT_WIDE void extract(const uint8_t *img, long nr, long nc, long step, const Size &size,
                     float *out, long stride) {
  const int cellsR = size.cellsR, cellsC = size.cellsC;
  // Histogram cells per row including dlib's one-cell margin, in whole vectors; one plane per
  // orientation, (cellsR + 2) rows each.
  const long hc = cellsC + 2;
  const long chunks = (hc + 15) / 16, hw = chunks * 16;
  const long histPlane = (long)(cellsR + 2) * hw;
  std::vector<float> histStore((size_t)(kBins * histPlane), 0.0f);
  float *hist = histStore.data();
  const int visR = (int)std::min((long)cellsR * kCell, nr) - 1;
  const int visC = (int)std::min((long)cellsC * kCell, nc) - 1;
  // dlib's 8-lane loop covers x = 1, 9, 17, … while x < visC − 7; the rest goes one by one.
  int vecEnd = 1;
  while (vecEnd < visC - 7) vecEnd += 8;

  // Phase rows: pixel x = 8C + q of an image row at [q][C + 3], C from −3 to hw + 20 (zero
  // outside the image; the last vector loads read that far). Three image rows (above, this,
  // below) rotate through `phase`.
  const long pw = hw + 24;
  std::vector<uint8_t> phase((size_t)(3 * 8 * pw), 0);
  // 64 pixels (8 cells) at a time through one byte permutation; the row's ends one by one.
  typedef uint8_t B64 __attribute__((vector_size(64), aligned(1)));
  typedef uint8_t B8 __attribute__((vector_size(8), aligned(1)));
  auto transpose = [&](int y, uint8_t *dst) {
    const uint8_t *src = img + (long)y * step;
    long C = -3;
    for (; C < 0; C++)
      for (int q = 0; q < 8; q++) dst[q * pw + C + 3] = 0;
    for (; 8 * C + 64 <= nc && C + 8 <= pw - 3; C += 8) {
      const B64 in = *(const B64 *)(src + 8 * C);
      const B64 t = __builtin_shufflevector(
          in, in, 0, 8, 16, 24, 32, 40, 48, 56, 1, 9, 17, 25, 33, 41, 49, 57, 2, 10, 18, 26, 34,
          42, 50, 58, 3, 11, 19, 27, 35, 43, 51, 59, 4, 12, 20, 28, 36, 44, 52, 60, 5, 13, 21, 29,
          37, 45, 53, 61, 6, 14, 22, 30, 38, 46, 54, 62, 7, 15, 23, 31, 39, 47, 55, 63);
      for (int q = 0; q < 8; q++) {
        B8 part;
        __builtin_memcpy(&part, (const uint8_t *)&t + 8 * q, 8);
        *(B8 *)(dst + q * pw + C + 3) = part;
      }
    }
    for (; 8 * C < nc; C++) {
      for (int q = 0; q < 8; q++) {
        const long x = 8 * C + q;
        dst[q * pw + C + 3] = x < nc ? src[x] : 0;
      }
    }
    for (int q = 0; q < 8; q++) std::fill(dst + q * pw + C + 3, dst + (q + 1) * pw, 0);
  };
  // Per phase and cell C (at index C + 2, C from −2 to hw − 1): the orientation and the four
  // vote weights (top/bottom row of cells × the pixel's left/right cell).
  const long vw = hw + 16;
  std::vector<int32_t> orient((size_t)(8 * vw));
  std::vector<float> weights((size_t)(4 * 8 * vw));
#if defined(__AVX512F__)
  float *wLT = weights.data(), *wLB = wLT + 8 * vw, *wRT = wLB + 8 * vw, *wRB = wRT + 8 * vw;
#else
  // The top and bottom weights side by side (pixel i at 2i, 2i + 1), as the votes add them.
  float *wL = weights.data(), *wR = wL + 2 * 8 * vw;
  // The two histogram rows the current band of image rows votes into (iy + 1, iy + 2), kept
  // side by side per cell and orientation, so that one two-float add carries a pixel's top and
  // bottom votes: cell j of orientation o at o · pairPlane + 2j (top), + 1 (bottom). When the
  // band moves down a row of cells, the top row is complete and is written to `hist`, and the
  // bottom one carries on as the new top: every bin still receives its votes in raster order.
  const long pairPlane = 2 * hw;
  std::vector<float> pairStore((size_t)(kBins * pairPlane), 0.0f);
  float *pairs = pairStore.data();
  int band = 0;
  bool banded = false;
  auto finishTop = [&] {
    for (int o = 0; o < kBins; o++) {
      float *p = pairs + o * pairPlane, *h = hist + o * histPlane + (long)(band + 1) * hw;
      for (long j = 0; j < hc; j++) {
        h[j] = p[2 * j];
        p[2 * j] = p[2 * j + 1];
        p[2 * j + 1] = 0;
      }
    }
  };
#endif

  I16 lane;
  for (int i = 0; i < 16; i++) lane[i] = i;
  const auto *orientationTable = orientation_table();
#if defined(__AVX512F__)
  const long cellsRead = hw;  // the votes read whole vectors of cells
#else
  const long cellsRead = hc;  // the scalar votes stop at the last cell that is read
#endif
  // The horizontal vote weights of each pixel (the same in every row), zero where dlib's 8-lane
  // loop does not count the pixel (outside 1..<vecEnd): vx1 for its left cell, vx0 its right.
  std::vector<float> horizontal((size_t)(2 * 8 * vw));
  float *vxLeft = horizontal.data(), *vxRight = vxLeft + 8 * vw;
  for (int q = 0; q < 8; q++) {
    for (long C = -2; C < cellsRead; C += 16) {
      const I16 x = (lane + (int)C) * 8 + q;
      // Cell coordinates as dlib's vector code computes them: (x + 0.5) / 8 + 0.5.
      const V16 xp = (__builtin_convertvector(x, V16) + 0.5f) / (float)kCell + 0.5f;
      const V16 vx0 = xp - __builtin_convertvector(__builtin_convertvector(xp, I16), V16);
      const V16 vx1 = 1.0f - vx0;
      const I16 valid = (x >= 1) & (x < vecEnd);
      const V16 zero = V16{};
      const V16 left = valid ? vx1 : zero, right = valid ? vx0 : zero;
      __builtin_memcpy(vxLeft + q * vw + C + 2, &left, sizeof left);
      __builtin_memcpy(vxRight + q * vw + C + 2, &right, sizeof right);
    }
  }
  uint8_t *rows3[3] = {phase.data(), phase.data() + 8 * pw, phase.data() + 16 * pw};
  if (visR > 1) {
    transpose(0, rows3[0]);
    transpose(1, rows3[1]);
  }
  for (int y = 1; y < visR; y++) {
    transpose(y + 1, rows3[2]);
    const uint8_t *up = rows3[0], *mid = rows3[1], *down = rows3[2];
    const float yp = ((float)y + 0.5) / (float)kCell - 0.5;
    const int iy = (int)std::floor(yp);
    const float vy0 = yp - iy;
    const float vy1 = 1.0 - vy0;
#if !defined(__AVX512F__)
    if (!banded) {
      band = iy;
      banded = true;
    } else if (iy != band) {  // one row of cells further down (iy grows by at most one)
      finishTop();
      band = iy;
    }
#endif

    // Gradients, orientations and weights of pixels x = 8C + q, 16 cells at a time.
    for (int q = 0; q < 8; q++) {
      const uint8_t *left = q > 0 ? mid + (q - 1) * pw + 3 : mid + 7 * pw + 2;
      const uint8_t *right = q < 7 ? mid + (q + 1) * pw + 3 : mid + 4;
      const uint8_t *above = up + q * pw + 3, *below = down + q * pw + 3;
      for (long C = -2; C < cellsRead; C += 16) {
        const V16 l = __builtin_convertvector(*(const B16 *)(left + C), V16);
        const V16 r = __builtin_convertvector(*(const B16 *)(right + C), V16);
        const V16 t = __builtin_convertvector(*(const B16 *)(above + C), V16);
        const V16 b = __builtin_convertvector(*(const B16 *)(below + C), V16);
        const V16 gx = r - l, gy = b - t;
        const V16 gx2 = gx * gx, gy2 = gy * gy;
        const V16 v = __builtin_elementwise_sqrt(gx2 + gy2);
#if defined(__AVX512F__)
        const I16 entry =
            (__builtin_convertvector(gy, I16) + 255) * 511 + __builtin_convertvector(gx, I16) + 255;
        const I16 o = (I16)_mm512_i32gather_epi32((__m512i)entry, orientationTable, 4);
#else
        const I16 entry =
            (__builtin_convertvector(gy, I16) + 255) * 511 + __builtin_convertvector(gx, I16) + 255;
        int32_t entries[16];
        __builtin_memcpy(entries, &entry, sizeof entry);
        const long at = q * vw + C + 2;
        // The offset of the orientation's running rows, which the scalar votes below add to.
        for (int i = 0; i < 16; i++) orient[at + i] = orientationTable[entries[i]] * pairPlane;
#endif
        // Pixels dlib's 8-lane loop does not count have zero weights (0 · v = 0: v is finite).
        V16 vx0, vx1;
        __builtin_memcpy(&vx1, vxLeft + q * vw + C + 2, sizeof vx1);
        __builtin_memcpy(&vx0, vxRight + q * vw + C + 2, sizeof vx0);
        const V16 a1 = vx1 * v, a0 = vx0 * v;
#if defined(__AVX512F__)
        const long at = q * vw + C + 2;
        __builtin_memcpy(&orient[at], &o, sizeof o);
        V16 w;
        w = vy1 * a1;
        __builtin_memcpy(wLT + at, &w, sizeof w);
        w = vy0 * a1;
        __builtin_memcpy(wLB + at, &w, sizeof w);
        w = vy1 * a0;
        __builtin_memcpy(wRT + at, &w, sizeof w);
        w = vy0 * a0;
        __builtin_memcpy(wRB + at, &w, sizeof w);
#else
        typedef float V32 __attribute__((vector_size(128)));
        const V16 lt = vy1 * a1, lb = vy0 * a1, rt = vy1 * a0, rb = vy0 * a0;
        const V32 wl = __builtin_shufflevector(lt, lb, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21,
                                              6, 22, 7, 23, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28,
                                              13, 29, 14, 30, 15, 31);
        const V32 wr = __builtin_shufflevector(rt, rb, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21,
                                              6, 22, 7, 23, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28,
                                              13, 29, 14, 30, 15, 31);
        __builtin_memcpy(wL + 2 * at, &wl, sizeof wl);
        __builtin_memcpy(wR + 2 * at, &wr, sizeof wr);
#endif
      }
    }

    // Votes into cells j of histogram rows iy + 1 (top) and iy + 2 (bottom), in raster order
    // per cell: right-neighbour votes from x = 8j − 12 … 8j − 5 (steps 0–7), then left ones.
    // Step s2 reads phase q of pixel cell j + C for every cell j.
#if defined(__AVX512F__)
    // Sixteen cells at a time, the 36 accumulators (18 orientations × two rows) in registers.
    for (long j0 = 0; j0 < hw; j0 += 16) {
      float *rowT = hist + (long)(iy + 1) * hw + j0, *rowB = rowT + hw;
      V16 accT[kBins], accB[kBins];
      for (int o = 0; o < kBins; o++) {
        __builtin_memcpy(&accT[o], rowT + o * histPlane, 64);
        __builtin_memcpy(&accB[o], rowB + o * histPlane, 64);
      }
      for (int s2 = 0; s2 < 16; s2++) {
        // Step s2: phase q of pixel cell j + C; right votes for s2 < 8, left ones after.
        const int q = (s2 + 4) & 7;
        const long C = s2 < 4 ? -2 : s2 < 12 ? -1 : 0;
        const long at = q * vw + j0 + C + 2;
        I16 o;
        V16 wT, wB;
        __builtin_memcpy(&o, &orient[at], 64);
        __builtin_memcpy(&wT, (s2 < 8 ? wRT : wLT) + at, 64);
        __builtin_memcpy(&wB, (s2 < 8 ? wRB : wLB) + at, 64);
        for (int b = 0; b < kBins; b++) {
          const I16 hit = o == b;
          accT[b] = hit ? accT[b] + wT : accT[b];
          accB[b] = hit ? accB[b] + wB : accB[b];
        }
      }
      for (int o = 0; o < kBins; o++) {
        __builtin_memcpy(rowT + o * histPlane, &accT[o], 64);
        __builtin_memcpy(rowB + o * histPlane, &accB[o], 64);
      }
    }
#else
    // One pixel at a time, a whole row of cells per step: a cell's bins are touched once per
    // step, so no add waits on the one before it through memory. Without AVX-512 the 36
    // accumulators of the vector form above spill, and its 18 compares and selects per step
    // cost more than these scalar adds; `orient` already holds each orientation's offset.
    // On a 2-core AMD EPYC with AVX2 (grey copies of the shared photos at 512 and 768 px, one
    // thread, six alternating rounds): the whole detector 2.92–3.49 s → 2.13–2.69 s per pass
    // over the 170 copies, with the same detections and scores (340 copies and crops checked).
    // The top and bottom votes of a pixel then became one two-float add into the band's running
    // rows (one load and one store instead of two each): the detector's CPU time in
    // `retouch-bench ai` ("faces alone", 5 alternating runs) 14.6–16.0 → 14.0–14.3 ms.
    {
      typedef float F2 __attribute__((vector_size(8)));
      for (int s2 = 0; s2 < 16; s2++) {
        const int q = (s2 + 4) & 7;
        const long C = s2 < 4 ? -2 : s2 < 12 ? -1 : 0;
        const long at = q * vw + C + 2;
        const int32_t *o = orient.data() + at;
        const float *w = (s2 < 8 ? wR : wL) + 2 * at;
        for (long j = 0; j < hc; j++) {  // cells past hc are never read
          float *p = pairs + o[j] + 2 * j;
          F2 h, add;
          __builtin_memcpy(&h, p, sizeof h);
          __builtin_memcpy(&add, w + 2 * j, sizeof add);
          h = h + add;
          __builtin_memcpy(p, &h, sizeof h);
        }
      }
    }
#endif

    // dlib's one-by-one pixels at the right: cells from floor(xp) + 1, each vote a fused
    // multiply-add h += (vy·vx)·v (dlib's `h += vy * vx * v`, contracted by the compiler).
    const uint8_t *row = img + (long)y * step, *rowUp = row - step, *rowDown = row + step;
    for (int x = std::max(vecEnd, 1); x < visC; x++) {
      const float gx = (float)(row[x + 1] - row[x - 1]), gy = (float)(rowDown[x] - rowUp[x]);
      const float gx2 = gx * gx, gy2 = gy * gy;
      float v = gx2 + gy2;
      const int o = orientation(gx, gy);
      v = std::sqrt(v);
      const float xp = ((double)x + 0.5) / (double)kCell - 0.5;
      const int ixp = (int)std::floor(xp);
      const float vx0 = xp - ixp;
      const float vx1 = 1.0 - vx0;
#if defined(__AVX512F__)
      float *top = hist + o * histPlane + (long)(iy + 1) * hw + ixp + 1;
      float *bottom = top + hw;
      const long next = 1;  // the cell to the right
#else
      float *top = pairs + o * pairPlane + 2 * (ixp + 1);
      float *bottom = top + 1;
      const long next = 2;
#endif
      top[0] = std::fma(vy1 * vx1, v, top[0]);
      bottom[0] = std::fma(vy0 * vx1, v, bottom[0]);
      top[next] = std::fma(vy1 * vx0, v, top[next]);
      bottom[next] = std::fma(vy0 * vx0, v, bottom[next]);
    }
    uint8_t *first = rows3[0];
    rows3[0] = rows3[1];
    rows3[1] = rows3[2];
    rows3[2] = first;
  }
#if !defined(__AVX512F__)
  if (banded) {  // the last band's two rows
    finishTop();
    band++;
    finishTop();
  }
#endif

  // Energy per cell: Σ over the nine unsigned orientations of (h[o] + h[o + 9])², one fused
  // multiply-add per orientation (dlib's `n += s * s`, contracted by the compiler).
  std::vector<float> norm((size_t)cellsR * cellsC, 0.0f);
  for (int r = 0; r < cellsR; r++) {
    for (int c = 0; c < cellsC; c++) {
      const float *h = hist + (long)(r + 1) * hw + c + 1;
      float n = 0;
      for (int o = 0; o < 9; o++) {
        const float s = h[o * histPlane] + h[(o + 9) * histPlane];
        n = std::fma(s, s, n);
      }
      norm[(size_t)r * cellsC + c] = n;
    }
  }

  // Each cell normalised by its four 2×2-cell blocks (truncated at 0.2 of each block's norm):
  // 18 signed and 9 unsigned orientations summed over the four, and 4 texture sums.
  const int hogR = size.rows - (kTaps - 1), hogC = size.cols - (kTaps - 1);
  const long plane = (long)size.rows * stride;
  auto N = [&](int r, int c) { return norm[(size_t)r * cellsC + c]; };
  // dlib sums the four lanes of a vector as (l0 + l1) + (l2 + l3).
  auto sum4 = [](const float *l) { return (l[0] + l[1]) + (l[2] + l[3]); };
  for (int y = 0; y < hogR; y++) {
    for (int x = 0; x < hogC; x++) {
      const float z1[4] = {N(y + 1, x + 1), N(y, x + 1), N(y + 1, x), N(y, x)};
      const float z2[4] = {N(y + 1, x + 2), N(y, x + 2), N(y + 1, x + 1), N(y, x + 1)};
      const float z3[4] = {N(y + 2, x + 1), N(y + 1, x + 1), N(y + 2, x), N(y + 1, x)};
      const float z4[4] = {N(y + 2, x + 2), N(y + 1, x + 2), N(y + 2, x + 1), N(y + 1, x + 1)};
      float nn[4], n[4], t[4] = {0, 0, 0, 0};
      for (int k = 0; k < 4; k++) {
        float e = z1[k] + z2[k];
        e = e + z3[k];
        e = e + z4[k];
        e = e + 0.0001f;
        nn[k] = 0.2f * std::sqrt(e);
        n[k] = 0.1f / nn[k];
      }
      const float *hp = hist + (long)(y + 2) * hw + x + 2;
      float h[kBins];
      for (int o = 0; o < kBins; o++) h[o] = hp[o * histPlane];
      float *dst = out + (long)(y + kPadBefore) * stride + x + kPadBefore;
      for (int o = 0; o < kBins; o += 3) {
        float m[3][4];
        for (int j = 0; j < 3; j++) {
          for (int k = 0; k < 4; k++) m[j][k] = std::min(h[o + j], nn[k]) * n[k];
          dst[(o + j) * plane] = sum4(m[j]);
        }
        for (int k = 0; k < 4; k++) {
          const float s = m[0][k] + m[1][k];
          t[k] = t[k] + (s + m[2][k]);
        }
      }
      for (int k = 0; k < 4; k++) t[k] = t[k] * (float)(2 * 0.2357);
      for (int o = 0; o < 9; o++) {
        const float u = h[o] + h[o + 9];
        float m[4];
        for (int k = 0; k < 4; k++) m[k] = std::min(u, nn[k]) * n[k];
        dst[(18 + o) * plane] = sum4(m);
      }
      for (int k = 0; k < 4; k++) dst[(27 + k) * plane] = t[k];
    }
  }
}

#pragma clang fp contract(on)

}  // namespace hog

// Outputs are computed in blocks of this many lanes: one 512-bit vector of floats. Written with
// the compiler's vector types so that AVX-512 machines get whole zmm registers (clang's
// -march=native prefers 256-bit vectors for loops it vectorises itself) and other machines two or
// four narrower registers; the arithmetic per output is the same either way. Without AVX-512 the
// blocks are 256-bit: rows are padded to fewer unused outputs (a 17-wide level is filtered as 24,
// not 32), and the column pass's 13 row loads fit the 16 registers (`topSuggestion` on the 512-px
// copy 15.4–15.7 → 14.8–15.0 ms on the 2-core AMD EPYC, alternating runs).
#if defined(__AVX512F__)
constexpr long kLanes = 16;
#else
constexpr long kLanes = 8;
#endif
typedef float Block __attribute__((vector_size(kLanes * sizeof(float))));
typedef float BlockU __attribute__((vector_size(kLanes * sizeof(float)), aligned(alignof(float))));

inline Block load(const float *p) { return *reinterpret_cast<const BlockU *>(p); }
inline void store(float *p, Block v) { *reinterpret_cast<BlockU *>(p) = v; }

// out[r][c] += Σm col[m]·(Σn row[n]·in[r+m][c+n]) for r < rows−9 and c < width, where `width` is
// a multiple of kLanes and `in` rows (stride `stride` >= width + 9) are readable that far. `tmp`
// holds rows × width floats; `out` rows have stride `width`. Each block of kLanes outputs is
// summed over the taps in order, one fused multiply-add per tap starting from the first product
// (the order the scalar loop had, so results are the same bit for bit), and stored once.
// Four rows are done together: four independent chains of multiply-adds keep the FMA units busy
// (one chain waits on each add's latency), and in the column pass the four output rows share
// 13 row loads instead of 40. All filters on all levels of a 448×336 search copy: 1.97 ms with
// one row at a time in 256-bit halves, 1.50 ms so (one thread, best of 100).
//
// Only rows `live` ..< rows − (kTaps − 1 − live) of `in` are filtered along the row: the others
// are the planes' zero padding, whose `tmp` rows the caller has zeroed once for all filters. The
// products of a zero row are zeros of either sign, and a signed zero changes a sum only in the
// sign of a sum that is zero, which compares and subtracts as zero: the scores are unchanged.
// (The padding rows were 9 of every level's rows, 16 % of the filters' multiply-adds on a
// 448×336 search copy.)
RT_WIDE void filter_add(const float *__restrict in, long rows, long stride, long width,
                        long live, const float *row, const float *col, float *__restrict tmp,
                        float *__restrict out) {
  const long oh = rows - kTaps + 1;
  const long liveEnd = rows - (kTaps - 1 - live);
  Block rk[kTaps], ck[kTaps];
  for (long n = 0; n < kTaps; n++) {
    rk[n] = Block{} + row[n];
    ck[n] = Block{} + col[n];
  }
  long r = live;
  for (; r + 4 <= liveEnd; r += 4) {
    const float *s0 = in + r * stride, *s1 = s0 + stride, *s2 = s1 + stride, *s3 = s2 + stride;
    float *d = tmp + r * width;
    for (long c = 0; c < width; c += kLanes) {
      Block a0 = rk[0] * load(s0 + c), a1 = rk[0] * load(s1 + c);
      Block a2 = rk[0] * load(s2 + c), a3 = rk[0] * load(s3 + c);
      for (long n = 1; n < kTaps; n++) {
        a0 = __builtin_elementwise_fma(rk[n], load(s0 + c + n), a0);
        a1 = __builtin_elementwise_fma(rk[n], load(s1 + c + n), a1);
        a2 = __builtin_elementwise_fma(rk[n], load(s2 + c + n), a2);
        a3 = __builtin_elementwise_fma(rk[n], load(s3 + c + n), a3);
      }
      store(d + c, a0);
      store(d + width + c, a1);
      store(d + 2 * width + c, a2);
      store(d + 3 * width + c, a3);
    }
  }
  for (; r < liveEnd; r++) {
    const float *s0 = in + r * stride;
    float *d = tmp + r * width;
    for (long c = 0; c < width; c += kLanes) {
      Block a0 = rk[0] * load(s0 + c);
      for (long n = 1; n < kTaps; n++) a0 = __builtin_elementwise_fma(rk[n], load(s0 + c + n), a0);
      store(d + c, a0);
    }
  }
  r = 0;
  for (; r + 4 <= oh; r += 4) {
    const float *src = tmp + r * width;
    float *d = out + r * width;
    for (long c = 0; c < width; c += kLanes) {
      Block t[kTaps + 3];
      for (long m = 0; m < kTaps + 3; m++) t[m] = load(src + m * width + c);
      Block a0 = ck[0] * t[0], a1 = ck[0] * t[1], a2 = ck[0] * t[2], a3 = ck[0] * t[3];
      for (long m = 1; m < kTaps; m++) {
        a0 = __builtin_elementwise_fma(ck[m], t[m], a0);
        a1 = __builtin_elementwise_fma(ck[m], t[m + 1], a1);
        a2 = __builtin_elementwise_fma(ck[m], t[m + 2], a2);
        a3 = __builtin_elementwise_fma(ck[m], t[m + 3], a3);
      }
      store(d + c, load(d + c) + a0);
      store(d + width + c, load(d + width + c) + a1);
      store(d + 2 * width + c, load(d + 2 * width + c) + a2);
      store(d + 3 * width + c, load(d + 3 * width + c) + a3);
    }
  }
  for (; r < oh; r++) {
    const float *src = tmp + r * width;
    float *d = out + r * width;
    for (long c = 0; c < width; c += kLanes) {
      Block a0 = ck[0] * load(src + c);
      for (long m = 1; m < kTaps; m++)
        a0 = __builtin_elementwise_fma(ck[m], load(src + m * width + c), a0);
      store(d + c, load(d + c) + a0);
    }
  }
}

// dlib's one-by-one columns at the right of its resize_image, its expression as compiled here
// (multiply-adds contracted as they are in dlib's header): columns c ..< out.nc() of row r.
void pyramid_down_tail(const Grey &in, Grey &out, long r, long c, long top, long bottom,
                       double tb_frac, double x_scale) {
  double x = -x_scale + c * x_scale;
  for (; c < out.nc(); ++c) {
    x += x_scale;
    const long left = static_cast<long>(std::floor(x));
    const long right = std::min(left + 1, in.nc() - 1);
    const float lr_frac = x - left;
    float tl = 0, tr = 0, bl = 0, br = 0;
    dlib::assign_pixel(tl, in[top][left]);
    dlib::assign_pixel(tr, in[top][right]);
    dlib::assign_pixel(bl, in[bottom][left]);
    dlib::assign_pixel(br, in[bottom][right]);
    float temp = (1 - tb_frac) * ((1 - lr_frac) * tl + lr_frac * tr) +
                 tb_frac * ((1 - lr_frac) * bl + lr_frac * br);
    dlib::assign_pixel(out[r][c], temp);
  }
}

#pragma clang fp contract(off)

// The next level of the detector's pyramid: dlib's `Pyramid` of a grey image, ((N − 1) · n) / N
// rows and columns filled by its resize_image (bilinear; the path dlib takes for two grey
// images of the same pixel type), computed the same way bit for bit. dlib works out each
// column's interpolation weights again on every row, four columns at a time, and reads the
// sixteen pixels of four outputs one by one; here the weights of each column are worked out
// once, and eight outputs at a time pick their pixels out of 16 bytes of each row with one
// byte shuffle (the columns of a 5:6 step span about ten bytes). Checked against dlib on 20,000
// random images of 1–700 × 1–700 pixels (noise, black and white, ramps) and chains of levels
// down from them: no pixel differs. Building the levels of a 448×336 search copy was about a
// tenth of the detector's CPU time on the 2-core AMD EPYC.
void pyramid_down_grey(const Grey &in, Grey &out) {
  const long inR = in.nr(), inC = in.nc();
  const long outR = ((kPyramidN - 1) * inR) / kPyramidN;
  const long outC = ((kPyramidN - 1) * inC) / kPyramidN;
  out.set_size(outR, outC);
  if (outR == 0 || outC == 0 || inR == 0 || inC == 0) return;
  const double xScale = (inC - 1) / (double)std::max<long>(outC - 1, 1);
  const double yScale = (inR - 1) / (double)std::max<long>(outR - 1, 1);
  // dlib's four-lane loop: lane k of step m reads column 4m + k at x₀ₖ + (m + 1) · 4s, summed
  // in floats, and it stops at the first step whose last lane's right neighbour is outside.
  std::vector<int32_t> left;
  std::vector<float> weightRight, weightLeft;
  {
    const double x = -4 * xScale;
    const float step = (float)(4 * xScale);
    float lane[4] = {(float)x, (float)(x + xScale), (float)(x + 2 * xScale),
                     (float)(x + 3 * xScale)};
    for (;;) {
      int32_t l[4];
      float fr[4];
      for (int k = 0; k < 4; k++) {
        lane[k] = lane[k] + step;
        l[k] = (int32_t)lane[k];  // truncation, as _mm_cvttps_epi32
        fr[k] = lane[k] - (float)l[k];
      }
      if (l[3] + 1 >= inC) break;
      for (int k = 0; k < 4; k++) {
        left.push_back(l[k]);
        weightRight.push_back(fr[k]);
        weightLeft.push_back(1.0f - fr[k]);
      }
    }
  }
  const long vecC = std::min<long>((long)left.size(), outC);
  typedef float F8 __attribute__((vector_size(32)));
  typedef int32_t I8 __attribute__((vector_size(32)));
  typedef uint8_t U8 __attribute__((vector_size(8)));
  typedef uint8_t U16 __attribute__((vector_size(16)));
  // Per group of eight columns whose pixels lie within 16 bytes of the group's first one (and
  // of the row's end): the shuffle that puts the left pixels in bytes 0–7 and the right ones in
  // 8–15. Other groups read their pixels one pair at a time.
  const long groups = vecC / 8;
  std::vector<U16> pick((size_t)groups);
  std::vector<uint8_t> picked((size_t)groups, 0);
  for (long g = 0; g < groups; g++) {
    const long first = left[8 * g];
    if (left[8 * g + 7] + 1 - first >= 16 || first + 16 > inC) continue;
    for (int k = 0; k < 8; k++) {
      pick[g][k] = (uint8_t)(left[8 * g + k] - first);
      pick[g][8 + k] = (uint8_t)(left[8 * g + k] + 1 - first);
    }
    picked[g] = 1;
  }
  double y = -yScale;
  for (long r = 0; r < outR; r++) {
    y += yScale;
    const long top = (long)std::floor(y);
    const long bottom = std::min(top + 1, inR - 1);
    const double tbFrac = y - top;
    const float tb = (float)tbFrac, invTb = (float)(1 - tbFrac);
    const uint8_t *rowT = &in[top][0], *rowB = &in[bottom][0];
    uint8_t *dst = &out[r][0];
    long c = 0;
    for (; c + 8 <= vecC; c += 8) {
      F8 tl, tr, bl, br;
#if defined(__SSSE3__)
      if (picked[c / 8]) {
        const __m128i mask = (__m128i)pick[c / 8];
        const U16 t =
            (U16)_mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(rowT + left[c])), mask);
        const U16 b =
            (U16)_mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(rowB + left[c])), mask);
        tl = __builtin_convertvector(__builtin_shufflevector(t, t, 0, 1, 2, 3, 4, 5, 6, 7), F8);
        tr = __builtin_convertvector(
            __builtin_shufflevector(t, t, 8, 9, 10, 11, 12, 13, 14, 15), F8);
        bl = __builtin_convertvector(__builtin_shufflevector(b, b, 0, 1, 2, 3, 4, 5, 6, 7), F8);
        br = __builtin_convertvector(
            __builtin_shufflevector(b, b, 8, 9, 10, 11, 12, 13, 14, 15), F8);
      } else
#endif
      {
        // Each pixel and its right neighbour, read as one 16-bit pair.
        int32_t pairT[8], pairB[8];
        for (int k = 0; k < 8; k++) {
          uint16_t t, b;
          __builtin_memcpy(&t, rowT + left[c + k], 2);
          __builtin_memcpy(&b, rowB + left[c + k], 2);
          pairT[k] = t;
          pairB[k] = b;
        }
        I8 pt, pb;
        __builtin_memcpy(&pt, pairT, sizeof pt);
        __builtin_memcpy(&pb, pairB, sizeof pb);
        tl = __builtin_convertvector(pt & 0xFF, F8);
        tr = __builtin_convertvector(pt >> 8, F8);
        bl = __builtin_convertvector(pb & 0xFF, F8);
        br = __builtin_convertvector(pb >> 8, F8);
      }
      F8 wl, wr;
      __builtin_memcpy(&wl, &weightLeft[c], sizeof wl);
      __builtin_memcpy(&wr, &weightRight[c], sizeof wr);
      const F8 tlf = invTb * wl, trf = invTb * wr, blf = tb * wl, brf = tb * wr;
      F8 sum = tlf * tl + trf * tr;
      sum = sum + blf * bl;
      sum = sum + brf * br;
      // dlib's (unsigned char)(sum + 0.5) in doubles: the whole part, plus one when the
      // fraction (exact in floats) is at least a half.
      const I8 whole = __builtin_convertvector(sum, I8);
      const I8 v = whole - (I8)(sum - __builtin_convertvector(whole, F8) >= 0.5f);
      const U8 bytes = __builtin_convertvector(v, U8);
      __builtin_memcpy(dst + c, &bytes, sizeof bytes);
    }
    for (; c < vecC; c++) {
      const int32_t x = left[c];
      const float tlf = invTb * weightLeft[c], trf = invTb * weightRight[c];
      const float blf = tb * weightLeft[c], brf = tb * weightRight[c];
      float sum = tlf * (float)rowT[x] + trf * (float)rowT[x + 1];
      sum = sum + blf * (float)rowB[x];
      sum = sum + brf * (float)rowB[x + 1];
      dst[c] = (uint8_t)((double)sum + 0.5);
    }
    pyramid_down_tail(in, out, r, c, top, bottom, tbFrac, xScale);
  }
}

#pragma clang fp contract(on)

// Scans one pyramid level (`image`, level `level`) with every filter; detections above each
// filter's bias + `threshold` are appended in image coordinates of level 0, in dlib's order
// (filter by filter, rows then columns).
void scan_level(const Model &m, const Grey &image, unsigned long level, double threshold,
                std::vector<dlib::rect_detection> &found) {
  const hog::Size size(image.nr(), image.nc());
  if (size.rows < kTaps || size.cols < kTaps) return;
  const long rows = size.rows, cols = size.cols;
  const long ow = cols - kTaps + 1, oh = rows - kTaps + 1;
  // The planes are zero-padded on the right, so that every row can be filtered in whole blocks
  // of kLanes (the extra outputs are never read).
  const long width = (ow + kLanes - 1) / kLanes * kLanes;
  // A block read of the last columns reaches kTaps − 1 floats past `width` into the row.
  const long stride = width + std::max(kLanes, kTaps);
  std::vector<float> padded((size_t)(hog::kPlanes * rows * stride), 0.0f);
  hog::extract((const uint8_t *)dlib::image_data(image), image.nr(), image.nc(),
               dlib::width_step(image), size, padded.data(), stride);
  // `tmp` starts zeroed: its padding rows are never written.
  std::vector<float> tmp((size_t)(rows * width)), saliency((size_t)(oh * width));
  Pyramid pyramid;
  for (unsigned long i = 0; i < m.filters.size(); i++) {
    const Filter &f = m.filters[i];
    std::fill(saliency.begin(), saliency.end(), 0.0f);
    for (const Filter::Pair &p : f.pairs) {
      filter_add(padded.data() + p.plane * rows * stride, rows, stride, width, hog::kPadBefore,
                 p.row, p.col, tmp.data(), saliency.data());
    }
    const double cut = f.bias + threshold;
    for (long r = 0; r < oh; r++) {
      for (long c = 0; c < ow; c++) {
        const float v = saliency[(size_t)(r * width + c)];
        if (v < cut) continue;
        // The window centre in feature coordinates, as dlib's scanner places it.
        const dlib::point centre(c + kTaps / 2, r + kTaps / 2);
        dlib::rectangle rect = m.features.feats_to_image(
            dlib::centered_rect(centre, m.boxCols, m.boxRows), (int)m.cell, (int)m.windowRows,
            (int)m.windowCols);
        dlib::rect_detection d;
        d.detection_confidence = v - f.bias;
        d.weight_index = i;
        d.rect = pyramid.rect_up(rect, level);
        found.push_back(d);
      }
    }
  }
}

// One search of an image: its pyramid (built first, by the thread that starts the search), then
// its levels scanned by whichever threads call `work`, each level claimed by exactly one of them
// (levels in order, largest first, so the last ones to be shared out are the smallest), then
// dlib's suppression over all of them. Detections are gathered per level and merged in level
// order, so the result is the same whoever scans which level and whatever the timing.
struct Search {
  const Model &m;
  double threshold = 0;
  Grey image;
  // The pyramid's smaller images (level 0 is `image` itself).
  std::vector<std::unique_ptr<Grey>> levels;
  std::vector<std::vector<dlib::rect_detection>> perLevel;
  unsigned long count = 0;
  // Set (release) once the pyramid and `count` are in place; until then `work` has nothing to
  // scan. `expected`: a thread has said it will open the search or give it up (`closed`), so a
  // helper may wait for that; without it a helper returns at once (the starting thread may not
  // run until the helper returns, e.g. on a single core).
  std::atomic<bool> open{false};
  bool expected = false, closed = false;
  std::atomic<unsigned long> next{0}, done{0};
  std::mutex lock;
  std::condition_variable allDone, opened;
  std::exception_ptr failure;

  explicit Search(const Model &model) : m(model) {}

  const Grey &level(unsigned long l) const { return l == 0 ? image : *levels[l - 1]; }

  // Builds the pyramid of `image` (as dlib's scanner chooses its levels) and opens the levels.
  void build() {
    Pyramid pyramid;
    unsigned long n = 0;
    dlib::rectangle rect = dlib::get_rect(image);
    do {
      rect = pyramid.rect_down(rect);
      ++n;
    } while (rect.width() >= m.minLayer && rect.height() >= m.minLayer);
    const Grey *previous = &image;
    for (unsigned long l = 1; l < n; l++) {
      auto smaller = std::make_unique<Grey>();
      pyramid_down_grey(*previous, *smaller);
      previous = smaller.get();
      levels.push_back(std::move(smaller));
    }
    count = levels.size() + 1;
    perLevel.resize(count);
    std::lock_guard<std::mutex> guard(lock);
    open.store(true, std::memory_order_release);
    opened.notify_all();
  }

  // No start will come: helpers waiting for one return.
  void close() {
    std::lock_guard<std::mutex> guard(lock);
    closed = true;
    opened.notify_all();
  }

  // Waits, if a start was promised, until the search is open or closed. True when open.
  bool wait_open() {
    if (open.load(std::memory_order_acquire)) return true;
    std::unique_lock<std::mutex> guard(lock);
    opened.wait(guard,
                [&] { return !expected || closed || open.load(std::memory_order_acquire); });
    return open.load(std::memory_order_acquire);
  }

  // Scans levels nobody has claimed yet until none is left. A failure (out of memory) is kept
  // for `finish`; the level still counts as done so that nobody waits for it forever.
  // Returns how many levels this call scanned.
  int32_t work() {
    if (!wait_open()) return 0;
    int32_t scanned = 0;
    for (;;) {
      const unsigned long l = next.fetch_add(1, std::memory_order_relaxed);
      if (l >= count) return scanned;
      scanned++;
      try {
        scan_level(m, level(l), l, threshold, perLevel[l]);
      } catch (...) {
        std::lock_guard<std::mutex> guard(lock);
        if (!failure) failure = std::current_exception();
      }
      if (done.fetch_add(1, std::memory_order_acq_rel) + 1 == count) {
        std::lock_guard<std::mutex> guard(lock);
        allDone.notify_all();
      }
    }
  }

  // Waits until every level has been scanned (by any thread), then suppresses overlapping
  // detections as dlib's object_detector does. Rethrows a failure of any level.
  std::vector<dlib::rect_detection> finish() {
    {
      std::unique_lock<std::mutex> guard(lock);
      allDone.wait(guard, [&] { return done.load(std::memory_order_acquire) == count; });
      if (failure) std::rethrow_exception(failure);
    }
    // dlib's order: filter by filter, each filter's detections best first (levels in order),
    // then a stable sort by confidence over all filters before suppression.
    std::vector<dlib::rect_detection> all;
    for (unsigned long i = 0; i < m.filters.size(); i++) {
      std::vector<dlib::rect_detection> mine;
      for (const auto &list : perLevel)
        for (const auto &d : list)
          if (d.weight_index == i) mine.push_back(d);
      std::stable_sort(mine.begin(), mine.end(),
                       [](const dlib::rect_detection &a, const dlib::rect_detection &b) {
                         return a.detection_confidence > b.detection_confidence;
                       });
      all.insert(all.end(), mine.begin(), mine.end());
    }
    std::stable_sort(all.begin(), all.end(),
                     [](const dlib::rect_detection &a, const dlib::rect_detection &b) {
                       return a.detection_confidence > b.detection_confidence;
                     });
    std::vector<dlib::rect_detection> kept;
    for (const dlib::rect_detection &d : all) {
      bool suppressed = false;
      for (const dlib::rect_detection &k : kept) {
        if (m.overlaps(d.rect, k.rect)) {
          suppressed = true;
          break;
        }
      }
      if (!suppressed) kept.push_back(d);
    }
    std::stable_sort(kept.begin(), kept.end(),
                     [](const dlib::rect_detection &a, const dlib::rect_detection &b) {
                       return a.detection_confidence > b.detection_confidence;
                     });
    return kept;
  }
};

bool valid_image(const uint8_t *grey, int32_t width, int32_t height, int32_t stride) {
  return grey != nullptr && width > 0 && height > 0 && stride >= width &&
         (int64_t)width * height <= (int64_t)1 << 26;
}

// Copies `grey` into the search's image and builds its pyramid.
void start(Search &s, const uint8_t *grey, int32_t width, int32_t height, int32_t stride,
           double threshold) {
  s.threshold = threshold;
  s.image.set_size(height, width);
  for (int32_t y = 0; y < height; y++) {
    std::copy(grey + (size_t)y * (size_t)stride, grey + (size_t)y * (size_t)stride + width,
              &s.image[y][0]);
  }
  s.build();
}

int32_t write_boxes(const std::vector<dlib::rect_detection> &found, rt_face_box *out,
                    int32_t capacity) {
  int32_t n = std::min<int32_t>(capacity, (int32_t)found.size());
  for (int32_t i = 0; i < n; i++) {
    const dlib::rectangle &r = found[i].rect;
    out[i].left = (int32_t)r.left();
    out[i].top = (int32_t)r.top();
    out[i].width = (int32_t)r.width();
    out[i].height = (int32_t)r.height();
    out[i].score = found[i].detection_confidence;
    out[i].filter = (int32_t)found[i].weight_index;
  }
  return n;
}

}  // namespace

extern "C" int32_t rt_faces_detect(const uint8_t *grey, int32_t width, int32_t height,
                                   int32_t stride, double threshold, int32_t threads,
                                   rt_face_box *out, int32_t capacity) {
  if (!valid_image(grey, width, height, stride) || capacity < 0 ||
      (capacity > 0 && out == nullptr)) {
    return -1;
  }
  try {
    Search search(model());
    start(search, grey, width, height, stride, threshold);
    // A second thread pays only when the twice-reduced image still holds the 80×80 window.
    std::thread worker;
    if (threads >= 2 && std::min(width, height) * 25 / 36 >= 80) {
      worker = std::thread([&search] { search.work(); });
    }
    search.work();
    if (worker.joinable()) worker.join();
    return write_boxes(search.finish(), out, capacity);
  } catch (...) {
    return -2;
  }
}

struct rt_face_search {
  std::unique_ptr<Search> search;
  bool started = false;
};

extern "C" rt_face_search *rt_faces_search_create(void) {
  try {
    auto s = std::make_unique<rt_face_search>();
    s->search = std::make_unique<Search>(model());
    return s.release();
  } catch (...) {
    return nullptr;
  }
}

extern "C" void rt_faces_search_expect(rt_face_search *s) {
  if (s == nullptr) return;
  std::lock_guard<std::mutex> guard(s->search->lock);
  s->search->expected = true;
}

extern "C" int32_t rt_faces_search_start(rt_face_search *s, const uint8_t *grey, int32_t width,
                                         int32_t height, int32_t stride, double threshold) {
  if (s == nullptr) return -1;
  if (s->started || !valid_image(grey, width, height, stride)) {
    s->search->close();
    return -1;
  }
  s->started = true;
  try {
    start(*s->search, grey, width, height, stride, threshold);
    return 0;
  } catch (...) {
    s->search->close();
    return -2;
  }
}

extern "C" void rt_faces_search_close(rt_face_search *s) {
  if (s != nullptr) s->search->close();
}

extern "C" int32_t rt_faces_search_help(rt_face_search *s) {
  return s == nullptr ? 0 : s->search->work();
}

extern "C" int32_t rt_faces_search_finish(rt_face_search *s, rt_face_box *out,
                                          int32_t capacity) {
  if (s == nullptr || !s->started || !s->search->open.load(std::memory_order_acquire) ||
      capacity < 0 || (capacity > 0 && out == nullptr)) {
    return -1;
  }
  try {
    s->search->work();
    return write_boxes(s->search->finish(), out, capacity);
  } catch (...) {
    return -2;
  }
}

extern "C" void rt_faces_search_destroy(rt_face_search *s) { delete s; }

extern "C" int32_t rt_faces_prewarm(void) {
  try {
    (void)model();
    (void)hog::orientation_table();
    return 0;
  } catch (...) {
    return -2;
  }
}
