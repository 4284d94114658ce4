/*
 * HAETAE key generation, signing and verification (specification v1.2.0).
 *
 * Keys: b = A0 s1 + s2 + a mod q.  Modes 2 and 3 publish b1 = (b - b0) / 2
 * with b0 in {-1, 0, 1} moved into s2, and verify with the matrix
 * (2 (a - 2 b1) | 2 A0); mode 5 has no vector a and publishes NTT(-2b).
 * Signing draws y uniformly from a hyperball, hashes the high bits of A y
 * mod 2q into a binary challenge c, sets z = y +- c (1, s1, s2) and accepts
 * with the bimodal rejection test; the signature is c, the low bits of
 * round(z1) in the clear, and its high bits and the hint for z2
 * entropy-coded, zero-padded to a fixed size.
 *
 * Messages are bound as mu = SHAKE256(pk || ctxlen || ctx || m); signing is
 * hedged: seed = SHAKE256(key || rnd || mu) with 32 fresh bytes rnd.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "common/ct.h"
#include "common/keccak.h"
#include "decoders.h"
#include "haetae.h"
#include "internal.h"

#define MMAX (HAETAE_LMAX - 1)
#define ROWS (HAETAE_LMAX + HAETAE_KMAX)
#define MONT_SQ 4214 /* 2^64 mod q */

/* ---------- public matrix ---------- */

/* A in the NTT domain: k rows of l polynomials, A[i][0] from the public
 * key, A[i][1..m] = 2 A0. */
static void expand_public(const struct haetae_params *p, const struct haetae_backend *be, hpoly A[HAETAE_KMAX][HAETAE_LMAX],
                          const uint8_t *pk) {
    const uint8_t *rho = pk;
    const unsigned m = p->l - 1;
    hpoly a[HAETAE_KMAX];
    hpoly *dst[HAETAE_KMAX * HAETAE_LMAX];
    uint16_t nonce[HAETAE_KMAX * HAETAE_LMAX];
    size_t n = 0;
    for (unsigned i = 0; i < p->k; i++)
        for (unsigned j = 0; j < m; j++, n++) dst[n] = &A[i][j + 1], nonce[n] = (uint16_t)((i << 8) + j);
    if (!p->pk_in_ntt)
        for (unsigned i = 0; i < p->k; i++, n++) dst[n] = &a[i], nonce[n] = (uint16_t)((p->k << 8) + m + i);
    kpqc_haetae_poly_uniform_many(be, dst, nonce, n, rho);
    for (unsigned i = 0; i < p->k; i++) {
        for (unsigned j = 1; j <= m; j++)
            for (unsigned t = 0; t < HAETAE_N; t++) A[i][j].c[t] *= 2;
        kpqc_haetae_unpack_q(p, &A[i][0], pk + HAETAE_SEEDBYTES + i * p->polyq_bytes);
        if (!p->pk_in_ntt) {
            /* first column 2 (a - 2 b1) */
            for (unsigned t = 0; t < HAETAE_N; t++) A[i][0].c[t] = 2 * (a[i].c[t] - 2 * A[i][0].c[t]);
            be->ntt(&A[i][0]);
        }
    }
}

/* r_i = INTT(sum_j A[i][j] * xhat_j), coefficients in (-q, q). */
static void matrix_apply(const struct haetae_params *p, const struct haetae_backend *be, hpoly *r,
                         const hpoly A[HAETAE_KMAX][HAETAE_LMAX], const hpoly *xhat) {
    for (unsigned i = 0; i < p->k; i++) {
        be->pointwise(&r[i], &A[i][0], &xhat[0]);
        for (unsigned j = 1; j < p->l; j++) be->pointwise_acc(&r[i], &A[i][j], &xhat[j]);
        be->invntt(&r[i]);
    }
}

static void message_hash(uint8_t *mu, size_t mulen, const uint8_t *pk, size_t pklen,
                         const uint8_t *ctx, size_t ctx_len, const uint8_t *msg, size_t msg_len) {
    kpqc_keccak st;
    uint8_t len = (uint8_t)ctx_len;
    kpqc_shake256_init(&st);
    kpqc_keccak_absorb(&st, pk, pklen);
    kpqc_keccak_absorb(&st, &len, 1);
    kpqc_keccak_absorb(&st, ctx, ctx_len);
    kpqc_keccak_absorb(&st, msg, msg_len);
    kpqc_keccak_squeeze(&st, mu, mulen);
}

