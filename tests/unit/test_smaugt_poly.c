/* SMAUG-T's products: every backend this CPU can run against a plain
 * schoolbook negacyclic product, for every shape the scheme uses (k x k,
 * (k + 1) x k and 1 x k) and every modulus, on random and extreme inputs;
 * bit-string packing round trips for every width the scheme uses. */
#include <string.h>

#include "harness.h"
#include "internal.h"
#include "common/keccak.h"
#include "kem/smaugt/smaugt.h"

static void schoolbook(uint16_t r[SMAUGT_N], const uint16_t a[SMAUGT_N], const int16_t s[SMAUGT_N]) {
    for (unsigned i = 0; i < SMAUGT_N; i++)
        for (unsigned j = 0; j < SMAUGT_N; j++) {
            uint16_t t = (uint16_t)((uint32_t)a[i] * (uint16_t)s[j]);
            if (i + j < SMAUGT_N) r[i + j] = (uint16_t)(r[i + j] + t);
            else r[i + j - SMAUGT_N] = (uint16_t)(r[i + j - SMAUGT_N] - t); /* x^256 = -1 */
        }
}

#define ROWS_MAX (SMAUGT_KMAX + 1)

/* Inputs of one trial; kind 0 random, 1 the extremes (every a the most
 * negative value, every s = -2: the largest sums), 2 every a the largest
 * positive value and s = 1, 3 random a with a sparse ternary s. */
static void fill(unsigned kind, kpqc_rng *rng, unsigned log_mod, uint16_t a[ROWS_MAX * SMAUGT_KMAX][SMAUGT_N],
                 int16_t s[SMAUGT_KMAX][SMAUGT_N], uint16_t start[ROWS_MAX][SMAUGT_N]) {
    uint8_t rnd[2 * SMAUGT_N];
    const unsigned sh = 16 - log_mod;
    for (unsigned p = 0; p < ROWS_MAX * SMAUGT_KMAX; p++) {
        kpqc_randombytes(rng, rnd, sizeof rnd);
        for (unsigned i = 0; i < SMAUGT_N; i++) {
            uint16_t v = (uint16_t)(rnd[2 * i] | rnd[2 * i + 1] << 8);
            a[p][i] = kind == 1 ? (uint16_t)0x8000 : kind == 2 ? (uint16_t)(0x7FFF >> sh << sh) : (uint16_t)(v >> sh << sh);
        }
    }
    for (unsigned j = 0; j < SMAUGT_KMAX; j++) {
        kpqc_randombytes(rng, rnd, sizeof rnd);
        for (unsigned i = 0; i < SMAUGT_N; i++)
            s[j][i] = kind == 1 ? -2 : kind == 2 ? 1 : kind == 3 ? (int16_t)(rnd[i] < 16 ? 1 - 2 * (rnd[i] & 1) : 0)
                                                  : (int16_t)((int)(rnd[i] & 3) - 2);
    }
    for (unsigned i = 0; i < ROWS_MAX; i++) {
        kpqc_randombytes(rng, rnd, sizeof rnd);
        for (unsigned c = 0; c < SMAUGT_N; c++) start[i][c] = (uint16_t)(rnd[2 * c] | rnd[2 * c + 1] << 8);
    }
}

/*
 * The sponge queue against one single-state sponge per job, on every
 * level: SHAKE128, SHAKE256 and SHA3-256 of inputs from empty to several
 * blocks (ending on and around block boundaries), with and without tag
 * bytes, outputs from 1 byte to several blocks, up to 24 jobs so lanes are
 * reused; and chains of jobs each reading the output of an earlier one,
 * as an encapsulation queues them, several waiting for the same one.
 */
/*
 * The fixed-weight sampler against the specification's sequential form:
 * draw i (and its redraws, from word 256 on) by Lemire's
 * multiply-and-reject, coefficient i non-zero iff its draw is at least the
 * number of zeros still to place, its sign from bit p of byte 16 h + t
 * for i = 128 h + 16 p + t (set: +1).  Random seeds, seeds with draws
 * forced to a rejection (a zero word is rejected wherever 2^16 mod
 * (256 - i) is not zero) in runs, alone and in blocks of eight, and seeds
 * whose 308 words run out.
 */
