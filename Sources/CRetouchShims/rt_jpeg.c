// SPDX-License-Identifier: Apache-2.0
// Why this file exists: libjpeg reports errors through error_exit, which must not return, and its
// default one calls exit(). Swift cannot call setjmp, so every entry point here arms its own
// setjmp and our error_exit longjmps back to it, only across libjpeg's C frames. All state used
// after a jump (messages, counters, output buffer) lives in the heap-allocated decoder/encoder.

#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// jerror.h after jpeglib.h: its message list depends on jconfig.h's arithmetic-coding flags.
#include <jpeglib.h>
#include <jerror.h>

#include "rt_jpeg.h"

/// Progressive files with more scans than this are refused: a crafted file can otherwise repeat
/// scans to make decoding take minutes (the same guard as tjbench's -limitscans, which uses 500).
#define RT_JPEG_MAX_SCANS 500

typedef struct rt_jpeg_error {
  struct jpeg_error_mgr pub;  // must stay first: libjpeg hands back a pointer to it
  jmp_buf jump;
  rt_jpeg_status status;
  char message[JMSG_LENGTH_MAX];
  // Warning bookkeeping (decoder only).
  unsigned fail_mask;
  int phase;  // 0 header, 1 start, 2 rows, 3 finish
  int warnings;
  int corrupt_warnings;
  int other_warnings;
  int eof_seen;
  int eof_phase;
  int marker_hit_after_eof;
  int multiple_scans;
  int arithmetic;  // the arithmetic decoder reads past the data silently, without JWRN_HIT_MARKER
  uint32_t eof_row;
  int eof_scan;
  uint64_t input_size;
  char first_warning[JMSG_LENGTH_MAX];
  char first_corrupt[JMSG_LENGTH_MAX];
  char first_other[JMSG_LENGTH_MAX];
} rt_jpeg_error;

struct rt_jpeg_decoder {
  struct jpeg_decompress_struct cinfo;
  rt_jpeg_error err;
  struct jpeg_progress_mgr progress;
  int created;
  int header_read;
  int started;
};

struct rt_jpeg_encoder {
  struct jpeg_compress_struct cinfo;
  rt_jpeg_error err;
  struct jpeg_destination_mgr dest;
  int created;
  int started;
  unsigned char *buffer;
  size_t capacity;
  size_t size;
  // Set by rt_jpeg_encoder_write_to_fd: a fixed buffer written out whenever it fills.
  int writes_to_fd;
  int fd;
  int write_errno;
};

// MARK: Error handling shared by both directions

static rt_jpeg_status rt_status_for_code(const rt_jpeg_error *err, int code) {
  switch (code) {
    case JERR_NO_SOI:
      return RT_JPEG_NOT_JPEG;
    case JERR_BAD_PRECISION:
    case JERR_SOF_UNSUPPORTED:
    case JERR_NOT_COMPILED:
    case JERR_ARITH_NOTIMPL:
    case JERR_CONVERSION_NOTIMPL:
      return RT_JPEG_UNSUPPORTED_VARIANT;
    case JERR_IMAGE_TOO_BIG:
    case JERR_WIDTH_OVERFLOW:
      return RT_JPEG_TOO_LARGE;
    case JERR_OUT_OF_MEMORY:
      return RT_JPEG_NO_MEMORY;
    case JERR_INPUT_EMPTY:
      return RT_JPEG_TRUNCATED;
    case JERR_FILE_WRITE:
      return RT_JPEG_WRITE_FAILED;
    default:
      // Most errors after the data ran out are consequences of the missing bytes.
      return err->eof_seen ? RT_JPEG_TRUNCATED : RT_JPEG_CORRUPT;
  }
}

static void rt_error_exit(j_common_ptr cinfo) {
  rt_jpeg_error *err = (rt_jpeg_error *)cinfo->err;
  (*cinfo->err->format_message)(cinfo, err->message);
  err->status = rt_status_for_code(err, cinfo->err->msg_code);
  if (!cinfo->is_decompressor && cinfo->err->msg_code == JERR_FILE_WRITE) {
    // Only the file destination raises it: libjpeg's message guesses at the cause; the
    // system's reason is added. client_data is the encoder (rt_jpeg_encoder_create).
    const struct rt_jpeg_encoder *e = (const struct rt_jpeg_encoder *)cinfo->client_data;
    size_t used = strlen(err->message);
    snprintf(err->message + used, sizeof err->message - used, " (%s)", strerror(e->write_errno));
  }
  longjmp(err->jump, 1);
}

