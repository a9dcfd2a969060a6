/* mb_engine_test: the shim's server engine against a plain BoringSSL client, all in memory. */
#include "mb_test.h"
#include "mbtls.h"

#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SANITIZE_ADDRESS__)
size_t __sanitizer_get_current_allocated_bytes(void); /* libasan's; its header is not installed */
#endif

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/ec_key.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

typedef struct {
  char *cert;
  size_t cert_len;
  char *key;
  size_t key_len;
} pem_pair;

static void take_bio(BIO *bio, char **out, size_t *out_len) {
  const uint8_t *data;
  size_t len;
  BIO_mem_contents(bio, &data, &len);
  *out = malloc(len);
  memcpy(*out, data, len);
  *out_len = len;
  BIO_free(bio);
}

/* make_cert makes a self-signed ECDSA P-256 certificate for the DNS name. */
static pem_pair make_cert(const char *name) {
  EVP_PKEY *pkey = EVP_PKEY_new();
  EC_KEY *ec = EC_KEY_new_by_curve_name(NID_X9_62_prime256v1);
  EC_KEY_generate_key(ec);
  EVP_PKEY_assign_EC_KEY(pkey, ec);
  X509 *x = X509_new();
  X509_set_version(x, X509_VERSION_3);
  ASN1_INTEGER_set(X509_get_serialNumber(x), 1);
  X509_gmtime_adj(X509_getm_notBefore(x), -3600);
  X509_gmtime_adj(X509_getm_notAfter(x), 3600);
  X509_NAME *subject = X509_get_subject_name(x);
  X509_NAME_add_entry_by_txt(subject, "CN", MBSTRING_ASC, (const uint8_t *)name, -1, -1, 0);
  X509_set_issuer_name(x, subject);
  char san[128];
  snprintf(san, sizeof(san), "DNS:%s", name);
  X509_EXTENSION *ext = X509V3_EXT_nconf_nid(NULL, NULL, NID_subject_alt_name, san);
  X509_add_ext(x, ext, -1);
  X509_EXTENSION_free(ext);
  X509_set_pubkey(x, pkey);
  X509_sign(x, pkey, EVP_sha256());
  pem_pair p;
  BIO *cert = BIO_new(BIO_s_mem()), *key = BIO_new(BIO_s_mem());
  PEM_write_bio_X509(cert, x);
  PEM_write_bio_PrivateKey(key, pkey, NULL, NULL, 0, NULL, NULL);
  take_bio(cert, &p.cert, &p.cert_len);
  take_bio(key, &p.key, &p.key_len);
  X509_free(x);
  EVP_PKEY_free(pkey);
  return p;
}

static void free_pem(pem_pair p) {
  free(p.cert);
  free(p.key);
}

/* A client: plain BoringSSL over two memory BIOs that the test moves bytes between. */
typedef struct {
  SSL *ssl;
  BIO *in, *out; /* in: what the server sent; out: what the client wants to send */
} client;

static client client_new(SSL_CTX *cctx, const char *sni) {
  client c = {SSL_new(cctx), BIO_new(BIO_s_mem()), BIO_new(BIO_s_mem())};
  SSL_set_bio(c.ssl, c.in, c.out);
  SSL_set_connect_state(c.ssl);
  if (sni) SSL_set_tlsext_host_name(c.ssl, sni);
  return c;
}

/* last_session is the newest session a client got (TLS 1.3 tickets arrive after the handshake,
 * so SSL_get1_session is not enough). */
static SSL_SESSION *last_session;
static int on_new_session(SSL *ssl, SSL_SESSION *session) {
  (void)ssl;
  SSL_SESSION_free(last_session);
  last_session = session;
  return 1;
}

/* The client prefers X25519 to the post-quantum hybrid: the server's preference must win. P-256
 * is there for TLS 1.2, where an ECDSA certificate's curve must be one the client offers. */
static const uint16_t kClientGroups[] = {SSL_GROUP_X25519, SSL_GROUP_X25519_MLKEM768,
                                         SSL_GROUP_SECP256R1};

