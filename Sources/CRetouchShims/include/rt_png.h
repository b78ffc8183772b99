// SPDX-License-Identifier: Apache-2.0
// PNG through libpng's full API. Every entry point arms its own setjmp; libpng's error callback
// longjmps back into that same C entry point, never across a Swift frame. Warnings and errors
// are stored in the reader/encoder state instead of being printed.
#pragma once
#include <stddef.h>
#include <stdint.h>

/// State of one PNG decode. Swift allocates it (zeroed), the shim fills it; the metadata
/// pointers point into libpng's own storage and stay valid until rt_png_reader_destroy.
typedef struct rt_png_reader {
  // Input (set by rt_png_reader_open).
  const unsigned char *data;
  size_t size;
  size_t position;
  void *png;   // png_structp
  void *info;  // png_infop

  // IHDR.
  uint32_t width;
  uint32_t height;
  int bit_depth;   // 1, 2, 4, 8 or 16 as stored
  int color_type;  // PNG_COLOR_TYPE_*
  int interlaced;  // 1 for Adam7
  /// Output components per pixel after expansion: 3 (RGB) or 4 (RGBA: alpha channel or tRNS).
  int out_channels;

  // Colour signals. Without iCCP the pixels are taken as sRGB; these say what the file claimed.
  int has_srgb;
  int has_gamma;
  double gamma;  // file gamma (e.g. 0.45455), valid when has_gamma
  int has_chrm;

  // Metadata found so far (refreshed by rt_png_reader_finish for chunks after IDAT).
  const unsigned char *icc;
  size_t icc_length;
  const unsigned char *exif;
  size_t exif_length;
  const unsigned char *xmp;
  size_t xmp_length;

  // Progress and diagnostics.
  uint32_t rows_done;    // complete output rows (final pass for interlaced images)
  int ran_out_of_data;   // libpng asked for bytes past the end of the input
  int warning_count;
  char warnings[1024];   // newline-separated libpng warnings (first ones kept)
  char error[256];       // libpng's error message when a call returns -1
} rt_png_reader;

/// Checks the signature, reads every chunk up to the first IDAT and fills the IHDR fields, the
/// colour signals and the metadata. Returns 0, or -1 with `error` set (and `ran_out_of_data`
/// when the input stopped early). The reader must be destroyed either way.
int rt_png_reader_open(rt_png_reader *reader, const void *data, size_t size);

/// Decodes the pixels into `pixels` (height rows of `row_bytes`, RGB or RGBA as out_channels
/// says, 8 bits, or 16 bits native-endian when `keep16` and the file is 16-bit). Rows already
/// decoded stay in `pixels` when it fails; `rows_done` counts them. Returns 0 or -1.
int rt_png_reader_read_image(rt_png_reader *reader, void *pixels, size_t row_bytes, int keep16);

/// Reads the chunks after the image data (text, eXIf) up to IEND. Returns 0 or -1.
int rt_png_reader_finish(rt_png_reader *reader);

/// Frees libpng's structures; the reader's metadata pointers become invalid.
void rt_png_reader_destroy(rt_png_reader *reader);

/// What rt_png_encode needs; pointers are borrowed for the duration of the call.
typedef struct rt_png_encode_params {
  const void *pixels;    // packed rows, top first; 16-bit components native-endian
  uint32_t width;
  uint32_t height;
  int channels;          // 3 or 4
  int in_depth;          // 8 or 16
  int out_depth;         // 8 or 16
  int compression_level; // zlib level 0...9
  const void *icc;       // iCCP, or NULL
  size_t icc_length;
  const char *icc_name;  // 1...79 Latin-1 characters
  const void *exif;      // eXIf (TIFF structure), or NULL
  size_t exif_length;
  const char *xmp;       // NUL-terminated XMP packet for iTXt XML:com.adobe.xmp, or NULL
} rt_png_encode_params;

/// Encodes a PNG into a malloc'd buffer (`*out`, `*out_length`; free with rt_png_free).
/// Returns 0, or -1 with `error` (NUL-terminated, at most `error_capacity` bytes) set.
int rt_png_encode(const rt_png_encode_params *params, unsigned char **out, size_t *out_length,
                  char *error, size_t error_capacity);

/// Frees a buffer returned by rt_png_encode.
void rt_png_free(void *pointer);
