/*
 * SMAUG-T KEM: the IND-CPA scheme and the Fujisaki-Okamoto transform with
 * implicit rejection.
 *
 *   keygen: (s-seed/e-seed, A-seed) = SHA3-512(seed); s has fixed weight,
 *           b = e - A s;  pk = A-seed || b (mod q);  sk = s || d || pk
 *   enc:    (r-seed, K) = SHAKE256(mu || SHA3-256(pk));
 *           c1 = round_p(A^T r), c2 = round_p'(encode(mu) + <b, r>)
 *   dec:    mu' from c2 + <c1, s>; re-encrypt; on mismatch
 *           K = SHAKE256(d || SHA3-256(ct))[32..64].
 *
 * Buffers are sized for the largest set, k = 4, but only their first k
 * rows (k + 1 for the product's) are ever written, so only those are
 * cleared and wiped: for k = 2 (smaugt1, TiMER) wiping whole buffers was
 * about 2.5 KB of stores more per encapsulation.
 */
#include <string.h>

#include "common/ct.h"
#include "common/keccak.h"
#include "decoders.h"
#include "internal.h"
#include "smaugt.h"

const smaugt_params kpqc_smaugt1_params = {2, 10, 8, 5, 70, SMAUGT_SPARSE_CBD3, 32, 0};
const smaugt_params kpqc_smaugt3_params = {3, 11, 9, 4, 88, SMAUGT_CBD1, 32, 0};
const smaugt_params kpqc_smaugt5_params = {4, 11, 9, 7, 87, SMAUGT_SPARSE_CBD4, 32, 0};
const smaugt_params kpqc_timer_params = {2, 10, 8, 3, 70, SMAUGT_SPARSE_CBD3, 16, 1};

static smaugt_sponge_job sponge_job(const uint8_t *in, size_t inlen, uint8_t *out, size_t outlen, unsigned rate,
                                     uint8_t dsep) {
    smaugt_sponge_job j = {in, inlen, {0, 0}, 0, out, outlen, rate, dsep, 0};
    return j;
}

/* SHAKE of seed || the taglen index bytes t0, t1: the hashes derived from
 * one seed. */
static smaugt_sponge_job seed_job(const uint8_t seed[SMAUGT_SEED_BYTES], unsigned taglen, unsigned t0, unsigned t1,
                                  uint8_t *out, size_t outlen, unsigned rate) {
    smaugt_sponge_job j = {seed, SMAUGT_SEED_BYTES, {(uint8_t)t0, (uint8_t)t1}, taglen, out, outlen, rate, 0x1f, 0};
    return j;
}

/* A's bytes: entry (i, j) is SHAKE128(A-seed || i || j), log_q bits per
 * coefficient; a_jobs queues the k^2 hashes.  The product kernels read
 * the packed entries as they are, like b in pk and c1 in ct. */
typedef struct {
    uint8_t out[SMAUGT_KMAX * SMAUGT_KMAX][SMAUGT_LOG_Q_MAX * SMAUGT_N / 8];
} smaugt_a_bytes;

static unsigned a_jobs(const smaugt_params *p, smaugt_sponge_job *jobs, smaugt_a_bytes *ab,
                       const uint8_t seed[SMAUGT_SEED_BYTES]) {
    for (unsigned e = 0; e < p->k * p->k; e++)
        jobs[e] = seed_job(seed, 2, e / p->k, e % p->k, ab->out[e], p->log_q * SMAUGT_N / 8, KPQC_SHAKE128_RATE);
    return p->k * p->k;
}

