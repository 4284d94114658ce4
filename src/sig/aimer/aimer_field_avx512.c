/*
 * AIMer field kernels of the AVX-512 path.
 *
 * Single products and squarings are the PCLMULQDQ kernels
 * (aimer_field_pclmul.c); here the eight-party ones on VPCLMULQDQ, and the
 * matrix-vector products for eight vectors, which select rows with opmask
 * registers set by vptestmq from the bits of the vectors and add them with
 * masked XORs: no branches and no memory access that depends on them.
 */
#include "common/x86_intrin.h"

#include "aimer_field.h"

/*
 * Eight vectors at once (the eight parties of a batch): c_p = M v_p.  The
 * accumulators are word-sliced, register w holding word w of all eight
 * results, so that each row is added to the results of the parties whose
 * bit is set with one masked XOR of the broadcast row word: the mask is
 * vptestmq of the eight inputs' words against the row's bit.
 */
void kpqc_aimer_mat_vec8_avx512(uint64_t (*c)[4], const uint64_t (*M)[4], const uint64_t (*v)[4], unsigned nw) {
    __m512i acc[4], in[4];
    for (unsigned w = 0; w < 4; w++) {
        acc[w] = _mm512_setzero_si512();
        in[w] = _mm512_set_epi64((long long)v[7][w], (long long)v[6][w], (long long)v[5][w], (long long)v[4][w],
                                 (long long)v[3][w], (long long)v[2][w], (long long)v[1][w], (long long)v[0][w]);
    }
    for (unsigned wi = 0; wi < nw; wi++) {
        __m512i bit = _mm512_set1_epi64(1);
        const uint64_t (*row)[4] = M + 64 * wi;
        for (unsigned j = 0; j < 64; j++) {
            __mmask8 k = _mm512_test_epi64_mask(in[wi], bit);
            for (unsigned w = 0; w < nw; w++)
                acc[w] = _mm512_mask_xor_epi64(acc[w], k, acc[w], _mm512_set1_epi64((long long)row[j][w]));
            bit = _mm512_slli_epi64(bit, 1);
        }
    }
    uint64_t out[4][8];
    for (unsigned w = 0; w < 4; w++) _mm512_storeu_si512((void *)out[w], acc[w]);
    for (unsigned p = 0; p < 8; p++)
        for (unsigned w = 0; w < 4; w++) c[p][w] = w < nw ? out[w][p] : 0;
}

/* GF(2^128), four elements a register, one per 128-bit lane: the 256-bit
 * products [lo, hi] folded by two carry-less products by the tail 0x87. */
static inline __m512i fold128x4(__m512i lo, __m512i hi) {
    const __m512i k = _mm512_set1_epi64(0x87);
    __m512i p = _mm512_clmulepi64_epi128(hi, k, 0x01);
    lo = _mm512_xor_si512(lo, _mm512_bslli_epi128(p, 8));
    hi = _mm512_xor_si512(hi, _mm512_bsrli_epi128(p, 8));
    return _mm512_xor_si512(lo, _mm512_clmulepi64_epi128(hi, k, 0x00));
}

static inline __m512i sqr128x4(__m512i x) {
    return fold128x4(_mm512_clmulepi64_epi128(x, x, 0x00), _mm512_clmulepi64_epi128(x, x, 0x11));
}

/* [lo, hi] ^= the unreduced products x y */
static inline void mul128x4_acc(__m512i *lo, __m512i *hi, __m512i x, __m512i y) {
    __m512i l = _mm512_clmulepi64_epi128(x, y, 0x00), h = _mm512_clmulepi64_epi128(x, y, 0x11);
    __m512i mid = _mm512_xor_si512(_mm512_clmulepi64_epi128(x, y, 0x01), _mm512_clmulepi64_epi128(x, y, 0x10));
    *lo = KPQC_XOR3(_mm512, *lo, l, _mm512_bslli_epi128(mid, 8));
    *hi = KPQC_XOR3(_mm512, *hi, h, _mm512_bsrli_epi128(mid, 8));
}

static inline __m512i mul128x4(__m512i x, __m512i y) {
    __m512i lo = _mm512_setzero_si512(), hi = _mm512_setzero_si512();
    mul128x4_acc(&lo, &hi, x, y);
    return fold128x4(lo, hi);
}

