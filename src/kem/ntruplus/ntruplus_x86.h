/*
 * NTRU+: transforms, NTT-domain products and encodings on 256-bit vectors.
 * Same results mod q as the portable code (ntruplus_poly.c), same
 * coefficient order.  Included by ntruplus_avx2.c and ntruplus_avx512.c,
 * which compile these kernels for their level and hold its table; where
 * AVX-512 (BW, VL) is available the regroupings of n = 864 take one
 * two-source word permutation per output instead of shifts and blends.
 *
 * Layers whose stride is a multiple of 16 work on whole vectors with a
 * broadcast twiddle.  The remaining radix-2 layers:
 *  - n = 768, 1152 (strides 8 and 4): two 16-coefficient blocks at a time,
 *    regrouped in registers (128-bit halves, then 64-bit quarters);
 *  - n = 864 (strides 24, 12, 6, 3 inside blocks of 48): each block is
 *    transposed in registers into three coefficient-major vectors (lane t
 *    holds coefficient 3t + u), where the layers become ring strides
 *    8, 4, 2, 1 worked like the d = 4 ones; no copy through memory.
 * Products in Z_q[X]/(X^d -+ z) run on 16 base rings at once after a
 * transposition that puts coefficient j of the 16 rings in one vector.
 */
#ifndef KPQC_NTRUPLUS_X86_H
#define KPQC_NTRUPLUS_X86_H

#include "common/x86_intrin.h"
#include <string.h>

#include "ntruplus.h"
#include "common/ct.h"

#define Q NTRUPLUS_Q

typedef __m256i v16;

static inline v16 vset1(int16_t x) { return _mm256_set1_epi16(x); }

/* a * b * R^-1, with bq = b * q^-1 mod 2^16; |result| < q */
static inline v16 vmul(v16 a, v16 b, v16 bq) {
    v16 lo = _mm256_mullo_epi16(a, bq);
    v16 hi = _mm256_mulhi_epi16(a, b);
    lo = _mm256_mulhi_epi16(lo, vset1(Q));
    return _mm256_sub_epi16(hi, lo);
}
static inline v16 vmulz(v16 a, v16 z) {
    return vmul(a, z, _mm256_mullo_epi16(z, vset1((int16_t)NTRUPLUS_QINV)));
}
/* A twiddle and its multiple of q^-1 (mod 2^16): products by it take
 * three multiplications, the multiple formed once (by a scalar product for
 * a broadcast twiddle, from a table for the tails). */
typedef struct {
    v16 w, wq;
} vtw;
static inline vtw tw_set1(int16_t z) {
    const vtw t = {vset1(z), vset1((int16_t)(uint16_t)((uint32_t)(uint16_t)z * NTRUPLUS_QINV))};
    return t;
}
static inline vtw tw_load(const int16_t *w, const int16_t *wq) {
    const vtw t = {_mm256_loadu_si256((const __m256i *)w), _mm256_loadu_si256((const __m256i *)wq)};
    return t;
}
static inline v16 vmult(v16 a, vtw t) { return vmul(a, t.w, t.wq); }

/* a - round(a * v / 2^26) q, v = round(2^26 / q): centred, |result| <= q/2 + 1 */
static inline v16 vbarrett(v16 a) {
    v16 t = _mm256_mulhi_epi16(a, vset1(19412));
    t = _mm256_mulhrs_epi16(t, vset1(32)); /* rounding shift right by 10 */
    return _mm256_sub_epi16(a, _mm256_mullo_epi16(t, vset1(Q)));
}
/*
 * kpqc_ntruplus_crepmod3_coeff's result by a shorter route: the centred
 * representative v (|v| <= (q-1)/2) in two compare-and-adds, then
 * v - 3 round(v/3), the rounding a rounded high product with 2^15/3 whose
 * error (below 0.02 for |v| <= 1728) cannot move v/3, a multiple of 1/3,
 * across a half.
 */
static inline v16 vmod3(v16 v) {
    const v16 q = vset1(NTRUPLUS_Q), hi = vset1(NTRUPLUS_Q / 2), lo = vset1(-(NTRUPLUS_Q / 2));
    const v16 third = vset1(10923); /* round(2^15 / 3) */
    v = _mm256_sub_epi16(v, _mm256_and_si256(_mm256_cmpgt_epi16(v, hi), q));
    v = _mm256_add_epi16(v, _mm256_and_si256(_mm256_cmpgt_epi16(lo, v), q));
    const v16 t = _mm256_mulhrs_epi16(v, third);
    return _mm256_sub_epi16(v, _mm256_add_epi16(_mm256_slli_epi16(t, 1), t));
}
static inline v16 vload(const int16_t *p) { return _mm256_loadu_si256((const __m256i *)p); }
static inline void vstore(int16_t *p, v16 x) { _mm256_storeu_si256((__m256i *)p, x); }

static const int16_t *tail_table(unsigned n, int inverse) {
    switch (n) {
    case 768: return inverse ? kpqc_ntruplus_avx_tail_inv768 : kpqc_ntruplus_avx_tail_fwd768;
    case 864: return inverse ? kpqc_ntruplus_avx_tail_inv864 : kpqc_ntruplus_avx_tail_fwd864;
    default: return inverse ? kpqc_ntruplus_avx_tail_inv1152 : kpqc_ntruplus_avx_tail_fwd1152;
    }
}
static const int16_t *tail_qinv_table(unsigned n, int inverse) {
    switch (n) {
    case 768: return inverse ? kpqc_ntruplus_avx_tail_inv768_qinv : kpqc_ntruplus_avx_tail_fwd768_qinv;
    case 864: return inverse ? kpqc_ntruplus_avx_tail_inv864_qinv : kpqc_ntruplus_avx_tail_fwd864_qinv;
    default: return inverse ? kpqc_ntruplus_avx_tail_inv1152_qinv : kpqc_ntruplus_avx_tail_fwd1152_qinv;
    }
}
static const int16_t *base_table(unsigned n) {
    switch (n) {
    case 768: return kpqc_ntruplus_avx_base768;
    case 864: return kpqc_ntruplus_avx_base864;
    default: return kpqc_ntruplus_avx_base1152;
    }
}

/* ---------------------------------------------------------------- blocks of 48 (n = 864) */
/*
 * A block of 48 coefficients is 16 base rings of 3.  deint3 turns its three
 * vectors into coefficient-major ones, x[u] lane t = coefficient 3t + u,
 * without leaving the registers: each 128-bit lane of w0, w1, w2 below
 * holds 24 consecutive coefficients (8 rings), position p of w_j
 * coefficient 8j + p of them; two word blends per output pick the
 * positions whose coefficient is u mod 3, and a byte shuffle puts them in
 * ring order.  int3 is the exact inverse.
 */
/* The in-lane step: each 128-bit lane of w0, w1, w2 holds 24 consecutive
 * coefficients (8 rings), position p of w_j coefficient 8j + p of them. */
