/*
 * NTRU+ KEM (KpqC final): key generation, encapsulation, decapsulation.
 *
 *   pk = bytes(h),  h = g / f            (NTT domain)
 *   sk = bytes(f) || bytes(1/h) || F(pk)
 *   ct = bytes(h r + m),  (ss, r) from H(msg || F(pk)),  m = SOTP(msg, G(bytes(r)))
 *
 * F, G, H are SHAKE256 with a one-byte prefix 0, 1, 2.  Decapsulation
 * re-encrypts and compares in constant time.  NTRU+ specifies explicit
 * rejection: an invalid ciphertext gives an all-zero secret and an error
 * (KPQC_ERR_DECAPS), as the reference does; the verdict is public by
 * design, everything leading to it is computed in constant time.
 */
#include <string.h>

#include "ntruplus.h"
#include "common/ct.h"
#include "common/keccak.h"
#include "decoders.h"
#include "internal.h"

#define NMAX NTRUPLUS_NMAX
/* Polynomials start on a cache line: the vector kernels' 32-byte loads and
 * stores then never straddle two (decapsulation about 1.5 % faster). */
#define POLY_ALIGN _Alignas(64)

static void hash_prefixed(uint8_t *out, size_t outlen, uint8_t prefix, const uint8_t *a,
                          size_t alen, const uint8_t *b, size_t blen) {
    kpqc_keccak k;
    kpqc_shake256_init(&k);
    kpqc_keccak_absorb(&k, &prefix, 1);
    kpqc_keccak_absorb(&k, a, alen);
    if (blen) kpqc_keccak_absorb(&k, b, blen);
    kpqc_keccak_squeeze(&k, out, outlen);
    kpqc_keccak_wipe(&k);
}

/* F: public key -> 32 bytes */
static void hash_f(const kpqc_ntruplus_params *p, uint8_t out[32], const uint8_t *pk) {
    hash_prefixed(out, NTRUPLUS_SYMBYTES, 0x00, pk, p->polybytes, NULL, 0);
}
/* G: bytes(r) -> n/4 bytes */
static void hash_g(const kpqc_ntruplus_params *p, uint8_t *out, const uint8_t *r) {
    hash_prefixed(out, p->n / 4, 0x01, r, p->polybytes, NULL, 0);
}
/* H: msg || F(pk) -> ss || n/4 bytes of coins for r */
static void hash_h(const kpqc_ntruplus_params *p, uint8_t *out, const uint8_t *msg,
                   const uint8_t *fpk) {
    hash_prefixed(out, NTRUPLUS_SSBYTES + p->n / 4, 0x02, msg, p->msgbytes, fpk,
                  NTRUPLUS_SYMBYTES);
}

/*
 * Secret polynomial from its n/4 bytes of SHAKE256 output: 3 * cbd1 (+1 for
 * f), in the NTT domain, and its inverse.  Returns 1 if it is not
 * invertible.
 */
static int gen_secret(const kpqc_ntruplus_params *p, const kpqc_ntruplus_backend *be,
                      int16_t *a, int16_t *ainv, const uint8_t *buf, int plus_one) {
    be->cbd1(p, a, buf, 3);
    KPQC_CT_EXPECT_SECRET_EACH(a, p->n, sizeof a[0], "a sampled secret polynomial");
    a[0] = (int16_t)(a[0] + plus_one);
    be->ntt(p, a);
    const int bad = be->baseinv(p, ainv, a);
    KPQC_CT_EXPECT_SECRET_EACH(ainv, p->n, sizeof ainv[0], "a secret polynomial's inverse");
    return bad;
}

/* The SHAKE256 expansions (n/4 bytes) of two 32-byte coins at once: one
 * four-way permutation costs well under two single ones. */
static void expand_coins2(const kpqc_ntruplus_params *p, uint8_t *out0, uint8_t *out1,
                          const uint8_t c0[32], const uint8_t c1[32]) {
    uint8_t spare[2][NMAX / 4];
    kpqc_shake256x4(out0, out1, spare[0], spare[1], p->n / 4, c0, c1, c0, c1, 32);
    kpqc_wipe(spare, sizeof spare);
}

/*
 * f and g take one 32-byte draw per candidate, f's until one is invertible,
 * then g's, as the specification orders them.  The draw after f's candidate
 * is made with it and both are expanded together: it is g's first candidate
 * when f's is accepted, else f's next one (then expanded again).
 */
