/*
 * AVX2 build of the hyperball candidates (see haetae_sampler.c): four
 * candidates in the four 64-bit lanes of a register, each step of the
 * portable code done lane by lane on the same integers.  The CDT samples
 * come from kpqc_haetae_cdt8_avx2; the square and the acceptance
 * polynomial, which the portable code takes from 128-bit products, are
 * exact sums of 32 x 32-bit products (vpmuludq), the polynomial exact in
 * double precision.
 */

#include <string.h>

#include "common/x86_intrin.h"
#include "haetae.h"
#include "haetae_cdt_avx2.h"

#define MASK48 ((INT64_C(1) << 48) - 1)
#define GROUPS (HAETAE_FEED_BATCH / 4) /* the most a call evaluates */
#define LIMB_MASK ((1u << HAETAE_CDT_LIMB_BITS) - 1)

/* Four candidates' fields, one per lane. */
struct lanes4 {
    __m256i x, frac_lo, frac_hi, test;
};

/* Sixteen bytes of candidates a and b, at offset off of each: a in the
 * low 128-bit lane, b in the high one. */
static inline __m256i load_pair(const uint8_t *a, const uint8_t *b, size_t off) {
    return _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(a + off))),
                                   _mm_loadu_si128((const __m128i *)(b + off)), 1);
}

/* The fields of four 26-byte candidates, one a lane: 83 bits for the CDT
 * (lo, and hi below 2^19), 48 for the acceptance test, 72 for the
 * fraction.  Each candidate is read as its bytes 0-15 and 10-25 (never
 * past its end); candidates 0 and 2 share a register, 1 and 3 another, so
 * that unpacking their quadwords gives the lanes in order. */