static void rt_output_message(j_common_ptr cinfo) {
  (void)cinfo;  // library code never prints
}

static int rt_is_corrupt_warning(int code) {
  switch (code) {
    case JWRN_HIT_MARKER:
    case JWRN_HUFF_BAD_CODE:
    case JWRN_ARITH_BAD_CODE:
    case JWRN_MUST_RESYNC:
    case JWRN_NOT_SEQUENTIAL:
    case JWRN_BOGUS_PROGRESSION:
    case JWRN_EXTRANEOUS_DATA:
      return 1;
    default:
      return 0;
  }
}

static void rt_emit_message(j_common_ptr cinfo, int msg_level) {
  if (msg_level >= 0) return;  // trace messages
  rt_jpeg_error *err = (rt_jpeg_error *)cinfo->err;
  int code = cinfo->err->msg_code;
  char text[JMSG_LENGTH_MAX];
  (*cinfo->err->format_message)(cinfo, text);
  cinfo->err->num_warnings++;
  err->warnings++;
  if (err->first_warning[0] == '\0') memcpy(err->first_warning, text, sizeof text);

  int refuse = (err->fail_mask & RT_JPEG_FAIL_ON_ANY_WARNING) != 0;
  if (code == JWRN_JPEG_EOF) {
    if (!err->eof_seen && cinfo->is_decompressor) {
      j_decompress_ptr d = (j_decompress_ptr)cinfo;
      uint64_t rows = (uint64_t)d->input_iMCU_row * (uint64_t)d->max_v_samp_factor * DCTSIZE;
      err->eof_row = rows > d->image_height ? d->image_height : (uint32_t)rows;
      err->eof_scan = d->input_scan_number;
      err->eof_phase = err->phase;
    }
    err->eof_seen = 1;
    // A single-scan file may run out while the Huffman decoder reads ahead past its last MCU,
    // when only the EOI marker is missing; it is truncated only if data was then lacking
    // (JWRN_HIT_MARKER below), otherwise the caller decides at the end.
    if (err->phase >= 2 && !err->multiple_scans && !err->arithmetic)
      refuse = 0;
    else if (err->fail_mask & (RT_JPEG_FAIL_ON_TRUNCATION | RT_JPEG_FAIL_ON_ANY_WARNING))
      refuse = 1;
  } else if (rt_is_corrupt_warning(code)) {
    if (err->eof_seen) {
      // "premature end of data segment" after the data ran out is the truncation itself.
      if (code == JWRN_HIT_MARKER) {
        err->marker_hit_after_eof = 1;
        if (err->fail_mask & (RT_JPEG_FAIL_ON_TRUNCATION | RT_JPEG_FAIL_ON_ANY_WARNING)) refuse = 1;
      }
    } else {
      err->corrupt_warnings++;
      if (err->first_corrupt[0] == '\0') memcpy(err->first_corrupt, text, sizeof text);
      if (err->fail_mask & RT_JPEG_FAIL_ON_CORRUPT) refuse = 1;
    }
  } else {
    err->other_warnings++;
    if (err->first_other[0] == '\0') memcpy(err->first_other, text, sizeof text);
  }
  if (refuse) {
    memcpy(err->message, text, sizeof text);
    err->status = RT_JPEG_WARNING_REFUSED;
    longjmp(err->jump, 1);
  }
}

static void rt_error_init(rt_jpeg_error *err) {
  memset(err, 0, sizeof *err);
  jpeg_std_error(&err->pub);
  err->pub.error_exit = rt_error_exit;
  err->pub.output_message = rt_output_message;
  err->pub.emit_message = rt_emit_message;
}

// MARK: Decoding

