/*
 * NTRU+ arithmetic: every vector backend this CPU runs against the portable
 * ones on random inputs (compared mod q), and the portable NTT-based
 * product against a schoolbook product modulo X^n - X^(n/2) + 1;
 * inverse transform and NTT-domain inversion round trips.
 */
#include <stdint.h>
#include <string.h>

#include "harness.h"
#include "internal.h"
#include "kem/ntruplus/ntruplus.h"

#define NMAX NTRUPLUS_NMAX
#define Q NTRUPLUS_Q

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 16);
}
/* uniform in (-q, q) */
static void random_poly(int16_t *a, unsigned n) {
    for (unsigned i = 0; i < n; i++) a[i] = (int16_t)((int)(rnd() % (2 * Q - 1)) - (Q - 1));
}
static int32_t modq(int32_t x) {
    x %= Q;
    return x < 0 ? x + Q : x;
}
static int same_mod_q(const int16_t *a, const int16_t *b, unsigned n) {
    for (unsigned i = 0; i < n; i++)
        if (modq(a[i]) != modq(b[i])) return 0;
    return 1;
}
static int in_range(const int16_t *a, unsigned n) {
    for (unsigned i = 0; i < n; i++)
        if (a[i] <= -Q || a[i] >= Q) return 0;
    return 1;
}

/* c = a b mod (q, X^n - X^(n/2) + 1) */
static void schoolbook(int16_t *c, const int16_t *a, const int16_t *b, unsigned n) {
    static int64_t t[2 * NMAX];
    memset(t, 0, sizeof t);
    for (unsigned i = 0; i < n; i++)
        for (unsigned j = 0; j < n; j++) t[i + j] += (int64_t)a[i] * b[j];
    for (unsigned k = 2 * n - 1; k >= n; k--) { /* X^n = X^(n/2) - 1 */
        t[k - n / 2] += t[k];
        t[k - n] -= t[k];
        t[k] = 0;
    }
    for (unsigned i = 0; i < n; i++) c[i] = (int16_t)(((t[i] % Q) + Q) % Q);
}

static void check_portable(const kpqc_ntruplus_params *p) {
    const kpqc_ntruplus_backend *be = &kpqc_ntruplus_backend_portable;
    const unsigned n = p->n;
    int16_t a[NMAX] = {0}, b[NMAX] = {0}, c[NMAX] = {0}, d[NMAX] = {0}, e[NMAX] = {0};
    for (int iter = 0; iter < 3; iter++) {
        random_poly(a, n);
        for (unsigned i = 0; i < n; i++) b[i] = (int16_t)((int)(rnd() % 3) - 1);
        if (iter == 2) random_poly(b, n);
        schoolbook(c, a, b, n);
        memcpy(d, a, sizeof d);
        memcpy(e, b, sizeof e);
        be->ntt(p, d);
        be->ntt(p, e);
        CHECK(in_range(d, n) && in_range(e, n));
        be->basemul(p, d, d, e);
        be->invntt(p, d);
        CHECK(in_range(d, n));
        CHECK_MSG(same_mod_q(c, d, n), "n=%u: NTT product differs from schoolbook", n);
    }
    /* X * X^(n-1) = X^n = X^(n/2) - 1: a fixed point of the ring's definition */
    memset(a, 0, sizeof a);
    memset(b, 0, sizeof b);
    a[1] = 1;
    b[n - 1] = 1;
    be->ntt(p, a);
    be->ntt(p, b);
    be->basemul(p, a, a, b);
    be->invntt(p, a);
    for (unsigned i = 0; i < n; i++) {
        int32_t want = i == n / 2 ? 1 : i == 0 ? Q - 1 : 0;
        CHECK_MSG(modq(a[i]) == want, "n=%u: X^n at %u", n, i);
    }
    /* inverse transform round trip, and inversion */
    for (int iter = 0; iter < 20; iter++) {
        random_poly(a, n);
        memcpy(b, a, sizeof b);
        be->ntt(p, b);
        memcpy(c, b, sizeof c);
        be->invntt(p, c);
        CHECK(same_mod_q(a, c, n));
        if (be->baseinv(p, d, b) == 0) {
            be->basemul(p, e, b, d);
            for (unsigned i = 0; i < n; i++)
                CHECK_MSG(modq(e[i]) == (i % p->d == 0), "n=%u: a * a^-1 at %u", n, i);
        }
    }
    /* a non-invertible element is reported */
    memset(a, 0, sizeof a);
    a[0] = 1;
    be->ntt(p, a);
    memset(a + 2 * p->d, 0, p->d * sizeof a[0]); /* one base ring element zero */
    CHECK(be->baseinv(p, b, a) == 1);
}

