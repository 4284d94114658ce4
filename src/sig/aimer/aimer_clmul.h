/*
 * AIMer field products and squares on 128-bit carry-less multiplications
 * (PCLMULQDQ), all in registers, inlined per width into the PCLMULQDQ
 * kernels (the AVX2 path's, also used by the AVX-512 table for single
 * elements).  GF(2^128) folds its high half with two more carry-less
 * products by the tail 0x87; the wider fields fold word by word with
 * shifts (kpqc_aimer_reduce_w).
 */
#ifndef KPQC_AIMER_CLMUL_H
#define KPQC_AIMER_CLMUL_H

#include "common/x86_intrin.h"

#include "aimer_field.h"

/* [lo, hi] = 256-bit product, folded to 128 bits mod x^128 + x^7 + x^2 + x + 1. */
static inline __m128i kpqc_aimer_fold128(__m128i lo, __m128i hi) {
    const __m128i k = _mm_cvtsi32_si128(0x87);
    __m128i p = _mm_clmulepi64_si128(hi, k, 0x01); /* word 3 times the tail, lands on words 1-2 */
    lo = _mm_xor_si128(lo, _mm_slli_si128(p, 8));
    hi = _mm_xor_si128(hi, _mm_srli_si128(p, 8));
    return _mm_xor_si128(lo, _mm_clmulepi64_si128(hi, k, 0x00)); /* word 2 lands on words 0-1 */
}

static inline __m128i kpqc_aimer_mul128(__m128i x, __m128i y) {
    __m128i lo = _mm_clmulepi64_si128(x, y, 0x00), hi = _mm_clmulepi64_si128(x, y, 0x11);
    __m128i mid = _mm_xor_si128(_mm_clmulepi64_si128(x, y, 0x01), _mm_clmulepi64_si128(x, y, 0x10));
    return kpqc_aimer_fold128(_mm_xor_si128(lo, _mm_slli_si128(mid, 8)), _mm_xor_si128(hi, _mm_srli_si128(mid, 8)));
}

static inline __m128i kpqc_aimer_sqr128(__m128i x) {
    return kpqc_aimer_fold128(_mm_clmulepi64_si128(x, x, 0x00), _mm_clmulepi64_si128(x, x, 0x11));
}

/* Wider fields: t = a * b unreduced (2 nw words), word products by schoolbook. */
static inline __attribute__((always_inline)) void kpqc_aimer_prod_w(uint64_t *t, const uint64_t *a,
                                                                    const uint64_t *b, const unsigned nw) {
    __m128i acc[8];
    for (unsigned k = 0; k < 2 * nw; k++) acc[k] = _mm_setzero_si128();
    for (unsigned i = 0; i < nw; i++) {
        __m128i ai = _mm_cvtsi64_si128((long long)a[i]);
        for (unsigned j = 0; j < nw; j++)
            acc[i + j] = _mm_xor_si128(acc[i + j], _mm_clmulepi64_si128(ai, _mm_cvtsi64_si128((long long)b[j]), 0));
    }
    for (unsigned k = 0; k < 2 * nw; k++) t[k] = 0;
    for (unsigned k = 0; k < 2 * nw - 1; k++) {
        t[k] ^= (uint64_t)_mm_cvtsi128_si64(acc[k]);
        t[k + 1] ^= (uint64_t)_mm_extract_epi64(acc[k], 1);
    }
}

/* c = a * b in the field of width nw (2, 3 or 4 words); c may alias a or b. */
static inline __attribute__((always_inline)) void kpqc_aimer_mul_w(uint64_t *c, const uint64_t *a, const uint64_t *b,
                                                                   const unsigned nw, const unsigned k1,
                                                                   const unsigned k2, const unsigned k3) {
    if (nw == 2) {
        __m128i r = kpqc_aimer_mul128(_mm_loadu_si128((const __m128i *)a), _mm_loadu_si128((const __m128i *)b));
        _mm_storeu_si128((__m128i *)c, r);
        return;
    }
    uint64_t t[8];
    kpqc_aimer_prod_w(t, a, b, nw);
    kpqc_aimer_reduce_w(c, t, nw, k1, k2, k3);
}

#endif
