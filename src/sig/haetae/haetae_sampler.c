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
#include <stddef.h>
#include <string.h>

#include "common/ct.h"
#include "common/keccak.h"
#include "haetae.h"
#include "internal.h"

typedef unsigned __int128 u128;

#define CAND_BYTES HAETAE_CAND_BYTES

/* floor(CDF(k) * 2^83), CDF of the half-Gaussian rho(k) = exp(-k^2/512),
 * k = 0..165, split at bit 42 so that both halves compare as signed 64-bit
 * differences (which vectorises), padded with 2^83 - 1 (never below an
 * input) to 176.  A sample counts entries, so their order is free: row j
 * (of 16, 11 wide) holds entries j, 16 + j, ..., 160 + j, so that a
 * vector kernel reads entry 16 b + j of any block b from row j. */
const int64_t kpqc_haetae_cdt_hi[HAETAE_CDT_SLOTS] = {
    0x018e942a95c, 0x168f71dd1b2, 0x1eaebd14051, 0x1fec90e93d5, 0x1fff8ecb81b, 0x1fffff01d6c,
        0x1fffffff272, 0x1fffffffffb, 0x1ffffffffff, 0x1ffffffffff, 0x1ffffffffff,
    0x031c613ce08, 0x17721ae0c01, 0x1ede3fc82c4, 0x1ff03acc500, 0x1fffa96697d, 0x1fffff48eb4,
        0x1fffffff6d0, 0x1fffffffffd, 0x1ffffffffff, 0x1ffffffffff, 0x1ffffffffff,
    0x04a7db5a371, 0x1845c9e0773, 0x1f07ee9f4ee, 0x1ff33fca8ac, 0x1fffbe00152, 0x1fffff7c9e5,
        0x1fffffff9cb, 0x1fffffffffe, 0x1ffffffffff, 0x1ffffffffff, 0x1ffffffffff,
    0x062f7d961e8, 0x190ab6e200d, 0x1f2c5c17399, 0x1ff5ba65b38, 0x1fffcde32b0, 0x1fffffa2133,
        0x1fffffffbd3, 0x1fffffffffe, 0x1ffffffffff, 0x1ffffffffff, 0x1ffffffffff,
    0x07b1ce6e10f, 0x19c13271a29, 0x1f4c1209b9a, 0x1ff7c15c3b1, 0x1fffda179b6, 0x1fffffbd1b5,
        0x1fffffffd34, 0x1ffffffffff, 0x1ffffffffff, 0x1ffffffffff, 0x1ffffffffff,
    0x092d640ad8b, 0x1a69a2f9173, 0x1f679145574, 0x1ff968195c9, 0x1fffe36e85f, 0x1fffffd089f,
        0x1fffffffe22, 0x1ffffffffff, 0x1ffffffffff, 0x1ffffffffff, 0x1ffffffffff,
    0x0aa0e83513c, 0x1b0481f46a3, 0x1f7f51551a4, 0x1ffabf1cd80, 0x1fffea8cfe1, 0x1fffffde742,
        0x1fffffffec2, 0x1ffffffffff, 0x1ffffffffff, 0x1ffffffffff, 0x1ffffffffff,
    0x0c0b1bea831, 0x1b925914b00, 0x1f93c07234e, 0x1ffbd459fe8, 0x1fffeff4bfa, 0x1fffffe860f,
        0x1ffffffff2d, 0x1ffffffffff, 0x1ffffffffff, 0x1ffffffffff, 0x1ffffffffff,
    0x0d6ada844e1, 0x1c13bf5fbcd, 0x1fa5439a360, 0x1ffcb38e03e, 0x1ffff40b4df, 0x1fffffef6e2,
        0x1ffffffff75, 0x1ffffffffff, 0x1ffffffffff, 0x1ffffffffff, 0x1ffffffffff,
    0x0ebf1c6149b, 0x1c89565ad3f, 0x1fb436c454b, 0x1ffd668db9a, 0x1ffff71fbeb, 0x1ffffff46bc,
        0x1ffffffffa4, 0x1ffffffffff, 0x1ffffffffff, 0x1ffffffffff, 0x1ffffffffff,
    0x1006f90a806, 0x1cf3c74cdf2, 0x1fc0ed3079d, 0x1ffdf58aff3, 0x1ffff96f6a0, 0x1ffffff7f06,
        0x1ffffffffc4, 0x1ffffffffff, 0x1ffffffffff, 0x1ffffffffff, 0x1ffffffffff,
    0x1141a8cb94c, 0x1d53c0a31d6, 0x1fcbb1cae53, 0x1ffe675251b, 0x1ffffb29b07, 0x1ffffffa68d,
        0x1ffffffffd8, 0x1ffffffffff, 0x1ffffffffff, 0x1ffffffffff, 0x1ffffffffff,
    0x126e85bc03d, 0x1da9f38175e, 0x1fd4c79f96a, 0x1ffec180f98, 0x1ffffc7300b, 0x1ffffffc234,
        0x1ffffffffe6, 0x1ffffffffff, 0x1ffffffffff, 0x1ffffffffff, 0x1ffffffffff,
    0x138d0c39b12, 0x1df71185c39, 0x1fdc6a59071, 0x1fff08b4632, 0x1ffffd67400, 0x1ffffffd577,
        0x1ffffffffef, 0x1ffffffffff, 0x1ffffffffff, 0x1ffffffffff, 0x1ffffffffff,
    0x149cdad864b, 0x1e3bcac3966, 0x1fe2cec62dc, 0x1fff40b337b, 0x1ffffe1bb2f, 0x1ffffffe2d6,
        0x1fffffffff5, 0x1ffffffffff, 0x1ffffffffff, 0x1ffffffffff, 0x1ffffffffff,
    0x159db1cce76, 0x1e78cbfc173, 0x1fe8236444b, 0x1fff6c90ccf, 0x1ffffea07e7, 0x1ffffffec14,
        0x1fffffffff9, 0x1ffffffffff, 0x1ffffffffff, 0x1ffffffffff, 0x1ffffffffff,
};
const int64_t kpqc_haetae_cdt_lo[HAETAE_CDT_SLOTS] = {
    0x2bc88db1e28, 0x3e1ac90c9eb, 0x20fdfd508c9, 0x3cbefabc820, 0x2b33bf2b7d9, 0x17481687af0,
        0x1bd39a036ec, 0x2939680bfaf, 0x3fde713ef71, 0x3ffffe7e364, 0x3ffffffff9e,
    0x0e69064b2ee, 0x0341d78466f, 0x303a2a54906, 0x25fd5022976, 0x2c550dfe7e2, 0x13e68301c65,
        0x0bd4ee1f846, 0x0e4216290db, 0x3febe18936f, 0x3fffff268d7, 0x3ffffffffce,
    0x04dd1418704, 0x0a572bb3d8a, 0x2dbeb04b20c, 0x228aab1981b, 0x0f3927f906e, 0x15fae1c84cb,
        0x3a859b20a4a, 0x0f1c044613e, 0x3ff3fbfc997, 0x3fffff85e8e, 0x3ffffffffe7,
    0x04d9b97b1dd, 0x36cc82a5384, 0x26b741b666d, 0x1e60378cd98, 0x146b573bc40, 0x1b07368c266,
        0x2dda93d266d, 0x3892dc2b174, 0x3ff8d9fa29a, 0x3fffffbbb6f, 0x3fffffffff4,
    0x0e0a65d0050, 0x1c477dfecb9, 0x09fded20430, 0x24b38e3ca90, 0x2dec4b6aff1, 0x0f897fc83f6,
        0x07a9fb0d4e0, 0x12fb4188608, 0x3ffbc372590, 0x3fffffd9f49, 0x3fffffffffb,
    0x0b869003e7d, 0x2b02a25fef3, 0x1354fcf6ff6, 0x29615dcd7c6, 0x1fa17def8ec, 0x246663ec049,
        0x068ef31b1cc, 0x23bc0a56eba, 0x3ffd7fb7dfd, 0x3fffffeae2c, 0x3fffffffffe,
    0x194f8bf43c6, 0x0cd208dbaa1, 0x226a1d318f6, 0x038bdc85312, 0x0d06ce20a93, 0x11c1b5aff07,
        0x0c16a3f5f0c, 0x2e523b218c6, 0x3ffe87747f9, 0x3ffffff453d, 0x3ffffffffff,
    0x3acb211b4db, 0x02b9085e7db, 0x020cfa9cabc, 0x02a57a8ae1a, 0x167c5186746, 0x0533c3890a6,
        0x1d30be5cabf, 0x34fc31097e3, 0x3fff2368b89, 0x3ffffff9928, 0x3ffffffffff,
    0x3f7f524be80, 0x21c5551378d, 0x3bbf700fc40, 0x2b2ea9b2bef, 0x2cd7e9b180f, 0x2602066b0f2,
        0x03465d95fe6, 0x3929d76dbeb, 0x3fff7f44d88, 0x3ffffffc797, 0x3ffffffffff,
    0x0a6f2ceb77f, 0x349d9e5a8bb, 0x18944042803, 0x2bd6509b5a2, 0x3a8bd33f0bb, 0x06df3db86b7,
        0x29a538ad2fa, 0x3bc5e7c0350, 0x3fffb52a49b, 0x3ffffffe12f, 0x3ffffffffff,
    0x2906b7dad17, 0x14ede732d83, 0x01aabe53700, 0x31d6ba81c37, 0x26341e791cc, 0x2818587e2aa,
        0x0b1c2119732, 0x3d6586c6684, 0x3fffd4a9ffb, 0x3ffffffef3c, 0x3ffffffffff,
    0x37a1966b9a7, 0x38d3fe83c38, 0x056e0f9a967, 0x28bf96caa93, 0x06ce045599f, 0x3a348ac2a93,
        0x3df8795a2c9, 0x3e6716865f7, 0x3fffe700579, 0x3fffffff6eb, 0x3ffffffffff,
    0x3ac9735f58a, 0x3d130fe20e0, 0x00a79e4539c, 0x262ea8cda2d, 0x00faa9a526e, 0x0797970dbfe,
        0x287a0a9f2af, 0x3f0613c76e2, 0x3ffff1a287f, 0x3fffffffb1b, 0x3ffffffffff,
    0x0f40642ba60, 0x20b76d85108, 0x1d11feb4d12, 0x0b333ae9203, 0x2901a4a4e52, 0x373fd7a00bc,
        0x24df6f0f4a9, 0x3f67d62ab64, 0x3ffff7c6f06, 0x3fffffffd60, 0x3ffffffffff,
    0x3a1afb5e4ec, 0x092414901ff, 0x1598b73dde0, 0x1b5a7718d61, 0x1139ce07540, 0x2a573bca5ce,
        0x1a10f204910, 0x3fa3b6664c0, 0x3ffffb4fa99, 0x3fffffffe9a, 0x3ffffffffff,
    0x3a8ffc2fcf5, 0x370b911f3de, 0x3b5a7904d7e, 0x2cab8497c0a, 0x315ffb47f4c, 0x3c109f51681,
        0x0c6f1668b32, 0x3fc83e13d66, 0x3ffffd56300, 0x3ffffffff43, 0x3ffffffffff,
};
/* Number of table entries below the 83-bit uniform value: a sample of the
 * half-Gaussian of width 16.  rnd > e exactly when the low halves borrow
 * into a negative difference of the high halves. */
