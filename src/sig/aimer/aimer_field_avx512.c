/*
 * AIMer field kernels of the AVX-512 path.
 *
 * Single products and squarings are the PCLMULQDQ kernels
 * (aimer_field_pclmul.c); here the eight-party ones on VPCLMULQDQ, and the
 * matrix-vector products.  The matrix-vector product selects
 * rows with opmask registers set by vptestmq from the bits of v and adds
 * them with masked XORs: two 4-word rows per zmm register, no branches and
 * no memory access that depends on v.
 */
#include "common/x86_intrin.h"

#include "aimer_field.h"

void kpqc_aimer_mat_vec_avx512(uint64_t c[4], const uint64_t (*M)[4], const uint64_t *v, unsigned nw) {
    /* Lanes 0-3 hold row j, lanes 4-7 row j+1; only the field's words count. */
    const __mmask8 words = nw == 2 ? 0x33 : nw == 3 ? 0x77 : 0xff;
    const __m512i sel0 = _mm512_set_epi64(2, 2, 2, 2, 1, 1, 1, 1);
    const __m512i sel1 = _mm512_slli_epi64(sel0, 2);
    __m512i acc0 = _mm512_setzero_si512(), acc1 = _mm512_setzero_si512();
    for (unsigned w = 0; w < nw; w++) {
        __m512i vb = _mm512_set1_epi64((long long)v[w]);
        const uint64_t (*row)[4] = M + 64 * w;
        for (unsigned j = 0; j < 64; j += 4) {
            __mmask8 k0 = _mm512_mask_test_epi64_mask(words, vb, sel0);
            __mmask8 k1 = _mm512_mask_test_epi64_mask(words, vb, sel1);
            acc0 = _mm512_mask_xor_epi64(acc0, k0, acc0, _mm512_loadu_si512((const void *)row[j]));
            acc1 = _mm512_mask_xor_epi64(acc1, k1, acc1, _mm512_loadu_si512((const void *)row[j + 2]));
            vb = _mm512_srli_epi64(vb, 4);
        }
    }
    __m512i acc = _mm512_xor_si512(acc0, acc1);
    __m256i r = _mm256_xor_si256(_mm512_castsi512_si256(acc), _mm512_extracti64x4_epi64(acc, 1));
    _mm256_storeu_si256((__m256i *)c, r);
}

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

/* GF(2^128) squarings of four elements, one per 128-bit lane. */
static inline __m512i sqr128x4(__m512i x) {
    const __m512i k = _mm512_set1_epi64(0x87);
    __m512i lo = _mm512_clmulepi64_epi128(x, x, 0x00), hi = _mm512_clmulepi64_epi128(x, x, 0x11);
    __m512i p = _mm512_clmulepi64_epi128(hi, k, 0x01);
    lo = _mm512_xor_si512(lo, _mm512_bslli_epi128(p, 8));
    hi = _mm512_xor_si512(hi, _mm512_bsrli_epi128(p, 8));
    return _mm512_xor_si512(lo, _mm512_clmulepi64_epi128(hi, k, 0x00));
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

static inline __attribute__((always_inline)) void sqr_n8_sliced(uint64_t (*x)[4], const unsigned nw, unsigned e,
                                                                const unsigned k1, const unsigned k2,
                                                                const unsigned k3) {
    __m512i w[4], t[8];
    load_sliced(w, (const uint64_t(*)[4])x, nw);
    for (unsigned r = 0; r < e; r++) { /* e is public */
        for (unsigned i = 0; i < 2 * nw; i++) t[i] = _mm512_setzero_si512();
        for (unsigned i = 0; i < nw; i++) mul_words_acc(t, 2 * i, w[i], w[i]);
        reduce_sliced(w, t, nw, k1, k2, k3);
    }
    store_sliced(x, w, nw);
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

/* c_p = a_p * b_p for eight pairs (4-word slots), word-sliced. */
void kpqc_aimer_gf_mul8_avx512(uint64_t (*c)[4], const uint64_t (*a)[4], const uint64_t (*b)[4], unsigned nw) {
    if (nw == 2) mul8_sliced(c, a, b, 2, 7, 2, 1);
    else if (nw == 3) mul8_sliced(c, a, b, 3, 7, 2, 1);
    else mul8_sliced(c, a, b, 4, 10, 5, 2);
}

/* x_p = x_p^(2^e) for eight elements (4-word slots): GF(2^128) four per
 * VPCLMULQDQ on zmm, one per 128-bit lane; the wider fields word-sliced. */
void kpqc_aimer_gf_sqr_n8_avx512(uint64_t (*x)[4], unsigned nw, unsigned e) {
    if (nw == 3) {
        sqr_n8_sliced(x, 3, e, 7, 2, 1);
        return;
    }
    if (nw == 4) {
        sqr_n8_sliced(x, 4, e, 10, 5, 2);
        return;
    }
    /* words 0-1 of elements 0-3 and of 4-7, one element per 128-bit lane */
    const __m512i pick = _mm512_set_epi64(13, 12, 9, 8, 5, 4, 1, 0);
    __m512i a = _mm512_permutex2var_epi64(_mm512_loadu_si512((const void *)x[0]), pick,
                                          _mm512_loadu_si512((const void *)x[2]));
    __m512i b = _mm512_permutex2var_epi64(_mm512_loadu_si512((const void *)x[4]), pick,
                                          _mm512_loadu_si512((const void *)x[6]));
    for (unsigned r = 0; r < e; r++) { /* e is public */
        a = sqr128x4(a);
        b = sqr128x4(b);
    }
    uint64_t out[16];
    _mm512_storeu_si512((void *)out, a);
    _mm512_storeu_si512((void *)(out + 8), b);
    for (unsigned p = 0; p < 8; p++) {
        x[p][0] = out[2 * p];
        x[p][1] = out[2 * p + 1];
    }
}

const struct kpqc_aimer_backend kpqc_aimer_backend_avx512 = {
    {"avx512", KPQC_LEVEL_AVX512}, kpqc_aimer_gf_mul_pclmul,    kpqc_aimer_gf_sqr_n_pclmul,
    kpqc_aimer_mat_vec_avx512,     kpqc_aimer_mat_vec8_avx512,  kpqc_aimer_gf_sqr_n8_avx512,
    kpqc_aimer_gf_mul8_avx512};