static inline void lanes3(v16 x[3], v16 w0, v16 w1, v16 w2) {
    const v16 s0 = _mm256_setr_epi8(0, 1, 6, 7, 12, 13, 2, 3, 8, 9, 14, 15, 4, 5, 10, 11,
                                    0, 1, 6, 7, 12, 13, 2, 3, 8, 9, 14, 15, 4, 5, 10, 11);
    const v16 s1 = _mm256_setr_epi8(2, 3, 8, 9, 14, 15, 4, 5, 10, 11, 0, 1, 6, 7, 12, 13,
                                    2, 3, 8, 9, 14, 15, 4, 5, 10, 11, 0, 1, 6, 7, 12, 13);
    const v16 s2 = _mm256_setr_epi8(4, 5, 10, 11, 0, 1, 6, 7, 12, 13, 2, 3, 8, 9, 14, 15,
                                    4, 5, 10, 11, 0, 1, 6, 7, 12, 13, 2, 3, 8, 9, 14, 15);
    x[0] = _mm256_shuffle_epi8(_mm256_blend_epi16(_mm256_blend_epi16(w0, w1, 0x92), w2, 0x24), s0);
    x[1] = _mm256_shuffle_epi8(_mm256_blend_epi16(_mm256_blend_epi16(w0, w1, 0x24), w2, 0x49), s1);
    x[2] = _mm256_shuffle_epi8(_mm256_blend_epi16(_mm256_blend_epi16(w0, w1, 0x49), w2, 0x92), s2);
}
static inline void unlanes3(v16 w[3], const v16 x[3]) {
    const v16 s0 = _mm256_setr_epi8(0, 1, 6, 7, 12, 13, 2, 3, 8, 9, 14, 15, 4, 5, 10, 11,
                                    0, 1, 6, 7, 12, 13, 2, 3, 8, 9, 14, 15, 4, 5, 10, 11);
    const v16 s1 = _mm256_setr_epi8(10, 11, 0, 1, 6, 7, 12, 13, 2, 3, 8, 9, 14, 15, 4, 5,
                                    10, 11, 0, 1, 6, 7, 12, 13, 2, 3, 8, 9, 14, 15, 4, 5);
    const v16 s2 = _mm256_setr_epi8(4, 5, 10, 11, 0, 1, 6, 7, 12, 13, 2, 3, 8, 9, 14, 15,
                                    4, 5, 10, 11, 0, 1, 6, 7, 12, 13, 2, 3, 8, 9, 14, 15);
    const v16 y0 = _mm256_shuffle_epi8(x[0], s0), y1 = _mm256_shuffle_epi8(x[1], s1),
              y2 = _mm256_shuffle_epi8(x[2], s2);
    w[0] = _mm256_blend_epi16(_mm256_blend_epi16(y0, y1, 0x92), y2, 0x24);
    w[1] = _mm256_blend_epi16(_mm256_blend_epi16(y0, y1, 0x24), y2, 0x49);
    w[2] = _mm256_blend_epi16(_mm256_blend_epi16(y0, y1, 0x49), y2, 0x92);
}

#if defined(__AVX512BW__) && defined(__AVX512VL__)
/* Two word permutations per output: from the first two vectors, then the
 * rest from the third (index i + 16 picks word i of the second source). */
static inline v16 pick3(v16 s0, v16 s1, v16 s2, v16 from01, v16 then2) {
    return _mm256_permutex2var_epi16(_mm256_permutex2var_epi16(s0, from01, s1), then2, s2);
}
static inline void deint3(v16 x[3], v16 v0, v16 v1, v16 v2) {
    const v16 a0 = _mm256_setr_epi16(0, 3, 6, 9, 12, 15, 18, 21, 24, 27, 30, 0, 0, 0, 0, 0);
    const v16 b0 = _mm256_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 17, 20, 23, 26, 29);
    const v16 a1 = _mm256_setr_epi16(1, 4, 7, 10, 13, 16, 19, 22, 25, 28, 31, 0, 0, 0, 0, 0);
    const v16 b1 = _mm256_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 18, 21, 24, 27, 30);
    const v16 a2 = _mm256_setr_epi16(2, 5, 8, 11, 14, 17, 20, 23, 26, 29, 0, 0, 0, 0, 0, 0);
    const v16 b2 = _mm256_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 19, 22, 25, 28, 31);
    x[0] = pick3(v0, v1, v2, a0, b0);
    x[1] = pick3(v0, v1, v2, a1, b1);
    x[2] = pick3(v0, v1, v2, a2, b2);
}
static inline void int3(v16 *v0, v16 *v1, v16 *v2, const v16 x[3]) {
    const v16 a0 = _mm256_setr_epi16(0, 16, 0, 1, 17, 0, 2, 18, 0, 3, 19, 0, 4, 20, 0, 5);
    const v16 b0 = _mm256_setr_epi16(0, 1, 16, 3, 4, 17, 6, 7, 18, 9, 10, 19, 12, 13, 20, 15);
    const v16 a1 = _mm256_setr_epi16(21, 0, 6, 22, 0, 7, 23, 0, 8, 24, 0, 9, 25, 0, 10, 26);
    const v16 b1 = _mm256_setr_epi16(0, 21, 2, 3, 22, 5, 6, 23, 8, 9, 24, 11, 12, 25, 14, 15);
    const v16 a2 = _mm256_setr_epi16(0, 11, 27, 0, 12, 28, 0, 13, 29, 0, 14, 30, 0, 15, 31, 0);
    const v16 b2 = _mm256_setr_epi16(26, 1, 2, 27, 4, 5, 28, 7, 8, 29, 10, 11, 30, 13, 14, 31);
    *v0 = pick3(x[0], x[1], x[2], a0, b0);
    *v1 = pick3(x[0], x[1], x[2], a1, b1);
    *v2 = pick3(x[0], x[1], x[2], a2, b2);
}
#else
static inline void deint3(v16 x[3], v16 v0, v16 v1, v16 v2) {
    lanes3(x, _mm256_permute2x128_si256(v0, v1, 0x30),  /* c0..7   | c24..31 */
           _mm256_permute2x128_si256(v0, v2, 0x21),     /* c8..15  | c32..39 */
           _mm256_permute2x128_si256(v1, v2, 0x30));    /* c16..23 | c40..47 */
}
static inline void int3(v16 *v0, v16 *v1, v16 *v2, const v16 x[3]) {
    v16 w[3];
    unlanes3(w, x);
    *v0 = _mm256_permute2x128_si256(w[0], w[1], 0x20);
    *v1 = _mm256_permute2x128_si256(w[2], w[0], 0x30);
    *v2 = _mm256_permute2x128_si256(w[1], w[2], 0x31);
}
#endif
static inline void load_block3(v16 x[3], const int16_t *a) {
    deint3(x, vload(a), vload(a + 16), vload(a + 32));
}
static inline void store_block3(int16_t *a, const v16 x[3]) {
    v16 v0, v1, v2;
    int3(&v0, &v1, &v2, x);
    vstore(a, v0);
    vstore(a + 16, v1);
    vstore(a + 32, v2);
}

/*
 * Two blocks A (at a) and B (at a + 48) straight into the layout of the
 * first radix-2 layer below: p[u] = rings 0..7 of A | rings 0..7 of B,
 * q[u] = rings 8..15 of A | of B (coefficient u of each ring), and back.
 */
static inline void load_pair3(v16 p[3], v16 q[3], const int16_t *a) {
    const v16 a0 = vload(a), a1 = vload(a + 16), a2 = vload(a + 32);
    const v16 b0 = vload(a + 48), b1 = vload(a + 64), b2 = vload(a + 80);
    lanes3(p, _mm256_permute2x128_si256(a0, b0, 0x20), _mm256_permute2x128_si256(a0, b0, 0x31),
           _mm256_permute2x128_si256(a1, b1, 0x20));
    lanes3(q, _mm256_permute2x128_si256(a1, b1, 0x31), _mm256_permute2x128_si256(a2, b2, 0x20),
           _mm256_permute2x128_si256(a2, b2, 0x31));
}
static inline void store_pair3(int16_t *a, const v16 p[3], const v16 q[3]) {
    v16 wp[3], wq[3];
    unlanes3(wp, p);
    unlanes3(wq, q);
    vstore(a, _mm256_permute2x128_si256(wp[0], wp[1], 0x20));
    vstore(a + 16, _mm256_permute2x128_si256(wp[2], wq[0], 0x20));
    vstore(a + 32, _mm256_permute2x128_si256(wq[1], wq[2], 0x20));
    vstore(a + 48, _mm256_permute2x128_si256(wp[0], wp[1], 0x31));
    vstore(a + 64, _mm256_permute2x128_si256(wp[2], wq[0], 0x31));
    vstore(a + 80, _mm256_permute2x128_si256(wq[1], wq[2], 0x31));
}