static SSL_CTX *client_ctx(uint16_t max_version) {
  SSL_CTX *cctx = SSL_CTX_new(TLS_method());
  SSL_CTX_set_max_proto_version(cctx, max_version);
  SSL_CTX_set1_group_ids(cctx, kClientGroups, 3);
  SSL_CTX_set_alpn_protos(cctx, (const uint8_t *)"\x08http/1.1", 9);
  SSL_CTX_set_session_cache_mode(cctx, SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL);
  SSL_CTX_sess_set_new_cb(cctx, on_new_session);
  return cctx;
}

static uint8_t wire[1 << 20];

/* feed hands the client's pending bytes to the server engine `chunk` bytes per call (to split
 * records at every boundary) with op, and the server's answer back to the client. */
typedef void (*engine_op)(mb_conn *, const uint8_t *, size_t, uint8_t *, size_t, mb_result *);

static mb_result feed(mb_conn *server, client *c, engine_op op, size_t chunk, uint8_t *plain,
                      size_t plain_cap, size_t *plain_len) {
  mb_result res = {0};
  res.status = MB_WANT_READ;
  size_t n = (size_t)BIO_read(c->out, wire, sizeof(wire)), off = 0;
  if ((int)n <= 0) n = 0;
  do {
    size_t piece = n - off < chunk ? n - off : chunk;
    uint8_t *out = plain ? plain + *plain_len : wire + n;
    size_t cap = plain ? plain_cap - *plain_len : sizeof(wire) - n;
    op(server, wire + off, piece, out, cap, &res);
    off += res.consumed;
    if (plain) {
      *plain_len += res.produced;
    } else {
      BIO_write(c->in, out, (int)res.produced);
    }
    if (res.status == MB_FATAL || res.status == MB_CLOSED) break;
  } while (off < n);
  return res;
}

static int handshake(mb_conn *server, client *c, size_t chunk) {
  for (int round = 0; round < 10; round++) {
    int cr = SSL_do_handshake(c->ssl);
    mb_result res = feed(server, c, mb_handshake, chunk, NULL, 0, NULL);
    if (res.status == MB_FATAL) return 0;
    if (res.status == MB_OK && cr == 1) return 1;
  }
  return 0;
}

/* The record layer of the contexts server_ctx makes: test_engine runs the tests with each. */
static int records = MB_RECORDS_SSL;

static mb_ctx *server_ctx(pem_pair a, pem_pair b) {
  mb_ctx *ctx = mb_ctx_new(MB_TLS12);
  mb_ctx_set_record_layer(ctx, records, 0);
  const char *reason = NULL;
  CHECK(mb_ctx_add_cert(ctx, (uint8_t *)a.cert, a.cert_len, (uint8_t *)a.key, a.key_len, &reason));
  CHECK(mb_ctx_add_cert(ctx, (uint8_t *)b.cert, b.cert_len, (uint8_t *)b.key, b.key_len, &reason));
  uint8_t keys[2 * MB_TICKET_KEY_LEN];
  for (size_t i = 0; i < sizeof(keys); i++) keys[i] = (uint8_t)(i * 7);
  CHECK(mb_ctx_set_ticket_keys(ctx, keys, 2));
  return ctx;
}

static int keylog_lines;
static void count_keylog(void *handle, const char *line) {
  CHECK(handle == &keylog_lines && strlen(line) > 20);
  keylog_lines++;
}

/* round_trip seals len bytes on the server and reads them on the client, then the reverse with
 * the server opening `chunk` bytes per call. */
static void round_trip(mb_conn *server, client *c, size_t len, size_t chunk) {
  uint8_t *data = malloc(len), *got = malloc(len), *sealed = malloc(mb_seal_bound(len));
  for (size_t i = 0; i < len; i++) data[i] = (uint8_t)(i * 31 + 7);
  mb_result res;
  mb_seal(server, data, len, sealed, mb_seal_bound(len), &res);
  CHECK(res.status == MB_OK && res.consumed == len && res.out_pending == 0);
  BIO_write(c->in, sealed, (int)res.produced);
  size_t n = 0;
  int r;
  while (n < len && (r = SSL_read(c->ssl, got + n, (int)(len - n))) > 0) n += (size_t)r;
  CHECK(n == len && memcmp(got, data, len) == 0);
  CHECK(SSL_write(c->ssl, data, (int)len) == (int)len);
  n = 0;
  res = feed(server, c, mb_open, chunk, got, len, &n);
  CHECK(res.status != MB_FATAL && n == len && memcmp(got, data, len) == 0);
  free(data);
  free(got);
  free(sealed);
}

