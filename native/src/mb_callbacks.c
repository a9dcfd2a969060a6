/* mb_callbacks.c: what BoringSSL asks during a handshake, answered in C.
 *
 * Certificate choice by SNI is done here among the preloaded certificates rather than in Go:
 * the choice is a lookup over a set fixed when the context was built, so a C-to-Go callback
 * (a cgo round trip per handshake and a handle to pin) would buy nothing. Only key logging,
 * a debugging aid that writes to a Go io.Writer, calls out, through the function and
 * go-pointer handle given to mb_ctx_set_keylog. */
#include "mb_internal.h"

#include <string.h>

#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h> /* X509_check_host lived here in older BoringSSL (android fallback) */

static const uint8_t kALPN[] = "http/1.1";

static int on_servername(SSL *ssl, int *out_alert, void *arg) {
  (void)out_alert;
  mb_ctx *ctx = arg;
  const char *name = SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name);
  if (name == NULL) return SSL_TLSEXT_ERR_OK; /* the default certificate */
  for (size_t i = 1; i < ctx->ncerts; i++) {
    if (X509_check_host(ctx->certs[i].leaf, name, strlen(name), 0, NULL) == 1) {
      SSL_set_SSL_CTX(ssl, ctx->certs[i].ssl_ctx);
      break;
    }
  }
  return SSL_TLSEXT_ERR_OK;
}

/* on_alpn picks http/1.1 and, like crypto/tls, refuses a client that offers ALPN without it. */
static int on_alpn(SSL *ssl, const uint8_t **out, uint8_t *out_len, const uint8_t *in,
                   unsigned in_len, void *arg) {
  (void)ssl, (void)arg;
  const uint8_t want_len = sizeof(kALPN) - 1;
  for (unsigned i = 0; i < in_len;) {
    uint8_t len = in[i++];
    if (i + len > in_len) break;
    if (len == want_len && memcmp(in + i, kALPN, want_len) == 0) {
      *out = in + i;
      *out_len = len;
      return SSL_TLSEXT_ERR_OK;
    }
    i += len;
  }
  return SSL_TLSEXT_ERR_ALERT_FATAL;
}

/* on_ticket_key encrypts new tickets under the first key and accepts the others (renewing
 * them), so ticket keys rotate without failing resumption at the switch. */
static int on_ticket_key(SSL *ssl, uint8_t *key_name, uint8_t *iv, EVP_CIPHER_CTX *cipher,
                         HMAC_CTX *hmac, int encrypt) {
  mb_ctx *ctx = mb_ctx_from_ssl(ssl);
  if (ctx->nticket_keys == 0) return 0; /* no keys: no tickets, no resumption */
  size_t i = 0;
  if (encrypt) {
    if (!RAND_bytes(iv, 16)) return -1;
    memcpy(key_name, ctx->ticket_keys[0], 16);
  } else {
    while (i < ctx->nticket_keys && memcmp(key_name, ctx->ticket_keys[i], 16) != 0) i++;
    if (i == ctx->nticket_keys) return 0;
  }
  const uint8_t *key = ctx->ticket_keys[i];
  if (!HMAC_Init_ex(hmac, key + 16, 16, EVP_sha256(), NULL) ||
      !EVP_CipherInit_ex(cipher, EVP_aes_128_cbc(), NULL, key + 32, iv, encrypt)) {
    return -1;
  }
  return encrypt || i == 0 ? 1 : 2;
}

static void on_keylog(const SSL *ssl, const char *line) {
  mb_ctx *ctx = mb_ctx_from_ssl(ssl);
  if (ctx->keylog_fn != NULL) ctx->keylog_fn(ctx->keylog_handle, line);
}

void mb_install_callbacks(SSL_CTX *ssl_ctx, mb_ctx *ctx) {
  SSL_CTX_set_tlsext_servername_callback(ssl_ctx, on_servername);
  SSL_CTX_set_tlsext_servername_arg(ssl_ctx, ctx);
  SSL_CTX_set_alpn_select_cb(ssl_ctx, on_alpn, NULL);
  SSL_CTX_set_tlsext_ticket_key_cb(ssl_ctx, on_ticket_key);
  SSL_CTX_set_keylog_callback(ssl_ctx, on_keylog);
}
