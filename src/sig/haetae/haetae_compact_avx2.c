/*
 * AVX2 build of the oblivious compaction (see kpqc_haetae_ct_compact in
 * haetae_sampler.c and the AVX-512 build it follows).  A round moves every
 * kept entry whose distance has bit k set down by s = 2^k; kept entries
 * never collide, so each position's new content is a function of the old
 * contents at it and s above it, and a round is a pass of blends in place,
 * ascending (each block reads its sources before it is stored).  The
 * distance and the keep flag share a 16-bit word (flag in bit 15), 16 to
 * a register; the values follow them, 4 to a register.
 */
#include <string.h>

#include "common/ct.h"
#include "common/x86_intrin.h"
#include "haetae.h"

#define KEEP 0x8000

void kpqc_haetae_ct_compact_avx2(uint64_t *val, uint8_t *keep, size_t n, size_t max_d) {
    /* the words from n on stay 0 (nothing kept there): a block may read
     * up to s + 15 <= 2n + 15 words */
    uint16_t meta[2 * HAETAE_CAND_CAP + 16];
    size_t i = 0;
    /* the dropped entries before each one: a prefix sum within each
     * 128-bit half of 16 words, the low half's total carried into the
     * high half, and the running total of the earlier blocks */
    __m256i before = _mm256_setzero_si256();
    for (; i + 16 <= n; i += 16) {
        const __m256i kept = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(keep + i)));
        const __m256i drop = _mm256_sub_epi16(_mm256_set1_epi16(1), kept);
        __m256i sum = _mm256_add_epi16(drop, _mm256_slli_si256(drop, 2));
        sum = _mm256_add_epi16(sum, _mm256_slli_si256(sum, 4));
        sum = _mm256_add_epi16(sum, _mm256_slli_si256(sum, 8));
        const __m256i low_total = _mm256_shuffle_epi8(_mm256_permute2x128_si256(sum, sum, 0x08),
                                                      _mm256_set1_epi16(0x0f0e));
        sum = _mm256_add_epi16(_mm256_add_epi16(sum, low_total), before);
        const __m256i excl = _mm256_sub_epi16(sum, drop);
        _mm256_storeu_si256((__m256i *)(meta + i), _mm256_or_si256(excl, _mm256_slli_epi16(kept, 15)));
        before = _mm256_shuffle_epi8(_mm256_permute2x128_si256(sum, sum, 0x11), _mm256_set1_epi16(0x0f0e));
    }
    uint16_t dropped = (uint16_t)_mm256_extract_epi16(before, 0);
    for (; i < n; i++) {
        meta[i] = (uint16_t)(dropped | (keep[i] << 15));
        dropped = (uint16_t)(dropped + (1 - keep[i]));
    }
    memset(meta + n, 0, (n + 16) * sizeof *meta);
    for (unsigned k = 0; ((size_t)1 << k) <= max_d && ((size_t)1 << k) < n; k++) {
        const size_t s = (size_t)1 << k;
        const uint16_t move = (uint16_t)(KEEP | (1u << k));
        const __m256i moves4 = _mm256_set1_epi64x(move);
        size_t t = 0;
        for (; t + s + 4 <= n; t += 4) {
            __m128i m = _mm_loadl_epi64((const __m128i *)(meta + t + s));
            __m256i in = _mm256_cmpeq_epi64(_mm256_and_si256(_mm256_cvtepu16_epi64(m), moves4), moves4);
            __m256i cur = _mm256_loadu_si256((const __m256i *)(val + t));
            __m256i above = _mm256_loadu_si256((const __m256i *)(val + t + s));
            _mm256_storeu_si256((__m256i *)(val + t), _mm256_blendv_epi8(cur, above, in));
        }
        for (; t + s < n; t++) {
            uint64_t in = 0 - (uint64_t)((meta[t + s] & move) == move);
            val[t] = (val[t] & ~in) | (val[t + s] & in);
        }
        const __m256i moves = _mm256_set1_epi16((int16_t)move);
        const __m256i stays = _mm256_set1_epi16(0x7fff);
        for (t = 0; t < n; t += 16) {
            __m256i cur = _mm256_loadu_si256((const __m256i *)(meta + t));
            __m256i above = _mm256_loadu_si256((const __m256i *)(meta + t + s));
            __m256i out = _mm256_cmpeq_epi16(_mm256_and_si256(cur, moves), moves);
            __m256i in = _mm256_cmpeq_epi16(_mm256_and_si256(above, moves), moves);
            cur = _mm256_blendv_epi8(cur, _mm256_and_si256(cur, stays), out);
            _mm256_storeu_si256((__m256i *)(meta + t), _mm256_blendv_epi8(cur, above, in));
        }
    }
    for (i = 0; i + 16 <= n; i += 16) {
        const __m256i flags = _mm256_srli_epi16(_mm256_loadu_si256((const __m256i *)(meta + i)), 15);
        const __m128i bytes = _mm_packus_epi16(_mm256_castsi256_si128(flags), _mm256_extracti128_si256(flags, 1));
        _mm_storeu_si128((__m128i *)(keep + i), bytes);
    }
    for (; i < n; i++) keep[i] = (uint8_t)(meta[i] >> 15);
    kpqc_wipe(meta, sizeof meta);
}
