/* mb_io.c: a BIO over the caller's buffers, so one engine call moves a whole I/O event.
 *
 * Reads come straight from the lent input; when it is used up the BIO says "retry", BoringSSL
 * keeps any partial record in its own buffer and the call returns MB_WANT_READ. Writes go
 * straight into the lent output; what does not fit goes to a C-side spill that later calls drain
 * first, so the BIO never blocks a write halfway and ciphertext order is kept. */
#include "mb_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* A spill larger than this is freed once drained, so one big handshake flight is not kept. */
#define MB_SPILL_KEEP 65536

static BIO_METHOD *io_method;
static pthread_once_t io_method_once = PTHREAD_ONCE_INIT;

static int io_read(BIO *bio, char *buf, int len) {
  mb_io *io = BIO_get_data(bio);
  BIO_clear_retry_flags(bio);
  size_t avail = io->in_len - io->in_off;
  if (avail == 0) {
    BIO_set_retry_read(bio);
    return -1;
  }
  size_t n = (size_t)len < avail ? (size_t)len : avail;
  memcpy(buf, io->in + io->in_off, n);
  io->in_off += n;
  return (int)n;
}

/* spill_room makes room for len more bytes at the end of the spill. */
static int spill_room(mb_io *io, size_t len) {
  if (io->spill_len + len > io->spill_cap) {
    size_t cap = io->spill_cap ? io->spill_cap : 4096;
    while (cap < io->spill_len + len) cap *= 2;
    uint8_t *grown = realloc(io->spill, cap);
    if (grown == NULL) {
      io->oom = 1;
      return 0;
    }
    io->spill = grown;
    io->spill_cap = cap;
  }
  return 1;
}

static int spill_append(mb_io *io, const uint8_t *data, size_t len) {
  if (!spill_room(io, len)) return 0;
  memcpy(io->spill + io->spill_len, data, len);
  io->spill_len += len;
  return 1;
}

static int io_write(BIO *bio, const char *buf, int len) {
  mb_io *io = BIO_get_data(bio);
  BIO_clear_retry_flags(bio);
  size_t n = 0;
  if (io->spill_off == io->spill_len && io->out != NULL) { /* nothing queued ahead of us */
    size_t room = io->out_cap - io->out_len;
    n = (size_t)len < room ? (size_t)len : room;
    memcpy(io->out + io->out_len, buf, n);
    io->out_len += n;
  }
  if (n < (size_t)len && !spill_append(io, (const uint8_t *)buf + n, (size_t)len - n)) return -1;
  return len;
}

static long io_ctrl(BIO *bio, int cmd, long larg, void *parg) {
  (void)bio, (void)larg, (void)parg;
  return cmd == BIO_CTRL_FLUSH; /* BoringSSL flushes after each flight; nothing to do */
}

static void io_method_init(void) {
  io_method = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "moonbridge io");
  if (io_method == NULL) return;
  BIO_meth_set_read(io_method, io_read);
  BIO_meth_set_write(io_method, io_write);
  BIO_meth_set_ctrl(io_method, io_ctrl);
}

BIO *mb_io_bio_new(mb_io *io) {
  pthread_once(&io_method_once, io_method_init);
  if (io_method == NULL) return NULL;
  BIO *bio = BIO_new(io_method);
  if (bio == NULL) return NULL;
  BIO_set_data(bio, io);
  BIO_set_init(bio, 1);
  return bio;
}

static void spill_drain(mb_io *io) {
  size_t queued = io->spill_len - io->spill_off;
  size_t room = io->out_cap - io->out_len;
  size_t n = queued < room ? queued : room;
  if (n > 0) memcpy(io->out + io->out_len, io->spill + io->spill_off, n);
  io->out_len += n;
  io->spill_off += n;
  if (io->spill_off < io->spill_len) return;
  io->spill_off = io->spill_len = 0;
  if (io->spill_cap > MB_SPILL_KEEP) mb_io_release(io);
}

void mb_io_begin(mb_io *io, const uint8_t *in, size_t in_len, uint8_t *out, size_t out_cap) {
  io->in = in;
  io->in_len = in ? in_len : 0;
  io->in_off = 0;
  io->out = out;
  io->out_cap = out ? out_cap : 0;
  io->out_len = 0;
  io->oom = 0;
  spill_drain(io);
}

void mb_io_end(mb_io *io, mb_result *res) {
  res->consumed = io->in_off;
  res->produced = io->out_len;
  res->out_pending = io->spill_len - io->spill_off;
  /* The caller's memory is lent for this call only. */
  io->in = NULL;
  io->out = NULL;
  io->in_len = io->out_cap = 0;
}

void mb_io_release(mb_io *io) {
  free(io->spill);
  io->spill = NULL;
  io->spill_off = io->spill_len = io->spill_cap = 0;
}

uint8_t *mb_io_reserve(mb_io *io, size_t n) {
  io->reserved_in_spill = io->spill_off != io->spill_len || io->out == NULL ||
                          io->out_cap - io->out_len < n;
  if (!io->reserved_in_spill) return io->out + io->out_len;
  if (!spill_room(io, n)) return NULL;
  return io->spill + io->spill_len;
}

void mb_io_commit(mb_io *io, size_t n) {
  if (io->reserved_in_spill) {
    io->spill_len += n;
  } else {
    io->out_len += n;
  }
}
