/* The integration tests' check: report the failed condition and OpenSSL's
 * error queue, count the failure and go on (main returns failures != 0). */
#ifndef KPQC_TEST_CHECK_H
#define KPQC_TEST_CHECK_H

#include <stdio.h>

#include <openssl/err.h>

static int failures;
#define CHECK(c)                                                           \
    do {                                                                   \
        if (!(c)) {                                                        \
            fprintf(stderr, "%s:%d: %s failed\n", __FILE__, __LINE__, #c); \
            ERR_print_errors_fp(stderr);                                   \
            failures++;                                                    \
        }                                                                  \
    } while (0)

#endif
