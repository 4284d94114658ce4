/*
 * HAETAE internals and encoding rules: the NTT product against schoolbook
 * negacyclic multiplication, the vector NTT, pointwise product, FFT and
 * CDT sample against the portable ones, the rANS coder round trip and its
 * refusals, the oblivious compaction, sign/verify round trips, refusal
 * of non-zero padding and of malformed or truncated signatures
 * (exact-size heap buffers, so AddressSanitizer sees any read past the
 * end), and verification of v1.1.2 signatures (same keys, older sampler).
 */
#include <string.h>
#ifdef KPQC_ISA_AVX2
#include <xmmintrin.h> /* MXCSR */
#endif

#include "harness.h"
#include "haetae_legacy_vectors.h"
#include "internal.h"
#include "sig/haetae/haetae.h"

#define Q HAETAE_Q
#define N HAETAE_N

static uint64_t rng_state = 0x2545F4914F6CDD1Dull;
static uint32_t rnd32(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 16);
}

static int32_t modq(int64_t x) {
    x %= Q;
    return (int32_t)(x < 0 ? x + Q : x);
}

static const struct {
    const char *name;
    const struct haetae_params *p;
} sets[] = {{"haetae2", &kpqc_haetae2_params}, {"haetae3", &kpqc_haetae3_params}, {"haetae5", &kpqc_haetae5_params}};

/* INTT(NTT(a) * NTT(b)) is a * b mod (X^256 + 1, q); INTT(NTT(a)) is
 * a * 2^32. */
/* Every backend of the family; those this CPU runs are compared with the
 * portable one. */
static const kpqc_backend_info *const *backends;
static size_t nbackends;

/* Every backend's NTT (inverse = 0) or inverse NTT (inverse = 1) of a
 * gives the portable one's integers. */
static void same_transforms(const hpoly *a, int inverse, const char *what) {
    hpoly ref = *a;
    (inverse ? kpqc_haetae_invntt_portable : kpqc_haetae_ntt_portable)(&ref);
    for (size_t k = 0; k < nbackends; k++) {
        if (!kpqc_backend_usable(backends[k])) continue;
        const struct haetae_backend *be = (const struct haetae_backend *)backends[k];
        hpoly v = *a;
        (inverse ? be->invntt : be->ntt)(&v);
        CHECK_MSG(memcmp(&ref, &v, sizeof v) == 0, "%s %s differs (%s inputs)", be->info.name,
                  inverse ? "inverse NTT" : "NTT", what);
    }
}

/* Every backend's pointwise product a * b * 2^-32, and its sum into r (here
 * starting from b), gives the portable one's integers. */
static void same_pointwise(const hpoly *a, const hpoly *b, const char *what) {
    hpoly ref, ref_acc = *b;
    kpqc_haetae_pointwise(&ref, a, b);
    kpqc_haetae_pointwise_acc(&ref_acc, a, b);
    for (size_t k = 0; k < nbackends; k++) {
        if (!kpqc_backend_usable(backends[k])) continue;
        const struct haetae_backend *be = (const struct haetae_backend *)backends[k];
        hpoly v, v_acc = *b;
        be->pointwise(&v, a, b);
        be->pointwise_acc(&v_acc, a, b);
        CHECK_MSG(memcmp(&ref, &v, sizeof v) == 0, "%s pointwise product differs (%s inputs)", be->info.name, what);
        CHECK_MSG(memcmp(&ref_acc, &v_acc, sizeof v) == 0, "%s pointwise sum differs (%s inputs)", be->info.name,
                  what);
    }
}

/* Coefficients of magnitude m: all +m, all -m, alternating, random signs,
 * or uniform in [-m, m]. */
static void fill_extreme(hpoly *a, int32_t m, unsigned pattern) {
    for (unsigned i = 0; i < N; i++) {
        switch (pattern) {
        case 0: a->c[i] = m; break;
        case 1: a->c[i] = -m; break;
        case 2: a->c[i] = i & 1 ? -m : m; break;
        case 3: a->c[i] = rnd32() & 1 ? -m : m; break;
        default: a->c[i] = (int32_t)(rnd32() % (uint32_t)(2 * m + 1)) - m; break;
        }
    }
}

/* The bounds the callers keep: the NTT takes |a| < 12q and returns
 * |a| < 20q, the pointwise products take those; the inverse takes
 * pointwise products, in (-q, q), or sums of up to HAETAE_LMAX of them. */
static void transform_extremes(void) {
    hpoly a, b;
    for (unsigned pattern = 0; pattern < 8; pattern++) {
        fill_extreme(&a, 20 * Q - 1, pattern);
        fill_extreme(&b, 20 * Q - 1, (pattern + 3) % 8);
        same_pointwise(&a, &b, "|a|, |b| up to 20q - 1");
        fill_extreme(&a, 12 * Q - 1, pattern);
        same_transforms(&a, 0, "|a| up to 12q - 1");
        fill_extreme(&a, Q - 1, pattern);
        same_transforms(&a, 1, "|a| up to q - 1");
        fill_extreme(&a, HAETAE_LMAX * (Q - 1), pattern);
        same_transforms(&a, 1, "sums of HAETAE_LMAX products");
    }
}