static void test_sessions(pem_pair a, pem_pair b) {
  mb_ctx *ctx = server_ctx(a, b);
  mb_ctx_set_keylog(ctx, count_keylog, &keylog_lines);
  uint16_t versions[] = {TLS1_2_VERSION, TLS1_3_VERSION};
  for (size_t v = 0; v < 2; v++) {
    SSL_CTX *cctx = client_ctx(versions[v]);
    client c = client_new(cctx, "b.test");
    mb_conn *server = mb_conn_new(ctx);
    CHECK(mb_ctx_conns(ctx) == 1);
    CHECK(handshake(server, &c, v == 0 ? 1 : 4096)); /* TLS 1.2: one byte per call */
    mb_state st;
    mb_conn_state(server, &st);
    CHECK(st.version == versions[v] && strcmp(st.alpn, "http/1.1") == 0);
    CHECK(strcmp(st.server_name, "b.test") == 0 && !st.resumed);
    CHECK(st.aead_records == (records == MB_RECORDS_AEAD && versions[v] == TLS1_3_VERSION));
    /* The hybrid is TLS 1.3 only; in TLS 1.2 the client's first classical group stands. */
    CHECK(st.group == (v == 0 ? SSL_GROUP_X25519 : SSL_GROUP_X25519_MLKEM768));
    X509 *peer = SSL_get_peer_certificate(c.ssl);
    CHECK(peer != NULL && X509_check_host(peer, "b.test", 6, 0, NULL) == 1); /* SNI chose b */
    X509_free(peer);
    round_trip(server, &c, 100000, 1 << 20);
    round_trip(server, &c, 3000, 1);
    mb_result res;
    uint8_t out[256];
    mb_shutdown(server, out, sizeof(out), &res);
    CHECK(res.status == MB_OK && res.produced > 0);
    BIO_write(c.in, out, (int)res.produced);
    CHECK(SSL_read(c.ssl, out, sizeof(out)) == 0 && SSL_get_error(c.ssl, 0) == SSL_ERROR_ZERO_RETURN);
    /* After its close_notify the server writes no more, and still reads what the client sends. */
    mb_seal(server, (const uint8_t *)"x", 1, out, sizeof(out), &res);
    CHECK(res.status == MB_FATAL && res.consumed == 0 && res.produced == 0);
    CHECK(SSL_write(c.ssl, "late", 4) == 4);
    size_t late = 0;
    res = feed(server, &c, mb_open, 4096, out, sizeof(out), &late);
    CHECK(res.status != MB_FATAL && late == 4 && memcmp(out, "late", 4) == 0);
    mb_conn_free(server);
    CHECK(mb_ctx_conns(ctx) == 0);
    SSL_free(c.ssl);

    client again = client_new(cctx, "b.test");
    CHECK(last_session != NULL);
    SSL_set_session(again.ssl, last_session);
    server = mb_conn_new(ctx);
    CHECK(handshake(server, &again, 4096));
    mb_conn_state(server, &st);
    CHECK(st.resumed == 1);
    CHECK(st.aead_records == (records == MB_RECORDS_AEAD && versions[v] == TLS1_3_VERSION));
    round_trip(server, &again, 20000, 1000);
    mb_conn_free(server);
    SSL_free(again.ssl);
    SSL_CTX_free(cctx);
  }
  CHECK(keylog_lines > 0);
  SSL_SESSION_free(last_session);
  last_session = NULL;
  mb_ctx_free(ctx);
}

/* open_inplace feeds stream to mb_open_inplace `chunk` bytes per call, each call's buffer with
 * MB_MAX_PLAINTEXT bytes of room, as the event loop calls it; the plaintext is appended to got. */
