/* mb_ctx.c: building the immutable server context (certificates, versions, ticket keys). */
#include "mb_internal.h"

#include <stdlib.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/pem.h>

/* The suites both providers offer in TLS 1.2; gossl's Go provider lists the same six, and the
 * shared test suite negotiates each one against both. TLS 1.3 always has all three of its own.
 * The server's order decides (SSL_OP_CIPHER_SERVER_PREFERENCE), and it is crypto/tls's order
 * when both ends have AES hardware: AES-128-GCM, AES-256-GCM, ChaCha20-Poly1305. (crypto/tls
 * puts ChaCha20 first for a client that lists it first; this list does not.) */
static const char kCipherList[] =
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:"
    "ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:"
    "ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305";

/* The key exchanges both providers offer (gossl's keyExchanges lists the same), in the server's
 * order: the post-quantum hybrid whenever the client offers it, whatever the client's own order
 * (crypto/tls's rule); then X25519, P-256 and P-384 at equal rank, so the client's first choice,
 * the one it sent a key share for, saves a HelloRetryRequest (crypto/tls's rule again). */
static const uint16_t kGroups[] = {SSL_GROUP_X25519_MLKEM768, SSL_GROUP_X25519,
                                   SSL_GROUP_SECP256R1, SSL_GROUP_SECP384R1};
static const uint32_t kGroupFlags[] = {0, SSL_GROUP_FLAG_EQUAL_PREFERENCE_WITH_NEXT,
                                       SSL_GROUP_FLAG_EQUAL_PREFERENCE_WITH_NEXT, 0};

mb_ctx *mb_ctx_new(uint16_t min_version) {
  mb_ctx *ctx = calloc(1, sizeof(*ctx));
  if (ctx == NULL) return NULL;
  atomic_init(&ctx->refs, 1);
  ctx->min_version = min_version;
  ctx->record_layer = MB_RECORDS_SSL;
  ctx->key_update_after = MB_KEY_UPDATE_AFTER;
  return ctx;
}

void mb_ctx_set_record_layer(mb_ctx *ctx, int layer, uint64_t key_update_after) {
  ctx->record_layer = layer;
  ctx->key_update_after = key_update_after ? key_update_after : MB_KEY_UPDATE_AFTER;
}

void mb_ctx_ref(mb_ctx *ctx) { atomic_fetch_add(&ctx->refs, 1); }

void mb_ctx_free(mb_ctx *ctx) {
  if (ctx == NULL || atomic_fetch_sub(&ctx->refs, 1) != 1) return;
  for (size_t i = 0; i < ctx->ncerts; i++) {
    SSL_CTX_free(ctx->certs[i].ssl_ctx);
    X509_free(ctx->certs[i].leaf);
  }
  free(ctx->certs);
  OPENSSL_cleanse(ctx->ticket_keys, sizeof(ctx->ticket_keys));
  free(ctx);
}

int mb_ctx_conns(const mb_ctx *ctx) { return atomic_load(&ctx->refs) - 1; }

mb_ctx *mb_ctx_from_ssl(const SSL *ssl) { return SSL_CTX_get_app_data(SSL_get_SSL_CTX(ssl)); }

/* error_reason returns the reason of the oldest queued error (or fallback) and clears the queue. */
static const char *error_reason(const char *fallback) {
  const char *reason = ERR_reason_error_string(ERR_get_error());
  ERR_clear_error();
  return reason ? reason : fallback;
}

