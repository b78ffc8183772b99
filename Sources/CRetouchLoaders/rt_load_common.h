// SPDX-License-Identifier: Apache-2.0
//
// The machinery behind rt_heif_load(), rt_microhttpd_load(), rt_webp_load() and
// rt_tiff_load(): for each function of a list, a pointer filled by dlsym and a definition under
// the library's own name that calls through it; and a load function that opens the first
// library name that exists, once per process.

#ifndef RT_LOAD_COMMON_H
#define RT_LOAD_COMMON_H

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#if defined(__APPLE__)
#define RT_HEIF_LIBRARY_NAMES                                                                      \
  { "libheif.1.dylib", "/opt/homebrew/lib/libheif.1.dylib", "/usr/local/lib/libheif.1.dylib" }
#define RT_MICROHTTPD_LIBRARY_NAMES                                                                \
  { "libmicrohttpd.12.dylib", "/opt/homebrew/lib/libmicrohttpd.12.dylib",                          \
    "/usr/local/lib/libmicrohttpd.12.dylib" }
#define RT_WEBP_LIBRARY_NAMES                                                                      \
  { "libwebp.7.dylib", "/opt/homebrew/lib/libwebp.7.dylib", "/usr/local/lib/libwebp.7.dylib" }
#define RT_TIFF_LIBRARY_NAMES                                                                      \
  { "libtiff.6.dylib", "/opt/homebrew/lib/libtiff.6.dylib", "/usr/local/lib/libtiff.6.dylib" }
#else
#define RT_HEIF_LIBRARY_NAMES { "libheif.so.1", "libheif.so" }
#define RT_MICROHTTPD_LIBRARY_NAMES { "libmicrohttpd.so.12", "libmicrohttpd.so" }
#define RT_WEBP_LIBRARY_NAMES { "libwebp.so.7", "libwebp.so" }
#define RT_TIFF_LIBRARY_NAMES { "libtiff.so.6", "libtiff.so" }
#endif

#define RT_POINTER(type, name, params, args) static type(*rt_##name) params;
#define RT_POINTER_VOID(name, params, args) static void(*rt_##name) params;
#define RT_FORWARDER(type, name, params, args)                                                     \
  type name params { return rt_##name args; }
#define RT_FORWARDER_VOID(name, params, args)                                                      \
  void name params { rt_##name args; }
#define RT_RESOLVE_VOID(name, params, args) RT_RESOLVE(void, name, params, args)
#define RT_RESOLVE(type, name, params, args)                                                       \
  if (!failed) {                                                                                   \
    *(void **)(&rt_##name) = dlsym(handle, #name);                                                 \
    if (!rt_##name) {                                                                              \
      snprintf(reason, sizeof reason, "%s has no %s", opened, #name);                              \
      failed = 1;                                                                                  \
    }                                                                                              \
  }

// Defines rt_<library>_load(), the pointers and the forwarders for `FUNCTIONS(X, V)`.
#define RT_DEFINE_LOADER(library, FUNCTIONS, NAMES)                                                \
  FUNCTIONS(RT_POINTER, RT_POINTER_VOID)                                                           \
  FUNCTIONS(RT_FORWARDER, RT_FORWARDER_VOID)                                                       \
  static pthread_once_t rt_##library##_once = PTHREAD_ONCE_INIT;                                   \
  static const char *rt_##library##_failure;                                                       \
  static void rt_##library##_open(void) {                                                          \
    static const char *const names[] = NAMES;                                                      \
    static char reason[512];                                                                       \
    const char *opened = NULL;                                                                     \
    void *handle = NULL;                                                                           \
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !handle; i++) {                       \
      handle = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);                                            \
      if (handle) {                                                                                \
        opened = names[i];                                                                         \
      } else if (i == 0) {                                                                         \
        const char *error = dlerror();                                                             \
        snprintf(reason, sizeof reason, "%s", error ? error : "cannot be opened");                 \
      }                                                                                            \
    }                                                                                              \
    int failed = handle == NULL;                                                                   \
    FUNCTIONS(RT_RESOLVE, RT_RESOLVE_VOID)                                                         \
    rt_##library##_failure = failed ? reason : NULL;                                               \
  }                                                                                                \
  const char *rt_##library##_load(void) {                                                          \
    pthread_once(&rt_##library##_once, rt_##library##_open);                                       \
    return rt_##library##_failure;                                                                 \
  }

#endif
