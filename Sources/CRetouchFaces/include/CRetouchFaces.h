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
/// >= 2 the pyramid's levels are shared between the calling thread and one short-lived worker
/// (about half the wall time on two idle cores, same CPU time, identical detections). The HOG
/// features are computed by the shim (the same floats as dlib's extract_fhog_features).
/// Thread-safe: every call shares one read-only copy of the model's filters; the very first call
/// decodes dlib's model (~0.5 s of CPU), see rt_faces_prewarm.
/// Returns the number written, or -1 on bad arguments, -2 when dlib threw (out of memory).
int32_t rt_faces_detect(const uint8_t *grey, int32_t width, int32_t height, int32_t stride,
                        double threshold, int32_t threads, rt_face_box *out, int32_t capacity);

/// One search shared between threads: the thread that starts it builds the image pyramid, then
/// any thread may help scan its levels (each level is scanned by one thread, the largest first),
/// and the starting thread finishes it. The detections are those of rt_faces_detect, whoever
/// scanned which level.
typedef struct rt_face_search rt_face_search;

/// A search not started yet, or NULL when out of memory. Decodes dlib's model on first use.
rt_face_search *rt_faces_search_create(void);

/// Promises that the calling thread, already running, will call rt_faces_search_start or
/// rt_faces_search_close on `search`: from then on a helper waits for the start rather than
/// returning. Without the promise a helper may be the only thread running (a single core), so
/// it must not wait.
void rt_faces_search_expect(rt_face_search *search);

/// Copies `grey` (as for rt_faces_detect) and builds its pyramid; from then on helpers may scan.
/// Call once. Returns 0, -1 on bad arguments or a second call, -2 when out of memory; on failure
/// the search is closed (waiting helpers return).
int32_t rt_faces_search_start(rt_face_search *search, const uint8_t *grey, int32_t width,
                              int32_t height, int32_t stride, double threshold);

/// Gives up a promised start: helpers waiting for it return.
void rt_faces_search_close(rt_face_search *search);

/// Scans levels no thread has taken yet until none is left, and returns how many it scanned.
/// When the search has not started, it waits for the start if one was promised
/// (rt_faces_search_expect), else returns 0 at once; so too when the search was closed.
int32_t rt_faces_search_help(rt_face_search *search);

/// Scans what is left, waits for the levels helpers took, and writes the detections as
/// rt_faces_detect does. Returns their number, -1 on bad arguments or a search that was not
/// started, -2 when out of memory.
int32_t rt_faces_search_finish(rt_face_search *search, rt_face_box *out, int32_t capacity);

/// Frees a search. Only once every rt_faces_search_help and rt_faces_search_finish call on it
/// has returned.
void rt_faces_search_destroy(rt_face_search *search);

/// Decodes dlib's model so that the next rt_faces_detect does not pay for it.
/// Blocks while building; returns 0, or -2 when dlib threw.
int32_t rt_faces_prewarm(void);

#ifdef __cplusplus
}
#endif

#endif
