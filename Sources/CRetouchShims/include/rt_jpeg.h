// SPDX-License-Identifier: Apache-2.0
// libjpeg-turbo behind a setjmp-safe C interface. Every function below arms its own setjmp, so a
// libjpeg error longjmps only between C frames and comes back as a status code; the decoder and
// encoder state lives on the heap so it is valid after the jump. Nothing here prints or exits.
#pragma once
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Status of a shim call: 0 on success, otherwise what went wrong (detail in the error message).
typedef enum rt_jpeg_status {
  RT_JPEG_OK = 0,
  /// Malformed data (libjpeg's error message says how).
  RT_JPEG_CORRUPT = 1,
  /// A JPEG process libjpeg-turbo does not decode (12-bit, lossless, hierarchical, odd colours).
  RT_JPEG_UNSUPPORTED_VARIANT = 2,
  /// The data does not start with SOI.
  RT_JPEG_NOT_JPEG = 3,
  /// The data ended before the header or image did.
  RT_JPEG_TRUNCATED = 4,
  /// Dimensions beyond libjpeg's limit (65500).
  RT_JPEG_TOO_LARGE = 5,
  /// libjpeg could not allocate memory.
  RT_JPEG_NO_MEMORY = 6,
  /// A warning was raised and the fail mask refused it (see rt_jpeg_decoder_set_fail_mask).
  RT_JPEG_WARNING_REFUSED = 7,
  /// The shim was called out of order or with bad arguments.
  RT_JPEG_USAGE = 8,
  /// The output file could not be written (rt_jpeg_encoder_write_to_fd).
  RT_JPEG_WRITE_FAILED = 9
} rt_jpeg_status;

/// Colour spaces as the shim reports and accepts them.
typedef enum rt_jpeg_color {
  RT_JPEG_COLOR_UNKNOWN = 0,
  RT_JPEG_COLOR_GRAY = 1,
  RT_JPEG_COLOR_RGB = 2,
  RT_JPEG_COLOR_YCBCR = 3,
  RT_JPEG_COLOR_CMYK = 4,
  RT_JPEG_COLOR_YCCK = 5
} rt_jpeg_color;

/// Fail-mask bits: which warnings abort decoding at once (RT_JPEG_WARNING_REFUSED).
enum {
  /// The data ends before the image does.
  RT_JPEG_FAIL_ON_TRUNCATION = 1,
  /// Corrupt-data warnings not caused by truncation.
  RT_JPEG_FAIL_ON_CORRUPT = 2,
  /// Any warning at all.
  RT_JPEG_FAIL_ON_ANY_WARNING = 4
};

/// What jpeg_read_header found.
typedef struct rt_jpeg_header {
  uint32_t width;
  uint32_t height;
  int components;
  /// rt_jpeg_color of the stored data.
  int color_space;
  int data_precision;
  int progressive;
  int arithmetic;
  int saw_adobe_marker;
  int adobe_transform;
  uint32_t restart_interval;
} rt_jpeg_header;

/// Warnings counted while decoding.
typedef struct rt_jpeg_warnings {
  /// Every warning libjpeg raised.
  int count;
  /// Corrupt-data warnings raised before any premature end of data.
  int corrupt_count;
  /// Warnings that are neither truncation nor corruption (e.g. an unknown Adobe transform).
  int other_count;
  /// 1 when the data ended early (JWRN_JPEG_EOF).
  int truncated;
  /// 1 when the data ended only after every scanline was decoded (just the EOI is missing).
  int missing_eoi_only;
  /// Full-resolution rows whose data was complete when the data ended (sequential files), and the
  /// scan number then (progressive files have several).
  uint32_t truncated_after_row;
  int truncated_in_scan;
  /// Byte offset in the input at which the data ran out.
  uint64_t truncated_at_byte;
} rt_jpeg_warnings;

// MARK: Decoding

typedef struct rt_jpeg_decoder rt_jpeg_decoder;

/// Creates a decoder; NULL when memory is short.
rt_jpeg_decoder *rt_jpeg_decoder_create(void);
/// Frees the decoder and everything libjpeg allocated for it. NULL is ignored.
void rt_jpeg_decoder_destroy(rt_jpeg_decoder *decoder);
/// Which warnings abort decoding (RT_JPEG_FAIL_* bits). Default 0: warnings are only counted.
void rt_jpeg_decoder_set_fail_mask(rt_jpeg_decoder *decoder, unsigned mask);

/// Reads the markers up to the first scan from `data` (which must stay valid until the decoder is
/// destroyed). With `save_markers`, APP1 and APP2 segments are kept for rt_jpeg_decoder_marker.
rt_jpeg_status rt_jpeg_decoder_read_header(
    rt_jpeg_decoder *decoder, const uint8_t *data, size_t size, int save_markers,
    rt_jpeg_header *header);