/* A vector backend against the portable one. */
static void check_backend(const kpqc_ntruplus_params *p, const kpqc_ntruplus_backend *vec) {
    const kpqc_ntruplus_backend *ref = &kpqc_ntruplus_backend_portable;
    const char *name = vec->info.name;
    const unsigned n = p->n;
    int16_t a[NMAX] = {0}, b[NMAX] = {0}, c[NMAX] = {0}, x[NMAX] = {0}, y[NMAX] = {0};
    for (int iter = 0; iter < 200; iter++) {
        random_poly(a, n);
        if (iter == 0)
            for (unsigned i = 0; i < n; i++) a[i] = Q - 1; /* extremes */
        if (iter == 1)
            for (unsigned i = 0; i < n; i++) a[i] = -(Q - 1);
        memcpy(x, a, sizeof x);
        memcpy(y, a, sizeof y);
        ref->ntt(p, x);
        vec->ntt(p, y);
        CHECK(in_range(y, n));
        CHECK_MSG(same_mod_q(x, y, n), "%s n=%u: NTT differs", name, n);
        memcpy(x, a, sizeof x);
        memcpy(y, a, sizeof y);
        ref->invntt(p, x);
        vec->invntt(p, y);
        CHECK(in_range(y, n));
        CHECK_MSG(same_mod_q(x, y, n), "%s n=%u: inverse NTT differs", name, n);
        random_poly(b, n);
        random_poly(c, n);
        ref->basemul(p, x, a, b);
        vec->basemul(p, y, a, b);
        CHECK(in_range(y, n));
        CHECK_MSG(same_mod_q(x, y, n), "%s n=%u: basemul differs", name, n);
        ref->basemul_add(p, x, a, b, c);
        vec->basemul_add(p, y, a, b, c);
        CHECK(in_range(y, n));
        CHECK_MSG(same_mod_q(x, y, n), "%s n=%u: basemul_add differs", name, n);
        int rx = ref->baseinv(p, x, a), ry = vec->baseinv(p, y, a);
        CHECK_MSG(rx == ry, "%s n=%u: inversion verdict differs", name, n);
        if (rx == 0) CHECK_MSG(same_mod_q(x, y, n), "%s n=%u: inversion differs", name, n);
        if (test_failures) break;
    }
    /* serialisation: random coefficients, then random bytes (some >= q) */
    for (int iter = 0; iter < 200; iter++) {
        uint8_t bx[NMAX * 3 / 2 + 8], by[NMAX * 3 / 2 + 8];
        memset(bx, 0xA5, sizeof bx);
        memset(by, 0xA5, sizeof by);
        random_poly(a, n);
        ref->tobytes(p, bx, a);
        vec->tobytes(p, by, a);
        CHECK_MSG(memcmp(bx, by, sizeof bx) == 0, "%s n=%u: tobytes differs", name, n);
        for (unsigned i = 0; i < p->polybytes; i++) bx[i] = (uint8_t)rnd();
        if (iter % 2 == 0) /* mostly canonical: clear the top bit of each coefficient */
            for (unsigned i = 0; i < p->polybytes; i += 3) bx[i + 1] &= 0xF7, bx[i + 2] &= 0x7F;
        uint32_t fx = ref->frombytes(p, x, bx), fy = vec->frombytes(p, y, bx);
        CHECK_MSG(fx == fy, "%s n=%u: frombytes verdict differs", name, n);
        CHECK(iter % 2 == 1 || fx == 0);
        CHECK_MSG(memcmp(x, y, n * sizeof x[0]) == 0, "%s n=%u: frombytes differs", name, n);
    }
    /* decryption's middle (inverse transform, mod+-3, forward transform) on
     * the transforms of every coefficient value |a| < q, spread over the
     * vector lanes: m must be the values mod+-3, t their transform */
    for (int base = -(Q - 1); base < Q; base += (int)n) {
        int16_t m[NMAX], tx[NMAX] = {0}, ty[NMAX] = {0};
        for (unsigned i = 0; i < n; i++) a[i] = (int16_t)(base + (int)i < Q ? base + (int)i : Q - 1);
        memcpy(m, a, sizeof m);
        kpqc_ntruplus_crepmod3(p, m);
        memcpy(x, a, sizeof x);
        kpqc_ntruplus_ntt_ref(p, x);
        memcpy(y, x, sizeof y);
        ref->invntt_mod3_ntt(p, x, tx);
        vec->invntt_mod3_ntt(p, y, ty);
        CHECK_MSG(memcmp(x, m, n * sizeof x[0]) == 0, "%s n=%u: portable mod3 differs from %d", name, n, base);
        CHECK_MSG(memcmp(y, m, n * sizeof y[0]) == 0, "%s n=%u: mod3 differs from %d", name, n, base);
        CHECK(in_range(ty, n));
        CHECK_MSG(same_mod_q(tx, ty, n), "%s n=%u: transform of m differs from %d", name, n, base);
    }
    /* sampling; message decoding with every coefficient in {-1, 0, 1}, then
     * one out-of-range coefficient (-2, 2 or 1 where the pad bit is 1) at a
     * random position; subtraction, extremes included */
    for (int iter = 0; iter < 200; iter++) {
        uint8_t buf[NMAX / 4], mx[NMAX / 8], my[NMAX / 8];
        for (unsigned i = 0; i < n / 4; i++) buf[i] = (uint8_t)rnd();
        ref->cbd1(p, x, buf, 3);
        vec->cbd1(p, y, buf, 3);
        CHECK_MSG(memcmp(x, y, n * sizeof x[0]) == 0, "%s n=%u: cbd1 differs", name, n);
        ref->cbd1(p, x, buf, 1);
        vec->cbd1(p, y, buf, 1);
        CHECK_MSG(memcmp(x, y, n * sizeof x[0]) == 0, "%s n=%u: cbd1 differs", name, n);
        if (iter % 2) {
            unsigned i = rnd() % n;
            int padbit = (buf[n / 8 + i / 8] >> (i % 8)) & 1;
            x[i] = (int16_t)(iter % 4 == 1 ? (padbit ? 1 : 2) : -2);
        }
        memset(mx, 0xA5, sizeof mx);
        memset(my, 0x5A, sizeof my);
        uint32_t fx = ref->sotp_decode(p, mx, x, buf), fy = vec->sotp_decode(p, my, x, buf);
        CHECK_MSG(fx == (uint32_t)(iter % 2) && fy == fx, "%s n=%u: sotp_decode verdict", name, n);
        CHECK_MSG(memcmp(mx, my, n / 8) == 0, "%s n=%u: sotp_decode differs", name, n);
        random_poly(a, n);
        random_poly(b, n);
        if (iter == 0)
            for (unsigned i = 0; i < n; i++) a[i] = (int16_t)(Q - 1), b[i] = (int16_t)-(Q - 1);
        random_poly(c, n);
        if (iter == 1)
            for (unsigned i = 0; i < n; i++) a[i] = (int16_t)(Q - 1), b[i] = (int16_t)-(Q - 1), c[i] = (int16_t)(Q - 1);
        ref->sub_mul(p, x, a, b, c);
        vec->sub_mul(p, y, a, b, c);
        CHECK(in_range(y, n));
        CHECK_MSG(same_mod_q(x, y, n), "%s n=%u: sub_mul differs", name, n);
        /* equal mod q through different representatives, then one
         * coefficient off by one at a random position */
        for (unsigned i = 0; i < n; i++) b[i] = (int16_t)(a[i] < 0 ? a[i] + Q : a[i] > 0 ? a[i] - (int)(rnd() % 2) * Q : 0);
        CHECK_MSG(ref->neq(p, a, b) == 0 && vec->neq(p, a, b) == 0, "%s n=%u: neq of equals", name, n);
        unsigned i = rnd() % n;
        b[i] = (int16_t)(b[i] > 0 ? b[i] - 1 : b[i] + 1);
        CHECK_MSG(ref->neq(p, a, b) == 1 && vec->neq(p, a, b) == 1, "%s n=%u: neq missed %u", name, n, i);
    }
    /* one zero base-ring element, at each position of a 16-ring group */
    for (unsigned blk = 0; blk < 16; blk++) {
        random_poly(a, n);
        memset(a + p->d * (blk + 16), 0, p->d * sizeof a[0]);
        CHECK_MSG(vec->baseinv(p, y, a) == 1, "%s n=%u: missed a zero at %u", name, n, blk);
    }
}

