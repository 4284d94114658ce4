/*
 * Squares and products of GF(2^192) and GF(2^256) elements held in 128-bit
 * lanes, written once for PCLMULQDQ on xmm and VPCLMULQDQ on zmm (one
 * element per lane pair).  Included after defining
 *   AIMER_FOLD_LANES, AIMER_SQR_LANES, AIMER_MUL_WIDE, AIMER_MUL_LANES
 *                    the functions' names
 *   V                the vector type
 *   CLMUL(a, b, i)   carry-less product of 64-bit halves per 128-bit lane
 *   XOR(a, b), BSLL8(a), BSRL8(a)  XOR, and byte shifts by 8 within lanes
 * The element is x[0] = words 0-1, x[1] = words 2-3 (for n = 192 only word
 * 2 counts; the other half of x[1] is never read by a square, and must be
 * zero for a product).
 */
/* x = the 2 nw-word product t0..t3 (words 0-1, 2-3, 4-5, 6-7) reduced.
 * The high half folds down by carry-less products with the tail k (x^n =
 * k, degree 7 or 10): t[nw + i] k lands on words i and i+1, and the one
 * word that spills past the low half (at most 10 bits) folds once more
 * into word 0. */
static inline __attribute__((always_inline)) void AIMER_FOLD_LANES(V x[2], V t0, V t1, V t2, V t3,
                                                                   const unsigned nw, const V k) {
    if (nw == 3) {
        /* high words t3 = t1.hi, t4 = t2.lo, t5 = t2.hi */
        V p3 = CLMUL(t1, k, 0x01), p4 = CLMUL(t2, k, 0x00), p5 = CLMUL(t2, k, 0x01);
        V q = CLMUL(BSRL8(p5), k, 0x00);
        x[0] = XOR(XOR(t0, p3), XOR(BSLL8(p4), q));
        x[1] = XOR(XOR(t1, BSRL8(p4)), p5); /* word 2 low; the high half is not an element word */
    } else {
        V p4 = CLMUL(t2, k, 0x00), p5 = CLMUL(t2, k, 0x01), p6 = CLMUL(t3, k, 0x00), p7 = CLMUL(t3, k, 0x01);
        V q = CLMUL(BSRL8(p7), k, 0x00);
        x[0] = XOR(XOR(t0, p4), XOR(BSLL8(p5), q));
        x[1] = XOR(XOR(t1, BSRL8(p5)), XOR(p6, BSLL8(p7)));
    }
}

/* A square has no cross terms: its words are the squares of the input
 * words, t[2i..2i+1] = w_i^2. */
static inline __attribute__((always_inline)) void AIMER_SQR_LANES(V x[2], const unsigned nw, const V k) {
    V s0 = CLMUL(x[0], x[0], 0x00), s1 = CLMUL(x[0], x[0], 0x11), s2 = CLMUL(x[1], x[1], 0x00);
    V s3 = nw == 3 ? s2 : CLMUL(x[1], x[1], 0x11);
    AIMER_FOLD_LANES(x, s0, s1, s2, s3, nw, k);
}

/* The 256-bit product of one 128-bit lane of a and of b, as lo, hi, by
 * Karatsuba: three carry-less products instead of four (they, not the
 * XORs and shifts, bound eight products at a time). */
#define AIMER_MUL_128(lo, hi, a, b)                                              \
    do {                                                                         \
        V l_ = CLMUL(a, b, 0x00), h_ = CLMUL(a, b, 0x11);                        \
        V m_ = CLMUL(XOR(a, BSRL8(a)), XOR(b, BSRL8(b)), 0x00);                  \
        m_ = XOR(m_, XOR(l_, h_));                                               \
        lo = XOR(l_, BSLL8(m_));                                                 \
        hi = XOR(h_, BSRL8(m_));                                                 \
    } while (0)

/* t = a b unreduced (words 0-1, 2-3, 4-5, 6-7; for n = 192 words 0-5,
 * t[3] zero): a sum of such products folds once.  GF(2^192): a 128-bit
 * product and five with word 2 (nine carry-less ones, schoolbook);
 * GF(2^256): one Karatsuba step on the 128-bit halves (three 128-bit
 * products of four carry-less ones each instead of four). */
static inline __attribute__((always_inline)) void AIMER_MUL_WIDE(V t[4], const V a[2], const V b[2],
                                                                 const unsigned nw) {
    V r0, r1, r2, r3, m0, m1;
    AIMER_MUL_128(r0, r1, a[0], b[0]);
    if (nw == 3) {
        V w2 = XOR(CLMUL(a[0], b[1], 0x00), CLMUL(a[1], b[0], 0x00)); /* a0 b2 + a2 b0 */
        V w3 = XOR(CLMUL(a[0], b[1], 0x01), CLMUL(a[1], b[0], 0x10)); /* a1 b2 + a2 b1 */
        t[0] = r0;
        t[1] = XOR(r1, XOR(w2, BSLL8(w3)));
        t[2] = XOR(CLMUL(a[1], b[1], 0x00), BSRL8(w3));
        t[3] = XOR(w3, w3);
        return;
    }
    AIMER_MUL_128(r2, r3, a[1], b[1]);
    V sa = XOR(a[0], a[1]), sb = XOR(b[0], b[1]);
    AIMER_MUL_128(m0, m1, sa, sb);
    m0 = XOR(m0, XOR(r0, r2));
    m1 = XOR(m1, XOR(r1, r3));
    t[0] = r0;
    t[1] = XOR(r1, m0);
    t[2] = XOR(r2, m1);
    t[3] = r3;
}

/* c = a b (c may alias a or b): the wide product, then the fold. */
static inline __attribute__((always_inline)) void AIMER_MUL_LANES(V c[2], const V a[2], const V b[2],
                                                                  const unsigned nw, const V k) {
    V t[4];
    AIMER_MUL_WIDE(t, a, b, nw);
    AIMER_FOLD_LANES(c, t[0], t[1], t[2], t[3], nw, k);
}

#undef AIMER_MUL_128
#undef AIMER_FOLD_LANES
#undef AIMER_MUL_LANES
#undef AIMER_MUL_WIDE
#undef AIMER_SQR_LANES
#undef V
#undef CLMUL
#undef XOR
#undef BSLL8
#undef BSRL8
