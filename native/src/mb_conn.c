/* mb_conn.c: one server session; every entry point is one whole I/O event. */
#include "mb_internal.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/err.h>

mb_conn *mb_conn_new(mb_ctx *ctx) {
  if (ctx == NULL || ctx->ncerts == 0) return NULL;
  mb_conn *conn = calloc(1, sizeof(*conn));
  if (conn == NULL) return NULL;
  conn->ssl = SSL_new(ctx->certs[0].ssl_ctx);
  BIO *bio = conn->ssl ? mb_io_bio_new(&conn->io) : NULL;
  if (bio == NULL) {
    SSL_free(conn->ssl);
    free(conn);
    ERR_clear_error();
    return NULL;
  }
  SSL_set_bio(conn->ssl, bio, bio); /* one BIO for both directions; SSL owns it */
  SSL_set_accept_state(conn->ssl);
  mb_ctx_ref(ctx);
  conn->ctx = ctx;
  return conn;
}

void mb_conn_free(mb_conn *conn) {
  if (conn == NULL) return;
  mb_rec_free(conn->rec);
  SSL_free(conn->ssl);
  mb_io_release(&conn->io);
  mb_ctx_free(conn->ctx);
  free(conn);
}

size_t mb_seal_bound(size_t plaintext_len) {
  size_t records = plaintext_len / MB_MAX_PLAINTEXT + 1;
  return plaintext_len + records * MB_SEAL_OVERHEAD;
}

/* begin and finish bracket every entry point: the error queue is per thread and Go moves
 * goroutines between threads, so it is cleared on the way in and read and cleared on the way
 * out; the caller's buffers are forgotten in finish. */
static void clear_errors(void) {
  if (ERR_peek_error() != 0) ERR_clear_error(); /* clearing an empty queue still costs 16 frees */
}

static void begin(mb_conn *conn, const uint8_t *in, size_t in_len, uint8_t *out, size_t out_cap,
                  mb_result *res) {
  clear_errors();
  memset(res, 0, sizeof(*res));
  mb_io_begin(&conn->io, in, in_len, out, out_cap);
}

static void finish(mb_conn *conn, mb_result *res) {
  mb_io_end(&conn->io, res);
  res->plain_pending = conn->rec ? mb_rec_plain_pending(conn->rec) : (size_t)SSL_pending(conn->ssl);
  clear_errors();
}

/* take_records hands an established TLS 1.3 session's records to the AEAD record layer when the
 * context asks for it. It runs after the session tickets went out (they are sealed by SSL, and
 * the write sequence counts them) and only when SSL holds no input beyond the client's
 * Finished; otherwise the session simply stays on SSL_read/SSL_write. */
static void take_records(mb_conn *conn) {
  if (conn->ctx->record_layer != MB_RECORDS_AEAD || SSL_version(conn->ssl) != TLS1_3_VERSION ||
      SSL_has_pending(conn->ssl)) {
    return;
  }
  mb_rec_keys keys = {
      .suite = SSL_CIPHER_get_protocol_id(SSL_get_current_cipher(conn->ssl)),
      .read_seq = SSL_get_read_sequence(conn->ssl),
      .write_seq = SSL_get_write_sequence(conn->ssl),
      .key_update_after = conn->ctx->key_update_after,
  };
  if (mb_ssl_traffic_secrets(conn->ssl, keys.read_secret, keys.write_secret, &keys.secret_len)) {
    conn->rec = mb_rec_new(&keys);
  }
  OPENSSL_cleanse(&keys, sizeof(keys));
}

/* classify turns a failed SSL call into a status and, when fatal, a short static reason. */
static void classify(mb_conn *conn, int ret, mb_result *res) {
  switch (SSL_get_error(conn->ssl, ret)) {
    case SSL_ERROR_WANT_READ:
      res->status = MB_WANT_READ;
      return;
    case SSL_ERROR_ZERO_RETURN:
      res->status = MB_CLOSED;
      return;
    default: {
      res->status = MB_FATAL;
      const char *reason = ERR_reason_error_string(ERR_peek_error());
      res->reason = reason ? reason : conn->io.oom ? "out of memory" : "internal error";
    }
  }
}

void mb_handshake(mb_conn *conn, const uint8_t *in, size_t in_len, uint8_t *out, size_t out_cap,
                  mb_result *res) {
  begin(conn, in, in_len, out, out_cap, res);
  if (conn->ssl == NULL) { /* imported (mb_move.c): its handshake ran in another process */
    res->status = MB_FATAL;
    res->reason = "a moved session has no handshake";
    finish(conn, res);
    return;
  }
  int ret = SSL_do_handshake(conn->ssl);
  /* BoringSSL holds TLS 1.3 session tickets until the server's first write; a zero-byte write
   * sends them with the handshake's last output, so a seal never carries handshake bytes. */
  if (ret == 1) ret = SSL_write(conn->ssl, "", 0) < 0 ? -1 : 1;
  if (ret == 1) {
    res->status = MB_OK;
    if (conn->rec == NULL) take_records(conn);
  } else {
    classify(conn, ret, res);
  }
  finish(conn, res);
}

static int clamp_int(size_t n) { return n > INT_MAX ? INT_MAX : (int)n; }

/* open_records opens records from the BIO's input into out until out is full or the input is
 * used up, and returns how many plaintext bytes it wrote. Each SSL_read takes exactly the
 * records it opens from the input before it writes their plaintext, which is never longer than
 * their ciphertext: out may be the input itself, at or before the BIO's read position. */
