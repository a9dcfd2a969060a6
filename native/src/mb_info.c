/* mb_info.c: what BoringSSL this binary carries (moonbridge version prints it). */
#include "mbtls.h"

#include <openssl/base.h>
#include <openssl/crypto.h>
#include <openssl/sha.h>

#ifndef MB_BORINGSSL_REVISION
#error "MB_BORINGSSL_REVISION must be defined by the build (CMakeLists.txt)"
#endif

void mb_get_info(mb_info *out) {
  out->revision = MB_BORINGSSL_REVISION;
  out->source = MB_BORINGSSL_SOURCE;
  out->version_text = OpenSSL_version(OPENSSL_VERSION);
  out->api_version = BORINGSSL_API_VERSION;
}

void mb_sha256(const uint8_t *data, size_t len, uint8_t out[32]) { SHA256(data, len, out); }