static mb_result open_inplace(mb_conn *server, const uint8_t *stream, size_t len, size_t chunk,
                              uint8_t *got, size_t *got_len) {
  uint8_t *buf = malloc(chunk + MB_MAX_PLAINTEXT);
  mb_result res = {0};
  for (size_t off = 0; off < len; off += res.consumed) {
    size_t piece = len - off < chunk ? len - off : chunk;
    memcpy(buf, stream + off, piece);
    mb_open_inplace(server, buf, piece, piece + MB_MAX_PLAINTEXT, &res);
    memcpy(got + *got_len, buf, res.produced);
    *got_len += res.produced;
    if (res.status == MB_FATAL || res.status == MB_CLOSED) break;
    CHECK(res.consumed == piece && res.plain_pending == 0);
  }
  free(buf);
  return res;
}

/* client_records makes the client seal len bytes in writes of assorted sizes and returns the
 * record stream. */
static size_t client_records(client *c, uint8_t *data, size_t len, uint8_t *stream) {
  static const size_t sizes[] = {1, 500, 16384, 20000, 3, 16383, 40000};
  for (size_t i = 0; i < len; i++) data[i] = (uint8_t)(i * 13 + 5);
  for (size_t off = 0, k = 0; off < len; k++) {
    size_t n = sizes[k % 7] < len - off ? sizes[k % 7] : len - off;
    CHECK(SSL_write(c->ssl, data + off, (int)n) == (int)n);
    off += n;
  }
  int n = BIO_read(c->out, stream, 1 << 20);
  return n > 0 ? (size_t)n : 0;
}

/* test_open_inplace: records split at every kind of boundary open in place to the same bytes; a
 * corrupted record is fatal with bad_record_mac sent back; close_notify ends the stream. */
static void test_open_inplace(pem_pair a, pem_pair b) {
  mb_ctx *ctx = server_ctx(a, b);
  uint16_t versions[] = {TLS1_2_VERSION, TLS1_3_VERSION};
  static const size_t chunks[] = {1, 7, 1000, 16389, 70000, 1 << 20};
  enum { len = 150000 };
  uint8_t *data = malloc(len), *got = malloc(len), *stream = malloc(1 << 20);
  for (size_t v = 0; v < 2; v++) {
    SSL_CTX *cctx = client_ctx(versions[v]);
    for (size_t k = 0; k < sizeof(chunks) / sizeof(chunks[0]); k++) {
      client c = client_new(cctx, "a.test");
      mb_conn *server = mb_conn_new(ctx);
      CHECK(handshake(server, &c, 4096));
      size_t n = client_records(&c, data, len, stream), got_len = 0;
      mb_result res = open_inplace(server, stream, n, chunks[k], got, &got_len);
      CHECK(res.status != MB_FATAL && got_len == len && memcmp(got, data, len) == 0);

      CHECK(SSL_write(c.ssl, data, 100) == 100);
      n = (size_t)BIO_read(c.out, stream, 1 << 20);
      stream[n / 2] ^= 1;
      got_len = 0;
      res = open_inplace(server, stream, n, chunks[k], got, &got_len);
      CHECK(res.status == MB_FATAL && strcmp(res.reason, "BAD_DECRYPT") == 0); /* the first error */
      CHECK(res.out_pending > 0);
      mb_drain(server, stream, 1 << 20, &res);
      BIO_write(c.in, stream, (int)res.produced);
      CHECK(SSL_read(c.ssl, got, 1) < 0);
      CHECK(ERR_GET_REASON(ERR_get_error()) == SSL_R_SSLV3_ALERT_BAD_RECORD_MAC);
      ERR_clear_error();
      mb_conn_free(server);
      SSL_free(c.ssl);
    }
    client c = client_new(cctx, "a.test");
    mb_conn *server = mb_conn_new(ctx);
    CHECK(handshake(server, &c, 4096));
    CHECK(SSL_write(c.ssl, data, 10) == 10 && SSL_shutdown(c.ssl) == 0);
    size_t n = (size_t)BIO_read(c.out, stream, 1 << 20), got_len = 0;
    mb_result res = open_inplace(server, stream, n, 1 << 20, got, &got_len);
    CHECK(res.status == MB_CLOSED && got_len == 10);
    mb_conn_free(server);
    SSL_free(c.ssl);
    SSL_CTX_free(cctx);
  }
  free(data);
  free(got);
  free(stream);
  mb_ctx_free(ctx);
}

