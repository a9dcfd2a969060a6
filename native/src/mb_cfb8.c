/* mb_cfb8.c: AES-128/CFB8 (NIST SP 800-38A, 6.3, s = 8) for the player side of Minecraft's
 * online mode: with AES-NI and the register in a vector register where the CPU has it
 * (mb_cfb8_x86.c), otherwise over BoringSSL's AES block. */
#include "mb_internal.h"

#include <stdlib.h>
#include <string.h>

#include <openssl/aes.h>
#include <openssl/mem.h>

/* The 16-byte shift register is a window sliding over reg: each byte moves it one to the right
 * instead of shifting 16 bytes, and it is copied back to the start once per
 * MB_CFB8_REG_BYTES - 16 bytes (mc/cfb8 does the same in Go). */
#define MB_CFB8_REG_BYTES (32 * AES_BLOCK_SIZE)

struct mb_cfb8 {
  AES_KEY key; /* the portable path's key schedule */
  uint8_t raw_key[MB_CFB8_KEY_LEN]; /* for mb_cfb8_export */
  int decrypt;
  int hw;     /* mb_cfb8_x86.c runs it: the register is reg[0:16], the round keys in hw_key */
  size_t pos; /* the register is reg[pos : pos+16] */
  uint8_t reg[MB_CFB8_REG_BYTES];
#if MB_CFB8_HW
  uint8_t hw_key[MB_CFB8_HW_KEY_BYTES];
#endif
};

int mb_cfb8_accelerated(void) {
#if MB_CFB8_HW
  return mb_cfb8_hw_capable();
#else
  return 0;
#endif
}

int mb_cfb8_new(const uint8_t *key, size_t key_len, const uint8_t *iv, int direction,
                mb_cfb8 **out) {
  if (out == NULL) return MB_CFB8_BAD_ARG;
  *out = NULL;
  if (key == NULL || key_len != MB_CFB8_KEY_LEN) return MB_CFB8_BAD_KEY;
  if (iv == NULL) return MB_CFB8_BAD_ARG;
  mb_cfb8 *c = calloc(1, sizeof(*c));
  if (c == NULL) return MB_CFB8_NO_MEMORY;
  c->decrypt = (direction & MB_CFB8_ENCRYPT) == 0;
#if MB_CFB8_HW
  c->hw = (direction & MB_CFB8_PORTABLE) == 0 && mb_cfb8_hw_capable();
  if (c->hw) mb_cfb8_hw_expand(key, c->hw_key);
#endif
  /* The key schedule of the path that runs: the vector path has its own round keys. */
  if (!c->hw && AES_set_encrypt_key(key, 8 * MB_CFB8_KEY_LEN, &c->key) != 0) {
    mb_cfb8_free(c);
    return MB_CFB8_BAD_KEY;
  }
  memcpy(c->raw_key, key, MB_CFB8_KEY_LEN);
  memcpy(c->reg, iv, MB_CFB8_IV_LEN);
  *out = c;
  return MB_CFB8_OK;
}

int mb_cfb8_xor(mb_cfb8 *c, uint8_t *dst, const uint8_t *src, size_t len) {
  if (c == NULL || (len > 0 && (dst == NULL || src == NULL))) return MB_CFB8_BAD_ARG;
#if MB_CFB8_HW
  if (c->hw) {
    mb_cfb8_hw_xor(c->hw_key, c->reg, c->decrypt, dst, src, len);
    return MB_CFB8_OK;
  }
#endif
  uint8_t ks[AES_BLOCK_SIZE];
  for (size_t i = 0; i < len; i++) {
    AES_encrypt(c->reg + c->pos, ks, &c->key);
    uint8_t in = src[i]; /* read before dst[i] is written: they may be the same byte */
    uint8_t out = in ^ ks[0];
    dst[i] = out;
    c->reg[c->pos + AES_BLOCK_SIZE] = c->decrypt ? in : out; /* the ciphertext byte */
    if (++c->pos + AES_BLOCK_SIZE == MB_CFB8_REG_BYTES) {
      memcpy(c->reg, c->reg + c->pos, AES_BLOCK_SIZE);
      c->pos = 0;
    }
  }
  OPENSSL_cleanse(ks, sizeof(ks));
  return MB_CFB8_OK;
}

int mb_cfb8_export(const mb_cfb8 *c, uint8_t key[MB_CFB8_KEY_LEN], uint8_t reg[MB_CFB8_IV_LEN]) {
  if (c == NULL || key == NULL || reg == NULL) return MB_CFB8_BAD_ARG;
  memcpy(key, c->raw_key, MB_CFB8_KEY_LEN);
  /* The vector path keeps the register at reg[0:16]; the portable one slides it (pos). */
  memcpy(reg, c->reg + (c->hw ? 0 : c->pos), MB_CFB8_IV_LEN);
  return MB_CFB8_OK;
}

void mb_cfb8_free(mb_cfb8 *c) {
  if (c == NULL) return;
  OPENSSL_cleanse(c, sizeof(*c));
  free(c);
}