struct raw4 {
    __m256i lo, hi;
};
static inline void load4(struct lanes4 *c, struct raw4 *w, const uint8_t *const p[4]) {
    const __m256i a = load_pair(p[0], p[2], 0), b = load_pair(p[1], p[3], 0);
    const __m256i ay = load_pair(p[0], p[2], 10), by = load_pair(p[1], p[3], 10);
    /* bytes 17-22 of a candidate are bytes 7-12 of its second piece */
    const __m256i frac = _mm256_setr_epi8(7, 8, 9, 10, 11, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                                          7, 8, 9, 10, 11, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
    w->lo = _mm256_unpacklo_epi64(a, b);
    w->hi = _mm256_and_si256(_mm256_unpackhi_epi64(a, b), _mm256_set1_epi64x(0x7ffff));
    c->test = _mm256_and_si256(_mm256_srli_epi64(_mm256_unpacklo_epi64(ay, by), 8), _mm256_set1_epi64x(MASK48));
    c->frac_lo = _mm256_unpacklo_epi64(_mm256_shuffle_epi8(ay, frac), _mm256_shuffle_epi8(by, frac));
    c->frac_hi = _mm256_srli_epi64(_mm256_unpackhi_epi64(ay, by), 40);
}

/* The CDT samples of two groups a and b: their limbs side by side in the
 * 32-bit halves of the 64-bit lanes (a low, b high), eight samples a
 * call. */
static inline void cdt_pair(struct lanes4 *a, struct lanes4 *b, const struct raw4 *wa, const struct raw4 *wb) {
    const __m256i mask = _mm256_set1_epi64x(LIMB_MASK);
    const __m256i a0 = _mm256_and_si256(wa->lo, mask), b0 = _mm256_and_si256(wb->lo, mask);
    const __m256i a1 = _mm256_and_si256(_mm256_srli_epi64(wa->lo, HAETAE_CDT_LIMB_BITS), mask);
    const __m256i b1 = _mm256_and_si256(_mm256_srli_epi64(wb->lo, HAETAE_CDT_LIMB_BITS), mask);
    const __m256i a2 = _mm256_or_si256(_mm256_srli_epi64(wa->lo, 2 * HAETAE_CDT_LIMB_BITS), _mm256_slli_epi64(wa->hi, 8));
    const __m256i b2 = _mm256_or_si256(_mm256_srli_epi64(wb->lo, 2 * HAETAE_CDT_LIMB_BITS), _mm256_slli_epi64(wb->hi, 8));
    const __m256i x = kpqc_haetae_cdt8_avx2(_mm256_or_si256(a0, _mm256_slli_epi64(b0, 32)),
                                            _mm256_or_si256(a1, _mm256_slli_epi64(b1, 32)),
                                            _mm256_or_si256(a2, _mm256_slli_epi64(b2, 32)));
    a->x = _mm256_and_si256(x, _mm256_set1_epi64x(0xffffffff));
    b->x = _mm256_srli_epi64(x, 32);
}

/* Each function below that takes the number of groups is expanded for
 * each constant count (see kpqc_haetae_gauss_feed_avx2), so that its loops
 * over the groups unroll: with a run-time count, every Horner step
 * branched on it. */
#define GROUPS_INLINE static inline __attribute__((always_inline))

/* Candidates from n on repeat the last one (their lanes are unused). */
GROUPS_INLINE void load_candidates(struct lanes4 c[GROUPS], const uint8_t *r, size_t n, size_t groups) {
    struct raw4 w[GROUPS];
    for (size_t g = 0; g < groups; g++) {
        const uint8_t *p[4];
        for (size_t k = 0; k < 4; k++) p[k] = r + (4 * g + k) * HAETAE_CAND_BYTES;
        if (4 * g + 4 > n) /* only a call's last group, never inside a row's first blocks */
            for (size_t k = 0; k < 4; k++) p[k] = r + (4 * g + k < n ? 4 * g + k : n - 1) * HAETAE_CAND_BYTES;
        load4(&c[g], &w[g], p);
    }
    for (size_t g = 0; g < groups; g += 2) {
        if (g + 1 < groups)
            cdt_pair(&c[g], &c[g + 1], &w[g], &w[g + 1]);
        else
            cdt_pair(&c[g], &c[g], &w[g], &w[g]);
    }
}

/* A candidate up to its exponent: the value, the square's limbs and xi. */
struct square4 {
    __m256i v, s_lo, s_hi, xi;
};

/*
 * y = yh 2^48 + yl with yl < 2^48 and yh = x 2^24 + fraction < 2^32.  The
 * square as kpqc_haetae_fix_square, s = floor((floor(yl^2 / 2^48) +
 * 2 yl yh) / 2^28) + yh^2 2^20, from yl = a0 + a1 2^32 (a1 < 2^16):
 * floor(yl^2 / 2^48) = floor((a0^2 / 2^32 + 2 a0 a1) / 2^16) + a1^2 2^16
 * (the dropped low 32 bits of a0^2 never reach 2^48), and
 * 2 yl yh = 2 (a0 yh mod 2^32) + 2^32 (2 floor(a0 yh / 2^32) + 2 a1 yh).
 */
static inline void square(struct square4 *s, const struct lanes4 *c) {
    const __m256i one = _mm256_set1_epi64x(1), mask48 = _mm256_set1_epi64x(MASK48);
    const __m256i mask32 = _mm256_set1_epi64x(0xffffffff);
    const __m256i yl = c->frac_lo, yh = _mm256_or_si256(c->frac_hi, _mm256_slli_epi64(c->x, 24));
    const __m256i a1 = _mm256_srli_epi64(yl, 32);
    const __m256i t = _mm256_add_epi64(_mm256_srli_epi64(_mm256_mul_epu32(yl, yl), 32),
                                       _mm256_slli_epi64(_mm256_mul_epu32(yl, a1), 1));
    const __m256i low = _mm256_add_epi64(_mm256_srli_epi64(t, 16), _mm256_slli_epi64(_mm256_mul_epu32(a1, a1), 16));
    const __m256i p0 = _mm256_mul_epu32(yl, yh), p1 = _mm256_mul_epu32(a1, yh);
    const __m256i l = _mm256_add_epi64(_mm256_slli_epi64(_mm256_and_si256(p0, mask32), 1), low);
    const __m256i h = _mm256_slli_epi64(_mm256_add_epi64(_mm256_srli_epi64(p0, 32), p1), 1);
    const __m256i mid = _mm256_add_epi64(_mm256_slli_epi64(h, 4), _mm256_srli_epi64(l, 28)); /* (.) / 2^28 */
    const __m256i hh = _mm256_mul_epu32(yh, yh);
    const __m256i sum = _mm256_add_epi64(mid, _mm256_slli_epi64(_mm256_and_si256(hh, _mm256_set1_epi64x((1 << 28) - 1)), 20));
    s->s_lo = _mm256_and_si256(sum, mask48);
    s->s_hi = _mm256_add_epi64(_mm256_srli_epi64(sum, 48), _mm256_srli_epi64(hh, 28));
    s->v = _mm256_add_epi64(_mm256_srli_epi64(_mm256_add_epi64(_mm256_srli_epi64(yl, 15), one), 1),
                            _mm256_slli_epi64(yh, 32));
    /* the exponent (y^2 - x^2) / 512 in 48 fractional bits, rounded */
    __m256i e = _mm256_sub_epi64(s->s_hi, _mm256_slli_epi64(_mm256_mul_epu32(c->x, c->x), 20));
    e = _mm256_add_epi64(_mm256_or_si256(_mm256_slli_epi64(e, 20), _mm256_srli_epi64(s->s_lo, 28)), one);
    s->xi = _mm256_srli_epi64(e, 1);
}

/*
 * Horner's steps of kpqc_haetae_approx_exp8, r <- ceil(r xi / 2^48) + c, in
 * double precision on exact integers: |r| < 2^50 and 0 <= xi < 2^48, so r,
 * x = xi / 2^48 and the sums below are doubles without rounding.  One
 * fused multiply-add gives p = M + n, M = 2^52 + 2^51 and n the integer
 * nearest to r x (its ulp is 1 there), and p's bit pattern is M's plus n.
 * The exact r x is within 1/2 of n, so t = r x - n is a multiple of 2^-48
 * below 1 in magnitude: a double, computed exactly by one fused
 * multiply-subtract.  ceil(r x) = n + (t > 0), added to p's bit pattern
 * (an all-ones compare is -1), and r <- p + (c - M).  It holds in any
 * rounding mode the caller may have set: n is then an integer within 1 of
 * r x, and t in (-1, 1) still exact.  Six operations a step
 * for four candidates, against twelve with 32 x 32-bit integer products
 * and their four split factors a candidate (which did not fit the
 * registers).  (Rounding by vroundpd would do too, but MemorySanitizer
 * does not follow secrets through it.)  FMA is part of the avx2 level
 * (src/common/cpu.c).
 */
#define FMA_FN __attribute__((target("fma")))
#define EXP_BIAS 6755399441055744.0 /* M = 2^52 + 2^51 */

FMA_FN static inline __m256d horner_step(__m256d r, __m256d x, __m256d c_minus_bias) {
    const __m256d bias = _mm256_set1_pd(EXP_BIAS);
    const __m256d p = _mm256_fmadd_pd(r, x, bias);
    const __m256d t = _mm256_fmsub_pd(r, x, _mm256_sub_pd(p, bias));
    const __m256i up = _mm256_cmpgt_epi64(_mm256_castpd_si256(t), _mm256_setzero_si256()); /* t > +0 */
    return _mm256_add_pd(_mm256_castsi256_pd(_mm256_sub_epi64(_mm256_castpd_si256(p), up)), c_minus_bias);
}

/* exp(-xi / 2^48) as kpqc_haetae_approx_exp8, for up to GROUPS x 4
 * values, the groups' chains side by side; x = xi / 2^48 is
 * 16 + xi / 2^48 (xi's bits under the exponent of 16) minus 16. */
FMA_FN GROUPS_INLINE void approx_exp(__m256i ex[GROUPS], const __m256i xi[GROUPS], size_t groups) {
    static const int64_t coefs[HAETAE_EXP_DEGREE + 1] = {HAETAE_EXP_COEFS};
    const __m256d sixteen = _mm256_set1_pd(16.0), bias = _mm256_set1_pd(EXP_BIAS);
    __m256d x[GROUPS], r[GROUPS];
    for (size_t g = 0; g < groups; g++) {
        x[g] = _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(xi[g], _mm256_castpd_si256(sixteen))), sixteen);
        r[g] = _mm256_set1_pd((double)coefs[0]);
    }
