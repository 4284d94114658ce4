/*
 * Hyperball sampling (specification v1.2.0): a vector of (l + k) * 256
 * discrete Gaussians of width 76 (each an 83-bit CDT sample of width 16 with
 * 72 uniform bits appended, kept with probability exp(-(y^2 - x^2)/..)
 * computed by a degree-10 polynomial), scaled onto the sphere of radius
 * B0 and rejected when outside the ball.
 *
 * Candidates are consecutive 26-byte pieces of SHAKE256(seed || nonce)
 * after 32 sign bytes.  Every candidate is computed without branches; the
 * accepted ones are gathered by an oblivious compaction.  What becomes
 * public is only how many candidates a polynomial used, which carries no
 * information on the accepted values (they are independent of the number
 * of rejections before them), and the ball-rejection verdict.
 */
#include <string.h>

#include "common/ct.h"
#include "common/keccak.h"
#include "haetae.h"

typedef unsigned __int128 u128;

#define CAND_BYTES 26
#define CDT_LEN 166
/* Candidates after the sign bytes of the reference's first squeeze of
 * ceil(26 * 256 / 136) blocks; further ones come a block's worth at a time. */
#define FIRST_BATCH ((49 * KPQC_SHAKE256_RATE - HAETAE_N / 8) / CAND_BYTES)
#define NEXT_BATCH 5
#define CAND_CAP 512

