/*
 * NTT, inverse NTT and pointwise products with AVX2 intrinsics, eight
 * coefficients a register, for the AVX2 and the AVX-512 tables: the
 * integers of the portable ones (haetae_ntt.c).
 *
 * The Montgomery product is the portable one lane by lane: the exact 64-bit
 * product z * a of the even lanes, then of the odd ones (vpmuldq), t = its
 * low half times q^-1, and the high half of product - t * q.  The low
 * halves of product and t * q are equal, so that high half is the portable
 * (a - t q) >> 32 exactly.  Sums and differences wrap like the portable
 * int32 arithmetic, which the documented input bounds keep from
 * overflowing; so every output integer is the portable one.
 *
 * Layers with len >= 8 pair whole registers.  The last three work on the
 * 16 coefficients of two registers X, Y at a time, held so that lane i of
 * X and lane i of Y are a butterfly's two inputs: for len L, X holds the
 * coefficients c with c mod 2L < L in increasing order and Y those plus L.
 * Going from L to L/2 (or back) interleaves X and Y in blocks of L/2
 * lanes; the zetas of such a layout are contiguous entries of the table,
 * each repeated L times.
 */
#include "common/x86_intrin.h"

#include "haetae_ntt_kernel.h"

/* r = z * a * 2^-32 mod q per lane, |r| < q; z_odd holds the zetas of the
 * odd lanes in the even ones (z itself when neighbours share a zeta). */
static inline __m256i mont_mul(__m256i a, __m256i z, __m256i z_odd) {
    const __m256i qinv = _mm256_set1_epi32((int32_t)HAETAE_QINV);
    const __m256i q = _mm256_set1_epi32(HAETAE_Q);
    __m256i p_even = _mm256_mul_epi32(a, z);
    __m256i p_odd = _mm256_mul_epi32(_mm256_srli_epi64(a, 32), z_odd);
    __m256i t_even = _mm256_mul_epi32(_mm256_mul_epi32(p_even, qinv), q);
    __m256i t_odd = _mm256_mul_epi32(_mm256_mul_epi32(p_odd, qinv), q);
    __m256i r_even = _mm256_sub_epi64(p_even, t_even); /* results in the high halves */
    __m256i r_odd = _mm256_sub_epi64(p_odd, t_odd);
    return _mm256_blend_epi32(_mm256_srli_epi64(r_even, 32), r_odd, 0xAA);
}

/* Cooley-Tukey: (x, y) <- (x + z y, x - z y). */
static inline void ct_butterfly(__m256i *x, __m256i *y, __m256i z, __m256i z_odd) {
    __m256i t = mont_mul(*y, z, z_odd);
    *y = _mm256_sub_epi32(*x, t);
    *x = _mm256_add_epi32(*x, t);
}

/* Gentleman-Sande with the zeta's negation folded in: (x, y) <- (x + y,
 * z (y - x)), the same 64-bit product as the portable -z (x - y). */
static inline void gs_butterfly(__m256i *x, __m256i *y, __m256i z, __m256i z_odd) {
    __m256i t = *x;
    *x = _mm256_add_epi32(t, *y);
    *y = mont_mul(_mm256_sub_epi32(*y, t), z, z_odd);
}

/* X and Y trade blocks of s lanes: X = x0 y0 x2 y2 ..., Y = x1 y1 x3 y3 ...
 * in blocks (the same exchange undoes itself). */
static inline void interleave(__m256i *x, __m256i *y, unsigned s) {
    __m256i nx, ny;
    if (s == 4) {
        nx = _mm256_permute2x128_si256(*x, *y, 0x20);
        ny = _mm256_permute2x128_si256(*x, *y, 0x31);
    } else if (s == 2) {
        nx = _mm256_unpacklo_epi64(*x, *y);
        ny = _mm256_unpackhi_epi64(*x, *y);
    } else {
        nx = _mm256_blend_epi32(*x, _mm256_slli_epi64(*y, 32), 0xAA);
        ny = _mm256_blend_epi32(_mm256_srli_epi64(*x, 32), *y, 0xAA);
    }
    *x = nx, *y = ny;
}

/* Consecutive coefficients c0..c15 in X, Y to the len-1 layout (evens in
 * X, odds in Y), and back. */
static inline void deal(__m256i *x, __m256i *y) {
    const __m256i split = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
    __m256i a = _mm256_permutevar8x32_epi32(*x, split), b = _mm256_permutevar8x32_epi32(*y, split);
    *x = _mm256_permute2x128_si256(a, b, 0x20);
    *y = _mm256_permute2x128_si256(a, b, 0x31);
}
static inline void undeal(__m256i *x, __m256i *y) {
    const __m256i join = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    __m256i a = _mm256_permute2x128_si256(*x, *y, 0x20), b = _mm256_permute2x128_si256(*x, *y, 0x31);
    *x = _mm256_permutevar8x32_epi32(a, join);
    *y = _mm256_permutevar8x32_epi32(b, join);
}