static void test_ntt(void) {
    const struct haetae_backend *cur = kpqc_haetae_select_backend();
    for (unsigned trial = 0; trial < 20; trial++) {
        hpoly a, b, ah, bh, r, ref;
        /* inputs as large as the signing code feeds in: |x| < 4q */
        int32_t range = trial < 10 ? Q : 4 * Q;
        for (unsigned i = 0; i < N; i++) {
            a.c[i] = (int32_t)(rnd32() % (uint32_t)(2 * range - 1)) - (range - 1);
            b.c[i] = (int32_t)(rnd32() % (uint32_t)(2 * range - 1)) - (range - 1);
        }
        int64_t acc[2 * N] = {0};
        for (unsigned i = 0; i < N; i++)
            for (unsigned j = 0; j < N; j++) acc[i + j] += (int64_t)modq(a.c[i]) * modq(b.c[j]);
        for (unsigned i = 0; i < N; i++) ref.c[i] = modq(acc[i] - acc[i + N] % Q);
        ah = a, bh = b;
        cur->ntt(&ah);
        cur->ntt(&bh);
        same_pointwise(&ah, &bh, "NTT output");
        kpqc_haetae_pointwise(&r, &ah, &bh);
        same_transforms(&r, 1, "pointwise product");
        cur->invntt(&r);
        int ok = 1, bounded = 1;
        for (unsigned i = 0; i < N; i++) {
            ok &= modq(r.c[i]) == ref.c[i];
            bounded &= r.c[i] > -Q && r.c[i] < Q;
        }
        CHECK_MSG(ok, "NTT product differs from schoolbook (trial %u)", trial);
        CHECK(bounded);
        hpoly t = a;
        kpqc_haetae_ntt_portable(&t);
        kpqc_haetae_invntt_portable(&t);
        int64_t mont = ((int64_t)1 << 32) % Q;
        ok = 1;
        for (unsigned i = 0; i < N; i++) ok &= modq(t.c[i]) == modq(modq(a.c[i]) * mont);
        CHECK_MSG(ok, "inverse NTT round trip (trial %u)", trial);
        /* every backend computes the same integers */
        same_transforms(&a, 0, "random");
        hpoly ahat = a;
        kpqc_haetae_ntt_portable(&ahat);
        same_transforms(&ahat, 1, "NTT output");
    }
    transform_extremes();
    /* reductions */
    for (int32_t v = -4 * Q; v < 4 * Q; v += 37) {
        CHECK(kpqc_haetae_freeze(v) == modq(v));
        int32_t f2 = kpqc_haetae_freeze2q(v), m2 = ((v % (2 * Q)) + 2 * Q) % (2 * Q);
        CHECK(f2 == m2);
        if (v > -Q && v < Q) {
            int32_t c = kpqc_haetae_center(v);
            CHECK(modq(c) == modq(v) && c > -Q / 2 - 1 && c <= Q / 2);
        }
    }
}

/* The encoder's division by a frequency: every frequency, at the ends of
 * the state's range, around the multiples of f where the quotient steps
 * (x m / 2^shift is then closest to an integer), and at random. */
static void test_rans_divisor(void) {
    const uint32_t top = UINT32_C(1) << 31;
    for (uint32_t f = 1; f <= 1024; f++) {
        const struct haetae_rans_divisor d = kpqc_haetae_rans_divisor(f);
        const uint32_t qmax = (top - 1) / f;
        for (uint32_t i = 0; i < 64; i++) {
            const uint32_t q = i < 32 ? i : qmax - (i - 32);
            for (int e = -1; e <= 1; e++) {
                uint32_t x = q * f + (uint32_t)e;
                if (x >= top) continue;
                CHECK(kpqc_haetae_rans_div(x, d) == x / f);
            }
        }
        for (unsigned i = 0; i < 64; i++) {
            uint32_t x = rnd32() % top;
            CHECK(kpqc_haetae_rans_div(x, d) == x / f);
        }
        CHECK(kpqc_haetae_rans_div(top - 1, d) == (top - 1) / f);
    }
}

/* Random symbols drawn from the table's own distribution. */
static void test_rans(void) {
    for (unsigned s = 0; s < 3; s++) {
        const struct haetae_params *p = sets[s].p;
        const struct haetae_rans_table *tabs[2] = {&p->rans_hb_z1, &p->rans_h};
        for (unsigned ti = 0; ti < 2; ti++) {
            const struct haetae_rans_table *t = tabs[ti];
            unsigned total = 0;
            for (unsigned i = 0; i < t->nsym; i++) total += t->freq[i];
            CHECK(total == 1024);
            size_t n = (ti == 0 ? p->l : p->k) * N;
            uint8_t sym[HAETAE_LMAX * N], back[HAETAE_LMAX * N], enc[2048];
            for (unsigned trial = 0; trial < 50; trial++) {
                for (size_t i = 0; i < n; i++) {
                    unsigned r = rnd32() % 1024, v = 0;
                    while (r >= t->freq[v]) r -= t->freq[v++];
                    sym[i] = (uint8_t)v;
                }
                /* a few of the rarest symbols too */
                sym[trial % n] = (uint8_t)(t->nsym - 1);
                sym[(7 * trial) % n] = 0;
                size_t len = kpqc_haetae_rans_encode(enc, sizeof enc, t, sym, n);
                CHECK(len >= 4);
                uint8_t *exact = test_alloc(len);
                memcpy(exact, enc, len);
                CHECK(kpqc_haetae_rans_decode(back, n, t, exact, len) == 0);
                CHECK(memcmp(sym, back, n) == 0);
                /* side by side with a shorter code of the other table */
                {
                    const struct haetae_rans_table *u = tabs[1 - ti];
                    uint8_t sym2[N], back2[N], enc2[2048], again[HAETAE_LMAX * N];
                    for (size_t i = 0; i < N; i++) sym2[i] = (uint8_t)(rnd32() % 3 == 0 ? 0 : 1);
                    size_t len2 = kpqc_haetae_rans_encode(enc2, sizeof enc2, u, sym2, N);
                    CHECK(len2 >= 4);
                    struct haetae_rans_code a = {again, n, t, exact, len}, b = {back2, N, u, enc2, len2};
                    CHECK(kpqc_haetae_rans_decode_two(&a, &b) == 0);
                    CHECK(memcmp(sym, again, n) == 0 && memcmp(sym2, back2, N) == 0);
                    b.len = len2 - 1;
                    CHECK(kpqc_haetae_rans_decode_two(&a, &b) != 0);
                    a.len = len - 1, b.len = len2;
                    CHECK(kpqc_haetae_rans_decode_two(&b, &a) != 0);
                    /* encoded side by side, in either order: the same two codes */
                    uint8_t two_a[2048], two_b[2048];
                    struct haetae_rans_text ta = {sym, n, t, two_a, sizeof two_a, 0};
                    struct haetae_rans_text tb = {sym2, N, u, two_b, sizeof two_b, 0};
                    CHECK(kpqc_haetae_rans_encode_two(&ta, &tb) == 0);
                    CHECK(ta.len == len && memcmp(two_a, exact, len) == 0);
                    CHECK(tb.len == len2 && memcmp(two_b, enc2, len2) == 0);
                    CHECK(kpqc_haetae_rans_encode_two(&tb, &ta) == 0);
                    CHECK(ta.len == len && memcmp(two_a, exact, len) == 0);
                    CHECK(tb.len == len2 && memcmp(two_b, enc2, len2) == 0);
                    /* too small a capacity on either side is refused */
                    tb.cap = len2 - 1;
                    CHECK(kpqc_haetae_rans_encode_two(&ta, &tb) != 0);
                    tb.cap = sizeof two_b, ta.cap = len - 1;
                    CHECK(kpqc_haetae_rans_encode_two(&tb, &ta) != 0);
                }
                /* the length is part of the code: one byte less or more is refused */
                CHECK(kpqc_haetae_rans_decode(back, n, t, exact, len - 1) != 0);
                free(exact);
                memcpy(enc + len, "\x5a", 1);
                CHECK(kpqc_haetae_rans_decode(back, n, t, enc, len + 1) != 0);
                /* too small a capacity is reported, not overrun */
                CHECK(kpqc_haetae_rans_encode(enc, len - 1, t, sym, n) == 0);
            }
            sym[0] = (uint8_t)t->nsym; /* no such symbol */
            CHECK(kpqc_haetae_rans_encode(enc, sizeof enc, t, sym, n) == 0);
            uint8_t tiny[3] = {0, 0, 0x80};
            CHECK(kpqc_haetae_rans_decode(back, n, t, tiny, sizeof tiny) != 0);
        }
    }
}