/* Words 0-1 of elements 4h..4h+3 (4-word slots), one element per lane. */
static inline __m512i load_lanes128(const uint64_t (*x)[4], unsigned h) {
    const __m512i pick = _mm512_set_epi64(13, 12, 9, 8, 5, 4, 1, 0);
    return _mm512_permutex2var_epi64(_mm512_loadu_si512((const void *)x[4 * h]), pick,
                                     _mm512_loadu_si512((const void *)x[4 * h + 2]));
}

/* Back to the slots of elements 4h..4h+3, their upper words zero. */
static inline void store_lanes128(uint64_t (*x)[4], unsigned h, __m512i v) {
    const __m512i zero = _mm512_setzero_si512();
    const __m512i first = _mm512_set_epi64(8, 8, 3, 2, 8, 8, 1, 0), second = _mm512_set_epi64(8, 8, 7, 6, 8, 8, 5, 4);
    _mm512_storeu_si512((void *)x[4 * h], _mm512_permutex2var_epi64(v, first, zero));
    _mm512_storeu_si512((void *)x[4 * h + 2], _mm512_permutex2var_epi64(v, second, zero));
}

/*
 * Eight elements word-sliced: register i holds word i of the eight.
 * VPCLMULQDQ multiplies the words of the even elements (selector 0x00)
 * and of the odd ones (0x11); unpacking the two gives the low and high
 * words of the eight products, and the fold of kpqc_aimer_reduce_w runs on
 * whole registers.
 */
static inline void load_sliced(__m512i *w, const uint64_t (*x)[4], unsigned nw) {
    const __m512i idx = _mm512_set_epi64(28, 24, 20, 16, 12, 8, 4, 0); /* word 0 of x[0..7] */
    for (unsigned i = 0; i < nw; i++)
        w[i] = _mm512_i64gather_epi64(_mm512_add_epi64(idx, _mm512_set1_epi64(i)), (const void *)x, 8);
}

static inline void store_sliced(uint64_t (*x)[4], const __m512i *w, unsigned nw) {
    uint64_t out[4][8];
    for (unsigned i = 0; i < nw; i++) _mm512_storeu_si512((void *)out[i], w[i]);
    for (unsigned p = 0; p < 8; p++)
        for (unsigned i = 0; i < 4; i++) x[p][i] = i < nw ? out[i][p] : 0;
}

/* t[k], t[k+1] ^= the eight products a * b of single words. */
static inline void mul_words_acc(__m512i *t, unsigned k, __m512i a, __m512i b) {
    __m512i even = _mm512_clmulepi64_epi128(a, b, 0x00), odd = _mm512_clmulepi64_epi128(a, b, 0x11);
    t[k] = _mm512_xor_si512(t[k], _mm512_unpacklo_epi64(even, odd));
    t[k + 1] = _mm512_xor_si512(t[k + 1], _mm512_unpackhi_epi64(even, odd));
}

static inline __attribute__((always_inline)) void reduce_sliced(__m512i *w, __m512i *t, const unsigned nw,
                                                                const unsigned k1, const unsigned k2,
                                                                const unsigned k3) {
    for (unsigned i = 2 * nw - 1; i >= nw; i--) {
        __m512i v = t[i];
        __m512i lo = KPQC_XOR3(_mm512, v, _mm512_slli_epi64(v, k1), _mm512_slli_epi64(v, k2));
        t[i - nw] = KPQC_XOR3(_mm512, t[i - nw], lo, _mm512_slli_epi64(v, k3));
        __m512i hi = KPQC_XOR3(_mm512, _mm512_srli_epi64(v, 64 - k1), _mm512_srli_epi64(v, 64 - k2),
                               _mm512_srli_epi64(v, 64 - k3));
        t[i - nw + 1] = _mm512_xor_si512(t[i - nw + 1], hi);
    }
    for (unsigned i = 0; i < nw; i++) w[i] = t[i];
}

static inline __attribute__((always_inline)) void mul8_sliced(uint64_t (*c)[4], const uint64_t (*a)[4],
                                                              const uint64_t (*b)[4], const unsigned nw,
                                                              const unsigned k1, const unsigned k2,
                                                              const unsigned k3) {
    __m512i wa[4], wb[4], t[8], w[4];
    load_sliced(wa, a, nw);
    load_sliced(wb, b, nw);
    for (unsigned i = 0; i < 2 * nw; i++) t[i] = _mm512_setzero_si512();
    for (unsigned i = 0; i < nw; i++)
        for (unsigned j = 0; j < nw; j++) mul_words_acc(t, i + j, wa[i], wb[j]);
    reduce_sliced(w, t, nw, k1, k2, k3);
    store_sliced(c, w, nw);
}