/* floor(CDF(k) * 2^83), CDF of the half-Gaussian rho(k) = exp(-k^2/512), k >= 0. */
static const struct cdt_entry { uint32_t hi; uint64_t lo; } cdt83[166] = {
    {0x063a5, 0x0aa572bc88db1e28}, {0x0c718, 0x4f3820e69064b2ee},
    {0x129f6, 0xd68dc44dd1418704}, {0x18bdf, 0x6587a04d9b97b1dd},
    {0x1ec73, 0x9b843ce0a65d0050}, {0x24b59, 0x02b62cb869003e7d},
    {0x2a83a, 0x0d44f194f8bf43c6}, {0x302c6, 0xfaa0c7acb211b4db},
    {0x35ab6, 0xa11387f7f524be80}, {0x3afc7, 0x18526ca6f2ceb77f},
    {0x401be, 0x42a01a906b7dad17}, {0x4506a, 0x32e5337a1966b9a7},
    {0x49ba1, 0x6f00f7ac9735f58a}, {0x4e343, 0x0e6c48f40642ba60},
    {0x52736, 0xb6192fa1afb5e4ec}, {0x5676c, 0x7339dba8ffc2fcf5},
    {0x5a3dc, 0x7746cbe1ac90c9eb}, {0x5dc86, 0xb83004341d78466f},
    {0x61172, 0x781dcca572bb3d8a}, {0x642ad, 0xb880376cc82a5384},
    {0x6704c, 0x9c68a5c477dfecb9}, {0x69a68, 0xbe45ceb02a25fef3},
    {0x6c120, 0x7d1a8ccd208dbaa1}, {0x6e496, 0x452c002b9085e7db},
    {0x704ef, 0xd7ef361c5551378d}, {0x72255, 0x96b4ff49d9e5a8bb},
    {0x73cf1, 0xd337c94ede732d83}, {0x754f0, 0x28c75b8d3fe83c38},
    {0x76a7c, 0xe05d7bd130fe20e0}, {0x77dc4, 0x6170e60b76d85108},
    {0x78ef2, 0xb0e59892414901ff}, {0x79e32, 0xff05cf70b911f3de},
    {0x7abaf, 0x4501460fdfd508c9}, {0x7b78f, 0xf20b1303a2a54906},
    {0x7c1fb, 0xa7d3badbeb04b20c}, {0x7cb17, 0x05ce666b741b666d},
    {0x7d304, 0x826e689fded20430}, {0x7d9e4, 0x5155d1354fcf6ff6},
    {0x7dfd4, 0x55469226a1d318f6}, {0x7e4f0, 0x1c8d3820cfa9cabc},
    {0x7e950, 0xe68d83bbf700fc40}, {0x7ed0d, 0xb1152d8944042803},
    {0x7f03b, 0x4c1e741aabe53700}, {0x7f2ec, 0x72b94c56e0f9a967},
    {0x7f531, 0xe7e5a80a79e4539c}, {0x7f71a, 0x9641c5d11feb4d12},
    {0x7f8b3, 0xb18b71598b73dde0}, {0x7fa08, 0xd9112fb5a7904d7e},
    {0x7fb24, 0x3a4f57cbefabc820}, {0x7fc0e, 0xb314025fd5022976},
    {0x7fccf, 0xf2a2b228aab1981b}, {0x7fd6e, 0x996ce1e60378cd98},
    {0x7fdf0, 0x570ec64b38e3ca90}, {0x7fe5a, 0x0657269615dcd7c6},
    {0x7feaf, 0xc7360038bdc85312}, {0x7fef5, 0x167fa02a57a8ae1a},
    {0x7ff2c, 0xe380fab2ea9b2bef}, {0x7ff59, 0xa36e6abd6509b5a2},
    {0x7ff7d, 0x62bfcf1d6ba81c37}, {0x7ff99, 0xd4946e8bf96caa93},
    {0x7ffb0, 0x603e6262ea8cda2d}, {0x7ffc2, 0x2d18c8b333ae9203},
    {0x7ffd0, 0x2ccdedb5a7718d61}, {0x7ffdb, 0x24333ecab8497c0a},
    {0x7ffe3, 0xb2e06eb33bf2b7d9}, {0x7ffea, 0x59a5f6c550dfe7e2},
    {0x7ffef, 0x800548f3927f906e}, {0x7fff3, 0x78cac146b573bc40},
    {0x7fff6, 0x85e6dadec4b6aff1}, {0x7fff8, 0xdba17dfa17def8ec},
    {0x7fffa, 0xa33f84d06ce20a93}, {0x7fffb, 0xfd2fe967c5186746},
    {0x7fffd, 0x02d37ecd7e9b180f}, {0x7fffd, 0xc7efafa8bd33f0bb},
    {0x7fffe, 0x5bda826341e791cc}, {0x7fffe, 0xca6c1c6ce045599f},
    {0x7ffff, 0x1cc02c0faa9a526e}, {0x7ffff, 0x59d002901a4a4e52},
    {0x7ffff, 0x86ecbd139ce07540}, {0x7ffff, 0xa81f9f15ffb47f4c},
    {0x7ffff, 0xc075b17481687af0}, {0x7ffff, 0xd23ad13e68301c65},
    {0x7ffff, 0xdf27955fae1c84cb}, {0x7ffff, 0xe884cdb07368c266},
    {0x7ffff, 0xef46d4f897fc83f6}, {0x7ffff, 0xf4227e46663ec049},
    {0x7ffff, 0xf79d091c1b5aff07}, {0x7ffff, 0xfa183c533c3890a6},
    {0x7ffff, 0xfbdb8a602066b0f2}, {0x7ffff, 0xfd1af06df3db86b7},
    {0x7ffff, 0xfdfc1a818587e2aa}, {0x7ffff, 0xfe9a37a348ac2a93},
    {0x7ffff, 0xff08d0797970dbfe}, {0x7ffff, 0xff55df73fd7a00bc},
    {0x7ffff, 0xff8b5aa573bca5ce}, {0x7ffff, 0xffb053c109f51681},
    {0x7ffff, 0xffc9c9bd39a036ec}, {0x7ffff, 0xffdb40bd4ee1f846},
    {0x7ffff, 0xffe72fa859b20a4a}, {0x7ffff, 0xffef4edda93d266d},
    {0x7ffff, 0xfff4d07a9fb0d4e0}, {0x7ffff, 0xfff88868ef31b1cc},
    {0x7ffff, 0xfffb08c16a3f5f0c}, {0x7ffff, 0xfffcb5d30be5cabf},
    {0x7ffff, 0xfffdd43465d95fe6}, {0x7ffff, 0xfffe929a538ad2fa},
    {0x7ffff, 0xffff10b1c2119732}, {0x7ffff, 0xffff63df8795a2c9},
    {0x7ffff, 0xffff9a87a0a9f2af}, {0x7ffff, 0xffffbe4df6f0f4a9},
    {0x7ffff, 0xffffd5a10f204910}, {0x7ffff, 0xffffe4c6f1668b32},
    {0x7ffff, 0xffffee939680bfaf}, {0x7ffff, 0xfffff4e4216290db},
    {0x7ffff, 0xfffff8f1c044613e}, {0x7ffff, 0xfffffb892dc2b174},
    {0x7ffff, 0xfffffd2fb4188608}, {0x7ffff, 0xfffffe3bc0a56eba},
    {0x7ffff, 0xfffffee523b218c6}, {0x7ffff, 0xffffff4fc31097e3},
    {0x7ffff, 0xffffff929d76dbeb}, {0x7ffff, 0xffffffbc5e7c0350},
    {0x7ffff, 0xffffffd6586c6684}, {0x7ffff, 0xffffffe6716865f7},
    {0x7ffff, 0xfffffff0613c76e2}, {0x7ffff, 0xfffffff67d62ab64},
    {0x7ffff, 0xfffffffa3b6664c0}, {0x7ffff, 0xfffffffc83e13d66},
    {0x7ffff, 0xfffffffde713ef71}, {0x7ffff, 0xfffffffebe18936f},
    {0x7ffff, 0xffffffff3fbfc997}, {0x7ffff, 0xffffffff8d9fa29a},
    {0x7ffff, 0xffffffffbc372590}, {0x7ffff, 0xffffffffd7fb7dfd},
    {0x7ffff, 0xffffffffe87747f9}, {0x7ffff, 0xfffffffff2368b89},
    {0x7ffff, 0xfffffffff7f44d88}, {0x7ffff, 0xfffffffffb52a49b},
    {0x7ffff, 0xfffffffffd4a9ffb}, {0x7ffff, 0xfffffffffe700579},
    {0x7ffff, 0xffffffffff1a287f}, {0x7ffff, 0xffffffffff7c6f06},
    {0x7ffff, 0xffffffffffb4fa99}, {0x7ffff, 0xffffffffffd56300},
    {0x7ffff, 0xffffffffffe7e364}, {0x7ffff, 0xfffffffffff268d7},
    {0x7ffff, 0xfffffffffff85e8e}, {0x7ffff, 0xfffffffffffbbb6f},
    {0x7ffff, 0xfffffffffffd9f49}, {0x7ffff, 0xfffffffffffeae2c},
    {0x7ffff, 0xffffffffffff453d}, {0x7ffff, 0xffffffffffff9928},
    {0x7ffff, 0xffffffffffffc797}, {0x7ffff, 0xffffffffffffe12f},
    {0x7ffff, 0xffffffffffffef3c}, {0x7ffff, 0xfffffffffffff6eb},
    {0x7ffff, 0xfffffffffffffb1b}, {0x7ffff, 0xfffffffffffffd60},
    {0x7ffff, 0xfffffffffffffe9a}, {0x7ffff, 0xffffffffffffff43},
    {0x7ffff, 0xffffffffffffff9e}, {0x7ffff, 0xffffffffffffffce},
    {0x7ffff, 0xffffffffffffffe7}, {0x7ffff, 0xfffffffffffffff4},
    {0x7ffff, 0xfffffffffffffffb}, {0x7ffff, 0xfffffffffffffffe},
};