/* ---------- key generation ---------- */

/* b_i = sum_j A0[i][j] * NTT(s1_j) * 2^-32, in the NTT domain. */
static void product_A0_s1(const struct haetae_params *p, const struct haetae_backend *be, hpoly *b,
                          const hpoly A0[HAETAE_KMAX][MMAX], hpoly *s1hat, const hpoly *s1) {
    const unsigned m = p->l - 1;
    for (unsigned j = 0; j < m; j++) {
        s1hat[j] = s1[j];
        be->ntt(&s1hat[j]);
    }
    for (unsigned i = 0; i < p->k; i++) {
        be->pointwise(&b[i], &A0[i][0], &s1hat[0]);
        for (unsigned j = 1; j < m; j++) be->pointwise_acc(&b[i], &A0[i][j], &s1hat[j]);
    }
}

/* A0 (k x m, NTT domain) and, for the sets that publish b in the normal
 * domain, the vector a, both expanded from rho. */
static void expand_keygen_matrix(const struct haetae_params *p, const struct haetae_backend *be, hpoly A0[HAETAE_KMAX][MMAX],
                                 hpoly a[HAETAE_KMAX], const uint8_t *rho) {
    const unsigned k = p->k, m = p->l - 1;
    hpoly *dst[HAETAE_KMAX * HAETAE_LMAX];
    uint16_t nonce[HAETAE_KMAX * HAETAE_LMAX];
    size_t n = 0;
    for (unsigned i = 0; i < k; i++)
        for (unsigned j = 0; j < m; j++, n++) dst[n] = &A0[i][j], nonce[n] = (uint16_t)((i << 8) + j);
    if (!p->pk_in_ntt)
        for (unsigned i = 0; i < k; i++, n++) dst[n] = &a[i], nonce[n] = (uint16_t)((k << 8) + m + i);
    kpqc_haetae_poly_uniform_many(be, dst, nonce, n, rho);
}

/*
 * The public vector b of the secret (s1, s2), ready to pack.  Mode 5:
 * NTT(-2 (A0 s1 + s2)).  Modes 2 and 3: b with 2 b = A0 s1 + s2 + a - b0
 * (mod q), where b0 in {-1, 0, 1} makes the sum even and is folded into s2
 * (which then spans [-2, 2]); on a key already folded, b0 is 0 everywhere.
 */
static void public_b(const struct haetae_params *p, const struct haetae_backend *be, hpoly *b, const hpoly A0[HAETAE_KMAX][MMAX],
                     const hpoly *a, hpoly *shat, const hpoly *s1, hpoly *s2) {
    product_A0_s1(p, be, b, A0, shat, s1);
    for (unsigned i = 0; i < p->k; i++) {
        if (p->pk_in_ntt) {
            hpoly s2hat = s2[i];
            be->ntt(&s2hat);
            for (unsigned t = 0; t < HAETAE_N; t++) {
                int32_t v = kpqc_haetae_montgomery_reduce((int64_t)b[i].c[t] * MONT_SQ);
                v = kpqc_haetae_freeze(v + s2hat.c[t]);
                b[i].c[t] = kpqc_haetae_freeze(-2 * v);
            }
            kpqc_wipe(&s2hat, sizeof s2hat);
        } else {
            be->invntt(&b[i]);
            for (unsigned t = 0; t < HAETAE_N; t++) {
                int32_t v = kpqc_haetae_freeze(b[i].c[t] + s2[i].c[t] + a[i].c[t]);
                int32_t b0 = v & 1;
                b0 -= ((v >> 1) & b0) << 1;
                b[i].c[t] = (v - b0) >> 1;
                s2[i].c[t] -= b0;
            }
        }
    }
}

/* Whether the singular value of (s1, s2) exceeds the bound keygen keeps. */
static uint32_t singular_value_too_large(const struct haetae_params *p, const struct haetae_backend *be, const hpoly *s) {
    int64_t sv = kpqc_haetae_sk_singular_value(p, be, s, p->l - 1 + p->k);
    return (uint32_t)((uint64_t)(p->gamma_sq_n - sv) >> 63);
}