/* The vector FFT equals the portable one bit for bit; a monomial evaluates
 * to modulus 1 everywhere. */
static void test_fft(void) {
    for (unsigned trial = 0; trial < 42; trial++) {
        hpoly a;
        int32_t range = trial < 20 ? 1 : 2; /* the key's ranges */
        for (unsigned i = 0; i < N; i++) a.c[i] = (int32_t)(rnd32() % (uint32_t)(2 * range + 1)) - range;
        /* the extremes a secret key under check may hold: squares past 2^31 */
        if (trial >= 40)
            for (unsigned i = 0; i < N; i++) a.c[i] = trial == 40 ? 2 : (i & 1 ? -2 : 2);
        for (size_t b = 0; b < nbackends; b++) {
            if (!kpqc_backend_usable(backends[b])) continue;
            int64_t s1[N] = {0}, s2[N] = {0};
            ((const struct haetae_backend *)backends[b])->fft_sqabs_acc(s1, &a);
            kpqc_haetae_fft_sqabs_acc_portable(s2, &a);
            CHECK_MSG(memcmp(s1, s2, sizeof s1) == 0, "%s FFT differs (trial %u)", backends[b]->name, trial);
        }
    }
    for (unsigned e = 0; e < N; e += 51) {
        hpoly a;
        memset(&a, 0, sizeof a);
        a.c[e] = 1;
        int64_t s[N] = {0};
        kpqc_haetae_select_backend()->fft_sqabs_acc(s, &a);
        int ok = 1;
        for (unsigned j = 0; j < N; j++) ok &= s[j] > 65536 - 64 && s[j] < 65536 + 64;
        CHECK_MSG(ok, "|X^%u| != 1", e);
    }
}

static uint64_t cdt_count(unsigned __int128 r) {
    uint64_t n = 0;
    for (unsigned j = 0; j < HAETAE_CDT_SLOTS; j++)
        n += r > (((unsigned __int128)kpqc_haetae_cdt_hi[j] << HAETAE_CDT_SPLIT) | (uint64_t)kpqc_haetae_cdt_lo[j]);
    return n;
}

static unsigned __int128 cdt_entry(unsigned i) {
    return ((unsigned __int128)kpqc_haetae_cdt_hi[i] << HAETAE_CDT_SPLIT) | (uint64_t)kpqc_haetae_cdt_lo[i];
}

/* The CDT samples count the entries below the input: checked at every
 * entry and its neighbours, and at random. */
static void test_cdt(void) {
    /* entry 16 b + j sits in row j, column b; non-decreasing; 2^83 - 1
     * (never below an input) after the 166 entries */
    unsigned __int128 prev = 0;
    for (unsigned k = 0; k < HAETAE_CDT_SLOTS; k++) {
        unsigned __int128 e = cdt_entry((k % 16) * HAETAE_CDT_BLOCKS + k / 16);
        CHECK_MSG(e >= prev && (k >= 166) == (e == ((unsigned __int128)1 << 83) - 1), "CDT layout at %u", k);
        prev = e;
    }
    uint64_t (*const cdts[])(uint64_t, uint32_t) = {
        kpqc_haetae_cdt_sample_portable,
#ifdef KPQC_ISA_AVX2
        kpqc_backend_usable(&kpqc_haetae_backend_avx2.info) ? kpqc_haetae_cdt_sample_avx2 : NULL,
#endif
    };
    for (size_t k = 0; k < sizeof cdts / sizeof cdts[0]; k++) {
        if (cdts[k] == NULL) continue;
        for (unsigned i = 0; i < HAETAE_CDT_SLOTS; i++) {
            for (int delta = -1; delta <= 1; delta++) {
                unsigned __int128 r = cdt_entry(i) + (unsigned __int128)(__int128)delta;
                if (r >> 83) continue;
                CHECK_MSG(cdts[k]((uint64_t)r, (uint32_t)(r >> 64)) == cdt_count(r), "CDT sample %zu at entry %u", k, i);
            }
        }
        CHECK(cdts[k](0, 0) == 0);
        CHECK(cdts[k](~UINT64_C(0), 0x7ffff) == 166);
        for (unsigned t = 0; t < 2000; t++) {
            uint64_t lo = ((uint64_t)rnd32() << 32) | rnd32();
            uint32_t hi = rnd32() & 0x7ffff;
            CHECK_MSG(cdts[k](lo, hi) == cdt_count(((unsigned __int128)hi << 64) | lo), "CDT sample %zu", k);
        }
    }
}

/* Every path's candidates equal the portable ones: random bytes, and
 * CDT inputs at each table entry and its neighbours. */