static void rt_progress_monitor(j_common_ptr cinfo) {
  if (!cinfo->is_decompressor) return;
  j_decompress_ptr d = (j_decompress_ptr)cinfo;
  if (d->input_scan_number > RT_JPEG_MAX_SCANS) {
    rt_jpeg_error *err = (rt_jpeg_error *)cinfo->err;
    snprintf(err->message, sizeof err->message,
             "the image has more than %d scans, which no real encoder writes",
             RT_JPEG_MAX_SCANS);
    err->status = RT_JPEG_CORRUPT;
    longjmp(err->jump, 1);
  }
}

static rt_jpeg_status rt_decoder_usage(rt_jpeg_decoder *d, const char *what) {
  if (d) {
    snprintf(d->err.message, sizeof d->err.message, "%s", what);
    d->err.status = RT_JPEG_USAGE;
  }
  return RT_JPEG_USAGE;
}

rt_jpeg_decoder *rt_jpeg_decoder_create(void) {
  rt_jpeg_decoder *d = calloc(1, sizeof *d);
  if (!d) return NULL;
  rt_error_init(&d->err);
  d->cinfo.err = &d->err.pub;
  if (setjmp(d->err.jump)) {
    free(d);  // jpeg_create_decompress failed before allocating anything we could free
    return NULL;
  }
  jpeg_create_decompress(&d->cinfo);
  d->created = 1;
  d->cinfo.client_data = d;
  d->progress.progress_monitor = rt_progress_monitor;
  d->cinfo.progress = &d->progress;
  return d;
}

void rt_jpeg_decoder_destroy(rt_jpeg_decoder *d) {
  if (!d) return;
  if (d->created) jpeg_destroy_decompress(&d->cinfo);
  free(d);
}

void rt_jpeg_decoder_set_fail_mask(rt_jpeg_decoder *d, unsigned mask) {
  if (d) d->err.fail_mask = mask;
}

static int rt_color_from_jcs(J_COLOR_SPACE cs) {
  switch (cs) {
    case JCS_GRAYSCALE: return RT_JPEG_COLOR_GRAY;
    case JCS_RGB: return RT_JPEG_COLOR_RGB;
    case JCS_YCbCr: return RT_JPEG_COLOR_YCBCR;
    case JCS_CMYK: return RT_JPEG_COLOR_CMYK;
    case JCS_YCCK: return RT_JPEG_COLOR_YCCK;
    default: return RT_JPEG_COLOR_UNKNOWN;
  }
}

rt_jpeg_status rt_jpeg_decoder_read_header(
    rt_jpeg_decoder *d, const uint8_t *data, size_t size, int save_markers,
    rt_jpeg_header *header) {
  if (!d || !data || !header || d->header_read)
    return rt_decoder_usage(d, "read_header called twice or with no data");
  if (size == 0) {
    snprintf(d->err.message, sizeof d->err.message, "Empty input file");
    return d->err.status = RT_JPEG_TRUNCATED;
  }
  if ((unsigned long long)size > (unsigned long long)ULONG_MAX)
    return rt_decoder_usage(d, "input larger than libjpeg can address");
  d->err.phase = 0;
  d->err.input_size = size;
  if (setjmp(d->err.jump)) return d->err.status;
  jpeg_mem_src(&d->cinfo, data, (unsigned long)size);
  if (save_markers) {
    jpeg_save_markers(&d->cinfo, JPEG_APP0 + 1, 0xFFFF);
    jpeg_save_markers(&d->cinfo, JPEG_APP0 + 2, 0xFFFF);
    jpeg_save_markers(&d->cinfo, JPEG_APP0 + 13, 0xFFFF);  // Photoshop resources (IPTC)
  }
  if (jpeg_read_header(&d->cinfo, TRUE) != JPEG_HEADER_OK) {
    snprintf(d->err.message, sizeof d->err.message, "JPEG datastream contains no image");
    return d->err.status = d->err.eof_seen ? RT_JPEG_TRUNCATED : RT_JPEG_CORRUPT;
  }
  d->header_read = 1;
  d->err.multiple_scans = jpeg_has_multiple_scans(&d->cinfo) ? 1 : 0;
  d->err.arithmetic = d->cinfo.arith_code ? 1 : 0;
  header->width = d->cinfo.image_width;
  header->height = d->cinfo.image_height;
  header->components = d->cinfo.num_components;
  header->color_space = rt_color_from_jcs(d->cinfo.jpeg_color_space);
  header->data_precision = d->cinfo.data_precision;
  header->progressive = d->cinfo.progressive_mode ? 1 : 0;
  header->arithmetic = d->cinfo.arith_code ? 1 : 0;
  header->saw_adobe_marker = d->cinfo.saw_Adobe_marker ? 1 : 0;
  header->adobe_transform = d->cinfo.Adobe_transform;
  header->restart_interval = d->cinfo.restart_interval;
  return RT_JPEG_OK;
}