struct keygen_ws {
    hpoly A0[HAETAE_KMAX][MMAX], a[HAETAE_KMAX];
    hpoly s[MMAX + HAETAE_KMAX], s2_read[HAETAE_KMAX], shat[MMAX], b[HAETAE_KMAX];
    uint8_t seed[HAETAE_SEEDBYTES], seedbuf[2 * HAETAE_SEEDBYTES + HAETAE_CRHBYTES];
    uint8_t packed[HAETAE_KMAX * HAETAE_POLYQ_MAX_BYTES];
};

static int haetae_keypair(const struct haetae_params *p, uint8_t *pk, uint8_t *sk,
                          const kpqc_rng *rng) {
    const struct haetae_backend *be = kpqc_haetae_select_backend();
    const unsigned k = p->k, m = p->l - 1;
    struct keygen_ws *w = malloc(sizeof *w);
    if (w == NULL) return KPQC_ERR_INTERNAL;
    if (kpqc_randombytes(rng, w->seed, sizeof w->seed) != 0) {
        kpqc_wipe(w, sizeof *w);
        free(w);
        return KPQC_ERR_RNG;
    }
    kpqc_shake256(w->seedbuf, sizeof w->seedbuf, w->seed, sizeof w->seed);
    const uint8_t *rho = w->seedbuf, *sigma = rho + HAETAE_SEEDBYTES, *key = sigma + HAETAE_CRHBYTES;
    /* rho is public */
    KPQC_CT_DECLASSIFY(w->seedbuf, HAETAE_SEEDBYTES);
    expand_keygen_matrix(p, be, w->A0, w->a, rho);

    hpoly *s1 = w->s, *s2 = w->s + m;
    for (uint16_t counter = 0;; counter = (uint16_t)(counter + m + k)) {
        kpqc_haetae_poly_eta_many(w->s, m + k, sigma, counter);
        /* modes 2 and 3 fold b0 into s2 before the singular value */
        if (!p->pk_in_ntt) public_b(p, be, w->b, w->A0, w->a, w->shat, s1, s2);
        uint32_t reject = singular_value_too_large(p, be, w->s);
        KPQC_CT_DECLASSIFY(&reject, sizeof reject);
        if (!reject) break;
    }
    if (p->pk_in_ntt) public_b(p, be, w->b, w->A0, w->a, w->shat, s1, s2);
    /* the public key is output */
    KPQC_CT_DECLASSIFY(w->b, sizeof w->b);

    memcpy(pk, rho, HAETAE_SEEDBYTES);
    for (unsigned i = 0; i < k; i++) kpqc_haetae_pack_q(p, pk + HAETAE_SEEDBYTES + i * p->polyq_bytes, &w->b[i]);
    size_t off = haetae_pk_bytes(p);
    memcpy(sk, pk, off);
    for (unsigned j = 0; j < m; j++, off += HAETAE_N / 4) kpqc_haetae_pack_eta(sk + off, &s1[j]);
    for (unsigned i = 0; i < k; i++, off += p->s2_bytes) {
        if (p->s2_bytes == HAETAE_N / 4)
            kpqc_haetae_pack_eta(sk + off, &s2[i]);
        else
            kpqc_haetae_pack_2eta(sk + off, &s2[i]);
    }
    memcpy(sk + off, key, HAETAE_SEEDBYTES);
    kpqc_wipe(w, sizeof *w);
    free(w);
    return KPQC_OK;
}

/* s1 || s2 from a secret key; returns nonzero if a coefficient is out of
 * the range keygen produces ([-1, 1], s2 of modes 2 and 3 [-2, 2]), which
 * the packing could otherwise carry.  Such a coefficient is read as 0, so
 * the arithmetic that follows stays within its bounds. */
static uint32_t unpack_secret(const struct haetae_params *p, hpoly *s, const uint8_t *sk) {
    const unsigned m = p->l - 1;
    size_t off = haetae_pk_bytes(p);
    uint32_t bad = 0;
    for (unsigned j = 0; j < m + p->k; j++) {
        int wide = j >= m && p->s2_bytes != HAETAE_N / 4;
        if (wide) {
            kpqc_haetae_unpack_2eta(&s[j], sk + off);
            off += p->s2_bytes;
        } else {
            kpqc_haetae_unpack_eta(&s[j], sk + off);
            off += HAETAE_N / 4;
        }
        uint32_t bound = wide ? 2 : 1;
        for (unsigned t = 0; t < HAETAE_N; t++) {
            uint32_t out = (uint32_t)(s[j].c[t] + (int32_t)bound) > 2 * bound;
            s[j].c[t] &= (int32_t)(out - 1);
            bad |= out;
        }
    }
    /* the signs are borrows MemorySanitizer does not carry (KPQC_CT_TAINT) */
    KPQC_CT_TAINT(s, (m + p->k) * sizeof s[0], sk + haetae_pk_bytes(p), off - haetae_pk_bytes(p));
    return bad;
}

