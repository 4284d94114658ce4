/*
 * The NTT, inverse NTT and pointwise products on vectors of W int32
 * lanes, written once for every vector path; each computes the portable
 * integers (haetae_ntt.c) exactly.
 *
 * The Montgomery product is the portable one lane by lane: the exact 64-bit
 * product z * a of the even lanes, then of the odd ones (vpmuldq), t = its
 * low half times q^-1, and the high half of product - t * q.  The low
 * halves of product and t * q are equal, so that high half is the portable
 * (a - t q) >> 32 exactly.  Sums and differences wrap like the portable
 * int32 arithmetic, which the documented input bounds keep from
 * overflowing.
 *
 * Layers with len >= W pair whole registers.  The last ones work on the
 * 2W coefficients of two registers X, Y at a time, held so that lane i of
 * X and lane i of Y are a butterfly's two inputs: for len L, X holds the
 * coefficients c with c mod 2L < L in increasing order and Y those plus L.
 * Going from L to L/2 (or back) interleaves X and Y in blocks of L/2
 * lanes; the zetas of such a layout are contiguous entries of the table,
 * each repeated L times.
 *
 * The including file defines the vector type V, its lane count W, the
 * lane operations
 *   MUL(a, b)    signed 64-bit products of the even lanes (vpmuldq)
 *   SRL32(a)     every 64-bit lane shifted right by 32 (odd lanes to even)
 *   MERGE(e, o)  the high halves of e's 64-bit lanes in the even lanes,
 *                those of o in the odd ones
 *   ADD, SUB (32-bit lanes), SUB64, SET1, LOAD(p), STORE(p, v)
 * the data movement
 *   interleave(&x, &y, s)  X, Y trading blocks of s lanes: from the len-2s
 *                          layout to the len-s one and back
 *   deal(&x, &y), undeal(&x, &y)  consecutive coefficients to the len-1
 *                          layout (evens in X, odds in Y) and back
 *   zetas(from, len, back) W zetas from the table run at from: lane i
 *                          takes entry i / len, counted from the end of
 *                          the run when back
 * and HAETAE_NTT_NAME(op), the name of kernel op; then includes this.
 */
#ifndef KPQC_HAETAE_NTT_SIMD_H
#define KPQC_HAETAE_NTT_SIMD_H

#include "haetae_ntt_kernel.h"

#define NTT_REGS (HAETAE_N / W)
#define NTT_REG_LAYERS (W == 8 ? 5 : 4) /* log2(NTT_REGS): the layers that pair whole registers */
#if defined(__clang__)
#define NTT_UNROLL _Pragma("clang loop unroll(full)")
#else
#define NTT_UNROLL _Pragma("GCC unroll 32")
#endif

/* r = z * a * 2^-32 mod q per lane, |r| < q; z_odd holds the zetas of the
 * odd lanes in the even ones (z itself when neighbours share a zeta). */
static inline V mont_mul(V a, V z, V z_odd) {
    const V qinv = SET1((int32_t)HAETAE_QINV), q = SET1(HAETAE_Q);
    V p_even = MUL(a, z), p_odd = MUL(SRL32(a), z_odd);
    V t_even = MUL(MUL(p_even, qinv), q), t_odd = MUL(MUL(p_odd, qinv), q);
    return MERGE(SUB64(p_even, t_even), SUB64(p_odd, t_odd));
}

/* The odd lanes' zetas for mont_mul: distinct only in the len-1 layer. */
static inline V odd_zetas(V z, unsigned len) { return len == 1 ? SRL32(z) : z; }

/* Cooley-Tukey: (x, y) <- (x + z y, x - z y). */
static inline void ct_butterfly(V *x, V *y, V z, V z_odd) {
    V t = mont_mul(*y, z, z_odd);
    *y = SUB(*x, t);
    *x = ADD(*x, t);
}

/* Gentleman-Sande with the zeta's negation folded in: (x, y) <- (x + y,
 * z (y - x)), the same 64-bit product as the portable -z (x - y). */
static inline void gs_butterfly(V *x, V *y, V z, V z_odd) {
    V t = *x;
    *x = ADD(t, *y);
    *y = mont_mul(SUB(*y, t), z, z_odd);
}