static SSL_CTX *new_ssl_ctx(mb_ctx *ctx) {
  SSL_CTX *s = SSL_CTX_new(TLS_method());
  if (s == NULL) return NULL;
  if (!SSL_CTX_set_min_proto_version(s, ctx->min_version) ||
      !SSL_CTX_set_max_proto_version(s, TLS1_3_VERSION) ||
      !SSL_CTX_set_strict_cipher_list(s, kCipherList) ||
      !SSL_CTX_set1_group_ids_with_flags(s, kGroups, kGroupFlags,
                                         sizeof(kGroups) / sizeof(kGroups[0]))) {
    SSL_CTX_free(s);
    return NULL;
  }
  SSL_CTX_set_options(s, SSL_OP_CIPHER_SERVER_PREFERENCE);
  /* Resumption is by ticket only (like crypto/tls): no per-session server memory. */
  SSL_CTX_set_session_cache_mode(s, SSL_SESS_CACHE_OFF);
  SSL_CTX_set_app_data(s, ctx);
  mb_install_callbacks(s, ctx);
  return s;
}

/* load_chain puts the leaf and every further certificate of the PEM chain into s. */
static int load_chain(SSL_CTX *s, BIO *pem, X509 **leaf_out) {
  X509 *leaf = PEM_read_bio_X509(pem, NULL, NULL, NULL);
  if (leaf == NULL || !SSL_CTX_use_certificate(s, leaf)) {
    X509_free(leaf);
    return 0;
  }
  X509 *extra;
  while ((extra = PEM_read_bio_X509(pem, NULL, NULL, NULL)) != NULL) {
    int ok = SSL_CTX_add1_chain_cert(s, extra);
    X509_free(extra);
    if (!ok) {
      X509_free(leaf);
      return 0;
    }
  }
  ERR_clear_error(); /* the loop ends on "no start line", which is not an error */
  *leaf_out = leaf;
  return 1;
}

static int load_key(SSL_CTX *s, BIO *pem) {
  EVP_PKEY *key = PEM_read_bio_PrivateKey(pem, NULL, NULL, NULL);
  int ok = key != NULL && SSL_CTX_use_PrivateKey(s, key) && SSL_CTX_check_private_key(s);
  EVP_PKEY_free(key);
  return ok;
}

static int append_cert(mb_ctx *ctx, SSL_CTX *s, X509 *leaf) {
  mb_cert *grown = realloc(ctx->certs, (ctx->ncerts + 1) * sizeof(*grown));
  if (grown == NULL) return 0;
  ctx->certs = grown;
  ctx->certs[ctx->ncerts++] = (mb_cert){.ssl_ctx = s, .leaf = leaf};
  return 1;
}

int mb_ctx_add_cert(mb_ctx *ctx, const uint8_t *chain_pem, size_t chain_len, const uint8_t *key_pem,
                    size_t key_len, const char **reason) {
  ERR_clear_error();
  SSL_CTX *s = new_ssl_ctx(ctx);
  BIO *chain = BIO_new_mem_buf(chain_pem, chain_len);
  BIO *key = BIO_new_mem_buf(key_pem, key_len);
  X509 *leaf = NULL;
  const char *why = NULL;
  if (s == NULL || chain == NULL || key == NULL) {
    why = error_reason("out of memory");
  } else if (!load_chain(s, chain, &leaf)) {
    why = error_reason("certificate chain is not valid PEM");
  } else if (!load_key(s, key)) {
    why = error_reason("private key is not valid PEM or does not match the certificate");
  } else if (!append_cert(ctx, s, leaf)) {
    why = "out of memory";
  }
  BIO_free(chain);
  BIO_free(key);
  if (why == NULL) return 1;
  X509_free(leaf);
  SSL_CTX_free(s);
  *reason = why;
  return 0;
}

int mb_ctx_set_ticket_keys(mb_ctx *ctx, const uint8_t *keys, size_t n) {
  if (n == 0 || n > MB_MAX_TICKET_KEYS) return 0;
  memcpy(ctx->ticket_keys, keys, n * MB_TICKET_KEY_LEN);
  ctx->nticket_keys = n;
  return 1;
}

void mb_ctx_set_keylog(mb_ctx *ctx, mb_keylog_fn fn, void *handle) {
  ctx->keylog_fn = fn;
  ctx->keylog_handle = handle;
}
