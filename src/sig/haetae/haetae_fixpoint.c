/*
 * Fixed-point arithmetic of the hyperball sampler.  Numbers are 96-bit
 * (two 48-bit limbs, the upper one may carry a sign); products keep 76
 * fractional bits.  The roundings are those of the specification, since
 * they decide the sampled signature bit for bit.  No branches: the values
 * derive from the signing seed.
 */
#include "haetae.h"
#include "common/ct.h"

typedef unsigned __int128 u128;

#define MASK48 ((UINT64_C(1) << 48) - 1)

static inline hfix from_u128(u128 v) {
    hfix r = {(uint64_t)v & MASK48, (uint64_t)(v >> 48)};
    return r;
}

static inline hfix normalize(hfix x) {
    x.hi += x.lo >> 48;
    x.lo &= MASK48;
    return x;
}

/* Two's complement negation when sign = 1 (sign is 0 or 1). */
static inline hfix cneg(hfix x, uint64_t sign) {
    uint64_t m = 0 - sign;
    x.lo = (x.lo ^ (m & MASK48)) + sign;
    x.hi ^= m;
    return normalize(x);
}

/* floor(x^2 / 2^76), for x.lo < 2^50 and x.hi < 2^46. */
hfix kpqc_haetae_fix_square(hfix x) {
    u128 low = ((u128)x.lo * x.lo) >> 48;
    u128 mid = 2 * (u128)x.lo * x.hi + low;
    return from_u128((mid >> 28) + ((u128)x.hi * x.hi << 20));
}

/* x * y / 2^76: the lowest partial product is rounded at 2^48, the sum at
 * 2^76. */
hfix kpqc_haetae_fix_mul(hfix x, hfix y) {
    u128 r = (((u128)x.lo * y.lo + ((u128)1 << 47)) >> 48) + (u128)x.lo * y.hi + (u128)x.hi * y.lo;
    return from_u128(((r + ((u128)1 << 27)) >> 28) + ((u128)x.hi * y.hi << 20));
}

/* round(x * y / 2^28) for a 64-bit integer y. */
hfix kpqc_haetae_fix_mul_u64(hfix x, uint64_t y) {
    u128 lo = ((u128)x.lo * y + ((u128)1 << 27)) >> 28;
    return from_u128(lo + ((u128)x.hi * y << 20));
}

static inline hfix add(hfix x, hfix y) {
    hfix r = {x.lo + y.lo, x.hi + y.hi};
    return r;
}

/* x * y where y may be negative: multiply magnitudes, restore the sign. */
static hfix mul_signed(hfix x, hfix y) {
    uint64_t sign = y.hi >> 63;
    hfix z = kpqc_haetae_fix_mul(cneg(y, sign), x);
    return cneg(z, sign);
}

/*
 * 1/sqrt(2 * xhalf) by Newton's iteration y <- y (3/2 - xhalf y^2), seven
 * steps from a per-parameter-set start (the first step folded into the two
 * constants).
 */
hfix kpqc_haetae_fix_invsqrt(const struct haetae_params *p, hfix xhalf) {
    hfix y = add(p->invsqrt_three_halves, cneg(kpqc_haetae_fix_mul(xhalf, p->invsqrt_cube), 1));
    for (int i = 0; i < 6; i++) {
        hfix t = kpqc_haetae_fix_mul(xhalf, kpqc_haetae_fix_square(y));
        t = cneg(t, 1);
        t.hi += UINT64_C(3) << 27; /* 3/2 */
        t = normalize(t);
        y = mul_signed(y, t);
    }
    return y;
}

/* (-1)^sign * round(x * y / 2^(76 - 16 + 48 + 15)): a sample of 56
 * fractional bits scaled to the 2^13 fixed point of signatures. */
int32_t kpqc_haetae_fix_scale_round(uint64_t x, hfix y, uint32_t sign) {
    hfix xx = {(x & 0xffffffffu) << 16, x >> 32};
    hfix t = kpqc_haetae_fix_mul(xx, y);
    int64_t res = (int64_t)((t.hi + (UINT64_C(1) << 14)) >> 15);
    return (int32_t)((1 - 2 * (int64_t)sign) * res);
}

uint64_t kpqc_haetae_scale_round_portable(int32_t *y, const uint64_t *x, const uint8_t *signs, size_t n, hfix scale) {
    uint64_t norm = 0;
    for (size_t i = 0; i < n; i++) {
        y[i] = kpqc_haetae_fix_scale_round(x[i], scale, (signs[i / 8] >> (i % 8)) & 1);
        norm += (uint64_t)((int64_t)y[i] * y[i]);
    }
    /* High halves of products and the sign's borrow, which MemorySanitizer
     * does not carry (KPQC_CT_TAINT; the vector builds keep whole lanes). */
    KPQC_CT_TAINT(y, n * sizeof y[0], x, n * sizeof x[0]);
    KPQC_CT_TAINT(&norm, sizeof norm, x, n * sizeof x[0]);
    KPQC_CT_EXPECT_SECRET_EACH(y, n, sizeof y[0], "the hyperball sample");
    return norm;
}
