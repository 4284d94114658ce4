/*
 * AVX-512 build of the hyperball's scaling (kpqc_haetae_fix_scale_round
 * for a row, see haetae_fixpoint.c), eight samples at a time.  With the
 * sample x < 2^64 and the scale Y = y.hi 2^48 + y.lo, the portable
 * sequence of roundings (at 2^32 of x Y, at 2^28, then 2^15 after taking
 * the high limb) composes into one: |y| = floor((x Y + K) / 2^123) with
 * K = 2^122 + 2^59 + 2^31, since every term it rounds away below is the
 * remainder of the same exact product.  That product is summed from
 * 52-bit limbs with IFMA, and the signs are the opmask.
 */
#include "common/x86_intrin.h"
#include "haetae.h"

#define MASK52 ((INT64_C(1) << 52) - 1)

uint64_t kpqc_haetae_scale_round_avx512(int32_t *y, const uint64_t *x, const uint8_t *signs, size_t n, hfix scale) {
    const __m512i zero = _mm512_setzero_si512(), mask52 = _mm512_set1_epi64(MASK52);
    /* Y in 52-bit limbs: y.lo has 48 bits */
    const __m512i y0 = _mm512_set1_epi64((int64_t)(((scale.hi & 15) << 48) | scale.lo));
    const __m512i y1 = _mm512_set1_epi64((int64_t)(scale.hi >> 4));
    __m512i norm = zero;
    for (size_t i = 0; i < n; i += 8) {
        const __m512i v = _mm512_loadu_si512((const void *)&x[i]);
        const __m512i x0 = _mm512_and_si512(v, mask52), x1 = _mm512_srli_epi64(v, 52);
        /* limb k of x Y + K, before carries: K is 2^31, 2^7 2^52, 2^18 2^104 */
        __m512i l0 = _mm512_madd52lo_epu64(_mm512_set1_epi64(INT64_C(1) << 31), x0, y0);
        __m512i l1 = _mm512_madd52hi_epu64(_mm512_set1_epi64(INT64_C(1) << 7), x0, y0);
        l1 = _mm512_madd52lo_epu64(_mm512_madd52lo_epu64(l1, x0, y1), x1, y0);
        __m512i l2 = _mm512_madd52hi_epu64(_mm512_set1_epi64(INT64_C(1) << 18), x0, y1);
        l2 = _mm512_madd52lo_epu64(_mm512_madd52hi_epu64(l2, x1, y0), x1, y1);
        const __m512i l3 = _mm512_madd52hi_epu64(zero, x1, y1);
        l1 = _mm512_add_epi64(l1, _mm512_srli_epi64(l0, 52));
        l2 = _mm512_add_epi64(l2, _mm512_srli_epi64(l1, 52));
        __m512i r = _mm512_add_epi64(_mm512_srli_epi64(l2, 123 - 104), _mm512_slli_epi64(l3, 156 - 123));
        r = _mm512_mask_sub_epi64(r, (__mmask8)signs[i / 8], zero, r);
        _mm256_storeu_si256((__m256i *)&y[i], _mm512_cvtepi64_epi32(r));
        /* the squares as the portable code takes them, of the int32 values */
        const __m512i r32 = _mm512_cvtepi32_epi64(_mm512_cvtepi64_epi32(r));
        norm = _mm512_add_epi64(norm, _mm512_mul_epi32(r32, r32));
    }
    return (uint64_t)_mm512_reduce_add_epi64(norm);
}
