/*
 * AVX-512 build of the hyperball candidates (see haetae_sampler.c): eight
 * candidates in the eight 64-bit lanes of a register, each step of the
 * portable code done lane by lane on the same integers.  The fields come
 * out of the bytes by permutation, the CDT is a two-level count with
 * register permutations in place of secret addresses, and the 52-bit
 * multipliers of AVX-512 IFMA give the square and the products of the
 * acceptance polynomial exactly, where the portable code needs 128-bit
 * products.
 */
#include <string.h>

#include "common/ct.h"
#include "common/x86_intrin.h"
#include "haetae.h"

#define MASK48 ((UINT64_C(1) << 48) - 1)

/* The fields of a 26-byte candidate, as (byte offset, bytes): 83 bits for
 * the CDT, 48 for the acceptance test, 72 for the fraction. */
enum { CDT_LO, CDT_HI, TEST, FRAC_LO, FRAC_HI, FIELDS };
static const unsigned field_bytes[FIELDS] = {8, 3, 6, 6, 3};
/* Byte b of lane i (of the four candidates in two registers) from byte
 * 26 (i mod 4) + offset + b. */
#define LANE(x) (x), (x) + 1, (x) + 2, (x) + 3, (x) + 4, (x) + 5, (x) + 6, (x) + 7
#define FIELD(o) {LANE(o), LANE(26 + (o)), LANE(52 + (o)), LANE(78 + (o)), LANE(o), LANE(26 + (o)), LANE(52 + (o)), LANE(78 + (o))}
static const uint8_t field_index[FIELDS][64] __attribute__((aligned(64))) = {FIELD(0), FIELD(8), FIELD(11), FIELD(17), FIELD(23)};

/* Up to 64 bytes from p + start on, none past p + total. */
static inline __m512i load_bytes(const uint8_t *p, size_t start, size_t total) {
    size_t len = total > start ? total - start : 0;
    return _mm512_maskz_loadu_epi8(len >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << len) - 1, p + start);
}

/* The eight candidates' fields, one per 64-bit lane, by byte permutations
 * (candidates 0-3 from bytes 0..103, 4-7 from 104..207). */
static inline void load_fields(__m512i f[FIELDS], const uint8_t *r, size_t n) {
    const size_t total = n * HAETAE_CAND_BYTES;
    const __m512i a0 = load_bytes(r, 0, total), a1 = load_bytes(r, 64, total < 104 ? total : 104);
    const __m512i b0 = load_bytes(r, 104, total), b1 = load_bytes(r, 168, total);
    for (unsigned k = 0; k < FIELDS; k++) {
        const __mmask64 bytes = ((UINT64_C(1) << field_bytes[k]) - 1) * UINT64_C(0x0101010101010101);
        const __m512i idx = _mm512_load_si512((const void *)field_index[k]);
        f[k] = _mm512_mask_blend_epi64(0xf0, _mm512_maskz_permutex2var_epi8(bytes, a0, idx, a1),
                                       _mm512_maskz_permutex2var_epi8(bytes, b0, idx, b1));
    }
}

/* Whether e < r for 83-bit numbers split at bit 42: e_hi < r_hi +
 * [e_lo < r_lo], two comparisons instead of three. */
static inline __mmask8 below(__m512i e_lo, __m512i e_hi, __m512i r_lo, __m512i r_hi) {
    __mmask8 lo_below = _mm512_cmplt_epi64_mask(e_lo, r_lo);
    return _mm512_cmplt_epi64_mask(e_hi, _mm512_mask_add_epi64(r_hi, lo_below, r_hi, _mm512_set1_epi64(1)));
}

/* Row j of the CDT (entry j of each of the 11 blocks) in two registers. */
static inline void cdt_row(__m512i *lo, __m512i *hi, const int64_t *row) {
    *lo = _mm512_loadu_si512((const void *)row);
    *hi = _mm512_maskz_loadu_epi64(0x07, row + 8);
}

/*
 * Entries of the CDT below each lane's 83-bit value, in two steps, since
 * the table is sorted: the first entries of the blocks below r give r's
 * block B (the last one whose first entry is below r, or 0); every entry
 * of the blocks before it is below r and none after it is, so the count
 * is 16 B plus that block's entries below r.  Those are picked from each
 * row by a permutation of registers, with no secret-dependent address.
 */
