/* mb_rec.c: the TLS 1.3 record layer after the handshake, done with BoringSSL's AEAD directly.
 *
 * SSL_read costs about three times the AEAD for a small record (the error queue, a read buffer
 * allocated and freed per record, two BIO reads). Once a TLS 1.3 handshake is over, mb_conn
 * takes the traffic secrets and this engine opens and seals application records itself, in the
 * kernel-TLS model: keys in (mb_rec_keys), records out. It does everything RFC 8446 asks of the
 * record layer from then on: the per-record nonce, the inner content type and its zero padding,
 * the length limits, alerts both ways, and KeyUpdate (section 4.6.3) both ways. Errors carry
 * BoringSSL's own reason strings and alerts, so a session fails the same way on either path.
 *
 * Memory: between calls it keeps only the two AEAD contexts, unless a record is half-received
 * or opened plaintext did not fit the caller's buffer; then one record-sized buffer, freed as
 * soon as it is empty (as BoringSSL frees its read buffer). */
#include "mb_internal.h"

#include <stdlib.h>
#include <string.h>

#include <openssl/aead.h>
#include <openssl/digest.h>
#include <openssl/err.h>
#include <openssl/hkdf.h>

#define HDR 5
#define NONCE 12
#define MAX_CIPHERTEXT (MB_MAX_PLAINTEXT + 256) /* RFC 8446 section 5.2 */
#define MAX_RECORD (HDR + MAX_CIPHERTEXT)
#define MAX_EMPTY_RECORDS 32 /* BoringSSL's limits on what makes no progress */
#define MAX_WARNING_ALERTS 4
#define MAX_KEY_UPDATES 32

enum { CT_ALERT = 21, CT_HANDSHAKE = 22, CT_APPLICATION_DATA = 23 };
enum { MT_KEY_UPDATE = 24, KEY_UPDATE_LEN = 5 };

/* One direction's key: the traffic secret it came from (for the next KeyUpdate), the AEAD
 * context, the static IV and the sequence number of the next record. */
typedef struct {
  uint8_t secret[MB_MAX_SECRET];
  EVP_AEAD_CTX aead;
  uint8_t iv[NONCE];
  uint64_t seq;
} direction;

struct mb_rec {
  const EVP_AEAD *aead;
  const EVP_MD *md;
  uint16_t suite;
  size_t secret_len, tag_len;
  uint64_t key_update_after;
  direction rd, wr;
  /* buf holds either a record not complete yet (rec_len bytes of it) or opened plaintext that
   * did not fit the caller's buffer (plain_len bytes at plain_off), never both: plaintext
   * pending stops the input, so no partial record starts behind it. */
  uint8_t *buf;
  size_t rec_len, plain_off, plain_len;
  uint8_t hs[KEY_UPDATE_LEN]; /* a KeyUpdate arriving split over records */
  size_t hs_len;
  unsigned empty_records, warning_alerts, key_updates;
  int read_closed, write_closed;
  const char *fatal; /* the reason the session died; every later call fails with it */
};

/* ---- keys ------------------------------------------------------------------------------- */

/* expand_label is HKDF-Expand-Label(secret, label, "", len) of RFC 8446 section 7.1. */
static int expand_label(const mb_rec *r, uint8_t *out, size_t len, const uint8_t *secret,
                        const char *label) {
  uint8_t info[2 + 1 + 6 + 16 + 1];
  size_t label_len = strlen(label), n = 0;
  info[n++] = (uint8_t)(len >> 8);
  info[n++] = (uint8_t)len;
  info[n++] = (uint8_t)(6 + label_len);
  memcpy(info + n, "tls13 ", 6);
  memcpy(info + n + 6, label, label_len);
  n += 6 + label_len;
  info[n++] = 0; /* empty context */
  return HKDF_expand(out, len, r->md, secret, r->secret_len, info, n);
}

