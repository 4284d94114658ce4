/*
 * The transforms of the exact product (smaugt_ntt.h), written once for
 * both vector backends.  The including file defines the vector type `vec`,
 * the table type NTT_CONSTS, and V_ADD, V_SUB, V_SUB_LAST, V_MULLO, V_MULHI,
 * V_MULHRS, V_SRAI, V_SET1,
 * V_LOAD (an unaligned load of one table row), the in-lane unpacks
 * V_UNPACKLO16 ... V_UNPACKHI64 and exchange_halves() (see transpose16):
 * AVX2 runs the code once per prime on 16 lanes, AVX-512 once for both
 * primes on 32, each prime's 16 x 16 matrix in its own 256 bits.
 *
 * A polynomial is 16 vectors; vector v, lane l holds coefficient 16 v + l.
 * The layers of length 128..16 pair whole vectors; the transpose then makes
 * the layers of length 8..1 pair whole vectors too, with a twiddle per
 * lane.  The transformed polynomial stays in that transposed, bit-reversed
 * order: the pointwise product does not care, and the inverse walks the
 * same path back.  Two layers at a time on four registers, so each layer
 * pair loads and stores the polynomial once.
 *
 * Ranges (signed 16-bit), as gen_tables.py checks them: a Montgomery
 * product by a twiddle (|z| <= q/2) of x is below |x| q / 2^17 + q/2, so a
 * layer adds at most that much.  The forward transform takes |x| <= 2^10
 * (25704 after four layers for 10753) and reduces once, at the transpose,
 * by fold() (to 5631, then 32018 after the next four); the inverse folds
 * its sums after every second layer and its final scaling into its last
 * layer's multiplications.  fold() quotients by a rounded product with
 * round(2^15 / q), 3 and 4, so it takes three operations to barrett()'s
 * five and leaves a little more than q/2; only the secret's transform,
 * whose values meet the public ones in the pointwise products, needs
 * barrett()'s [-q/2, q/2].  The code is bound by its count of vector
 * operations, multiplies or not (on Zen 4 about 1.5 zmm operations a
 * cycle), so every operation left out counts.  Everything is arithmetic
 * on whole vectors: no branch or address depends on the data.
 */
#ifndef KPQC_SMAUGT_NTT_CORE_H
#define KPQC_SMAUGT_NTT_CORE_H

/* a * b * 2^-16 mod q, in (-q, q) when |a b| < 2^15 q; bq = b q^-1 mod 2^16.
 * V_SUB_LAST, the subtraction that ends a reduction here and in fold(), is
 * one the backend may write in a form compilers keep as it is (see the
 * AVX-512 backend). */
static inline vec montmul(vec a, vec b, vec bq, vec q) {
    return V_SUB_LAST(V_MULHI(a, b), V_MULHI(V_MULLO(a, bq), q));
}

/* x - round(x v / 2^26) q, in [-q/2, q/2] for every 16-bit x. */
static inline vec barrett(vec x, vec q, vec v) {
    const vec half = V_SET1(1 << 9);
    return V_SUB(x, V_MULLO(V_SRAI(V_ADD(V_MULHI(x, v), half), 10), q));
}

/* x - round(x f / 2^15) q with f = round(2^15 / q): cheaper than barrett(),
 * coarser (up to 5631 for 10753 from the forward transform's 25704). */
static inline vec fold(vec x, vec q, vec f) {
    return V_SUB_LAST(x, V_MULLO(V_MULHRS(x, f), q));
}

/* 16 x 16 transpose of 16-bit lanes (per prime): an 8 x 8 transpose in
 * each 128-bit lane of rows 0-7 and of rows 8-15, then the lanes
 * exchanged.  Forced inline: as a call it stored and reloaded the
 * polynomial, and the products were 2-5 % slower. */
