/*
 * Binary fields of AIMer: GF(2^128) = GF(2)[x]/(x^128 + x^7 + x^2 + x + 1),
 * GF(2^192) mod x^192 + x^7 + x^2 + x + 1, GF(2^256) mod x^256 + x^10 + x^5 + x^2 + 1.
 * An element is nw little-endian 64-bit words (bit i of word j = x^(64j+i)).
 *
 * Products are formed either with PCLMULQDQ (aimer_field_pclmul.c) or with a
 * portable constant-time carry-less multiplication built on integer
 * multiplications of sparse operands; both give the unreduced 2*nw-word
 * product, which the caller reduces.
 */
#ifndef KPQC_AIMER_FIELD_H
#define KPQC_AIMER_FIELD_H

#include <stdint.h>

/* Which kernels compute products and squares. */
enum { AIMER_GF_PORTABLE = 0, AIMER_GF_PCLMUL = 1, AIMER_GF_AVX512 = 2 };

/* Unreduced products, r has 2*nw words. */
void kpqc_aimer_prod_portable(uint64_t *r, const uint64_t *a, const uint64_t *b, unsigned nw);
void kpqc_aimer_prod2_pclmul(uint64_t r[4], const uint64_t a[2], const uint64_t b[2]);
void kpqc_aimer_prod3_pclmul(uint64_t r[6], const uint64_t a[3], const uint64_t b[3]);
void kpqc_aimer_prod4_pclmul(uint64_t r[8], const uint64_t a[4], const uint64_t b[4]);
void kpqc_aimer_sqr_pclmul(uint64_t *r, const uint64_t *a, unsigned nw);

/* Reduced field operations (nw = 2, 3, 4) with the given AIMER_GF_ kernel. */
void kpqc_aimer_gf_mul(uint64_t *c, const uint64_t *a, const uint64_t *b, unsigned nw, int kernel);
/* c = a^(2^e): e squarings in one call (a linear map, so shares square too) */
void kpqc_aimer_gf_sqr_n(uint64_t *c, const uint64_t *a, unsigned nw, unsigned e, int kernel);
void kpqc_aimer_reduce(uint64_t *c, uint64_t *t, unsigned nw);

/* The AVX-512 kernels (aimer_field_avx512.c): products and squarings
 * with the reduction inlined, and the binary matrix-vector product of
 * aimer.c (rows in 4-word slots, row j added when bit j of v is set). */
void kpqc_aimer_gf_mul_avx512(uint64_t *c, const uint64_t *a, const uint64_t *b, unsigned nw);
void kpqc_aimer_gf_sqr_n_avx512(uint64_t *c, const uint64_t *a, unsigned nw, unsigned e);
void kpqc_aimer_mat_vec_avx512(uint64_t c[4], const uint64_t (*M)[4], const uint64_t *v, unsigned nw);
/* The same for eight vectors (and results) at once, and e squarings of
 * eight elements (4-word slots) in place. */
void kpqc_aimer_mat_vec8_avx512(uint64_t (*c)[4], const uint64_t (*M)[4], const uint64_t (*v)[4], unsigned nw);
void kpqc_aimer_gf_sqr_n8_avx512(uint64_t (*x)[4], unsigned nw, unsigned e);

/*
 * Fold the high half of a 2*nw-word product down using x^n = tail(x),
 * tail = x^k1 + x^k2 + x^k3 + 1.  Working from the top word down, a fold
 * from word i spills into word i-nw+1, which is still above the low half
 * only for the topmost word and is then folded in turn.
 */
static inline __attribute__((always_inline)) void kpqc_aimer_reduce_w(uint64_t *c, uint64_t *t,
                                                                      const unsigned nw, const unsigned k1,
                                                                      const unsigned k2, const unsigned k3) {
    for (unsigned i = 2 * nw - 1; i >= nw; i--) {
        uint64_t w = t[i];
        t[i - nw] ^= w ^ (w << k1) ^ (w << k2) ^ (w << k3);
        t[i - nw + 1] ^= (w >> (64 - k1)) ^ (w >> (64 - k2)) ^ (w >> (64 - k3));
    }
    for (unsigned i = 0; i < nw; i++) c[i] = t[i];
}

#endif
