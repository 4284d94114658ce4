/*
 * AVX-512 build of the oblivious compaction (see kpqc_haetae_ct_compact in
 * haetae_sampler.c).  A round moves every kept entry whose distance has
 * bit k set down by s = 2^k; since kept entries never collide, each
 * position's new content is a function of the old contents at it and at
 * s above it, so a round is a pass of blends over the array, in place in
 * ascending order (each block reads its sources before it is stored).
 * The distance and the keep flag share a 16-bit word (flag in bit 15), 32
 * to a register; the values follow them, 8 to a register.
 */
#include "common/ct.h"
#include "common/x86_intrin.h"
#include "haetae.h"
#include "haetae_compact_x86.h"

#define KEEP 0x8000

static inline __mmask8 lanes8(size_t left) { return left >= 8 ? 0xff : (__mmask8)((1u << left) - 1); }
static inline __mmask32 lanes32(size_t left) { return left >= 32 ? 0xffffffffu : (__mmask32)((1u << left) - 1); }

void kpqc_haetae_ct_compact_avx512(uint64_t *val, uint8_t *keep, size_t n, size_t max_d) {
    uint16_t meta[HAETAE_CAND_CAP];
    compact_meta_avx2(meta, keep, n);
    for (unsigned k = 0; ((size_t)1 << k) <= max_d && ((size_t)1 << k) < n; k++) {
        const size_t s = (size_t)1 << k;
        const __m128i moves8 = _mm_set1_epi16((int16_t)(KEEP | (1u << k)));
        for (size_t t = 0; t + s < n; t += 8) {
            const __mmask8 m = lanes8(n - s - t);
            __mmask8 in = _mm_cmpeq_epi16_mask(_mm_and_si128(_mm_maskz_loadu_epi16(m, meta + t + s), moves8), moves8);
            __m512i cur = _mm512_maskz_loadu_epi64(m, val + t), above = _mm512_maskz_loadu_epi64(m, val + t + s);
            _mm512_mask_storeu_epi64(val + t, m, _mm512_mask_blend_epi64(in, cur, above));
        }
        const __m512i moves = _mm512_set1_epi16((int16_t)(KEEP | (1u << k)));
        const __m512i stays = _mm512_set1_epi16(0x7fff);
        for (size_t t = 0; t < n; t += 32) {
            const __mmask32 m = lanes32(n - t), src = t + s < n ? lanes32(n - s - t) : 0;
            __m512i cur = _mm512_maskz_loadu_epi16(m, meta + t);
            __m512i above = _mm512_maskz_loadu_epi16(src, meta + t + s);
            __mmask32 out = _mm512_cmpeq_epi16_mask(_mm512_and_si512(cur, moves), moves);
            __mmask32 in = _mm512_cmpeq_epi16_mask(_mm512_and_si512(above, moves), moves);
            cur = _mm512_mask_mov_epi16(cur, out, _mm512_and_si512(cur, stays));
            _mm512_mask_storeu_epi16(meta + t, m, _mm512_mask_mov_epi16(cur, in, above));
        }
    }
    compact_flags_avx2(keep, meta, n);
    kpqc_wipe(meta, n * sizeof *meta); /* the words written */
}