/* test_key_update: a client's KeyUpdate asking for one back is answered by BoringSSL ahead of
 * the server's next records (it queues the answer for the next write, not the read), and the
 * client reads those records with it. */
static void test_key_update(pem_pair a, pem_pair b) {
  mb_ctx *ctx = server_ctx(a, b);
  SSL_CTX *cctx = client_ctx(TLS1_3_VERSION);
  client c = client_new(cctx, "a.test");
  mb_conn *server = mb_conn_new(ctx);
  CHECK(handshake(server, &c, 4096));
  uint8_t got[64], wire[4096];
  CHECK(SSL_key_update(c.ssl, SSL_KEY_UPDATE_REQUESTED) && SSL_write(c.ssl, "after", 5) == 5);
  size_t n = (size_t)BIO_read(c.out, wire, sizeof(wire)), got_len = 0;
  mb_result res = open_inplace(server, wire, n, n, got, &got_len);
  CHECK(res.status != MB_FATAL && got_len == 5 && memcmp(got, "after", 5) == 0);
  /* The AEAD record layer answers at once; the answer waits in the engine for a drain. */
  CHECK(records == MB_RECORDS_AEAD ? res.out_pending > 0 : res.out_pending == 0);
  mb_drain(server, wire, sizeof(wire), &res);
  BIO_write(c.in, wire, (int)res.produced);
  mb_seal(server, (const uint8_t *)"new keys", 8, wire, mb_seal_bound(8), &res);
  CHECK(res.status == MB_OK && res.out_pending == 0);
  CHECK(res.produced > 8 + 22 || records == MB_RECORDS_AEAD); /* SSL: KeyUpdate and data */
  BIO_write(c.in, wire, (int)res.produced);
  CHECK(SSL_read(c.ssl, got, sizeof(got)) == 8 && memcmp(got, "new keys", 8) == 0);
  mb_conn_free(server);
  SSL_free(c.ssl);
  SSL_CTX_free(cctx);
  SSL_SESSION_free(last_session);
  last_session = NULL;
  mb_ctx_free(ctx);
}

/* allocated_bytes is what the heap holds now: ASan's count under the sanitizer, glibc's
 * otherwise. */
static size_t allocated_bytes(void) {
#if defined(__SANITIZE_ADDRESS__)
  return __sanitizer_get_current_allocated_bytes();
#else
  return mallinfo2().uordblks;
#endif
}

/* test_idle_memory: what an established, idle server connection keeps (the session, keys,
 * engine state; BoringSSL frees its record buffers once a record is consumed, with no
 * SSL_MODE_RELEASE_BUFFERS to set: that flag is 0 in its ssl.h). The clients are freed as soon
 * as their handshake and one record each way are done, so only the servers stay counted. */
static void test_idle_memory(pem_pair a, pem_pair b) {
  enum { conns = 500 };
  mb_ctx *ctx = server_ctx(a, b);
  SSL_CTX *cctx = client_ctx(TLS1_3_VERSION);
  mb_conn *servers[conns];
  uint8_t data[100], got[100], sealed[200];
  size_t before = allocated_bytes();
  for (size_t i = 0; i < conns; i++) {
    client c = client_new(cctx, "a.test");
    servers[i] = mb_conn_new(ctx);
    CHECK(handshake(servers[i], &c, 4096));
    size_t n = client_records(&c, data, sizeof(data), sealed), got_len = 0;
    open_inplace(servers[i], sealed, n, n, got, &got_len);
    mb_result res;
    mb_seal(servers[i], data, sizeof(data), sealed, sizeof(sealed), &res);
    CHECK(got_len == sizeof(data) && res.status == MB_OK);
    SSL_free(c.ssl);
  }
  size_t per = (allocated_bytes() - before) / conns;
  printf("mb_native_test: an idle TLS 1.3 server connection holds %zu bytes\n", per);
  CHECK(per < 8192);
  for (size_t i = 0; i < conns; i++) mb_conn_free(servers[i]);
  SSL_CTX_free(cctx);
  SSL_SESSION_free(last_session);
  last_session = NULL;
  mb_ctx_free(ctx);
}

