/* AIMer's portable field kernels, and the family's candidate list. */
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

static void prod_portable(uint64_t *r, const uint64_t *a, const uint64_t *b, unsigned nw) {
    for (unsigned i = 0; i < 2 * nw; i++) r[i] = 0;
    for (unsigned i = 0; i < nw; i++)
        for (unsigned j = 0; j < nw; j++) {
            uint64_t hi, lo;
            clmul64(&hi, &lo, a[i], b[j]);
            r[i + j] ^= lo;
            r[i + j + 1] ^= hi;
        }
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

/* A word's square spreads its bits to the even positions. */
#define SPREAD_SQUARE(t, w) ((t)[0] = spread32(w), (t)[1] = spread32((w) >> 32))
KPQC_AIMER_DEFINE_SQR_N(sqr_n_w, SPREAD_SQUARE)

static void gf_sqr_n_portable(uint64_t *c, const uint64_t *a, unsigned nw, unsigned e) {
    KPQC_AIMER_BY_WIDTH(sqr_n_w, nw, c, a, e);
}

static void gf_mul_portable(uint64_t *c, const uint64_t *a, const uint64_t *b, unsigned nw) {
    uint64_t t[8];
    prod_portable(t, a, b, nw);
    KPQC_AIMER_BY_WIDTH(kpqc_aimer_reduce_w, nw, c, t);
}

/* Written once per width so that the word loops unroll. */
static inline __attribute__((always_inline)) void mat_vec_w(uint64_t c[4], const uint64_t (*M)[4],
                                                            const uint64_t *v, const unsigned nw) {
    uint64_t r[4] = {0};
    for (unsigned w = 0; w < nw; w++) {
        uint64_t bits = v[w];
        const uint64_t (*row)[4] = M + 64 * w;
        for (unsigned j = 0; j < 64; j++) {
            uint64_t m = 0 - ((bits >> j) & 1);
            for (unsigned i = 0; i < nw; i++) r[i] ^= row[j][i] & m;
        }
    }
    for (unsigned i = 0; i < 4; i++) c[i] = r[i];
}

static void mat_vec8_portable(uint64_t (*c)[4], const uint64_t (*M)[4], const uint64_t (*v)[4], unsigned nw) {
    for (unsigned j = 0; j < 8; j++) {
        if (nw == 2) mat_vec_w(c[j], M, v[j], 2);
        else if (nw == 3) mat_vec_w(c[j], M, v[j], 3);
        else mat_vec_w(c[j], M, v[j], 4);
    }
}

const struct kpqc_aimer_backend kpqc_aimer_backend_portable = {
    {"portable", 0}, gf_mul_portable, gf_sqr_n_portable, mat_vec8_portable, NULL, NULL, NULL, NULL, 0, 0, NULL};

static const kpqc_backend_info *const candidates[] = {
#ifdef KPQC_ISA_AVX512
    &kpqc_aimer_backend_avx512.info,
#endif
#ifdef KPQC_ISA_AVX2
    &kpqc_aimer_backend_avx2.info,
#endif
    &kpqc_aimer_backend_portable.info,
};
KPQC_BACKEND_CHOICE(struct kpqc_aimer_backend, kpqc_aimer_select_backend, kpqc_aimer_backends, candidates)
