/* mb_move.c: a TLS 1.3 session's record state out of one process and into another (a binary
 * upgrade), at a clean boundary. Whichever record layer the old process ran, the new one carries
 * the records on with the AEAD record layer (mb_rec.c): it needs only the suite, the current
 * traffic secrets and the sequence numbers, which both layers know. */
#include "mb_internal.h"

#include <stdlib.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/mem.h>

void mb_tls_move_wipe(mb_tls_move *mv) { OPENSSL_cleanse(mv, sizeof(*mv)); }

/* flush_ssl writes what BoringSSL holds back for the next write (the answer to a KeyUpdate that
 * asked for one sits in its pending flight until then) to the conn's spill; 0 if the session
 * cannot write any more. */
static int flush_ssl(mb_conn *conn, size_t *out_pending) {
  mb_result res;
  memset(&res, 0, sizeof(res));
  mb_io_begin(&conn->io, NULL, 0, NULL, 0);
  int ok = SSL_write(conn->ssl, "", 0) >= 0;
  mb_io_end(&conn->io, &res);
  ERR_clear_error();
  *out_pending = res.out_pending;
  return ok;
}

/* export_ssl is mb_conn_export for a session on SSL_read/SSL_write. BoringSSL does not show a
 * post-handshake message of which only part has arrived; the AEAD layer that takes over then
 * sees the rest as a message that is not a KeyUpdate and ends the session with
 * UNEXPECTED_MESSAGE, so such a session fails rather than going wrong. */
static const char *export_ssl(mb_conn *conn, mb_tls_move *mv) {
  if (SSL_in_init(conn->ssl)) return "the TLS handshake is not over";
  if (SSL_version(conn->ssl) != TLS1_3_VERSION) return "not TLS 1.3";
  if (SSL_get_shutdown(conn->ssl) != 0) return "the TLS session has ended";
  if (SSL_has_pending(conn->ssl)) return "unprocessed TLS bytes are buffered";
  size_t out_pending = 0;
  if (!flush_ssl(conn, &out_pending)) return "the TLS session has ended";
  if (out_pending > 0) return "TLS output waits to go out";
  mv->suite = SSL_CIPHER_get_protocol_id(SSL_get_current_cipher(conn->ssl));
  mv->read_seq = SSL_get_read_sequence(conn->ssl);
  mv->write_seq = SSL_get_write_sequence(conn->ssl);
  if (!mb_ssl_traffic_secrets(conn->ssl, mv->read_secret, mv->write_secret, &mv->secret_len)) {
    return "the traffic secrets are not readable";
  }
  return NULL;
}

int mb_conn_export(mb_conn *conn, mb_tls_move *mv, const char **reason) {
  mb_tls_move_wipe(mv);
  const char *why = NULL;
  if (conn->io.spill_len > conn->io.spill_off) {
    why = "TLS output waits to go out";
  } else if (conn->rec != NULL) {
    why = mb_rec_export(conn->rec, mv);
  } else {
    why = export_ssl(conn, mv);
  }
  if (why != NULL) {
    mb_tls_move_wipe(mv);
    *reason = why;
    return 0;
  }
  return 1;
}

mb_conn *mb_conn_import(mb_ctx *ctx, const mb_tls_move *mv, const char **reason) {
  if (mv->secret_len > MB_MOVE_MAX_SECRET) {
    *reason = "traffic secret too long";
    return NULL;
  }
  mb_rec_keys keys = {
      .suite = mv->suite,
      .secret_len = mv->secret_len,
      .read_seq = mv->read_seq,
      .write_seq = mv->write_seq,
      .key_update_after = ctx->key_update_after,
  };
  memcpy(keys.read_secret, mv->read_secret, mv->secret_len);
  memcpy(keys.write_secret, mv->write_secret, mv->secret_len);
  mb_conn *conn = calloc(1, sizeof(*conn));
  if (conn != NULL) conn->rec = mb_rec_new(&keys);
  OPENSSL_cleanse(&keys, sizeof(keys));
  if (conn == NULL || conn->rec == NULL) {
    free(conn);
    *reason = "unknown cipher suite, wrong secret length, or out of memory";
    return NULL;
  }
  mb_ctx_ref(ctx);
  conn->ctx = ctx;
  return conn;
}
