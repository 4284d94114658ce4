/*
 * AVX-512 build of the acceptance exponential (see haetae_sampler.c):
 * eight candidates' Horner steps side by side.  AVX-512 has no 64 x 64-bit
 * product, but every step multiplies |r| < 2^52 by xi < 2^52, so 26-bit
 * limbs and four 32 x 32-bit products give a * b exactly; ceil(r xi / 2^48)
 * is then ceil(|r| xi / 2^48) for r >= 0 and -floor(|r| xi / 2^48) below.
 */
#include "common/x86_intrin.h"

#include "haetae.h"

void kpqc_haetae_approx_exp8_avx512(uint64_t out[8], const int64_t xi[8]) {
    const __m512i m26 = _mm512_set1_epi64((INT64_C(1) << 26) - 1);
    const __m512i m22 = _mm512_set1_epi64((INT64_C(1) << 22) - 1);
    const __m512i round_up = _mm512_set1_epi64((INT64_C(1) << 48) - 1);
    const __m512i x = _mm512_loadu_si512((const void *)xi);
    const __m512i x0 = _mm512_and_si512(x, m26), x1 = _mm512_srli_epi64(x, 26);
    __m512i r = _mm512_set1_epi64(kpqc_haetae_exp_coef[0]);
    for (unsigned i = 1; i <= HAETAE_EXP_DEGREE; i++) {
        /* the sign as an all-ones lane (plain arithmetic, no opmask) */
        const __m512i neg = _mm512_srai_epi64(r, 63);
        const __m512i a = _mm512_sub_epi64(_mm512_xor_si512(r, neg), neg);
        const __m512i a0 = _mm512_and_si512(a, m26), a1 = _mm512_srli_epi64(a, 26);
        /* |r| xi = p11 2^52 + mid 2^26 + p00, each part below 2^53 */
        const __m512i p00 = _mm512_mul_epu32(a0, x0);
        const __m512i mid = _mm512_add_epi64(_mm512_mul_epu32(a0, x1), _mm512_mul_epu32(a1, x0));
        const __m512i p11 = _mm512_mul_epu32(a1, x1);
        /* = (p11 2^4 + mid / 2^22) 2^48 + low, low < 2^53 */
        const __m512i high = _mm512_add_epi64(_mm512_slli_epi64(p11, 4), _mm512_srli_epi64(mid, 22));
        const __m512i low = _mm512_add_epi64(_mm512_slli_epi64(_mm512_and_si512(mid, m22), 26), p00);
        const __m512i up = _mm512_add_epi64(high, _mm512_srli_epi64(_mm512_add_epi64(low, round_up), 48));
        const __m512i down = _mm512_add_epi64(high, _mm512_srli_epi64(low, 48));
        const __m512i minus_down = _mm512_sub_epi64(_mm512_setzero_si512(), down);
        const __m512i prod = _mm512_xor_si512(up, _mm512_and_si512(neg, _mm512_xor_si512(up, minus_down)));
        r = _mm512_add_epi64(prod, _mm512_set1_epi64(kpqc_haetae_exp_coef[i]));
    }
    _mm512_storeu_si512((void *)out, r);
}