uint64_t kpqc_haetae_cdt_sample_portable(uint64_t lo, uint32_t hi) {
    const int64_t r_lo = (int64_t)(lo & ((UINT64_C(1) << HAETAE_CDT_SPLIT) - 1));
    const int64_t r_hi = (int64_t)((lo >> HAETAE_CDT_SPLIT) | ((uint64_t)hi << (64 - HAETAE_CDT_SPLIT)));
    uint64_t x = 0;
    for (unsigned i = 0; i < HAETAE_CDT_SLOTS; i++) {
        uint64_t borrow = (uint64_t)(kpqc_haetae_cdt_lo[i] - r_lo) >> 63;
        x += (uint64_t)(kpqc_haetae_cdt_hi[i] - r_hi - (int64_t)borrow) >> 63;
    }
    return x;
}

/* ceil(a * b / 2^48) (one signed 64-bit multiply) */
static inline int64_t mulh48(int64_t a, int64_t b) {
    return (int64_t)(((__int128)a * b + (((__int128)1 << 48) - 1)) >> 48);
}

/* exp(-xi / 2^48) in 48 fractional bits, never below the true value
 * (GALACTICS degree-10 coefficients, rounded up), for eight xi.  The
 * candidates give 0 <= xi < 2^48 (see haetae.h); Horner's r then stays
 * below 2^50 in magnitude. */
