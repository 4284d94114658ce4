/*
 * AVX-512 NTT, inverse NTT and pointwise products: the integers of
 * haetae_ntt_kernel.h, sixteen coefficients a register.
 *
 * The Montgomery product is the portable one lane by lane: the exact 64-bit
 * product z * a of the even lanes, then of the odd ones (vpmuldq), t = its
 * low half times q^-1, and the high half of product - t * q.  The low
 * halves of product and t * q are equal, so that high half is the portable
 * (a - t q) >> 32 exactly.  Sums and differences wrap like the portable
 * int32 arithmetic, which the documented input bounds keep from
 * overflowing; so every output integer is the portable one.
 *
 * Layers with len >= 16 pair whole registers.  The last four work on the
 * 32 coefficients of two registers X, Y at a time, held so that lane i of
 * X and lane i of Y are a butterfly's two inputs: for len L, X holds the
 * coefficients c with c mod 2L < L in increasing order and Y those plus L.
 * Going from L to L/2 (or back) interleaves X and Y in blocks of L/2
 * lanes, one vpermt2d each; the zetas of a layout are contiguous entries
 * of the table, each repeated L times.
 */
#include "common/x86_intrin.h"

#include "haetae_ntt_kernel.h"

/* r = z * a * 2^-32 mod q per lane, |r| < q; z_odd holds the zetas of the
 * odd lanes in the even ones (z itself when neighbours share a zeta). */
static inline __m512i mont_mul(__m512i a, __m512i z, __m512i z_odd) {
    const __m512i qinv = _mm512_set1_epi32((int32_t)HAETAE_QINV);
    const __m512i q = _mm512_set1_epi32(HAETAE_Q);
    __m512i p_even = _mm512_mul_epi32(a, z);
    __m512i p_odd = _mm512_mul_epi32(_mm512_srli_epi64(a, 32), z_odd);
    __m512i t_even = _mm512_mul_epi32(_mm512_mul_epi32(p_even, qinv), q);
    __m512i t_odd = _mm512_mul_epi32(_mm512_mul_epi32(p_odd, qinv), q);
    __m512i r_even = _mm512_sub_epi64(p_even, t_even); /* results in the high halves */
    __m512i r_odd = _mm512_sub_epi64(p_odd, t_odd);
    return _mm512_mask_shuffle_epi32(r_odd, 0x5555, r_even, (_MM_PERM_ENUM)0xF5);
}

/* Cooley-Tukey: (x, y) <- (x + z y, x - z y). */
static inline void ct_butterfly(__m512i *x, __m512i *y, __m512i z, __m512i z_odd) {
    __m512i t = mont_mul(*y, z, z_odd);
    *y = _mm512_sub_epi32(*x, t);
    *x = _mm512_add_epi32(*x, t);
}

/* Gentleman-Sande with the zeta's negation folded in: (x, y) <- (x + y,
 * z (y - x)), the same 64-bit product as the portable -z (x - y). */
static inline void gs_butterfly(__m512i *x, __m512i *y, __m512i z, __m512i z_odd) {
    __m512i t = *x;
    *x = _mm512_add_epi32(t, *y);
    *y = mont_mul(_mm512_sub_epi32(*y, t), z, z_odd);
}

#define ROW16(F, a, b)                                                                                    \
    {F(a, b, 0),  F(a, b, 1),  F(a, b, 2),  F(a, b, 3),  F(a, b, 4),  F(a, b, 5),  F(a, b, 6),  F(a, b, 7), \
     F(a, b, 8),  F(a, b, 9),  F(a, b, 10), F(a, b, 11), F(a, b, 12), F(a, b, 13), F(a, b, 14), F(a, b, 15)}
/* Lane i of the new X (h = 0) or Y (h = 1) when X and Y trade blocks of s
 * lanes; indices 16..31 name Y's lanes. */
#define INTERLEAVE(s, h, i) (16 * (((i) / (s)) & 1) + 2 * (s) * ((i) / (2 * (s))) + (h) * (s) + (i) % (s))
/* From two registers of consecutive coefficients to the len-1 layout
 * (evens, odds) and back. */
#define DEAL(u, h, i) (2 * (i) + (h))
#define UNDEAL(u, h, i) (16 * (((i) + 16 * (h)) & 1) + ((i) + 16 * (h)) / 2)
/* Zetas of a len-s layout from s-fold repetition of a table run, forwards
 * for the NTT and backwards for the inverse. */
#define REPEAT(s, u, i) ((i) / (s))
#define REPEAT_BACK(s, u, i) (16 / (s) - 1 - (i) / (s))

static const int32_t interleave_idx[4][2][16] = {
    {ROW16(INTERLEAVE, 8, 0), ROW16(INTERLEAVE, 8, 1)},
    {ROW16(INTERLEAVE, 4, 0), ROW16(INTERLEAVE, 4, 1)},
    {ROW16(INTERLEAVE, 2, 0), ROW16(INTERLEAVE, 2, 1)},
    {ROW16(INTERLEAVE, 1, 0), ROW16(INTERLEAVE, 1, 1)},
};
static const int32_t deal_idx[2][16] = {ROW16(DEAL, 0, 0), ROW16(DEAL, 0, 1)};
static const int32_t undeal_idx[2][16] = {ROW16(UNDEAL, 0, 0), ROW16(UNDEAL, 0, 1)};
static const int32_t repeat_idx[4][16] = {ROW16(REPEAT, 8, 0), ROW16(REPEAT, 4, 0), ROW16(REPEAT, 2, 0),
                                          ROW16(REPEAT, 1, 0)};
