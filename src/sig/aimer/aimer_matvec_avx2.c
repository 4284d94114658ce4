/*
 * Binary matrix times vector for the AIMer fields with AVX2.  Rows are
 * 4-word slots (the upper words zero for narrower fields); row j is added
 * when bit j of v is set, selected with a mask, never a branch.
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

/* Four 4-word slots to four registers of one word each, and back (the
 * transpose is its own inverse). */
static inline void transpose4(__m256i r[4]) {
    __m256i t0 = _mm256_unpacklo_epi64(r[0], r[1]), t1 = _mm256_unpackhi_epi64(r[0], r[1]);
    __m256i t2 = _mm256_unpacklo_epi64(r[2], r[3]), t3 = _mm256_unpackhi_epi64(r[2], r[3]);
    r[0] = _mm256_permute2x128_si256(t0, t2, 0x20);
    r[1] = _mm256_permute2x128_si256(t1, t3, 0x20);
    r[2] = _mm256_permute2x128_si256(t0, t2, 0x31);
    r[3] = _mm256_permute2x128_si256(t1, t3, 0x31);
}

/*
 * Eight vectors at once (the parties of a batch), word-sliced: in[w][h]
 * holds word w of vectors 4h..4h+3, acc[w][h] the same word of their
 * results.  The rows of each input word are visited from bit 63 down and
 * the input words doubled after each row, so the row's bit is always the
 * sign bit: vpcmpgtq against zero makes the four vectors' masks, and the
 * row's word, broadcast, is added under them.
 */
static inline __attribute__((always_inline)) void mat_vec8_w(uint64_t (*c)[4], const uint64_t (*M)[4],
                                                             const uint64_t (*v)[4], const unsigned nw) {
    __m256i in[2][4], acc[2][4];
    for (unsigned h = 0; h < 2; h++) {
        for (unsigned i = 0; i < 4; i++) {
            in[h][i] = _mm256_loadu_si256((const __m256i *)v[4 * h + i]);
            acc[h][i] = _mm256_setzero_si256();
        }
        transpose4(in[h]);
    }
    const __m256i zero = _mm256_setzero_si256();
    for (unsigned wi = 0; wi < nw; wi++) {
        __m256i x0 = in[0][wi], x1 = in[1][wi];
        const uint64_t (*row)[4] = M + 64 * wi + 63;
        for (unsigned j = 0; j < 64; j++, row--) {
            __m256i m0 = _mm256_cmpgt_epi64(zero, x0), m1 = _mm256_cmpgt_epi64(zero, x1);
            for (unsigned w = 0; w < nw; w++) {
                __m256i r = _mm256_set1_epi64x((long long)row[0][w]);
                acc[0][w] = _mm256_xor_si256(acc[0][w], _mm256_and_si256(r, m0));
                acc[1][w] = _mm256_xor_si256(acc[1][w], _mm256_and_si256(r, m1));
            }
            x0 = _mm256_add_epi64(x0, x0);
            x1 = _mm256_add_epi64(x1, x1);
        }
    }
    for (unsigned h = 0; h < 2; h++) {
        transpose4(acc[h]);
        for (unsigned i = 0; i < 4; i++) _mm256_storeu_si256((__m256i *)c[4 * h + i], acc[h][i]);
    }
}

void kpqc_aimer_mat_vec8_avx2(uint64_t (*c)[4], const uint64_t (*M)[4], const uint64_t (*v)[4], unsigned nw) {
    if (nw == 2) mat_vec8_w(c, M, v, 2);
    else if (nw == 3) mat_vec8_w(c, M, v, 3);
    else mat_vec8_w(c, M, v, 4);
}