int rt_jpeg_decoder_marker(
    const rt_jpeg_decoder *d, int index, int *code, const uint8_t **data, uint32_t *length) {
  if (!d || !d->header_read || index < 0) return 0;
  jpeg_saved_marker_ptr m = d->cinfo.marker_list;
  for (int i = 0; m && i < index; i++) m = m->next;
  if (!m) return 0;
  if (code) *code = m->marker;
  if (data) *data = m->data;
  if (length) *length = m->data_length;
  return 1;
}

rt_jpeg_status rt_jpeg_decoder_start(
    rt_jpeg_decoder *d, int scale_eighths, uint32_t *output_width, uint32_t *output_height,
    int *output_components) {
  if (!d || !d->header_read || d->started)
    return rt_decoder_usage(d, "start called before read_header or twice");
  if (scale_eighths < 1 || scale_eighths > 8)
    return rt_decoder_usage(d, "scale must be 1/8 to 8/8");
  d->err.phase = 1;
  if (setjmp(d->err.jump)) return d->err.status;
  switch (d->cinfo.jpeg_color_space) {
    case JCS_GRAYSCALE:
    case JCS_RGB:
    case JCS_YCbCr:
      d->cinfo.out_color_space = JCS_EXT_RGB;
      break;
    case JCS_CMYK:
    case JCS_YCCK:
      d->cinfo.out_color_space = JCS_CMYK;  // libjpeg turns YCCK into CMYK; RGB is ours to do
      break;
    default:
      snprintf(d->err.message, sizeof d->err.message,
               "unsupported colour space with %d components", d->cinfo.num_components);
      return d->err.status = RT_JPEG_UNSUPPORTED_VARIANT;
  }
  d->cinfo.scale_num = (unsigned)scale_eighths;
  d->cinfo.scale_denom = 8;
  // libjpeg's defaults, as djpeg and tjbench use them: accurate integer DCT, fancy upsampling.
  d->cinfo.dct_method = JDCT_ISLOW;
  if (!jpeg_start_decompress(&d->cinfo)) {
    snprintf(d->err.message, sizeof d->err.message, "decoder suspended on in-memory data");
    return d->err.status = RT_JPEG_CORRUPT;
  }
  d->started = 1;
  *output_width = d->cinfo.output_width;
  *output_height = d->cinfo.output_height;
  *output_components = d->cinfo.output_components;
  return RT_JPEG_OK;
}

rt_jpeg_status rt_jpeg_decoder_read_rows(
    rt_jpeg_decoder *d, uint8_t *destination, size_t stride, uint32_t max_rows,
    uint32_t *rows_read) {
  if (!d || !d->started || !destination || !rows_read)
    return rt_decoder_usage(d, "read_rows called before start");
  d->err.phase = 2;
  if (setjmp(d->err.jump)) return d->err.status;
  JSAMPROW rows[64];
  uint32_t done = 0;
  while (done < max_rows && d->cinfo.output_scanline < d->cinfo.output_height) {
    uint32_t n = max_rows - done;
    if (n > 64) n = 64;
    for (uint32_t i = 0; i < n; i++) rows[i] = destination + (size_t)(done + i) * stride;
    JDIMENSION got = jpeg_read_scanlines(&d->cinfo, rows, n);
    if (got == 0) {
      snprintf(d->err.message, sizeof d->err.message, "decoder made no progress at row %u",
               d->cinfo.output_scanline);
      return d->err.status = RT_JPEG_CORRUPT;
    }
    done += got;
  }
  *rows_read = done;
  return RT_JPEG_OK;
}