static int indcpa_keypair(const smaugt_params *p, const kpqc_smaugt_backend *be, uint8_t *pk, uint8_t *sk_pke,
                          const uint8_t seed[SMAUGT_SEED_BYTES]) {
    uint8_t ext[64], hs_seed[SMAUGT_SEED_BYTES + 2];
    int16_t s[SMAUGT_KMAX][SMAUGT_N];
    smaugt_poly b[SMAUGT_KMAX];
    kpqc_sha3_512(ext, seed, SMAUGT_SEED_BYTES);

    /* Every hash of the key at once: the secret's SHAKE256(seed || ik ||
     * 0) per row (the longest first), the error's SHAKE256(seed || ki),
     * and A. */
    uint8_t hwt_buf[SMAUGT_KMAX][SMAUGT_HWT_BYTES], e_buf[SMAUGT_KMAX][SMAUGT_GAUSS_BYTES];
    smaugt_sponge_job jobs[2 * SMAUGT_KMAX + SMAUGT_KMAX * SMAUGT_KMAX];
    smaugt_a_bytes ab;
    unsigned n = 0;
    for (unsigned i = 0; i < p->k; i++)
        jobs[n++] = seed_job(ext, 2, i * p->k, 0, hwt_buf[i], SMAUGT_HWT_BYTES, KPQC_SHAKE256_RATE);
    for (unsigned i = 0; i < p->k; i++)
        jobs[n++] = seed_job(ext, 1, p->k * i, 0, e_buf[i], SMAUGT_GAUSS_BYTES, KPQC_SHAKE256_RATE);
    n += a_jobs(p, jobs + n, &ab, ext + SMAUGT_SEED_BYTES);
    kpqc_smaugt_sponges(jobs, n);

    /* Secret: one fixed-weight polynomial per row; a rejected seed (rare)
     * is retried with the next counter. */
    memcpy(hs_seed, ext, SMAUGT_SEED_BYTES);
    int rc = 0;
    for (unsigned i = 0; i < p->k; i++) {
        unsigned counter = 0;
        rc = kpqc_smaugt_hwt(s[i], hwt_buf[i], p->hs);
        KPQC_CT_DECLASSIFY(&rc, sizeof rc);
        while (rc != 0 && ++counter < 256) {
            hs_seed[SMAUGT_SEED_BYTES] = (uint8_t)(i * p->k);
            hs_seed[SMAUGT_SEED_BYTES + 1] = (uint8_t)counter;
            kpqc_shake256(hwt_buf[i], SMAUGT_HWT_BYTES, hs_seed, sizeof hs_seed);
            rc = kpqc_smaugt_hwt(s[i], hwt_buf[i], p->hs);
            KPQC_CT_DECLASSIFY(&rc, sizeof rc);
        }
        if (rc != 0) { /* probability far below 2^-1000 */
            kpqc_wipe(e_buf, p->k * sizeof e_buf[0]);
            break;
        }
    }
    kpqc_wipe(hwt_buf, p->k * sizeof hwt_buf[0]);
    if (rc != 0) {
        kpqc_wipe(ext, sizeof ext);
        kpqc_wipe(hs_seed, sizeof hs_seed);
        kpqc_wipe(s, p->k * sizeof s[0]);
        return KPQC_ERR_INTERNAL;
    }

    /* b = e - A s */
    uint16_t as[SMAUGT_KMAX][SMAUGT_N];
    const uint8_t *rows[SMAUGT_KMAX * SMAUGT_KMAX];
    memset(as, 0, p->k * sizeof as[0]);
    for (unsigned e = 0; e < p->k * p->k; e++) rows[e] = ab.out[e];
    be->matvec_acc(as, rows, p->log_q, (const int16_t (*)[SMAUGT_N])s, p->k, p->k);
    for (unsigned i = 0; i < p->k; i++) {
        be->gaussian(&b[i], e_buf[i], p->log_q);
        KPQC_CT_TAINT(&b[i], sizeof b[i], e_buf[i], SMAUGT_GAUSS_BYTES); /* the sign's borrow */
        for (unsigned c = 0; c < SMAUGT_N; c++) b[i].c[c] = (uint16_t)(b[i].c[c] - as[i][c]);
    }
    kpqc_wipe(e_buf, p->k * sizeof e_buf[0]);
    kpqc_wipe(as, p->k * sizeof as[0]);

    memcpy(pk, ext + SMAUGT_SEED_BYTES, SMAUGT_SEED_BYTES);
    for (unsigned i = 0; i < p->k; i++) { /* b's low bits are zero: rounding keeps its top bits */
        be->pack_round(pk + SMAUGT_SEED_BYTES + i * p->log_q * SMAUGT_N / 8, b[i].c, p->log_q);
        kpqc_smaugt_pack_secret(sk_pke + i * SMAUGT_SKPOLY_BYTES, s[i]);
    }
    kpqc_wipe(ext, sizeof ext);
    kpqc_wipe(hs_seed, sizeof hs_seed);
    kpqc_wipe(s, p->k * sizeof s[0]);
    kpqc_wipe(b, p->k * sizeof b[0]);
    return KPQC_OK;
}