/*
 * The radix-2 layers of strides 24, 12, 6, 3 are strides 8, 4, 2, 1 among
 * the rings of a block, i.e. among the lanes of its coefficient-major
 * vectors.  Two blocks A, B are worked at once; before each layer the
 * pair (p, q) is regrouped so that lane l of p meets its partner in lane l
 * of q: load_pair3 gives the layout of the first layer (ring stride 8),
 * 2x2 transpositions of 64-bit, 32-bit, then 16-bit units (each its own
 * inverse) those of the next ones; after the last, p holds the even rings
 * and q the odd ones, one word interleave from the first layout (and two
 * packs back).  The twiddle table follows the lanes of p
 * (gen_tables.py): four vectors per pair of blocks.
 */
static inline void swap64(v16 *p, v16 *q) {
    v16 t = _mm256_unpacklo_epi64(*p, *q);
    *q = _mm256_unpackhi_epi64(*p, *q);
    *p = t;
}
#if defined(__AVX512BW__) && defined(__AVX512VL__)
static inline void swap32(v16 *p, v16 *q) {
    const v16 lo = _mm256_setr_epi16(0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25, 12, 13, 28, 29);
    const v16 hi = _mm256_setr_epi16(2, 3, 18, 19, 6, 7, 22, 23, 10, 11, 26, 27, 14, 15, 30, 31);
    v16 t = _mm256_permutex2var_epi16(*p, lo, *q);
    *q = _mm256_permutex2var_epi16(*p, hi, *q);
    *p = t;
}
static inline void swap16(v16 *p, v16 *q) {
    const v16 lo = _mm256_setr_epi16(0, 16, 2, 18, 4, 20, 6, 22, 8, 24, 10, 26, 12, 28, 14, 30);
    const v16 hi = _mm256_setr_epi16(1, 17, 3, 19, 5, 21, 7, 23, 9, 25, 11, 27, 13, 29, 15, 31);
    v16 t = _mm256_permutex2var_epi16(*p, lo, *q);
    *q = _mm256_permutex2var_epi16(*p, hi, *q);
    *p = t;
}
#else
static inline void swap32(v16 *p, v16 *q) {
    v16 t = _mm256_blend_epi32(*p, _mm256_slli_epi64(*q, 32), 0xAA);
    *q = _mm256_blend_epi32(_mm256_srli_epi64(*p, 32), *q, 0xAA);
    *p = t;
}
static inline void swap16(v16 *p, v16 *q) {
    v16 t = _mm256_blend_epi16(*p, _mm256_slli_epi32(*q, 16), 0xAA);
    *q = _mm256_blend_epi16(_mm256_srli_epi32(*p, 16), *q, 0xAA);
    *p = t;
}
#endif
/* From the layout of layer L + 1 to that of layer L + 2 (L = 0, 1, 2), or back. */
static inline void regroup(unsigned layer, v16 *p, v16 *q) {
    switch (layer) {
    case 0: swap64(p, q); break;
    case 1: swap32(p, q); break;
    default: swap16(p, q); break;
    }
}

/* Forward: the four layers, then the coefficients reduced.  Inverse: the
 * same undone with the inverse twiddles. */
static inline __attribute__((always_inline)) void tail864(int16_t *a, const int inverse) {
    const int16_t *tw = tail_table(864, inverse), *tq = tail_qinv_table(864, inverse);
    const v16 low = _mm256_set1_epi32(0xFFFF);
    for (unsigned i = 0; i < 864; i += 96, tw += 64, tq += 64) {
        v16 p[3], q[3], w[4], wq[4];
        for (unsigned L = 0; L < 4; L++) {
            w[L] = vload(tw + 16 * L);
            wq[L] = vload(tq + 16 * L);
        }
        load_pair3(p, q, a + i);
        for (unsigned u = 0; u < 3; u++) {
            if (!inverse) {
                for (unsigned L = 0; L < 4; L++) {
                    if (L) regroup(L - 1, &p[u], &q[u]);
                    v16 m = vmul(q[u], w[L], wq[L]);
                    q[u] = _mm256_sub_epi16(p[u], m);
                    p[u] = _mm256_add_epi16(p[u], m);
                }
                v16 even = p[u], odd = q[u];
                p[u] = vbarrett(_mm256_unpacklo_epi16(even, odd));
                q[u] = vbarrett(_mm256_unpackhi_epi16(even, odd));
            } else {
                v16 x = p[u], y = q[u];
                p[u] = _mm256_packus_epi32(_mm256_and_si256(x, low), _mm256_and_si256(y, low));
                q[u] = _mm256_packus_epi32(_mm256_srli_epi32(x, 16), _mm256_srli_epi32(y, 16));
                for (unsigned L = 4; L-- > 0;) {
                    x = p[u], y = q[u];
                    p[u] = _mm256_add_epi16(x, y);
                    if (L % 2 == 0) p[u] = vbarrett(p[u]); /* strides 6 and 24 */
                    q[u] = vmul(_mm256_sub_epi16(x, y), w[L], wq[L]);
                    if (L) regroup(L - 1, &p[u], &q[u]);
                }
            }
        }
        store_pair3(a + i, p, q);
    }
}
static void tail_fwd864(int16_t *a) { tail864(a, 0); }
static void tail_inv864(int16_t *a) { tail864(a, 1); }

/* ---------------------------------------------------------------- butterflies */
/* Loops over the vectors of a block held in registers: unrolled, so that
 * the block stays in registers. */
#if defined(__clang__)
#define UNROLLED _Pragma("clang loop unroll(full)")
#else
#define UNROLLED _Pragma("GCC unroll 16")
#endif

static inline v16 vadd(v16 a, v16 b) { return _mm256_add_epi16(a, b); }
static inline v16 vsub(v16 a, v16 b) { return _mm256_sub_epi16(a, b); }

/* Radix-2 and radix-3 butterflies, forward and inverse; om is the cube
 * root of unity.  The inverse radix-2 sum is reduced every second layer
 * (below 4q), as in the portable transform. */
static inline void fwd2(v16 *x, v16 *y, vtw w) {
    const v16 t = vmult(*y, w);
    *y = vsub(*x, t);
    *x = vadd(*x, t);
}
static inline void fwd3(v16 *x0, v16 *x1, v16 *x2, vtw w1, vtw w2, vtw om) {
    const v16 x = *x0, t1 = vmult(*x1, w1), t2 = vmult(*x2, w2);
    const v16 t3 = vmult(vsub(t1, t2), om);
    *x0 = vadd(x, vadd(t1, t2));
    *x1 = vadd(vsub(x, t2), t3);
    *x2 = vsub(vsub(x, t1), t3);
}
/* reduce: the sum Barrett-reduced (every second radix-2 layer) */
static inline void inv2(v16 *x, v16 *y, vtw w, int reduce) {
    const v16 u = *x, v = *y, sum = vadd(u, v);
    *x = reduce ? vbarrett(sum) : sum;
    *y = vmult(vsub(u, v), w);
}
static inline void inv3(v16 *y0, v16 *y1, v16 *y2, vtw w1, vtw w2, vtw om) {
    const v16 a = *y0, b = *y1, c = *y2, d = vmult(vsub(b, c), om);
    *y0 = vbarrett(vadd(a, vadd(b, c)));
    *y1 = vmult(vsub(vsub(a, b), d), w1);
    *y2 = vmult(vadd(vsub(a, c), d), w2);
}

