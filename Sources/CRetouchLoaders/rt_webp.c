// SPDX-License-Identifier: Apache-2.0
//
// libwebp's functions as Retouch calls them, forwarded to the library loaded on first use
// (see rt_loaders.h). The header's inline helpers (WebPGetFeatures, WebPInitDecoderConfig,
// WebPConfigInit, WebPPictureInit) call the *Internal functions below.

#include "rt_loaders.h"
#include "rt_load_common.h"

// Return type, name, parameters, arguments: one entry per function Retouch calls (V: one
// returning void, without the type).
#define RT_WEBP_FUNCTIONS(X, V)                                                                    \
  X(VP8StatusCode, WebPGetFeaturesInternal,                                                        \
    (const uint8_t *d, size_t s, WebPBitstreamFeatures *f, int v), (d, s, f, v))                   \
  X(int, WebPInitDecoderConfigInternal, (WebPDecoderConfig * c, int v), (c, v))                    \
  X(WebPIDecoder *, WebPIDecode, (const uint8_t *d, size_t s, WebPDecoderConfig *c), (d, s, c))    \
  X(VP8StatusCode, WebPIUpdate, (WebPIDecoder * i, const uint8_t *d, size_t s), (i, d, s))         \
  X(uint8_t *, WebPIDecGetRGB, (const WebPIDecoder *i, int *y, int *w, int *h, int *s),            \
    (i, y, w, h, s))                                                                               \
  V(WebPIDelete, (WebPIDecoder * i), (i))                                                          \
  X(int, WebPConfigInitInternal, (WebPConfig * c, WebPPreset p, float q, int v), (c, p, q, v))     \
  X(int, WebPValidateConfig, (const WebPConfig *c), (c))                                           \
  X(int, WebPPictureInitInternal, (WebPPicture * p, int v), (p, v))                                \
  X(int, WebPPictureImportRGB, (WebPPicture * p, const uint8_t *d, int s), (p, d, s))              \
  X(int, WebPPictureImportRGBA, (WebPPicture * p, const uint8_t *d, int s), (p, d, s))             \
  V(WebPPictureFree, (WebPPicture * p), (p))                                                       \
  X(int, WebPEncode, (const WebPConfig *c, WebPPicture *p), (c, p))                                \
  V(WebPMemoryWriterInit, (WebPMemoryWriter * w), (w))                                             \
  V(WebPMemoryWriterClear, (WebPMemoryWriter * w), (w))                                            \
  X(int, WebPMemoryWrite, (const uint8_t *d, size_t s, const WebPPicture *p), (d, s, p))

RT_DEFINE_LOADER(webp, RT_WEBP_FUNCTIONS, RT_WEBP_LIBRARY_NAMES)
