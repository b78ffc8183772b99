// SPDX-License-Identifier: Apache-2.0
//
// libmicrohttpd's functions as Retouch calls them, forwarded to the library loaded on first use
// (see rt_loaders.h).

#include "rt_loaders.h"
#include "rt_load_common.h"

// Return type, name, parameters, arguments: one entry per function Retouch calls (V: one
// returning void, without the type).
#define RT_MICROHTTPD_FUNCTIONS(X, V)                                                              \
  X(struct MHD_Daemon *, MHD_start_daemon_va,                                                      \
    (unsigned int f, uint16_t p, MHD_AcceptPolicyCallback a, void *ac,                             \
     MHD_AccessHandlerCallback h, void *hc, va_list l),                                            \
    (f, p, a, ac, h, hc, l))                                                                       \
  X(MHD_socket, MHD_quiesce_daemon, (struct MHD_Daemon * d), (d))                                  \
  V(MHD_stop_daemon, (struct MHD_Daemon * d), (d))                                                 \
  X(struct MHD_Response *, MHD_create_response_from_buffer,                                        \
    (size_t s, void *b, enum MHD_ResponseMemoryMode m), (s, b, m))                                 \
  V(MHD_destroy_response, (struct MHD_Response * r), (r))                                          \
  X(enum MHD_Result, MHD_add_response_header,                                                      \
    (struct MHD_Response * r, const char *h, const char *c), (r, h, c))                            \
  X(enum MHD_Result, MHD_queue_response,                                                           \
    (struct MHD_Connection * c, unsigned int s, struct MHD_Response *r), (c, s, r))                \
  X(int, MHD_get_connection_values,                                                                \
    (struct MHD_Connection * c, enum MHD_ValueKind k, MHD_KeyValueIterator i, void *ic),           \
    (c, k, i, ic))

RT_DEFINE_LOADER(microhttpd, RT_MICROHTTPD_FUNCTIONS, RT_MICROHTTPD_LIBRARY_NAMES)