static inline __attribute__((always_inline)) void transpose16(vec x[16]) {
    vec c[16];
    for (unsigned h = 0; h < 2; h++) {
        const vec *r = x + 8 * h;
        vec a[8], b[8];
        for (unsigned i = 0; i < 4; i++) {
            a[2 * i] = V_UNPACKLO16(r[2 * i], r[2 * i + 1]);
            a[2 * i + 1] = V_UNPACKHI16(r[2 * i], r[2 * i + 1]);
        }
        for (unsigned i = 0; i < 2; i++) { /* rows 4i..4i+3 */
            b[4 * i + 0] = V_UNPACKLO32(a[4 * i], a[4 * i + 2]);     /* columns 0, 1 */
            b[4 * i + 1] = V_UNPACKHI32(a[4 * i], a[4 * i + 2]);     /* 2, 3 */
            b[4 * i + 2] = V_UNPACKLO32(a[4 * i + 1], a[4 * i + 3]); /* 4, 5 */
            b[4 * i + 3] = V_UNPACKHI32(a[4 * i + 1], a[4 * i + 3]); /* 6, 7 */
        }
        for (unsigned i = 0; i < 4; i++) {
            c[8 * h + 2 * i] = V_UNPACKLO64(b[i], b[i + 4]);
            c[8 * h + 2 * i + 1] = V_UNPACKHI64(b[i], b[i + 4]);
        }
    }
    /* c[j] (rows 0-7) and c[8 + j] (rows 8-15) hold columns j and j + 8 */
    for (unsigned j = 0; j < 8; j++) exchange_halves(c[j], c[8 + j], &x[j], &x[j + 8]);
}

#define TW(c, dir, k) V_LOAD((c)->tw[dir][0][k])
#define TWQ(c, dir, k) V_LOAD((c)->tw[dir][1][k])

/* Cooley-Tukey: (a, b) -> (a + z b, a - z b). */
static inline void ct_bfly(vec *a, vec *b, const NTT_CONSTS *c, unsigned k, vec q) {
    vec t = montmul(*b, TW(c, 0, k), TWQ(c, 0, k), q);
    *b = V_SUB(*a, t);
    *a = V_ADD(*a, t);
}

/* Gentleman-Sande: (a, b) -> (a + b, (a - b) / z). */
static inline void gs_bfly(vec *a, vec *b, const NTT_CONSTS *c, unsigned k, vec q) {
    vec d = V_SUB(*a, *b);
    *a = V_ADD(*a, *b);
    *b = montmul(d, TW(c, 1, k), TWQ(c, 1, k), q);
}

/* Two layers on registers i, i + s, i + 2s, i + 3s: the first pairs
 * (0, 2), (1, 3) with twiddle k0, the second (0, 1) with k1 and (2, 3)
 * with k2. */
static inline void ct_two(vec *x, unsigned i, unsigned s, unsigned k0, unsigned k1, unsigned k2, int reduce_first,
                          const NTT_CONSTS *c) {
    const vec q = V_LOAD(c->q), f = V_LOAD(c->fold);
    vec a = x[i], b = x[i + s], d = x[i + 2 * s], e = x[i + 3 * s];
    if (reduce_first) {
        a = fold(a, q, f);
        b = fold(b, q, f);
        d = fold(d, q, f);
        e = fold(e, q, f);
    }
    ct_bfly(&a, &d, c, k0, q);
    ct_bfly(&b, &e, c, k0, q);
    ct_bfly(&a, &b, c, k1, q);
    ct_bfly(&d, &e, c, k2, q);
    x[i] = a;
    x[i + s] = b;
    x[i + 2 * s] = d;
    x[i + 3 * s] = e;
}

/* The inverse of ct_two (up to the factor 4); the two sums reduced. */
static inline void gs_two(vec *x, unsigned i, unsigned s, unsigned k0, unsigned k1, unsigned k2,
                          const NTT_CONSTS *c) {
    const vec q = V_LOAD(c->q), f = V_LOAD(c->fold);
    vec a = x[i], b = x[i + s], d = x[i + 2 * s], e = x[i + 3 * s];
    gs_bfly(&a, &b, c, k1, q);
    gs_bfly(&d, &e, c, k2, q);
    gs_bfly(&a, &d, c, k0, q);
    gs_bfly(&b, &e, c, k0, q);
    x[i] = fold(a, q, f);
    x[i + s] = fold(b, q, f);
    x[i + 2 * s] = d;
    x[i + 3 * s] = e;
}

/* The last two layers of the inverse (lengths 64 and 128) with the final
 * factor 2^16 / 256 folded in: sums multiplied by it, differences by the
 * twiddle times it. */
