/* Constant-time helpers: no branch and no memory index depends on data. */
#ifndef KPQC_CT_H
#define KPQC_CT_H

#include <stddef.h>
#include <stdint.h>

#if defined(__has_feature)
#if __has_feature(memory_sanitizer)
#define KPQC_MSAN 1
#include <sanitizer/msan_interface.h>
#endif
#endif

/*
 * Compiler barrier: stops the optimiser from turning masks into branches.
 * MemorySanitizer checks an inline asm's inputs strictly (it cannot see
 * what the asm does), which would report every secret mask; in its build
 * the value passes the same barrier undefined-free and gets its own shadow
 * back, so secrets stay tracked and the code the optimiser sees is the same.
 */
#ifdef KPQC_MSAN
#define KPQC_CT_BARRIER(x)                                                                                    \
    do {                                                                                                       \
        __typeof__(x) shadow_carrier_ = (x);                                                                   \
        __msan_unpoison(&(x), sizeof(x));                                                                      \
        __asm__("" : "+r"(x));                                                                                 \
        __msan_copy_shadow(&(x), &shadow_carrier_, sizeof(x));                                                 \
    } while (0)
#elif defined(__GNUC__) || defined(__clang__)
#define KPQC_CT_BARRIER(x) __asm__("" : "+r"(x))
#else
#define KPQC_CT_BARRIER(x) ((void)(x))
#endif
/*
 * KPQC_CT_TAINT(dst, dlen, src, slen): dst was computed from src, so all
 * of dst is secret if any byte of src is.  MemorySanitizer needs telling
 * where a value depends on a secret only through carries: it gives a sum
 * or a product the OR of its operands' shadows bit for bit, with no carry
 * moving up, so the high half of a product of zero-extended values
 * ((uint32_t)w * c >> 16, Lemire's draw) or the top bit of a sum comes out
 * public, and so does everything computed from it, branches included.
 * valgrind spreads an undefined bit upward through sums and products and
 * needs nothing: a no-op outside the MSan check.  It only ever marks more
 * as secret, so it cannot hide a leak.
 */
#if defined(KPQC_CT_TESTING) && defined(KPQC_MSAN)
#define KPQC_CT_TAINT(dst, dlen, src, slen)                                                                    \
    do {                                                                                                       \
        if (__msan_test_shadow((src), (slen)) >= 0) __msan_poison((dst), (dlen));                              \
    } while (0)
#else
#define KPQC_CT_TAINT(dst, dlen, src, slen) ((void)(dst), (void)(dlen), (void)(src), (void)(slen))
#endif

static inline uint64_t kpqc_ct_barrier64(uint64_t x) {
    KPQC_CT_BARRIER(x);
    return x;
}
static inline uint32_t kpqc_ct_barrier32(uint32_t x) {
    KPQC_CT_BARRIER(x);
    return x;
}

/* 0 if the buffers are equal, 1 otherwise; time depends only on len. */
int kpqc_ct_memneq(const void *a, const void *b, size_t len);

/* If cond is 1, copy src to dst; if 0, leave dst.  cond must be 0 or 1. */
void kpqc_ct_cmov(void *dst, const void *src, size_t len, uint8_t cond);

/* All-ones if x != 0, else 0.  The answer is the borrow of 0 - x, which
 * MemorySanitizer does not carry up: marked from x (KPQC_CT_TAINT). */
static inline uint32_t kpqc_ct_nonzero_mask32(uint32_t x) {
    uint32_t mask = (uint32_t)0 - (kpqc_ct_barrier32(x | (0u - x)) >> 31);
    KPQC_CT_TAINT(&mask, sizeof mask, &x, sizeof x);
    return mask;
}

/* Wipes memory in a way the compiler cannot elide. */
void kpqc_wipe(void *p, size_t len);

/*
 * Constant-time checking.  The ct test suites build the library with
 * KPQC_CT_TESTING and mark every secret byte as undefined (KPQC_CT_POISON):
 * under valgrind memcheck (the release build's machine code) or, in a
 * build with -fsanitize=memory, under MemorySanitizer (every code path,
 * avx512 included, run natively).  Any branch or memory index that depends
 * on a secret is then reported as a use of uninitialised memory.
 * KPQC_CT_DECLASSIFY marks a value the specification allows to be public
 * (a rejection-sampling verdict, a value about to be output) as defined.
 * Both are no-ops in normal builds.
 */
