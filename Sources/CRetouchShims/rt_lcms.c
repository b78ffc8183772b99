// SPDX-License-Identifier: Apache-2.0
#include "rt_lcms.h"
#include <lcms2.h>
#include <string.h>

const uint32_t rt_lcms_TYPE_RGB_8 = TYPE_RGB_8;
const uint32_t rt_lcms_TYPE_RGBA_8 = TYPE_RGBA_8;
const uint32_t rt_lcms_TYPE_RGB_16 = TYPE_RGB_16;
const uint32_t rt_lcms_TYPE_RGBA_16 = TYPE_RGBA_16;
const uint32_t rt_lcms_TYPE_RGB_FLT = TYPE_RGB_FLT;
const uint32_t rt_lcms_INTENT_RELATIVE_COLORIMETRIC = INTENT_RELATIVE_COLORIMETRIC;
const uint32_t rt_lcms_FLAGS_BLACKPOINTCOMPENSATION = cmsFLAGS_BLACKPOINTCOMPENSATION;
const uint32_t rt_lcms_FLAGS_COPY_ALPHA = cmsFLAGS_COPY_ALPHA;
const uint32_t rt_lcms_FLAGS_NOCACHE = cmsFLAGS_NOCACHE;
const uint32_t rt_lcms_FLAGS_NOOPTIMIZE = cmsFLAGS_NOOPTIMIZE;
const uint32_t rt_lcms_FLAGS_HIGHRESPRECALC = cmsFLAGS_HIGHRESPRECALC;

// Keeps the first message (the root cause) and counts the rest; never prints.
static void rt_lcms_record(cmsContext context, cmsUInt32Number code, const char *text) {
  rt_lcms_log *log = (rt_lcms_log *)cmsGetContextUserData(context);
  if (log == NULL) return;
  if (log->count == 0) {
    log->error_code = code;
    if (text != NULL) {
      strncpy(log->message, text, sizeof(log->message) - 1);
      log->message[sizeof(log->message) - 1] = '\0';
    }
  }
  log->count += 1;
}

void *rt_lcms_context_create(rt_lcms_log *log) {
  if (log != NULL) memset(log, 0, sizeof(*log));
  cmsContext context = cmsCreateContext(NULL, log);
  if (context == NULL) return NULL;
  cmsSetLogErrorHandlerTHR(context, rt_lcms_record);
  return context;
}

void rt_lcms_context_delete(void *context) {
  if (context != NULL) cmsDeleteContext((cmsContext)context);
}