#pragma GCC unroll 16
    for (unsigned i = 1; i <= HAETAE_EXP_DEGREE; i++) {
        const __m256d coef = _mm256_set1_pd((double)coefs[i] - EXP_BIAS);
        for (size_t g = 0; g < groups; g++) r[g] = horner_step(r[g], x[g], coef);
    }
    /* the integer r from the bit pattern of M + r */
    for (size_t g = 0; g < groups; g++)
        ex[g] = _mm256_sub_epi64(_mm256_castpd_si256(_mm256_add_pd(r[g], bias)), _mm256_castpd_si256(bias));
}

FMA_FN void kpqc_haetae_approx_exp8_avx2(uint64_t out[8], const int64_t xi[8]) {
    __m256i x[GROUPS], ex[GROUPS];
    x[0] = _mm256_loadu_si256((const __m256i *)xi);
    x[1] = _mm256_loadu_si256((const __m256i *)(xi + 4));
    approx_exp(ex, x, 2);
    _mm256_storeu_si256((__m256i *)out, ex[0]);
    _mm256_storeu_si256((__m256i *)(out + 4), ex[1]);
}

/* Sixteen candidates up to their verdicts: values, squares, and keep
 * (all ones when accepted).  The candidates go from their bytes straight
 * into registers (or the compiler's spills), as in the AVX-512 kernel: no
 * scratch to wipe. */