/* c_j += sum_{i<m} a[8i+j] b[8i+j]: the products summed unreduced, one
 * fold per sum (GF(2^128) in lanes, the wider fields word-sliced). */
static inline __attribute__((always_inline)) void mul8_sum_w(uint64_t (*c)[4], const uint64_t (*a)[4],
                                                             const uint64_t (*b)[4], unsigned m, const unsigned nw,
                                                             const unsigned k1, const unsigned k2, const unsigned k3) {
    if (nw == 2) {
        for (unsigned h = 0; h < 2; h++) {
            __m512i lo = _mm512_setzero_si512(), hi = _mm512_setzero_si512();
            for (unsigned i = 0; i < m; i++) mul128x4_acc(&lo, &hi, load_lanes128(a + 8 * i, h), load_lanes128(b + 8 * i, h));
            store_lanes128(c, h, _mm512_xor_si512(load_lanes128((const uint64_t(*)[4])c, h), fold128x4(lo, hi)));
        }
        return;
    }
    __m512i wa[4], wb[4], t[8], w[4], wc[4];
    for (unsigned i = 0; i < 2 * nw; i++) t[i] = _mm512_setzero_si512();
    for (unsigned s = 0; s < m; s++) {
        load_sliced(wa, a + 8 * s, nw);
        load_sliced(wb, b + 8 * s, nw);
        for (unsigned i = 0; i < nw; i++)
            for (unsigned j = 0; j < nw; j++) mul_words_acc(t, i + j, wa[i], wb[j]);
    }
    reduce_sliced(w, t, nw, k1, k2, k3);
    load_sliced(wc, (const uint64_t(*)[4])c, nw);
    for (unsigned i = 0; i < nw; i++) wc[i] = _mm512_xor_si512(wc[i], w[i]);
    store_sliced(c, wc, nw);
}

void kpqc_aimer_gf_mul8_sum_avx512(uint64_t (*c)[4], const uint64_t (*a)[4], const uint64_t (*b)[4], unsigned nw,
                                   unsigned m) {
    KPQC_AIMER_BY_WIDTH(mul8_sum_w, nw, c, a, b, m);
}

/* c_p = a_p * b_p for eight pairs (4-word slots): GF(2^128) four per
 * VPCLMULQDQ on zmm, the wider fields word-sliced. */
void kpqc_aimer_gf_mul8_avx512(uint64_t (*c)[4], const uint64_t (*a)[4], const uint64_t (*b)[4], unsigned nw) {
    if (nw == 2) {
        /* four products per register, one per 128-bit lane */
        __m512i p0 = mul128x4(load_lanes128(a, 0), load_lanes128(b, 0));
        __m512i p1 = mul128x4(load_lanes128(a, 1), load_lanes128(b, 1));
        store_lanes128(c, 0, p0);
        store_lanes128(c, 1, p1);
    } else if (nw == 3) mul8_sliced(c, a, b, 3, 7, 2, 1);
    else mul8_sliced(c, a, b, 4, 10, 5, 2);
}

#define AIMER_FOLD_LANES fold_lanes4
#define AIMER_SQR_LANES sqr_lanes4
#define AIMER_MUL_LANES mul_lanes4
#define AIMER_MUL_WIDE mul_wide4
#define V __m512i
#define CLMUL(a, b, i) _mm512_clmulepi64_epi128((a), (b), (i))
#define XOR(a, b) _mm512_xor_si512((a), (b))
#define BSLL8(a) _mm512_bslli_epi128((a), 8)
#define BSRL8(a) _mm512_bsrli_epi128((a), 8)
#include "aimer_sqr_lanes.h"

/* Words 2-3 of elements 4h..4h+3, one element per lane. */
static inline __m512i load_lanes_high(const uint64_t (*x)[4], unsigned h) {
    const __m512i pick = _mm512_set_epi64(15, 14, 11, 10, 7, 6, 3, 2);
    return _mm512_permutex2var_epi64(_mm512_loadu_si512((const void *)x[4 * h]), pick,
                                     _mm512_loadu_si512((const void *)x[4 * h + 2]));
}

/* Elements 4h..4h+3 back to their slots from words 0-1 (lo) and 2-3 (hi);
 * for n = 192 word 3 is cleared. */