/* set_key derives key and IV from d->secret (RFC 8446 section 7.3) and restarts the sequence. */
static int set_key(const mb_rec *r, direction *d, enum evp_aead_direction_t dir) {
  uint8_t key[EVP_AEAD_MAX_KEY_LENGTH];
  size_t key_len = EVP_AEAD_key_length(r->aead);
  EVP_AEAD_CTX_cleanup(&d->aead);
  int ok = expand_label(r, key, key_len, d->secret, "key") &&
           expand_label(r, d->iv, NONCE, d->secret, "iv") &&
           EVP_AEAD_CTX_init_with_direction(&d->aead, r->aead, key, key_len,
                                            EVP_AEAD_DEFAULT_TAG_LENGTH, dir);
  OPENSSL_cleanse(key, sizeof(key));
  d->seq = 0;
  return ok;
}

/* next_key is KeyUpdate: the next secret is HKDF-Expand-Label(secret, "traffic upd"). */
static int next_key(const mb_rec *r, direction *d, enum evp_aead_direction_t dir) {
  uint8_t next[MB_MAX_SECRET];
  if (!expand_label(r, next, r->secret_len, d->secret, "traffic upd")) return 0;
  memcpy(d->secret, next, r->secret_len);
  OPENSSL_cleanse(next, sizeof(next));
  return set_key(r, d, dir);
}

static void nonce_for(const direction *d, uint8_t nonce[NONCE]) {
  memcpy(nonce, d->iv, NONCE);
  for (int i = 0; i < 8; i++) nonce[NONCE - 1 - i] ^= (uint8_t)(d->seq >> (8 * i));
}

static int suite_params(mb_rec *r, uint16_t suite) {
  switch (suite) {
    case 0x1301:
      r->aead = EVP_aead_aes_128_gcm(), r->md = EVP_sha256();
      return 1;
    case 0x1302:
      r->aead = EVP_aead_aes_256_gcm(), r->md = EVP_sha384();
      return 1;
    case 0x1303:
      r->aead = EVP_aead_chacha20_poly1305(), r->md = EVP_sha256();
      return 1;
  }
  return 0;
}

mb_rec *mb_rec_new(const mb_rec_keys *k) {
  mb_rec *r = calloc(1, sizeof(*r));
  if (r == NULL) return NULL;
  EVP_AEAD_CTX_zero(&r->rd.aead);
  EVP_AEAD_CTX_zero(&r->wr.aead);
  if (!suite_params(r, k->suite) || k->secret_len != EVP_MD_size(r->md)) {
    mb_rec_free(r);
    return NULL;
  }
  r->suite = k->suite;
  r->secret_len = k->secret_len;
  r->tag_len = EVP_AEAD_max_overhead(r->aead);
  r->key_update_after = k->key_update_after;
  memcpy(r->rd.secret, k->read_secret, k->secret_len);
  memcpy(r->wr.secret, k->write_secret, k->secret_len);
  if (!set_key(r, &r->rd, evp_aead_open) || !set_key(r, &r->wr, evp_aead_seal)) {
    mb_rec_free(r);
    return NULL;
  }
  r->rd.seq = k->read_seq;
  r->wr.seq = k->write_seq;
  return r;
}

static void drop_buf(mb_rec *r) {
  free(r->buf);
  r->buf = NULL;
  r->rec_len = r->plain_off = r->plain_len = 0;
}

void mb_rec_free(mb_rec *r) {
  if (r == NULL) return;
  EVP_AEAD_CTX_cleanup(&r->rd.aead);
  EVP_AEAD_CTX_cleanup(&r->wr.aead);
  drop_buf(r);
  OPENSSL_cleanse(r, sizeof(*r));
  free(r);
}

size_t mb_rec_plain_pending(const mb_rec *r) { return r->plain_len; }

uint16_t mb_rec_suite(const mb_rec *r) { return r->suite; }