/*
 * A secret key belongs to pk when the public key it carries is pk, its
 * secret coefficients are in range and give pk's b exactly, and their
 * singular value is within keygen's bound.  (The final 32 bytes only seed
 * signing and may be anything.)  The verdict alone is made public.
 */
static int haetae_check_keypair(const struct haetae_params *p, const uint8_t *pk, const uint8_t *sk) {
    const struct haetae_backend *be = kpqc_haetae_select_backend();
    const unsigned k = p->k, m = p->l - 1;
    const size_t pklen = haetae_pk_bytes(p);
    struct keygen_ws *w = malloc(sizeof *w);
    if (w == NULL) return KPQC_ERR_INTERNAL;
    hpoly *s1 = w->s, *s2 = w->s + m;
    uint32_t bad = (uint32_t)kpqc_ct_memneq(sk, pk, pklen);
    bad |= unpack_secret(p, w->s, sk);
    memcpy(w->s2_read, s2, k * sizeof(hpoly));
    expand_keygen_matrix(p, be, w->A0, w->a, pk);
    public_b(p, be, w->b, w->A0, w->a, w->shat, s1, s2);
    bad |= (uint32_t)kpqc_ct_memneq(w->s2_read, s2, k * sizeof(hpoly)); /* b0 was not 0 */
    for (unsigned i = 0; i < k; i++) kpqc_haetae_pack_q(p, w->packed + i * p->polyq_bytes, &w->b[i]);
    bad |= (uint32_t)kpqc_ct_memneq(w->packed, pk + HAETAE_SEEDBYTES, k * p->polyq_bytes);
    bad |= singular_value_too_large(p, be, w->s);
    kpqc_wipe(w, sizeof *w);
    free(w);
    KPQC_CT_DECLASSIFY(&bad, sizeof bad);
    return bad ? KPQC_ERR_DECODE : KPQC_OK;
}

/* ---------- signature encoding ---------- */

static unsigned h_cut(const struct haetae_params *p) { return (p->rans_h.nsym - 1) / 2; }

/* Returns 0 when the signature fits its fixed size. */
static int pack_sig(const struct haetae_params *p, uint8_t *sig, const hpoly *c,
                    const hpoly *lb, const hpoly *hb, const hpoly *h) {
    uint8_t sym_hb[HAETAE_LMAX * HAETAE_N], sym_h[HAETAE_KMAX * HAETAE_N];
    uint8_t enc_hb[HAETAE_LMAX * HAETAE_N], enc_h[HAETAE_KMAX * HAETAE_N];
    const unsigned cut = h_cut(p);
    memset(sig, 0, p->sig_bytes);
    for (unsigned i = 0; i < HAETAE_N; i++) sig[i / 8] |= (uint8_t)(c->c[i] << (i % 8));
    uint8_t *q = sig + HAETAE_N / 8;
    for (unsigned i = 0; i < p->l; i++)
        for (unsigned j = 0; j < HAETAE_N; j++) *q++ = (uint8_t)lb[i].c[j];
    /* a value without a symbol marks the signature too large; the loops
     * check all and branch once, so that they vectorise */
    uint32_t no_symbol = 0;
    for (unsigned i = 0; i < p->l; i++) {
        for (unsigned j = 0; j < HAETAE_N; j++) {
            uint32_t s = (uint32_t)(hb[i].c[j] + (int32_t)p->offset_hb_z1);
            no_symbol |= s >= p->rans_hb_z1.nsym; /* negative ones too */
            sym_hb[i * HAETAE_N + j] = (uint8_t)s;
        }
    }
    /* hints near 0 keep their value; those near the top are moved down
     * next to them; anything between has no symbol */
    for (unsigned i = 0; i < p->k; i++) {
        for (unsigned j = 0; j < HAETAE_N; j++) {
            uint32_t v = (uint32_t)h[i].c[j];
            no_symbol |= v > cut && v <= cut + p->offset_h;
            sym_h[i * HAETAE_N + j] = (uint8_t)(v > cut ? v - p->offset_h : v);
        }
    }
    if (no_symbol) return -1;
    struct haetae_rans_text hb_text = {sym_hb, p->l * HAETAE_N, &p->rans_hb_z1, enc_hb, p->base_enc_hb_z1 + 255, 0};
    struct haetae_rans_text h_text = {sym_h, p->k * HAETAE_N, &p->rans_h, enc_h, p->base_enc_h + 255, 0};
    if (kpqc_haetae_rans_encode_two(&hb_text, &h_text) != 0) return -1;
    const size_t n_hb = hb_text.len, n_h = h_text.len;
    if (n_hb < p->base_enc_hb_z1 || n_h < p->base_enc_h) return -1;
    if (HAETAE_N / 8 + p->l * HAETAE_N + 2 + n_hb + n_h > p->sig_bytes) return -1;
    q[0] = (uint8_t)(n_hb - p->base_enc_hb_z1);
    q[1] = (uint8_t)(n_h - p->base_enc_h);
    memcpy(q + 2, enc_hb, n_hb);
    memcpy(q + 2 + n_hb, enc_h, n_h);
    return 0;
}