static inline void store_lanes256(uint64_t (*x)[4], unsigned h, __m512i lo, __m512i hi, unsigned nw) {
    const __mmask8 words = nw == 4 ? 0xff : 0x77;
    const __m512i first = _mm512_set_epi64(11, 10, 3, 2, 9, 8, 1, 0), second = _mm512_set_epi64(15, 14, 7, 6, 13, 12, 5, 4);
    _mm512_storeu_si512((void *)x[4 * h], _mm512_maskz_permutex2var_epi64(words, lo, first, hi));
    _mm512_storeu_si512((void *)x[4 * h + 2], _mm512_maskz_permutex2var_epi64(words, lo, second, hi));
}

/* x_p = x_p^(2^e) for eight elements (4-word slots), four per VPCLMULQDQ
 * on zmm, one per 128-bit lane (GF(2^128)) or lane pair (the wider
 * fields, sqr_lanes4). */
void kpqc_aimer_gf_sqr_n8_avx512(uint64_t (*x)[4], unsigned nw, unsigned e) {
    if (nw == 2) {
        __m512i x0 = load_lanes128((const uint64_t(*)[4])x, 0), x1 = load_lanes128((const uint64_t(*)[4])x, 1);
        for (unsigned r = 0; r < e; r++) { /* e is public */
            x0 = sqr128x4(x0);
            x1 = sqr128x4(x1);
        }
        store_lanes128(x, 0, x0);
        store_lanes128(x, 1, x1);
        return;
    }
    const __m512i k = _mm512_set1_epi64(nw == 4 ? 0x425 : 0x87);
    __m512i v[2][2];
    for (unsigned h = 0; h < 2; h++) {
        v[h][0] = load_lanes128((const uint64_t(*)[4])x, h);
        v[h][1] = load_lanes_high((const uint64_t(*)[4])x, h);
    }
    for (unsigned r = 0; r < e; r++) { /* e is public */
        sqr_lanes4(v[0], nw, k);
        sqr_lanes4(v[1], nw, k);
    }
    for (unsigned h = 0; h < 2; h++) store_lanes256(x, h, v[h][0], v[h][1], nw);
}

/*
 * The same product through tables of the matrix (built once per matrix,
 * applied to every batch of parties): four rows make a group, and the
 * sixteen XOR combinations of a group's rows are its table.  A vector's
 * nibble of those four bits picks the combination to add, by VPERMI2B,
 * a byte permutation of two registers: nothing depends on the vector but
 * which byte of the registers is moved, never an address or a branch.
 * Per group and output word the table is 128 bytes, byte 16t + i holding
 * byte t of combination i's word; the index of party p's byte t is
 * 16t + nibble_p, so one VPERMI2B yields that word of all eight parties'
 * contributions (party p in qword p).  A group costs nw permutations and
 * nw XORs, against four rows' test and nw masked XORs each above.
 */
void kpqc_aimer_mat_tab_avx512(uint8_t *tab, const uint64_t (*M)[4], unsigned nw) {
    /* combination i of E0 (i < 8) takes row k when bit k of i is set */
    const __m512i m0 = _mm512_set_epi64(-1, 0, -1, 0, -1, 0, -1, 0);
    const __m512i m1 = _mm512_set_epi64(-1, -1, 0, 0, -1, -1, 0, 0);
    const __m512i m2 = _mm512_set_epi64(-1, -1, -1, -1, 0, 0, 0, 0);
    uint8_t idx[128];
    for (unsigned o = 0; o < 128; o++) idx[o] = (uint8_t)(8 * (o % 16) + o / 16); /* byte t of combination i */
    const __m512i idx0 = _mm512_loadu_si512((const void *)idx), idx1 = _mm512_loadu_si512((const void *)(idx + 64));
    for (unsigned g = 0; g < 16 * nw; g++)
        for (unsigned w = 0; w < nw; w++) {
            const uint64_t (*r)[4] = M + 4 * g;
            __m512i e0 = KPQC_XOR3(_mm512, _mm512_and_si512(_mm512_set1_epi64((long long)r[0][w]), m0),
                                   _mm512_and_si512(_mm512_set1_epi64((long long)r[1][w]), m1),
                                   _mm512_and_si512(_mm512_set1_epi64((long long)r[2][w]), m2));
            __m512i e1 = _mm512_xor_si512(e0, _mm512_set1_epi64((long long)r[3][w]));
            uint8_t *t = tab + (size_t)(g * nw + w) * 128;
            _mm512_storeu_si512((void *)t, _mm512_permutex2var_epi8(e0, idx0, e1));
            _mm512_storeu_si512((void *)(t + 64), _mm512_permutex2var_epi8(e0, idx1, e1));
        }
}

/* 8 * batches vectors (two or four batches of eight): each table entry
 * is loaded once and serves every batch, so the tables are read once per
 * 16 or 32 vectors instead of once per eight. */