/* Eight zetas for a len-L layout (L = 4, 2, 1): entries from[idx[i]]. */
static inline __m256i zetas(const int32_t *from, const int32_t idx[8]) {
    return _mm256_permutevar8x32_epi32(_mm256_loadu_si256((const __m256i *)from),
                                       _mm256_loadu_si256((const __m256i *)idx));
}
/* Lane i takes entry i / L, forwards (NTT) or backwards (inverse). */
static const int32_t repeat_idx[3][8] = {{0, 0, 0, 0, 1, 1, 1, 1}, {0, 0, 1, 1, 2, 2, 3, 3}, {0, 1, 2, 3, 4, 5, 6, 7}};
static const int32_t repeat_back_idx[3][8] = {
    {1, 1, 1, 1, 0, 0, 0, 0}, {3, 3, 2, 2, 1, 1, 0, 0}, {7, 6, 5, 4, 3, 2, 1, 0}};

/* The odd lanes' zetas for mont_mul: distinct only in the len-1 layer. */
static inline __m256i odd_zetas(__m256i z, unsigned len) { return len == 1 ? _mm256_srli_epi64(z, 32) : z; }

void kpqc_haetae_ntt_avx2(hpoly *a) {
    for (unsigned j = 0; j < HAETAE_N; j++) KPQC_BOUND(a->c[j] > -12 * HAETAE_Q && a->c[j] < 12 * HAETAE_Q);
    __m256i v[32];
    for (unsigned i = 0; i < 32; i++) v[i] = _mm256_loadu_si256((const __m256i *)&a->c[8 * i]);
    /* len 128 down to 8: registers i and i + s, zeta k + (group of i) */
    for (unsigned s = 16, k = 1; s >= 1; s >>= 1, k <<= 1)
        for (unsigned i = 0; i < 32; i++)
            if ((i & s) == 0) {
                __m256i z = _mm256_set1_epi32(haetae_zetas[k + i / (2 * s)]);
                ct_butterfly(&v[i], &v[i + s], z, z);
            }
    /* len 4, 2, 1 on coefficients 16b .. 16b + 15 */
    for (unsigned b = 0; b < 16; b++) {
        __m256i x = v[2 * b], y = v[2 * b + 1];
        for (unsigned l = 0, len = 4; l < 3; l++, len >>= 1) {
            interleave(&x, &y, len);
            __m256i z = zetas(&haetae_zetas[(128 + 8 * b) / len], repeat_idx[l]);
            ct_butterfly(&x, &y, z, odd_zetas(z, len));
        }
        undeal(&x, &y);
        v[2 * b] = x, v[2 * b + 1] = y;
    }
    for (unsigned i = 0; i < 32; i++) _mm256_storeu_si256((__m256i *)&a->c[8 * i], v[i]);
}

void kpqc_haetae_invntt_avx2(hpoly *a) {
    __m256i v[32];
    for (unsigned i = 0; i < 32; i++) v[i] = _mm256_loadu_si256((const __m256i *)&a->c[8 * i]);
    /* len 1, 2, 4 on coefficients 16b .. 16b + 15; zeta k runs down */
    for (unsigned b = 0; b < 16; b++) {
        __m256i x = v[2 * b], y = v[2 * b + 1];
        deal(&x, &y);
        for (unsigned l = 3, len = 1; l-- > 0; len <<= 1) {
            __m256i z = zetas(&haetae_zetas[(248 - 8 * b) / len], repeat_back_idx[l]);
            gs_butterfly(&x, &y, z, odd_zetas(z, len));
            interleave(&x, &y, len);
        }
        v[2 * b] = x, v[2 * b + 1] = y;
    }
    /* len 8 up to 128 */
    for (unsigned s = 1, k = 32; s <= 16; s <<= 1, k >>= 1)
        for (unsigned i = 0; i < 32; i++)
            if ((i & s) == 0) {
                __m256i z = _mm256_set1_epi32(haetae_zetas[k - 1 - i / (2 * s)]);
                gs_butterfly(&v[i], &v[i + s], z, z);
            }
    const __m256i f = _mm256_set1_epi32(HAETAE_INVNTT_F);
    for (unsigned i = 0; i < 32; i++) _mm256_storeu_si256((__m256i *)&a->c[8 * i], mont_mul(v[i], f, f));
}

/* Coefficients i .. i + 7 of the pointwise product a * b * 2^-32, as
 * kpqc_haetae_pointwise computes them. */
static inline __m256i pointwise8(const hpoly *a, const hpoly *b, unsigned i) {
    __m256i vb = _mm256_loadu_si256((const __m256i *)&b->c[i]);
    return mont_mul(_mm256_loadu_si256((const __m256i *)&a->c[i]), vb, _mm256_srli_epi64(vb, 32));
}

void kpqc_haetae_pointwise_avx2(hpoly *r, const hpoly *a, const hpoly *b) {
    for (unsigned i = 0; i < HAETAE_N; i += 8) _mm256_storeu_si256((__m256i *)&r->c[i], pointwise8(a, b, i));
}

void kpqc_haetae_pointwise_acc_avx2(hpoly *r, const hpoly *a, const hpoly *b) {
    for (unsigned i = 0; i < HAETAE_N; i += 8) {
        __m256i sum = _mm256_add_epi32(_mm256_loadu_si256((const __m256i *)&r->c[i]), pointwise8(a, b, i));
        _mm256_storeu_si256((__m256i *)&r->c[i], sum);
    }
}
