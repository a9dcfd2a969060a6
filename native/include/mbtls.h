/* mbtls.h: moonbridge's C shim over BoringSSL, the only header cgo includes.
 *
 * Every symbol starts with mb_. BoringSSL's types never appear here: Go sees opaque handles and
 * plain buffers, so the Go side does not depend on BoringSSL's headers or struct layouts. */
#ifndef MOONBRIDGE_MBTLS_H
#define MOONBRIDGE_MBTLS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* mb_info describes the BoringSSL linked into this binary. The strings are static. */
typedef struct {
  const char *revision;     /* BoringSSL revision the shim was compiled against */
  const char *source;       /* where obtain.sh got that source, e.g. debian-chromium-150.0... */
  const char *version_text; /* OpenSSL_version(OPENSSL_VERSION): "BoringSSL" when it is one */
  int api_version;          /* BORINGSSL_API_VERSION from the headers */
} mb_info;

void mb_get_info(mb_info *out);

/* mb_sha256 hashes len bytes of data into out[32] with the linked BoringSSL; a tiny call that
 * proves the library is really linked and working (tests compare it with Go's crypto/sha256). */
void mb_sha256(const uint8_t *data, size_t len, uint8_t out[32]);

/* ---- TLS server engine ------------------------------------------------------------------------
 *
 * One mb_ctx holds everything new handshakes need (certificates chosen by SNI, versions, cipher
 * suites, ALPN, session ticket keys, key logging); it is immutable once built, so moonbridge
 * builds a new one to reload certificates or rotate ticket keys, and connections keep the one
 * they started with. One mb_conn is one TLS session. Each entry point below is one whole I/O
 * event: ciphertext and plaintext go in and out through caller buffers lent for the call only,
 * partial records and output that did not fit stay in C, and the BoringSSL error queue is read
 * and cleared before returning. An mb_conn is not thread-safe: callers serialize calls on it. */

typedef struct mb_ctx mb_ctx;
typedef struct mb_conn mb_conn;

/* Status of an engine call. */
enum {
  MB_OK = 0,        /* done: handshake established, or every byte sealed / all it could open */
  MB_WANT_READ = 1, /* needs more ciphertext from the peer */
  MB_CLOSED = 2,    /* the peer sent close_notify */
  MB_FATAL = 3      /* the session is dead; reason says why; alerts may wait in out_pending */
};

typedef struct {
  size_t consumed;      /* input bytes taken (the rest was not needed yet) */
  size_t produced;      /* bytes written to the output buffer */
  size_t plain_pending; /* opened plaintext still inside the engine (out was full) */
  size_t out_pending;   /* ciphertext still inside the engine (out was full, or an alert) */
  int status;           /* MB_OK, MB_WANT_READ, MB_CLOSED or MB_FATAL */
  const char *reason;   /* MB_FATAL: a short static string such as "WRONG_VERSION_NUMBER" */
} mb_result;

/* Minimum protocol versions for mb_ctx_new (the wire values). */
#define MB_TLS12 0x0303
#define MB_TLS13 0x0304

/* MB_TICKET_KEY_LEN bytes make a session ticket key: a 16-byte name, a 16-byte HMAC-SHA256 key
 * and a 16-byte AES-128-CBC key. */
#define MB_TICKET_KEY_LEN 48
#define MB_MAX_TICKET_KEYS 4

/* MB_SEAL_OVERHEAD bounds the bytes a record adds to its plaintext (header, explicit nonce,
 * content type, tag), so a caller sizes a seal buffer as len + records * MB_SEAL_OVERHEAD. */
#define MB_SEAL_OVERHEAD 64
#define MB_MAX_PLAINTEXT 16384

typedef void (*mb_keylog_fn)(void *handle, const char *line);

/* mb_ctx_new makes an empty context; NULL only when out of memory. */
mb_ctx *mb_ctx_new(uint16_t min_version);
void mb_ctx_free(mb_ctx *ctx);

/* mb_ctx_conns returns how many mb_conn still hold ctx (the caller holds its own reference).
 * Tests use it to see that a connection dropped without an explicit free is freed, once. */
int mb_ctx_conns(const mb_ctx *ctx);

/* mb_ctx_add_cert adds a PEM chain (leaf first) and its PEM private key. The first certificate
 * added is the default; the others are chosen when the client's SNI matches their leaf. Returns
 * 1, or 0 with a short static reason in *reason. */
int mb_ctx_add_cert(mb_ctx *ctx, const uint8_t *chain_pem, size_t chain_len, const uint8_t *key_pem,
                    size_t key_len, const char **reason);

/* mb_ctx_set_ticket_keys sets n (1..MB_MAX_TICKET_KEYS) keys of MB_TICKET_KEY_LEN bytes each:
 * new tickets use the first, tickets under the others are still accepted (and renewed). */