static size_t open_records(mb_conn *conn, uint8_t *out, size_t out_cap, mb_result *res) {
  size_t opened = 0;
  res->status = MB_OK;
  while (opened < out_cap) {
    int n = SSL_read(conn->ssl, out + opened, clamp_int(out_cap - opened));
    if (n <= 0) {
      classify(conn, n, res);
      break;
    }
    opened += (size_t)n;
    /* All input taken and nothing buffered, not even part of a record: another SSL_read would
     * only run BoringSSL's read path to learn "want read", which costs as much as opening a
     * small record. */
    if (conn->io.in_off == conn->io.in_len && !SSL_has_pending(conn->ssl)) {
      res->status = MB_WANT_READ;
      break;
    }
  }
  return opened;
}

void mb_open(mb_conn *conn, const uint8_t *in, size_t in_len, uint8_t *out, size_t out_cap,
             mb_result *res) {
  /* out takes plaintext here, so ciphertext the read provokes (alerts, a TLS 1.3 KeyUpdate
   * answer) must go to the spill: the BIO gets no output buffer. */
  begin(conn, in, in_len, NULL, 0, res);
  size_t opened = conn->rec ? mb_rec_open(conn->rec, &conn->io, out, out_cap, res)
                            : open_records(conn, out, out_cap, res);
  finish(conn, res);
  res->produced = opened;
}

void mb_open_inplace(mb_conn *conn, uint8_t *buf, size_t len, size_t cap, mb_result *res) {
  begin(conn, buf, len, NULL, 0, res);
  if (conn->rec) {
    size_t opened = mb_rec_open_inplace(conn->rec, &conn->io, buf, len, cap, res);
    finish(conn, res);
    res->produced = opened;
    return;
  }
  /* A record begun in an earlier call (or plaintext left there) may open to more bytes than it
   * takes from buf, which would overwrite ciphertext not yet read: it goes to the stack first. */
  uint8_t first[MB_MAX_PLAINTEXT];
  size_t first_len = 0;
  res->status = MB_OK;
  if (SSL_has_pending(conn->ssl)) {
    int n = SSL_read(conn->ssl, first, clamp_int(cap < sizeof(first) ? cap : sizeof(first)));
    if (n > 0) {
      first_len = (size_t)n;
    } else {
      classify(conn, n, res);
    }
  }
  /* The later records open behind the read position and move up behind first afterwards. */
  size_t base = conn->io.in_off, opened = 0;
  if (res->status == MB_OK) {
    opened = open_records(conn, buf + base, cap - (first_len > base ? first_len : base), res);
  }
  if (first_len > 0) {
    memmove(buf + first_len, buf + base, opened);
    memcpy(buf, first, first_len);
  }
  finish(conn, res);
  res->produced = first_len + opened;
}

void mb_seal(mb_conn *conn, const uint8_t *in, size_t in_len, uint8_t *out, size_t out_cap,
             mb_result *res) {
  begin(conn, NULL, 0, out, out_cap, res);
  res->status = MB_OK;
  size_t sealed = 0;
  if (conn->rec) sealed = mb_rec_seal(conn->rec, &conn->io, in, in_len, res);
  while (sealed < in_len && conn->rec == NULL) { /* SSL_write seals up to INT_MAX bytes into 16 KiB records */
    int n = SSL_write(conn->ssl, in + sealed, clamp_int(in_len - sealed));
    if (n <= 0) {
      classify(conn, n, res);
      break;
    }
    sealed += (size_t)n;
  }
  finish(conn, res);
  res->consumed = sealed;
}

void mb_drain(mb_conn *conn, uint8_t *out, size_t out_cap, mb_result *res) {
  begin(conn, NULL, 0, out, out_cap, res);
  res->status = MB_OK;
  finish(conn, res);
}

void mb_shutdown(mb_conn *conn, uint8_t *out, size_t out_cap, mb_result *res) {
  begin(conn, NULL, 0, out, out_cap, res);
  if (conn->rec) {
    mb_rec_shutdown(conn->rec, &conn->io, res);
    finish(conn, res);
    return;
  }
  int ret = SSL_shutdown(conn->ssl); /* 0: close_notify sent, the peer's not yet seen */
  if (ret >= 0) {
    res->status = MB_OK;
  } else {
    classify(conn, ret, res);
  }
  finish(conn, res);
}

static void copy_string(char *dst, size_t cap, const char *src, size_t len) {
  if (len >= cap) len = cap - 1;
  memcpy(dst, src, len);
  dst[len] = '\0';
}

void mb_conn_state(const mb_conn *conn, mb_state *st) {
  memset(st, 0, sizeof(*st));
  if (conn->ssl == NULL) { /* imported: TLS 1.3 on the AEAD layer; the handshake was elsewhere */
    st->version = TLS1_3_VERSION;
    st->cipher_suite = mb_rec_suite(conn->rec);
    st->aead_records = 1;
    return;
  }
  const SSL_CIPHER *cipher = SSL_get_current_cipher(conn->ssl);
  st->version = (uint16_t)SSL_version(conn->ssl);
  st->cipher_suite = cipher ? SSL_CIPHER_get_protocol_id(cipher) : 0;
  st->group = SSL_get_group_id(conn->ssl);
  st->resumed = SSL_session_reused(conn->ssl);
  st->aead_records = conn->rec != NULL;
  const uint8_t *alpn;
  unsigned alpn_len;
  SSL_get0_alpn_selected(conn->ssl, &alpn, &alpn_len);
  copy_string(st->alpn, sizeof(st->alpn), (const char *)alpn, alpn ? alpn_len : 0);
  const char *sni = SSL_get_servername(conn->ssl, TLSEXT_NAMETYPE_host_name);
  copy_string(st->server_name, sizeof(st->server_name), sni ? sni : "", sni ? strlen(sni) : 0);
}