static int hwt_reference(int16_t s[SMAUGT_N], const uint8_t buf[SMAUGT_HWT_BYTES], unsigned hs) {
    unsigned next = SMAUGT_N, zeros = SMAUGT_N - hs;
    for (unsigned i = 0; i < SMAUGT_N; i++) {
        const uint32_t bound = SMAUGT_N - i, threshold = 65536u % bound;
        uint32_t m = (uint32_t)(buf[2 * i] | buf[2 * i + 1] << 8) * bound;
        while ((m & 0xFFFF) < threshold) {
            if (next >= 308) return -1;
            m = (uint32_t)(buf[2 * next] | buf[2 * next + 1] << 8) * bound;
            next++;
        }
        const int nonzero = (m >> 16) >= zeros;
        zeros -= !nonzero;
        const int positive = (buf[2 * 308 + 16 * (i / 128) + i % 16] >> (i / 16 % 8)) & 1;
        s[i] = (int16_t)(nonzero ? (positive ? 1 : -1) : 0);
    }
    return 0;
}

static void check_hwt(kpqc_rng *rng) {
    static const unsigned weights[3] = {70, 88, 87};
    for (unsigned trial = 0; trial < 5 * 256; trial++) {
        uint8_t buf[SMAUGT_HWT_BYTES], rnd[4];
        int16_t want[SMAUGT_N], got[SMAUGT_N];
        kpqc_randombytes(rng, buf, sizeof buf);
        kpqc_randombytes(rng, rnd, sizeof rnd);
        /* the forced runs start at every position in turn */
        const unsigned kind = trial % 5, at = trial / 5, len = kind == 1 ? 1 + rnd[1] % 8 : kind == 2 ? 8 : kind == 3 ? 60 : 0;
        for (unsigned i = at - at % (kind == 2 ? 8 : 1); i < at + len && i < SMAUGT_N; i++) buf[2 * i] = buf[2 * i + 1] = 0;
        if (kind == 4) memset(buf + 2 * SMAUGT_N, 0, 2 * (308 - SMAUGT_N)); /* redraws rejected too */
        const unsigned hs = weights[trial % 3];
        memset(got, 0x55, sizeof got);
        const int rc_want = hwt_reference(want, buf, hs), rc_got = kpqc_smaugt_hwt(got, buf, hs);
        CHECK_MSG(rc_want == rc_got, "fixed-weight sampler verdict, trial %u (kind %u)", trial, kind);
        if (rc_want == 0) {
            unsigned weight = 0;
            for (unsigned i = 0; i < SMAUGT_N; i++) weight += want[i] != 0;
            CHECK(weight == hs);
            CHECK_MSG(memcmp(want, got, sizeof want) == 0, "fixed-weight sampler, trial %u (kind %u)", trial, kind);
        }
    }
}

