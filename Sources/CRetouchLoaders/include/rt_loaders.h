// SPDX-License-Identifier: Apache-2.0
//
// libheif, libmicrohttpd, libwebp and libtiff, loaded on first use instead of at process start.
//
// Linked the usual way, the two libraries and what they pull in (x265, libde265, dav1d, aom;
// gnutls and its helpers) were a third of every `retouch` command's start-up: loading them and
// resolving their symbols took about 12 ms of 26 on the 2-core build machine, for commands that
// never read a HEIF file or serve a page. libwebp and libtiff are loaded the same way, so that
// reading WebP or TIFF costs nothing to the commands that never see one. This target defines
// the functions of these libraries that Retouch calls, under their own names, as forwarders to
// the real ones, which rt_heif_load(), rt_microhttpd_load(), rt_webp_load() and rt_tiff_load()
// look up with dlopen/dlsym the first time.
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

#include <tiffio.h>

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

/// The same for libtiff (decoding only: Retouch writes TIFF itself).
const char *rt_tiff_load(void);

/// A TIFF file read from memory, with the first error libtiff reported about it.
typedef struct rt_tiff_file rt_tiff_file;

/// Opens the TIFF structure in `data` (which must outlive the file) without copying it: libtiff
/// reads strips straight from that memory. No single allocation of libtiff's may exceed
/// `max_allocation` bytes. Returns NULL only when out of memory; otherwise check
/// rt_tiff_handle() for NULL (the file was refused) and rt_tiff_message() for why.
rt_tiff_file *rt_tiff_open_memory(const void *data, size_t size, int64_t max_allocation);

/// The open libtiff handle, or NULL when opening failed. Call rt_tiff_load() first.
TIFF *rt_tiff_handle(const rt_tiff_file *file);

/// The first error libtiff reported for this file ("" when none), and how many it reported.
const char *rt_tiff_message(const rt_tiff_file *file);
int rt_tiff_error_count(const rt_tiff_file *file);

/// Closes the handle and frees the file.
void rt_tiff_close(rt_tiff_file *file);

/// Decodes the current directory through libtiff's RGBA interface into `raster` (`width` ×
/// `height` packed R, G, B, A bytes, rows in stored order: the orientation is not applied).
/// Stops at the first broken strip or tile when `stop_on_error`, otherwise goes on past it.
/// `alpha` receives 0 (none), 1 (associated: the raster is premultiplied) or 2 (unassociated,
/// which libtiff also premultiplies). Returns 1 when every part decoded, 0 when some did not,
/// -1 when libtiff cannot render this kind of image at all (rt_tiff_message() says why).
int rt_tiff_read_rgba(
    rt_tiff_file *file, uint32_t *raster, uint32_t width, uint32_t height, int stop_on_error,
    int *alpha);

#ifdef __cplusplus
}
#endif

#endif