/* ---------------------------------------------------------------- strides 8 and 4 (d = 4) */
/* Two 16-coefficient blocks A, B (32 consecutive coefficients) and their 32
 * twiddles (tq: times q^-1). */
static inline void tail_fwd4(v16 *A, v16 *B, const int16_t *tw, const int16_t *tq) {
    v16 t0 = _mm256_permute2x128_si256(*A, *B, 0x20); /* A0..7  | B0..7  */
    v16 t1 = _mm256_permute2x128_si256(*A, *B, 0x31); /* A8..15 | B8..15 */
    v16 m = vmult(t1, tw_load(tw, tq));
    v16 u = vadd(t0, m), w = vsub(t0, m);
    v16 u0 = _mm256_unpacklo_epi64(u, w); /* A0..3 A8..11 | B0..3 B8..11 */
    v16 u1 = _mm256_unpackhi_epi64(u, w); /* A4..7 A12..15 | B4..7 B12..15 */
    m = vmult(u1, tw_load(tw + 16, tq + 16));
    u = vbarrett(vadd(u0, m));
    w = vbarrett(vsub(u0, m));
    t0 = _mm256_unpacklo_epi64(u, w); /* A0..7 | B0..7 */
    t1 = _mm256_unpackhi_epi64(u, w); /* A8..15 | B8..15 */
    *A = _mm256_permute2x128_si256(t0, t1, 0x20);
    *B = _mm256_permute2x128_si256(t0, t1, 0x31);
}

static inline void tail_inv4(v16 *A, v16 *B, const int16_t *tw, const int16_t *tq) {
    v16 t0 = _mm256_permute2x128_si256(*A, *B, 0x20);
    v16 t1 = _mm256_permute2x128_si256(*A, *B, 0x31);
    v16 u0 = _mm256_unpacklo_epi64(t0, t1); /* A0..3 A8..11 | ... */
    v16 u1 = _mm256_unpackhi_epi64(t0, t1); /* A4..7 A12..15 | ... */
    v16 x = vadd(u0, u1); /* < 2q: reduced every second layer */
    v16 y = vmult(vsub(u0, u1), tw_load(tw + 16, tq + 16));
    t0 = _mm256_unpacklo_epi64(x, y); /* A0..7 | B0..7 */
    t1 = _mm256_unpackhi_epi64(x, y); /* A8..15 | B8..15 */
    x = vbarrett(vadd(t0, t1));
    y = vmult(vsub(t0, t1), tw_load(tw, tq));
    *A = _mm256_permute2x128_si256(x, y, 0x20);
    *B = _mm256_permute2x128_si256(x, y, 0x31);
}

/* ---------------------------------------------------------------- transforms */
/*
 * Layers are worked together where their data fits in registers:
 *  - forward, the split by the sixth root (stride n/2) and the first
 *    radix-3 layer (stride n/6): the six coefficients i + j n/6 of a column;
 *  - n = 768, 1152: the radix-2 layers of strides r2_first .. 16 and the
 *    tail's 8 and 4 on blocks of 2 r2_first coefficients (8 or 4 vectors).
 * Twiddle indices as the portable transform counts them: 2 for the layer
 * after the split, two per radix-3 block, one per radix-2 block, so the
 * g-th block of a layer takes the layer's first index plus g.  Fusing
 * more (a 12-vector block for 1152 with its second radix-3 layer, the
 * inverse radix-3 layer with the inverse split) measured slower: the
 * transform is bound by its multiplications, not by loads and stores, and
 * 16 registers spill.  The shape arguments are constants at each call
 * (ntt_v256, invntt_v256), so that each parameter set gets loops of known
 * length, unrolled.
 */
static inline __attribute__((always_inline)) void split_radix3_fwd(const kpqc_ntruplus_params *p,
                                                                   int16_t *a, const int16_t *src,
                                                                   const unsigned n) {
    const unsigned s = n / 6;
    const int16_t *z = p->zetas;
    /* twiddles read before the loop: the stores to a might alias them */
    const vtw zt = tw_set1(p->zeta1), om = tw_set1(NTRUPLUS_OMEGA);
    const vtw w0 = tw_set1(z[2]), w1 = tw_set1(z[3]), w2 = tw_set1(z[4]), w3 = tw_set1(z[5]);
    for (unsigned i = 0; i < s; i += 16) {
        v16 x[6];
        for (unsigned j = 0; j < 3; j++) {
            const v16 u = vload(src + i + j * s), v = vload(src + i + (j + 3) * s);
            const v16 t = vmult(v, zt);
            x[j] = vadd(u, t);
            x[j + 3] = vsub(vadd(u, v), t);
        }
        fwd3(&x[0], &x[1], &x[2], w0, w1, om);
        fwd3(&x[3], &x[4], &x[5], w2, w3, om);
        for (unsigned j = 0; j < 6; j++) vstore(a + i + j * s, x[j]);
    }
}

/* The inverse split (stride n/2), after the radix-3 layers; with mod3, its
 * results mod+-3 (as crepmod3) before they are stored. */
static inline __attribute__((always_inline)) void split_inv(const kpqc_ntruplus_params *p, int16_t *a,
                                                            const unsigned n, const int mod3) {
    const unsigned h = n / 2;
    const v16 c0 = vset1(p->c0), sh = vset1(p->s_half), sc = vset1(p->s);
    for (unsigned i = 0; i < h; i += 16) {
        const v16 u = vload(a + i), v = vload(a + i + h), b = vmulz(vsub(u, v), c0);
        v16 lo = vmulz(vsub(vadd(u, v), b), sh), hi = vmulz(b, sc);
        if (mod3) lo = vmod3(lo), hi = vmod3(hi);
        vstore(a + i, lo);
        vstore(a + i + h, hi);
    }
}

/* A radix-3 layer of stride s (not the first), forward or inverse; z: its
 * twiddles (inverse ones for the inverse). */
static inline __attribute__((always_inline)) void radix3_layer(int16_t *a, const unsigned n, const unsigned s,
                                                               const int16_t *z, const int inverse) {
    const vtw om = tw_set1(NTRUPLUS_OMEGA);
    for (unsigned start = 0; start < n; start += 3 * s, z += 2) {
        const vtw w1 = tw_set1(z[0]), w2 = tw_set1(z[1]);
        for (unsigned i = start; i < start + s; i += 16) {
            v16 x0 = vload(a + i), x1 = vload(a + i + s), x2 = vload(a + i + 2 * s);
            if (inverse)
                inv3(&x0, &x1, &x2, w1, w2, om);
            else
                fwd3(&x0, &x1, &x2, w1, w2, om);
            vstore(a + i, x0);
            vstore(a + i + s, x1);
            vstore(a + i + 2 * s, x2);
        }
    }
}

/* The first twiddle index of the radix-2 layer of stride s, k that of the
 * layer of stride s0: one per block of each layer in between. */
static inline unsigned r2_index(unsigned n, unsigned s0, unsigned s, unsigned k) {
    for (unsigned t = s0; t > s; t /= 2) k += n / (2 * t);
    return k;
}

/* d = 4: radix-2 strides s0 .. 16, then 8 and 4, on the 2 s0 / 16 vectors
 * x of block blk (of 2 s0 coefficients); the inverse in the opposite
 * order.  k: the first twiddle index of the layer of stride s0; z: the
 * twiddles (inverse ones for the inverse). */
