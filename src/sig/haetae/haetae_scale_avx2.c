/*
 * AVX2 build of the hyperball's scaling (kpqc_haetae_fix_scale_round for
 * a row, see haetae_fixpoint.c and the AVX-512 build), four samples at a
 * time.  As there, the portable sequence of roundings composes into one,
 * |y| = floor((x Y + K) / 2^123) with K = 2^122 + 2^59 + 2^31 and the scale
 * Y = y.hi 2^48 + y.lo < 2^94.  Here the exact product is summed from
 * 32 x 32-bit products (vpmuludq) in 32-bit columns: x = x0 + x1 2^32,
 * Y = Y0 + Y1 2^32 + Y2 2^64, each column below 2^35 before its carry.
 */
#include "common/x86_intrin.h"
#include "haetae.h"

uint64_t kpqc_haetae_scale_round_avx2(int32_t *y, const uint64_t *x, const uint8_t *signs, size_t n, hfix scale) {
    const unsigned __int128 big = ((unsigned __int128)scale.hi << 48) + scale.lo;
    const __m256i mask32 = _mm256_set1_epi64x(0xffffffff);
    const __m256i y0 = _mm256_set1_epi64x((int64_t)(uint32_t)big);
    const __m256i y1 = _mm256_set1_epi64x((int64_t)(uint32_t)(big >> 32));
    const __m256i y2 = _mm256_set1_epi64x((int64_t)(uint64_t)(big >> 64));
    const __m256i bit = _mm256_setr_epi64x(1, 2, 4, 8);
    const __m256i low_dwords = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
    __m256i norm = _mm256_setzero_si256();
    for (size_t i = 0; i < n; i += 4) {
        const __m256i x0 = _mm256_loadu_si256((const __m256i *)&x[i]);
        const __m256i x1 = _mm256_srli_epi64(x0, 32);
        const __m256i p00 = _mm256_mul_epu32(x0, y0), p01 = _mm256_mul_epu32(x0, y1), p02 = _mm256_mul_epu32(x0, y2);
        const __m256i p10 = _mm256_mul_epu32(x1, y0), p11 = _mm256_mul_epu32(x1, y1), p12 = _mm256_mul_epu32(x1, y2);
#define LO(v) _mm256_and_si256((v), mask32)
#define HI(v) _mm256_srli_epi64((v), 32)
        /* the columns of x Y + K: K is 2^31, 2^27 2^32 and 2^26 2^96 */
        __m256i c0 = _mm256_add_epi64(LO(p00), _mm256_set1_epi64x(INT64_C(1) << 31));
        __m256i c1 = _mm256_add_epi64(_mm256_add_epi64(HI(p00), LO(p01)),
                                      _mm256_add_epi64(LO(p10), _mm256_set1_epi64x(INT64_C(1) << 27)));
        __m256i c2 = _mm256_add_epi64(_mm256_add_epi64(HI(p01), HI(p10)), _mm256_add_epi64(LO(p02), LO(p11)));
        __m256i c3 = _mm256_add_epi64(_mm256_add_epi64(HI(p02), HI(p11)),
                                      _mm256_add_epi64(LO(p12), _mm256_set1_epi64x(INT64_C(1) << 26)));
        c1 = _mm256_add_epi64(c1, HI(c0));
        c2 = _mm256_add_epi64(c2, HI(c1));
        c3 = _mm256_add_epi64(c3, HI(c2));
        const __m256i c4 = _mm256_add_epi64(HI(p12), HI(c3));
#undef LO
#undef HI
        __m256i r = _mm256_or_si256(_mm256_srli_epi64(_mm256_and_si256(c3, mask32), 27), _mm256_slli_epi64(c4, 5));
        const __m256i neg = _mm256_cmpeq_epi64(_mm256_and_si256(_mm256_set1_epi64x((signs[i / 8] >> (i % 8)) & 15), bit), bit);
        r = _mm256_sub_epi64(_mm256_xor_si256(r, neg), neg);
        _mm_storeu_si128((__m128i *)&y[i], _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(r, low_dwords)));
        /* the squares as the portable code takes them, of the int32 values */
        norm = _mm256_add_epi64(norm, _mm256_mul_epi32(r, r));
    }
    uint64_t s[4];
    _mm256_storeu_si256((__m256i *)s, norm);
    return s[0] + s[1] + s[2] + s[3];
}