static const int32_t repeat_back_idx[4][16] = {ROW16(REPEAT_BACK, 8, 0), ROW16(REPEAT_BACK, 4, 0),
                                               ROW16(REPEAT_BACK, 2, 0), ROW16(REPEAT_BACK, 1, 0)};

static inline __m512i load_idx(const int32_t idx[16]) { return _mm512_loadu_si512((const void *)idx); }

/* (X, Y) <- the lanes idx[0], idx[1] of the 32 in X || Y. */
static inline void permute_pair(__m512i *x, __m512i *y, const int32_t idx[2][16]) {
    __m512i nx = _mm512_permutex2var_epi32(*x, load_idx(idx[0]), *y);
    *y = _mm512_permutex2var_epi32(*x, load_idx(idx[1]), *y);
    *x = nx;
}

/* The odd lanes' zetas for mont_mul: distinct only in the len-1 layer. */
static inline __m512i odd_zetas(__m512i z, unsigned len) { return len == 1 ? _mm512_srli_epi64(z, 32) : z; }

void kpqc_haetae_ntt_avx512(hpoly *a) {
    for (unsigned j = 0; j < HAETAE_N; j++) KPQC_BOUND(a->c[j] > -12 * HAETAE_Q && a->c[j] < 12 * HAETAE_Q);
    __m512i v[16];
    for (unsigned i = 0; i < 16; i++) v[i] = _mm512_loadu_si512((const void *)&a->c[16 * i]);
    /* len 128, 64, 32: registers i and i + s, zeta k + (group of i) */
    for (unsigned s = 8, k = 1; s >= 2; s >>= 1, k <<= 1)
        for (unsigned i = 0; i < 16; i++)
            if ((i & s) == 0) {
                __m512i z = _mm512_set1_epi32(haetae_zetas[k + i / (2 * s)]);
                ct_butterfly(&v[i], &v[i + s], z, z);
            }
    /* len 16 down to 1 on coefficients 32b .. 32b + 31 */
    for (unsigned b = 0; b < 8; b++) {
        __m512i x = v[2 * b], y = v[2 * b + 1];
        __m512i z = _mm512_set1_epi32(haetae_zetas[8 + b]);
        ct_butterfly(&x, &y, z, z);
        for (unsigned l = 0, len = 8; l < 4; l++, len >>= 1) {
            permute_pair(&x, &y, interleave_idx[l]);
            z = _mm512_permutexvar_epi32(load_idx(repeat_idx[l]),
                                         _mm512_loadu_si512((const void *)&haetae_zetas[(128 + 16 * b) / len]));
            ct_butterfly(&x, &y, z, odd_zetas(z, len));
        }
        permute_pair(&x, &y, undeal_idx);
        v[2 * b] = x, v[2 * b + 1] = y;
    }
    for (unsigned i = 0; i < 16; i++) _mm512_storeu_si512((void *)&a->c[16 * i], v[i]);
}

void kpqc_haetae_invntt_avx512(hpoly *a) {
    __m512i v[16];
    for (unsigned i = 0; i < 16; i++) v[i] = _mm512_loadu_si512((const void *)&a->c[16 * i]);
    /* len 1 up to 16 on coefficients 32b .. 32b + 31; zeta k runs down */
    for (unsigned b = 0; b < 8; b++) {
        __m512i x = v[2 * b], y = v[2 * b + 1], z;
        permute_pair(&x, &y, deal_idx);
        for (unsigned l = 4, len = 1; l-- > 0; len <<= 1) {
            z = _mm512_permutexvar_epi32(load_idx(repeat_back_idx[l]),
                                         _mm512_loadu_si512((const void *)&haetae_zetas[(240 - 16 * b) / len]));
            gs_butterfly(&x, &y, z, odd_zetas(z, len));
            permute_pair(&x, &y, interleave_idx[l]);
        }
        z = _mm512_set1_epi32(haetae_zetas[15 - b]);
        gs_butterfly(&x, &y, z, z);
        v[2 * b] = x, v[2 * b + 1] = y;
    }
    /* len 32, 64, 128 */
    for (unsigned s = 2, k = 8; s <= 8; s <<= 1, k >>= 1)
        for (unsigned i = 0; i < 16; i++)
            if ((i & s) == 0) {
                __m512i z = _mm512_set1_epi32(haetae_zetas[k - 1 - i / (2 * s)]);
                gs_butterfly(&v[i], &v[i + s], z, z);
            }
    const __m512i f = _mm512_set1_epi32(HAETAE_INVNTT_F);
    for (unsigned i = 0; i < 16; i++) _mm512_storeu_si512((void *)&a->c[16 * i], mont_mul(v[i], f, f));
}

/* Coefficients i .. i + 15 of the pointwise product a * b * 2^-32, as
 * kpqc_haetae_pointwise computes them. */
static inline __m512i pointwise16(const hpoly *a, const hpoly *b, unsigned i) {
    __m512i vb = _mm512_loadu_si512((const void *)&b->c[i]);
    return mont_mul(_mm512_loadu_si512((const void *)&a->c[i]), vb, _mm512_srli_epi64(vb, 32));
}

void kpqc_haetae_pointwise_avx512(hpoly *r, const hpoly *a, const hpoly *b) {
    for (unsigned i = 0; i < HAETAE_N; i += 16) _mm512_storeu_si512((void *)&r->c[i], pointwise16(a, b, i));
}

void kpqc_haetae_pointwise_acc_avx512(hpoly *r, const hpoly *a, const hpoly *b) {
    for (unsigned i = 0; i < HAETAE_N; i += 16) {
        __m512i sum = _mm512_add_epi32(_mm512_loadu_si512((const void *)&r->c[i]), pointwise16(a, b, i));
        _mm512_storeu_si512((void *)&r->c[i], sum);
    }
}
