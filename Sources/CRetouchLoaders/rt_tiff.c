// SPDX-License-Identifier: Apache-2.0
//
// libtiff's functions as Retouch calls them, forwarded to the library loaded on first use
// (see rt_loaders.h), and the few helpers Swift cannot write itself: libtiff's client callbacks
// over memory and its error handlers take C variadic arguments.

#include <stdlib.h>

#include "rt_loaders.h"
#include "rt_load_common.h"

#define RT_TIFF_FUNCTIONS(X, V)                                                                    \
  X(TIFFOpenOptions *, TIFFOpenOptionsAlloc, (void), ())                                           \
  V(TIFFOpenOptionsFree, (TIFFOpenOptions * o), (o))                                               \
  V(TIFFOpenOptionsSetMaxSingleMemAlloc, (TIFFOpenOptions * o, tmsize_t m), (o, m))                \
  V(TIFFOpenOptionsSetErrorHandlerExtR, (TIFFOpenOptions * o, TIFFErrorHandlerExtR h, void *d),   \
    (o, h, d))                                                                                     \
  V(TIFFOpenOptionsSetWarningHandlerExtR,                                                          \
    (TIFFOpenOptions * o, TIFFErrorHandlerExtR h, void *d), (o, h, d))                             \
  X(TIFF *, TIFFClientOpenExt,                                                                     \
    (const char *n, const char *m, thandle_t h, TIFFReadWriteProc r, TIFFReadWriteProc w,          \
     TIFFSeekProc s, TIFFCloseProc c, TIFFSizeProc z, TIFFMapFileProc mp, TIFFUnmapFileProc um,    \
     TIFFOpenOptions *o),                                                                          \
    (n, m, h, r, w, s, c, z, mp, um, o))                                                           \
  V(TIFFClose, (TIFF * t), (t))                                                                    \
  X(tmsize_t, TIFFReadEncodedStrip, (TIFF * t, uint32_t s, void *b, tmsize_t n), (t, s, b, n))     \
  X(tmsize_t, TIFFReadEncodedTile, (TIFF * t, uint32_t s, void *b, tmsize_t n), (t, s, b, n))      \
  X(uint32_t, TIFFComputeStrip, (TIFF * t, uint32_t r, uint16_t s), (t, r, s))                     \
  X(uint32_t, TIFFComputeTile, (TIFF * t, uint32_t x, uint32_t y, uint32_t z, uint16_t s),         \
    (t, x, y, z, s))                                                                               \
  X(int, TIFFRGBAImageOK, (TIFF * t, char m[1024]), (t, m))                                        \
  X(int, TIFFRGBAImageBegin, (TIFFRGBAImage * i, TIFF *t, int s, char m[1024]), (i, t, s, m))      \
  X(int, TIFFRGBAImageGet, (TIFFRGBAImage * i, uint32_t *r, uint32_t w, uint32_t h), (i, r, w, h)) \
  V(TIFFRGBAImageEnd, (TIFFRGBAImage * i), (i))

RT_DEFINE_LOADER(tiff, RT_TIFF_FUNCTIONS, RT_TIFF_LIBRARY_NAMES)

struct rt_tiff_file {
  TIFF *tiff;
  const uint8_t *data;
  uint64_t size;
  uint64_t position;
  int errors;
  char message[512];
};

static tmsize_t rt_tiff_read(thandle_t handle, void *buffer, tmsize_t count) {
  struct rt_tiff_file *f = handle;
  if (count <= 0 || f->position >= f->size) return 0;
  uint64_t n = f->size - f->position;
  if ((uint64_t)count < n) n = (uint64_t)count;
  memcpy(buffer, f->data + f->position, (size_t)n);
  f->position += n;
  return (tmsize_t)n;
}

static tmsize_t rt_tiff_write(thandle_t handle, void *buffer, tmsize_t count) {
  (void)handle, (void)buffer, (void)count;
  return -1;
}

