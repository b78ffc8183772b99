// SPDX-License-Identifier: Apache-2.0
//
// libheif's functions as Retouch calls them, forwarded to the library loaded on first use
// (see rt_loaders.h).

#include "rt_loaders.h"
#include "rt_load_common.h"

// Return type, name, parameters, arguments: one entry per function Retouch calls (V: one
// returning void, without the type).
#define RT_HEIF_FUNCTIONS(X, V)                                                                    \
  X(struct heif_error, heif_init, (struct heif_init_params * p), (p))                              \
  X(struct heif_context *, heif_context_alloc, (void), ())                                         \
  V(heif_context_free, (struct heif_context * c), (c))                                             \
  X(struct heif_error, heif_context_read_from_memory_without_copy,                                 \
    (struct heif_context * c, const void *m, size_t s, const struct heif_reading_options *o),      \
    (c, m, s, o))                                                                                  \
  X(struct heif_error, heif_context_get_primary_image_handle,                                      \
    (struct heif_context * c, struct heif_image_handle **h), (c, h))                               \
  X(struct heif_error, heif_context_get_encoder_for_format,                                        \
    (struct heif_context * c, enum heif_compression_format f, struct heif_encoder **e),            \
    (c, f, e))                                                                                     \
  X(struct heif_error, heif_context_encode_image,                                                  \
    (struct heif_context * c, const struct heif_image *i, struct heif_encoder *e,                  \
     const struct heif_encoding_options *o, struct heif_image_handle **h),                         \
    (c, i, e, o, h))                                                                               \
  X(struct heif_error, heif_context_add_exif_metadata,                                             \
    (struct heif_context * c, const struct heif_image_handle *h, const void *d, int s),            \
    (c, h, d, s))                                                                                  \
  X(struct heif_error, heif_context_add_XMP_metadata,                                              \
    (struct heif_context * c, const struct heif_image_handle *h, const void *d, int s),            \
    (c, h, d, s))                                                                                  \
  X(struct heif_error, heif_context_write,                                                         \
    (struct heif_context * c, struct heif_writer *w, void *u), (c, w, u))                          \
  X(struct heif_error, heif_decode_image,                                                          \
    (const struct heif_image_handle *h, struct heif_image **i, enum heif_colorspace s,             \
     enum heif_chroma c, const struct heif_decoding_options *o),                                   \
    (h, i, s, c, o))                                                                               \
  X(struct heif_decoding_options *, heif_decoding_options_alloc, (void), ())                       \
  V(heif_decoding_options_free, (struct heif_decoding_options * o), (o))                           \
  X(struct heif_encoding_options *, heif_encoding_options_alloc, (void), ())                       \
  V(heif_encoding_options_free, (struct heif_encoding_options * o), (o))                           \
  V(heif_encoder_release, (struct heif_encoder * e), (e))                                          \
  X(struct heif_error, heif_encoder_set_lossy_quality, (struct heif_encoder * e, int q), (e, q))   \
  X(struct heif_error, heif_encoder_set_parameter_string,                                          \
    (struct heif_encoder * e, const char *n, const char *v), (e, n, v))                            \
  X(struct heif_error, heif_encoder_set_parameter_integer,                                         \
    (struct heif_encoder * e, const char *n, int v), (e, n, v))                                    \
  X(struct heif_error, heif_image_create,                                                          \
    (int w, int h, enum heif_colorspace s, enum heif_chroma c, struct heif_image **i),             \
    (w, h, s, c, i))                                                                               \
  X(struct heif_error, heif_image_add_plane,                                                       \
    (struct heif_image * i, enum heif_channel c, int w, int h, int d), (i, c, w, h, d))            \
  X(int, heif_image_get_bits_per_pixel_range,                                                      \
    (const struct heif_image *i, enum heif_channel c), (i, c))                                     \
  X(int, heif_image_get_decoding_warnings,                                                         \
    (struct heif_image * i, int f, struct heif_error *w, int m), (i, f, w, m))                     \
  X(int, heif_image_get_width, (const struct heif_image *i, enum heif_channel c), (i, c))          \
  X(int, heif_image_get_height, (const struct heif_image *i, enum heif_channel c), (i, c))         \
  X(uint8_t *, heif_image_get_plane, (struct heif_image * i, enum heif_channel c, int *s),         \
    (i, c, s))                                                                                     \
  X(const uint8_t *, heif_image_get_plane_readonly,                                                \
    (const struct heif_image *i, enum heif_channel c, int *s), (i, c, s))                          \
  V(heif_image_release, (const struct heif_image *i), (i))                                         \
  X(struct heif_error, heif_image_set_nclx_color_profile,                                          \
    (struct heif_image * i, const struct heif_color_profile_nclx *p), (i, p))                      \
  X(struct heif_error, heif_image_set_raw_color_profile,                                           \
    (struct heif_image * i, const char *t, const void *d, const size_t s), (i, t, d, s))           \
  X(enum heif_color_profile_type, heif_image_handle_get_color_profile_type,                        \
    (const struct heif_image_handle *h), (h))                                                      \
  X(int, heif_image_handle_get_width, (const struct heif_image_handle *h), (h))                    \
  X(int, heif_image_handle_get_height, (const struct heif_image_handle *h), (h))                   \
  X(int, heif_image_handle_get_ispe_width, (const struct heif_image_handle *h), (h))               \
  X(int, heif_image_handle_get_ispe_height, (const struct heif_image_handle *h), (h))              \
  X(int, heif_image_handle_get_luma_bits_per_pixel, (const struct heif_image_handle *h), (h))      \
  X(int, heif_image_handle_has_alpha_channel, (const struct heif_image_handle *h), (h))            \
  V(heif_image_handle_release, (const struct heif_image_handle *h), (h))                           \
  X(int, heif_image_handle_get_number_of_metadata_blocks,                                          \
    (const struct heif_image_handle *h, const char *t), (h, t))                                    \
  X(int, heif_image_handle_get_list_of_metadata_block_IDs,                                         \
    (const struct heif_image_handle *h, const char *t, heif_item_id *i, int c), (h, t, i, c))      \
  X(const char *, heif_image_handle_get_metadata_type,                                             \
    (const struct heif_image_handle *h, heif_item_id i), (h, i))                                   \
  X(const char *, heif_image_handle_get_metadata_content_type,                                     \
    (const struct heif_image_handle *h, heif_item_id i), (h, i))                                   \
  X(size_t, heif_image_handle_get_metadata_size,                                                   \
    (const struct heif_image_handle *h, heif_item_id i), (h, i))                                   \
  X(struct heif_error, heif_image_handle_get_metadata,                                             \
    (const struct heif_image_handle *h, heif_item_id i, void *d), (h, i, d))                       \
  X(size_t, heif_image_handle_get_raw_color_profile_size, (const struct heif_image_handle *h),     \
    (h))                                                                                           \
  X(struct heif_error, heif_image_handle_get_raw_color_profile,                                    \
    (const struct heif_image_handle *h, void *d), (h, d))                                          \
  X(struct heif_error, heif_image_handle_get_nclx_color_profile,                                   \
    (const struct heif_image_handle *h, struct heif_color_profile_nclx **p), (h, p))               \
  V(heif_nclx_color_profile_free, (struct heif_color_profile_nclx * p), (p))

RT_DEFINE_LOADER(heif, RT_HEIF_FUNCTIONS, RT_HEIF_LIBRARY_NAMES)