static void test_gauss(void) {
    enum { CB = HAETAE_CAND_BYTES };
    uint8_t r[HAETAE_CAND_BATCH * CB];
    for (unsigned t = 0; t < 3000; t++) {
        size_t n = 1 + t % HAETAE_CAND_BATCH;
        for (size_t i = 0; i < sizeof r; i++) r[i] = (uint8_t)rnd32();
        if (t < 3 * HAETAE_CDT_SLOTS) {
            for (size_t c = 0; c < n; c++) {
                unsigned __int128 v = cdt_entry((t / 3 + c) % HAETAE_CDT_SLOTS) + (unsigned __int128)(__int128)((int)(t % 3) - 1);
                if (v >> 83) v = ((unsigned __int128)1 << 83) - 1;
                for (unsigned b = 0; b < 11; b++) r[c * CB + b] = (uint8_t)(v >> (8 * b));
            }
        }
        struct haetae_cands want, got;
        kpqc_haetae_gauss16_portable(&want, r, n);
        for (size_t b = 0; b < nbackends; b++) {
            if (!kpqc_backend_usable(backends[b])) continue;
            memset(&got, 0xA5, sizeof got);
            ((const struct haetae_backend *)backends[b])->gauss(&got, r, n);
            int ok = 1;
            for (size_t c = 0; c < n; c++)
                ok &= got.v[c] == want.v[c] && got.accept[c] == want.accept[c] && got.sq_lo[c] == want.sq_lo[c] &&
                      got.sq_hi[c] == want.sq_hi[c] && want.accept[c] <= 1;
            CHECK_MSG(ok, "%s candidates (batch %u)", backends[b]->name, t);
        }
    }
}

/* Every path's candidates fed into a row's state equal the portable
 * ones: values and keep flags in place (nothing else written), the count
 * and the sums of the first len accepted squares, with the count before
 * the batch just below, at and past len. */
static void test_gauss_feed(void) {
    static struct haetae_gauss_lane want, got;
    uint8_t r[HAETAE_FEED_BATCH * HAETAE_CAND_BYTES];
    for (unsigned t = 0; t < 3000; t++) {
        const size_t n = 1 + t % HAETAE_FEED_BATCH;
        for (size_t i = 0; i < sizeof r; i++) r[i] = (uint8_t)rnd32();
        memset(&want, 0xA5, sizeof want);
        want.len = HAETAE_N + (t / 7) % 2;
        want.count = want.len - 12 + rnd32() % 16;
        want.n = rnd32() % (HAETAE_CAND_CAP - HAETAE_FEED_BATCH + 1);
        want.sum_lo = ((uint64_t)rnd32() << 20) | rnd32();
        want.sum_hi = rnd32();
        got = want;
        want.be = &kpqc_haetae_backend_portable;
        kpqc_haetae_gauss_feed_generic(&want, r, n);
        for (size_t b = 0; b < nbackends; b++) {
            if (!kpqc_backend_usable(backends[b])) continue;
            got.be = (const struct haetae_backend *)backends[b];
            struct haetae_gauss_lane start = got;
            got.be->gauss_feed(&got, r, n);
            int ok = got.count == want.count && got.sum_lo == want.sum_lo && got.sum_hi == want.sum_hi &&
                     memcmp(got.val, want.val, sizeof got.val) == 0 && memcmp(got.keep, want.keep, sizeof got.keep) == 0;
            CHECK_MSG(ok, "%s candidates into a row (batch %u)", backends[b]->name, t);
            got = start;
        }
    }
}

/* The acceptance exponential against a plain 128-bit Horner
 * evaluation: all of [0, 2^48) the candidates reach, its edges, random
 * points and each candidate's exact worst case. */
static uint64_t exp_reference(int64_t xi) {
    __int128 r = kpqc_haetae_exp_coef[0];
    for (unsigned i = 1; i <= HAETAE_EXP_DEGREE; i++) {
        __int128 t = r * xi;
        /* ceil(t / 2^48), written without the shift's rounding */
        __int128 q = t / ((__int128)1 << 48);
        if (q * ((__int128)1 << 48) < t) q++;
        r = q + kpqc_haetae_exp_coef[i];
    }
    return (uint64_t)(int64_t)r;
}