const char *mb_rec_export(const mb_rec *r, mb_tls_move *mv) {
  if (r->fatal != NULL || r->read_closed || r->write_closed) return "the TLS session has ended";
  if (r->rec_len > 0) return "a partial TLS record is buffered";
  if (r->plain_len > 0) return "opened plaintext is buffered";
  if (r->hs_len > 0) return "a post-handshake message is in flight";
  mv->suite = r->suite;
  mv->secret_len = r->secret_len;
  memcpy(mv->read_secret, r->rd.secret, r->secret_len);
  memcpy(mv->write_secret, r->wr.secret, r->secret_len);
  mv->read_seq = r->rd.seq;
  mv->write_seq = r->wr.seq;
  return NULL;
}

/* ---- sealing ---------------------------------------------------------------------------- */

static const char *reason_of(int code) {
  const char *s = ERR_reason_error_string(ERR_PACK(ERR_LIB_SSL, code));
  return s ? s : "internal error";
}

/* seal_record writes one record of the given inner type after everything already written. */
static int seal_record(mb_rec *r, mb_io *io, uint8_t type, const uint8_t *in, size_t len) {
  if (r->wr.seq + 1 == 0) {
    r->fatal = reason_of(ERR_R_OVERFLOW);
    return 0;
  }
  size_t body = len + 1 + r->tag_len;
  uint8_t *p = mb_io_reserve(io, HDR + body);
  if (p == NULL) {
    r->fatal = "out of memory";
    return 0;
  }
  p[0] = CT_APPLICATION_DATA, p[1] = 3, p[2] = 3, p[3] = (uint8_t)(body >> 8), p[4] = (uint8_t)body;
  uint8_t nonce[NONCE];
  nonce_for(&r->wr, nonce);
  size_t tag_len;
  if (!EVP_AEAD_CTX_seal_scatter(&r->wr.aead, p + HDR, p + HDR + len, &tag_len, 1 + r->tag_len,
                                 nonce, NONCE, in, len, &type, 1, p, HDR)) {
    r->fatal = "internal error";
    return 0;
  }
  mb_io_commit(io, HDR + len + tag_len);
  r->wr.seq++;
  return 1;
}

/* send_key_update sends a KeyUpdate under the current key and switches to the next. */
static int send_key_update(mb_rec *r, mb_io *io, uint8_t requested) {
  const uint8_t msg[KEY_UPDATE_LEN] = {MT_KEY_UPDATE, 0, 0, 1, requested};
  if (!seal_record(r, io, CT_HANDSHAKE, msg, sizeof(msg))) return 0;
  if (!next_key(r, &r->wr, evp_aead_seal)) {
    r->fatal = "internal error";
    return 0;
  }
  return 1;
}

static void send_alert(mb_rec *r, mb_io *io, uint8_t level, uint8_t desc) {
  const uint8_t alert[2] = {level, desc};
  const char *fatal = r->fatal;
  if (!r->write_closed) seal_record(r, io, CT_ALERT, alert, sizeof(alert));
  r->fatal = fatal; /* the reason is the first failure, not a failure to report it */
}

/* fail ends the session with BoringSSL's reason code and, unless 0, a fatal alert. */
static void fail(mb_rec *r, mb_io *io, int code, uint8_t alert) {
  r->fatal = reason_of(code);
  if (alert != 0) send_alert(r, io, SSL3_AL_FATAL, alert);
  r->write_closed = 1;
}

size_t mb_rec_seal(mb_rec *r, mb_io *io, const uint8_t *in, size_t in_len, mb_result *res) {
  size_t sealed = 0;
  if (r->write_closed && r->fatal == NULL && in_len > 0) {
    /* after our close_notify: this write fails, reading on stays possible */
    res->status = MB_FATAL;
    res->reason = reason_of(SSL_R_PROTOCOL_IS_SHUTDOWN);
    return 0;
  }
  while (sealed < in_len && r->fatal == NULL) {
    /* RFC 8446 section 5.5: change keys well before the AEAD's limit (2^24.5 AES-GCM records). */
    if (r->wr.seq >= r->key_update_after && !send_key_update(r, io, 0)) break;
    size_t n = in_len - sealed < MB_MAX_PLAINTEXT ? in_len - sealed : MB_MAX_PLAINTEXT;
    if (!seal_record(r, io, CT_APPLICATION_DATA, in + sealed, n)) break;
    sealed += n;
  }
  res->status = r->fatal ? MB_FATAL : MB_OK;
  res->reason = r->fatal;
  return sealed;
}