FMA_FN GROUPS_INLINE void evaluate(struct square4 s[GROUPS], __m256i keep[GROUPS], const uint8_t *r, size_t n,
                           size_t groups) {
    struct lanes4 c[GROUPS];
    __m256i xi[GROUPS], ex[GROUPS];
    load_candidates(c, r, n, groups);
    for (size_t g = 0; g < groups; g++) {
        square(&s[g], &c[g]);
        xi[g] = s[g].xi;
    }
    approx_exp(ex, xi, groups);
    /* accepted when the 47 test bits are below exp(-xi); zero, which both
     * halves of the line share, only when the last bit says so too */
    const __m256i one = _mm256_set1_epi64x(1), zero = _mm256_setzero_si256();
    for (size_t g = 0; g < groups; g++) {
        const __m256i test = c[g].test;
        const __m256i below = _mm256_cmpgt_epi64(ex[g], _mm256_andnot_si256(one, test));
        const __m256i nonzero = _mm256_xor_si256(_mm256_cmpeq_epi64(s[g].v, zero), _mm256_set1_epi64x(-1));
        const __m256i odd = _mm256_sub_epi64(zero, _mm256_and_si256(test, one));
        keep[g] = _mm256_and_si256(below, _mm256_or_si256(nonzero, odd));
    }
}

FMA_FN void kpqc_haetae_gauss16_avx2(struct haetae_cands *out, const uint8_t *r, size_t n) {
    struct square4 s[GROUPS];
    __m256i keep[GROUPS];
    const size_t groups = (n + 3) / 4;
    evaluate(s, keep, r, n, groups);
    const __m256i one = _mm256_set1_epi64x(1);
    for (size_t g = 0; g < groups; g++) {
        _mm256_storeu_si256((__m256i *)&out->v[4 * g], s[g].v);
        _mm256_storeu_si256((__m256i *)&out->accept[4 * g], _mm256_and_si256(keep[g], one));
        _mm256_storeu_si256((__m256i *)&out->sq_lo[4 * g], s[g].s_lo);
        _mm256_storeu_si256((__m256i *)&out->sq_hi[4 * g], s[g].s_hi);
    }
}

/* Lane i of a + lane i - k of a (lanes below k add zero). */
static inline __m256i add_shifted1(__m256i a) {
    const __m256i up = _mm256_blend_epi32(_mm256_permute4x64_epi64(a, 0x90), _mm256_setzero_si256(), 0x03);
    return _mm256_add_epi64(a, up);
}
static inline __m256i add_shifted2(__m256i a) {
    const __m256i up = _mm256_blend_epi32(_mm256_permute4x64_epi64(a, 0x40), _mm256_setzero_si256(), 0x0f);
    return _mm256_add_epi64(a, up);
}