static inline __m512i cdt8(__m512i r_lo, __m512i r_hi) {
    const __m512i one = _mm512_set1_epi64(1);
    __m512i blocks = _mm512_setzero_si512();
    for (unsigned b = 0; b < HAETAE_CDT_BLOCKS; b++) {
        __mmask8 m = below(_mm512_set1_epi64(kpqc_haetae_cdt_lo[b]), _mm512_set1_epi64(kpqc_haetae_cdt_hi[b]), r_lo, r_hi);
        blocks = _mm512_mask_add_epi64(blocks, m, blocks, one);
    }
    const __m512i block = _mm512_sub_epi64(blocks, _mm512_min_epu64(blocks, one));
    __m512i acc = _mm512_slli_epi64(block, 4);
    for (unsigned j = 0; j < 16; j++) {
        __m512i lo0, lo1, hi0, hi1;
        cdt_row(&lo0, &lo1, &kpqc_haetae_cdt_lo[j * HAETAE_CDT_BLOCKS]);
        cdt_row(&hi0, &hi1, &kpqc_haetae_cdt_hi[j * HAETAE_CDT_BLOCKS]);
        __m512i e_lo = _mm512_permutex2var_epi64(lo0, block, lo1);
        __m512i e_hi = _mm512_permutex2var_epi64(hi0, block, hi1);
        acc = _mm512_mask_add_epi64(acc, below(e_lo, e_hi, r_lo, r_hi), acc, one);
    }
    return acc;
}

/* exp(-xi / 2^48) as kpqc_haetae_approx_exp8, for m = 1 or 2 vectors of
 * xi at once (independent chains of dependent multiplications).  Horner's
 * steps are ceil(r xi / 2^48) + c with |r| < 2^50.  IFMA multiplies
 * unsigned 52-bit numbers, so the step uses r + 2^51 >= 0, whose product is
 * r xi plus 2^48 8 xi: taken apart by IFMA on 16 xi < 2^52, its high half
 * is floor((r + 2^51) xi / 2^48), and its low half 16 ((r + 2^51) xi mod
 * 2^48) carries into bit 52 when added to 2^52 - 16 exactly when that
 * remainder is not zero, which rounds up; 8 xi is taken off again with c. */
static inline __attribute__((always_inline)) void approx_exp(__m512i ex[2], const __m512i xi[2], unsigned m) {
    static const int64_t coefs[HAETAE_EXP_DEGREE + 1] = {HAETAE_EXP_COEFS};
    const __m512i offset = _mm512_set1_epi64(INT64_C(1) << 51);
    const __m512i carry_in = _mm512_set1_epi64((INT64_C(1) << 52) - 16);
    __m512i b[2], eight_xi[2];
    for (unsigned k = 0; k < m; k++) {
        b[k] = _mm512_slli_epi64(xi[k], 4);
        eight_xi[k] = _mm512_slli_epi64(xi[k], 3);
        ex[k] = _mm512_set1_epi64(coefs[0]);
    }
#pragma GCC unroll 16
    for (unsigned i = 1; i <= HAETAE_EXP_DEGREE; i++) {
        for (unsigned k = 0; k < m; k++) {
            const __m512i c = _mm512_sub_epi64(_mm512_set1_epi64(coefs[i]), eight_xi[k]);
            const __m512i a = _mm512_add_epi64(ex[k], offset);
            const __m512i rest = _mm512_madd52lo_epu64(carry_in, a, b[k]);
            ex[k] = _mm512_add_epi64(_mm512_madd52hi_epu64(c, a, b[k]), _mm512_srli_epi64(rest, 52));
        }
    }
}

void kpqc_haetae_approx_exp8_avx512(uint64_t out[8], const int64_t xi[8]) {
    const __m512i x[2] = {_mm512_loadu_si512((const void *)xi)};
    __m512i ex[2];
    approx_exp(ex, x, 1);
    _mm512_storeu_si512((void *)out, ex[0]);
}

/* Eight candidates up to their exponent. */
struct lanes8 {
    __m512i v, s_lo, s_hi, xi, test;
};