/* Number of table entries below the 83-bit uniform value: a sample of the
 * half-Gaussian of width 16. */
static uint64_t cdt_sample(uint64_t lo, uint32_t hi) {
    u128 rnd = ((u128)hi << 64) | lo;
    uint64_t x = 0;
    for (unsigned i = 0; i < CDT_LEN; i++) {
        u128 e = ((u128)cdt83[i].hi << 64) | cdt83[i].lo;
        x += (uint64_t)((e - rnd) >> 127);
    }
    return x;
}

/* ceil(a * b / 2^48) */
static inline int64_t mulh48(int64_t a, uint64_t b) {
    return (int64_t)(((__int128)a * (__int128)b + (((__int128)1 << 48) - 1)) >> 48);
}

/* exp(-xi / 2^48) in 48 fractional bits, never below the true value
 * (GALACTICS degree-10 coefficients, rounded up). */
static uint64_t approx_exp(uint64_t xi) {
    static const int64_t coef[11] = {
        INT64_C(55868746),        INT64_C(-743564434),      INT64_C(6953427278),
        INT64_C(-55833338892),    INT64_C(390932311155),    INT64_C(-2345623661771),
        INT64_C(11728123872951),  INT64_C(-46912496106200), INT64_C(140737488354861),
        INT64_C(-281474976710650), INT64_C(281474976710657),
    };
    int64_t r = coef[0];
    for (unsigned i = 1; i < 11; i++) r = mulh48(r, xi) + coef[i];
    return (uint64_t)r;
}

