/* A minimal test harness for the C tests: CHECK records failures, and the closing line is
 * "N passed, N failed" (which CTest and CI read). */
#ifndef ESDIRK_TEST_CHECK_H
#define ESDIRK_TEST_CHECK_H
#include <stdio.h>

static int checks_passed = 0;
static int checks_failed = 0;

#define CHECK(condition)                                                            \
  do {                                                                              \
    if (condition) {                                                                \
      ++checks_passed;                                                              \
    } else {                                                                        \
      ++checks_failed;                                                              \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #condition); \
    }                                                                               \
  } while (0)

#define CHECK_STATUS(call, expected)                                                     \
  do {                                                                                   \
    const int status_ = (call);                                                          \
    if (status_ == (expected)) {                                                         \
      ++checks_passed;                                                                   \
    } else {                                                                             \
      ++checks_failed;                                                                   \
      fprintf(stderr, "%s:%d: %s returned %s, expected %s\n", __FILE__, __LINE__, #call, \
              esdirk_status_name(status_), esdirk_status_name(expected));                \
    }                                                                                    \
  } while (0)

static int report(void) {
  printf("%d passed, %d failed\n", checks_passed, checks_failed);
  return checks_failed == 0 ? 0 : 1;
}
#endif