static inline void gs_two_last(vec *x, unsigned r, const NTT_CONSTS *c) {
    const vec q = V_LOAD(c->q), f = V_LOAD(c->scale), fq = V_LOAD(c->scale_qinv);
    const vec zf = V_LOAD(c->last), zfq = V_LOAD(c->last_qinv);
    vec a = x[r], b = x[r + 4], d = x[r + 8], e = x[r + 12];
    gs_bfly(&a, &b, c, 1, q);
    gs_bfly(&d, &e, c, 2, q);
    x[r] = montmul(V_ADD(a, d), f, fq, q);
    x[r + 8] = montmul(V_SUB(a, d), zf, zfq, q);
    x[r + 4] = montmul(V_ADD(b, e), f, fq, q);
    x[r + 12] = montmul(V_SUB(b, e), zf, zfq, q);
}

/* NTT_FORWARD_INLINE: whether the backend wants the forward transform
 * inlined into its callers (AVX2: 2-3 % off its products; on zmm it was
 * 5 % slower, the code too big for its loops). */
#if NTT_FORWARD_INLINE
static inline __attribute__((always_inline)) void ntt_forward(vec x[16], const NTT_CONSTS *c) {
#else
static void ntt_forward(vec x[16], const NTT_CONSTS *c) {
#endif
    for (unsigned r = 0; r < 4; r++) ct_two(x, r, 4, 0, 1, 2, 0, c);              /* lengths 128, 64 */
    for (unsigned g = 0; g < 4; g++) ct_two(x, 4 * g, 1, 3 + g, 7 + 2 * g, 8 + 2 * g, 0, c); /* 32, 16 */
    transpose16(x);
    for (unsigned r = 0; r < 4; r++) ct_two(x, r, 4, 15, 16, 17, 1, c);           /* 8, 4 */
    for (unsigned g = 0; g < 4; g++) ct_two(x, 4 * g, 1, 18 + g, 22 + 2 * g, 23 + 2 * g, 0, c); /* 2, 1 */
}

/* The inverse, times 2^16 (the pointwise product's 2^-16 undone). */
static void ntt_inverse(vec x[16], const NTT_CONSTS *c) {
    for (unsigned g = 0; g < 4; g++) gs_two(x, 4 * g, 1, 18 + g, 22 + 2 * g, 23 + 2 * g, c);
    for (unsigned r = 0; r < 4; r++) gs_two(x, r, 4, 15, 16, 17, c);
    transpose16(x);
    for (unsigned g = 0; g < 4; g++) gs_two(x, 4 * g, 1, 3 + g, 7 + 2 * g, 8 + 2 * g, c);
    for (unsigned r = 0; r < 4; r++) gs_two_last(x, r, c);
}

/* A secret polynomial's transform, reduced to [-q/2, q/2], and its
 * products by q^-1 for the pointwise Montgomery products. */
static void transform_secret(vec b[16], vec bq[16], const NTT_CONSTS *c) {
    const vec q = V_LOAD(c->q), v = V_LOAD(c->barrett), qinv = V_LOAD(c->qinv);
    ntt_forward(b, c);
    for (unsigned i = 0; i < 16; i++) {
        b[i] = barrett(b[i], q, v);
        bq[i] = V_MULLO(b[i], qinv);
    }
}

/* Term j < k <= 4 of acc = sum_j a_j * b_j pointwise.  |a| < 2^15, |b| <=
 * q/2: each product is below 2^15 q/2^17 + q/2 + 1 (8064 for 10753), so
 * four of them add up to less than 2^15 and the sum is folded once,
 * after the last term, for the inverse. */
static inline void pointwise_acc(vec acc[16], const vec a[16], const vec b[16], const vec bq[16], unsigned j, unsigned k,
                                 const NTT_CONSTS *c) {
    const vec q = V_LOAD(c->q), f = V_LOAD(c->fold);
    for (unsigned i = 0; i < 16; i++) {
        vec m = montmul(a[i], b[i], bq[i], q);
        m = j == 0 ? m : V_ADD(acc[i], m);
        acc[i] = j + 1 == k ? fold(m, q, f) : m;
    }
}

#endif
