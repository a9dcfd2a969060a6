/* mb_cfb8_x86.c: AES-128/CFB8 with AES-NI, the shift register held in a vector register.
 *
 * CFB8 encrypts one AES block per byte and each block's input holds the byte the last one made,
 * so encryption runs at the latency of one block per byte. mb_cfb8.c's portable loop keeps the
 * register in memory: every byte is stored into it and the next block loads 16 bytes over that
 * store, which the CPU cannot forward (a stall on top of the AES rounds). Here the register
 * never leaves the vector unit: the ciphertext byte is XORed in place in the block's output and
 * shifted in with one PALIGNR, so the chain per byte is the ten rounds and two vector
 * instructions (bench/results/2026-11-30-cfb8-vector-register.md). Decryption's register takes
 * the input instead, so its blocks do not wait on each other at all.
 *
 * Only on x86-64 with GCC or Clang, and only where the CPU has AES-NI and SSSE3 (checked once
 * per stream in mb_cfb8_new); elsewhere mb_cfb8.c runs BoringSSL's AES_encrypt per byte. */
#include "mb_internal.h"

#if MB_CFB8_HW

#include <immintrin.h>

int mb_cfb8_hw_capable(void) {
  return __builtin_cpu_supports("aes") && __builtin_cpu_supports("ssse3");
}

/* One step of the AES-128 key schedule (FIPS 197, 5.2): assist holds SubWord(RotWord(w3)) ^
 * Rcon in its last word. */
__attribute__((target("aes,ssse3"))) static __m128i expand_step(__m128i k, __m128i assist) {
  assist = _mm_shuffle_epi32(assist, 0xff);
  k = _mm_xor_si128(k, _mm_slli_si128(k, 4));
  k = _mm_xor_si128(k, _mm_slli_si128(k, 4));
  k = _mm_xor_si128(k, _mm_slli_si128(k, 4));
  return _mm_xor_si128(k, assist);
}

/* The Rcon of each round key must be an immediate: hence one line per round. */
#define MB_EXPAND(i, rcon) \
  rk[i] = expand_step(rk[i - 1], _mm_aeskeygenassist_si128(rk[i - 1], rcon))

__attribute__((target("aes,ssse3"))) void mb_cfb8_hw_expand(const uint8_t key[16],
                                                            uint8_t out[MB_CFB8_HW_KEY_BYTES]) {
  __m128i rk[11];
  rk[0] = _mm_loadu_si128((const __m128i *)key);
  MB_EXPAND(1, 0x01);
  MB_EXPAND(2, 0x02);
  MB_EXPAND(3, 0x04);
  MB_EXPAND(4, 0x08);
  MB_EXPAND(5, 0x10);
  MB_EXPAND(6, 0x20);
  MB_EXPAND(7, 0x40);
  MB_EXPAND(8, 0x80);
  MB_EXPAND(9, 0x1b);
  MB_EXPAND(10, 0x36);
  for (int i = 0; i < 11; i++) _mm_storeu_si128((__m128i *)(out + 16 * i), rk[i]);
}

__attribute__((target("aes,ssse3"))) static inline __m128i encrypt_block(__m128i x,
                                                                         const __m128i rk[11]) {
  x = _mm_xor_si128(x, rk[0]);
  for (int r = 1; r < 10; r++) x = _mm_aesenc_si128(x, rk[r]);
  return _mm_aesenclast_si128(x, rk[10]);
}

/* The two loops differ in the byte the register takes (the ciphertext: the output when
 * encrypting, the input when decrypting); each byte of out is read from src before dst[i] is
 * written, as they may be the same byte. The register moves on with PALIGNR: bytes 1-15 of r,
 * then byte 0 of the new one. */
__attribute__((target("aes,ssse3"))) static __m128i encrypt_bytes(const __m128i rk[11], __m128i r,
                                                                  uint8_t *dst, const uint8_t *src,
                                                                  size_t len) {
  for (size_t i = 0; i < len; i++) {
    __m128i out = _mm_xor_si128(encrypt_block(r, rk), _mm_cvtsi32_si128(src[i]));
    dst[i] = (uint8_t)_mm_cvtsi128_si32(out);
    r = _mm_alignr_epi8(out, r, 1);
  }
  return r;
}

__attribute__((target("aes,ssse3"))) static __m128i decrypt_bytes(const __m128i rk[11], __m128i r,
                                                                  uint8_t *dst, const uint8_t *src,
                                                                  size_t len) {
  for (size_t i = 0; i < len; i++) {
    __m128i in = _mm_cvtsi32_si128(src[i]);
    dst[i] = (uint8_t)_mm_cvtsi128_si32(_mm_xor_si128(encrypt_block(r, rk), in));
    r = _mm_alignr_epi8(in, r, 1);
  }
  return r;
}

__attribute__((target("aes,ssse3"))) void mb_cfb8_hw_xor(const uint8_t key[MB_CFB8_HW_KEY_BYTES],
                                                         uint8_t reg[16], int decrypt,
                                                         uint8_t *dst, const uint8_t *src,
                                                         size_t len) {
  __m128i rk[11];
  for (int i = 0; i < 11; i++) rk[i] = _mm_loadu_si128((const __m128i *)(key + 16 * i));
  __m128i r = _mm_loadu_si128((const __m128i *)reg);
  r = decrypt ? decrypt_bytes(rk, r, dst, src, len) : encrypt_bytes(rk, r, dst, src, len);
  _mm_storeu_si128((__m128i *)reg, r);
  for (int i = 0; i < 11; i++) rk[i] = _mm_setzero_si128();
  __asm__ volatile("" : : "m"(rk) : "memory"); /* the wipe is not optimised away */
}

#endif
