/*
 * Binary matrix times eight vectors for the AIMer fields with AVX2.  Rows
 * are 4-word slots (the upper words zero for narrower fields); row j is
 * added when bit j of a vector is set, selected with a mask, never a
 * branch.
 */
#include "common/x86_intrin.h"

#include "aimer_field.h"

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

/*
 * The same product through tables of the matrix, built once per matrix:
 * for each group of four rows and each output byte, that byte of the
 * group's sixteen row combinations is a 16-byte table, and a vector's
 * nibble of the group's four bits picks from it with vpshufb, a byte
 * permutation within a register (no address or branch depends on the
 * vector).  One vpshufb takes two tables, output bytes 2k and 2k+1 of
 * group g, one per 128-bit lane, at tab + (k/4) 256 nb + 128 g + (k%4) 32:
 * an output word's tables for all groups in one run, read in order (with
 * the groups' tables side by side, 512 bytes apart for aimer256, signing
 * aimer256s and 256f was 1 % slower); its indices
 * are sixteen vectors' nibbles, one per byte of each lane, so that every
 * table read from memory serves sixteen vectors (with eight, the tables'
 * 2 KiB per word and width came from L2 twice as often: aimer256f).  A
 * group costs nb/2 vpshufb and XORs against four rows' masks, broadcasts
 * and 2 nw masked XORs above.
 */
void kpqc_aimer_mat_tab_avx2(uint8_t *tab, const uint64_t (*M)[4], unsigned nw) {
    const unsigned nb = 8 * nw;
    /* byte i of sel[k] is all ones where bit k of i is set: the rows in
     * combination i */
    __m256i sel[4];
    const __m256i ix = _mm256_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
                                        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    for (unsigned k = 0; k < 4; k++) {
        const __m256i b = _mm256_set1_epi8((char)(1 << k));
        sel[k] = _mm256_cmpeq_epi8(_mm256_and_si256(ix, b), b);
    }
    /* lane 0 picks byte o of a 16-byte piece, lane 1 byte o + 1 */
    const __m256i next = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                          1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1);
    for (unsigned g = 0; g < 2 * nb; g++) {
        uint8_t *t = tab + (size_t)g * 128;
        for (unsigned c = 0; 16 * c < nb; c++) {
            __m256i r[4];
            for (unsigned k = 0; k < 4; k++)
                r[k] = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)((const uint8_t *)M[4 * g + k] + 16 * c)));
            for (unsigned o = 0; o < 16 && 16 * c + o < nb; o += 2) {
                const __m256i idx = _mm256_add_epi8(_mm256_set1_epi8((char)o), next);
                __m256i s = _mm256_setzero_si256();
                for (unsigned k = 0; k < 4; k++)
                    s = _mm256_xor_si256(s, _mm256_and_si256(sel[k], _mm256_shuffle_epi8(r[k], idx)));
                const unsigned k = (16 * c + o) / 2; /* byte pair k: word k / 4 */
                _mm256_storeu_si256((__m256i *)(t + (size_t)(k / 4) * nb * 256 + (k % 4) * 32), s);
            }
        }
    }
}

/* 8x8 byte transpose: row r of the input is qword r of (lo, hi) = rows
 * 0-1 and 2-3 of lo, 4-5 and 6-7 of hi; likewise the output. */
static inline void transpose8x8(__m128i q[4]) {
    __m128i a0 = _mm_unpacklo_epi8(q[0], _mm_srli_si128(q[0], 8)), a1 = _mm_unpacklo_epi8(q[1], _mm_srli_si128(q[1], 8));
    __m128i a2 = _mm_unpacklo_epi8(q[2], _mm_srli_si128(q[2], 8)), a3 = _mm_unpacklo_epi8(q[3], _mm_srli_si128(q[3], 8));
    __m128i b0 = _mm_unpacklo_epi16(a0, a1), b1 = _mm_unpackhi_epi16(a0, a1);
    __m128i b2 = _mm_unpacklo_epi16(a2, a3), b3 = _mm_unpackhi_epi16(a2, a3);
    q[0] = _mm_unpacklo_epi32(b0, b2);
    q[1] = _mm_unpackhi_epi32(b0, b2);
    q[2] = _mm_unpacklo_epi32(b1, b3);
    q[3] = _mm_unpackhi_epi32(b1, b3);
}

/* The sixteen vectors' bytes j of word wi, vector p in byte p: bytes 0-7
 * of lo and of hi (vectors 0-7 and 8-15) for j = 2i, 8-15 for j = 2i + 1. */
