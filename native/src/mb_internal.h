/* mb_internal.h: the shim's private structures, shared by its .c files and never by Go. */
#ifndef MOONBRIDGE_MB_INTERNAL_H
#define MOONBRIDGE_MB_INTERNAL_H

#include "mb_secrets.h"
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
  int record_layer;          /* MB_RECORDS_SSL or MB_RECORDS_AEAD */
  uint64_t key_update_after; /* records sealed under one key before we send a KeyUpdate */
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
  int reserved_in_spill; /* where the last mb_io_reserve pointed */
} mb_io;

/* mb_rec_keys is what a record engine takes from the handshake, per direction: the suite, the
 * current traffic secret and the sequence number of the next record. It is all kTLS would need
 * too (it derives key and IV from the same secret), so a kernel engine could take its place. */
typedef struct {
  uint16_t suite; /* IANA id of a TLS 1.3 suite: 0x1301, 0x1302 or 0x1303 */
  size_t secret_len;
  uint8_t read_secret[MB_MAX_SECRET], write_secret[MB_MAX_SECRET];
  uint64_t read_seq, write_seq;
  uint64_t key_update_after; /* records under one write key before we send a KeyUpdate */
} mb_rec_keys;

/* mb_rec is the record engine: TLS 1.3 application records opened and sealed with the AEAD
 * directly once the handshake is over (mb_rec.c). Keys in, records out. */
typedef struct mb_rec mb_rec;

struct mb_conn {
  SSL *ssl;
  mb_ctx *ctx;
  mb_io io;
  mb_rec *rec; /* non-NULL: records bypass SSL_read/SSL_write; alone (ssl NULL) when imported
                * from another process (mb_move.c) */
};

/* mb_ctx.c */
void mb_ctx_ref(mb_ctx *ctx);
mb_ctx *mb_ctx_from_ssl(const SSL *ssl);

/* mb_io.c */
BIO *mb_io_bio_new(mb_io *io);
void mb_io_begin(mb_io *io, const uint8_t *in, size_t in_len, uint8_t *out, size_t out_cap);
void mb_io_end(mb_io *io, mb_result *res);
void mb_io_release(mb_io *io);
/* mb_io_reserve returns room for n output bytes after everything already written (in the
 * caller's out when nothing is queued and it fits, else at the end of the spill), or NULL when
 * out of memory; mb_io_commit(n) then counts the bytes actually written there. */
uint8_t *mb_io_reserve(mb_io *io, size_t n);
void mb_io_commit(mb_io *io, size_t n);


/* mb_rec.c. Every call takes the conn's mb_io (ciphertext out: records, alerts, KeyUpdates) and
 * fills res like the SSL path: status, reason, plain_pending; consumed/produced as each says. */
mb_rec *mb_rec_new(const mb_rec_keys *keys); /* NULL: unknown suite or out of memory */
void mb_rec_free(mb_rec *rec);
size_t mb_rec_open(mb_rec *rec, mb_io *io, uint8_t *out, size_t out_cap, mb_result *res);
size_t mb_rec_open_inplace(mb_rec *rec, mb_io *io, uint8_t *buf, size_t len, size_t cap,
                           mb_result *res);
size_t mb_rec_seal(mb_rec *rec, mb_io *io, const uint8_t *in, size_t in_len, mb_result *res);
void mb_rec_shutdown(mb_rec *rec, mb_io *io, mb_result *res);
size_t mb_rec_plain_pending(const mb_rec *rec);
/* mb_rec_suite is the cipher suite the records run (IANA id). */
uint16_t mb_rec_suite(const mb_rec *rec);
/* mb_rec_export fills mv with the current keys and sequence numbers and returns NULL, or returns
 * why the engine is not at a clean boundary (mv untouched). */
const char *mb_rec_export(const mb_rec *rec, mb_tls_move *mv);

/* mb_callbacks.c: handshake-time callbacks, all in C (no Go on the per-record path). */
void mb_install_callbacks(SSL_CTX *ssl_ctx, mb_ctx *ctx);

/* ---- CFB8 with AES-NI (mb_cfb8_x86.c): x86-64 with GCC or Clang ---------------------------- */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define MB_CFB8_HW 1
#define MB_CFB8_HW_KEY_BYTES (11 * 16) /* the 11 round keys of AES-128 */

/* mb_cfb8_hw_capable reports whether this CPU has AES-NI and SSSE3. */
int mb_cfb8_hw_capable(void);
/* mb_cfb8_hw_expand writes key's AES-128 round keys to out. */
void mb_cfb8_hw_expand(const uint8_t key[16], uint8_t out[MB_CFB8_HW_KEY_BYTES]);
/* mb_cfb8_hw_xor is mb_cfb8_xor on round keys from mb_cfb8_hw_expand and a 16-byte register. */
void mb_cfb8_hw_xor(const uint8_t key[MB_CFB8_HW_KEY_BYTES], uint8_t reg[16], int decrypt,
                    uint8_t *dst, const uint8_t *src, size_t len);
#else
#define MB_CFB8_HW 0
#endif

#endif