rt_jpeg_status rt_jpeg_decoder_finish(rt_jpeg_decoder *d) {
  if (!d || !d->started) return rt_decoder_usage(d, "finish called before start");
  if (d->cinfo.output_scanline < d->cinfo.output_height)
    return rt_decoder_usage(d, "finish called before every row was read");
  d->err.phase = 3;
  if (setjmp(d->err.jump)) return d->err.status;
  jpeg_finish_decompress(&d->cinfo);
  return RT_JPEG_OK;
}

const char *rt_jpeg_decoder_error_message(const rt_jpeg_decoder *d) {
  return d ? d->err.message : "";
}

rt_jpeg_warnings rt_jpeg_decoder_warnings(const rt_jpeg_decoder *d) {
  rt_jpeg_warnings w;
  memset(&w, 0, sizeof w);
  if (!d) return w;
  w.count = d->err.warnings;
  w.corrupt_count = d->err.corrupt_warnings;
  w.other_count = d->err.other_warnings;
  w.truncated = d->err.eof_seen;
  // A single-scan file whose entropy decoder never ran short only lacks its EOI marker.
  w.missing_eoi_only = d->err.eof_seen && !d->err.marker_hit_after_eof && d->header_read &&
                       !d->err.multiple_scans && !d->err.arithmetic &&
                       d->err.eof_phase >= 2;
  w.truncated_after_row = d->err.eof_row;
  w.truncated_in_scan = d->err.eof_scan;
  w.truncated_at_byte = d->err.input_size;
  return w;
}

const char *rt_jpeg_decoder_first_warning(const rt_jpeg_decoder *d) {
  return d ? d->err.first_warning : "";
}

const char *rt_jpeg_decoder_first_corrupt_warning(const rt_jpeg_decoder *d) {
  return d ? d->err.first_corrupt : "";
}

const char *rt_jpeg_decoder_first_other_warning(const rt_jpeg_decoder *d) {
  return d ? d->err.first_other : "";
}

// MARK: Encoding
// A growing heap buffer rather than jpeg_mem_dest: libjpeg's memory destination leaks its buffer
// when compression fails part-way, and realloc can grow a large block without copying it.

static void rt_dest_init(j_compress_ptr cinfo) {
  rt_jpeg_encoder *e = (rt_jpeg_encoder *)cinfo->client_data;
  e->dest.next_output_byte = e->buffer;
  e->dest.free_in_buffer = e->capacity;
}

// Writes `count` bytes of the buffer to the encoder's file, across partial writes and signals;
// on failure records errno and raises libjpeg's write error (the jump out of the encoder).
static void rt_dest_write(j_compress_ptr cinfo, size_t count) {
  rt_jpeg_encoder *e = (rt_jpeg_encoder *)cinfo->client_data;
  const unsigned char *p = e->buffer;
  while (count > 0) {
    ssize_t n = write(e->fd, p, count);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      e->write_errno = n < 0 ? errno : EIO;
      ERREXIT(cinfo, JERR_FILE_WRITE);
    }
    p += n;
    count -= (size_t)n;
    e->size += (size_t)n;
  }
}

static boolean rt_dest_empty(j_compress_ptr cinfo) {
  rt_jpeg_encoder *e = (rt_jpeg_encoder *)cinfo->client_data;
  if (e->writes_to_fd) {
    rt_dest_write(cinfo, e->capacity);
    e->dest.next_output_byte = e->buffer;
    e->dest.free_in_buffer = e->capacity;
    return TRUE;
  }
  size_t used = e->capacity;
  if (e->capacity > SIZE_MAX / 2) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 98);
  size_t grown = e->capacity * 2;
  unsigned char *p = realloc(e->buffer, grown);
  if (!p) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 99);
  e->buffer = p;
  e->capacity = grown;
  e->dest.next_output_byte = p + used;
  e->dest.free_in_buffer = grown - used;
  return TRUE;
}