static void test_approx_exp(void) {
    enum { T = 4000 };
    static int64_t xi[T * 8];
    const int64_t top = INT64_C(1) << 48;
    unsigned n = 0;
    for (int64_t d = 0; d < 64; d++) {
        xi[n++] = d;
        xi[n++] = top - 1 - d;
        xi[n++] = top / 2 + d - 32;
        xi[n++] = (INT64_C(1) << 26) + d - 32; /* limb boundaries */
        xi[n++] = (INT64_C(1) << 32) + d - 32;
        xi[n++] = (INT64_C(1) << 31) + d - 32; /* the split of xi into 31 + 17 bits */
        xi[n++] = ((int64_t)d << 31) + (INT64_C(1) << 31) - 1;
    }
    xi[n++] = INT64_C(1) << 47; /* c0 xi a multiple of 2^48: the first step does not round */
    for (uint64_t x = 0; x <= 166; x++) /* y just below x + 1: (2x + 1) / 512 */
        xi[n++] = (int64_t)(((2 * x + 1) << 39) - 1);
    while (n < T * 8) xi[n++] = (int64_t)((((uint64_t)rnd32() << 32) | rnd32()) % (uint64_t)top);
    unsigned bad = 0;
    for (unsigned t = 0; t < T; t++) {
        uint64_t out[8];
        kpqc_haetae_approx_exp8(out, &xi[8 * t]);
        for (unsigned j = 0; j < 8; j++) bad += out[j] != exp_reference(xi[8 * t + j]);
#ifdef KPQC_ISA_AVX2
        if (kpqc_backend_usable(&kpqc_haetae_backend_avx2.info)) {
            kpqc_haetae_approx_exp8_avx2(out, &xi[8 * t]);
            for (unsigned j = 0; j < 8; j++) bad += out[j] != exp_reference(xi[8 * t + j]);
        }
#endif
#ifdef KPQC_ISA_AVX512
        if (kpqc_backend_usable(&kpqc_haetae_backend_avx512.info)) {
            kpqc_haetae_approx_exp8_avx512(out, &xi[8 * t]);
            for (unsigned j = 0; j < 8; j++) bad += out[j] != exp_reference(xi[8 * t + j]);
        }
#endif
    }
    CHECK_MSG(bad == 0, "acceptance exponential: %u mismatches", bad);
#ifdef KPQC_ISA_AVX2
    /* the avx2 kernel computes in double precision: exact in every
     * rounding mode a caller may set, with denormals flushed too (MXCSR
     * bits 13-14, 15 and 6) */
    if (kpqc_backend_usable(&kpqc_haetae_backend_avx2.info)) {
        const unsigned csr = _mm_getcsr();
        unsigned bad_mode = 0;
        for (unsigned mode = 1; mode < 8; mode++) {
            _mm_setcsr((csr & ~0xE040u) | ((mode & 3) << 13) | (mode >= 4 ? 0x8040u : 0));
            for (unsigned t = 0; t < T; t++) {
                uint64_t out[8];
                kpqc_haetae_approx_exp8_avx2(out, &xi[8 * t]);
                for (unsigned j = 0; j < 8; j++) bad_mode += out[j] != exp_reference(xi[8 * t + j]);
            }
            _mm_setcsr(csr);
        }
        CHECK_MSG(bad_mode == 0, "avx2 acceptance exponential in other rounding modes: %u mismatches", bad_mode);
    }
#endif
    /* exp(0) = 1 and exp(-x) falls */
    uint64_t out[8];
    kpqc_haetae_approx_exp8(out, (const int64_t[8]){0, 1, top / 4, top / 2, top - 1, 0, 0, 0});
    CHECK(out[0] >= (UINT64_C(1) << 48) && out[0] < (UINT64_C(1) << 48) + 16);
    CHECK(out[1] <= out[0] && out[2] < out[1] && out[3] < out[2] && out[4] < out[3]);
}

/* Every path scales a row as the portable code: random samples of every
 * size, scales with high limbs up to 2^46, random signs. */
static void test_scale_round(void) {
    enum { M = 64 };
    for (unsigned trial = 0; trial < 400; trial++) {
        uint64_t x[M];
        uint8_t signs[M / 8];
        int32_t want[M], got[M];
        for (unsigned i = 0; i < M; i++) x[i] = (((uint64_t)rnd32() << 32) | rnd32()) >> (rnd32() % 40);
        for (unsigned i = 0; i < M / 8; i++) signs[i] = (uint8_t)rnd32();
        hfix scale = {(((uint64_t)rnd32() << 32) | rnd32()) & ((UINT64_C(1) << 48) - 1),
                      (((uint64_t)rnd32() << 32) | rnd32()) >> (18 + trial % 40)};
        uint64_t norm = kpqc_haetae_scale_round_portable(want, x, signs, M, scale);
        for (size_t b = 0; b < nbackends; b++) {
            if (!kpqc_backend_usable(backends[b])) continue;
            memset(got, 0x5A, sizeof got);
            uint64_t n = ((const struct haetae_backend *)backends[b])->scale_round(got, x, signs, M, scale);
            CHECK_MSG(n == norm && memcmp(got, want, sizeof got) == 0, "%s scaling (trial %u)", backends[b]->name, trial);
        }
    }
}

/* The signer's constant-time challenge equals the verifier's, with tau
 * ones (modes 2 and 3) or at most 128 (mode 5), on random inputs. */
static void test_challenge(void) {
    uint8_t in[HAETAE_KMAX * HAETAE_HIGHBITS_BYTES + HAETAE_N / 8], mu[HAETAE_SEEDBYTES];
    for (unsigned set = 0; set < sizeof sets / sizeof sets[0]; set++) {
        const struct haetae_params *p = sets[set].p;
        for (unsigned trial = 0; trial < 300; trial++) {
            for (size_t i = 0; i < sizeof in; i++) in[i] = (uint8_t)rnd32();
            for (size_t i = 0; i < sizeof mu; i++) mu[i] = (uint8_t)rnd32();
            hpoly c, c_public;
            kpqc_haetae_challenge_public(p, &c_public, in, mu);
            for (size_t b = 0; b < nbackends; b++) {
                if (!kpqc_backend_usable(backends[b])) continue;
                kpqc_haetae_challenge(p, (const struct haetae_backend *)backends[b], &c, in, mu);
                unsigned weight = 0;
                for (unsigned t = 0; t < HAETAE_N; t++) weight += (unsigned)c.c[t];
                CHECK_MSG(memcmp(&c, &c_public, sizeof c) == 0, "%s challenge differs on %s (trial %u)", sets[set].name,
                          backends[b]->name, trial);
                CHECK_MSG(p->tau < 128 ? weight == p->tau : weight <= 128, "%s challenge weight %u", sets[set].name,
                          weight);
            }
        }
    }
}

/* Every path's verification arithmetic equals the portable one: random
 * inputs over the whole stated ranges (|wq| < q, 0 <= h < top) and their
 * edges, both parities, both hint widths. */
