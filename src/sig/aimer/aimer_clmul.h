/*
 * GF(2^128) products and squares on 128-bit carry-less multiplications
 * (PCLMULQDQ), all in registers, inlined into the PCLMULQDQ kernels (the
 * AVX2 path's, also used by the AVX-512 table for single elements).  The
 * high half folds with two more carry-less products by the tail 0x87; the
 * wider fields are in aimer_sqr_lanes.h.
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

/* [lo, hi] = the unreduced 256-bit product x y */
static inline void kpqc_aimer_mul128_wide(__m128i *lo, __m128i *hi, __m128i x, __m128i y) {
    __m128i l = _mm_clmulepi64_si128(x, y, 0x00), h = _mm_clmulepi64_si128(x, y, 0x11);
    __m128i mid = _mm_xor_si128(_mm_clmulepi64_si128(x, y, 0x01), _mm_clmulepi64_si128(x, y, 0x10));
    *lo = _mm_xor_si128(l, _mm_slli_si128(mid, 8));
    *hi = _mm_xor_si128(h, _mm_srli_si128(mid, 8));
}

static inline __m128i kpqc_aimer_mul128(__m128i x, __m128i y) {
    __m128i lo, hi;
    kpqc_aimer_mul128_wide(&lo, &hi, x, y);
    return kpqc_aimer_fold128(lo, hi);
}

static inline __m128i kpqc_aimer_sqr128(__m128i x) {
    return kpqc_aimer_fold128(_mm_clmulepi64_si128(x, x, 0x00), _mm_clmulepi64_si128(x, x, 0x11));
}

#endif