static inline __attribute__((always_inline)) void radix2_block(v16 *x, const unsigned n, const unsigned s0,
                                                               const int16_t *z, unsigned k, unsigned blk,
                                                               const int inverse) {
    const int16_t *tw = tail_table(n, inverse) + blk * 2 * s0;
    const int16_t *tq = tail_qinv_table(n, inverse) + blk * 2 * s0;
    const unsigned nv = 2 * s0 / 16, layers = s0 == 64 ? 3 : 2;
    if (inverse) {
        UNROLLED
        for (unsigned v = 0; v < nv; v += 2) tail_inv4(&x[v], &x[v + 1], tw + 16 * v, tq + 16 * v);
    }
    UNROLLED
    for (unsigned L = 0; L < layers; L++) {
        const unsigned s = inverse ? 16u << L : s0 >> L;
        const unsigned span = s / 16, kl = r2_index(n, s0, s, k);
        UNROLLED
        for (unsigned g = 0; g < nv / (2 * span); g++) {
            const vtw w = tw_set1(z[kl + blk * (s0 / s) + g]);
            UNROLLED
            for (unsigned v = 0; v < span; v++) {
                v16 *lo = &x[2 * span * g + v], *hi = &x[2 * span * g + span + v];
                if (inverse)
                    inv2(lo, hi, w, s == 32); /* strides 8, 32 */
                else
                    fwd2(lo, hi, w);
            }
        }
    }
    if (!inverse) {
        UNROLLED
        for (unsigned v = 0; v < nv; v += 2) tail_fwd4(&x[v], &x[v + 1], tw + 16 * v, tq + 16 * v);
    }
}

/* d = 4: everything after the radix-3 layers (before them, inverse) on
 * blocks of 2 r2_first coefficients held in registers (128 for n = 768, 64
 * for n = 1152). */
static inline __attribute__((always_inline)) void radix2_blocks(const kpqc_ntruplus_params *p, int16_t *a,
                                                                const unsigned n, const unsigned r3_layers,
                                                                const unsigned r2_first, const int inverse) {
    const unsigned nv = 2 * r2_first / 16, k = r3_layers == 2 ? 18 : 6;
    for (unsigned blk = 0; blk < n / (16 * nv); blk++) {
        int16_t *b = a + blk * 16 * nv;
        v16 x[8];
        UNROLLED
        for (unsigned v = 0; v < nv; v++) x[v] = vload(b + 16 * v);
        radix2_block(x, n, r2_first, inverse ? p->zinv : p->zetas, k, blk, inverse);
        UNROLLED
        for (unsigned v = 0; v < nv; v++) vstore(b + 16 * v, x[v]);
    }
}

/* a = NTT(src) (src may be a) */
static inline __attribute__((always_inline)) void ntt_core(const kpqc_ntruplus_params *p, int16_t *a,
                                                           const int16_t *src, const unsigned n,
                                                           const unsigned r3_layers, const unsigned r2_first) {
    split_radix3_fwd(p, a, src, n);
    if (r3_layers == 2) radix3_layer(a, n, n / 18, p->zetas + 6, 0);
    /* unreduced so far, within the bounds of the portable transform */
    if (n != 864)
        radix2_blocks(p, a, n, r3_layers, r2_first, 0);
    else
        tail_fwd864(a);
}

static void ntt_v256(const kpqc_ntruplus_params *p, int16_t *a) {
    switch (p->n) {
    case 768: ntt_core(p, a, a, 768, 1, 64); break;
    case 864: ntt_core(p, a, a, 864, 2, 24); break;
    default: ntt_core(p, a, a, 1152, 2, 32); break;
    }
}

static inline __attribute__((always_inline)) void invntt_core(const kpqc_ntruplus_params *p,
                                                              int16_t *a, const unsigned n,
                                                              const unsigned r3_layers,
                                                              const unsigned r2_first, const int mod3) {
    /* the same indices as the forward transform's */
    if (n != 864)
        radix2_blocks(p, a, n, r3_layers, r2_first, 1);
    else
        tail_inv864(a);
    if (r3_layers == 2) radix3_layer(a, n, n / 18, p->zinv + 6, 1);
    radix3_layer(a, n, n / 6, p->zinv + 2, 1);
    split_inv(p, a, n, mod3);
}

static void invntt_v256(const kpqc_ntruplus_params *p, int16_t *a) {
    switch (p->n) {
    case 768: invntt_core(p, a, 768, 1, 64, 0); break;
    case 864: invntt_core(p, a, 864, 2, 24, 0); break;
    default: invntt_core(p, a, 1152, 2, 32, 0); break;
    }
}

/* Decryption's middle: m mod+-3 taken in the inverse transform's last pass
 * and t's forward transform reading m (no passes of their own for the
 * reduction and the copy). */
static void invntt_mod3_ntt_v256(const kpqc_ntruplus_params *p, int16_t *m, int16_t *t) {
    switch (p->n) {
    case 768: invntt_core(p, m, 768, 1, 64, 1), ntt_core(p, t, m, 768, 1, 64); break;
    case 864: invntt_core(p, m, 864, 2, 24, 1), ntt_core(p, t, m, 864, 2, 24); break;
    default: invntt_core(p, m, 1152, 2, 32, 1), ntt_core(p, t, m, 1152, 2, 32); break;
    }
}
/* ---------------------------------------------------------------- products */
/*
 * 16 rings Z_q[X]/(X^d - z_i) at once, coefficient j of all of them in
 * x[j]: r = x y, with y times z formed once for the wrapped terms.  Each
 * output coefficient is a sum of d products, reduced by Montgomery's
 * method; the factor R^-1 this leaves a last product with R^2 removes.
 *
 * d = 3: each product reduced on its own (|sum| < 3q).
 */
static inline void mul16_d3(v16 *r, const v16 *x, const v16 *y, v16 z) {
    const v16 zq = _mm256_mullo_epi16(z, vset1((int16_t)NTRUPLUS_QINV));
    const v16 rsq = vset1(NTRUPLUS_RSQ);
    v16 yz[3], yq[3], yzq[3];
    for (unsigned j = 0; j < 3; j++) {
        yq[j] = _mm256_mullo_epi16(y[j], vset1((int16_t)NTRUPLUS_QINV));
        if (j) {
            yz[j] = vmul(y[j], z, zq);
            yzq[j] = _mm256_mullo_epi16(yz[j], vset1((int16_t)NTRUPLUS_QINV));
        }
    }
    for (unsigned k = 0; k < 3; k++) {
        v16 acc = _mm256_setzero_si256();
        for (unsigned i = 0; i < 3; i++) {
            /* x_i times y_(k-i), wrapping through X^3 = z */
            unsigned j = (k + 3 - i) % 3;
            acc = _mm256_add_epi16(acc, i <= k ? vmul(x[i], y[j], yq[j]) : vmul(x[i], yz[j], yzq[j]));
        }
        r[k] = vmulz(acc, rsq);
    }
}

/* The Montgomery reduction of 32-bit sums t to words: (t - m q) / 2^16
 * with m = t q^-1 mod 2^16, exact since t = m q mod 2^16: the words of
 * lo, then of hi, in each 128-bit lane. */
static inline v16 mont32(v16 lo, v16 hi) {
    const v16 low = _mm256_set1_epi32(0xFFFF);
    const v16 t0 = _mm256_packus_epi32(_mm256_and_si256(lo, low), _mm256_and_si256(hi, low));
    const v16 t1 = _mm256_packs_epi32(_mm256_srai_epi32(lo, 16), _mm256_srai_epi32(hi, 16));
    const v16 m = _mm256_mullo_epi16(t0, vset1((int16_t)NTRUPLUS_QINV));
    return _mm256_sub_epi16(t1, _mm256_mulhi_epi16(m, vset1(Q)));
}

