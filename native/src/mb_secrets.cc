// mb_secrets.cc: the one BoringSSL call the shim needs from C++. SSL_get_traffic_secrets takes
// bssl::Span, which C cannot name, so this file hands the secrets to C as plain bytes.
#include "mb_secrets.h"

#include <string.h>

int mb_ssl_traffic_secrets(const SSL *ssl, uint8_t *read_secret, uint8_t *write_secret,
                                      size_t *len) {
  bssl::Span<const uint8_t> rd, wr;
  if (!bssl::SSL_get_traffic_secrets(ssl, &rd, &wr) || rd.size() != wr.size() ||
      rd.size() > MB_MAX_SECRET) {
    return 0;
  }
  memcpy(read_secret, rd.data(), rd.size());
  memcpy(write_secret, wr.data(), wr.size());
  *len = rd.size();
  return 1;
}
