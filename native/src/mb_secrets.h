/* mb_secrets.h: the C++ corner of the shim (mb_secrets.cc), callable from C. */
#ifndef MOONBRIDGE_MB_SECRETS_H
#define MOONBRIDGE_MB_SECRETS_H

#include <stddef.h>
#include <stdint.h>

#include <openssl/ssl.h>

#include "mbtls.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The longest TLS 1.3 traffic secret (SHA-384). */
#define MB_MAX_SECRET MB_MOVE_MAX_SECRET

/* mb_ssl_traffic_secrets copies the current TLS 1.3 traffic secrets of an established session
 * (SSL_get_traffic_secrets) into read_secret and write_secret (MB_MAX_SECRET bytes each) and
 * their length into *len. 1 on success. */
int mb_ssl_traffic_secrets(const SSL *ssl, uint8_t *read_secret, uint8_t *write_secret, size_t *len);

#ifdef __cplusplus
}
#endif

#endif