static void rt_dest_term(j_compress_ptr cinfo) {
  rt_jpeg_encoder *e = (rt_jpeg_encoder *)cinfo->client_data;
  if (e->writes_to_fd) {
    rt_dest_write(cinfo, e->capacity - e->dest.free_in_buffer);
    return;
  }
  e->size = e->capacity - e->dest.free_in_buffer;
}

static rt_jpeg_status rt_encoder_usage(rt_jpeg_encoder *e, const char *what) {
  if (e) {
    snprintf(e->err.message, sizeof e->err.message, "%s", what);
    e->err.status = RT_JPEG_USAGE;
  }
  return RT_JPEG_USAGE;
}

rt_jpeg_encoder *rt_jpeg_encoder_create(void) {
  rt_jpeg_encoder *e = calloc(1, sizeof *e);
  if (!e) return NULL;
  rt_error_init(&e->err);
  e->cinfo.err = &e->err.pub;
  if (setjmp(e->err.jump)) {
    free(e);
    return NULL;
  }
  jpeg_create_compress(&e->cinfo);
  e->created = 1;
  e->cinfo.client_data = e;
  return e;
}

void rt_jpeg_encoder_destroy(rt_jpeg_encoder *e) {
  if (!e) return;
  if (e->created) jpeg_destroy_compress(&e->cinfo);
  free(e->buffer);
  free(e);
}

static J_COLOR_SPACE rt_jcs_from_color(int color) {
  switch (color) {
    case RT_JPEG_COLOR_GRAY: return JCS_GRAYSCALE;
    case RT_JPEG_COLOR_RGB: return JCS_RGB;
    case RT_JPEG_COLOR_YCBCR: return JCS_YCbCr;
    case RT_JPEG_COLOR_CMYK: return JCS_CMYK;
    case RT_JPEG_COLOR_YCCK: return JCS_YCCK;
    default: return JCS_UNKNOWN;
  }
}

rt_jpeg_status rt_jpeg_encoder_start(
    rt_jpeg_encoder *e, const rt_jpeg_encode_settings *s, size_t size_hint) {
  if (!e || !s || e->started) return rt_encoder_usage(e, "start called twice or without settings");
  if (s->quality < 1 || s->quality > 100) return rt_encoder_usage(e, "quality outside 1...100");
  if (setjmp(e->err.jump)) return e->err.status;
  struct jpeg_compress_struct *c = &e->cinfo;
  c->image_width = s->width;
  c->image_height = s->height;
  switch (s->input_color) {
    case RT_JPEG_COLOR_GRAY:
      c->input_components = 1;
      c->in_color_space = JCS_GRAYSCALE;
      break;
    case RT_JPEG_COLOR_RGB:
      c->input_components = 3;
      c->in_color_space = JCS_EXT_RGB;
      break;
    case RT_JPEG_COLOR_CMYK:
      c->input_components = 4;
      c->in_color_space = JCS_CMYK;
      break;
    default:
      return rt_encoder_usage(e, "input colour must be grey, RGB or CMYK");
  }
  jpeg_set_defaults(c);
  if (s->stored_color != RT_JPEG_COLOR_UNKNOWN)
    jpeg_set_colorspace(c, rt_jcs_from_color(s->stored_color));
  jpeg_set_quality(c, s->quality, TRUE);
  if (c->jpeg_color_space == JCS_YCbCr || c->jpeg_color_space == JCS_YCCK) {
    for (int i = 0; i < c->num_components; i++) {
      c->comp_info[i].h_samp_factor = 1;
      c->comp_info[i].v_samp_factor = 1;
    }
    if (s->subsample_420) {
      c->comp_info[0].h_samp_factor = 2;
      c->comp_info[0].v_samp_factor = 2;
    }
  }
  c->dct_method = JDCT_ISLOW;
  c->optimize_coding = s->optimize_huffman ? TRUE : FALSE;
  c->write_JFIF_header = s->write_jfif ? TRUE : FALSE;
  c->restart_interval = s->restart_interval;
  if (s->progressive) jpeg_simple_progression(c);

  // Writing to a file: a fixed buffer of 256 KB, written out as it fills.
  size_t capacity = e->writes_to_fd ? 256 * 1024 : size_hint < 4096 ? 4096 : size_hint;
  e->buffer = malloc(capacity);
  if (!e->buffer) {
    snprintf(e->err.message, sizeof e->err.message, "no memory for a %zu-byte output buffer",
             capacity);
    return e->err.status = RT_JPEG_NO_MEMORY;
  }
  e->capacity = capacity;
  e->dest.init_destination = rt_dest_init;
  e->dest.empty_output_buffer = rt_dest_empty;
  e->dest.term_destination = rt_dest_term;
  c->dest = &e->dest;
  jpeg_start_compress(c, TRUE);
  e->started = 1;
  return RT_JPEG_OK;
}