#ifdef KPQC_ISA_AVX2
/* The vector tails read each twiddle and its multiple of q^-1 mod 2^16
 * from two generated tables side by side: they must agree entry by entry. */
static void check_tail_tables(void) {
    static const struct {
        const int16_t *w, *wq;
        unsigned len;
    } t[] = {
        {kpqc_ntruplus_avx_tail_fwd768, kpqc_ntruplus_avx_tail_fwd768_qinv, 768},
        {kpqc_ntruplus_avx_tail_inv768, kpqc_ntruplus_avx_tail_inv768_qinv, 768},
        {kpqc_ntruplus_avx_tail_fwd864, kpqc_ntruplus_avx_tail_fwd864_qinv, 576},
        {kpqc_ntruplus_avx_tail_inv864, kpqc_ntruplus_avx_tail_inv864_qinv, 576},
        {kpqc_ntruplus_avx_tail_fwd1152, kpqc_ntruplus_avx_tail_fwd1152_qinv, 1152},
        {kpqc_ntruplus_avx_tail_inv1152, kpqc_ntruplus_avx_tail_inv1152_qinv, 1152},
    };
    for (unsigned k = 0; k < sizeof t / sizeof t[0]; k++)
        for (unsigned i = 0; i < t[k].len; i++) {
            const int16_t want = (int16_t)(uint16_t)((uint32_t)(uint16_t)t[k].w[i] * NTRUPLUS_QINV);
            CHECK_MSG(t[k].wq[i] == want, "tail table %u: entry %u times q^-1 is %d, not %d", k, i,
                      t[k].wq[i], want);
        }
}
#endif

int main(void) {
#ifdef KPQC_ISA_AVX2
    check_tail_tables();
#endif
    const kpqc_ntruplus_params *sets[] = {&kpqc_ntruplus_params768, &kpqc_ntruplus_params864,
                                          &kpqc_ntruplus_params1152};
    for (unsigned s = 0; s < 3; s++) {
        check_portable(sets[s]);
        size_t nb;
        const kpqc_backend_info *const *backends = kpqc_ntruplus_backends(&nb);
        for (size_t b = 0; b + 1 < nb; b++) { /* the last is the portable one */
            if (kpqc_backend_usable(backends[b])) check_backend(sets[s], (const kpqc_ntruplus_backend *)backends[b]);
            else printf("n=%u: %s not available on this CPU, its checks skipped\n", sets[s]->n, backends[b]->name);
        }
    }
    return test_result("test_ntruplus_ntt");
}