void mb_rec_shutdown(mb_rec *r, mb_io *io, mb_result *res) {
  if (!r->write_closed && r->fatal == NULL) {
    send_alert(r, io, SSL3_AL_WARNING, SSL_AD_CLOSE_NOTIFY);
    r->write_closed = 1;
  }
  res->status = r->fatal ? MB_FATAL : MB_OK;
  res->reason = r->fatal;
}

/* ---- opening ---------------------------------------------------------------------------- */

/* What one record gave: application data (at *plain), nothing for the caller, or an end. */
enum { GOT_DATA, GOT_NOTHING, GOT_CLOSE, GOT_FATAL };

/* check_header validates a record header and sets *len to its body length; 0 after failing. */
static int check_header(mb_rec *r, mb_io *io, const uint8_t *h, size_t *len) {
  *len = (size_t)h[3] << 8 | h[4];
  if (h[1] != 3 || h[2] != 3) {
    fail(r, io, SSL_R_WRONG_VERSION_NUMBER, SSL_AD_PROTOCOL_VERSION);
    return 0;
  }
  if (*len > MAX_CIPHERTEXT) {
    fail(r, io, SSL_R_ENCRYPTED_LENGTH_TOO_LONG, SSL_AD_RECORD_OVERFLOW);
    return 0;
  }
  return 1;
}

static int on_alert(mb_rec *r, mb_io *io, const uint8_t *a, size_t len) {
  if (len != 2) {
    fail(r, io, SSL_R_BAD_ALERT, SSL_AD_DECODE_ERROR);
    return GOT_FATAL;
  }
  if (a[0] == SSL3_AL_WARNING && a[1] == SSL_AD_CLOSE_NOTIFY) {
    r->read_closed = 1;
    return GOT_CLOSE;
  }
  if (a[0] == SSL3_AL_WARNING && a[1] == SSL_AD_USER_CANCELLED) { /* see BoringSSL's comment */
    if (++r->warning_alerts <= MAX_WARNING_ALERTS) return GOT_NOTHING;
    fail(r, io, SSL_R_TOO_MANY_WARNING_ALERTS, SSL_AD_UNEXPECTED_MESSAGE);
  } else if (a[0] == SSL3_AL_WARNING) { /* TLS 1.3 has no other warnings */
    fail(r, io, SSL_R_BAD_ALERT, SSL_AD_DECODE_ERROR);
  } else if (a[0] == SSL3_AL_FATAL) {
    fail(r, io, SSL_AD_REASON_OFFSET + a[1], 0);
  } else {
    fail(r, io, SSL_R_UNKNOWN_ALERT_TYPE, SSL_AD_ILLEGAL_PARAMETER);
  }
  return GOT_FATAL;
}

/* on_key_update acts on a whole KeyUpdate message in r->hs. */
static int on_key_update(mb_rec *r, mb_io *io, int more_in_record) {
  uint8_t requested = r->hs[4];
  r->hs_len = 0;
  if (++r->key_updates > MAX_KEY_UPDATES) {
    fail(r, io, SSL_R_TOO_MANY_KEY_UPDATES, SSL_AD_UNEXPECTED_MESSAGE);
  } else if (more_in_record) { /* RFC 8446 section 5.1: a key change ends its record */
    fail(r, io, SSL_R_EXCESS_HANDSHAKE_DATA, SSL_AD_UNEXPECTED_MESSAGE);
  } else if (!next_key(r, &r->rd, evp_aead_open)) {
    fail(r, io, ERR_R_INTERNAL_ERROR, SSL_AD_INTERNAL_ERROR);
  } else if (requested == 1 && !r->write_closed && !send_key_update(r, io, 0)) {
    r->write_closed = 1;
  }
  return r->fatal ? GOT_FATAL : GOT_NOTHING;
}