void HAETAE_NTT_NAME(ntt)(hpoly *a) {
    for (unsigned j = 0; j < HAETAE_N; j++) KPQC_BOUND(a->c[j] > -12 * HAETAE_Q && a->c[j] < 12 * HAETAE_Q);
    V v[NTT_REGS];
    for (unsigned i = 0; i < NTT_REGS; i++) v[i] = LOAD(&a->c[W * i]);
    /* len 128 down to W: registers i and i + s of group g, zeta k + g
     * (unrolled, so that the zetas are constant addresses and v lives in
     * registers where it fits) */
    NTT_UNROLL
    for (unsigned layer = 0; layer < NTT_REG_LAYERS; layer++)
        NTT_UNROLL
        for (unsigned g = 0, s = NTT_REGS >> (layer + 1); g < 1u << layer; g++) {
            const V z = SET1(haetae_zetas[(1u << layer) + g]);
            NTT_UNROLL
            for (unsigned i = 2 * s * g; i < 2 * s * g + s; i++) ct_butterfly(&v[i], &v[i + s], z, z);
        }
    /* len W/2 down to 1 on coefficients 2Wb .. 2Wb + 2W - 1 */
    for (unsigned b = 0; b < NTT_REGS / 2; b++) {
        V x = v[2 * b], y = v[2 * b + 1];
        for (unsigned len = W / 2; len >= 1; len >>= 1) {
            interleave(&x, &y, len);
            V z = zetas(&haetae_zetas[(128 + W * b) / len], len, 0);
            ct_butterfly(&x, &y, z, odd_zetas(z, len));
        }
        undeal(&x, &y);
        v[2 * b] = x, v[2 * b + 1] = y;
    }
    for (unsigned i = 0; i < NTT_REGS; i++) STORE(&a->c[W * i], v[i]);
}

void HAETAE_NTT_NAME(invntt)(hpoly *a) {
    V v[NTT_REGS];
    for (unsigned i = 0; i < NTT_REGS; i++) v[i] = LOAD(&a->c[W * i]);
    /* len 1 up to W/2 on coefficients 2Wb .. 2Wb + 2W - 1; zeta k runs down */
    for (unsigned b = 0; b < NTT_REGS / 2; b++) {
        V x = v[2 * b], y = v[2 * b + 1];
        deal(&x, &y);
        for (unsigned len = 1; len < W; len <<= 1) {
            V z = zetas(&haetae_zetas[(256 - W * (b + 1)) / len], len, 1);
            gs_butterfly(&x, &y, z, odd_zetas(z, len));
            interleave(&x, &y, len);
        }
        v[2 * b] = x, v[2 * b + 1] = y;
    }
    /* len W up to 128 */
    NTT_UNROLL
    for (unsigned layer = NTT_REG_LAYERS; layer-- > 0;)
        NTT_UNROLL
        for (unsigned g = 0, s = NTT_REGS >> (layer + 1); g < 1u << layer; g++) {
            const V z = SET1(haetae_zetas[(2u << layer) - 1 - g]);
            NTT_UNROLL
            for (unsigned i = 2 * s * g; i < 2 * s * g + s; i++) gs_butterfly(&v[i], &v[i + s], z, z);
        }
    const V f = SET1(HAETAE_INVNTT_F);
    for (unsigned i = 0; i < NTT_REGS; i++) STORE(&a->c[W * i], mont_mul(v[i], f, f));
}

/* Coefficients i .. i + W - 1 of the pointwise product a * b * 2^-32, as
 * kpqc_haetae_pointwise computes them. */
static inline V pointwise_lanes(const hpoly *a, const hpoly *b, unsigned i) {
    V vb = LOAD(&b->c[i]);
    return mont_mul(LOAD(&a->c[i]), vb, SRL32(vb));
}

void HAETAE_NTT_NAME(pointwise)(hpoly *r, const hpoly *a, const hpoly *b) {
    for (unsigned i = 0; i < HAETAE_N; i += W) STORE(&r->c[i], pointwise_lanes(a, b, i));
}

void HAETAE_NTT_NAME(pointwise_acc)(hpoly *r, const hpoly *a, const hpoly *b) {
    for (unsigned i = 0; i < HAETAE_N; i += W) STORE(&r->c[i], ADD(LOAD(&r->c[i]), pointwise_lanes(a, b, i)));
}

#endif