const int64_t kpqc_haetae_exp_coef[HAETAE_EXP_DEGREE + 1] = {HAETAE_EXP_COEFS};
void kpqc_haetae_approx_exp8(uint64_t out[8], const int64_t xi[8]) {
    for (unsigned j = 0; j < 8; j++) {
        int64_t r = kpqc_haetae_exp_coef[0];
        for (unsigned i = 1; i <= HAETAE_EXP_DEGREE; i++) r = mulh48(r, xi[j]) + kpqc_haetae_exp_coef[i];
        out[j] = (uint64_t)r;
    }
}

static inline uint64_t load_le(const uint8_t *p, unsigned n) {
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* A candidate before its acceptance test: the value, its square, the 48
 * bits of the test and the exponent it is tested against. */
struct cand {
    uint64_t v, rej, sq_lo, sq_hi;
    int64_t e;
};

/* One candidate from 26 bytes: 83 bits for the CDT (whose sample x is
 * given), 48 for the acceptance test, 72 for the fractional part. */
static void gauss_candidate(struct cand *c, const uint8_t r[CAND_BYTES], uint64_t x) {
    c->rej = load_le(r + 11, 6);
    hfix y = {load_le(r + 17, 6), load_le(r + 23, 3) | (x << 24)};
    c->v = (((y.lo >> 15) + 1) >> 1) + (y.hi << 32);
    hfix s = kpqc_haetae_fix_square(y);
    uint64_t e = s.hi - ((x * x) << 20);
    e = ((e << 20) | (s.lo >> 28)) + 1;
    c->e = (int64_t)(e >> 1);
    c->sq_lo = s.lo;
    c->sq_hi = s.hi;
}

/* 1 when the candidate is accepted, given exp(-e) */
static uint32_t gauss_accept(const struct cand *c, uint64_t ex) {
    uint64_t below = (uint64_t)(((int64_t)(c->rej & ~UINT64_C(1)) - (int64_t)ex) >> 63) & 1;
    /* zero is on both halves of the line: keep it with probability 1/2 */
    uint64_t nonzero = (c->v | (0 - c->v)) >> 63;
    return (uint32_t)(below & (nonzero | (c->rej & 1)));
}

void kpqc_haetae_ct_compact(uint64_t *val, uint8_t *keep, size_t n, size_t max_d) {
    uint16_t d[HAETAE_CAND_CAP + 64];
    uint16_t dropped = 0;
    for (size_t i = 0; i < n; i++) {
        d[i] = dropped;
        dropped = (uint16_t)(dropped + (1 - keep[i]));
    }
    /* Each kept entry moves down by its d, one binary digit per round,
     * lowest first; the kept entries never collide on the way. */
    for (unsigned k = 0; ((size_t)1 << k) <= max_d; k++) {
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

/* Up to sixteen candidates given their CDT samples x, their exponentials
 * computed eight side by side (independent multiply chains instead of
 * one). */
void kpqc_haetae_gauss16_from_cdt(struct haetae_cands *out, const uint8_t *r, size_t n, const uint64_t *x) {
    struct cand c[8];
    int64_t xi[8];
    uint64_t ex[8];
    for (size_t at = 0; at < n; at += 8) {
        const size_t m = n - at < 8 ? n - at : 8;
        memset(xi, 0, sizeof xi);
        for (size_t i = 0; i < m; i++) {
            gauss_candidate(&c[i], r + (at + i) * CAND_BYTES, x[at + i]);
            xi[i] = c[i].e;
        }
        kpqc_haetae_approx_exp8(ex, xi);
        for (size_t i = 0; i < m; i++) {
            out->v[at + i] = c[i].v;
            out->accept[at + i] = gauss_accept(&c[i], ex[i]);
            out->sq_lo[at + i] = c[i].sq_lo;
            out->sq_hi[at + i] = c[i].sq_hi;
        }
    }
    kpqc_wipe(c, sizeof c);
    kpqc_wipe(xi, sizeof xi);
    kpqc_wipe(ex, sizeof ex);
}

void kpqc_haetae_gauss16_portable(struct haetae_cands *out, const uint8_t *r, size_t n) {
    uint64_t x[HAETAE_CAND_BATCH];
    for (size_t i = 0; i < n; i++) {
        const uint8_t *c = r + i * CAND_BYTES;
        x[i] = kpqc_haetae_cdt_sample_portable(load_le(c, 8), (uint32_t)load_le(c + 8, 3) & 0x7ffff);
    }
    kpqc_haetae_gauss16_from_cdt(out, r, n, x);
    kpqc_wipe(x, sizeof x);
}

void kpqc_haetae_gauss_feed_generic(struct haetae_gauss_lane *g, const uint8_t *r, size_t n) {
    struct haetae_cands *b = &g->cands; /* wiped with the working memory */
    for (size_t at = 0; at < n; at += HAETAE_CAND_BATCH) {
        const size_t m = n - at < HAETAE_CAND_BATCH ? n - at : HAETAE_CAND_BATCH;
        g->be->gauss(b, r + at * CAND_BYTES, m);
        for (size_t i = 0; i < m; i++) {
            uint64_t wanted = 0 - (b->accept[i] & ((g->count - g->len) >> 31)); /* accepted, and count < len */
            g->sum_lo += b->sq_lo[i] & wanted;
            g->sum_hi += b->sq_hi[i] & wanted;
            g->count += (uint32_t)b->accept[i];
            g->val[g->n + at + i] = b->v[i];
            g->keep[g->n + at + i] = (uint8_t)b->accept[i];
        }
    }
}

/*
 * One polynomial of the Gaussian vector, fed its stream piece by piece:
 * candidates until len are accepted.  The squared values of the first len
 * accepted ones are summed; the first 256 values are the output.
 */
static void gauss_candidates_into(struct haetae_gauss_lane *g, const uint8_t *r, size_t n) {
    if (g->n + n > HAETAE_CAND_CAP) {
        /* the first len accepted ones so far go to the front; any kept
         * after them are never used */
        g->be->compact(g->val, g->keep, g->n, g->n - 1);
        g->n = g->len;
    }
    g->be->gauss_feed(g, r, n);
    g->n += n;
}

/* The candidates of len bytes of the lane's stream; a candidate's bytes
 * left over go to the front of its buffer, where the next block joins
 * them. */
static void gauss_feed(struct haetae_gauss_lane *g, const uint8_t *bytes, size_t len) {
    size_t pos = 0;
    while (pos + CAND_BYTES <= len) {
        size_t n = (len - pos) / CAND_BYTES;
        n = n < HAETAE_FEED_BATCH ? n : HAETAE_FEED_BATCH;
        gauss_candidates_into(g, bytes + pos, n);
        pos += n * CAND_BYTES;
    }
    g->ncarry = len - pos;
    memmove(g->buf, bytes + pos, g->ncarry);
    uint32_t done = ((uint32_t)g->len - 1 - g->count) >> 31; /* count >= len */
    KPQC_CT_DECLASSIFY(&done, sizeof done);
    g->done = (int)done;
}

/* ---- the rows' streams as a queue ---- */

/* Eight states where the eight-way permutation is a kernel of its own
 * (AVX-512: it costs about 1.5 four-way ones).  Elsewhere it is two
 * four-way permutations, so eight states cost as much per lane and waste
 * more: the row queue runs further ahead into rows never used (haetae3
 * signing at avx2 took 6 % more permutation instructions on eight). */
unsigned kpqc_haetae_keccak_width(void) { return kpqc_keccakx8_select_backend()->single_kernel ? 8 : 4; }

void kpqc_haetae_hyperball_start(const struct haetae_params *p, struct haetae_gauss_ws *ws,
                                 const uint8_t seed[HAETAE_CRHBYTES], uint16_t nonce) {
    ws->width = kpqc_haetae_keccak_width();
    ws->f1600x8 = kpqc_keccakx8_select_backend()->f1600x8;
    ws->x4 = kpqc_keccakx4_select_backend();
    ws->rows = p->l + p->k;
    memcpy(ws->in, seed, HAETAE_CRHBYTES);
    ws->nonce0 = nonce;
    ws->base = ws->next = ws->ready_now = 0;
    memset(ws->ready, 0, sizeof ws->ready);
    for (unsigned j = 0; j < ws->width; j++) ws->lanes[j].busy = 0;
}

/* State j starts row ws->next: SHAKE256(seed || nonce0 + row). */
static void lane_start(struct haetae_gauss_ws *ws, const struct haetae_backend *be, unsigned j) {
    struct haetae_gauss_lane *g = &ws->lanes[j];
    const uint32_t row = ws->next++;
    const unsigned in_attempt = row % ws->rows;
    const uint16_t nonce = (uint16_t)(ws->nonce0 + row);
    ws->in[HAETAE_CRHBYTES] = (uint8_t)nonce;
    ws->in[HAETAE_CRHBYTES + 1] = (uint8_t)(nonce >> 8);
    for (unsigned i = 0; i < 25; i++) ws->st[i * ws->width + j] = 0;
    kpqc_keccak_xor_instance(ws->st, ws->width, j, ws->in, sizeof ws->in);
    kpqc_keccak_pad_instance(ws->st, ws->width, j, sizeof ws->in, KPQC_SHAKE256_RATE, 0x1f);
    /* the first two rows of an attempt take 257 samples */
    g->len = in_attempt < 2 ? HAETAE_N + 1 : HAETAE_N;
    g->n = 0;
    g->count = 0;
    g->sum_lo = g->sum_hi = 0;
    g->ncarry = 0;
    g->done = 0;
    g->be = be;
    g->row = row;
    g->blocks = 0;
    g->busy = 1;
}

/* A finished row into its slot: the first 256 of the accepted values, its
 * sign bytes already there. */
static void lane_finish(struct haetae_gauss_ws *ws, unsigned j) {
    struct haetae_gauss_lane *g = &ws->lanes[j];
    const unsigned slot = g->row % HAETAE_ROW_SLOTS;
    /* len or more of the n were accepted: none moves more than n - len */
    g->be->compact(g->val, g->keep, g->n, g->n - g->len);
    memcpy(ws->samples[slot], g->val, sizeof ws->samples[slot]);
    ws->sum_lo[slot] = g->sum_lo;
    ws->sum_hi[slot] = g->sum_hi;
    ws->ready[slot] = 1;
    ws->ready_now += g->row < ws->base + ws->rows;
    g->busy = 0;
}

/* Where a lane's next block goes: after the blocks so far until the first
 * evaluation, then after the carried bytes. */
static uint8_t *block_dest(struct haetae_gauss_lane *g) {
    return g->buf + (g->blocks < HAETAE_FIRST_BLOCKS ? g->blocks * KPQC_SHAKE256_RATE : g->ncarry);
}

/* One permutation of all states, and each busy one's block to its row.
 * Four states store together (an idle one into its own buffer, unused
 * until the lane starts a row). */
static void queue_step(struct haetae_gauss_ws *ws) {
    const unsigned w = ws->width;
    if (w == 8) {
        ws->f1600x8((uint64_t(*)[8])ws->st);
        for (unsigned j = 0; j < w; j++)
            if (ws->lanes[j].busy)
                kpqc_haetae_store_lanes(block_dest(&ws->lanes[j]), ws->st, w, j, KPQC_SHAKE256_RATE / 8);
    } else {
        ws->x4->f1600x4((uint64_t(*)[4])ws->st);
        uint8_t *out[4];
        for (unsigned j = 0; j < 4; j++) out[j] = ws->lanes[j].busy ? block_dest(&ws->lanes[j]) : ws->lanes[j].buf;
        ws->x4->store_lanes(out, (const uint64_t(*)[4])ws->st, KPQC_SHAKE256_RATE / 8);
    }
    for (unsigned j = 0; j < w; j++) {
        struct haetae_gauss_lane *g = &ws->lanes[j];
        if (!g->busy) continue;
        g->blocks++;
        if (g->blocks < HAETAE_FIRST_BLOCKS) continue;
        if (g->blocks == HAETAE_FIRST_BLOCKS) {
            memcpy(ws->signs[g->row % HAETAE_ROW_SLOTS], g->buf, HAETAE_N / 8);
            gauss_feed(g, g->buf + HAETAE_N / 8, sizeof g->buf - HAETAE_N / 8);
        } else {
            gauss_feed(g, g->buf, g->ncarry + KPQC_SHAKE256_RATE);
        }
        if (g->done) lane_finish(ws, j);
    }
}

void kpqc_haetae_hyperball_wipe(struct haetae_gauss_ws *ws) {
    /* lanes from width on were never started (half of them at four states) */
    kpqc_wipe(ws->lanes, ws->width * sizeof ws->lanes[0]);
    kpqc_wipe((uint8_t *)ws + offsetof(struct haetae_gauss_ws, st), sizeof *ws - offsetof(struct haetae_gauss_ws, st));
}

/* Runs the queue until the current attempt's rows are all in their slots. */
static void queue_fill(struct haetae_gauss_ws *ws, const struct haetae_backend *be) {
    while (ws->ready_now < ws->rows) {
        for (unsigned j = 0; j < ws->width; j++)
            if (!ws->lanes[j].busy && ws->next < ws->base + 2 * ws->rows) lane_start(ws, be, j);
        queue_step(ws);
    }
}

/* The first byte of row's stream if the queue has squeezed it: in the
 * row's slot once 49 blocks are out, before that at the front of its
 * lane's buffer.  Returns 0 when it has not. */
static int first_byte_of_row(const struct haetae_gauss_ws *ws, uint32_t row, uint8_t *out) {
    const unsigned slot = row % HAETAE_ROW_SLOTS;
    if (ws->ready[slot]) {
        *out = ws->signs[slot][0];
        return 1;
    }
    for (unsigned j = 0; j < ws->width; j++) {
        const struct haetae_gauss_lane *g = &ws->lanes[j];
        if (!g->busy || g->row != row || g->blocks == 0) continue;
        *out = g->blocks < HAETAE_FIRST_BLOCKS ? g->buf[0] : ws->signs[slot][0];
        return 1;
    }
    return 0;
}

void kpqc_haetae_sample_hyperball(const struct haetae_params *p, const struct haetae_backend *be,
                                  struct haetae_gauss_ws *ws, int32_t y[][HAETAE_N], uint8_t *b) {
    const unsigned rows = ws->rows;
    const uint64_t bound = p->b0sq * HAETAE_LN * HAETAE_LN;
    for (;;) {
        queue_fill(ws, be);
        /* two extra coordinates: the ball is the projection of a sphere of
         * dimension n (l + k) + 2 */
        u128 sq = 0;
        for (unsigned r = 0; r < rows; r++) {
            const unsigned slot = (ws->base + r) % HAETAE_ROW_SLOTS;
            sq += ((u128)ws->sum_hi[slot] << 48) + ws->sum_lo[slot];
        }
        u128 half = (sq + 1) >> 1;
        hfix xhalf = {(uint64_t)half & ((UINT64_C(1) << 48) - 1), (uint64_t)(half >> 48)};
        hfix scale = kpqc_haetae_fix_mul_u64(kpqc_haetae_fix_invsqrt(p, xhalf), p->radius_scale);
        /* a chain of fixed-point products' high halves, which MemorySanitizer
         * does not see depend on the samples' norm (KPQC_CT_TAINT) */
        KPQC_CT_TAINT(&scale, sizeof scale, &xhalf, sizeof xhalf);
        KPQC_CT_EXPECT_SECRET(&scale, sizeof scale, "the hyperball's scale");
        uint64_t norm = 0;
        for (unsigned r = 0; r < rows; r++) {
            const unsigned slot = (ws->base + r) % HAETAE_ROW_SLOTS;
            norm += be->scale_round(y[r], ws->samples[slot], ws->signs[slot], HAETAE_N, scale);
            ws->ready[slot] = 0;
        }
        ws->base += rows;
        ws->ready_now = 0;
        for (unsigned r = 0; r < rows; r++) ws->ready_now += ws->ready[(ws->base + r) % HAETAE_ROW_SLOTS];
        uint32_t reject = (uint32_t)((bound - norm) >> 63);
        KPQC_CT_DECLASSIFY(&reject, sizeof reject);
        if (!reject) break;
    }
    /* b is the first byte of the next row's stream, which the queue has
     * usually squeezed already (which rows are how far is public) */
    if (first_byte_of_row(ws, ws->base, b)) return;
    uint8_t tmp[HAETAE_CRHBYTES + 2];
    const uint16_t ni = (uint16_t)(ws->nonce0 + ws->base);
    memcpy(tmp, ws->in, HAETAE_CRHBYTES);
    tmp[HAETAE_CRHBYTES] = (uint8_t)ni;
    tmp[HAETAE_CRHBYTES + 1] = (uint8_t)(ni >> 8);
    kpqc_shake256(b, 1, tmp, sizeof tmp);
    kpqc_wipe(tmp, sizeof tmp);
}
