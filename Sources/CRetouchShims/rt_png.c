// SPDX-License-Identifier: Apache-2.0
#include "rt_png.h"

#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char xmp_keyword[] = "XML:com.adobe.xmp";

static int is_little_endian(void) {
  const uint16_t one = 1;
  return *(const uint8_t *)&one == 1;
}

// MARK: - Reading

static void reader_error(png_structp png, png_const_charp message) {
  rt_png_reader *r = (rt_png_reader *)png_get_error_ptr(png);
  snprintf(r->error, sizeof r->error, "%s", message ? message : "unknown libpng error");
  // Back to the setjmp armed by the shim entry point that called into libpng (a C frame).
  png_longjmp(png, 1);
}

static void reader_warning(png_structp png, png_const_charp message) {
  rt_png_reader *r = (rt_png_reader *)png_get_error_ptr(png);
  r->warning_count += 1;
  size_t used = strlen(r->warnings);
  size_t room = sizeof r->warnings - used;
  if (room > 2 && message) {
    snprintf(r->warnings + used, room, "%s%s", used ? "\n" : "", message);
  }
}

static void reader_read(png_structp png, png_bytep out, size_t length) {
  rt_png_reader *r = (rt_png_reader *)png_get_io_ptr(png);
  if (r->size - r->position < length) {
    r->ran_out_of_data = 1;
    png_error(png, "unexpected end of data");
  }
  memcpy(out, r->data + r->position, length);
  r->position += length;
}

static void collect_metadata(rt_png_reader *r) {
  png_structp png = (png_structp)r->png;
  png_infop info = (png_infop)r->info;

  png_charp name = NULL;
  int compression = 0;
  png_bytep profile = NULL;
  png_uint_32 profile_length = 0;
  if (png_get_iCCP(png, info, &name, &compression, &profile, &profile_length) & PNG_INFO_iCCP) {
    r->icc = profile;
    r->icc_length = profile_length;
  }

  png_uint_32 exif_length = 0;
  png_bytep exif = NULL;
  if ((png_get_eXIf_1(png, info, &exif_length, &exif) & PNG_INFO_eXIf) && exif) {
    r->exif = exif;
    r->exif_length = exif_length;
  }

  png_textp text = NULL;
  int count = 0;
  if (r->xmp == NULL && png_get_text(png, info, &text, &count) > 0 && text) {
    for (int i = 0; i < count; i++) {
      if (text[i].key == NULL || text[i].text == NULL) continue;
      if (strcmp(text[i].key, xmp_keyword) != 0) continue;
      int international = text[i].compression == PNG_ITXT_COMPRESSION_NONE ||
                          text[i].compression == PNG_ITXT_COMPRESSION_zTXt;
      r->xmp = (const unsigned char *)text[i].text;
      r->xmp_length = international ? text[i].itxt_length : text[i].text_length;
      break;
    }
  }

  r->has_srgb = png_get_valid(png, info, PNG_INFO_sRGB) ? 1 : 0;
  r->has_chrm = png_get_valid(png, info, PNG_INFO_cHRM) ? 1 : 0;
  double gamma = 0;
  if (png_get_gAMA(png, info, &gamma) & PNG_INFO_gAMA) {
    r->has_gamma = 1;
    r->gamma = gamma;
  }
}

int rt_png_reader_open(rt_png_reader *r, const void *data, size_t size) {
  r->data = (const unsigned char *)data;
  r->size = size;
  r->position = 0;
  if (size < 8 || png_sig_cmp((png_const_bytep)data, 0, 8) != 0) {
    snprintf(r->error, sizeof r->error, "no PNG signature");
    return -1;
  }
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, r, reader_error, reader_warning);
  if (png == NULL) {
    snprintf(r->error, sizeof r->error, "libpng could not allocate its read structure");
    return -1;
  }
  r->png = png;
  png_infop info = png_create_info_struct(png);
  if (info == NULL) {
    snprintf(r->error, sizeof r->error, "libpng could not allocate its info structure");
    return -1;
  }
  r->info = info;
  if (setjmp(png_jmpbuf(png))) return -1;

  png_set_read_fn(png, r, reader_read);
  // The caller checks width × height against its own pixel limit (and reports "too large"),
  // so lift libpng's 1,000,000-pixel-per-side default up to the format's own 2^31 - 1.
  png_set_user_limits(png, PNG_UINT_31_MAX, PNG_UINT_31_MAX);
  // Profiles are passed on as bytes; libpng's sRGB-profile fingerprinting only adds warnings.
  png_set_option(png, PNG_SKIP_sRGB_CHECK_PROFILE, PNG_OPTION_ON);
  png_read_info(png, info);

  png_uint_32 width = 0, height = 0;
  int bit_depth = 0, color_type = 0, interlace = 0;
  png_get_IHDR(png, info, &width, &height, &bit_depth, &color_type, &interlace, NULL, NULL);
  r->width = width;
  r->height = height;
  r->bit_depth = bit_depth;
  r->color_type = color_type;
  r->interlaced = interlace == PNG_INTERLACE_ADAM7;
  int alpha = (color_type & PNG_COLOR_MASK_ALPHA) || png_get_valid(png, info, PNG_INFO_tRNS);
  r->out_channels = alpha ? 4 : 3;
  collect_metadata(r);
  return 0;
}

