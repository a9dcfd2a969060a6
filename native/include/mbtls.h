/* mbtls.h: moonbridge's C shim over BoringSSL, the only header cgo includes.
 *
 * Every symbol starts with mb_. BoringSSL's types never appear here: Go sees opaque handles and
 * plain buffers, so the Go side does not depend on BoringSSL's headers or struct layouts. */
#ifndef MOONBRIDGE_MBTLS_H
#define MOONBRIDGE_MBTLS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* mb_info describes the BoringSSL linked into this binary. The strings are static. */
typedef struct {
  const char *revision;     /* BoringSSL revision the shim was compiled against */
  const char *source;       /* where obtain.sh got that source, e.g. debian-chromium-150.0... */
  const char *version_text; /* OpenSSL_version(OPENSSL_VERSION): "BoringSSL" when it is one */
  int api_version;          /* BORINGSSL_API_VERSION from the headers */
} mb_info;

void mb_get_info(mb_info *out);

/* mb_sha256 hashes len bytes of data into out[32] with the linked BoringSSL; a tiny call that
 * proves the library is really linked and working (tests compare it with Go's crypto/sha256). */
void mb_sha256(const uint8_t *data, size_t len, uint8_t out[32]);

#ifdef __cplusplus
}
#endif

#endif