/* Returns 0 for a well-formed signature: valid codes, zero padding. */
static int unpack_sig(const struct haetae_params *p, hpoly *c, hpoly *z1, hpoly *h,
                      const uint8_t *sig) {
    uint8_t sym_hb[HAETAE_LMAX * HAETAE_N], sym_h[HAETAE_KMAX * HAETAE_N];
    const unsigned cut = h_cut(p);
    for (unsigned i = 0; i < HAETAE_N; i++) c->c[i] = (sig[i / 8] >> (i % 8)) & 1;
    const uint8_t *lb = sig + HAETAE_N / 8;
    const uint8_t *q = lb + p->l * HAETAE_N;
    size_t n_hb = q[0] + (size_t)p->base_enc_hb_z1, n_h = q[1] + (size_t)p->base_enc_h;
    size_t used = HAETAE_N / 8 + p->l * HAETAE_N + 2 + n_hb + n_h;
    if (used > p->sig_bytes) return -1;
    const struct haetae_rans_code code_hb = {sym_hb, p->l * HAETAE_N, &p->rans_hb_z1, q + 2, n_hb};
    const struct haetae_rans_code code_h = {sym_h, p->k * HAETAE_N, &p->rans_h, q + 2 + n_hb, n_h};
    if (kpqc_haetae_rans_decode_two(&code_hb, &code_h) != 0) return -1;
    for (unsigned i = 0; i < p->l; i++)
        for (unsigned j = 0; j < HAETAE_N; j++)
            z1[i].c[j] = ((int32_t)sym_hb[i * HAETAE_N + j] - (int32_t)p->offset_hb_z1) * 256 +
                         (int8_t)lb[i * HAETAE_N + j];
    for (unsigned i = 0; i < p->k; i++)
        for (unsigned j = 0; j < HAETAE_N; j++) {
            unsigned s = sym_h[i * HAETAE_N + j];
            h[i].c[j] = (int32_t)(s > cut ? s + p->offset_h : s);
        }
    for (size_t i = used; i < p->sig_bytes; i++)
        if (sig[i] != 0) return -1;
    return 0;
}

/* ---------- signing ---------- */

/* The public matrix first and the public key last: what lies between
 * (and the sampler's memory) is wiped. */
struct sign_ws {
    hpoly A[HAETAE_KMAX][HAETAE_LMAX];
    hpoly shat[MMAX + HAETAE_KMAX];
    int32_t y[ROWS][HAETAE_N], z[ROWS][HAETAE_N];
    hpoly rnd[ROWS], Ay[HAETAE_KMAX], hb_Ay[HAETAE_KMAX], cs[ROWS], chat;
    hpoly c, lb[HAETAE_LMAX], hb[HAETAE_LMAX], h[HAETAE_KMAX];
    uint8_t hash_in[HAETAE_KMAX * HAETAE_HIGHBITS_BYTES + HAETAE_N / 8];
    uint8_t mu[HAETAE_CRHBYTES], seed[HAETAE_CRHBYTES], key_rnd[2 * HAETAE_SEEDBYTES];
    uint8_t pk[HAETAE_SEEDBYTES + HAETAE_KMAX * HAETAE_POLYQ_MAX_BYTES];
    struct haetae_gauss_ws gauss;
};