static inline void before_exp(struct lanes8 *c, const uint8_t *r, size_t n) {
    __m512i f[FIELDS];
    load_fields(f, r, n);
    const __m512i one = _mm512_set1_epi64(1), zero = _mm512_setzero_si512();
    const __m512i mask48 = _mm512_set1_epi64((int64_t)MASK48);
    const __m512i r_lo = _mm512_and_si512(f[CDT_LO], _mm512_set1_epi64((INT64_C(1) << HAETAE_CDT_SPLIT) - 1));
    const __m512i r_hi = _mm512_or_si512(_mm512_srli_epi64(f[CDT_LO], HAETAE_CDT_SPLIT),
                                         _mm512_slli_epi64(_mm512_and_si512(f[CDT_HI], _mm512_set1_epi64(0x7ffff)),
                                                           64 - HAETAE_CDT_SPLIT));
    const __m512i x = cdt8(r_lo, r_hi);

    /* y = x + fraction: 48 low bits and up to 32 high ones */
    const __m512i yl = f[FRAC_LO];
    const __m512i yh = _mm512_or_si512(f[FRAC_HI], _mm512_slli_epi64(x, 24));
    const __m512i v = _mm512_add_epi64(_mm512_srli_epi64(_mm512_add_epi64(_mm512_srli_epi64(yl, 15), one), 1),
                                       _mm512_slli_epi64(yh, 32));

    /* s = floor(y^2 / 2^76) as kpqc_haetae_fix_square: floor(yl^2 / 2^48),
     * plus 2 yl yh, shifted by 28, plus yh^2 2^20 */
    const __m512i low = _mm512_madd52hi_epu64(zero, yl, _mm512_slli_epi64(yl, 4));
    const __m512i yh2 = _mm512_slli_epi64(yh, 1);
    const __m512i mid_lo = _mm512_madd52lo_epu64(low, yl, yh2); /* below 2^53 */
    const __m512i mid_hi = _mm512_madd52hi_epu64(zero, yl, yh2);
    const __m512i mid = _mm512_add_epi64(_mm512_slli_epi64(mid_hi, 24), _mm512_srli_epi64(mid_lo, 28));
    const __m512i hh = _mm512_mul_epu32(yh, yh);
    const __m512i t = _mm512_add_epi64(mid, _mm512_slli_epi64(_mm512_and_si512(hh, _mm512_set1_epi64((1 << 28) - 1)), 20));
    const __m512i s_lo = _mm512_and_si512(t, mask48);
    const __m512i s_hi = _mm512_add_epi64(_mm512_srli_epi64(t, 48), _mm512_srli_epi64(hh, 28));

    /* the exponent (y^2 - x^2) / 512 in 48 fractional bits, rounded */
    __m512i e = _mm512_sub_epi64(s_hi, _mm512_slli_epi64(_mm512_mul_epu32(x, x), 20));
    e = _mm512_add_epi64(_mm512_or_si512(_mm512_slli_epi64(e, 20), _mm512_srli_epi64(s_lo, 28)), one);
    c->xi = _mm512_srli_epi64(e, 1);
    c->v = v;
    c->s_lo = s_lo;
    c->s_hi = s_hi;
    c->test = f[TEST];
}

/* Accepted when the 47 test bits are below exp(-e); zero, which both
 * halves of the line share, only when the last bit says so too. */
static inline void after_exp(struct haetae_cands *out, unsigned at, const struct lanes8 *c, __m512i ex) {
    const __m512i one = _mm512_set1_epi64(1);
    __mmask8 accept = _mm512_cmplt_epi64_mask(_mm512_andnot_si512(one, c->test), ex);
    accept &= _mm512_test_epi64_mask(c->v, c->v) | _mm512_test_epi64_mask(c->test, one);
    _mm512_storeu_si512((void *)&out->v[at], c->v);
    _mm512_storeu_si512((void *)&out->accept[at], _mm512_maskz_mov_epi64(accept, one));
    _mm512_storeu_si512((void *)&out->sq_lo[at], c->s_lo);
    _mm512_storeu_si512((void *)&out->sq_hi[at], c->s_hi);
}

/* Up to sixteen candidates as two vectors of eight, whose exponentials'
 * chains of dependent multiplications run side by side. */
void kpqc_haetae_gauss16_avx512(struct haetae_cands *out, const uint8_t *r, size_t n) {
    struct lanes8 c[2];
    __m512i xi[2], ex[2];
    const unsigned halves = n > 8 ? 2 : 1;
    for (unsigned k = 0; k < halves; k++) {
        before_exp(&c[k], r + 8 * k * HAETAE_CAND_BYTES, n - 8 * k < 8 ? n - 8 * k : 8);
        xi[k] = c[k].xi;
    }
    if (halves == 2)
        approx_exp(ex, xi, 2);
    else
        approx_exp(ex, xi, 1);
    for (unsigned k = 0; k < halves; k++) after_exp(out, 8 * k, &c[k], ex[k]);
}
