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
#include "haetae_compact_x86.h"

#define KEEP 0x8000

void kpqc_haetae_ct_compact_avx2(uint64_t *val, uint8_t *keep, size_t n, size_t max_d) {
    /* the words from n on stay 0 (nothing kept there): a block may read
     * up to s + 15 <= 2n + 15 words */
    uint16_t meta[2 * HAETAE_CAND_CAP + 16];
    compact_meta_avx2(meta, keep, n);
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
    compact_flags_avx2(keep, meta, n);
    kpqc_wipe(meta, (2 * n + 16) * sizeof *meta); /* the words written */
}