static int keypair(const kpqc_ntruplus_params *p, uint8_t *pk, uint8_t *sk,
                   const kpqc_rng *rng) {
    const kpqc_ntruplus_backend *be = kpqc_ntruplus_select_backend();
    uint8_t coins[2][32], buf[2][NMAX / 4];
    POLY_ALIGN int16_t f[NMAX], finv[NMAX], g[NMAX], ginv[NMAX];
    int rc = KPQC_ERR_RNG, bad;

    if (kpqc_randombytes(rng, coins[1], sizeof coins[1]) != 0) goto out;
    do {
        memcpy(coins[0], coins[1], sizeof coins[0]);
        if (kpqc_randombytes(rng, coins[1], sizeof coins[1]) != 0) goto out;
        expand_coins2(p, buf[0], buf[1], coins[0], coins[1]);
        bad = gen_secret(p, be, f, finv, buf[0], 1);
        KPQC_CT_DECLASSIFY(&bad, sizeof bad); /* rejection verdict */
    } while (bad);
    bad = gen_secret(p, be, g, ginv, buf[1], 0);
    KPQC_CT_DECLASSIFY(&bad, sizeof bad);
    while (bad) {
        if (kpqc_randombytes(rng, coins[1], sizeof coins[1]) != 0) goto out;
        kpqc_shake256(buf[1], p->n / 4, coins[1], sizeof coins[1]);
        bad = gen_secret(p, be, g, ginv, buf[1], 0);
        KPQC_CT_DECLASSIFY(&bad, sizeof bad);
    }

    be->basemul(p, g, g, finv);    /* h = g / f */
    be->basemul(p, ginv, f, ginv); /* 1/h = f / g */
    be->tobytes(p, pk, g);
    be->tobytes(p, sk, f);
    be->tobytes(p, sk + p->polybytes, ginv);
    hash_f(p, sk + 2 * p->polybytes, pk);
    rc = KPQC_OK;
out:
    kpqc_wipe(coins, sizeof coins);
    kpqc_wipe(buf, sizeof buf);
    kpqc_wipe(f, p->n * sizeof f[0]); /* the n coefficients the set uses */
    kpqc_wipe(finv, p->n * sizeof finv[0]);
    kpqc_wipe(g, p->n * sizeof g[0]);
    kpqc_wipe(ginv, p->n * sizeof ginv[0]);
    return rc;
}

/* m = cbd1(G-output with its first n/8 bytes xored with msg) */
static void sotp_encode(const kpqc_ntruplus_params *p, const kpqc_ntruplus_backend *be,
                        int16_t *m, const uint8_t *msg, const uint8_t *pad) {
    uint8_t buf[NMAX / 4];
    const unsigned mb = p->msgbytes;
    for (unsigned i = 0; i < mb; i++) buf[i] = (uint8_t)(pad[i] ^ msg[i]);
    memcpy(buf + mb, pad + mb, mb);
    be->cbd1(p, m, buf, 1);
    kpqc_wipe(buf, sizeof buf);
}

static int encaps(const kpqc_ntruplus_params *p, uint8_t *ct, uint8_t *ss, const uint8_t *pk,
                  const kpqc_rng *rng) {
    const kpqc_ntruplus_backend *be = kpqc_ntruplus_select_backend();
    uint8_t msg[NMAX / 8 + NTRUPLUS_SYMBYTES];
    uint8_t coins[NTRUPLUS_SSBYTES + NMAX / 4];
    uint8_t rbytes[NMAX * 3 / 2];
    POLY_ALIGN int16_t h[NMAX], r[NMAX], m[NMAX];
    int rc;

    if (kpqc_randombytes(rng, msg, p->msgbytes) != 0) {
        rc = KPQC_ERR_RNG;
        goto out;
    }
    if (be->frombytes(p, h, pk) != 0) { /* public: non-canonical key */
        memset(ct, 0, p->polybytes);
        rc = KPQC_ERR_DECODE;
        goto out;
    }
    hash_f(p, msg + p->msgbytes, pk);
    hash_h(p, coins, msg, msg + p->msgbytes);
    be->cbd1(p, r, coins + NTRUPLUS_SSBYTES, 1);
    be->ntt(p, r);
    be->tobytes(p, rbytes, r);
    uint8_t *pad = coins + NTRUPLUS_SSBYTES; /* reused: G(r) replaces r's coins */
    hash_g(p, pad, rbytes);
    sotp_encode(p, be, m, msg, pad);
    be->ntt(p, m);
    be->basemul_add(p, m, h, r, m); /* c = h r + m */
    be->tobytes(p, ct, m);
    memcpy(ss, coins, NTRUPLUS_SSBYTES);
    rc = KPQC_OK;
out:
    kpqc_wipe(msg, sizeof msg);
    kpqc_wipe(coins, sizeof coins);
    kpqc_wipe(rbytes, p->polybytes); /* what the set wrote */
    kpqc_wipe(r, p->n * sizeof r[0]);
    kpqc_wipe(m, p->n * sizeof m[0]);
    return rc;
}