static inline __attribute__((always_inline)) void mat_vec_tab_w(uint64_t (*c)[4], const uint8_t *tab,
                                                                const uint64_t (*v)[4], const unsigned nw,
                                                                const unsigned batches) {
    __m512i in[4][4], acc[4][4];
    for (unsigned h = 0; h < batches; h++) {
        load_sliced(in[h], v + 8 * h, nw);
        for (unsigned w = 0; w < nw; w++) acc[h][w] = _mm512_setzero_si512();
    }
    const __m512i row_of_byte = _mm512_set1_epi64(0x7060504030201000LL); /* 16t at byte t of each qword */
    const __m512i low = _mm512_set1_epi8(0x0f);
    const __m512i odd_qword = _mm512_set_epi64(0x0808080808080808LL, 0, 0x0808080808080808LL, 0, 0x0808080808080808LL,
                                               0, 0x0808080808080808LL, 0);
    for (unsigned wi = 0; wi < nw; wi++)
        for (unsigned j = 0; j < 8; j++) {
            /* byte j of each party's input word, in every byte of its qword
             * (vpshufb indexes within 128-bit lanes: the odd qwords' bytes
             * are 8 further), its nibbles as VPERMI2B indices */
            const __m512i pick = _mm512_add_epi8(odd_qword, _mm512_set1_epi8((char)j));
            __m512i lo[4], hi[4];
            for (unsigned h = 0; h < batches; h++) {
                __m512i b = _mm512_shuffle_epi8(in[h][wi], pick);
                lo[h] = _mm512_or_si512(_mm512_and_si512(b, low), row_of_byte);
                hi[h] = _mm512_or_si512(_mm512_and_si512(_mm512_srli_epi16(b, 4), low), row_of_byte);
            }
            const uint8_t *t = tab + (size_t)((16 * wi + 2 * j) * nw) * 128;
            for (unsigned w = 0; w < nw; w++) {
                const uint8_t *tl = t + w * 128, *th = t + (nw + w) * 128;
                const __m512i l0 = _mm512_loadu_si512((const void *)tl), l1 = _mm512_loadu_si512((const void *)(tl + 64));
                const __m512i h0 = _mm512_loadu_si512((const void *)th), h1 = _mm512_loadu_si512((const void *)(th + 64));
                for (unsigned h = 0; h < batches; h++)
                    acc[h][w] = KPQC_XOR3(_mm512, acc[h][w], _mm512_permutex2var_epi8(l0, lo[h], l1),
                                          _mm512_permutex2var_epi8(h0, hi[h], h1));
            }
        }
    for (unsigned h = 0; h < batches; h++) store_sliced(c + 8 * h, acc[h], nw);
}

void kpqc_aimer_mat_vec_tab_avx512(uint64_t (*c)[4], const uint8_t *tab, const uint64_t (*v)[4], unsigned nw,
                                   unsigned nv) {
    const unsigned batches = nv / 8;
    if (nw == 2) batches == 4 ? mat_vec_tab_w(c, tab, v, 2, 4) : mat_vec_tab_w(c, tab, v, 2, 2);
    else if (nw == 3) batches == 4 ? mat_vec_tab_w(c, tab, v, 3, 4) : mat_vec_tab_w(c, tab, v, 3, 2);
    else batches == 4 ? mat_vec_tab_w(c, tab, v, 4, 4) : mat_vec_tab_w(c, tab, v, 4, 2);
}

const struct kpqc_aimer_backend kpqc_aimer_backend_avx512 = {
    {"avx512", KPQC_LEVEL_AVX512}, kpqc_aimer_gf_mul_pclmul,    kpqc_aimer_gf_sqr_n_pclmul,
    kpqc_aimer_mat_vec8_avx512,  kpqc_aimer_gf_sqr_n8_avx512,
    kpqc_aimer_gf_mul8_avx512,     kpqc_aimer_mat_tab_avx512,   kpqc_aimer_mat_vec_tab_avx512,
    /* every width: with each table entry serving 16 or 32 vectors the
     * tables beat mat_vec8's masked XORs for GF(2^192) and GF(2^256) too
     * (aimer192s signing 17 % faster, aimer256f 12 %); read once per eight
     * vectors they had signed aimer256f 2-3 % slower */
    4,
    /* a table costs 7 squarings of eight GF(2^128) elements; e = 11 as a
     * table did not sign aimer128f faster */
    20, kpqc_aimer_gf_mul8_sum_avx512};