/* Four 16-bit coefficients as one little-endian word, the unit of the
 * message's word-at-a-time coding: a plain copy on a little-endian host. */
static void store4(uint16_t *c, uint64_t w) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(c, &w, sizeof w);
#else
    for (unsigned j = 0; j < 4; j++) c[j] = (uint16_t)(w >> (16 * j));
#endif
}

static uint64_t load4(const uint16_t *c) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t w;
    memcpy(&w, c, sizeof w);
    return w;
#else
    uint64_t w = 0;
    for (unsigned j = 0; j < 4; j++) w |= (uint64_t)c[j] << (16 * j);
    return w;
#endif
}

/* Four bits of a message to four 16-bit lanes of a word, bit j to the top
 * of lane j: copies of the nibble 15 bits apart, and copy j + 1 has bit j
 * at bit 16 j + 15. */
static uint64_t spread4(unsigned nibble) {
    const uint64_t x = nibble;
    return (x << 15 | x << 30 | x << 45 | x << 60) & 0x8000800080008000u;
}

/* The top bits of four 16-bit lanes gathered into a nibble (the inverse of
 * spread4): the product's partial sums land on distinct bits, the four
 * wanted ones at 60..63. */
static unsigned gather4(uint64_t tops) {
    return (unsigned)(((tops & 0x8000800080008000u) * 0x0000200040008001u) >> 60);
}

/* The message's encoding, the starting value of c2: bit i as 2^15 in
 * coefficient i, or for TiMER's D2 as 2^15 - 1 in coefficients i and
 * i + 128.  Four coefficients per word, no branch on the message. */
static void encode(const smaugt_params *p, uint16_t c2[SMAUGT_N], const uint8_t *mu) {
    if (p->timer) {
        for (unsigned q = 0; q < SMAUGT_N / 8; q++) {
            uint64_t w = spread4((mu[q / 2] >> (4 * (q % 2))) & 15u);
            w -= w >> 15; /* 2^15 -> 2^15 - 1 in each lane */
            store4(c2 + 4 * q, w);
            store4(c2 + 4 * q + SMAUGT_N / 2, w);
        }
    } else {
        for (unsigned i = 0; i < SMAUGT_N / 8; i++) {
            store4(c2 + 8 * i, spread4(mu[i] & 15u));
            store4(c2 + 8 * i + 4, spread4(mu[i] >> 4));
        }
    }
}

typedef uint8_t smaugt_r_bytes[SMAUGT_KMAX][4 * SMAUGT_N / 8];

/* r's k hashes SHAKE256(r-seed || i) to rb[i], each waiting for job
 * `after` (0: none); returns k. */
static unsigned r_jobs(const smaugt_params *p, smaugt_sponge_job *jobs, unsigned after, const uint8_t seeds[64],
                       smaugt_r_bytes rb) {
    for (unsigned i = 0; i < p->k; i++) {
        jobs[i] = seed_job(seeds, 1, i, 0, rb[i], smaugt_cbd_seed_bytes(p), KPQC_SHAKE256_RATE);
        jobs[i].after = after;
    }
    return p->k;
}

/* The hashes of an encryption, queued from job n on: (r-seed || K) =
 * SHAKE256(mu || H(pk)) from mu_hpk to seeds, waiting for job
 * seeds_after (0: none; the job writing H(pk) after mu), then r's.
 * Returns the next free index. */
static unsigned enc_jobs(const smaugt_params *p, smaugt_sponge_job *jobs, unsigned n, unsigned seeds_after,
                         const uint8_t *mu_hpk, uint8_t seeds[64], smaugt_r_bytes rb) {
    const unsigned seeds_job = n;
    jobs[n] = sponge_job(mu_hpk, p->msg_bytes + 32, seeds, 64, KPQC_SHAKE256_RATE, 0x1f);
    jobs[n++].after = seeds_after;
    n += r_jobs(p, jobs + n, seeds_job + 1, seeds, rb);
    return n;
}

