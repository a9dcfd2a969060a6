/* mb_test.h: the CHECK macro shared by the shim's C tests (one executable, main in
 * mb_native_test.c). */
#ifndef MOONBRIDGE_MB_TEST_H
#define MOONBRIDGE_MB_TEST_H

#include <stdio.h>

extern int mb_test_failures;

#define CHECK(cond)                                                              \
  do {                                                                           \
    if (!(cond)) {                                                               \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      mb_test_failures++;                                                        \
    }                                                                            \
  } while (0)

void test_engine(void);
void test_cfb8(void);

#endif