#if defined(KPQC_CT_TESTING) && defined(KPQC_MSAN)
#define KPQC_CT_POISON(p, len) __msan_poison((p), (len))
#define KPQC_CT_DECLASSIFY(p, len) __msan_unpoison((p), (len))
#elif defined(KPQC_CT_TESTING)
#include <valgrind/memcheck.h>
#define KPQC_CT_POISON(p, len) VALGRIND_MAKE_MEM_UNDEFINED((p), (len))
#define KPQC_CT_DECLASSIFY(p, len) VALGRIND_MAKE_MEM_DEFINED((p), (len))
#else
#define KPQC_CT_POISON(p, len) ((void)(p), (void)(len))
#define KPQC_CT_DECLASSIFY(p, len) ((void)(p), (void)(len))
#endif

/*
 * KPQC_CT_EXPECT_SECRET(p, len, what) states that a value must still be
 * secret at this point (a rejected signing attempt's challenge and
 * response, say): in the ct builds the program exits (status 1) with a
 * message when no byte of it is marked undefined any more, so declassifying
 * it too early is caught.  A no-op in normal builds (and outside valgrind).
 * KPQC_CT_EXPECT_SECRET_EACH(p, count, size, what) is stricter, for arrays
 * of count little-endian words of size bytes: every word's most
 * significant byte must be marked, where a lost carry or borrow shows
 * first (a sampler's signs, the high half of a product).
 * KPQC_CT_EXPECT_SECRET_EACH_LOW is its twin for words whose secret is in
 * their low bits only (0/1 coefficients): every word's lowest byte.
 */
#ifdef KPQC_CT_TESTING
#include <stdio.h>
#include <stdlib.h>
static inline int kpqc_ct_any_secret(const void *p, size_t len) {
#ifdef KPQC_MSAN
    return __msan_test_shadow(p, len) >= 0;
#else
    if (!RUNNING_ON_VALGRIND) return 1;
    uint8_t vbits[256];
    for (size_t off = 0; off < len; off += sizeof vbits) {
        size_t n = len - off < sizeof vbits ? len - off : sizeof vbits;
        if (VALGRIND_GET_VBITS((const uint8_t *)p + off, vbits, n) != 1) return 1;
        for (size_t i = 0; i < n; i++)
            if (vbits[i] != 0) return 1;
    }
    return 0;
#endif
}
#define KPQC_CT_EXPECT_SECRET(p, len, what)                                                                   \
    do {                                                                                                       \
        if (!kpqc_ct_any_secret((p), (len))) {                                                                 \
            fprintf(stderr, "constant-time check: %s is public too early (%s:%d)\n", (what), __FILE__,         \
                    __LINE__);                                                                                 \
            exit(1);                                                                                           \
        }                                                                                                      \
    } while (0)
/* byte `at` of each of the count words of size bytes is marked */
static inline int kpqc_ct_each_secret(const void *p, size_t count, size_t size, size_t at) {
    for (size_t i = 0; i < count; i++)
        if (!kpqc_ct_any_secret((const uint8_t *)p + i * size + at, 1)) return 0;
    return 1;
}
#define KPQC_CT_EXPECT_SECRET_EACH(p, count, size, what) KPQC_CT_EXPECT_SECRET_BYTE_((p), (count), (size), (size) - 1, (what))
#define KPQC_CT_EXPECT_SECRET_EACH_LOW(p, count, size, what) KPQC_CT_EXPECT_SECRET_BYTE_((p), (count), (size), 0, (what))
#define KPQC_CT_EXPECT_SECRET_BYTE_(p, count, size, at, what)                                                 \
    do {                                                                                                       \
        if (!kpqc_ct_each_secret((p), (count), (size), (at))) {                                                \
            fprintf(stderr, "constant-time check: part of %s is public too early (%s:%d)\n", (what),          \
                    __FILE__, __LINE__);                                                                       \
            exit(1);                                                                                           \
        }                                                                                                      \
    } while (0)
#else
#define KPQC_CT_EXPECT_SECRET(p, len, what) ((void)(p), (void)(len), (void)(what))
#define KPQC_CT_EXPECT_SECRET_EACH(p, count, size, what) ((void)(p), (void)(count), (void)(size), (void)(what))
#define KPQC_CT_EXPECT_SECRET_EACH_LOW(p, count, size, what) ((void)(p), (void)(count), (void)(size), (void)(what))
#endif

#endif