/* on_handshake takes post-handshake messages: a server accepts only KeyUpdate. */
static int on_handshake(mb_rec *r, mb_io *io, const uint8_t *m, size_t len) {
  for (size_t i = 0; i < len; i++) {
    r->hs[r->hs_len++] = m[i];
    if (r->hs_len == 1 && r->hs[0] != MT_KEY_UPDATE) {
      fail(r, io, SSL_R_UNEXPECTED_MESSAGE, SSL_AD_UNEXPECTED_MESSAGE);
      return GOT_FATAL;
    }
    if (r->hs_len == 4 && (r->hs[1] != 0 || r->hs[2] != 0 || r->hs[3] != 1)) {
      fail(r, io, SSL_R_DECODE_ERROR, SSL_AD_DECODE_ERROR);
      return GOT_FATAL;
    }
    if (r->hs_len == KEY_UPDATE_LEN) {
      if (r->hs[4] > 1) {
        fail(r, io, SSL_R_DECODE_ERROR, SSL_AD_DECODE_ERROR);
        return GOT_FATAL;
      }
      return on_key_update(r, io, i + 1 < len);
    }
  }
  return GOT_NOTHING;
}

/* open_record opens one whole record (header h, body of len bytes) into dst, which has room
 * for len bytes and may be body itself; on GOT_DATA the application data is dst[0:*plain_len]. */
static int open_record(mb_rec *r, mb_io *io, const uint8_t *h, const uint8_t *body, size_t len,
                       uint8_t *dst, size_t *plain_len) {
  uint8_t nonce[NONCE];
  nonce_for(&r->rd, nonce);
  size_t n;
  if (r->rd.seq + 1 == 0) {
    fail(r, io, ERR_R_OVERFLOW, SSL_AD_INTERNAL_ERROR);
    return GOT_FATAL;
  }
  if (len < r->tag_len) {
    /* BoringSSL's SSLAEADContext::Open refuses a body shorter than the tag before it opens
     * anything (BAD_PACKET_LENGTH, the first error queued), then sends bad_record_mac. */
    fail(r, io, SSL_R_DECRYPTION_FAILED_OR_BAD_RECORD_MAC, SSL_AD_BAD_RECORD_MAC);
    r->fatal = reason_of(SSL_R_BAD_PACKET_LENGTH);
    return GOT_FATAL;
  }
  if (!EVP_AEAD_CTX_open(&r->rd.aead, dst, &n, len, nonce, NONCE, body, len, h, HDR)) {
    /* The SSL path reports the first error queued, the AEAD's own (BAD_DECRYPT): so do we. */
    const char *first = ERR_reason_error_string(ERR_peek_error());
    ERR_clear_error();
    fail(r, io, SSL_R_DECRYPTION_FAILED_OR_BAD_RECORD_MAC, SSL_AD_BAD_RECORD_MAC);
    if (first != NULL) r->fatal = first;
    return GOT_FATAL;
  }
  r->rd.seq++;
  if (n > MB_MAX_PLAINTEXT + 1) { /* the limit counts the content type and the padding */
    fail(r, io, SSL_R_DATA_LENGTH_TOO_LONG, SSL_AD_RECORD_OVERFLOW);
    return GOT_FATAL;
  }
  if (h[0] != CT_APPLICATION_DATA) {
    fail(r, io, SSL_R_INVALID_OUTER_RECORD_TYPE, SSL_AD_DECODE_ERROR);
    return GOT_FATAL;
  }
  uint8_t type = 0;
  while (type == 0) { /* the inner content type is the last non-zero byte */
    if (n == 0) {
      fail(r, io, SSL_R_DECRYPTION_FAILED_OR_BAD_RECORD_MAC, SSL_AD_DECRYPT_ERROR);
      return GOT_FATAL;
    }
    type = dst[--n];
  }
  if (n == 0 && ++r->empty_records > MAX_EMPTY_RECORDS) {
    fail(r, io, SSL_R_TOO_MANY_EMPTY_FRAGMENTS, SSL_AD_UNEXPECTED_MESSAGE);
    return GOT_FATAL;
  }
  if (type == CT_ALERT) return on_alert(r, io, dst, n);
  if (n > 0) r->empty_records = r->warning_alerts = 0; /* progress, as BoringSSL counts it */
  if (type == CT_HANDSHAKE) return on_handshake(r, io, dst, n);
  if (type != CT_APPLICATION_DATA || r->hs_len > 0) { /* handshake messages do not interleave */
    fail(r, io, SSL_R_UNEXPECTED_RECORD, SSL_AD_UNEXPECTED_MESSAGE);
    return GOT_FATAL;
  }
  if (n == 0) return GOT_NOTHING;
  r->key_updates = 0;
  *plain_len = n;
  return GOT_DATA;
}