static inline int32_t fix_round(int32_t v) { return (v + (HAETAE_LN / 2)) >> HAETAE_LNBITS; }

static int haetae_sign(const struct haetae_params *p, uint8_t *sig, size_t *sig_len,
                       const uint8_t *msg, size_t msg_len, const uint8_t *ctx, size_t ctx_len,
                       const uint8_t *sk, const kpqc_rng *rng) {
    const struct haetae_backend *be = kpqc_haetae_select_backend();
    const unsigned k = p->k, l = p->l, m = l - 1, rows = k + l;
    const size_t pklen = haetae_pk_bytes(p);
    const uint64_t b0_ln = p->b0sq * HAETAE_LN * HAETAE_LN, b1_ln = p->b1sq * HAETAE_LN * HAETAE_LN;
    if (ctx_len > 255) return KPQC_ERR_ARGUMENT;
    struct sign_ws *w = malloc(sizeof *w);
    if (w == NULL) return KPQC_ERR_INTERNAL;
    if (kpqc_randombytes(rng, w->key_rnd + HAETAE_SEEDBYTES, HAETAE_SEEDBYTES) != 0) {
        free(w);
        return KPQC_ERR_RNG;
    }

    /* secret key: pk || s1 || s2 || key; its first part is public.  (Out-
     * of-range coefficients, which the key-pair check refuses, sign as 0.) */
    memcpy(w->pk, sk, pklen);
    KPQC_CT_DECLASSIFY(w->pk, pklen);
    expand_public(p, be, w->A, w->pk);
    (void)unpack_secret(p, w->shat, sk);
    for (unsigned j = 0; j < m + k; j++) be->ntt(&w->shat[j]);
    memcpy(w->key_rnd, sk + haetae_sk_bytes(p) - HAETAE_SEEDBYTES, HAETAE_SEEDBYTES);

    message_hash(w->mu, HAETAE_CRHBYTES, sk, pklen, ctx, ctx_len, msg, msg_len);
    {
        kpqc_keccak st;
        kpqc_shake256_init(&st);
        kpqc_keccak_absorb(&st, w->key_rnd, sizeof w->key_rnd);
        kpqc_keccak_absorb(&st, w->mu, sizeof w->mu);
        kpqc_keccak_squeeze(&st, w->seed, sizeof w->seed);
        kpqc_keccak_wipe(&st);
    }

    kpqc_haetae_hyperball_start(p, &w->gauss, w->seed, 0);
    for (;;) {
        uint8_t b;
        kpqc_haetae_sample_hyperball(p, be, &w->gauss, w->y, &b);

        /* commitment: high bits of A round(y) mod 2q, and the parity of
         * round(y1)[0] */
        for (unsigned i = 0; i < rows; i++)
            for (unsigned t = 0; t < HAETAE_N; t++) w->rnd[i].c[t] = fix_round(w->y[i][t]);
        hpoly y10 = w->rnd[0];
        for (unsigned j = 0; j < l; j++) be->ntt(&w->rnd[j]);
        matrix_apply(p, be, w->Ay, w->A, w->rnd);
        for (unsigned i = 0; i < k; i++) {
            be->commit_row(&w->Ay[i], &w->hb_Ay[i], &w->Ay[i], &w->rnd[l + i], i == 0 ? &y10 : NULL, p->alpha_hint_bits);
            kpqc_haetae_pack_highbits(p, w->hash_in + i * HAETAE_HIGHBITS_BYTES, &w->hb_Ay[i]);
        }
        kpqc_haetae_pack_lsb(w->hash_in + k * HAETAE_HIGHBITS_BYTES, &y10);
        kpqc_wipe(&y10, sizeof y10); /* round(y1): the mask, secret */
        kpqc_haetae_challenge(p, be, &w->c, w->hash_in, w->mu);

        /* z = y + (-1)^b c s, with s = (1, s1, s2) */
        w->chat = w->c;
        be->ntt(&w->chat);
        w->cs[0] = w->c;
        for (unsigned j = 0; j < m + k; j++) {
            be->pointwise(&w->cs[j + 1], &w->chat, &w->shat[j]);
            be->invntt(&w->cs[j + 1]);
        }
        uint64_t norms[2] = {0, 0}; /* |z|^2, |2z - y|^2 */
        for (unsigned i = 0; i < rows; i++) be->response(w->z[i], w->y[i], &w->cs[i], b & 1, norms);
        /* reject when |z| >= B1, or when |2z - y| < B0 and the coin says so */
        uint32_t reject = (uint32_t)((b1_ln - norms[0]) >> 63);
        reject |= (uint32_t)((norms[1] - b0_ln) >> 63) & ((b >> 1) & 1);
        KPQC_CT_DECLASSIFY(&reject, sizeof reject);
        if (reject) {
            /* only the verdict of a rejected attempt is public */
            KPQC_CT_EXPECT_SECRET_EACH_LOW(w->c.c, HAETAE_N, sizeof w->c.c[0], "a rejected attempt's challenge");
            KPQC_CT_EXPECT_SECRET_EACH(w->z, rows * HAETAE_N, sizeof w->z[0][0], "a rejected attempt's response");
            continue;
        }
        /* Accepted: z is now distributed independently of the key, and c
         * and what is derived from z below form the signature.  The size
         * check after the encoding is a public function of these, so an
         * attempt it refuses reveals nothing a signature would not (see
         * docs/design-notes.md). */
        KPQC_CT_DECLASSIFY(&w->c, sizeof w->c);

        /* hint: high bits of A round(y) minus those of A round(z) - q c j */
        for (unsigned i = 0; i < rows; i++)
            for (unsigned t = 0; t < HAETAE_N; t++) w->rnd[i].c[t] = fix_round(w->z[i][t]);
        const int32_t top = (HAETAE_DQ - 2) >> p->alpha_hint_bits;
        for (unsigned i = 0; i < k; i++) {
            for (unsigned t = 0; t < HAETAE_N; t++) {
                int32_t v = kpqc_haetae_freeze2q(w->Ay[i].c[t] - 2 * w->rnd[l + i].c[t]);
                int32_t h = w->hb_Ay[i].c[t] - kpqc_haetae_highbits_hint(p, v);
                w->h[i].c[t] = h + ((h >> 31) & top);
            }
        }
        /* z1 = 256 hb + lb with lb in [-128, 128) */
        for (unsigned j = 0; j < l; j++) {
            for (unsigned t = 0; t < HAETAE_N; t++) {
                int32_t r = w->rnd[j].c[t];
                int32_t lb = r & 255;
                lb -= 256 & ((127 - lb) >> 31);
                w->lb[j].c[t] = lb;
                w->hb[j].c[t] = (r + 128) >> 8;
            }
        }
        /* these are the signature unless it does not fit */
        KPQC_CT_DECLASSIFY(w->lb, sizeof w->lb);
        KPQC_CT_DECLASSIFY(w->hb, sizeof w->hb);
        KPQC_CT_DECLASSIFY(w->h, sizeof w->h);
        if (pack_sig(p, sig, &w->c, w->lb, w->hb, w->h) == 0) break;
    }
    *sig_len = p->sig_bytes;
    /* A and pk are public; the rest from the key's NTT on is wiped */
    kpqc_wipe((uint8_t *)w + offsetof(struct sign_ws, shat), offsetof(struct sign_ws, pk) - offsetof(struct sign_ws, shat));
    kpqc_haetae_hyperball_wipe(&w->gauss);
    free(w);
    return KPQC_OK;
}