static void test_hint_row(void) {
    const int32_t edges[] = {-HAETAE_Q + 1, -HAETAE_Q + 2, -1, 0, 1, HAETAE_Q / 2, HAETAE_Q - 2, HAETAE_Q - 1};
    for (unsigned trial = 0; trial < 400; trial++) {
        const unsigned alpha_bits = trial % 2 ? 9 : 8;
        const int32_t top = (HAETAE_DQ - 2) >> alpha_bits;
        hpoly wq, h, lsb, z1, w_want, w_got;
        for (unsigned t = 0; t < HAETAE_N; t++) {
            wq.c[t] = trial < 8 ? edges[(trial + t) % 8] : (int32_t)(rnd32() % (2 * HAETAE_Q - 1)) - (HAETAE_Q - 1);
            h.c[t] = (int32_t)(t % 7 == 0 ? (uint32_t)top - 1 - t % 3 : rnd32() % (uint32_t)top);
            lsb.c[t] = (int32_t)(rnd32() & 1);
            z1.c[t] = (int32_t)(rnd32() % 65535) - 32767;
        }
        const hpoly *parity = trial % 3 ? &lsb : NULL;
        uint64_t want = kpqc_haetae_hint_row_portable(&w_want, &wq, &h, parity, alpha_bits);
        uint64_t norm = kpqc_haetae_sqnorm_portable(&z1);
        for (size_t b = 0; b < nbackends; b++) {
            if (!kpqc_backend_usable(backends[b])) continue;
            const struct haetae_backend *be = (const struct haetae_backend *)backends[b];
            memset(&w_got, 0xA5, sizeof w_got);
            uint64_t got = be->hint_row(&w_got, &wq, &h, parity, alpha_bits);
            CHECK_MSG(got == want && memcmp(&w_got, &w_want, sizeof w_got) == 0, "%s hint row (trial %u)",
                      backends[b]->name, trial);
            CHECK_MSG(be->sqnorm(&z1) == norm, "%s squared norm (trial %u)", backends[b]->name, trial);
        }
    }
    /* the signer's commitment rows: |wq| < q and |y2| < q / 2 with their
     * edges, both parities, both hint widths */
    for (unsigned trial = 0; trial < 400; trial++) {
        const unsigned alpha_bits = trial % 2 ? 9 : 8;
        const int32_t y_edges[] = {-(HAETAE_Q / 2), -(HAETAE_Q / 2) + 1, -1, 0, 1, HAETAE_Q / 2 - 1, HAETAE_Q / 2, 7};
        hpoly wq, y2, lsb, w_want, hb_want, w_got, hb_got;
        for (unsigned t = 0; t < HAETAE_N; t++) {
            wq.c[t] = trial < 8 ? edges[(trial + t) % 8] : (int32_t)(rnd32() % (2 * HAETAE_Q - 1)) - (HAETAE_Q - 1);
            y2.c[t] = trial < 16 ? y_edges[(trial / 8 + 3 * t) % 8] : (int32_t)(rnd32() % HAETAE_Q) - HAETAE_Q / 2;
            lsb.c[t] = (int32_t)rnd32() % 5; /* a whole coefficient: only its parity counts */
        }
        const hpoly *parity = trial % 3 ? &lsb : NULL;
        kpqc_haetae_commit_row_portable(&w_want, &hb_want, &wq, &y2, parity, alpha_bits);
        for (size_t b = 0; b < nbackends; b++) {
            if (!kpqc_backend_usable(backends[b])) continue;
            const struct haetae_backend *be = (const struct haetae_backend *)backends[b];
            memset(&w_got, 0xA5, sizeof w_got);
            memset(&hb_got, 0xA5, sizeof hb_got);
            be->commit_row(&w_got, &hb_got, &wq, &y2, parity, alpha_bits);
            CHECK_MSG(memcmp(&w_got, &w_want, sizeof w_got) == 0 && memcmp(&hb_got, &hb_want, sizeof hb_got) == 0,
                      "%s commitment row (trial %u)", backends[b]->name, trial);
            /* in place, as signing calls it */
            hpoly in_place = wq;
            be->commit_row(&in_place, &hb_got, &in_place, &y2, parity, alpha_bits);
            CHECK_MSG(memcmp(&in_place, &w_want, sizeof in_place) == 0, "%s commitment row in place (trial %u)",
                      backends[b]->name, trial);
        }
        for (unsigned t = 0; t < HAETAE_N; t++) {
            const int32_t x = wq.c[t] + 2 * y2.c[t], par = parity != NULL ? parity->c[t] & 1 : 0;
            CHECK_MSG(w_want.c[t] >= 0 && w_want.c[t] < HAETAE_DQ && (w_want.c[t] & 1) == par &&
                          (w_want.c[t] - x) % HAETAE_Q == 0,
                      "commitment row value (trial %u)", trial);
        }
    }
    /* the signer's response: |cs| < q with its edges, y of up to 27 bits */
    for (unsigned trial = 0; trial < 200; trial++) {
        hpoly cs;
        int32_t y[HAETAE_N], z_want[HAETAE_N], z_got[HAETAE_N];
        for (unsigned t = 0; t < HAETAE_N; t++) {
            cs.c[t] = t < 8 && trial < 2 ? (int32_t[]){-HAETAE_Q + 1, -HAETAE_Q / 2 - 1, -HAETAE_Q / 2, -1, 0, HAETAE_Q / 2,
                                                    HAETAE_Q / 2 + 1, HAETAE_Q - 1}[t]
                                         : (int32_t)(rnd32() % (2 * HAETAE_Q - 1)) - (HAETAE_Q - 1);
            y[t] = (int32_t)(rnd32() % (1u << 27)) - (1 << 26);
        }
        uint64_t want[2] = {trial, 7}, got[2];
        kpqc_haetae_response_portable(z_want, y, &cs, trial & 1, want);
        for (size_t b = 0; b < nbackends; b++) {
            if (!kpqc_backend_usable(backends[b])) continue;
            got[0] = trial, got[1] = 7;
            ((const struct haetae_backend *)backends[b])->response(z_got, y, &cs, trial & 1, got);
            CHECK_MSG(memcmp(z_got, z_want, sizeof z_got) == 0 && got[0] == want[0] && got[1] == want[1],
                      "%s response (trial %u)", backends[b]->name, trial);
        }
    }
}

/* Every path's rejection sampling of the public matrix equals the
 * portable one: random words with rejections from none to most, any
 * start, lengths that end inside a step, and the stop at 256. */
