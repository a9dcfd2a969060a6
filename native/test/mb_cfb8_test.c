/* mb_cfb8_test: the shim's AES-128/CFB8 against NIST SP 800-38A F.3.7 and F.3.8, in pieces and
 * in place, on both of its paths (AES-NI where this CPU has it, and the portable one), the two
 * paths against each other, and its error codes. */
#include "mb_test.h"
#include "mbtls.h"

#include <string.h>

static const uint8_t kKey[16] = {0x2b, 0x7e, 0x15, 0x16, 0x28, 0xae, 0xd2, 0xa6,
                                 0xab, 0xf7, 0x15, 0x88, 0x09, 0xcf, 0x4f, 0x3c};
static const uint8_t kIV[16] = {0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
                                0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f};
static const uint8_t kPlain[18] = {0x6b, 0xc1, 0xbe, 0xe2, 0x2e, 0x40, 0x9f, 0x96, 0xe9,
                                   0x3d, 0x7e, 0x11, 0x73, 0x93, 0x17, 0x2a, 0xae, 0x2d};
static const uint8_t kCipher[18] = {0x3b, 0x79, 0x42, 0x4c, 0x9c, 0x0d, 0xd4, 0x36, 0xba,
                                    0xce, 0x9e, 0x0e, 0xd4, 0x58, 0x6a, 0x4f, 0x32, 0xb9};

/* run transforms in into out with a new stream, in calls of `piece` bytes (0: one call);
 * direction may include MB_CFB8_PORTABLE. */
static void run(int direction, const uint8_t *in, uint8_t *out, size_t len, size_t piece) {
  mb_cfb8 *c = NULL;
  CHECK(mb_cfb8_new(kKey, sizeof(kKey), kIV, direction, &c) == MB_CFB8_OK && c != NULL);
  if (c == NULL) return;
  if (piece == 0) piece = len;
  for (size_t off = 0; off < len; off += piece) {
    size_t n = len - off < piece ? len - off : piece;
    CHECK(mb_cfb8_xor(c, out + off, in + off, n) == MB_CFB8_OK);
    CHECK(mb_cfb8_xor(c, NULL, NULL, 0) == MB_CFB8_OK); /* an empty call changes nothing */
  }
  mb_cfb8_free(c);
}

static void test_cfb8_vectors(int path) {
  for (size_t piece = 0; piece <= sizeof(kPlain); piece++) {
    uint8_t buf[sizeof(kPlain)];
    run(MB_CFB8_ENCRYPT | path, kPlain, buf, sizeof(buf), piece);
    CHECK(memcmp(buf, kCipher, sizeof(buf)) == 0);
    run(MB_CFB8_DECRYPT | path, buf, buf, sizeof(buf), piece); /* in place */
    CHECK(memcmp(buf, kPlain, sizeof(buf)) == 0);
  }
}

/* test_cfb8_long: past the sliding register's wrap, a round trip gives the input back. */
static void test_cfb8_long(int path) {
  static uint8_t plain[10000], wire[10000], back[10000];
  for (size_t i = 0; i < sizeof(plain); i++) plain[i] = (uint8_t)(i * 31 + 7);
  run(MB_CFB8_ENCRYPT | path, plain, wire, sizeof(plain), 777);
  run(MB_CFB8_DECRYPT | path, wire, back, sizeof(plain), 1000);
  CHECK(memcmp(back, plain, sizeof(plain)) == 0);
  CHECK(memcmp(wire, plain, sizeof(plain)) != 0);
}

/* test_cfb8_paths: the default path (AES-NI where the CPU has it) and the portable one give the
 * same bytes both ways, over the portable loop's register wrap. */
static void test_cfb8_paths(void) {
  static uint8_t plain[5000], fast[5000], portable[5000];
  for (size_t i = 0; i < sizeof(plain); i++) plain[i] = (uint8_t)(i * 131 + 17);
  for (int dir = MB_CFB8_DECRYPT; dir <= MB_CFB8_ENCRYPT; dir++) {
    run(dir, plain, fast, sizeof(plain), 333);
    run(dir | MB_CFB8_PORTABLE, plain, portable, sizeof(plain), 1024);
    CHECK(memcmp(fast, portable, sizeof(plain)) == 0);
  }
}

/* test_cfb8_export: after n bytes the register is the IV's last 16-n bytes then the n
 * ciphertext bytes (the last 16 of them past 16), on either path and either direction. */
static void test_cfb8_export(int path) {
  const size_t counts[] = {0, 10, 16, 18};
  for (int dir = MB_CFB8_DECRYPT; dir <= MB_CFB8_ENCRYPT; dir++) {
    for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
      size_t n = counts[i];
      mb_cfb8 *c = NULL;
      CHECK(mb_cfb8_new(kKey, sizeof(kKey), kIV, dir | path, &c) == MB_CFB8_OK);
      if (c == NULL) return;
      uint8_t out[sizeof(kPlain)], key[16], reg[16], want[32];
      CHECK(mb_cfb8_xor(c, out, dir == MB_CFB8_ENCRYPT ? kPlain : kCipher, n) == MB_CFB8_OK);
      CHECK(mb_cfb8_export(c, key, reg) == MB_CFB8_OK);
      memcpy(want, kIV, 16);
      memcpy(want + 16, kCipher, 16);
      CHECK(memcmp(key, kKey, 16) == 0);
      CHECK(memcmp(reg, n <= 16 ? want + n : kCipher + n - 16, 16) == 0);
      mb_cfb8_free(c);
    }
  }
  CHECK(mb_cfb8_export(NULL, (uint8_t[16]){0}, (uint8_t[16]){0}) == MB_CFB8_BAD_ARG);
}

static void test_cfb8_errors(void) {
  mb_cfb8 *c = (mb_cfb8 *)1;
  CHECK(mb_cfb8_new(kKey, 15, kIV, MB_CFB8_ENCRYPT, &c) == MB_CFB8_BAD_KEY && c == NULL);
  CHECK(mb_cfb8_new(NULL, 16, kIV, MB_CFB8_ENCRYPT, &c) == MB_CFB8_BAD_KEY && c == NULL);
  CHECK(mb_cfb8_new(kKey, 16, NULL, MB_CFB8_ENCRYPT, &c) == MB_CFB8_BAD_ARG && c == NULL);
  CHECK(mb_cfb8_new(kKey, 16, kIV, MB_CFB8_ENCRYPT, NULL) == MB_CFB8_BAD_ARG);
  uint8_t b[4] = {0};
  CHECK(mb_cfb8_xor(NULL, b, b, sizeof(b)) == MB_CFB8_BAD_ARG);
  CHECK(mb_cfb8_new(kKey, 16, kIV, MB_CFB8_ENCRYPT, &c) == MB_CFB8_OK);
  CHECK(mb_cfb8_xor(c, NULL, b, sizeof(b)) == MB_CFB8_BAD_ARG);
  CHECK(mb_cfb8_xor(c, b, NULL, sizeof(b)) == MB_CFB8_BAD_ARG);
  mb_cfb8_free(c);
  mb_cfb8_free(NULL);
}

void test_cfb8(void) {
  const int paths[] = {0, MB_CFB8_PORTABLE};
  for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
    test_cfb8_vectors(paths[i]);
    test_cfb8_long(paths[i]);
    test_cfb8_export(paths[i]);
  }
  test_cfb8_paths();
  test_cfb8_errors();
}