int mb_ctx_set_ticket_keys(mb_ctx *ctx, const uint8_t *keys, size_t n);

/* mb_ctx_set_keylog passes every handshake's secrets, in NSS key log format, to fn(handle, line)
 * during handshake calls. For debugging only. */
void mb_ctx_set_keylog(mb_ctx *ctx, mb_keylog_fn fn, void *handle);

/* Record layers for mb_ctx_set_record_layer. With MB_RECORDS_AEAD, a TLS 1.3 session's
 * application records are opened and sealed by the shim itself with BoringSSL's AEAD once the
 * handshake is over (native/src/mb_rec.c); TLS 1.2 sessions always use SSL_read/SSL_write. */
#define MB_RECORDS_SSL 0
#define MB_RECORDS_AEAD 1

/* MB_KEY_UPDATE_AFTER is how many records the AEAD record layer seals under one key before it
 * sends a KeyUpdate: far below AES-GCM's limit of 2^24.5 full records (RFC 8446 section 5.5). */
#define MB_KEY_UPDATE_AFTER ((uint64_t)1 << 24)

/* mb_ctx_set_record_layer picks the record layer of the sessions started on ctx afterwards;
 * key_update_after (0: MB_KEY_UPDATE_AFTER) is lowered only by tests. */
void mb_ctx_set_record_layer(mb_ctx *ctx, int layer, uint64_t key_update_after);

/* mb_conn_new starts a server session on ctx (which it keeps alive); NULL when out of memory or
 * when ctx has no certificate. */
mb_conn *mb_conn_new(mb_ctx *ctx);
void mb_conn_free(mb_conn *conn);

/* mb_handshake feeds ciphertext and writes the handshake's answer to out. MB_OK means
 * established; any input after the client's Finished is left unconsumed. */
void mb_handshake(mb_conn *conn, const uint8_t *in, size_t in_len, uint8_t *out, size_t out_cap,
                  mb_result *res);

/* mb_open feeds ciphertext and opens every complete record into out until out is full. */
void mb_open(mb_conn *conn, const uint8_t *in, size_t in_len, uint8_t *out, size_t out_cap,
             mb_result *res);

/* mb_open_inplace opens every complete record of the ciphertext buf[0:len] into plaintext at
 * buf[0:produced], produced <= cap. Records are read before their plaintext is written, so only
 * a record begun in an earlier call can open to more than it takes from buf: up to
 * MB_MAX_PLAINTEXT more, which is the room a caller leaves (cap - len) so that everything
 * fits. What does not fit stays: plaintext in plain_pending, ciphertext unconsumed. */
void mb_open_inplace(mb_conn *conn, uint8_t *buf, size_t len, size_t cap, mb_result *res);

/* mb_seal seals all of in into records of up to 16 KiB, written one after another to out, after
 * any ciphertext already waiting. out_cap must be at least mb_seal_bound(in_len) plus the
 * out_pending of the previous call; with less, the rest waits in out_pending. */
void mb_seal(mb_conn *conn, const uint8_t *in, size_t in_len, uint8_t *out, size_t out_cap,
             mb_result *res);

/* mb_drain writes ciphertext waiting inside the engine (alerts, handshake flights larger than
 * the last out buffer) to out. */
void mb_drain(mb_conn *conn, uint8_t *out, size_t out_cap, mb_result *res);

/* mb_shutdown queues close_notify and drains it to out. */
void mb_shutdown(mb_conn *conn, uint8_t *out, size_t out_cap, mb_result *res);

size_t mb_seal_bound(size_t plaintext_len);

/* mb_state describes an established session; strings are NUL-terminated copies. */
typedef struct {
  uint16_t version;      /* wire version, e.g. 0x0304 */
  uint16_t cipher_suite; /* IANA id, e.g. 0x1301 */
  uint16_t group;        /* IANA id of the key exchange, e.g. 0x11ec (X25519MLKEM768) */
  int resumed;           /* 1 when the session was resumed from a ticket */
  int aead_records;      /* 1 when the shim's AEAD record layer carries the records */
  char alpn[32];
  char server_name[256];
} mb_state;

void mb_conn_state(const mb_conn *conn, mb_state *st);

/* ---- moving a session to another process ----------------------------------------------------
 *
 * An established TLS 1.3 session leaves its process (a binary upgrade) as its record state: the
 * suite, each direction's CURRENT traffic secret (after every KeyUpdate so far) and the sequence
 * number of its next record. The new process carries the records on with the AEAD record layer
 * from there, whatever record layer the old one used. The limits against records that make no
 * progress (empty records, warning alerts, KeyUpdates in a row) count from zero again there. The
 * secrets are the session's keys: the caller sends them only to the process it started and
 * wipes them (mb_tls_move_wipe) after. */