static void test_rej_uniform(void) {
    uint8_t buf[4 * 168];
    for (unsigned trial = 0; trial < 500; trial++) {
        const unsigned reject_in_8 = trial % 9;
        for (size_t i = 0; i < sizeof buf; i += 2) {
            uint32_t t = rnd32() % 8 < reject_in_8 ? HAETAE_Q + rnd32() % (65536 - HAETAE_Q) : rnd32() % HAETAE_Q;
            if (trial % 50 == 0 && i % 16 == 0) t = HAETAE_Q - (i / 16) % 2; /* the boundary */
            buf[i] = (uint8_t)t, buf[i + 1] = (uint8_t)(t >> 8);
        }
        const unsigned start = trial % 3 == 0 ? 0 : rnd32() % HAETAE_N;
        const size_t len = trial % 2 ? sizeof buf : 2 * (1 + rnd32() % (sizeof buf / 2));
        hpoly want, got;
        memset(&want, 0x5a, sizeof want);
        const unsigned n = kpqc_haetae_rej_uniform_portable(want.c, start, buf, len);
        for (size_t b = 0; b < nbackends; b++) {
            if (!kpqc_backend_usable(backends[b])) continue;
            memset(&got, 0x5a, sizeof got);
            const unsigned m = ((const struct haetae_backend *)backends[b])->rej_uniform(got.c, start, buf, len);
            CHECK_MSG(m == n && memcmp(got.c + start, want.c + start, (n - start) * sizeof got.c[0]) == 0,
                      "%s uniform sampling (trial %u)", backends[b]->name, trial);
        }
    }
}

static void test_compact(void) {
    for (size_t b = 0; b < nbackends; b++) {
        if (!kpqc_backend_usable(backends[b])) continue;
        void (*compact)(uint64_t *, uint8_t *, size_t, size_t) = ((const struct haetae_backend *)backends[b])->compact;
        for (unsigned trial = 0; trial < 400; trial++) {
            size_t n = 1 + rnd32() % HAETAE_CAND_CAP;
            static uint64_t val[HAETAE_CAND_CAP], want[HAETAE_CAND_CAP];
            static uint8_t keep[HAETAE_CAND_CAP];
            size_t kept = 0;
            for (size_t i = 0; i < n; i++) {
                val[i] = ((uint64_t)rnd32() << 32) | rnd32();
                keep[i] = (uint8_t)((rnd32() % 8) < (trial % 9));
                if (keep[i]) want[kept++] = val[i];
            }
            compact(val, keep, n, trial % 2 ? n - 1 : n - kept);
            int ok = memcmp(val, want, kept * sizeof *val) == 0;
            for (size_t i = 0; i < n; i++) ok &= keep[i] == (i < kept);
            CHECK_MSG(ok, "%s compaction of %zu entries, %zu kept", backends[b]->name, n, kept);
        }
    }
}

/* Bytes of the signature used by the codes; the rest is padding. */
static size_t used_bytes(const struct haetae_params *p, const uint8_t *sig) {
    size_t off = N / 8 + (size_t)p->l * N;
    return off + 2 + sig[off] + p->base_enc_hb_z1 + sig[off + 1] + p->base_enc_h;
}

static int verify_exact(const kpqc_sig *s, const uint8_t *sig, size_t sig_len, const uint8_t *msg,
                        size_t msg_len, const uint8_t *ctx, size_t ctx_len, const uint8_t *pk) {
    uint8_t *copy = test_alloc(sig_len);
    memcpy(copy, sig, sig_len);
    int r = kpqc_sig_verify(s, copy, sig_len, msg, msg_len, ctx, ctx_len, pk, s->pk_len);
    free(copy);
    return r;
}

static void test_signatures(void) {
    kpqc_nist_drbg d;
    kpqc_rng rng = test_rng(&d, 0x4A37);
    for (unsigned si = 0; si < 3; si++) {
        const kpqc_sig *s = kpqc_sig_by_name(sets[si].name);
        const struct haetae_params *p = sets[si].p;
        if (s == NULL) continue; /* not selected in this build (KPQC_ALGORITHMS) */
        CHECK(s->sig_len == p->sig_bytes && s->pk_len == haetae_pk_bytes(p) &&
              s->sk_len == haetae_sk_bytes(p));
        uint8_t *pk = test_alloc(s->pk_len), *sk = test_alloc(s->sk_len), *sig = test_alloc(s->sig_len);
        uint8_t msg[200], ctx[255];
        unsigned padded = 0;
        for (unsigned i = 0; i < 6; i++) {
            size_t msg_len = rnd32() % sizeof msg, ctx_len = i == 0 ? 0 : rnd32() % 256, sig_len = s->sig_len;
            CHECK(kpqc_randombytes(&rng, msg, sizeof msg) == KPQC_OK);
            CHECK(kpqc_randombytes(&rng, ctx, sizeof ctx) == KPQC_OK);
            CHECK(kpqc_sig_keypair(s, pk, s->pk_len, sk, s->sk_len, &rng) == KPQC_OK);
            CHECK(kpqc_sig_sign(s, sig, &sig_len, msg, msg_len, ctx, ctx_len, sk, s->sk_len, &rng) == KPQC_OK);
            CHECK(sig_len == s->sig_len);
            CHECK_MSG(verify_exact(s, sig, sig_len, msg, msg_len, ctx, ctx_len, pk) == KPQC_OK, "%s round trip", s->name);

            /* padding must be zero: first, last, all bytes set */
            size_t used = used_bytes(p, sig);
            CHECK(used <= s->sig_len);
            for (size_t j = used; j < s->sig_len; j++) CHECK(sig[j] == 0);
            if (used < s->sig_len) {
                padded++;
                uint8_t *bad = test_alloc(s->sig_len);
                memcpy(bad, sig, s->sig_len);
                bad[used] = 1;
                CHECK(verify_exact(s, bad, s->sig_len, msg, msg_len, ctx, ctx_len, pk) != KPQC_OK);
                memcpy(bad, sig, s->sig_len);
                bad[s->sig_len - 1] = 0x80;
                CHECK(verify_exact(s, bad, s->sig_len, msg, msg_len, ctx, ctx_len, pk) != KPQC_OK);
                memcpy(bad, sig, s->sig_len);
                memset(bad + used, 0xFF, s->sig_len - used);
                CHECK(verify_exact(s, bad, s->sig_len, msg, msg_len, ctx, ctx_len, pk) != KPQC_OK);
                free(bad);
            }

            /* truncated and extended signatures, exact-size buffers */
            size_t lens[] = {0, 1, 31, 32, used - 1, used, s->sig_len - 1, s->sig_len + 1};
            for (unsigned j = 0; j < sizeof lens / sizeof lens[0]; j++) {
                if (lens[j] == s->sig_len) continue; /* used fills the buffer: not truncated */
                uint8_t *t = test_alloc(lens[j]);
                memset(t, 0, lens[j]);
                memcpy(t, sig, lens[j] < s->sig_len ? lens[j] : s->sig_len);
                CHECK(verify_exact(s, t, lens[j], msg, msg_len, ctx, ctx_len, pk) != KPQC_OK);
                free(t);
            }

            /* malformed code lengths and contents */
            uint8_t *bad = test_alloc(s->sig_len);
            size_t off = N / 8 + (size_t)p->l * N;
            static const uint8_t lens_hb[] = {0, 0xFF}, lens_h[] = {0, 0xFF};
            for (unsigned a = 0; a < 2; a++)
                for (unsigned b = 0; b < 2; b++) {
                    memcpy(bad, sig, s->sig_len);
                    bad[off] = lens_hb[a];
                    bad[off + 1] = lens_h[b];
                    if (bad[off] == sig[off] && bad[off + 1] == sig[off + 1]) continue;
                    CHECK(verify_exact(s, bad, s->sig_len, msg, msg_len, ctx, ctx_len, pk) != KPQC_OK);
                }
            for (unsigned trial = 0; trial < 20; trial++) {
                memcpy(bad, sig, s->sig_len);
                for (size_t j = off + 2; j < s->sig_len; j++) bad[j] = (uint8_t)rnd32();
                CHECK(verify_exact(s, bad, s->sig_len, msg, msg_len, ctx, ctx_len, pk) != KPQC_OK);
                memcpy(bad, sig, s->sig_len);
                bad[off + (trial & 1)] = (uint8_t)(bad[off + (trial & 1)] + 1 + trial);
                CHECK(verify_exact(s, bad, s->sig_len, msg, msg_len, ctx, ctx_len, pk) != KPQC_OK);
            }
            free(bad);

            /* another context or message */
            if (ctx_len > 0) {
                ctx[0] ^= 1;
                CHECK(verify_exact(s, sig, sig_len, msg, msg_len, ctx, ctx_len, pk) != KPQC_OK);
                ctx[0] ^= 1;
            }
            msg[msg_len] ^= 1;
            CHECK(verify_exact(s, sig, sig_len, msg, msg_len + 1, ctx, ctx_len, pk) != KPQC_OK);
        }
        CHECK_MSG(padded > 0, "%s: no signature had padding", s->name);
        /* contexts longer than 255 bytes are refused */
        uint8_t longctx[256] = {0};
        size_t sig_len = s->sig_len;
        CHECK(kpqc_sig_sign(s, sig, &sig_len, msg, 1, longctx, 256, sk, s->sk_len, &rng) != KPQC_OK);
        free(pk), free(sk), free(sig);
    }
}