static inline void bytes_of_word(__m128i lo[4], __m128i hi[4], const uint64_t (*v)[4], unsigned wi) {
    for (unsigned r = 0; r < 4; r++) {
        lo[r] = _mm_set_epi64x((long long)v[2 * r + 1][wi], (long long)v[2 * r][wi]);
        hi[r] = _mm_set_epi64x((long long)v[8 + 2 * r + 1][wi], (long long)v[8 + 2 * r][wi]);
    }
    transpose8x8(lo);
    transpose8x8(hi);
}

/* 16 sets vectors: each table read serves all of them (two sets halve
 * the reads per vector again, aimer256s). */
static inline __attribute__((always_inline)) void mat_vec_tab_w(uint64_t (*c)[4], const uint8_t *tab,
                                                                const uint64_t (*v)[4], const unsigned nw,
                                                                const unsigned sets) {
    const unsigned nb = 8 * nw;
    const __m256i low = _mm256_set1_epi8(0x0f);
    /* each set's sixteen vectors' nibbles of every group, as vpshufb indices */
    __m256i idx[2][64];
    for (unsigned h = 0; h < sets; h++)
        for (unsigned wi = 0; wi < nw; wi++) {
            __m128i lo[4], hi[4];
            bytes_of_word(lo, hi, v + 16 * h, wi);
            for (unsigned j = 0; j < 8; j++) {
                __m128i b = j % 2 ? _mm_unpackhi_epi64(lo[j / 2], hi[j / 2]) : _mm_unpacklo_epi64(lo[j / 2], hi[j / 2]);
                __m256i x = _mm256_broadcastsi128_si256(b);
                idx[h][16 * wi + 2 * j] = _mm256_and_si256(x, low);
                idx[h][16 * wi + 2 * j + 1] = _mm256_and_si256(_mm256_srli_epi16(x, 4), low);
            }
        }
    /* One output word at a time (four registers a set: bytes 2k and 2k+1
     * of its sixteen results in lanes 0 and 1), then transposed back. */
    for (unsigned w = 0; w < nw; w++) {
        __m256i acc[2][4];
        for (unsigned h = 0; h < sets; h++)
            for (unsigned r = 0; r < 4; r++) acc[h][r] = _mm256_setzero_si256();
        for (unsigned g = 0; g < 2 * nb; g++) {
            const uint8_t *t = tab + (size_t)w * nb * 256 + (size_t)g * 128;
            for (unsigned r = 0; r < 4; r++) {
                const __m256i e = _mm256_loadu_si256((const __m256i *)(t + 32 * r));
                for (unsigned h = 0; h < sets; h++)
                    acc[h][r] = _mm256_xor_si256(acc[h][r], _mm256_shuffle_epi8(e, idx[h][g]));
            }
        }
        for (unsigned h = 0; h < sets; h++) {
            __m128i lo[4], hi[4];
            for (unsigned r = 0; r < 4; r++) {
                __m128i l0 = _mm256_castsi256_si128(acc[h][r]), l1 = _mm256_extracti128_si256(acc[h][r], 1);
                lo[r] = _mm_unpacklo_epi64(l0, l1);
                hi[r] = _mm_unpackhi_epi64(l0, l1);
            }
            transpose8x8(lo);
            transpose8x8(hi);
            uint64_t out[16];
            for (unsigned r = 0; r < 4; r++) {
                _mm_storeu_si128((__m128i *)(out + 2 * r), lo[r]);
                _mm_storeu_si128((__m128i *)(out + 8 + 2 * r), hi[r]);
            }
            for (unsigned p = 0; p < 16; p++) c[16 * h + p][w] = out[p];
        }
    }
    for (unsigned p = 0; p < 16 * sets; p++)
        for (unsigned w = nw; w < 4; w++) c[p][w] = 0;
}

void kpqc_aimer_mat_vec_tab_avx2(uint64_t (*c)[4], const uint8_t *tab, const uint64_t (*v)[4], unsigned nw,
                                 unsigned nv) {
    const unsigned sets = nv / 16;
    if (nw == 2) sets == 2 ? mat_vec_tab_w(c, tab, v, 2, 2) : mat_vec_tab_w(c, tab, v, 2, 1);
    else if (nw == 3) sets == 2 ? mat_vec_tab_w(c, tab, v, 3, 2) : mat_vec_tab_w(c, tab, v, 3, 1);
    else sets == 2 ? mat_vec_tab_w(c, tab, v, 4, 2) : mat_vec_tab_w(c, tab, v, 4, 1);
}