/* Permutations of a SHA3-256 of inlen bytes (the padding's block too). */
static unsigned sha3_perms(size_t inlen) { return (unsigned)(inlen / KPQC_SHA3_256_RATE + 1); }

/* Whether `lanes` lanes expand all of A while the others hash pk (and
 * ct), the shortest of those taking `perms` permutations.  Then one queue
 * for every hash of an operation saves no permutation (the seeds and r
 * wait for SHA3-256(pk) either way: the chain is as long as before) and
 * only adds its bookkeeping, so A goes beside those hashes and the rest
 * follows.  Encapsulation (three lanes beside pk's hash): true for k = 2
 * and 3 (A's 8 <= 3 x 5 and 27 <= 3 x 9 permutations), not for k = 4
 * (48 > 3 x 11, where the single queue saves one).  Decapsulation (two
 * lanes): true for k = 2 only (8 <= 2 x 5). */
static int a_fits_beside(const smaugt_params *p, unsigned lanes, unsigned perms) {
    const unsigned a = (p->log_q * SMAUGT_N / 8 + KPQC_SHAKE128_RATE - 1) / KPQC_SHAKE128_RATE;
    return p->k * p->k * a <= lanes * perms;
}

/* The ciphertext of mu under pk with r from its seed bytes rb, A expanded
 * by the caller (both hashed together with other things). */
static void indcpa_enc(const smaugt_params *p, const kpqc_smaugt_backend *be, uint8_t *ct, const smaugt_a_bytes *a,
                       const uint8_t *pk, const uint8_t *mu, const uint8_t (*rb)[4 * SMAUGT_N / 8]) {
    int16_t r[SMAUGT_KMAX][SMAUGT_N];
    for (unsigned i = 0; i < p->k; i++) {
        be->cbd(r[i], rb[i], p->cbd);
        /* r's signs and upper bits are borrows MemorySanitizer does not
         * carry (see KPQC_CT_TAINT). */
        KPQC_CT_TAINT(r[i], sizeof r[i], rb[i], smaugt_cbd_seed_bytes(p));
        KPQC_CT_EXPECT_SECRET_EACH(r[i], SMAUGT_N, sizeof r[i][0], "the ephemeral secret r");
    }

    /* One product of the (k + 1) x k matrix (A^T over b^T) by r:
     * rows 0..k-1 give c1 = round_p(A^T r), row k gives
     * c2 = round_p'(encode(mu) + <b, r>). */
    uint16_t u[SMAUGT_KMAX + 1][SMAUGT_N];
    const uint8_t *rows[(SMAUGT_KMAX + 1) * SMAUGT_KMAX];
    for (unsigned i = 0; i < p->k; i++) {
        for (unsigned j = 0; j < p->k; j++) rows[i * p->k + j] = a->out[j * p->k + i];
        rows[p->k * p->k + i] = pk + SMAUGT_SEED_BYTES + i * p->log_q * SMAUGT_N / 8;
    }
    memset(u, 0, p->k * sizeof u[0]);
    encode(p, u[p->k], mu);
    be->matvec_acc(u, rows, p->log_q, (const int16_t (*)[SMAUGT_N])r, p->k + 1, p->k);

    for (unsigned i = 0; i <= p->k; i++) be->pack_round(ct + i * p->log_p * SMAUGT_N / 8, u[i], i < p->k ? p->log_p : p->log_p2);

    kpqc_wipe(r, p->k * sizeof r[0]);
    kpqc_wipe(u, (p->k + 1) * sizeof u[0]);
}

/* |x - (2^15 - 1)| in 16-bit arithmetic, as TiMER's D2 decoder defines it. */
static uint16_t flip_abs(uint16_t x) {
    int16_t r = (int16_t)(uint16_t)(x - 0x7FFFu);
    int16_t m = (int16_t)(r >> 15);
    return (uint16_t)((r + m) ^ m);
}