/// The saved marker at `index` (0-based, file order): returns 0 past the end.
int rt_jpeg_decoder_marker(
    const rt_jpeg_decoder *decoder, int index, int *code, const uint8_t **data, uint32_t *length);

/// Starts decompression scaled by 1/`scale_denominator` (1, 2, 4 or 8) with the output as 8-bit
/// RGB (greyscale expanded), or as CMYK when the image has four components. Reports the output
/// size and components per pixel (3 or 4). Progressive files are read completely here.
rt_jpeg_status rt_jpeg_decoder_start(
    rt_jpeg_decoder *decoder, int scale_eighths, uint32_t *output_width,
    uint32_t *output_height, int *output_components);

/// Reads up to `max_rows` output rows into `destination` (`stride` bytes apart), reporting how
/// many were read (fewer only at the end of the image).
rt_jpeg_status rt_jpeg_decoder_read_rows(
    rt_jpeg_decoder *decoder, uint8_t *destination, size_t stride, uint32_t max_rows,
    uint32_t *rows_read);

/// Finishes decompression (reads up to EOI). Call after every row was read.
rt_jpeg_status rt_jpeg_decoder_finish(rt_jpeg_decoder *decoder);

/// The message of the last failure (empty when none).
const char *rt_jpeg_decoder_error_message(const rt_jpeg_decoder *decoder);
/// Counts of the warnings so far.
rt_jpeg_warnings rt_jpeg_decoder_warnings(const rt_jpeg_decoder *decoder);
/// The text of the first warning, of the first corrupt-data warning, and of the first warning
/// that is neither corruption nor truncation (empty when none).
const char *rt_jpeg_decoder_first_warning(const rt_jpeg_decoder *decoder);
const char *rt_jpeg_decoder_first_corrupt_warning(const rt_jpeg_decoder *decoder);
const char *rt_jpeg_decoder_first_other_warning(const rt_jpeg_decoder *decoder);

// MARK: Encoding

typedef struct rt_jpeg_encoder rt_jpeg_encoder;

/// How to encode.
typedef struct rt_jpeg_encode_settings {
  uint32_t width;
  uint32_t height;
  /// rt_jpeg_color of the rows passed in: GRAY (1 byte per pixel), RGB (3) or CMYK (4).
  int input_color;
  /// rt_jpeg_color stored in the file; UNKNOWN picks the default (YCbCr for RGB, as-is otherwise).
  int stored_color;
  /// 1...100.
  int quality;
  /// Chroma at half resolution in both directions (YCbCr and YCCK only).
  int subsample_420;
  int progressive;
  int optimize_huffman;
  int write_jfif;
  /// Restart interval in MCUs; 0 for none.
  uint32_t restart_interval;
} rt_jpeg_encode_settings;

/// Creates an encoder; NULL when memory is short.
rt_jpeg_encoder *rt_jpeg_encoder_create(void);
/// Frees the encoder and its output buffer. NULL is ignored.
void rt_jpeg_encoder_destroy(rt_jpeg_encoder *encoder);
/// Sets the parameters and writes SOI (plus JFIF/Adobe markers as libjpeg decides).
/// `size_hint` is the first output buffer's size in bytes (it grows as needed).
rt_jpeg_status rt_jpeg_encoder_start(
    rt_jpeg_encoder *encoder, const rt_jpeg_encode_settings *settings, size_t size_hint);
/// Writes one marker segment (`code` 0xE0...0xEF or 0xFE); `length` at most 65533.
/// Before start: the encoded bytes go to the open file `fd` as they are produced (in 256 KB
/// writes) instead of a memory buffer; finish then reports no buffer and the bytes written. A
/// failed write stops the encoder with libjpeg's write error and the system's reason.
rt_jpeg_status rt_jpeg_encoder_write_to_fd(rt_jpeg_encoder *encoder, int fd);
rt_jpeg_status rt_jpeg_encoder_write_marker(
    rt_jpeg_encoder *encoder, int code, const uint8_t *data, uint32_t length);
/// Writes an ICC profile as APP2 ICC_PROFILE chunks of at most 65519 bytes each.
rt_jpeg_status rt_jpeg_encoder_write_icc(
    rt_jpeg_encoder *encoder, const uint8_t *data, uint32_t length);
/// Compresses `rows` rows read from `source`, `stride` bytes apart.
rt_jpeg_status rt_jpeg_encoder_write_rows(
    rt_jpeg_encoder *encoder, const uint8_t *source, size_t stride, uint32_t rows);
/// Finishes the file; `*output` stays owned by the encoder until it is destroyed (NULL, with the
/// bytes written in `*output_size`, when writing to a file).
rt_jpeg_status rt_jpeg_encoder_finish(
    rt_jpeg_encoder *encoder, const uint8_t **output, size_t *output_size);
/// The message of the last failure (empty when none).
const char *rt_jpeg_encoder_error_message(const rt_jpeg_encoder *encoder);

#ifdef __cplusplus
}
#endif
