// SPDX-License-Identifier: Apache-2.0

#include "CRetouchFaces.h"

#include <dlib/image_processing/frontal_face_detector.h>

#include <algorithm>
#include <exception>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

namespace {

using Detector = dlib::frontal_face_detector;
using Scanner = Detector::image_scanner_type;
using Pyramid = dlib::pyramid_down<6>;  // the frontal detector's own pyramid
using Planes = dlib::array<dlib::array2d<float>>;
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

// Outputs are computed in blocks of this many lanes (one AVX-512 register of floats).
constexpr long kLanes = 16;

// out[r][c] += Σm col[m]·(Σn row[n]·in[r+m][c+n]) for r < rows−9 and c < width, where `width` is
// a multiple of kLanes and `in` rows (stride `stride` >= width + 9) are readable that far. `tmp`
// holds rows × width floats; `out` rows have stride `width`. Each block of kLanes outputs is
// summed over all taps in a small local array (one vector register after vectorisation) and
// stored once.
void filter_add(const float *__restrict in, long rows, long stride, long width, const float *row,
                const float *col, float *__restrict tmp, float *__restrict out) {
  const long oh = rows - kTaps + 1;
  for (long r = 0; r < rows; r++) {
    const float *src = in + r * stride;
    float *dst = tmp + r * width;
    for (long c = 0; c < width; c += kLanes) {
      float acc[kLanes] = {};
      for (long n = 0; n < kTaps; n++)
        for (long j = 0; j < kLanes; j++) acc[j] += row[n] * src[c + n + j];
      for (long j = 0; j < kLanes; j++) dst[c + j] = acc[j];
    }
  }
  for (long r = 0; r < oh; r++) {
    float *dst = out + r * width;
    const float *src = tmp + r * width;
    for (long c = 0; c < width; c += kLanes) {
      float acc[kLanes] = {};
      for (long m = 0; m < kTaps; m++)
        for (long j = 0; j < kLanes; j++) acc[j] += col[m] * src[m * width + c + j];
      for (long j = 0; j < kLanes; j++) dst[c + j] += acc[j];
    }
  }
}

// Scans one pyramid level (`image`, level `level`) with every filter; detections above each
// filter's bias + `threshold` are appended in image coordinates of level 0, in dlib's order
// (filter by filter, rows then columns).
void scan_level(const Model &m, const Grey &image, unsigned long level, double threshold,
                std::vector<dlib::rect_detection> &found) {
  Planes planes;
  m.features(image, planes, (int)m.cell, (int)m.windowRows, (int)m.windowCols);
  if (planes.size() == 0) return;
  const long rows = planes[0].nr(), cols = planes[0].nc();
  if (rows < kTaps || cols < kTaps) return;
  const long ow = cols - kTaps + 1, oh = rows - kTaps + 1;
  // The planes are copied, zero-padded on the right, so that every row can be filtered in whole
  // blocks of kLanes (the extra outputs are never read).
  const long width = (ow + kLanes - 1) / kLanes * kLanes, stride = width + kLanes;
  std::vector<float> padded((size_t)(planes.size() * rows * stride), 0.0f);
  for (unsigned long p = 0; p < planes.size(); p++)
    for (long r = 0; r < rows; r++)
      std::copy(&planes[p][r][0], &planes[p][r][0] + cols,
                padded.data() + (p * rows + r) * stride);
  std::vector<float> tmp((size_t)(rows * width)), saliency((size_t)(oh * width));
  Pyramid pyramid;
  for (unsigned long i = 0; i < m.filters.size(); i++) {
    const Filter &f = m.filters[i];
    std::fill(saliency.begin(), saliency.end(), 0.0f);
    for (const Filter::Pair &p : f.pairs) {
      filter_add(padded.data() + p.plane * rows * stride, rows, stride, width, p.row, p.col,
                 tmp.data(), saliency.data());
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

// Scans `image` and every smaller level of dlib's pyramid (as dlib's scanner chooses them), then
// suppresses overlapping detections as dlib's object_detector does. With `split`, the levels are
// shared out between the calling thread and one worker (the first two levels, about half of the
// work, stay here); detections are gathered per level and merged in level order, so the result
// is the same whatever the split and the timing.
std::vector<dlib::rect_detection> scan(const Model &m, const Grey &image, double threshold,
                                       bool split) {
  Pyramid pyramid;
  // The pyramid's images (level 0 is `image` itself).
  std::vector<std::unique_ptr<Grey>> levels;
  {
    unsigned long count = 0;
    dlib::rectangle rect = dlib::get_rect(image);
    do {
      rect = pyramid.rect_down(rect);
      ++count;
    } while (rect.width() >= m.minLayer && rect.height() >= m.minLayer);
    const Grey *previous = &image;
    for (unsigned long l = 1; l < count; l++) {
      auto next = std::make_unique<Grey>();
      pyramid(*previous, *next);
      previous = next.get();
      levels.push_back(std::move(next));
    }
  }
  const unsigned long count = levels.size() + 1;
  auto level_image = [&](unsigned long l) -> const Grey & {
    return l == 0 ? image : *levels[l - 1];
  };
  std::vector<std::vector<dlib::rect_detection>> perLevel(count);
  const unsigned long here = split ? std::min<unsigned long>(2, count) : count;
  std::exception_ptr failure;
  std::thread worker;
  if (here < count) {
    worker = std::thread([&] {
      try {
        for (unsigned long l = here; l < count; l++)
          scan_level(m, level_image(l), l, threshold, perLevel[l]);
      } catch (...) {
        failure = std::current_exception();
      }
    });
  }
  try {
    for (unsigned long l = 0; l < here; l++)
      scan_level(m, level_image(l), l, threshold, perLevel[l]);
  } catch (...) {
    if (worker.joinable()) worker.join();
    throw;
  }
  if (worker.joinable()) worker.join();
  if (failure) std::rethrow_exception(failure);

  // dlib's order: filter by filter, each filter's detections best first (levels in order), then
  // a stable sort by confidence over all filters before suppression.
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
  return kept;
}

}  // namespace

extern "C" int32_t rt_faces_detect(const uint8_t *grey, int32_t width, int32_t height,
                                   int32_t stride, double threshold, int32_t threads,
                                   rt_face_box *out, int32_t capacity) {
  if (grey == nullptr || width <= 0 || height <= 0 || stride < width || capacity < 0 ||
      (capacity > 0 && out == nullptr) || (int64_t)width * height > (int64_t)1 << 26) {
    return -1;
  }
  try {
    dlib::array2d<unsigned char> image(height, width);
    for (int32_t y = 0; y < height; y++) {
      std::copy(grey + (size_t)y * (size_t)stride, grey + (size_t)y * (size_t)stride + width,
                &image[y][0]);
    }
    // Splitting pays only when the twice-reduced image still holds the 80×80 window.
    bool split = threads >= 2 && std::min(width, height) * 25 / 36 >= 80;
    std::vector<dlib::rect_detection> found = scan(model(), image, threshold, split);
    std::stable_sort(found.begin(), found.end(),
                     [](const dlib::rect_detection &a, const dlib::rect_detection &b) {
                       return a.detection_confidence > b.detection_confidence;
                     });
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
  } catch (...) {
    return -2;
  }
}

extern "C" int32_t rt_faces_prewarm(void) {
  try {
    (void)model();
    return 0;
  } catch (...) {
    return -2;
  }
}
