/* Portable carry-less products and the reductions of the AIMer fields. */
#include "aimer_field.h"

/*
 * 32 x 32 -> 64 carry-less product without data-dependent branches or
 * lookups: each operand is split into four sparse parts (every fourth bit),
 * so an integer product of two parts has at most 8 terms per output bit
 * and the carries never reach the next used bit position.
 */
static uint64_t clmul32(uint32_t x, uint32_t y) {
    const uint64_t m0 = 0x1111111111111111ULL, m1 = m0 << 1, m2 = m0 << 2, m3 = m0 << 3;
    uint64_t xa = x & (uint32_t)m0, xb = x & (uint32_t)m1, xc = x & (uint32_t)m2, xd = x & (uint32_t)m3;
    uint64_t ya = y & (uint32_t)m0, yb = y & (uint32_t)m1, yc = y & (uint32_t)m2, yd = y & (uint32_t)m3;
    uint64_t r0 = (xa * ya) ^ (xb * yd) ^ (xc * yc) ^ (xd * yb);
    uint64_t r1 = (xa * yb) ^ (xb * ya) ^ (xc * yd) ^ (xd * yc);
    uint64_t r2 = (xa * yc) ^ (xb * yb) ^ (xc * ya) ^ (xd * yd);
    uint64_t r3 = (xa * yd) ^ (xb * yc) ^ (xc * yb) ^ (xd * ya);
    return (r0 & m0) | (r1 & m1) | (r2 & m2) | (r3 & m3);
}

/* 64 x 64 -> 128 by one Karatsuba step over clmul32. */
static void clmul64(uint64_t *hi, uint64_t *lo, uint64_t x, uint64_t y) {
    uint32_t x0 = (uint32_t)x, x1 = (uint32_t)(x >> 32);
    uint32_t y0 = (uint32_t)y, y1 = (uint32_t)(y >> 32);
    uint64_t l = clmul32(x0, y0), h = clmul32(x1, y1);
    uint64_t m = clmul32(x0 ^ x1, y0 ^ y1) ^ l ^ h;
    *lo = l ^ (m << 32);
    *hi = h ^ (m >> 32);
}

void kpqc_aimer_prod_portable(uint64_t *r, const uint64_t *a, const uint64_t *b, unsigned nw) {
    for (unsigned i = 0; i < 2 * nw; i++) r[i] = 0;
    for (unsigned i = 0; i < nw; i++)
        for (unsigned j = 0; j < nw; j++) {
            uint64_t hi, lo;
            clmul64(&hi, &lo, a[i], b[j]);
            r[i + j] ^= lo;
            r[i + j + 1] ^= hi;
        }
}

/* tail = x^10 + x^5 + x^2 + 1 for n = 256, x^7 + x^2 + x + 1 otherwise */
void kpqc_aimer_reduce(uint64_t *c, uint64_t *t, unsigned nw) {
    if (nw == 2) kpqc_aimer_reduce_w(c, t, 2, 7, 2, 1);
    else if (nw == 3) kpqc_aimer_reduce_w(c, t, 3, 7, 2, 1);
    else kpqc_aimer_reduce_w(c, t, 4, 10, 5, 2);
}

/* Spread the 32 bits of x to the even positions of a 64-bit word. */
static uint64_t spread32(uint64_t x) {
    x &= 0xffffffffULL;
    x = (x | (x << 16)) & 0x0000ffff0000ffffULL;
    x = (x | (x << 8)) & 0x00ff00ff00ff00ffULL;
    x = (x | (x << 4)) & 0x0f0f0f0f0f0f0f0fULL;
    x = (x | (x << 2)) & 0x3333333333333333ULL;
    x = (x | (x << 1)) & 0x5555555555555555ULL;
    return x;
}

/* Repeated squaring with the width and the reduction known at compile
 * time: the S-boxes' x^(2^e) take up to 47 squarings in a row. */
static inline __attribute__((always_inline)) void sqr_n_w(uint64_t *c, const uint64_t *a, const unsigned nw,
                                                          unsigned e, int kernel, const unsigned k1,
                                                          const unsigned k2, const unsigned k3) {
    uint64_t x[4], t[8];
    for (unsigned i = 0; i < nw; i++) x[i] = a[i];
    for (unsigned r = 0; r < e; r++) { /* e is public */
        if (kernel != AIMER_GF_PORTABLE) {
            kpqc_aimer_sqr_pclmul(t, x, nw);
        } else {
            for (unsigned i = 0; i < nw; i++) {
                t[2 * i] = spread32(x[i]);
                t[2 * i + 1] = spread32(x[i] >> 32);
            }
        }
        kpqc_aimer_reduce_w(x, t, nw, k1, k2, k3);
    }
    for (unsigned i = 0; i < nw; i++) c[i] = x[i];
}

void kpqc_aimer_gf_sqr_n(uint64_t *c, const uint64_t *a, unsigned nw, unsigned e, int kernel) {
#ifdef __x86_64__
    if (kernel == AIMER_GF_AVX512) {
        kpqc_aimer_gf_sqr_n_avx512(c, a, nw, e);
        return;
    }
#endif
    if (nw == 2) sqr_n_w(c, a, 2, e, kernel, 7, 2, 1);
    else if (nw == 3) sqr_n_w(c, a, 3, e, kernel, 7, 2, 1);
    else sqr_n_w(c, a, 4, e, kernel, 10, 5, 2);
}

void kpqc_aimer_gf_mul(uint64_t *c, const uint64_t *a, const uint64_t *b, unsigned nw, int kernel) {
    uint64_t t[8];
#ifdef __x86_64__
    if (kernel == AIMER_GF_AVX512) {
        kpqc_aimer_gf_mul_avx512(c, a, b, nw);
        return;
    }
#endif
    if (kernel != AIMER_GF_PORTABLE) {
        if (nw == 2) kpqc_aimer_prod2_pclmul(t, a, b);
        else if (nw == 3) kpqc_aimer_prod3_pclmul(t, a, b);
        else kpqc_aimer_prod4_pclmul(t, a, b);
    } else {
        kpqc_aimer_prod_portable(t, a, b, nw);
    }
    kpqc_aimer_reduce(c, t, nw);
}