static void indcpa_dec(const smaugt_params *p, const kpqc_smaugt_backend *be, uint8_t *mu, const uint8_t *sk_pke, const uint8_t *ct) {
    smaugt_poly d;
    int16_t s[SMAUGT_KMAX][SMAUGT_N];
    const uint8_t *rows[SMAUGT_KMAX];
    be->unpack_top(d.c, ct + p->k * p->log_p * SMAUGT_N / 8, p->log_p2);
    for (unsigned i = 0; i < p->k; i++) {
        be->unpack_secret(s[i], sk_pke + i * SMAUGT_SKPOLY_BYTES);
        KPQC_CT_TAINT(s[i], sizeof s[i], sk_pke + i * SMAUGT_SKPOLY_BYTES, SMAUGT_SKPOLY_BYTES); /* 1 - f's borrow */
        KPQC_CT_EXPECT_SECRET_EACH(s[i], SMAUGT_N, sizeof s[i][0], "the unpacked secret key");
        rows[i] = ct + i * p->log_p * SMAUGT_N / 8;
    }
    be->matvec_acc(&d.c, rows, p->log_p, (const int16_t (*)[SMAUGT_N])s, 1, p->k);
    memset(mu, 0, p->msg_bytes);
    if (p->timer) {
        for (unsigned i = 0; i < SMAUGT_N / 2; i++) {
            uint16_t t = (uint16_t)(flip_abs(d.c[i]) + flip_abs(d.c[i + SMAUGT_N / 2]));
            t = (uint16_t)((uint16_t)(t - 0x7FFFu) >> 15);
            mu[i >> 3] |= (uint8_t)(t << (i & 7));
        }
    } else { /* bit i: the top bit of d_i + 2^14, four coefficients per step */
        for (unsigned q = 0; q < SMAUGT_N / 4; q++) {
            const uint64_t x = load4(d.c + 4 * q);
            const uint64_t sum = ((x & 0x7FFF7FFF7FFF7FFFu) + 0x4000400040004000u) ^ x; /* no carry across lanes */
            mu[q / 2] |= (uint8_t)(gather4(sum) << (4 * (q % 2)));
        }
    }
    /* Each bit of mu' is a carry (and, for SMAUG-T, a product's top bits)
     * out of d: secret, which MemorySanitizer does not see by itself. */
    KPQC_CT_TAINT(mu, p->msg_bytes, &d, sizeof d);
    KPQC_CT_EXPECT_SECRET(mu, p->msg_bytes, "the decrypted message");
    kpqc_wipe(&d, sizeof d);
    kpqc_wipe(s, p->k * sizeof s[0]);
}

/* d || seed: one request to the operating system (each is a system call,
 * about 0.36 us here, 2-5 % of a key generation), or d and then the seed
 * from a caller's rng, as the KATs' generator is asked (a deterministic
 * one gives other bytes for one request than for two). */
static int keypair_coins(const kpqc_rng *rng, uint8_t coins[32 + SMAUGT_SEED_BYTES]) {
    if (rng == NULL || rng->fill == NULL) return kpqc_randombytes(NULL, coins, 32 + SMAUGT_SEED_BYTES);
    const int rc = kpqc_randombytes(rng, coins, 32);
    return rc != KPQC_OK ? rc : kpqc_randombytes(rng, coins + 32, SMAUGT_SEED_BYTES);
}

static int keypair(const smaugt_params *p, uint8_t *pk, uint8_t *sk, const kpqc_rng *rng) {
    uint8_t coins[32 + SMAUGT_SEED_BYTES];
    const uint8_t *d = coins, *seed = coins + 32;
    int rc = keypair_coins(rng, coins);
    if (rc == KPQC_OK) rc = indcpa_keypair(p, kpqc_smaugt_select_backend(), pk, sk, seed);
    if (rc == KPQC_OK) {
        memcpy(sk + smaugt_sk_pke_bytes(p), d, 32);
        memcpy(sk + smaugt_sk_pke_bytes(p) + 32, pk, smaugt_pk_bytes(p));
    }
    kpqc_wipe(coins, sizeof coins);
    return rc;
}

