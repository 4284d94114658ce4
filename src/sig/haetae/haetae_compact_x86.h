/*
 * The AVX2 steps the x86 compactions share (haetae_compact_avx2.c,
 * haetae_compact_avx512.c): each entry's word, the count of dropped
 * entries before it with the keep flag in bit 15, and at the end the keep
 * flags back from the words' top bits, sixteen a register.
 */
#ifndef KPQC_HAETAE_COMPACT_X86_H
#define KPQC_HAETAE_COMPACT_X86_H

#include <stddef.h>
#include <stdint.h>

#include "common/x86_intrin.h"

static inline void compact_meta_avx2(uint16_t *meta, const uint8_t *keep, size_t n) {
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
}

static inline void compact_flags_avx2(uint8_t *keep, const uint16_t *meta, size_t n) {
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m256i flags = _mm256_srli_epi16(_mm256_loadu_si256((const __m256i *)(meta + i)), 15);
        const __m128i bytes = _mm_packus_epi16(_mm256_castsi256_si128(flags), _mm256_extracti128_si256(flags, 1));
        _mm_storeu_si128((__m128i *)(keep + i), bytes);
    }
    for (; i < n; i++) keep[i] = (uint8_t)(meta[i] >> 15);
}

#endif