/*
 * kpqc_haetae_gauss_feed_generic on the candidates' registers: the
 * counts before each candidate are a running total plus a prefix sum
 * across the four lanes, so "accepted and among the first len" is a
 * compare; the squares are summed in lanes and folded once.
 */
FMA_FN GROUPS_INLINE void feed_groups(struct haetae_gauss_lane *lane, const uint8_t *r, size_t n, size_t groups) {
    struct square4 s[GROUPS];
    __m256i keep[GROUPS];
    evaluate(s, keep, r, n, groups);
    const __m256i one = _mm256_set1_epi64x(1), len = _mm256_set1_epi64x(lane->len);
    __m256i count = _mm256_set1_epi64x(lane->count), sum_lo = _mm256_setzero_si256(), sum_hi = sum_lo;
    uint64_t *val = lane->val + lane->n;
    uint8_t *kept = lane->keep + lane->n;
    for (size_t g = 0; g < groups; g++) {
        /* lanes past n repeat the last candidate: never kept */
        const __m256i valid = _mm256_cmpgt_epi64(_mm256_set1_epi64x((int64_t)(n - 4 * g)), _mm256_setr_epi64x(0, 1, 2, 3));
        const __m256i k = _mm256_and_si256(keep[g], valid), acc = _mm256_and_si256(k, one);
        const __m256i upto = add_shifted2(add_shifted1(acc)); /* accepted up to and including each lane */
        const __m256i before = _mm256_sub_epi64(_mm256_add_epi64(count, upto), acc);
        const __m256i wanted = _mm256_and_si256(k, _mm256_cmpgt_epi64(len, before));
        sum_lo = _mm256_add_epi64(sum_lo, _mm256_and_si256(s[g].s_lo, wanted));
        sum_hi = _mm256_add_epi64(sum_hi, _mm256_and_si256(s[g].s_hi, wanted));
        count = _mm256_add_epi64(count, _mm256_permute4x64_epi64(upto, 0xff));
        /* the four keep bytes from the mask's sign bits: bit j to byte j */
        const uint32_t bits = (uint32_t)_mm256_movemask_pd(_mm256_castsi256_pd(k));
        const uint32_t bytes = (bits * 0x204081u) & 0x01010101u;
        if (4 * g + 4 <= n) {
            _mm256_storeu_si256((__m256i *)(val + 4 * g), s[g].v);
            memcpy(kept + 4 * g, &bytes, 4);
        } else {
            _mm256_maskstore_epi64((long long *)(val + 4 * g), valid, s[g].v);
            for (size_t i = 0; 4 * g + i < n; i++) kept[4 * g + i] = (uint8_t)(bytes >> (8 * i));
        }
    }
    const __m128i lo = _mm_add_epi64(_mm256_castsi256_si128(sum_lo), _mm256_extracti128_si256(sum_lo, 1));
    const __m128i hi = _mm_add_epi64(_mm256_castsi256_si128(sum_hi), _mm256_extracti128_si256(sum_hi, 1));
    lane->sum_lo += (uint64_t)_mm_cvtsi128_si64(lo) + (uint64_t)_mm_extract_epi64(lo, 1);
    lane->sum_hi += (uint64_t)_mm_cvtsi128_si64(hi) + (uint64_t)_mm_extract_epi64(hi, 1);
    lane->count = (uint32_t)_mm256_extract_epi64(count, 0);
}

/* A feed takes 32 candidates while a row's first blocks last, then the
 * five or six of each further block: one expansion per group count
 * (public, as the count of candidates a row used), rounded up to a power
 * of two (lanes past n are never kept). */
FMA_FN void kpqc_haetae_gauss_feed_avx2(struct haetae_gauss_lane *lane, const uint8_t *r, size_t n) {
    switch ((n + 3) / 4) {
    case 0: break;
    case 1: feed_groups(lane, r, n, 1); break;
    case 2: feed_groups(lane, r, n, 2); break;
    case 3:
    case 4: feed_groups(lane, r, n, 4); break;
    default: feed_groups(lane, r, n, GROUPS); break;
    }
}