#define QJOBS 24
static void check_sponge_queue(kpqc_rng *rng) {
    static uint8_t in[QJOBS][700], want[QJOBS][600], got[QJOBS][600];
    static const unsigned rates[3] = {KPQC_SHAKE128_RATE, KPQC_SHAKE256_RATE, KPQC_SHA3_256_RATE};
    static const kpqc_impl levels[3] = {KPQC_IMPL_PORTABLE, KPQC_IMPL_AVX2, KPQC_IMPL_AVX512};
    for (unsigned trial = 0; trial < 56; trial++) {
        smaugt_sponge_job jobs[QJOBS];
        uint8_t rnd[4 * QJOBS];
        const unsigned n = trial >= 40 ? 2 + trial % 8 : 1 + trial % QJOBS;
        kpqc_randombytes(rng, rnd, sizeof rnd);
        kpqc_randombytes(rng, &in[0][0], sizeof in);
        for (unsigned i = 0; i < n; i++) {
            const unsigned kind = rnd[4 * i] % 3, rate = rates[kind];
            /* lengths near 0, 1, 2 and 4 blocks */
            const size_t base = (size_t)(rnd[4 * i + 1] % 5 == 4 ? 4 : rnd[4 * i + 1] % 3) * rate,
                         inlen = base == 0 ? rnd[4 * i + 2] % 9 : base + rnd[4 * i + 2] % 9 - 4;
            const unsigned taglen = inlen % rate + 2 < rate ? rnd[4 * i + 3] % 3 : 0;
            const size_t outlen = kind == 2 ? 32 : 1 + (size_t)rnd[4 * i + 3] * 598 / 255; /* a byte to spare */
            jobs[i] = (smaugt_sponge_job){in[i], inlen, {rnd[4 * i + 2], rnd[4 * i]}, taglen, got[i], outlen, rate,
                                          kind == 2 ? 0x06 : 0x1f, 0};
            /* every third job (from trial 10 on) reads the first bytes of
             * an earlier job's output, or the bytes after its own input's
             * start, as a chained hash; from trial 40 on every job but the
             * first waits, two for each earlier one (as r's hashes wait
             * for the seeds), so jobs start on lanes that sat idle
             * through permutations */
            if ((trial >= 10 && i > 0 && i % 3 == 0) || (trial >= 40 && i > 0)) {
                const unsigned from = trial >= 40 ? (i - 1) / 2 : rnd[4 * i + 1] % i;
                jobs[i].in = got[from];
                jobs[i].inlen = jobs[from].outlen < 40 ? jobs[from].outlen : 40;
                jobs[i].taglen = 1;
                jobs[i].after = from + 1;
            }
        }
        for (unsigned i = 0; i < n; i++) { /* the reference, in the list's order (chains point backwards) */
            kpqc_keccak k;
            uint8_t buf[750];
            const uint8_t *src = jobs[i].after ? want[jobs[i].after - 1] : jobs[i].in;
            memcpy(buf, src, jobs[i].inlen);
            memcpy(buf + jobs[i].inlen, jobs[i].tag, jobs[i].taglen);
            kpqc_keccak_init(&k, jobs[i].rate, jobs[i].dsep);
            kpqc_keccak_absorb(&k, buf, jobs[i].inlen + jobs[i].taglen);
            kpqc_keccak_squeeze(&k, want[i], jobs[i].outlen);
        }
        for (unsigned l = 0; l < 3; l++) {
            if (kpqc_set_impl(levels[l]) != KPQC_OK) continue;
            memset(got, 0xA5, sizeof got);
            kpqc_smaugt_sponges(jobs, n);
            for (unsigned i = 0; i < n; i++) {
                CHECK_MSG(memcmp(want[i], got[i], jobs[i].outlen) == 0, "%s sponge queue, trial %u, job %u of %u",
                          kpqc_impl_name(), trial, i, n);
                CHECK_MSG(got[i][jobs[i].outlen] == 0xA5, "%s sponge queue wrote past job %u's output",
                          kpqc_impl_name(), i);
            }
        }
        kpqc_set_impl(KPQC_IMPL_AUTO);
    }
}