/* Words a0 b1 a2 b3 ...: the low word of each dword from a, the high one from b. */
static inline v16 lo_hi(v16 a, v16 b) { return _mm256_blend_epi16(a, b, 0xAA); }
/* The two words of each dword swapped. */
static inline v16 swap_words(v16 a) {
    return _mm256_shuffle_epi8(a, _mm256_setr_epi8(2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13,
                                                   2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13));
}
/* In each 128-bit lane, dwords 0 and 2 (odd: 1 and 3) of a, then of b. */
static inline v16 even_dwords(v16 a, v16 b) {
    return _mm256_castps_si256(_mm256_shuffle_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b), 0x88));
}
static inline v16 odd_dwords(v16 a, v16 b) {
    return _mm256_castps_si256(_mm256_shuffle_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b), 0xDD));
}

/*
 * d = 4, on 64 coefficients in their natural order (v, w and o four
 * vectors each), without a transposition.  A ring's coefficients 0, 1 are
 * one dword and 2, 3 the next, so the even dwords pair x_0 with x_1 and
 * the odd ones x_2 with x_3 (rings 0, 1, 4, 5 | 2, 3, 6, 7 from v0, v1;
 * 8, 9, 12, 13 | 10, 11, 14, 15 from v2, v3).  Output k's sum is taken
 * exactly in 32 bits by two word-pair multiply-adds,
 *   (x_0, x_1).(y_k, y_(k-1)) + (x_2, x_3).(y_(k-2), y_(k-3)),
 * y_(-j) = y_(4-j) z, and reduced once: two multiplications a product
 * instead of three with a reduction each.  |x| < 2q and |y| < q keep the
 * sums below 8 q^2 < 2^27.  The pairs are word blends and swaps of the
 * dwords (y_0, y_1), (y_2, y_3) and their multiples of z.  The
 * reduction's packs leave rings 0, 1, 4, 5, 8, 9, 12, 13 | 2, 3, 6, 7,
 * 10, 11, 14, 15, the twiddle table's lane order; word and dword
 * interleaves restore the natural one.
 */
static inline void mul_natural4(v16 o[4], const v16 v[4], const v16 w[4], v16 z) {
    const v16 rsq = vset1(NTRUPLUS_RSQ);
    v16 s[4][2]; /* output k's 32-bit sums: rings of v0, v1, then of v2, v3 */
    for (unsigned h = 0; h < 2; h++) {
        const v16 xe = even_dwords(v[2 * h], v[2 * h + 1]), xo = odd_dwords(v[2 * h], v[2 * h + 1]);
        const v16 y01 = even_dwords(w[2 * h], w[2 * h + 1]), y23 = odd_dwords(w[2 * h], w[2 * h + 1]);
        const v16 zz = h ? _mm256_unpackhi_epi16(z, z) : _mm256_unpacklo_epi16(z, z);
        const v16 zzq = _mm256_mullo_epi16(zz, vset1((int16_t)NTRUPLUS_QINV));
        const v16 y01z = vmul(y01, zz, zzq), y23z = vmul(y23, zz, zzq);
        const v16 y0_y3z = lo_hi(y01, y23z), y2z_y1z = lo_hi(y23z, y01z), y1_y0 = swap_words(y01);
        const v16 y3z_y2z = swap_words(y23z), y2_y1 = lo_hi(y23, y01), y3_y2 = swap_words(y23);
        s[0][h] = _mm256_add_epi32(_mm256_madd_epi16(xe, y0_y3z), _mm256_madd_epi16(xo, y2z_y1z));
        s[1][h] = _mm256_add_epi32(_mm256_madd_epi16(xe, y1_y0), _mm256_madd_epi16(xo, y3z_y2z));
        s[2][h] = _mm256_add_epi32(_mm256_madd_epi16(xe, y2_y1), _mm256_madd_epi16(xo, y0_y3z));
        s[3][h] = _mm256_add_epi32(_mm256_madd_epi16(xe, y3_y2), _mm256_madd_epi16(xo, y1_y0));
    }
    v16 r[4];
    for (unsigned k = 0; k < 4; k++) r[k] = vmulz(mont32(s[k][0], s[k][1]), rsq);
    const v16 a = _mm256_unpacklo_epi16(r[0], r[1]), b = _mm256_unpackhi_epi16(r[0], r[1]);
    const v16 c = _mm256_unpacklo_epi16(r[2], r[3]), d = _mm256_unpackhi_epi16(r[2], r[3]);
    o[0] = _mm256_unpacklo_epi32(a, c);
    o[1] = _mm256_unpackhi_epi32(a, c);
    o[2] = _mm256_unpacklo_epi32(b, d);
    o[3] = _mm256_unpackhi_epi32(b, d);
}

/* d = 4: 64 coefficients (four vectors) <-> coefficient-major, lane order
 * as the tables */
static inline void coeff_major4(v16 c[4], v16 v0, v16 v1, v16 v2, v16 v3) {
    const v16 sh = _mm256_setr_epi8(0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15,
                                    0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15);
    v0 = _mm256_shuffle_epi8(v0, sh), v1 = _mm256_shuffle_epi8(v1, sh);
    v2 = _mm256_shuffle_epi8(v2, sh), v3 = _mm256_shuffle_epi8(v3, sh);
    v16 l01 = _mm256_unpacklo_epi32(v0, v1), h01 = _mm256_unpackhi_epi32(v0, v1);
    v16 l23 = _mm256_unpacklo_epi32(v2, v3), h23 = _mm256_unpackhi_epi32(v2, v3);
    c[0] = _mm256_unpacklo_epi64(l01, l23);
    c[1] = _mm256_unpackhi_epi64(l01, l23);
    c[2] = _mm256_unpacklo_epi64(h01, h23);
    c[3] = _mm256_unpackhi_epi64(h01, h23);
}
static inline void to_coeff_major(v16 c[4], const int16_t *a) {
    coeff_major4(c, vload(a), vload(a + 16), vload(a + 32), vload(a + 48));
}
static inline void from_coeff_major(int16_t *a, const v16 c[4]) {
    const v16 sh = _mm256_setr_epi8(0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15,
                                    0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15);
    /* the dword transpose is its own inverse */
    v16 l = _mm256_unpacklo_epi32(c[0], c[1]), h = _mm256_unpackhi_epi32(c[0], c[1]);
    v16 l2 = _mm256_unpacklo_epi32(c[2], c[3]), h2 = _mm256_unpackhi_epi32(c[2], c[3]);
    v16 v0 = _mm256_unpacklo_epi64(l, l2), v1 = _mm256_unpackhi_epi64(l, l2);
    v16 v2 = _mm256_unpacklo_epi64(h, h2), v3 = _mm256_unpackhi_epi64(h, h2);
    vstore(a, _mm256_shuffle_epi8(v0, sh));
    vstore(a + 16, _mm256_shuffle_epi8(v1, sh));
    vstore(a + 32, _mm256_shuffle_epi8(v2, sh));
    vstore(a + 48, _mm256_shuffle_epi8(v3, sh));
}

/* 16 base rings of d coefficients <-> d vectors, coefficient j of each in x[j]. */
static inline void load_rings(v16 *x, const int16_t *a, unsigned d) {
    if (d == 4)
        to_coeff_major(x, a);
    else
        load_block3(x, a);
}

/* The rings of a - s (|a - s| < 2q, which the products take:
 * |x y| < 2q^2 < q 2^15). */
static inline void load_rings_diff(v16 *x, const int16_t *a, const int16_t *s, unsigned d) {
    v16 v[4];
    for (unsigned k = 0; k < d; k++) v[k] = vsub(vload(a + 16 * k), vload(s + 16 * k));
    if (d == 4)
        coeff_major4(x, v[0], v[1], v[2], v[3]);
    else
        deint3(x, v[0], v[1], v[2]);
}