int rt_png_reader_read_image(rt_png_reader *r, void *pixels, size_t row_bytes, int keep16) {
  png_structp png = (png_structp)r->png;
  png_infop info = (png_infop)r->info;
  if (png == NULL || info == NULL) {
    snprintf(r->error, sizeof r->error, "reader is not open");
    return -1;
  }
  if (setjmp(png_jmpbuf(png))) return -1;

  // Palette → RGB, grey below 8 bits → 8 bits, tRNS → a full alpha channel.
  png_set_expand(png);
  if (!(r->color_type & PNG_COLOR_MASK_COLOR)) png_set_gray_to_rgb(png);
  if (r->bit_depth == 16) {
    if (!keep16) {
      png_set_scale_16(png);  // rounds (v × 255 + 32767) / 65535, unlike strip_16
    } else if (is_little_endian()) {
      png_set_swap(png);  // PNG stores big-endian; Image wants native
    }
  }
  int passes = png_set_interlace_handling(png);
  png_read_update_info(png, info);
  if ((int)png_get_channels(png, info) != r->out_channels ||
      png_get_rowbytes(png, info) > row_bytes) {
    png_error(png, "unexpected row layout after expansion");
  }

  unsigned char *base = (unsigned char *)pixels;
  for (int pass = 0; pass < passes; pass++) {
    for (png_uint_32 y = 0; y < r->height; y++) {
      png_read_row(png, base + (size_t)y * row_bytes, NULL);
      if (pass == passes - 1) r->rows_done = y + 1;
    }
  }
  return 0;
}

int rt_png_reader_finish(rt_png_reader *r) {
  png_structp png = (png_structp)r->png;
  png_infop info = (png_infop)r->info;
  if (png == NULL || info == NULL) {
    snprintf(r->error, sizeof r->error, "reader is not open");
    return -1;
  }
  if (setjmp(png_jmpbuf(png))) return -1;
  png_read_end(png, info);
  collect_metadata(r);
  return 0;
}

void rt_png_reader_destroy(rt_png_reader *r) {
  png_structp png = (png_structp)r->png;
  png_infop info = (png_infop)r->info;
  if (png != NULL) png_destroy_read_struct(&png, info ? &info : NULL, NULL);
  r->png = NULL;
  r->info = NULL;
  r->icc = r->exif = r->xmp = NULL;
  r->icc_length = r->exif_length = r->xmp_length = 0;
}

// MARK: - Writing

typedef struct encode_state {
  unsigned char *buffer;
  size_t length;
  size_t capacity;
  unsigned char *row;  // conversion row when in_depth != out_depth
  char *error;
  size_t error_capacity;
  char last_warning[200];
} encode_state;

static void writer_error(png_structp png, png_const_charp message) {
  encode_state *s = (encode_state *)png_get_error_ptr(png);
  if (s->error_capacity > 0) {
    if (s->last_warning[0]) {
      snprintf(s->error, s->error_capacity, "%s (%s)", message ? message : "libpng error",
               s->last_warning);
    } else {
      snprintf(s->error, s->error_capacity, "%s", message ? message : "libpng error");
    }
  }
  png_longjmp(png, 1);
}

static void writer_warning(png_structp png, png_const_charp message) {
  encode_state *s = (encode_state *)png_get_error_ptr(png);
  snprintf(s->last_warning, sizeof s->last_warning, "%s", message ? message : "");
}

static void writer_write(png_structp png, png_bytep data, size_t length) {
  encode_state *s = (encode_state *)png_get_io_ptr(png);
  if (s->capacity - s->length < length) {
    size_t needed = s->length + length;
    if (needed < s->length) png_error(png, "output size overflows");
    size_t capacity = s->capacity ? s->capacity : 65536;
    while (capacity < needed) {
      if (capacity > SIZE_MAX / 2) png_error(png, "output size overflows");
      capacity *= 2;
    }
    unsigned char *grown = (unsigned char *)realloc(s->buffer, capacity);
    if (grown == NULL) png_error(png, "out of memory for the output");
    s->buffer = grown;
    s->capacity = capacity;
  }
  memcpy(s->buffer + s->length, data, length);
  s->length += length;
}

