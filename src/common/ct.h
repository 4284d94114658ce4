/* Constant-time helpers: no branch and no memory index depends on data. */
#ifndef KPQC_CT_H
#define KPQC_CT_H

#include <stddef.h>
#include <stdint.h>

/* Compiler barrier: stops the optimiser from turning masks into branches. */
static inline uint64_t kpqc_ct_barrier64(uint64_t x) {
#if defined(__GNUC__) || defined(__clang__)
    __asm__("" : "+r"(x));
#endif
    return x;
}
static inline uint32_t kpqc_ct_barrier32(uint32_t x) {
#if defined(__GNUC__) || defined(__clang__)
    __asm__("" : "+r"(x));
#endif
    return x;
}

/* 0 if the buffers are equal, 1 otherwise; time depends only on len. */
int kpqc_ct_memneq(const void *a, const void *b, size_t len);

/* If cond is 1, copy src to dst; if 0, leave dst.  cond must be 0 or 1. */
void kpqc_ct_cmov(void *dst, const void *src, size_t len, uint8_t cond);

/* All-ones if x != 0, else 0. */
static inline uint32_t kpqc_ct_nonzero_mask32(uint32_t x) {
    return (uint32_t)0 - (kpqc_ct_barrier32(x | (0u - x)) >> 31);
}

/* Wipes memory in a way the compiler cannot elide. */
void kpqc_wipe(void *p, size_t len);

/*
 * Constant-time checking.  The ct test suite builds the library with
 * KPQC_CT_TESTING and runs it under valgrind memcheck with every secret
 * byte marked undefined (KPQC_CT_POISON): any branch or memory index that
 * depends on a secret is then reported as a use of uninitialised memory.
 * KPQC_CT_DECLASSIFY marks a value the specification allows to be public
 * (a rejection-sampling verdict, a value about to be output) as defined.
 * Both are no-ops in normal builds.
 */
#ifdef KPQC_CT_TESTING
#include <valgrind/memcheck.h>
#define KPQC_CT_POISON(p, len) VALGRIND_MAKE_MEM_UNDEFINED((p), (len))
#define KPQC_CT_DECLASSIFY(p, len) VALGRIND_MAKE_MEM_DEFINED((p), (len))
#else
#define KPQC_CT_POISON(p, len) ((void)(p), (void)(len))
#define KPQC_CT_DECLASSIFY(p, len) ((void)(p), (void)(len))
#endif

#endif
