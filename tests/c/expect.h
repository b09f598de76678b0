/* The tiny check macros shared by the plain-C ABI test programs (one program per .c file, so
 * the counters are per program). Each program prints "N passed, N failed" at its end. */
#ifndef CVM_TESTS_C_EXPECT_H_
#define CVM_TESTS_C_EXPECT_H_

#include <stdio.h>
#include <string.h>

#include "cvm/c_api.h"

static int g_passed = 0;
static int g_failed = 0;

#define EXPECT(cond)                                                                               \
  do {                                                                                             \
    if (cond) {                                                                                    \
      ++g_passed;                                                                                  \
    } else {                                                                                       \
      ++g_failed;                                                                                  \
      fprintf(stderr, "%s:%d: EXPECT(%s) failed; last error: \"%s\"\n", __FILE__, __LINE__, #cond, \
              CVMGetLastError());                                                                  \
    }                                                                                              \
  } while (0)

/* A failing call: status `code` and a non-empty message containing `needle`. */
#define EXPECT_ERROR(call, code, needle)                 \
  do {                                                   \
    int status_ = (call);                                \
    EXPECT(status_ == (code));                           \
    EXPECT(CVMGetLastError() != NULL);                   \
    EXPECT(strstr(CVMGetLastError(), (needle)) != NULL); \
  } while (0)

#endif /* CVM_TESTS_C_EXPECT_H_ */