/* All of an encapsulation's hashes, in the order of their urgency:
 * SHA3-256(pk), then the seeds and r waiting for it, with A beside them;
 * one queue, or (where that saves nothing) A beside SHA3-256(pk), then
 * the seeds and r as decapsulation queues them. */
static int encaps(const smaugt_params *p, uint8_t *ct, uint8_t *ss, const uint8_t *pk, const kpqc_rng *rng) {
    const kpqc_smaugt_backend *be = kpqc_smaugt_select_backend();
    uint8_t in[SMAUGT_MSG_MAX + 32], seeds[64];
    smaugt_r_bytes rb;
    smaugt_a_bytes a;
    smaugt_sponge_job jobs[2 + SMAUGT_KMAX + SMAUGT_KMAX * SMAUGT_KMAX];
    int rc = kpqc_randombytes(rng, in, p->msg_bytes);
    if (rc != KPQC_OK) return rc;
    jobs[0] = sponge_job(pk, smaugt_pk_bytes(p), in + p->msg_bytes, 32, KPQC_SHA3_256_RATE, 0x06);
    if (a_fits_beside(p, 3, sha3_perms(smaugt_pk_bytes(p)))) {
        kpqc_smaugt_sponges(jobs, 1 + a_jobs(p, jobs + 1, &a, pk));
        kpqc_smaugt_sponges(jobs, enc_jobs(p, jobs, 0, 0, in, seeds, rb));
    } else {
        unsigned n = enc_jobs(p, jobs, 1, 1, in, seeds, rb);
        n += a_jobs(p, jobs + n, &a, pk);
        kpqc_smaugt_sponges(jobs, n);
    }
    indcpa_enc(p, be, ct, &a, pk, in, (const uint8_t (*)[4 * SMAUGT_N / 8])rb);
    memcpy(ss, seeds + 32, SMAUGT_SS_BYTES);
    kpqc_wipe(in, sizeof in);
    kpqc_wipe(seeds, sizeof seeds);
    kpqc_wipe(rb, p->k * sizeof rb[0]);
    return KPQC_OK;
}

/* mu', SHA3-256 of pk and of ct, the re-encryption's seeds and r, the
 * rejection key SHAKE256(d || SHA3-256(ct)), and A: one queue after mu',
 * or (where A fits beside the first two) A with those two, mu', then the
 * rest. */
static int decaps(const smaugt_params *p, uint8_t *ss, const uint8_t *ct, const uint8_t *sk) {
    const kpqc_smaugt_backend *be = kpqc_smaugt_select_backend();
    uint8_t in[SMAUGT_MSG_MAX + 32], rin[64], seeds[64], reject[64];
    uint8_t ct2[SMAUGT_CT_MAX_BYTES];
    const uint8_t *d = sk + smaugt_sk_pke_bytes(p), *pk = d + 32;
    size_t ct_len = smaugt_ct_bytes(p);
    smaugt_r_bytes rb;
    smaugt_a_bytes a;
    smaugt_sponge_job jobs[4 + SMAUGT_KMAX + SMAUGT_KMAX * SMAUGT_KMAX];

    memcpy(rin, d, 32);
    jobs[0] = sponge_job(pk, smaugt_pk_bytes(p), in + p->msg_bytes, 32, KPQC_SHA3_256_RATE, 0x06);
    jobs[1] = sponge_job(ct, ct_len, rin + 32, 32, KPQC_SHA3_256_RATE, 0x06);
    const smaugt_sponge_job reject_job = sponge_job(rin, sizeof rin, reject, sizeof reject, KPQC_SHAKE256_RATE, 0x1f);
    const unsigned hash_perms = sha3_perms(smaugt_pk_bytes(p)) < sha3_perms(ct_len) ? sha3_perms(smaugt_pk_bytes(p))
                                                                                   : sha3_perms(ct_len);
    unsigned n;
    if (a_fits_beside(p, 2, hash_perms)) { /* mu' while the last permutations end */
        kpqc_smaugt_sponges(jobs, 2 + a_jobs(p, jobs + 2, &a, pk));
        indcpa_dec(p, be, in, sk, ct);
        n = enc_jobs(p, jobs, 0, 0, in, seeds, rb);
        jobs[n++] = reject_job;
    } else { /* mu' first: the single queue needs it */
        indcpa_dec(p, be, in, sk, ct);
        n = enc_jobs(p, jobs, 2, 1, in, seeds, rb);
        jobs[n] = reject_job;
        jobs[n++].after = 2;
        n += a_jobs(p, jobs + n, &a, pk);
    }
    kpqc_smaugt_sponges(jobs, n);
    indcpa_enc(p, be, ct2, &a, pk, in, (const uint8_t (*)[4 * SMAUGT_N / 8])rb);
    uint8_t fail = (uint8_t)kpqc_ct_memneq(ct, ct2, ct_len);

    memcpy(ss, seeds + 32, SMAUGT_SS_BYTES);
    kpqc_ct_cmov(ss, reject + 32, SMAUGT_SS_BYTES, fail);
    kpqc_wipe(in, sizeof in);
    kpqc_wipe(rin, sizeof rin);
    kpqc_wipe(seeds, sizeof seeds);
    kpqc_wipe(reject, sizeof reject);
    kpqc_wipe(rb, p->k * sizeof rb[0]);
    kpqc_wipe(ct2, ct_len);
    return KPQC_OK;
}

