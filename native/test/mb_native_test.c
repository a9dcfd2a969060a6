/* mb_native_test: the shim's own test, run by ctest under AddressSanitizer (make test-native). */
#include "mbtls.h"
#include "mb_test.h"

#include <string.h>

int mb_test_failures;

static void test_info(void) {
  mb_info info;
  memset(&info, 0, sizeof(info));
  mb_get_info(&info);
  CHECK(info.revision != NULL && strlen(info.revision) > 0);
  CHECK(info.source != NULL && strlen(info.source) > 0);
  CHECK(info.version_text != NULL && strcmp(info.version_text, "BoringSSL") == 0);
  CHECK(info.api_version > 0);
}

static void test_sha256(void) {
  /* FIPS 180-2 test vector: SHA-256("abc"). */
  static const uint8_t want[32] = {
      0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea, 0x41, 0x41, 0x40, 0xde, 0x5d, 0xae, 0x22, 0x23,
      0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17, 0x7a, 0x9c, 0xb4, 0x10, 0xff, 0x61, 0xf2, 0x00, 0x15, 0xad};
  uint8_t got[32];
  mb_sha256((const uint8_t *)"abc", 3, got);
  CHECK(memcmp(got, want, sizeof(want)) == 0);
}

int main(void) {
  test_info();
  test_sha256();
  test_engine();
  test_cfb8();
  if (mb_test_failures) {
    fprintf(stderr, "mb_native_test: %d failed\n", mb_test_failures);
    return 1;
  }
  printf("mb_native_test: all checks passed\n");
  return 0;
}