static size_t unhex(uint8_t *out, const char *hex) {
    size_t n = 0;
    for (; hex[0] && hex[1]; hex += 2) {
        unsigned v;
        sscanf(hex, "%2x", &v);
        out[n++] = (uint8_t)v;
    }
    return n;
}

/* v1.1.2 signatures verify under today's keys; today's signature for the
 * same record differs (new sampler) and verifies too. */
static void test_legacy(void) {
    for (unsigned i = 0; i < sizeof haetae_legacy_vectors / sizeof haetae_legacy_vectors[0]; i++) {
        const struct haetae_legacy_vector *v = &haetae_legacy_vectors[i];
        const kpqc_sig *s = kpqc_sig_by_name(v->alg);
        if (s == NULL) continue; /* not selected in this build */
        uint8_t seed[48], msg[64], rnd[32], ctx[255], ctx_len;
        uint8_t *legacy = test_alloc(strlen(v->sig) / 2), *pk = test_alloc(s->pk_len),
                *sk = test_alloc(s->sk_len), *sig = test_alloc(s->sig_len);
        CHECK(unhex(seed, v->seed) == 48);
        size_t msg_len = unhex(msg, v->msg);
        size_t legacy_len = unhex(legacy, v->sig);
        CHECK(legacy_len == s->sig_len);
        kpqc_nist_drbg d;
        kpqc_nist_drbg_init(&d, seed, NULL);
        kpqc_rng rng = kpqc_nist_drbg_rng(&d);
        CHECK(kpqc_sig_keypair(s, pk, s->pk_len, sk, s->sk_len, &rng) == KPQC_OK);
        kpqc_nist_drbg_fill(&d, rnd, sizeof rnd);
        kpqc_nist_drbg_fill(&d, &ctx_len, 1);
        kpqc_nist_drbg_fill(&d, ctx, ctx_len);
        CHECK_MSG(verify_exact(s, legacy, legacy_len, msg, msg_len, ctx, ctx_len, pk) == KPQC_OK,
                  "%s: v1.1.2 signature refused", v->alg);
        legacy[legacy_len / 2] ^= 4;
        CHECK(verify_exact(s, legacy, legacy_len, msg, msg_len, ctx, ctx_len, pk) != KPQC_OK);
        legacy[legacy_len / 2] ^= 4;
        size_t sig_len = s->sig_len;
        kpqc_nist_drbg_init(&d, seed, NULL); /* any rnd will do; the record's own */
        CHECK(kpqc_sig_sign(s, sig, &sig_len, msg, msg_len, ctx, ctx_len, sk, s->sk_len, &rng) == KPQC_OK);
        CHECK(memcmp(sig, legacy, s->sig_len) != 0);
        CHECK(verify_exact(s, sig, sig_len, msg, msg_len, ctx, ctx_len, pk) == KPQC_OK);
        free(legacy), free(pk), free(sk), free(sig);
    }
}

int main(void) {
    if (kpqc_sig_by_name("haetae2") == NULL) {
        printf("test_haetae: HAETAE not built, nothing to test\n");
        return 0;
    }
    backends = kpqc_haetae_backends(&nbackends);
    test_ntt();
    test_rans_divisor();
    test_rans();
    test_fft();
    test_cdt();
    test_gauss();
    test_gauss_feed();
    test_scale_round();
    test_approx_exp();
    test_compact();
    test_challenge();
    test_hint_row();
    test_rej_uniform();
    test_signatures();
    test_legacy();
    return test_result("test_haetae");
}