static toff_t rt_tiff_seek(thandle_t handle, toff_t offset, int whence) {
  struct rt_tiff_file *f = handle;
  uint64_t base = whence == SEEK_CUR ? f->position : whence == SEEK_END ? f->size : 0;
  if (whence != SEEK_SET && whence != SEEK_CUR && whence != SEEK_END) return (toff_t)-1;
  // Offsets past the end are allowed (reads there return nothing), as for a file.
  f->position = base + offset;
  return f->position;
}

static int rt_tiff_close_nothing(thandle_t handle) {
  (void)handle;
  return 0;
}

static toff_t rt_tiff_size(thandle_t handle) { return ((struct rt_tiff_file *)handle)->size; }

static int rt_tiff_map(thandle_t handle, void **base, toff_t *size) {
  struct rt_tiff_file *f = handle;
  *base = (void *)f->data;
  *size = f->size;
  return 1;
}

static void rt_tiff_unmap(thandle_t handle, void *base, toff_t size) {
  (void)handle, (void)base, (void)size;
}

static int rt_tiff_on_error(
    TIFF *tiff, void *user, const char *module, const char *format, va_list args) {
  (void)tiff;
  struct rt_tiff_file *f = user;
  if (f->errors++ == 0) {
    int n = module && *module ? snprintf(f->message, sizeof f->message, "%s: ", module) : 0;
    if (n < 0 || (size_t)n >= sizeof f->message) n = 0;
    vsnprintf(f->message + n, sizeof f->message - (size_t)n, format, args);
  }
  return 1;
}

static int rt_tiff_on_warning(
    TIFF *tiff, void *user, const char *module, const char *format, va_list args) {
  (void)tiff, (void)user, (void)module, (void)format, (void)args;
  return 1;  // warnings (unknown tags and the like) are not worth a user's attention
}

rt_tiff_file *rt_tiff_open_memory(const void *data, size_t size, int64_t max_allocation) {
  struct rt_tiff_file *f = calloc(1, sizeof *f);
  if (!f) return NULL;
  f->data = data;
  f->size = size;
  TIFFOpenOptions *options = TIFFOpenOptionsAlloc();
  if (!options) {
    snprintf(f->message, sizeof f->message, "libtiff ran out of memory");
    return f;
  }
  TIFFOpenOptionsSetMaxSingleMemAlloc(options, (tmsize_t)max_allocation);
  TIFFOpenOptionsSetErrorHandlerExtR(options, rt_tiff_on_error, f);
  TIFFOpenOptionsSetWarningHandlerExtR(options, rt_tiff_on_warning, f);
  f->tiff = TIFFClientOpenExt(
      "TIFF", "r", f, rt_tiff_read, rt_tiff_write, rt_tiff_seek, rt_tiff_close_nothing,
      rt_tiff_size, rt_tiff_map, rt_tiff_unmap, options);
  TIFFOpenOptionsFree(options);
  return f;
}

TIFF *rt_tiff_handle(const rt_tiff_file *file) { return file->tiff; }

const char *rt_tiff_message(const rt_tiff_file *file) { return file->message; }

int rt_tiff_error_count(const rt_tiff_file *file) { return file->errors; }

void rt_tiff_close(rt_tiff_file *file) {
  if (!file) return;
  if (file->tiff) TIFFClose(file->tiff);
  free(file);
}

int rt_tiff_read_rgba(
    rt_tiff_file *file, uint32_t *raster, uint32_t width, uint32_t height, int stop_on_error,
    int *alpha) {
  char why[1024] = "";
  TIFFRGBAImage image;
  *alpha = 0;
  if (!TIFFRGBAImageOK(file->tiff, why) ||
      !TIFFRGBAImageBegin(&image, file->tiff, stop_on_error, why)) {
    snprintf(file->message, sizeof file->message, "%s", why);
    return -1;
  }
  // Asking for the file's own orientation makes libtiff flip nothing: Retouch applies the
  // orientation itself, as for every other format.
  image.req_orientation = image.orientation;
  *alpha = image.alpha == EXTRASAMPLE_ASSOCALPHA   ? 1
           : image.alpha == EXTRASAMPLE_UNASSALPHA ? 2
                                                   : 0;
  int errors = file->errors;
  int ok = TIFFRGBAImageGet(&image, raster, width, height);
  TIFFRGBAImageEnd(&image);
  return ok && file->errors == errors;
}
