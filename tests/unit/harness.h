/* Minimal test harness: CHECK records a failure and carries on. */
#ifndef KPQC_TEST_HARNESS_H
#define KPQC_TEST_HARNESS_H

#include <stdio.h>
#include <stdlib.h>

#include <kpqc/drbg.h>
#include <kpqc/kpqc.h>

static int test_failures;

#define CHECK(cond)                                                                   \
    do {                                                                              \
        if (!(cond)) {                                                                \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
            test_failures++;                                                          \
        }                                                                             \
    } while (0)

#define CHECK_MSG(cond, ...)                                                  \
    do {                                                                      \
        if (!(cond)) {                                                        \
            fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                     \
            fprintf(stderr, "\n");                                            \
            test_failures++;                                                  \
        }                                                                     \
    } while (0)

static inline int test_result(const char *name) {
    if (test_failures == 0) {
        printf("%s: all checks passed\n", name);
        return 0;
    }
    printf("%s: %d check(s) failed\n", name, test_failures);
    return 1;
}

static inline void *test_alloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (p == NULL) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    return p;
}

/* A deterministic rng for reproducible tests, seeded from a small integer. */
static inline kpqc_rng test_rng(kpqc_nist_drbg *d, unsigned seed) {
    uint8_t entropy[48] = {0};
    for (unsigned i = 0; i < 4; i++) entropy[i] = (uint8_t)(seed >> (8 * i));
    entropy[47] = 0xA5;
    kpqc_nist_drbg_init(d, entropy, NULL);
    return kpqc_nist_drbg_rng(d);
}

#endif
