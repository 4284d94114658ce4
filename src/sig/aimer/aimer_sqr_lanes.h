/*
 * Squaring of GF(2^192) and GF(2^256) elements held in 128-bit lanes,
 * written once for PCLMULQDQ on xmm and VPCLMULQDQ on zmm (one element per
 * lane pair).  Included after defining
 *   AIMER_SQR_LANES  the function's name
 *   V                the vector type
 *   CLMUL(a, b, i)   carry-less product of 64-bit halves per 128-bit lane
 *   XOR(a, b), BSLL8(a), BSRL8(a)  XOR, and byte shifts by 8 within lanes
 * The element is x[0] = words 0-1, x[1] = words 2-3 (for n = 192 only word
 * 2 counts; the other half of x[1] is never read).  A square has no cross
 * terms, so its words are the squares of the input words, t[2i..2i+1] =
 * w_i^2.  The high half folds down by carry-less products with the
 * tail k (x^n = k, degree 7 or 10): t[nw + i] k lands on words i and i+1,
 * and the one word that spills past the low half (at most 10 bits) folds
 * once more into word 0.
 */
static inline __attribute__((always_inline)) void AIMER_SQR_LANES(V x[2], const unsigned nw, const V k) {
    V s0 = CLMUL(x[0], x[0], 0x00), s1 = CLMUL(x[0], x[0], 0x11), s2 = CLMUL(x[1], x[1], 0x00);
    if (nw == 3) {
        /* high words t3 = s1.hi, t4 = s2.lo, t5 = s2.hi */
        V p3 = CLMUL(s1, k, 0x01), p4 = CLMUL(s2, k, 0x00), p5 = CLMUL(s2, k, 0x01);
        V q = CLMUL(BSRL8(p5), k, 0x00);
        x[0] = XOR(XOR(s0, p3), XOR(BSLL8(p4), q));
        x[1] = XOR(XOR(s1, BSRL8(p4)), p5); /* word 2 low; the high half is not an element word */
    } else {
        V s3 = CLMUL(x[1], x[1], 0x11);
        V p4 = CLMUL(s2, k, 0x00), p5 = CLMUL(s2, k, 0x01), p6 = CLMUL(s3, k, 0x00), p7 = CLMUL(s3, k, 0x01);
        V q = CLMUL(BSRL8(p7), k, 0x00);
        x[0] = XOR(XOR(s0, p4), XOR(BSLL8(p5), q));
        x[1] = XOR(XOR(s1, BSRL8(p5)), XOR(p6, BSLL8(p7)));
    }
}

#undef AIMER_SQR_LANES
#undef V
#undef CLMUL
#undef XOR
#undef BSLL8
#undef BSRL8