static inline void store_rings(int16_t *a, const v16 *x, unsigned d) {
    if (d == 4)
        from_coeff_major(a, x);
    else
        store_block3(a, x);
}

/* r = (a - s) b + c, s and c optional, 16 base rings at a time (d
 * constant at each call). */
static inline __attribute__((always_inline)) void basemul_core(const kpqc_ntruplus_params *p, int16_t *r,
                                                               const int16_t *a, const int16_t *s,
                                                               const int16_t *b, const int16_t *c,
                                                               const unsigned d) {
    const int16_t *bz = base_table(p->n);
    for (unsigned i = 0; i < p->n; i += 16 * d, bz += 16) {
        v16 x[4], y[4], o[4];
        if (d == 4) { /* natural order throughout */
            for (unsigned j = 0; j < 4; j++) {
                x[j] = vload(a + i + 16 * j);
                if (s) x[j] = vsub(x[j], vload(s + i + 16 * j));
                y[j] = vload(b + i + 16 * j);
            }
            mul_natural4(o, x, y, vload(bz));
            for (unsigned j = 0; j < 4; j++) {
                if (c) o[j] = vbarrett(_mm256_add_epi16(o[j], vload(c + i + 16 * j)));
                vstore(r + i + 16 * j, o[j]);
            }
            continue;
        }
        if (s)
            load_rings_diff(x, a + i, s + i, d);
        else
            load_rings(x, a + i, d);
        load_rings(y, b + i, d);
        mul16_d3(o, x, y, vload(bz));
        if (c) {
            load_rings(x, c + i, d);
            for (unsigned j = 0; j < d; j++) o[j] = vbarrett(_mm256_add_epi16(o[j], x[j]));
        }
        store_rings(r + i, o, d);
    }
}

static void basemul_rings(const kpqc_ntruplus_params *p, int16_t *r, const int16_t *a,
                          const int16_t *s, const int16_t *b, const int16_t *c) {
    if (p->d == 4)
        basemul_core(p, r, a, s, b, c, 4);
    else
        basemul_core(p, r, a, s, b, c, 3);
}

static void basemul_v256(const kpqc_ntruplus_params *p, int16_t *r, const int16_t *a,
                         const int16_t *b) {
    basemul_rings(p, r, a, NULL, b, NULL);
}

static void basemul_add_v256(const kpqc_ntruplus_params *p, int16_t *r, const int16_t *a,
                             const int16_t *b, const int16_t *c) {
    basemul_rings(p, r, a, NULL, b, c);
}

/* The subtraction done as the base product loads its first factor: no
 * pass of its own over memory. */
static void sub_mul_v256(const kpqc_ntruplus_params *p, int16_t *r, const int16_t *a,
                         const int16_t *b, const int16_t *c) {
    basemul_rings(p, r, a, b, c, NULL);
}

/* ---------------------------------------------------------------- inversion */
#define mm(x, y) vmulz((x), (y)) /* Montgomery-form product */

/*
 * x^(q-2) = x^-1 (Montgomery form) by an addition chain for
 * q - 2 = 3455 = 16 * 215 + 15, 215 = 16 * 13 + 7: seventeen dependent
 * products instead of the twenty of square-and-multiply.
 */
static v16 vinv_mont(v16 x) {
    v16 x2 = mm(x, x), x3 = mm(x2, x), x6 = mm(x3, x3), x7 = mm(x6, x);
    v16 x15 = mm(mm(x7, x7), x);
    v16 t = mm(x6, x7); /* x^13 */
    for (int i = 0; i < 4; i++) t = mm(t, t);
    t = mm(t, x7); /* x^215 */
    for (int i = 0; i < 4; i++) t = mm(t, t);
    return mm(t, x15);
}

/*
 * x_i = x_i^-1 (Montgomery form) for k vectors, k a multiple of 3, with
 * Montgomery's trick: three chains of prefix products side by side (their
 * products are dependent, three chains keep the multipliers busy), one
 * inversion of the product of everything, then the chains walked back.
 * A zero anywhere spoils every result (the caller checks for zeros).
 */
static void vinv_batch(v16 *x, unsigned k) {
    const unsigned c = k / 3;
    v16 pre[NTRUPLUS_NMAX / 48], inv[3];
    for (unsigned ch = 0; ch < 3; ch++) pre[ch * c] = x[ch * c];
    for (unsigned i = 1; i < c; i++)
        for (unsigned ch = 0; ch < 3; ch++) pre[ch * c + i] = mm(pre[ch * c + i - 1], x[ch * c + i]);
    const v16 e0 = pre[c - 1], e1 = pre[2 * c - 1], e2 = pre[3 * c - 1];
    const v16 e01 = mm(e0, e1);
    const v16 all = vinv_mont(mm(e01, e2));
    const v16 i01 = mm(all, e2);
    inv[0] = mm(i01, e1);
    inv[1] = mm(i01, e0);
    inv[2] = mm(all, e01);
    for (unsigned i = c - 1; i > 0; i--)
        for (unsigned ch = 0; ch < 3; ch++) {
            const unsigned j = ch * c + i;
            const v16 next = mm(inv[ch], x[j]);
            x[j] = mm(inv[ch], pre[j - 1]);
            inv[ch] = next;
        }
    for (unsigned ch = 0; ch < 3; ch++) x[ch * c] = inv[ch];
    kpqc_wipe(pre, sizeof pre);
    kpqc_wipe(inv, sizeof inv);
}

/*
 * 16 base rings at once, same formulas as the portable code: y such that
 * a y = norm, and the norm is returned.  The products are Montgomery
 * products of the coefficients as they are, i.e. the formulas evaluated
 * at a R^-1 in Montgomery form: y / norm comes out as a^-1 R^2, which the
 * caller's last product with R^-1 (baseinv_v256) turns into a^-1.  The
 * twiddle stands second in the products that take it, so that its
 * multiple of q^-1 is formed once.  Sums are left unreduced where every
 * product they enter stays inside Montgomery's range (|a b| < q 2^15:
 * 3q times q/2, 2q times 2q); the norm is reduced for the zero test.
 */
static inline v16 adjugate16(v16 *y, const v16 *x, v16 z, unsigned d) {
    if (d == 4) {
        v16 u = _mm256_sub_epi16(mm(x[2], x[2]), _mm256_slli_epi16(mm(x[1], x[3]), 1)); /* < 3q */
        v16 b0 = _mm256_add_epi16(mm(x[0], x[0]), mm(u, z));                              /* < 2q */
        v16 b1 = vbarrett(_mm256_sub_epi16(
            _mm256_sub_epi16(_mm256_slli_epi16(mm(x[0], x[2]), 1), mm(x[1], x[1])),
            mm(mm(x[3], x[3]), z)));
        y[0] = _mm256_sub_epi16(mm(x[0], b0), mm(mm(x[2], b1), z));
        y[1] = _mm256_sub_epi16(mm(mm(x[3], b1), z), mm(x[1], b0));
        y[2] = _mm256_sub_epi16(mm(x[2], b0), mm(x[0], b1));
        y[3] = _mm256_sub_epi16(mm(x[1], b1), mm(x[3], b0));
        return vbarrett(_mm256_sub_epi16(mm(b0, b0), mm(mm(b1, b1), z)));
    }
    y[0] = _mm256_sub_epi16(mm(x[0], x[0]), mm(mm(x[1], x[2]), z)); /* each < 2q */
    y[1] = _mm256_sub_epi16(mm(mm(x[2], x[2]), z), mm(x[0], x[1]));
    y[2] = _mm256_sub_epi16(mm(x[1], x[1]), mm(x[0], x[2]));
    v16 u = _mm256_add_epi16(mm(x[1], y[2]), mm(x[2], y[1]));
    return vbarrett(_mm256_add_epi16(mm(x[0], y[0]), mm(u, z)));
}