rt_jpeg_status rt_jpeg_encoder_write_to_fd(rt_jpeg_encoder *e, int fd) {
  if (!e || e->started || fd < 0) return rt_encoder_usage(e, "write_to_fd called after start");
  e->writes_to_fd = 1;
  e->fd = fd;
  return RT_JPEG_OK;
}

rt_jpeg_status rt_jpeg_encoder_write_marker(
    rt_jpeg_encoder *e, int code, const uint8_t *data, uint32_t length) {
  if (!e || !e->started || (!data && length > 0))
    return rt_encoder_usage(e, "write_marker called before start");
  if (length > 65533) return rt_encoder_usage(e, "marker segment longer than 65533 bytes");
  if (!((code >= JPEG_APP0 && code <= JPEG_APP0 + 15) || code == JPEG_COM))
    return rt_encoder_usage(e, "only APPn and COM markers can be written");
  if (setjmp(e->err.jump)) return e->err.status;
  jpeg_write_marker(&e->cinfo, code, data, length);
  return RT_JPEG_OK;
}

rt_jpeg_status rt_jpeg_encoder_write_icc(
    rt_jpeg_encoder *e, const uint8_t *data, uint32_t length) {
  if (!e || !e->started || !data || length == 0)
    return rt_encoder_usage(e, "write_icc called before start or with no profile");
  if (setjmp(e->err.jump)) return e->err.status;
  jpeg_write_icc_profile(&e->cinfo, data, length);
  return RT_JPEG_OK;
}

rt_jpeg_status rt_jpeg_encoder_write_rows(
    rt_jpeg_encoder *e, const uint8_t *source, size_t stride, uint32_t rows) {
  if (!e || !e->started || !source) return rt_encoder_usage(e, "write_rows called before start");
  if (rows > e->cinfo.image_height - e->cinfo.next_scanline)
    return rt_encoder_usage(e, "more rows written than the image has");
  if (setjmp(e->err.jump)) return e->err.status;
  JSAMPROW pointers[64];
  uint32_t done = 0;
  while (done < rows) {
    uint32_t n = rows - done;
    if (n > 64) n = 64;
    // libjpeg only reads the rows; its prototype lacks const.
    for (uint32_t i = 0; i < n; i++)
      pointers[i] = (JSAMPROW)(uintptr_t)(source + (size_t)(done + i) * stride);
    JDIMENSION got = jpeg_write_scanlines(&e->cinfo, pointers, n);
    if (got == 0) {
      snprintf(e->err.message, sizeof e->err.message, "encoder made no progress at row %u",
               e->cinfo.next_scanline);
      return e->err.status = RT_JPEG_CORRUPT;
    }
    done += got;
  }
  return RT_JPEG_OK;
}

rt_jpeg_status rt_jpeg_encoder_finish(
    rt_jpeg_encoder *e, const uint8_t **output, size_t *output_size) {
  if (!e || !e->started || !output || !output_size)
    return rt_encoder_usage(e, "finish called before start");
  if (e->cinfo.next_scanline < e->cinfo.image_height)
    return rt_encoder_usage(e, "finish called before every row was written");
  if (setjmp(e->err.jump)) return e->err.status;
  jpeg_finish_compress(&e->cinfo);
  *output = e->writes_to_fd ? NULL : e->buffer;
  *output_size = e->size;
  return RT_JPEG_OK;
}

const char *rt_jpeg_encoder_error_message(const rt_jpeg_encoder *e) {
  return e ? e->err.message : "";
}