/* The ciphertext of one call: in[off:len]. */
typedef struct {
  const uint8_t *in;
  size_t off, len;
} input;

/* fill_partial copies input into the partial record until it has want bytes; 1 when it has. */
static int fill_partial(mb_rec *r, input *in, size_t want) {
  if (r->rec_len >= want) return 1;
  size_t n = want - r->rec_len < in->len - in->off ? want - r->rec_len : in->len - in->off;
  memcpy(r->buf + r->rec_len, in->in + in->off, n);
  r->rec_len += n;
  in->off += n;
  return r->rec_len == want;
}

/* continue_partial adds input to a record begun in an earlier call and, once it is whole,
 * opens it in its buffer: its data becomes the pending plaintext. */
static int continue_partial(mb_rec *r, mb_io *io, input *in) {
  size_t len = 0;
  if (!fill_partial(r, in, HDR)) return GOT_NOTHING;
  if (!check_header(r, io, r->buf, &len)) return GOT_FATAL;
  if (!fill_partial(r, in, HDR + len)) return GOT_NOTHING;
  size_t plain = 0;
  int got = open_record(r, io, r->buf, r->buf + HDR, len, r->buf + HDR, &plain);
  r->rec_len = 0;
  if (got == GOT_DATA) {
    r->plain_off = HDR, r->plain_len = plain;
    return GOT_NOTHING;
  }
  drop_buf(r);
  return got;
}

/* stash keeps the incomplete record at the end of the input for the next call. */
static int stash(mb_rec *r, mb_io *io, input *in) {
  if ((r->buf = malloc(MAX_RECORD)) == NULL) {
    r->fatal = "out of memory";
    return GOT_FATAL;
  }
  r->rec_len = 0;
  return continue_partial(r, io, in);
}

/* next_record finds the next whole record of the input and sets *len to its body length.
 * Without one it returns 0 and sets *got: the input is used up (a partial record was stashed),
 * or the header failed. */
static int next_record(mb_rec *r, mb_io *io, input *in, size_t *len, int *got) {
  size_t avail = in->len - in->off;
  *got = GOT_NOTHING;
  if (avail >= HDR && !check_header(r, io, in->in + in->off, len)) {
    *got = GOT_FATAL;
    return 0;
  }
  if (avail >= HDR && avail - HDR >= *len) return 1;
  if (avail > 0) *got = stash(r, io, in);
  return 0;
}

/* take_pending copies pending plaintext to out; 1 when all of it went. */
static int take_pending(mb_rec *r, uint8_t *out, size_t cap, size_t *opened) {
  size_t n = r->plain_len < cap - *opened ? r->plain_len : cap - *opened;
  memcpy(out + *opened, r->buf + r->plain_off, n);
  *opened += n;
  r->plain_off += n;
  r->plain_len -= n;
  if (r->plain_len > 0) return 0;
  drop_buf(r);
  return 1;
}