static int decaps(const kpqc_ntruplus_params *p, uint8_t *ss, const uint8_t *ct,
                  const uint8_t *sk) {
    const kpqc_ntruplus_backend *be = kpqc_ntruplus_select_backend();
    const unsigned n = p->n, pb = p->polybytes;
    uint8_t msg[NMAX / 8 + NTRUPLUS_SYMBYTES];
    uint8_t rbytes[NMAX * 3 / 2];
    uint8_t pad[NMAX / 4];
    uint8_t hout[NTRUPLUS_SSBYTES + NMAX / 4];
    POLY_ALIGN int16_t c[NMAX], f[NMAX], hinv[NMAX], m[NMAX], t[NMAX];
    int16_t *const r = f; /* f's storage, free after its one product */
    uint32_t bad;

    /* A non-canonical ciphertext (or key) fails like any other invalid one. */
    bad = be->frombytes(p, c, ct);
    bad |= be->frombytes(p, f, sk);
    bad |= be->frombytes(p, hinv, sk + pb);
    bad &= 1u;

    /* m = (c f mod q) mod 3,  r = (c - m) / h */
    be->basemul(p, m, c, f);
    be->invntt_mod3_ntt(p, m, t);
    be->sub_mul(p, r, c, t, hinv);
    be->tobytes(p, rbytes, r);
    hash_g(p, pad, rbytes);
    bad |= be->sotp_decode(p, msg, m, pad);
    KPQC_CT_EXPECT_SECRET(msg, p->msgbytes, "the decrypted message");

    /* re-derive r from the message and compare (mod q: the same as
     * comparing the canonical encodings) */
    memcpy(msg + p->msgbytes, sk + 2 * pb, NTRUPLUS_SYMBYTES);
    hash_h(p, hout, msg, msg + p->msgbytes);
    be->cbd1(p, t, hout + NTRUPLUS_SSBYTES, 1);
    be->ntt(p, t);
    bad |= be->neq(p, r, t);

    /* Explicit rejection: the secret is zeroed unless the ciphertext is valid. */
    static const uint8_t zero[NTRUPLUS_SSBYTES] = {0};
    memcpy(ss, hout, NTRUPLUS_SSBYTES);
    kpqc_ct_cmov(ss, zero, NTRUPLUS_SSBYTES, (uint8_t)bad);
    /* Only what this parameter set wrote holds secrets; c is the
     * ciphertext's and 1/h a function of the public key. */
    kpqc_wipe(msg, sizeof msg);
    kpqc_wipe(rbytes, pb);
    kpqc_wipe(pad, n / 4);
    kpqc_wipe(hout, sizeof hout);
    kpqc_wipe(f, n * sizeof f[0]);
    kpqc_wipe(m, n * sizeof m[0]);
    kpqc_wipe(t, n * sizeof t[0]);
    KPQC_CT_DECLASSIFY(&bad, sizeof bad); /* the specification's verdict */
    return bad ? KPQC_ERR_DECAPS : KPQC_OK;
}

/* sk = bytes(f) || bytes(1/h) || F(pk): its hash of pk must be F(pk).
 * Only the verdict is made public. */
static int check_keypair(const kpqc_ntruplus_params *p, const uint8_t *pk, const uint8_t *sk) {
    uint8_t fpk[NTRUPLUS_SYMBYTES];
    hash_f(p, fpk, pk);
    int bad = kpqc_ct_memneq(sk + 2 * p->polybytes, fpk, sizeof fpk);
    KPQC_CT_DECLASSIFY(&bad, sizeof bad);
    return bad ? KPQC_ERR_DECODE : KPQC_OK;
}

static const char *impl_name(void) { return kpqc_ntruplus_select_backend()->info.name; }

#define NTRUPLUS_OPS(N)                                                                    \
    static int keypair##N(uint8_t *pk, uint8_t *sk, const kpqc_rng *rng) {                 \
        return keypair(&kpqc_ntruplus_params##N, pk, sk, rng);                             \
    }                                                                                      \
    static int encaps##N(uint8_t *ct, uint8_t *ss, const uint8_t *pk, const kpqc_rng *rng) { \
        return encaps(&kpqc_ntruplus_params##N, ct, ss, pk, rng);                          \
    }                                                                                      \
    static int decaps##N(uint8_t *ss, const uint8_t *ct, const uint8_t *sk) {              \
        return decaps(&kpqc_ntruplus_params##N, ss, ct, sk);                               \
    }                                                                                      \
    static int check_keypair##N(const uint8_t *pk, const uint8_t *sk) {                    \
        return check_keypair(&kpqc_ntruplus_params##N, pk, sk);                            \
    }                                                                                      \
    const struct kpqc_kem_ops kpqc_ntruplus##N##_ops = {keypair##N, encaps##N, decaps##N, \
                                                        check_keypair##N, impl_name};

NTRUPLUS_OPS(768)
NTRUPLUS_OPS(864)
NTRUPLUS_OPS(1152)

/* Ciphertext unpacking alone, for the decoder fuzz target. */
int kpqc_ntruplus_unpack_ciphertext(unsigned set, const uint8_t *in, size_t len) {
    static const kpqc_ntruplus_params *const sets[] = {&kpqc_ntruplus_params768, &kpqc_ntruplus_params864,
                                                       &kpqc_ntruplus_params1152};
    int16_t c[NMAX];
    if (set >= sizeof sets / sizeof sets[0] || len != sets[set]->polybytes) return -1;
    return kpqc_ntruplus_select_backend()->frombytes(sets[set], c, in) != 0 ? -1 : 0;
}