/* sk = s || d || pk: the copy of pk it carries must be pk.  Only the
 * verdict is made public. */
static int check_keypair(const smaugt_params *p, const uint8_t *pk, const uint8_t *sk) {
    int bad = kpqc_ct_memneq(sk + smaugt_sk_pke_bytes(p) + 32, pk, smaugt_pk_bytes(p));
    KPQC_CT_DECLASSIFY(&bad, sizeof bad);
    return bad ? KPQC_ERR_DECODE : KPQC_OK;
}

static const char *impl_name(void) { return kpqc_smaugt_select_backend()->info.name; }

#define SMAUGT_OPS(name)                                                                     \
    static int name##_keypair(uint8_t *pk, uint8_t *sk, const kpqc_rng *rng) {              \
        return keypair(&kpqc_##name##_params, pk, sk, rng);                                  \
    }                                                                                        \
    static int name##_encaps(uint8_t *ct, uint8_t *ss, const uint8_t *pk, const kpqc_rng *rng) { \
        return encaps(&kpqc_##name##_params, ct, ss, pk, rng);                               \
    }                                                                                        \
    static int name##_decaps(uint8_t *ss, const uint8_t *ct, const uint8_t *sk) {           \
        return decaps(&kpqc_##name##_params, ss, ct, sk);                                    \
    }                                                                                        \
    static int name##_check_keypair(const uint8_t *pk, const uint8_t *sk) {                 \
        return check_keypair(&kpqc_##name##_params, pk, sk);                                 \
    }                                                                                        \
    const struct kpqc_kem_ops kpqc_##name##_ops = {name##_keypair, name##_encaps, name##_decaps, \
                                                   name##_check_keypair, impl_name};

SMAUGT_OPS(smaugt1)
SMAUGT_OPS(smaugt3)
SMAUGT_OPS(smaugt5)
SMAUGT_OPS(timer)

/* Ciphertext unpacking alone, for the decoder fuzz target: c1 and c2 as
 * indcpa_dec reads them (every bit pattern of the right length is a
 * ciphertext). */
int kpqc_smaugt_unpack_ciphertext(unsigned set, const uint8_t *in, size_t len) {
    static const smaugt_params *const sets[] = {&kpqc_smaugt1_params, &kpqc_smaugt3_params, &kpqc_smaugt5_params,
                                                &kpqc_timer_params};
    uint16_t c[SMAUGT_N];
    if (set >= sizeof sets / sizeof sets[0] || len != smaugt_ct_bytes(sets[set])) return -1;
    const smaugt_params *p = sets[set];
    for (unsigned i = 0; i < p->k; i++) kpqc_smaugt_unpack_bits(c, in + i * p->log_p * SMAUGT_N / 8, p->log_p);
    kpqc_smaugt_unpack_bits(c, in + p->k * p->log_p * SMAUGT_N / 8, p->log_p2);
    return 0;
}