/* finish_open sets the call's status from how the last record went. */
static void finish_open(mb_rec *r, int got, const input *in, mb_result *res) {
  res->consumed = in->off;
  res->reason = r->fatal;
  if (got == GOT_FATAL || r->fatal) {
    res->status = MB_FATAL;
  } else if (got == GOT_CLOSE || r->read_closed) {
    res->status = MB_CLOSED;
  } else if (r->plain_len > 0 || in->off < in->len) {
    res->status = MB_OK;
  } else {
    res->status = MB_WANT_READ;
  }
}

/* start_open handles what an earlier call left: a finished session, a partial record. */
static int start_open(mb_rec *r, mb_io *io, input *in) {
  if (r->fatal) return GOT_FATAL;
  if (r->read_closed) return GOT_CLOSE;
  if (r->rec_len > 0) return continue_partial(r, io, in);
  return GOT_NOTHING;
}

size_t mb_rec_open(mb_rec *r, mb_io *io, uint8_t *out, size_t out_cap, mb_result *res) {
  input in = {io->in, 0, io->in_len};
  size_t opened = 0, len = 0;
  int got = start_open(r, io, &in);
  while (got == GOT_NOTHING || got == GOT_DATA) {
    if (r->plain_len > 0 && !take_pending(r, out, out_cap, &opened)) break; /* out is full */
    if (r->rec_len > 0 || !next_record(r, io, &in, &len, &got)) break;
    const uint8_t *h = in.in + in.off;
    in.off += HDR + len;
    size_t plain = 0;
    if (out_cap - opened >= len) {
      got = open_record(r, io, h, h + HDR, len, out + opened, &plain);
      opened += plain;
      continue;
    }
    /* out is nearly full: open in our buffer and hand out what fits */
    if ((r->buf = malloc(MAX_RECORD)) == NULL) {
      r->fatal = "out of memory";
      break;
    }
    got = open_record(r, io, h, h + HDR, len, r->buf, &plain);
    r->plain_off = 0, r->plain_len = got == GOT_DATA ? plain : 0;
    if (r->plain_len == 0) drop_buf(r);
  }
  io->in_off = in.off;
  finish_open(r, got, &in, res);
  return opened;
}

size_t mb_rec_open_inplace(mb_rec *r, mb_io *io, uint8_t *buf, size_t len, size_t cap,
                           mb_result *res) {
  input in = {buf, 0, len};
  int got = start_open(r, io, &in);
  /* Plaintext of a record begun in an earlier call may be longer than what it took from buf:
   * it waits on the stack. The later records open in place, each moved down behind the read
   * position (base) once opened, and up behind the first at the end. */
  uint8_t first[MB_MAX_PLAINTEXT];
  size_t first_len = 0, base = in.off, opened = 0, body = 0;
  if (r->plain_len > 0) take_pending(r, first, cap < sizeof(first) ? cap : sizeof(first), &first_len);
  while ((got == GOT_NOTHING || got == GOT_DATA) && r->plain_len == 0 && r->rec_len == 0 &&
         next_record(r, io, &in, &body, &got)) {
    if (first_len + opened + body > cap) break; /* the caller left less room than Growth */
    uint8_t *h = buf + in.off;
    in.off += HDR + body;
    size_t plain = 0;
    got = open_record(r, io, h, h + HDR, body, h + HDR, &plain);
    if (got == GOT_DATA) memmove(buf + base + opened, h + HDR, plain);
    opened += plain;
  }
  if (first_len > 0) {
    memmove(buf + first_len, buf + base, opened);
    memcpy(buf, first, first_len);
  }
  io->in_off = in.off;
  finish_open(r, got, &in, res);
  return first_len + opened;
}