static inline uint64_t load_le(const uint8_t *p, unsigned n) {
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* One candidate from 26 bytes: 83 bits for the CDT, 48 for the acceptance
 * test, 72 for the fractional part.  Returns 1 when accepted. */
static uint32_t gauss_candidate(uint64_t *val, u128 *sq, const uint8_t r[CAND_BYTES]) {
    uint64_t x = cdt_sample(load_le(r, 8), (uint32_t)load_le(r + 8, 3) & 0x7ffff);
    uint64_t rej = load_le(r + 11, 6);
    hfix y = {load_le(r + 17, 6), load_le(r + 23, 3) | (x << 24)};
    uint64_t v = (((y.lo >> 15) + 1) >> 1) + (y.hi << 32);
    hfix s = haetae_fix_square(y);
    uint64_t e = s.hi - ((x * x) << 20);
    e = ((e << 20) | (s.lo >> 28)) + 1;
    e >>= 1;
    uint64_t below = (uint64_t)(((int64_t)(rej & ~UINT64_C(1)) - (int64_t)approx_exp(e)) >> 63) & 1;
    /* zero is on both halves of the line: keep it with probability 1/2 */
    uint64_t nonzero = (v | (0 - v)) >> 63;
    *val = v;
    *sq = ((u128)s.hi << 48) + s.lo;
    return (uint32_t)(below & (nonzero | (rej & 1)));
}

void haetae_ct_compact(uint64_t *val, uint8_t *keep, size_t n) {
    uint16_t d[CAND_CAP + 64];
    uint16_t dropped = 0;
    for (size_t i = 0; i < n; i++) {
        d[i] = dropped;
        dropped = (uint16_t)(dropped + (1 - keep[i]));
    }
    /* Each kept entry moves down by its d, one binary digit per round,
     * lowest first; the kept entries never collide on the way. */
    for (unsigned k = 0; ((size_t)1 << k) < n; k++) {
        const size_t s = (size_t)1 << k;
        for (size_t j = s; j < n; j++) {
            uint64_t m = 0 - (uint64_t)(keep[j] & ((d[j] >> k) & 1));
            size_t t = j - s;
            val[t] = (val[t] & ~m) | (val[j] & m);
            d[t] = (uint16_t)((d[t] & ~m) | (d[j] & m));
            keep[t] = (uint8_t)((keep[t] & ~m) | (1 & m));
            keep[j] = (uint8_t)(keep[j] & ~m);
        }
    }
}

/*
 * One polynomial of the Gaussian vector: the signs of len/8 bytes, then
 * candidates until len are accepted.  The first 256 values are written;
 * the squared values of all len accepted ones are added to *sqsum.
 */
static void gauss_poly(uint64_t out[HAETAE_N], uint8_t signs[HAETAE_N / 8], u128 *sqsum,
                       const uint8_t seed[HAETAE_CRHBYTES], uint16_t nonce, unsigned len) {
    kpqc_keccak st;
    uint8_t t[2] = {(uint8_t)nonce, (uint8_t)(nonce >> 8)};
    uint8_t buf[FIRST_BATCH * CAND_BYTES];
    uint64_t val[CAND_CAP];
    uint8_t keep[CAND_CAP];
    size_t n = 0;
    uint32_t count = 0;
    u128 sum = 0;

    kpqc_shake256_init(&st);
    kpqc_keccak_absorb(&st, seed, HAETAE_CRHBYTES);
    kpqc_keccak_absorb(&st, t, 2);
    kpqc_keccak_squeeze(&st, signs, HAETAE_N / 8);
    for (size_t batch = FIRST_BATCH;; batch = NEXT_BATCH) {
        if (n + batch > CAND_CAP) {
            /* all accepted ones so far (fewer than len) go to the front */
            haetae_ct_compact(val, keep, n);
            n = len;
        }
        kpqc_keccak_squeeze(&st, buf, batch * CAND_BYTES);
        for (size_t i = 0; i < batch; i++) {
            u128 sq;
            uint32_t acc = gauss_candidate(&val[n + i], &sq, buf + CAND_BYTES * i);
            uint32_t wanted = acc & ((count - len) >> 31); /* accepted, and count < len */
            u128 m = (u128)0 - wanted;
            sum += sq & m;
            count += acc;
            keep[n + i] = (uint8_t)acc;
        }
        n += batch;
        uint32_t done = ((uint32_t)len - 1 - count) >> 31; /* count >= len */
        KPQC_CT_DECLASSIFY(&done, sizeof done);
        if (done) break;
    }
    haetae_ct_compact(val, keep, n);
    memcpy(out, val, HAETAE_N * sizeof(uint64_t));
    *sqsum += sum;
    kpqc_wipe(val, sizeof val);
    kpqc_wipe(buf, sizeof buf);
    kpqc_keccak_wipe(&st);
}

uint16_t haetae_sample_hyperball(const struct haetae_params *p, int32_t y[][HAETAE_N],
                                 uint8_t *b, const uint8_t seed[HAETAE_CRHBYTES],
                                 uint16_t nonce) {
    const unsigned rows = p->l + p->k;
    uint64_t samples[(HAETAE_LMAX + HAETAE_KMAX) * HAETAE_N];
    uint8_t signs[(HAETAE_LMAX + HAETAE_KMAX) * HAETAE_N / 8];
    const uint64_t bound = p->b0sq * HAETAE_LN * HAETAE_LN;
    uint16_t ni = nonce;
    for (;;) {
        u128 sq = 0;
        /* two extra coordinates: the ball is the projection of a sphere of
         * dimension n (l + k) + 2 */
        for (unsigned i = 0; i < rows; i++)
            gauss_poly(samples + HAETAE_N * i, signs + HAETAE_N / 8 * i, &sq, seed, ni++,
                       i < 2 ? HAETAE_N + 1 : HAETAE_N);
        u128 half = (sq + 1) >> 1;
        hfix xhalf = {(uint64_t)half & ((UINT64_C(1) << 48) - 1), (uint64_t)(half >> 48)};
        hfix scale = haetae_fix_mul_u64(haetae_fix_invsqrt(p, xhalf), p->radius_scale);
        uint64_t norm = 0;
        for (unsigned i = 0; i < rows; i++) {
            for (unsigned j = 0; j < HAETAE_N; j++) {
                unsigned idx = HAETAE_N * i + j;
                int32_t v = haetae_fix_scale_round(samples[idx], scale, (signs[idx / 8] >> (idx % 8)) & 1);
                y[i][j] = v;
                norm += (uint64_t)((int64_t)v * v);
            }
        }
        uint32_t reject = (uint32_t)((bound - norm) >> 63);
        KPQC_CT_DECLASSIFY(&reject, sizeof reject);
        if (!reject) break;
    }
    uint8_t tmp[HAETAE_CRHBYTES + 2];
    memcpy(tmp, seed, HAETAE_CRHBYTES);
    tmp[HAETAE_CRHBYTES] = (uint8_t)ni;
    tmp[HAETAE_CRHBYTES + 1] = (uint8_t)(ni >> 8);
    kpqc_shake256(b, 1, tmp, sizeof tmp);
    kpqc_wipe(samples, sizeof samples);
    kpqc_wipe(tmp, sizeof tmp);
    return ni;
}
