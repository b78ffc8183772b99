// SPDX-License-Identifier: Apache-2.0
#ifndef CRETOUCH_FACES_H
#define CRETOUCH_FACES_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// One detection in pixels of the searched image, with dlib's detector score (above 0 = a face
/// at dlib's default threshold) and which of the detector's five pose filters fired.
typedef struct rt_face_box {
  int32_t left;
  int32_t top;
  int32_t width;
  int32_t height;
  double score;
  int32_t filter;
} rt_face_box;

/// Finds frontal faces in an 8-bit grey image with dlib's built-in HOG detector (no model file).
///
/// `stride` is bytes per row (>= width). Detections scoring above `threshold` (0 = dlib's own
/// threshold; negative keeps weaker ones) are written to `out`, best first, at most `capacity`
/// of them. No upsampling: faces smaller than about 80×80 pixels are not found. With `threads`
/// >= 2 the pyramid is split between the calling thread and one short-lived worker (about half
/// the wall time on two idle cores, same CPU time, identical detections). The HOG features are
/// computed by the shim (the same floats as dlib's extract_fhog_features). Thread-safe: every call
/// shares one read-only copy of the model's filters; the very first call decodes dlib's model
/// (~0.5 s of CPU), see rt_faces_prewarm.
/// Returns the number written, or -1 on bad arguments, -2 when dlib threw (out of memory).
int32_t rt_faces_detect(const uint8_t *grey, int32_t width, int32_t height, int32_t stride,
                        double threshold, int32_t threads, rt_face_box *out, int32_t capacity);

/// Decodes dlib's model so that the next rt_faces_detect does not pay for it.
/// Blocks while building; returns 0, or -2 when dlib threw.
int32_t rt_faces_prewarm(void);

#ifdef __cplusplus
}
#endif

#endif
