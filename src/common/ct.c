#include "ct.h"

#include <string.h>

int kpqc_ct_memneq(const void *a, const void *b, size_t len) {
    /* Every byte is read whatever the others hold: differences are
     * or-ed together a word at a time, and only the total is examined. */
    const uint8_t *x = a, *y = b;
    uint64_t acc = 0;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t u, v;
        memcpy(&u, x + i, 8);
        memcpy(&v, y + i, 8);
        acc |= u ^ v;
    }
    for (; i < len; i++) acc |= (uint64_t)(x[i] ^ y[i]);
    return (int)(kpqc_ct_nonzero_mask32((uint32_t)acc | (uint32_t)(acc >> 32)) & 1u);
}

void kpqc_ct_cmov(void *dst, const void *src, size_t len, uint8_t cond) {
    uint8_t *d = dst;
    const uint8_t *s = src;
    uint8_t mask = (uint8_t)(0u - kpqc_ct_barrier32(cond));
    KPQC_CT_TAINT(&mask, sizeof mask, &cond, sizeof cond); /* the borrow of 0 - cond */
    for (size_t i = 0; i < len; i++) d[i] ^= mask & (d[i] ^ s[i]);
}

void kpqc_wipe(void *p, size_t len) {
    if (p == NULL || len == 0) return;
#if defined(__GNUC__) || defined(__clang__)
    memset(p, 0, len);
    __asm__ __volatile__("" : : "r"(p) : "memory");
#else
    volatile uint8_t *v = p;
    while (len--) *v++ = 0;
#endif
}

#ifdef KPQC_CHECK_BOUNDS
#include <stdio.h>
#include <stdlib.h>

#include "bounds.h"

void kpqc_bound_failed(const char *file, int line, const char *cond) {
    fprintf(stderr, "%s:%d: bound violated: %s\n", file, line, cond);
    abort();
}
#endif
