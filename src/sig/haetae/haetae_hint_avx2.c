/*
 * AVX2 build of signing's and verification's per-coefficient arithmetic
 * (see haetae_hint.c), eight coefficients a register.  The reductions mod
 * 2q are masked corrections instead of Barrett steps, exact for the ranges
 * they see: wq is an inverse NTT's output, |wq| < q, so the value before
 * the first lies in (-q, 2q) (in signing, with twice |y2| < q / 2 added,
 * in (-2q, 3q)); a hint is below top (the rANS alphabets end
 * there), so w1 < top and w1 alpha - v + parity lies in (-2q, 2q].
 */
#include "common/x86_intrin.h"
#include "haetae.h"

/* a mod 2q for -2q < a < 4q */
static inline __m256i mod2q(__m256i a) {
    const __m256i dq = _mm256_set1_epi32(HAETAE_DQ);
    a = _mm256_add_epi32(a, _mm256_and_si256(_mm256_srai_epi32(a, 31), dq));
    return _mm256_sub_epi32(a, _mm256_andnot_si256(_mm256_cmpgt_epi32(dq, a), dq));
}

/* the squares of the eight int32 lanes summed into four 64-bit lanes */
static inline __m256i square_acc(__m256i acc, __m256i x) {
    acc = _mm256_add_epi64(acc, _mm256_mul_epi32(x, x));
    const __m256i odd = _mm256_srli_epi64(x, 32);
    return _mm256_add_epi64(acc, _mm256_mul_epi32(odd, odd));
}

static inline uint64_t sum4(__m256i acc) {
    uint64_t s[4];
    _mm256_storeu_si256((__m256i *)s, acc);
    return s[0] + s[1] + s[2] + s[3];
}

uint64_t kpqc_haetae_sqnorm_avx2(const hpoly *a) {
    __m256i acc = _mm256_setzero_si256();
    for (unsigned t = 0; t < HAETAE_N; t += 8) acc = square_acc(acc, _mm256_loadu_si256((const __m256i *)&a->c[t]));
    return sum4(acc);
}

/* The high bits of v in [0, 2q), the top value wrapped to 0. */
static inline __m256i highbits(__m256i v, __m256i half, __m128i shift, __m256i top) {
    const __m256i hb = _mm256_sra_epi32(_mm256_add_epi32(v, half), shift);
    return _mm256_and_si256(_mm256_cmpgt_epi32(top, hb), hb);
}

/* The value mod 2q with x's residue mod q and parity's parity, for x in
 * (-2q, 2q): adding q where the parities differ keeps it in (-2q, 3q). */
static inline __m256i from_parity(__m256i x, __m256i parity) {
    const __m256i one = _mm256_set1_epi32(1);
    const __m256i odd = _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_xor_si256(x, parity), one), one);
    return mod2q(_mm256_add_epi32(x, _mm256_and_si256(odd, _mm256_set1_epi32(HAETAE_Q))));
}

uint64_t kpqc_haetae_hint_row_avx2(hpoly *w1, const hpoly *wq, const hpoly *h, const hpoly *lsb, unsigned alpha_bits) {
    const __m256i q = _mm256_set1_epi32(HAETAE_Q);
    const __m256i top = _mm256_set1_epi32((HAETAE_DQ - 2) >> alpha_bits);
    const __m256i half = _mm256_set1_epi32(1 << (alpha_bits - 1));
    const __m128i shift = _mm_cvtsi32_si128((int)alpha_bits);
    __m256i acc = _mm256_setzero_si256();
    for (unsigned t = 0; t < HAETAE_N; t += 8) {
        const __m256i x = _mm256_loadu_si256((const __m256i *)&wq->c[t]);
        const __m256i parity = lsb != NULL ? _mm256_loadu_si256((const __m256i *)&lsb->c[t]) : _mm256_setzero_si256();
        const __m256i v = from_parity(x, parity);
        __m256i w = _mm256_add_epi32(highbits(v, half, shift, top), _mm256_loadu_si256((const __m256i *)&h->c[t]));
        w = _mm256_sub_epi32(w, _mm256_andnot_si256(_mm256_cmpgt_epi32(top, w), top));
        _mm256_storeu_si256((__m256i *)&w1->c[t], w);
        __m256i z2 = mod2q(_mm256_add_epi32(_mm256_sub_epi32(_mm256_sll_epi32(w, shift), v), parity));
        z2 = _mm256_sub_epi32(z2, _mm256_andnot_si256(_mm256_cmpgt_epi32(q, z2), _mm256_set1_epi32(HAETAE_DQ)));
        acc = square_acc(acc, _mm256_srai_epi32(z2, 1));
    }
    return sum4(acc);
}

void kpqc_haetae_response_avx2(int32_t z[HAETAE_N], const int32_t y[HAETAE_N], const hpoly *cs, uint32_t sign,
                               uint64_t norms[2]) {
    const __m256i q = _mm256_set1_epi32(HAETAE_Q), half_q = _mm256_set1_epi32((HAETAE_Q - 1) / 2);
    const __m256i neg = _mm256_set1_epi32(-(int32_t)sign);
    __m256i acc_z = _mm256_setzero_si256(), acc_d = _mm256_setzero_si256();
    for (unsigned t = 0; t < HAETAE_N; t += 8) {
        __m256i c = _mm256_loadu_si256((const __m256i *)&cs->c[t]);
        c = _mm256_add_epi32(c, _mm256_and_si256(_mm256_srai_epi32(c, 31), q));          /* [0, q) */
        c = _mm256_sub_epi32(c, _mm256_and_si256(_mm256_cmpgt_epi32(c, half_q), q));       /* (-q/2, q/2] */
        c = _mm256_sub_epi32(_mm256_xor_si256(c, neg), neg);
        const __m256i yv = _mm256_loadu_si256((const __m256i *)&y[t]);
        const __m256i zv = _mm256_add_epi32(yv, _mm256_slli_epi32(c, HAETAE_LNBITS));
        _mm256_storeu_si256((__m256i *)&z[t], zv);
        acc_z = square_acc(acc_z, zv);
        acc_d = square_acc(acc_d, _mm256_sub_epi32(_mm256_add_epi32(zv, zv), yv));
    }
    norms[0] += sum4(acc_z);
    norms[1] += sum4(acc_d);
}

void kpqc_haetae_commit_row_avx2(hpoly *w, hpoly *hb, const hpoly *wq, const hpoly *y2, const hpoly *lsb,
                                 unsigned alpha_bits) {
    const __m256i top = _mm256_set1_epi32((HAETAE_DQ - 2) >> alpha_bits);
    const __m256i half = _mm256_set1_epi32(1 << (alpha_bits - 1));
    const __m128i shift = _mm_cvtsi32_si128((int)alpha_bits);
    for (unsigned t = 0; t < HAETAE_N; t += 8) {
        const __m256i y = _mm256_loadu_si256((const __m256i *)&y2->c[t]);
        const __m256i x = _mm256_add_epi32(_mm256_loadu_si256((const __m256i *)&wq->c[t]), _mm256_add_epi32(y, y));
        const __m256i parity = lsb != NULL ? _mm256_loadu_si256((const __m256i *)&lsb->c[t]) : _mm256_setzero_si256();
        const __m256i v = from_parity(x, parity);
        _mm256_storeu_si256((__m256i *)&w->c[t], v);
        _mm256_storeu_si256((__m256i *)&hb->c[t], highbits(v, half, shift, top));
    }
}
