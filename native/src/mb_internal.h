/* mb_internal.h: the shim's private structures, shared by its .c files and never by Go. */
#ifndef MOONBRIDGE_MB_INTERNAL_H
#define MOONBRIDGE_MB_INTERNAL_H

#include "mbtls.h"

#include <stdatomic.h>

#include <openssl/ssl.h>

/* One certificate: its own SSL_CTX (SSL_set_SSL_CTX switches to it when SNI matches the leaf). */
typedef struct {
  SSL_CTX *ssl_ctx;
  X509 *leaf;
} mb_cert;

struct mb_ctx {
  atomic_int refs; /* the owner plus one per live mb_conn, because callbacks read this struct */
  uint16_t min_version;
  mb_cert *certs; /* certs[0] is the default and the session context of every connection */
  size_t ncerts;
  uint8_t ticket_keys[MB_MAX_TICKET_KEYS][MB_TICKET_KEY_LEN];
  size_t nticket_keys;
  mb_keylog_fn keylog_fn;
  void *keylog_handle;
};

/* mb_io is the BIO's view of the current call: input and output lent by the caller, and the
 * C-side spill for output that did not fit (kept across calls, drained first next time). */
typedef struct {
  const uint8_t *in;
  size_t in_len, in_off;
  uint8_t *out;
  size_t out_cap, out_len;
  uint8_t *spill;
  size_t spill_off, spill_len, spill_cap;
  int oom;
} mb_io;

struct mb_conn {
  SSL *ssl;
  mb_ctx *ctx;
  mb_io io;
};

/* mb_ctx.c */
void mb_ctx_ref(mb_ctx *ctx);
mb_ctx *mb_ctx_from_ssl(const SSL *ssl);

/* mb_io.c */
BIO *mb_io_bio_new(mb_io *io);
void mb_io_begin(mb_io *io, const uint8_t *in, size_t in_len, uint8_t *out, size_t out_cap);
void mb_io_end(mb_io *io, mb_result *res);
void mb_io_release(mb_io *io);

/* mb_callbacks.c: handshake-time callbacks, all in C (no Go on the per-record path). */
void mb_install_callbacks(SSL_CTX *ssl_ctx, mb_ctx *ctx);

#endif