/* The longest TLS 1.3 traffic secret (SHA-384). */
#define MB_MOVE_MAX_SECRET 48

typedef struct {
  uint16_t suite;    /* IANA id: 0x1301, 0x1302 or 0x1303 */
  size_t secret_len; /* 32 or 48, the suite's hash length */
  uint8_t read_secret[MB_MOVE_MAX_SECRET], write_secret[MB_MOVE_MAX_SECRET];
  uint64_t read_seq, write_seq; /* sequence numbers of the next record each way */
} mb_tls_move;

/* mb_conn_export fills mv with conn's record state, at a clean boundary only: TLS 1.3, the
 * handshake over, no byte of the peer's held inside the engine (a partial record, plaintext not
 * taken, part of a post-handshake message), no ciphertext of ours waiting to go out (a KeyUpdate
 * answer), the session neither failed nor closed either way. Returns 1, or 0 with a short static
 * reason in *reason and mv zeroed. conn is left as it was and may go on; after a move it must
 * not (the other process continues the sequence numbers). */
int mb_conn_export(mb_conn *conn, mb_tls_move *mv, const char **reason);

/* mb_conn_import makes a session on ctx that carries on from mv with the AEAD record layer
 * (ctx's KeyUpdate limit applies). NULL, with *reason, for a state it cannot take (an unknown
 * suite, a secret of the wrong length) or when out of memory. mb_handshake fails on it; its
 * mb_conn_state says version 0x0304, the suite and aead_records, nothing of the handshake. */
mb_conn *mb_conn_import(mb_ctx *ctx, const mb_tls_move *mv, const char **reason);

/* mb_tls_move_wipe zeroes mv. */
void mb_tls_move_wipe(mb_tls_move *mv);

/* ---- AES-128/CFB8 ------------------------------------------------------------------------------
 *
 * Minecraft encrypts a connection after login with AES-128 in CFB8 (the shared secret is both key
 * and IV). This BoringSSL has no EVP_aes_128_cfb8 (not even in decrepit), so the mode is written
 * here: one block per byte, as the mode is, with AES-NI instructions and the register kept in a
 * vector register on x86-64 CPUs that have them, over BoringSSL's AES_encrypt elsewhere. One mb_cfb8 is one direction of a connection; calls continue its stream. Not thread-safe. */

typedef struct mb_cfb8 mb_cfb8;

#define MB_CFB8_KEY_LEN 16
#define MB_CFB8_IV_LEN 16

/* Results of the mb_cfb8_ calls. */
enum {
  MB_CFB8_OK = 0,
  MB_CFB8_BAD_KEY = 1,  /* the key is not MB_CFB8_KEY_LEN bytes, or AES refused it */
  MB_CFB8_NO_MEMORY = 2,
  MB_CFB8_BAD_ARG = 3   /* a NULL context or IV, or a NULL buffer with a length */
};

/* Directions for mb_cfb8_new, to which MB_CFB8_PORTABLE may be added: the portable loop over
 * BoringSSL's AES_encrypt even where the AES-NI one could run (for tests of both). */
#define MB_CFB8_ENCRYPT 1
#define MB_CFB8_DECRYPT 0
#define MB_CFB8_PORTABLE 0x100

/* mb_cfb8_new makes a stream with an AES-128 key and a 16-byte IV (Minecraft passes the key
 * again), encrypting or decrypting. It stores it in *out and returns MB_CFB8_OK, or an error
 * code with *out NULL. */
int mb_cfb8_new(const uint8_t *key, size_t key_len, const uint8_t *iv, int direction,
                mb_cfb8 **out);

/* mb_cfb8_xor transforms len bytes of src into dst, continuing the stream. dst and src are the
 * same buffer or do not overlap. len may be 0 (with NULL buffers). */
int mb_cfb8_xor(mb_cfb8 *c, uint8_t *dst, const uint8_t *src, size_t len);

/* mb_cfb8_free wipes and frees c; NULL is fine. */
void mb_cfb8_free(mb_cfb8 *c);

/* mb_cfb8_export writes c's key and its register (the last 16 ciphertext bytes, the IV before
 * 16 have passed) to key and reg: a stream made from them with mb_cfb8_new continues exactly
 * where c stands (an upgrade moving the session to a new process). Both are key material. */
int mb_cfb8_export(const mb_cfb8 *c, uint8_t key[MB_CFB8_KEY_LEN], uint8_t reg[MB_CFB8_IV_LEN]);

/* mb_cfb8_accelerated reports whether new streams use AES-NI with the register in a vector
 * register (x86-64 with AES-NI and SSSE3) rather than AES_encrypt per byte. */
int mb_cfb8_accelerated(void);

#ifdef __cplusplus
}
#endif

#endif
