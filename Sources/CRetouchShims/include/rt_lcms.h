// SPDX-License-Identifier: Apache-2.0
// lcms2 pieces Swift cannot import: the TYPE_* / INTENT_* / cmsFLAGS_* macros, and an error
// handler that records lcms's message in a buffer instead of printing it. Handles are passed as
// void * so this header does not pull <lcms2.h> into a second Clang module.
#pragma once
#include <stdint.h>

// Pixel formats (lcms2.h TYPE_* macros).
extern const uint32_t rt_lcms_TYPE_RGB_8;
extern const uint32_t rt_lcms_TYPE_RGBA_8;
extern const uint32_t rt_lcms_TYPE_RGB_16;
extern const uint32_t rt_lcms_TYPE_RGBA_16;
extern const uint32_t rt_lcms_TYPE_RGB_FLT;
// Rendering intent and transform flags.
extern const uint32_t rt_lcms_INTENT_RELATIVE_COLORIMETRIC;
extern const uint32_t rt_lcms_FLAGS_BLACKPOINTCOMPENSATION;
extern const uint32_t rt_lcms_FLAGS_COPY_ALPHA;
extern const uint32_t rt_lcms_FLAGS_NOCACHE;
extern const uint32_t rt_lcms_FLAGS_NOOPTIMIZE;
extern const uint32_t rt_lcms_FLAGS_HIGHRESPRECALC;

// What lcms reported through its log-error callback: the first message and the error count.
typedef struct rt_lcms_log {
  char message[256];
  uint32_t error_code;
  int count;
} rt_lcms_log;

// Creates an lcms context (a cmsContext) whose log-error handler records into `log`, which must
// outlive the context. Returns NULL when lcms cannot allocate it.
void *rt_lcms_context_create(rt_lcms_log *log);

// Deletes a context made by rt_lcms_context_create (NULL is ignored).
void rt_lcms_context_delete(void *context);