/* ---------- verification ---------- */

struct verify_ws {
    hpoly A[HAETAE_KMAX][HAETAE_LMAX];
    hpoly c, cprime, z1[HAETAE_LMAX], h[HAETAE_KMAX], wq[HAETAE_KMAX], w1[HAETAE_KMAX], lsb;
    uint8_t hash_in[HAETAE_KMAX * HAETAE_HIGHBITS_BYTES + HAETAE_N / 8];
    uint8_t mu[HAETAE_SEEDBYTES];
};

static int haetae_verify(const struct haetae_params *p, const uint8_t *sig, size_t sig_len,
                         const uint8_t *msg, size_t msg_len, const uint8_t *ctx, size_t ctx_len,
                         const uint8_t *pk) {
    const struct haetae_backend *be = kpqc_haetae_select_backend();
    const unsigned k = p->k, l = p->l;
    if (sig_len != p->sig_bytes || ctx_len > 255) return KPQC_ERR_VERIFY;
    struct verify_ws *w = malloc(sizeof *w);
    if (w == NULL) return KPQC_ERR_INTERNAL;
    int ret = KPQC_ERR_VERIFY;
    if (unpack_sig(p, &w->c, w->z1, w->h, sig) != 0) goto out;
    expand_public(p, be, w->A, pk);

    uint64_t norm = 0;
    for (unsigned j = 0; j < l; j++) norm += be->sqnorm(&w->z1[j]);
    for (unsigned t = 0; t < HAETAE_N; t++) w->lsb.c[t] = (w->z1[0].c[t] - w->c.c[t]) & 1;
    for (unsigned j = 0; j < l; j++) be->ntt(&w->z1[j]);
    matrix_apply(p, be, w->wq, w->A, w->z1);

    /* w1 = HighBits(A z1 - q c j mod 2q) + h; z2 recovered from the
     * rounding error */
    for (unsigned i = 0; i < k; i++) {
        norm += be->hint_row(&w->w1[i], &w->wq[i], &w->h[i], i == 0 ? &w->lsb : NULL, p->alpha_hint_bits);
        kpqc_haetae_pack_highbits(p, w->hash_in + i * HAETAE_HIGHBITS_BYTES, &w->w1[i]);
    }
    if (norm > p->b2sq) goto out;
    kpqc_haetae_pack_lsb(w->hash_in + k * HAETAE_HIGHBITS_BYTES, &w->lsb);
    message_hash(w->mu, sizeof w->mu, pk, haetae_pk_bytes(p), ctx, ctx_len, msg, msg_len);
    kpqc_haetae_challenge_public(p, &w->cprime, w->hash_in, w->mu);
    if (memcmp(w->c.c, w->cprime.c, sizeof w->c.c) == 0) ret = KPQC_OK;
out:
    free(w);
    return ret;
}

