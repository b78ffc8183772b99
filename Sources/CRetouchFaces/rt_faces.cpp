// SPDX-License-Identifier: Apache-2.0

#include "CRetouchFaces.h"

#include <dlib/image_processing/frontal_face_detector.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

namespace {

using Detector = dlib::frontal_face_detector;
using Pyramid = dlib::pyramid_down<6>;  // the frontal detector's own pyramid

// Deserialising dlib's embedded model costs ~0.5 s of CPU (measured on the 2-core build machine);
// copying a built detector costs ~0.2 ms. So the model is decoded once (a function-local static:
// thread-safe, and retried on the next call if it threw) and every working detector is a copy.
// Like the pool below it is never destroyed: a detached prewarm thread may still be using it
// while the process exits.
const Detector &prototype() {
  static const Detector *detector = new Detector(dlib::get_frontal_face_detector());
  return *detector;
}

// A working set: `full` scans every pyramid level; `top` only the two largest (the two that cost
// about half of the work), so that a second thread can scan the rest.
struct DetectorSet {
  Detector full;
  Detector top;
  DetectorSet() : full(prototype()), top(limited(prototype(), 2)) {}

  static Detector limited(const Detector &d, unsigned long levels) {
    Detector::image_scanner_type scanner;
    scanner.copy_configuration(d.get_scanner());
    scanner.set_max_pyramid_levels(levels);
    std::vector<Detector::feature_vector_type> weights;
    for (unsigned long i = 0; i < d.num_detectors(); i++) weights.push_back(d.get_w(i));
    return Detector(scanner, d.get_overlap_tester(), weights);
  }
};

// dlib's object_detector keeps scratch buffers and must not be used from two threads at once.
// Detector sets are therefore lent out from a pool: a caller takes one (or builds one when the
// pool is empty) and puts it back afterwards; the pool never holds more sets than the peak number
// of concurrent callers.
std::mutex &pool_mutex = *new std::mutex;
std::vector<std::unique_ptr<DetectorSet>> &pool = *new std::vector<std::unique_ptr<DetectorSet>>;

std::unique_ptr<DetectorSet> take_set() {
  {
    std::lock_guard<std::mutex> lock(pool_mutex);
    if (!pool.empty()) {
      std::unique_ptr<DetectorSet> d = std::move(pool.back());
      pool.pop_back();
      return d;
    }
  }
  return std::make_unique<DetectorSet>();
}

void return_set(std::unique_ptr<DetectorSet> d) {
  std::lock_guard<std::mutex> lock(pool_mutex);
  pool.push_back(std::move(d));
}

// Scans `image` with `set`. With `split`, the two largest pyramid levels are scanned here while a
// second thread scans the image reduced twice by the same pyramid (every smaller level), which
// halves the wall time on two idle cores. The two lists are merged like dlib merges its filters'
// detections: best first, dropping any box that overlaps a better one. (dlib suppresses across
// all levels at once, so in rare chains of three overlapping boxes the result can differ.)
std::vector<dlib::rect_detection> scan(DetectorSet &set, const dlib::array2d<unsigned char> &image,
                                       double threshold, bool split) {
  std::vector<dlib::rect_detection> found;
  if (!split) {
    set.full(image, found, threshold);
    return found;
  }
  Pyramid pyramid;
  dlib::array2d<unsigned char> once, twice;
  pyramid(image, once);
  pyramid(once, twice);
  std::vector<dlib::rect_detection> small;
  bool small_failed = false;
  std::thread worker([&] {
    try {
      set.full(twice, small, threshold);
    } catch (...) {
      small_failed = true;
    }
  });
  try {
    set.top(image, found, threshold);
  } catch (...) {
    worker.join();
    throw;
  }
  worker.join();
  if (small_failed) throw std::runtime_error("face scan failed");
  for (dlib::rect_detection &d : small) {
    d.rect = dlib::rectangle(pyramid.rect_up(dlib::drectangle(d.rect), 2));
    found.push_back(d);
  }
  std::stable_sort(found.begin(), found.end(),
                   [](const dlib::rect_detection &a, const dlib::rect_detection &b) {
                     return a.detection_confidence > b.detection_confidence;
                   });
  const dlib::test_box_overlap &overlaps = set.full.get_overlap_tester();
  std::vector<dlib::rect_detection> kept;
  for (const dlib::rect_detection &d : found) {
    bool suppressed = false;
    for (const dlib::rect_detection &k : kept) {
      if (overlaps(d.rect, k.rect)) {
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
    std::unique_ptr<DetectorSet> set = take_set();
    std::vector<dlib::rect_detection> found;
    // Splitting pays only when the twice-reduced image still holds the 80×80 window.
    bool split = threads >= 2 && std::min(width, height) * 25 / 36 >= 80;
    try {
      found = scan(*set, image, threshold, split);
    } catch (...) {
      return_set(std::move(set));
      throw;
    }
    return_set(std::move(set));
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
    return_set(take_set());
    return 0;
  } catch (...) {
    return -2;
  }
}
