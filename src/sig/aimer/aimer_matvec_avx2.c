/*
 * Binary matrix times vector for the AIMer fields with AVX2.  Rows are
 * 4-word slots (the upper words zero for narrower fields); row j is added
 * when bit j of v is set, selected with a compare mask, never a branch.
 */
#include "common/x86_intrin.h"

#include "aimer_field.h"

void kpqc_aimer_mat_vec_avx2(uint64_t c[4], const uint64_t (*M)[4], const uint64_t *v, unsigned nw) {
    __m256i acc0 = _mm256_setzero_si256(), acc1 = _mm256_setzero_si256();
    if (nw == 2) {
        /* Two 128-bit rows per register: row j low, row j+1 high. */
        for (unsigned w = 0; w < 2; w++) {
            __m256i vb = _mm256_set1_epi64x((long long)v[w]);
            __m256i bit = _mm256_set_epi64x(2, 2, 1, 1);
            const uint64_t (*row)[4] = M + 64 * w;
            for (unsigned j = 0; j < 64; j += 4) {
                __m256i r0 = _mm256_inserti128_si256(
                    _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)row[j])),
                    _mm_loadu_si128((const __m128i *)row[j + 1]), 1);
                __m256i r1 = _mm256_inserti128_si256(
                    _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)row[j + 2])),
                    _mm_loadu_si128((const __m128i *)row[j + 3]), 1);
                __m256i bit2 = _mm256_slli_epi64(bit, 2);
                __m256i m0 = _mm256_cmpeq_epi64(_mm256_and_si256(vb, bit), bit);
                __m256i m1 = _mm256_cmpeq_epi64(_mm256_and_si256(vb, bit2), bit2);
                acc0 = _mm256_xor_si256(acc0, _mm256_and_si256(r0, m0));
                acc1 = _mm256_xor_si256(acc1, _mm256_and_si256(r1, m1));
                bit = _mm256_slli_epi64(bit, 4);
            }
        }
        acc0 = _mm256_xor_si256(acc0, acc1);
        __m128i r = _mm_xor_si128(_mm256_castsi256_si128(acc0), _mm256_extracti128_si256(acc0, 1));
        _mm_storeu_si128((__m128i *)c, r);
        c[2] = c[3] = 0;
        return;
    }
    for (unsigned w = 0; w < nw; w++) {
        __m256i vb = _mm256_set1_epi64x((long long)v[w]);
        __m256i bit = _mm256_set1_epi64x(1);
        const uint64_t (*row)[4] = M + 64 * w;
        for (unsigned j = 0; j < 64; j += 2) {
            __m256i bit1 = _mm256_slli_epi64(bit, 1);
            __m256i m0 = _mm256_cmpeq_epi64(_mm256_and_si256(vb, bit), bit);
            __m256i m1 = _mm256_cmpeq_epi64(_mm256_and_si256(vb, bit1), bit1);
            acc0 = _mm256_xor_si256(acc0, _mm256_and_si256(_mm256_loadu_si256((const __m256i *)row[j]), m0));
            acc1 = _mm256_xor_si256(acc1, _mm256_and_si256(_mm256_loadu_si256((const __m256i *)row[j + 1]), m1));
            bit = _mm256_slli_epi64(bit, 2);
        }
    }
    _mm256_storeu_si256((__m256i *)c, _mm256_xor_si256(acc0, acc1));
}