/* ---------- table entries ---------- */

static const char *impl_name(void) { return kpqc_haetae_select_backend()->info.name; }

#define HAETAE_SET(id)                                                                         \
    static int id##_keypair(uint8_t *pk, uint8_t *sk, const kpqc_rng *rng) {                  \
        return haetae_keypair(&kpqc_##id##_params, pk, sk, rng);                                      \
    }                                                                                          \
    static int id##_sign(uint8_t *sig, size_t *sig_len, const uint8_t *msg, size_t msg_len,     \
                         const uint8_t *ctx, size_t ctx_len, const uint8_t *sk,                 \
                         const kpqc_rng *rng) {                                                 \
        return haetae_sign(&kpqc_##id##_params, sig, sig_len, msg, msg_len, ctx, ctx_len, sk, rng);    \
    }                                                                                          \
    static int id##_verify(const uint8_t *sig, size_t sig_len, const uint8_t *msg,              \
                           size_t msg_len, const uint8_t *ctx, size_t ctx_len,                  \
                           const uint8_t *pk) {                                                 \
        return haetae_verify(&kpqc_##id##_params, sig, sig_len, msg, msg_len, ctx, ctx_len, pk);       \
    }                                                                                          \
    static int id##_check_keypair(const uint8_t *pk, const uint8_t *sk) {                      \
        return haetae_check_keypair(&kpqc_##id##_params, pk, sk);                                     \
    }                                                                                          \
    const struct kpqc_sig_ops kpqc_##id##_ops = {id##_keypair, id##_sign, id##_verify,         \
                                                 id##_check_keypair, KPQC_KAT_DETACHED_CTX,    \
                                                 HAETAE_SEEDBYTES, impl_name};

HAETAE_SET(haetae2)
HAETAE_SET(haetae3)
HAETAE_SET(haetae5)

/* Signature unpacking alone, for the decoder fuzz target. */
int kpqc_haetae_unpack_signature(unsigned set, const uint8_t *in, size_t len) {
    static const struct haetae_params *const sets[] = {&kpqc_haetae2_params, &kpqc_haetae3_params, &kpqc_haetae5_params};
    if (set >= sizeof sets / sizeof sets[0] || len != sets[set]->sig_bytes) return -1;
    struct {
        hpoly c, z1[HAETAE_LMAX], h[HAETAE_KMAX];
    } *w = malloc(sizeof *w);
    int rc = w != NULL ? unpack_sig(sets[set], &w->c, w->z1, w->h, in) : -1;
    free(w);
    return rc;
}
