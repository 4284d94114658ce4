/*
 * AVX2 build of the hyperball's CDT samples (see haetae_sampler.c), four
 * candidates in the four 64-bit lanes of a register.  As on AVX-512 the
 * count has two levels, since the table is sorted: the first entries of
 * the 11 blocks below a lane's value r give its block B (the last block
 * whose first entry is below r, or 0); every entry before block B is
 * below r and none after it, so the count is 16 B plus the entries of
 * block B below r.  Entry 16 B + j is taken from row j (11 entries, three
 * registers) by dword permutations and blends on B, never from a secret
 * address: about 70 operations a candidate instead of the 264 of
 * comparing all 166 entries.
 */
#include "common/x86_intrin.h"
#include "haetae.h"

/* Lanes where e < r for 83-bit numbers split at bit 42 (all-ones):
 * e_hi < r_hi + [e_lo < r_lo]. */
static inline __m256i below(__m256i e_lo, __m256i e_hi, __m256i r_lo, __m256i r_hi) {
    const __m256i lo_below = _mm256_cmpgt_epi64(r_lo, e_lo);
    return _mm256_cmpgt_epi64(_mm256_sub_epi64(r_hi, lo_below), e_hi);
}

/* Entry B of an 11-entry row for each lane: idx picks entry B mod 4 of a
 * register as a pair of dwords, in_1 and in_2 say whether B / 4 is 1 or 2. */
static inline __m256i row_entry(const int64_t *row, __m256i idx, __m256i in_1, __m256i in_2) {
    const __m256i r0 = _mm256_loadu_si256((const __m256i *)row);
    const __m256i r1 = _mm256_loadu_si256((const __m256i *)(row + 4));
    const __m256i r2 = _mm256_maskload_epi64((const long long *)(row + 8), _mm256_setr_epi64x(-1, -1, -1, 0));
    __m256i e = _mm256_permutevar8x32_epi32(r0, idx);
    e = _mm256_blendv_epi8(e, _mm256_permutevar8x32_epi32(r1, idx), in_1);
    return _mm256_blendv_epi8(e, _mm256_permutevar8x32_epi32(r2, idx), in_2);
}

void kpqc_haetae_cdt4_avx2(uint64_t x[4], const uint64_t lo[4], const uint32_t hi[4]) {
    const __m256i one = _mm256_set1_epi64x(1);
    const __m256i v = _mm256_loadu_si256((const __m256i *)lo);
    const __m256i h = _mm256_cvtepu32_epi64(_mm_loadu_si128((const __m128i *)hi));
    const __m256i r_lo = _mm256_and_si256(v, _mm256_set1_epi64x((INT64_C(1) << HAETAE_CDT_SPLIT) - 1));
    const __m256i r_hi = _mm256_or_si256(_mm256_srli_epi64(v, HAETAE_CDT_SPLIT),
                                         _mm256_slli_epi64(h, 64 - HAETAE_CDT_SPLIT));
    /* blocks whose first entry is below r, minus one unless none */
    __m256i blocks = _mm256_setzero_si256();
    for (unsigned b = 0; b < HAETAE_CDT_BLOCKS; b++)
        blocks = _mm256_sub_epi64(blocks, below(_mm256_set1_epi64x(kpqc_haetae_cdt_lo[b]),
                                                _mm256_set1_epi64x(kpqc_haetae_cdt_hi[b]), r_lo, r_hi));
    const __m256i block = _mm256_sub_epi64(blocks, _mm256_and_si256(_mm256_cmpgt_epi64(blocks, _mm256_setzero_si256()), one));
    const __m256i pair = _mm256_slli_epi64(_mm256_and_si256(block, _mm256_set1_epi64x(3)), 1);
    const __m256i idx = _mm256_or_si256(pair, _mm256_slli_epi64(_mm256_add_epi64(pair, one), 32));
    const __m256i quarter = _mm256_srli_epi64(block, 2);
    const __m256i in_1 = _mm256_cmpeq_epi64(quarter, one);
    const __m256i in_2 = _mm256_cmpeq_epi64(quarter, _mm256_set1_epi64x(2));
    __m256i acc = _mm256_slli_epi64(block, 4);
    for (unsigned j = 0; j < 16; j++) {
        const __m256i e_lo = row_entry(&kpqc_haetae_cdt_lo[j * HAETAE_CDT_BLOCKS], idx, in_1, in_2);
        const __m256i e_hi = row_entry(&kpqc_haetae_cdt_hi[j * HAETAE_CDT_BLOCKS], idx, in_1, in_2);
        acc = _mm256_sub_epi64(acc, below(e_lo, e_hi, r_lo, r_hi));
    }
    _mm256_storeu_si256((__m256i *)x, acc);
}

/* One sample, for comparison with the portable count. */
uint64_t kpqc_haetae_cdt_sample_avx2(uint64_t lo, uint32_t hi) {
    uint64_t l[4] = {lo, lo, lo, lo}, x[4];
    uint32_t h[4] = {hi, hi, hi, hi};
    kpqc_haetae_cdt4_avx2(x, l, h);
    return x[0];
}
