/* AVX2 build of the CDT sample (see haetae_sampler.c): four table entries
 * per instruction, the same borrow arithmetic on signed 64-bit halves. */
#include "haetae.h"

#include "common/x86_intrin.h"

uint64_t kpqc_haetae_cdt_sample_avx2(uint64_t lo, uint32_t hi) {
    const __m256i r_lo = _mm256_set1_epi64x((int64_t)(lo & ((UINT64_C(1) << HAETAE_CDT_SPLIT) - 1)));
    const __m256i r_hi =
        _mm256_set1_epi64x((int64_t)((lo >> HAETAE_CDT_SPLIT) | ((uint64_t)hi << (64 - HAETAE_CDT_SPLIT))));
    __m256i acc = _mm256_setzero_si256();
    for (unsigned i = 0; i < HAETAE_CDT_SLOTS; i += 4) {
        __m256i c_lo = _mm256_loadu_si256((const __m256i *)&kpqc_haetae_cdt_lo[i]);
        __m256i c_hi = _mm256_loadu_si256((const __m256i *)&kpqc_haetae_cdt_hi[i]);
        __m256i borrow = _mm256_srli_epi64(_mm256_sub_epi64(c_lo, r_lo), 63);
        __m256i d = _mm256_sub_epi64(_mm256_sub_epi64(c_hi, r_hi), borrow);
        acc = _mm256_add_epi64(acc, _mm256_srli_epi64(d, 63));
    }
    uint64_t s[4];
    _mm256_storeu_si256((__m256i *)s, acc);
    return s[0] + s[1] + s[2] + s[3];
}

void kpqc_haetae_gauss16_avx2(struct haetae_cands *out, const uint8_t *r, size_t n) {
    kpqc_haetae_gauss16_generic(out, r, n, kpqc_haetae_cdt_sample_avx2);
}