int main(void) {
    kpqc_nist_drbg d;
    kpqc_rng rng = test_rng(&d, 7);
    size_t nb;
    const kpqc_backend_info *const *backends = kpqc_smaugt_backends(&nb);
    static const unsigned log_mods[] = {4, 5, 7, 8, 9, 10, 11};
    static uint16_t a[ROWS_MAX * SMAUGT_KMAX][SMAUGT_N], want[ROWS_MAX][SMAUGT_N], got[ROWS_MAX][SMAUGT_N],
        start[ROWS_MAX][SMAUGT_N];
    static int16_t s[SMAUGT_KMAX][SMAUGT_N];
    static uint8_t packed[ROWS_MAX * SMAUGT_KMAX][SMAUGT_LOG_Q_MAX * SMAUGT_N / 8];
    for (unsigned trial = 0; trial < 120; trial++) {
        const unsigned k = 1 + trial % SMAUGT_KMAX, log_mod = log_mods[trial % 7];
        const unsigned rows = (trial / 4) % 3 == 0 ? k : (trial / 4) % 3 == 1 ? k + 1 : 1;
        fill(trial < 8 ? 1 + trial % 3 : trial % 4, &rng, log_mod, a, s, start);
        /* the kernels take each row packed, log_mod bits a coefficient,
         * ending where its buffer ends (a read past it is out of bounds
         * for the sanitizer build on the last row) */
        const uint8_t *ptr[ROWS_MAX * SMAUGT_KMAX];
        for (unsigned p = 0; p < rows * k; p++) {
            uint16_t v[SMAUGT_N];
            uint8_t *dst = packed[p] + sizeof packed[p] - log_mod * SMAUGT_N / 8;
            for (unsigned i = 0; i < SMAUGT_N; i++) v[i] = (uint16_t)(a[p][i] >> (16 - log_mod));
            kpqc_smaugt_pack_bits(dst, v, log_mod);
            ptr[p] = dst;
        }
        memcpy(want, start, sizeof want);
        for (unsigned i = 0; i < rows; i++)
            for (unsigned j = 0; j < k; j++) schoolbook(want[i], a[i * k + j], s[j]);
        for (size_t b = 0; b < nb; b++) {
            if (!kpqc_backend_usable(backends[b])) continue;
            memcpy(got, start, sizeof got);
            ((const kpqc_smaugt_backend *)backends[b])->matvec_acc(got, ptr, log_mod, (const int16_t (*)[SMAUGT_N])s, rows, k);
            CHECK_MSG(memcmp(want, got, sizeof want) == 0, "%s product, trial %u (k %u, rows %u, log_mod %u)",
                      backends[b]->name, trial, k, rows, log_mod);
        }
    }
    static const unsigned widths[] = {3, 4, 5, 7, 8, 9, 10, 11};
    for (unsigned w = 0; w < sizeof widths / sizeof widths[0]; w++) {
        uint16_t v[SMAUGT_N], back[SMAUGT_N];
        uint8_t bytes[11 * SMAUGT_N / 8 + 1];
        for (unsigned i = 0; i < SMAUGT_N; i++) v[i] = (uint16_t)((i * 2654435761u >> 7) & ((1u << widths[w]) - 1));
        kpqc_smaugt_pack_bits(bytes, v, widths[w]);
        kpqc_smaugt_unpack_bits(back, bytes, widths[w]);
        CHECK(memcmp(v, back, sizeof v) == 0);
        /* bit i*w of the string is the low bit of coefficient i */
        for (unsigned i = 0; i < SMAUGT_N; i++)
            CHECK(((bytes[i * widths[w] / 8] >> (i * widths[w] % 8)) & 1) == (v[i] & 1));
    }
    /* every backend's unpacking against the portable one, every width,
     * random strings and all-ones */
    for (unsigned bits = 2; bits <= 11; bits++)
        for (unsigned trial = 0; trial < 4; trial++) {
            uint8_t bytes[11 * SMAUGT_N / 8];
            uint16_t want_v[SMAUGT_N], got_v[SMAUGT_N];
            kpqc_randombytes(&rng, bytes, sizeof bytes);
            if (trial == 0) memset(bytes, 0xFF, sizeof bytes);
            /* read from the end of the array: a load past the packed bytes
             * is out of bounds (the sanitizer build reports it) */
            const uint8_t *src = bytes + sizeof bytes - bits * SMAUGT_N / 8;
            kpqc_smaugt_unpack_bits(want_v, src, bits);
            for (unsigned i = 0; i < SMAUGT_N; i++) want_v[i] = (uint16_t)(want_v[i] << (16 - bits));
            for (size_t b = 0; b < nb; b++) {
                if (!kpqc_backend_usable(backends[b])) continue;
                ((const kpqc_smaugt_backend *)backends[b])->unpack_top(got_v, src, bits);
                CHECK_MSG(memcmp(want_v, got_v, sizeof want_v) == 0, "%s unpack, %u bits", backends[b]->name, bits);
            }
        }
    /* every backend's rounding and packing against the portable one, every
     * width, random values and the values next to each rounding boundary */
    for (unsigned bits = 2; bits <= 11; bits++)
        for (unsigned trial = 0; trial < 4; trial++) {
            uint8_t rnd[2 * SMAUGT_N], want_b[11 * SMAUGT_N / 8], got_b[11 * SMAUGT_N / 8 + 1];
            uint16_t v[SMAUGT_N];
            kpqc_randombytes(&rng, rnd, sizeof rnd);
            for (unsigned i = 0; i < SMAUGT_N; i++) {
                uint16_t r = (uint16_t)(rnd[2 * i] | rnd[2 * i + 1] << 8);
                /* trial 1: just below and at half a step above a multiple of the step */
                v[i] = trial == 1 ? (uint16_t)((r << (16 - bits)) + (1u << (15 - bits)) - (i & 1)) : trial == 2 ? 0xFFFF : r;
            }
            kpqc_smaugt_pack_round(want_b, v, bits);
            for (size_t b = 0; b < nb; b++) {
                if (!kpqc_backend_usable(backends[b])) continue;
                memset(got_b, 0xA5, sizeof got_b);
                /* packed into the end of the buffer: a store past the
                 * packed bytes hits the sentinel byte after them */
                uint8_t *dst = got_b + sizeof got_b - 1 - bits * SMAUGT_N / 8;
                ((const kpqc_smaugt_backend *)backends[b])->pack_round(dst, v, bits);
                CHECK_MSG(memcmp(want_b, dst, bits * SMAUGT_N / 8) == 0, "%s pack, %u bits", backends[b]->name, bits);
                CHECK_MSG(got_b[sizeof got_b - 1] == 0xA5, "%s pack wrote past its %u bytes", backends[b]->name,
                          bits * SMAUGT_N / 8);
            }
        }
    /* the secret's 2-bit fields, every byte value: field f is 1 - f on
     * every backend, and the packing of {-1, 0, 1} round-trips */
    for (unsigned trial = 0; trial < 4; trial++) {
        uint8_t bytes[SMAUGT_SKPOLY_BYTES], back[SMAUGT_SKPOLY_BYTES];
        int16_t sv[SMAUGT_N];
        for (unsigned i = 0; i < SMAUGT_SKPOLY_BYTES; i++) bytes[i] = (uint8_t)(64 * trial + i);
        kpqc_smaugt_unpack_secret(sv, bytes);
        for (unsigned i = 0; i < SMAUGT_N; i++)
            CHECK_MSG(sv[i] == 1 - ((bytes[i / 4] >> (2 * (i % 4))) & 3), "secret field %u of byte %u", i % 4,
                      bytes[i / 4]);
        for (size_t b = 0; b < nb; b++) { /* and every backend's kernel against it */
            int16_t got_s[SMAUGT_N];
            if (!kpqc_backend_usable(backends[b])) continue;
            ((const kpqc_smaugt_backend *)backends[b])->unpack_secret(got_s, bytes);
            CHECK_MSG(memcmp(sv, got_s, sizeof sv) == 0, "%s secret unpacking, bytes from %u", backends[b]->name,
                      64 * trial);
        }
        for (unsigned i = 0; i < SMAUGT_N; i++) sv[i] = (int16_t)((int)((i * 7u) % 3) - 1);
        kpqc_smaugt_pack_secret(back, sv);
        int16_t sv2[SMAUGT_N];
        kpqc_smaugt_unpack_secret(sv2, back);
        CHECK(memcmp(sv, sv2, sizeof sv) == 0);
    }
    /* every backend's sampler of r against the portable one, every kind,
     * random seeds, all-zero and all-ones; the seed bytes at the end of the
     * buffer so that a read past them is out of bounds */
    for (unsigned kind = SMAUGT_SPARSE_CBD3; kind <= SMAUGT_SPARSE_CBD4; kind++)
        for (unsigned trial = 0; trial < 6; trial++) {
            uint8_t bytes[4 * SMAUGT_N / 8];
            int16_t want_r[SMAUGT_N], got_r[SMAUGT_N];
            const size_t len = smaugt_cbd_width((enum smaugt_cbd)kind) * SMAUGT_N / 8;
            const uint8_t *src = bytes + sizeof bytes - len;
            kpqc_randombytes(&rng, bytes, sizeof bytes);
            if (trial < 2) memset(bytes, trial ? 0xFF : 0x00, sizeof bytes);
            kpqc_smaugt_cbd(want_r, src, (enum smaugt_cbd)kind);
            unsigned nonzero = 0;
            for (unsigned i = 0; i < SMAUGT_N; i++) {
                CHECK(want_r[i] >= -1 && want_r[i] <= 1);
                nonzero += want_r[i] != 0;
            }
            CHECK(trial != 0 || nonzero == 0);
            for (size_t b = 0; b < nb; b++) {
                if (!kpqc_backend_usable(backends[b])) continue;
                ((const kpqc_smaugt_backend *)backends[b])->cbd(got_r, src, (enum smaugt_cbd)kind);
                CHECK_MSG(memcmp(want_r, got_r, sizeof want_r) == 0, "%s r sampler, kind %u, trial %u",
                          backends[b]->name, kind, trial);
            }
        }
    /* every backend's Gaussian sampler against the portable one */
    for (unsigned trial = 0; trial < 8; trial++) {
        uint8_t bytes[SMAUGT_GAUSS_BYTES];
        smaugt_poly want_e, got_e;
        const unsigned log_q = trial & 1 ? 11 : 10;
        kpqc_randombytes(&rng, bytes, sizeof bytes);
        if (trial < 2) memset(bytes, trial ? 0xFF : 0x00, sizeof bytes);
        kpqc_smaugt_gaussian(&want_e, bytes, log_q);
        for (size_t b = 0; b < nb; b++) {
            if (!kpqc_backend_usable(backends[b])) continue;
            ((const kpqc_smaugt_backend *)backends[b])->gaussian(&got_e, bytes, log_q);
            CHECK_MSG(memcmp(&want_e, &got_e, sizeof want_e) == 0, "%s Gaussian, trial %u", backends[b]->name, trial);
        }
    }
    check_sponge_queue(&rng);
    check_hwt(&rng);
    for (size_t b = 0; b < nb; b++)
        printf("%s kernels %s\n", backends[b]->name,
               kpqc_backend_usable(backends[b]) ? "checked" : "not available on this CPU");
    return test_result("test_smaugt_poly");
}
