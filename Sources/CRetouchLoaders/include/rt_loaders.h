// SPDX-License-Identifier: Apache-2.0
//
// libheif, libmicrohttpd and libwebp, loaded on first use instead of at process start.
//
// Linked the usual way, the two libraries and what they pull in (x265, libde265, dav1d, aom;
// gnutls and its helpers) were a third of every `retouch` command's start-up: loading them and
// resolving their symbols took about 12 ms of 26 on the 2-core build machine, for commands that
// never read a HEIF file or serve a page. libwebp is loaded the same way, so that reading WebP
// costs nothing to the commands that never see one. This target defines the functions of these
// libraries that Retouch calls, under their own names, as forwarders to the real ones, which
// rt_heif_load(), rt_microhttpd_load() and rt_webp_load() look up with dlopen/dlsym the first
// time.
//
// Call the matching load function, and check that it returned NULL, before any other function
// of that library. Both are safe to call from any thread and any number of times.
#ifndef RT_LOADERS_H
#define RT_LOADERS_H

#include <stddef.h>

#include <libheif/heif.h>

#include <stdarg.h>
#include <stdint.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <microhttpd.h>

#include <webp/decode.h>
#include <webp/encode.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Loads libheif and resolves every function Retouch uses. Returns NULL when they are all
/// there, otherwise why not (a string that lives as long as the process).
const char *rt_heif_load(void);

/// The same for libmicrohttpd.
const char *rt_microhttpd_load(void);

/// The same for libwebp (decoding and encoding).
const char *rt_webp_load(void);

#ifdef __cplusplus
}
#endif

#endif