/* All norms first, then their inverses side by side, then the products. */
static int baseinv_v256(const kpqc_ntruplus_params *p, int16_t *r, const int16_t *a) {
    const int16_t *bz = base_table(p->n);
    const unsigned d = p->d, step = 16 * d, blocks = p->n / step;
    const v16 rinv = vset1(NTRUPLUS_RINV);
    v16 y[NTRUPLUS_NMAX / 16], nrm[NTRUPLUS_NMAX / 48];
    uint32_t zero = 0;
    for (unsigned k = 0; k < blocks; k++) {
        v16 x[4];
        load_rings(x, a + k * step, d);
        nrm[k] = adjugate16(&y[k * d], x, vload(bz + 16 * k), d);
        zero |= (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi16(nrm[k], _mm256_setzero_si256()));
    }
    vinv_batch(nrm, blocks);
    for (unsigned k = 0; k < blocks; k++) {
        v16 o[4];
        const v16 s = mm(nrm[k], rinv);
        const v16 sq = _mm256_mullo_epi16(s, vset1((int16_t)NTRUPLUS_QINV));
        for (unsigned j = 0; j < d; j++) o[j] = vmul(y[k * d + j], s, sq);
        store_rings(r + k * step, o, d);
    }
    kpqc_wipe(y, sizeof y);
    kpqc_wipe(nrm, sizeof nrm);
    return (int)((zero | (0u - zero)) >> 31);
}

/* ---------------------------------------------------------------- serialisation */
/* 16 coefficients <-> 24 bytes; loads and stores never pass the 24 bytes. */
static void tobytes_v256(const kpqc_ntruplus_params *p, uint8_t *out, const int16_t *a) {
    const v16 pairs = _mm256_set1_epi32(1 | (1 << 28));            /* (1, 4096) */
    const v16 sh = _mm256_setr_epi8(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1,
                                    0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1);
    const v16 idx = _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 3, 7);
    for (unsigned i = 0; i < p->n; i += 16, out += 24) {
        v16 x = vload(a + i);
        x = _mm256_add_epi16(x, _mm256_and_si256(_mm256_srai_epi16(x, 15), vset1(Q)));
        x = _mm256_madd_epi16(x, pairs); /* t0 + 4096 t1 per dword */
        x = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(x, sh), idx);
        _mm_storeu_si128((__m128i *)out, _mm256_castsi256_si128(x));
        _mm_storel_epi64((__m128i *)(out + 16), _mm256_extracti128_si256(x, 1));
    }
}

static uint32_t frombytes_v256(const kpqc_ntruplus_params *p, int16_t *a, const uint8_t *in) {
    /* lane 2i: bytes 3i, 3i+1 (low 12 bits); lane 2i+1: bytes 3i+1, 3i+2 (high
     * 12 bits); the upper half reads its 12 bytes from a load at byte 8 */
    const v16 sh = _mm256_setr_epi8(0, 1, 1, 2, 3, 4, 4, 5, 6, 7, 7, 8, 9, 10, 10, 11,
                                    4, 5, 5, 6, 7, 8, 8, 9, 10, 11, 11, 12, 13, 14, 14, 15);
    const v16 shift = _mm256_set1_epi32(16 | (1 << 16)); /* even lanes << 4, then all >> 4 */
    v16 bad = _mm256_setzero_si256();
    for (unsigned i = 0; i < p->n; i += 16, in += 24) {
        v16 x = _mm256_set_m128i(_mm_loadu_si128((const __m128i *)(in + 8)),
                                 _mm_loadu_si128((const __m128i *)in));
        x = _mm256_srli_epi16(_mm256_mullo_epi16(_mm256_shuffle_epi8(x, sh), shift), 4);
        v16 ge = _mm256_cmpgt_epi16(x, vset1(Q - 1));
        bad = _mm256_or_si256(bad, ge);
        vstore(a + i, _mm256_sub_epi16(x, _mm256_and_si256(ge, vset1(Q))));
    }
    return 0u - (uint32_t)(KPQC_TESTZ256(bad) ^ 1);
}

/* ---------------------------------------------------------------- sampling, decoding */
/* Bits i..i+15 of a little-endian bit string as 16 lanes of -1 (set) or 0. */
static inline v16 bits16(const uint8_t *bytes) {
    const v16 sel = _mm256_setr_epi16(1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096,
                                      8192, 16384, -32768);
    uint16_t w;
    memcpy(&w, bytes, sizeof w);
    return _mm256_cmpeq_epi16(_mm256_and_si256(vset1((int16_t)w), sel), sel);
}

static void cbd1_v256(const kpqc_ntruplus_params *p, int16_t *a, const uint8_t *buf,
                      int16_t scale) {
    const unsigned m = p->n / 8;
    const v16 s = vset1(scale);
    for (unsigned i = 0; i < p->n; i += 16) /* (-y) - (-x) = x - y */
        vstore(a + i, _mm256_mullo_epi16(_mm256_sub_epi16(bits16(buf + m + i / 8), bits16(buf + i / 8)), s));
}

/* As kpqc_ntruplus_sotp_decode, 32 coefficients (4 message bytes) a step:
 * v = m + pad bit, out of range if v & ~1; message bits are bit 0 of v,
 * gathered by a byte movemask, xored with the first half of the pad. */
static uint32_t sotp_decode_v256(const kpqc_ntruplus_params *p, uint8_t *msg, const int16_t *m,
                                 const uint8_t *pad) {
    const unsigned mb = p->msgbytes;
    const v16 one = vset1(1);
    v16 bad = _mm256_setzero_si256();
    for (unsigned i = 0; i < p->n; i += 32) {
        v16 v0 = _mm256_sub_epi16(vload(m + i), bits16(pad + mb + i / 8));
        v16 v1 = _mm256_sub_epi16(vload(m + i + 16), bits16(pad + mb + i / 8 + 2));
        bad = _mm256_or_si256(bad, _mm256_or_si256(_mm256_andnot_si256(one, v0),
                                                   _mm256_andnot_si256(one, v1)));
        v16 b = _mm256_packs_epi16(_mm256_slli_epi16(v0, 15), _mm256_slli_epi16(v1, 15));
        uint32_t bits = (uint32_t)_mm256_movemask_epi8(_mm256_permute4x64_epi64(b, 0xD8));
        uint32_t key;
        memcpy(&key, pad + i / 8, sizeof key);
        bits ^= key;
        memcpy(msg + i / 8, &bits, sizeof bits);
    }
    uint32_t fail = (uint32_t)(KPQC_TESTZ256(bad) ^ 1);
    uint8_t keep = (uint8_t)(fail - 1);
    for (unsigned i = 0; i < mb; i++) msg[i] &= keep;
    return fail;
}

/* Whether a and b differ mod q somewhere: their canonical representatives
 * xored and or-ed together, only the total examined. */
static uint32_t neq_v256(const kpqc_ntruplus_params *p, const int16_t *a, const int16_t *b) {
    const v16 q = vset1(Q);
    v16 diff = _mm256_setzero_si256();
    for (unsigned i = 0; i < p->n; i += 16) {
        v16 x = vload(a + i), y = vload(b + i);
        x = _mm256_add_epi16(x, _mm256_and_si256(_mm256_srai_epi16(x, 15), q));
        y = _mm256_add_epi16(y, _mm256_and_si256(_mm256_srai_epi16(y, 15), q));
        diff = _mm256_or_si256(diff, _mm256_xor_si256(x, y));
    }
    return (uint32_t)(KPQC_TESTZ256(diff) ^ 1);
}

#endif