static void test_garbage(pem_pair a, pem_pair b) {
  mb_ctx *ctx = server_ctx(a, b);
  static const uint8_t garbage[] = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
  mb_conn *server = mb_conn_new(ctx);
  mb_ctx_free(ctx); /* the connection keeps the context alive */
  uint8_t out[4096];
  mb_result res;
  mb_handshake(server, garbage, sizeof(garbage), out, sizeof(out), &res);
  CHECK(res.status == MB_FATAL && res.reason != NULL && strlen(res.reason) > 0);
  mb_handshake(server, garbage, sizeof(garbage), out, sizeof(out), &res);
  CHECK(res.status == MB_FATAL); /* stays dead */
  mb_conn_free(server);

  static const uint8_t oversize[] = {0x16, 0x03, 0x01, 0xff, 0xff};
  ctx = server_ctx(a, b);
  server = mb_conn_new(ctx);
  mb_handshake(server, oversize, sizeof(oversize), out, sizeof(out), &res);
  CHECK(res.status == MB_FATAL && res.reason != NULL);
  mb_conn_free(server);
  mb_ctx_free(ctx);
}

static void test_bad_pem(pem_pair a) {
  mb_ctx *ctx = mb_ctx_new(MB_TLS13);
  const char *reason = NULL;
  CHECK(!mb_ctx_add_cert(ctx, (const uint8_t *)"nope", 4, (uint8_t *)a.key, a.key_len, &reason));
  CHECK(reason != NULL);
  pem_pair other = make_cert("other.test");
  reason = NULL;
  CHECK(!mb_ctx_add_cert(ctx, (uint8_t *)a.cert, a.cert_len, (uint8_t *)other.key, other.key_len,
                         &reason));
  CHECK(reason != NULL);
  CHECK(mb_conn_new(ctx) == NULL); /* no certificate */
  CHECK(!mb_ctx_set_ticket_keys(ctx, NULL, 0));
  free_pem(other);
  mb_ctx_free(ctx);
}

/* test_aead_key_updates: the AEAD record layer sends a KeyUpdate every key_update_after records
 * and the client reads across them; the client's own KeyUpdates, asked for an answer or not,
 * switch the server's read key (and write key when asked) mid-stream. */
static void test_aead_key_updates(pem_pair a, pem_pair b) {
  mb_ctx *ctx = server_ctx(a, b);
  mb_ctx_set_record_layer(ctx, MB_RECORDS_AEAD, 2);
  SSL_CTX *cctx = client_ctx(TLS1_3_VERSION);
  client c = client_new(cctx, "a.test");
  mb_conn *server = mb_conn_new(ctx);
  CHECK(handshake(server, &c, 4096));
  for (int round = 0; round < 4; round++) {
    round_trip(server, &c, 100000, round == 0 ? 1 : 1 << 20); /* 7 records: 3 KeyUpdates */
    CHECK(SSL_key_update(c.ssl, round % 2 ? SSL_KEY_UPDATE_REQUESTED : SSL_KEY_UPDATE_NOT_REQUESTED));
    round_trip(server, &c, 1000, 100);
    mb_result res;
    uint8_t out[4096];
    mb_drain(server, out, sizeof(out), &res); /* an answer, if it was asked for */
    CHECK((res.produced > 0) == (round % 2 == 1));
    BIO_write(c.in, out, (int)res.produced);
  }
  mb_conn_free(server);
  SSL_free(c.ssl);
  SSL_CTX_free(cctx);
  SSL_SESSION_free(last_session);
  last_session = NULL;
  mb_ctx_free(ctx);
}

void test_engine(void) {
  pem_pair a = make_cert("a.test"), b = make_cert("b.test");
  for (records = MB_RECORDS_SSL; records <= MB_RECORDS_AEAD; records++) {
    printf("mb_native_test: record layer %s\n", records == MB_RECORDS_AEAD ? "aead" : "ssl");
    test_sessions(a, b);
    test_garbage(a, b);
    test_open_inplace(a, b);
    test_key_update(a, b);
    test_idle_memory(a, b);
  }
  test_aead_key_updates(a, b);
  test_bad_pem(a);
  CHECK(mb_seal_bound(65550) >= 65550 + 5 * 29);
  free_pem(a);
  free_pem(b);
}