static void writer_flush(png_structp png) { (void)png; }

static int encode_with(const rt_png_encode_params *p, encode_state *s, png_structp png,
                       png_infop info) {
  if (setjmp(png_jmpbuf(png))) return -1;

  png_set_write_fn(png, s, writer_write, writer_flush);
  png_set_option(png, PNG_SKIP_sRGB_CHECK_PROFILE, PNG_OPTION_ON);
  png_set_IHDR(png, info, p->width, p->height, p->out_depth,
               p->channels == 4 ? PNG_COLOR_TYPE_RGB_ALPHA : PNG_COLOR_TYPE_RGB,
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_BASE, PNG_FILTER_TYPE_BASE);
  png_set_compression_level(png, p->compression_level);
  png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_ALL_FILTERS);

  if (p->icc != NULL && p->icc_length > 0) {
    png_set_iCCP(png, info, p->icc_name, PNG_COMPRESSION_TYPE_BASE, (png_const_bytep)p->icc,
                 (png_uint_32)p->icc_length);
    if (!png_get_valid(png, info, PNG_INFO_iCCP)) png_error(png, "libpng rejected the ICC profile");
  }
  if (p->exif != NULL && p->exif_length > 0) {
    png_set_eXIf_1(png, info, (png_uint_32)p->exif_length, (png_bytep)p->exif);
  }
  if (p->xmp != NULL) {
    png_text text;
    memset(&text, 0, sizeof text);
    text.compression = PNG_ITXT_COMPRESSION_NONE;
    text.key = (png_charp)xmp_keyword;
    text.text = (png_charp)p->xmp;
    text.itxt_length = strlen(p->xmp);
    text.lang = (png_charp) "";
    text.lang_key = (png_charp) "";
    png_set_text(png, info, &text, 1);
  }
  png_write_info(png, info);
  if (p->out_depth == 16 && is_little_endian()) png_set_swap(png);

  size_t components = (size_t)p->width * (size_t)p->channels;
  size_t in_row_bytes = components * (size_t)(p->in_depth / 8);
  const unsigned char *src = (const unsigned char *)p->pixels;
  for (png_uint_32 y = 0; y < p->height; y++) {
    const unsigned char *row = src + (size_t)y * in_row_bytes;
    if (p->in_depth == p->out_depth) {
      png_write_row(png, row);
    } else if (p->in_depth == 16) {
      const uint16_t *in = (const uint16_t *)(const void *)row;
      for (size_t i = 0; i < components; i++) {
        s->row[i] = (unsigned char)(((uint32_t)in[i] * 255u + 32767u) / 65535u);
      }
      png_write_row(png, s->row);
    } else {
      uint16_t *out = (uint16_t *)(void *)s->row;
      for (size_t i = 0; i < components; i++) out[i] = (uint16_t)(row[i] * 257u);
      png_write_row(png, s->row);
    }
  }
  // Every chunk went out before IDAT. Passing NULL writes IEND alone: libpng 1.6.39 would write
  // eXIf a second time from `info` here.
  png_write_end(png, NULL);
  return 0;
}

int rt_png_encode(const rt_png_encode_params *p, unsigned char **out, size_t *out_length,
                  char *error, size_t error_capacity) {
  *out = NULL;
  *out_length = 0;
  if (error_capacity > 0) error[0] = 0;
  if ((p->channels != 3 && p->channels != 4) || (p->in_depth != 8 && p->in_depth != 16) ||
      (p->out_depth != 8 && p->out_depth != 16) || p->width == 0 || p->height == 0) {
    snprintf(error, error_capacity, "unsupported layout");
    return -1;
  }
  encode_state s;
  memset(&s, 0, sizeof s);
  s.error = error;
  s.error_capacity = error_capacity;
  if (p->in_depth != p->out_depth) {
    s.row = (unsigned char *)malloc((size_t)p->width * (size_t)p->channels * 2);
    if (s.row == NULL) {
      snprintf(error, error_capacity, "out of memory for a row");
      return -1;
    }
  }
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &s, writer_error,
                                            writer_warning);
  png_infop info = png ? png_create_info_struct(png) : NULL;
  int status = -1;
  if (png == NULL || info == NULL) {
    snprintf(error, error_capacity, "libpng could not allocate its write structures");
  } else {
    status = encode_with(p, &s, png, info);
  }
  if (png != NULL) png_destroy_write_struct(&png, info ? &info : NULL);
  free(s.row);
  if (status != 0) {
    free(s.buffer);
    return -1;
  }
  *out = s.buffer;
  *out_length = s.length;
  return 0;
}

void rt_png_free(void *pointer) { free(pointer); }
