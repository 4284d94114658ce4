/*
 * AIMer signatures (current "aim3" version): the AIM3 one-way function and
 * its MPC-in-the-head proof of knowledge (BN++-style multiplication check),
 * made non-interactive with SHAKE.
 *
 * Key pair: sk = pt || iv || ct, pk = iv || ct with ct = AIM3_iv(pt).
 * AIM3 with L input S-boxes: x_i = A_i pt + b_i, y_i = Mer_{e_i}(x_i) for
 * i < L, x_L = sum_i A_{L+i} y_i + b_L, ct = Mer_{e_L}(x_L) + pt, where
 * Mer_e(x) = x^(2^e - 1) + x^-1, i.e. x * y = x^(2^e) + 1 for nonzero x.
 *
 * Signature: salt | h1 | h2 | T proofs, each
 *   reveal path (logN seeds) | hidden party's commitment |
 *   delta_pt | delta_y[L] | delta_c | hidden party's alpha shares [L+1].
 */
#include <stdlib.h>
#include <string.h>

#include "aimer_field.h"
#include "common/ct.h"
#include "common/keccak.h"
#include "decoders.h"
#include "internal.h"

#define NWMAX 4
#define LMAX 3
#define NBMAX 32

typedef uint64_t gf[NWMAX];

struct aimer_params {
    unsigned nw, nb, L, T, N, logn;
    uint8_t prefix0;
    unsigned exps[LMAX + 1];
    size_t sig_len;
};

/* Everything derived from the public iv: 2L matrices (one row per bit,
 * row j = image of x^j) and L+1 constants. */
struct aimer_lin {
    gf A[2 * LMAX][8 * NBMAX];
    gf b[LMAX + 1];
};

/* The field of an operation: its width and the kernels it runs on. */
struct fctx {
    unsigned nw;
    const struct kpqc_aimer_backend *be;
};

static struct fctx field_ctx(unsigned nw) {
    struct fctx f = {nw, kpqc_aimer_select_backend()};
    return f;
}

/* ---------- field helpers ---------- */

static inline void gf_zero(gf a) { memset(a, 0, sizeof(gf)); }
static inline void gf_add(gf c, const gf a, const gf b) {
    for (unsigned i = 0; i < NWMAX; i++) c[i] = a[i] ^ b[i];
}
static inline void gf_load(gf a, const uint8_t *p, unsigned nw) {
    gf_zero(a);
    for (unsigned i = 0; i < nw; i++) {
        uint64_t v = 0;
        for (unsigned j = 0; j < 8; j++) v |= (uint64_t)p[8 * i + j] << (8 * j);
        a[i] = v;
    }
}
static inline void gf_store(uint8_t *p, const gf a, unsigned nw) {
    for (unsigned i = 0; i < nw; i++)
        for (unsigned j = 0; j < 8; j++) p[8 * i + j] = (uint8_t)(a[i] >> (8 * j));
}
static inline void gf_mul(const struct fctx *f, gf c, const gf a, const gf b) {
    f->be->gf_mul(c, a, b, f->nw);
}
static inline void gf_mul_acc(const struct fctx *f, gf c, const gf a, const gf b) {
    gf t = {0};
    f->be->gf_mul(t, a, b, f->nw);
    gf_add(c, c, t);
}
static inline void gf_sqr(const struct fctx *f, gf c, const gf a) { f->be->gf_sqr_n(c, a, f->nw, 1); }

/* a^(2^n - 2): the inverse for a != 0, and 0 for 0.  Fixed sequence. */
static void gf_inv(const struct fctx *f, gf c, const gf a) {
    gf sq, acc = {0};
    memcpy(sq, a, sizeof(gf));
    acc[0] = 1;
    for (unsigned i = 1; i < 64 * f->nw; i++) {
        gf_sqr(f, sq, sq);
        gf_mul(f, acc, acc, sq);
    }
    memcpy(c, acc, sizeof(gf));
}

/* c = M v with the operation's kernels (rows in 4-word slots) */
static inline void mat_vec(const struct fctx *f, gf c, const gf *M, const gf v) {
    f->be->mat_vec(c, (const uint64_t (*)[4])M, v, f->nw);
}

/* The same for PARTY_BATCH vectors at once (the parties of a batch). */
#define PARTY_BATCH 8
static void mat_vec_batch(const struct fctx *f, gf c[PARTY_BATCH], const gf *M, const gf v[PARTY_BATCH]) {
    if (f->be->mat_vec8 != NULL) {
        f->be->mat_vec8(c, (const uint64_t (*)[4])M, v, f->nw);
        return;
    }
    for (unsigned j = 0; j < PARTY_BATCH; j++) mat_vec(f, c[j], M, v[j]);
}

/* x_j = x_j^(2^e) for the PARTY_BATCH elements of a batch. */
static void sqr_n_batch(const struct fctx *f, gf x[PARTY_BATCH], unsigned e) {
    if (f->be->gf_sqr_n8 != NULL) {
        f->be->gf_sqr_n8(x, f->nw, e);
        return;
    }
    for (unsigned j = 0; j < PARTY_BATCH; j++) f->be->gf_sqr_n(x[j], x[j], f->nw, e);
}

/* c_j = a_j * b_j for the PARTY_BATCH pairs of a batch. */
static void gf_mul_batch(const struct fctx *f, gf c[PARTY_BATCH], const gf a[PARTY_BATCH],
                         const gf b[PARTY_BATCH]) {
    if (f->be->gf_mul8 != NULL) {
        f->be->gf_mul8(c, a, b, f->nw);
        return;
    }
    for (unsigned j = 0; j < PARTY_BATCH; j++) gf_mul(f, c[j], a[j], b[j]);
}

/* ---------- hashing ---------- */

static void h_init(kpqc_keccak *k, const struct aimer_params *p) {
    if (p->nb == 16) kpqc_shake128_init(k);
    else kpqc_shake256_init(k);
}
static void h_init_prefix(kpqc_keccak *k, const struct aimer_params *p, uint8_t prefix) {
    h_init(k, p);
    kpqc_keccak_absorb(k, &prefix, 1);
}

/* ---------- AIM3 ---------- */

static void gen_lin(const struct fctx *f, struct aimer_lin *lin, const struct aimer_params *p, const uint8_t *iv) {
    unsigned nw = p->nw, nbits = 8 * p->nb;
    kpqc_keccak k;
    uint8_t buf[NBMAX];
    h_init(&k, p);
    kpqc_keccak_absorb(&k, iv, p->nb);
    /* Each matrix is U * L' (rows): L' lower triangular, U upper triangular,
     * both with unit diagonals, squeezed row by row. */
    static const gf zero;
    for (unsigned m = 0; m < 2 * p->L; m++) {
        gf lo[8 * NBMAX], up[8 * NBMAX];
        for (unsigned row = 0; row < nbits; row++) {
            gf t;
            kpqc_keccak_squeeze(&k, buf, p->nb);
            gf_load(t, buf, nw);
            unsigned w = row / 64, s = row % 64;
            uint64_t keep_hi = ~(uint64_t)0 << s, one = (uint64_t)1 << s;
            memcpy(lo[row], zero, sizeof(gf));
            memcpy(up[row], zero, sizeof(gf));
            for (unsigned i = 0; i < w; i++) up[row][i] = t[i];
            lo[row][w] = (t[w] & keep_hi) | one;
            up[row][w] = (t[w] & ~keep_hi) | one;
            for (unsigned i = w + 1; i < nw; i++) lo[row][i] = t[i];
        }
        for (unsigned row = 0; row < nbits; row += PARTY_BATCH)
            mat_vec_batch(f, lin->A[m] + row, (const gf *)lo, (const gf *)up + row);
    }
    for (unsigned i = 0; i <= p->L; i++) {
        kpqc_keccak_squeeze(&k, buf, p->nb);
        gf_load(lin->b[i], buf, nw);
    }
    kpqc_keccak_wipe(&k);
}

/* Mer_e(x) = x^(2^e) * x^-1 + x^-1 = (x^(2^e) + 1) * x^-1. */
static void mersenne(const struct fctx *f, gf y, const gf x, unsigned e) {
    gf inv, t;
    gf_inv(f, inv, x);
    memcpy(t, x, sizeof(gf));
    f->be->gf_sqr_n(t, t, f->nw, e);
    t[0] ^= 1;
    gf_mul(f, y, t, inv);
}

/* y_i for i < L (the S-box outputs) and y_L = pt + ct.  Returns an
 * all-ones mask if some S-box input is zero (then the key is refused). */
static uint64_t sbox_outputs(const struct fctx *f, const struct aimer_params *p,
                             const struct aimer_lin *lin, gf y[LMAX + 1], gf x_last,
                             const gf pt) {
    unsigned L = p->L;
    uint64_t zero_any = 0;
    gf_zero(x_last);
    for (unsigned i = 0; i < L; i++) {
        gf x, t;
        mat_vec(f, x, (const gf *)lin->A[i], pt);
        gf_add(x, x, lin->b[i]);
        uint64_t z = x[0] | x[1] | x[2] | x[3];
        zero_any |= ((z | (0 - z)) >> 63) ^ 1;
        mersenne(f, y[i], x, p->exps[i]);
        mat_vec(f, t, (const gf *)lin->A[L + i], y[i]);
        gf_add(x_last, x_last, t);
    }
    gf_add(x_last, x_last, lin->b[L]);
    uint64_t z = x_last[0] | x_last[1] | x_last[2] | x_last[3];
    zero_any |= ((z | (0 - z)) >> 63) ^ 1;
    return 0 - zero_any;
}

/* ---------- seed trees ---------- */

/* Hash n inputs of inlen bytes to n outputs of outlen bytes with the
 * parameter set's SHAKE, eight or four instances at a time where possible. */
static void hash_many(const struct aimer_params *p, uint8_t *const out[8], size_t outlen,
                      const uint8_t *const in[8], size_t inlen, unsigned n) {
    if (n == 8) {
        if (p->nb == 16) kpqc_shake128x8(out, outlen, in, inlen);
        else kpqc_shake256x8(out, outlen, in, inlen);
    } else if (n == 4) {
        if (p->nb == 16)
            kpqc_shake128x4(out[0], out[1], out[2], out[3], outlen, in[0], in[1], in[2], in[3], inlen);
        else
            kpqc_shake256x4(out[0], out[1], out[2], out[3], outlen, in[0], in[1], in[2], in[3], inlen);
    } else {
        for (unsigned j = 0; j < n; j++) {
            kpqc_keccak h;
            h_init(&h, p);
            kpqc_keccak_absorb(&h, in[j], inlen);
            kpqc_keccak_squeeze(&h, out[j], outlen);
            kpqc_keccak_wipe(&h);
        }
    }
}

/* Heap numbering: node 1 is the root, node k has children 2k and 2k+1,
 * leaves are N..2N-1 (party i is leaf N+i).  Repetition r's tree is
 * nodes[r*2N + k].  A node's children are H4(salt || r || k || node k).
 *
 * All T trees grow together, level by level, so that eight (or four)
 * nodes of any repetitions are always hashed at once.  With a proof to
 * verify, the revealed siblings are put in after each level; the nodes on
 * the hidden path get placeholder values that are never used. */
static void expand_trees(const struct aimer_params *p, uint8_t (*nodes)[NBMAX],
                         const uint8_t *salt, const uint8_t *idx, const uint8_t *proofs,
                         size_t plen) {
    const unsigned nb = p->nb, N = p->N, T = p->T;
    const size_t inlen = 1 + nb + 2 + nb;
    uint8_t in[8][1 + NBMAX + 2 + NBMAX], out[8][2 * NBMAX];
    const uint8_t *inp[8];
    uint8_t *outp[8];
    for (unsigned j = 0; j < 8; j++) {
        in[j][0] = 4;
        memcpy(in[j] + 1, salt, nb);
        inp[j] = in[j];
        outp[j] = out[j];
    }
    for (unsigned d = 0; d < p->logn; d++) {
        unsigned jobs = T << d, done = 0;
        while (done < jobs) {
            unsigned n = jobs - done >= 8 ? 8 : jobs - done >= 4 ? 4 : 1;
            uint8_t (*dst[8])[NBMAX];
            for (unsigned j = 0; j < n; j++) {
                unsigned t = done + j, r = t >> d, k = (1u << d) + (t & ((1u << d) - 1));
                in[j][1 + nb] = (uint8_t)r;
                in[j][2 + nb] = (uint8_t)k;
                memcpy(in[j] + 3 + nb, nodes[(size_t)r * 2 * N + k], nb);
                dst[j] = nodes + (size_t)r * 2 * N + 2 * k;
            }
            hash_many(p, outp, 2 * nb, inp, inlen, n);
            for (unsigned j = 0; j < n; j++) {
                memcpy(dst[j][0], out[j], nb);
                memcpy(dst[j][1], out[j] + nb, nb);
            }
            done += n;
        }
        if (idx != NULL)
            for (unsigned r = 0; r < T; r++) {
                unsigned hid = idx[r] & (N - 1);
                unsigned onpath = (N + hid) >> (p->logn - d - 1);
                memcpy(nodes[(size_t)r * 2 * N + (onpath ^ 1)],
                       proofs + r * plen + (size_t)(p->logn - d - 1) * nb, nb);
            }
    }
    kpqc_wipe(in, sizeof in);
    kpqc_wipe(out, sizeof out);
}

/* ---------- party commitments and tapes ---------- */

/* A party's random tape: pt share, y shares [L], a shares [L+1], c share. */
struct tape {
    gf pt, y[LMAX], a[LMAX + 1], c;
};

#define TAPE_MAX_BYTES ((2 * LMAX + 3) * NBMAX)

/* Commit to PARTY_BATCH consecutive parties' seeds and expand their tapes
 * (N is a multiple of it). */
static void commit_batch(const struct aimer_params *p, uint8_t commit[PARTY_BATCH][2 * NBMAX],
                         struct tape tape[PARTY_BATCH], const uint8_t *salt, unsigned rep,
                         unsigned party0, const uint8_t (*seeds)[NBMAX]) {
    unsigned nb = p->nb, nw = p->nw, L = p->L;
    size_t inlen = 1 + nb + 2 + nb, outlen = 2 * nb + (2 * L + 3) * nb;
    uint8_t in[PARTY_BATCH][1 + NBMAX + 2 + NBMAX], out[PARTY_BATCH][2 * NBMAX + TAPE_MAX_BYTES];
    const uint8_t *inp[PARTY_BATCH];
    uint8_t *outp[PARTY_BATCH];
    for (unsigned j = 0; j < PARTY_BATCH; j++) {
        in[j][0] = 5;
        memcpy(in[j] + 1, salt, nb);
        in[j][1 + nb] = (uint8_t)rep;
        in[j][2 + nb] = (uint8_t)(party0 + j);
        memcpy(in[j] + 3 + nb, seeds[j], nb);
        inp[j] = in[j];
        outp[j] = out[j];
    }
    hash_many(p, outp, outlen, inp, inlen, PARTY_BATCH);
    for (unsigned j = 0; j < PARTY_BATCH; j++) {
        const uint8_t *q = out[j] + 2 * nb;
        memcpy(commit[j], out[j], 2 * nb);
        gf_load(tape[j].pt, q, nw); q += nb;
        for (unsigned i = 0; i < L; i++, q += nb) gf_load(tape[j].y[i], q, nw);
        for (unsigned i = 0; i <= L; i++, q += nb) gf_load(tape[j].a[i], q, nw);
        gf_load(tape[j].c, q, nw);
    }
    kpqc_wipe(in, sizeof in);
    kpqc_wipe(out, sizeof out);
}

/* Inputs of the multiplication check for one party: x_l * y_l = z_l
 * (shares), with random a_l and c = sum a_l y_l. */
struct mult_chk {
    gf x[LMAX + 1], z[LMAX + 1], a[LMAX + 1], b[LMAX + 1], c;
};

/* The check's inputs of a batch of parties; party `last` (or none if it
 * is PARTY_BATCH) also takes the public constants. */
static void party_mpc(const struct fctx *f, const struct aimer_params *p,
                      const struct aimer_lin *lin, struct mult_chk mc[PARTY_BATCH],
                      const struct tape t[PARTY_BATCH], const gf ct, unsigned last) {
    unsigned L = p->L;
    gf in[PARTY_BATCH], out[PARTY_BATCH];
    for (unsigned j = 0; j < PARTY_BATCH; j++) {
        for (unsigned i = 0; i <= L; i++) memcpy(mc[j].a[i], t[j].a[i], sizeof(gf));
        for (unsigned i = 0; i < L; i++) memcpy(mc[j].b[i], t[j].y[i], sizeof(gf));
        memcpy(mc[j].b[L], t[j].pt, sizeof(gf));
        memcpy(mc[j].c, t[j].c, sizeof(gf));
        memcpy(in[j], t[j].pt, sizeof(gf));
        gf_zero(mc[j].x[L]);
    }
    for (unsigned i = 0; i < L; i++) {
        mat_vec_batch(f, out, (const gf *)lin->A[i], (const gf *)in);
        for (unsigned j = 0; j < PARTY_BATCH; j++) memcpy(mc[j].x[i], out[j], sizeof(gf));
    }
    for (unsigned i = 0; i < L; i++) {
        for (unsigned j = 0; j < PARTY_BATCH; j++) memcpy(in[j], t[j].y[i], sizeof(gf));
        mat_vec_batch(f, out, (const gf *)lin->A[L + i], (const gf *)in);
        for (unsigned j = 0; j < PARTY_BATCH; j++) gf_add(mc[j].x[L], mc[j].x[L], out[j]);
    }
    if (last < PARTY_BATCH) {
        gf_add(mc[last].b[L], mc[last].b[L], ct);
        for (unsigned i = 0; i <= L; i++) gf_add(mc[last].x[i], mc[last].x[i], lin->b[i]);
    }
    for (unsigned i = 0; i <= L; i++) {
        for (unsigned j = 0; j < PARTY_BATCH; j++) memcpy(out[j], mc[j].x[i], sizeof(gf));
        sqr_n_batch(f, out, p->exps[i]);
        for (unsigned j = 0; j < PARTY_BATCH; j++) memcpy(mc[j].z[i], out[j], sizeof(gf));
        if (last < PARTY_BATCH) mc[last].z[i][0] ^= 1;
    }
    kpqc_wipe(in, sizeof in);
    kpqc_wipe(out, sizeof out);
}

/* The multiplication check's shares of a batch of parties for challenges
 * eps: alpha_l = x_l eps_l + a_l, and v = c + sum_l z_l eps_l (the b_l
 * alpha_l terms follow once alpha is known). */
static void check_shares(const struct fctx *f, unsigned L, const struct mult_chk m[PARTY_BATCH],
                         const gf eps[LMAX + 1], gf alpha_sh[PARTY_BATCH][LMAX + 1], gf v[PARTY_BATCH]) {
    gf in[PARTY_BATCH], e[PARTY_BATCH], prod[PARTY_BATCH];
    for (unsigned j = 0; j < PARTY_BATCH; j++) memcpy(v[j], m[j].c, sizeof(gf));
    for (unsigned i = 0; i <= L; i++) {
        for (unsigned j = 0; j < PARTY_BATCH; j++) {
            memcpy(e[j], eps[i], sizeof(gf));
            memcpy(in[j], m[j].x[i], sizeof(gf));
        }
        gf_mul_batch(f, prod, (const gf *)in, (const gf *)e);
        for (unsigned j = 0; j < PARTY_BATCH; j++) {
            gf_add(alpha_sh[j][i], prod[j], m[j].a[i]);
            memcpy(in[j], m[j].z[i], sizeof(gf));
        }
        gf_mul_batch(f, prod, (const gf *)in, (const gf *)e);
        for (unsigned j = 0; j < PARTY_BATCH; j++) gf_add(v[j], v[j], prod[j]);
    }
    kpqc_wipe(in, sizeof in);
    kpqc_wipe(prod, sizeof prod);
}

/* v_j += sum_l b_l alpha_l for a batch of parties (b_l from bs[j]). */
static void add_b_alpha(const struct fctx *f, unsigned L, const gf (*const bs[PARTY_BATCH]),
                        const gf alpha[LMAX + 1], gf v[PARTY_BATCH]) {
    gf in[PARTY_BATCH], e[PARTY_BATCH], prod[PARTY_BATCH];
    for (unsigned i = 0; i <= L; i++) {
        for (unsigned j = 0; j < PARTY_BATCH; j++) {
            memcpy(e[j], alpha[i], sizeof(gf));
            memcpy(in[j], bs[j][i], sizeof(gf));
        }
        gf_mul_batch(f, prod, (const gf *)in, (const gf *)e);
        for (unsigned j = 0; j < PARTY_BATCH; j++) gf_add(v[j], v[j], prod[j]);
    }
    kpqc_wipe(in, sizeof in);
    kpqc_wipe(prod, sizeof prod);
}

/* ---------- key generation ---------- */

/* ct = AIM3_iv(pt), in bytes; returns an all-ones mask when pt is refused
 * (an S-box input is zero).  lin must hold gen_lin(iv). */
static uint64_t aim3(const struct fctx *f, const struct aimer_params *p, const struct aimer_lin *lin,
                     uint8_t *ct, const uint8_t *pt) {
    gf ptg, y[LMAX + 1], xl, ctg;
    gf_load(ptg, pt, p->nw);
    uint64_t bad = sbox_outputs(f, p, lin, y, xl, ptg);
    mersenne(f, ctg, xl, p->exps[p->L]);
    gf_add(ctg, ctg, ptg);
    gf_store(ct, ctg, p->nw);
    kpqc_wipe(ptg, sizeof ptg);
    kpqc_wipe(y, sizeof y);
    kpqc_wipe(xl, sizeof xl);
    return bad;
}

static int aimer_keypair(const struct aimer_params *p, uint8_t *pk, uint8_t *sk,
                         const kpqc_rng *rng) {
    struct fctx f = field_ctx(p->nw);
    unsigned nb = p->nb;
    struct aimer_lin *lin = malloc(sizeof *lin);
    if (lin == NULL) return KPQC_ERR_INTERNAL;
    uint8_t pt[NBMAX], iv[NBMAX];
    int ret = KPQC_OK;
    for (;;) {
        if (kpqc_randombytes(rng, pt, nb) != 0 || kpqc_randombytes(rng, iv, nb) != 0) {
            ret = KPQC_ERR_RNG;
            break;
        }
        gen_lin(&f, lin, p, iv);
        uint64_t bad = aim3(&f, p, lin, pk + nb, pt);
        KPQC_CT_DECLASSIFY(&bad, sizeof bad); /* a refused key is discarded */
        if (bad) continue;
        memcpy(pk, iv, nb);
        KPQC_CT_DECLASSIFY(pk, 2 * nb);
        memcpy(sk, pt, nb);
        memcpy(sk + nb, pk, 2 * nb);
        break;
    }
    kpqc_wipe(pt, sizeof pt);
    free(lin);
    return ret;
}

/* A secret key belongs to pk when it carries pk and its plaintext is one
 * keygen accepts and encrypts to pk's ct.  Only the verdict is public. */
static int aimer_check_keypair(const struct aimer_params *p, const uint8_t *pk, const uint8_t *sk) {
    struct fctx f = field_ctx(p->nw);
    unsigned nb = p->nb;
    struct aimer_lin *lin = malloc(sizeof *lin);
    if (lin == NULL) return KPQC_ERR_INTERNAL;
    uint8_t ct[NBMAX];
    gen_lin(&f, lin, p, pk);
    uint64_t bad = aim3(&f, p, lin, ct, sk);
    bad |= (uint64_t)kpqc_ct_memneq(sk + nb, pk, 2 * nb);
    bad |= (uint64_t)kpqc_ct_memneq(ct, pk + nb, nb);
    kpqc_wipe(ct, sizeof ct);
    free(lin);
    KPQC_CT_DECLASSIFY(&bad, sizeof bad);
    return bad ? KPQC_ERR_DECODE : KPQC_OK;
}

/* mu = H0(pk || ctxlen || ctx || m) */
static void message_hash(const struct aimer_params *p, uint8_t *mu, const uint8_t *pk,
                         const uint8_t *ctx, size_t ctx_len, const uint8_t *msg, size_t msg_len) {
    kpqc_keccak k;
    uint8_t cl = (uint8_t)ctx_len;
    h_init_prefix(&k, p, p->prefix0);
    kpqc_keccak_absorb(&k, pk, 2 * p->nb);
    kpqc_keccak_absorb(&k, &cl, 1);
    kpqc_keccak_absorb(&k, ctx, ctx_len);
    kpqc_keccak_absorb(&k, msg, msg_len);
    kpqc_keccak_squeeze(&k, mu, 2 * p->nb);
}

/* Offsets inside a proof. */
static size_t proof_len(const struct aimer_params *p) {
    return (size_t)p->nb * (p->logn + 2 + 1 + p->L + 1 + p->L + 1);
}

/* ---------- signing ---------- */

struct sign_ws {
    uint8_t nodes[2 * 256][NBMAX];  /* per repetition, reused */
};

static int aimer_sign(const struct aimer_params *p, uint8_t *sig, size_t *sig_len,
                      const uint8_t *msg, size_t msg_len, const uint8_t *ctx, size_t ctx_len,
                      const uint8_t *sk, const kpqc_rng *rng) {
    const unsigned nb = p->nb, nw = p->nw, L = p->L, T = p->T, N = p->N;
    struct fctx f = field_ctx(nw);
    if (ctx_len > 255) return KPQC_ERR_ARGUMENT;
    uint8_t rnd[NBMAX];
    if (kpqc_randombytes(rng, rnd, nb) != 0) {
        kpqc_wipe(rnd, sizeof rnd);
        return KPQC_ERR_RNG;
    }
    /* Working memory: seed trees, commitments, check inputs of every party. */
    size_t n_nodes = (size_t)T * 2 * N;
    uint8_t (*nodes)[NBMAX] = malloc(n_nodes * NBMAX);
    uint8_t (*commits)[2 * NBMAX] = malloc((size_t)T * N * 2 * NBMAX);
    struct mult_chk *mc = malloc((size_t)T * N * sizeof *mc);
    gf (*alpha_sh)[LMAX + 1] = malloc((size_t)T * N * sizeof *alpha_sh);
    gf *v_sh = malloc((size_t)N * sizeof(gf));
    struct aimer_lin *lin = malloc(sizeof *lin);
    int ret = KPQC_OK;
    if (!nodes || !commits || !mc || !alpha_sh || !v_sh || !lin) {
        ret = KPQC_ERR_INTERNAL;
        goto out;
    }

    const uint8_t *pk = sk + nb;
    uint8_t mu[2 * NBMAX];
    message_hash(p, mu, pk, ctx, ctx_len, msg, msg_len);
    gen_lin(&f, lin, p, pk);

    gf ptg, ctg, y[LMAX + 1], xl;
    gf_load(ptg, sk, nw);
    gf_load(ctg, pk + nb, nw);
    (void)sbox_outputs(&f, p, lin, y, xl, ptg);
    gf_add(y[L], ptg, ctg);

    uint8_t *salt = sig, *h1 = sig + nb, *h2 = sig + 3 * nb, *proofs = sig + 5 * nb;
    size_t plen = proof_len(p);
    kpqc_keccak hk, h1k;
    uint8_t cl3 = 3;
    h_init(&hk, p);
    kpqc_keccak_absorb(&hk, &cl3, 1);
    kpqc_keccak_absorb(&hk, sk, nb);
    kpqc_keccak_absorb(&hk, mu, 2 * nb);
    kpqc_keccak_absorb(&hk, rnd, nb);
    kpqc_keccak_squeeze(&hk, salt, nb);
    KPQC_CT_DECLASSIFY(salt, nb);
    for (unsigned r = 0; r < T; r++) kpqc_keccak_squeeze(&hk, nodes[(size_t)r * 2 * N + 1], nb);
    kpqc_keccak_wipe(&hk);

    h_init_prefix(&h1k, p, 1);
    kpqc_keccak_absorb(&h1k, mu, 2 * nb);
    kpqc_keccak_absorb(&h1k, salt, nb);
    expand_trees(p, nodes, salt, NULL, NULL, 0);

    for (unsigned r = 0; r < T; r++) {
        uint8_t (*tn)[NBMAX] = nodes + (size_t)r * 2 * N;
        uint8_t *pr = proofs + r * plen;
        struct tape delta, tp[PARTY_BATCH];
        memset(&delta, 0, sizeof delta);
        for (unsigned q = 0; q < N; q += PARTY_BATCH) {
            commit_batch(p, (uint8_t(*)[2 * NBMAX])commits[(size_t)r * N + q], tp, salt, r, q,
                         (const uint8_t(*)[NBMAX])tn + N + q);
            for (unsigned j = 0; j < PARTY_BATCH; j++) {
                struct tape *t = &tp[j];
                unsigned party = q + j;
                gf_add(delta.pt, delta.pt, t->pt);
                for (unsigned i = 0; i < L; i++) gf_add(delta.y[i], delta.y[i], t->y[i]);
                for (unsigned i = 0; i <= L; i++) gf_add(delta.a[i], delta.a[i], t->a[i]);
                gf_add(delta.c, delta.c, t->c);
                if (party == N - 1) {
                    /* Fix the last party's shares so the shares sum to the
                     * witness, and publish the corrections. */
                    uint8_t *dp = pr + (size_t)(p->logn + 2) * nb;
                    gf_add(delta.pt, delta.pt, ptg);
                    gf_add(t->pt, t->pt, delta.pt);
                    gf_store(dp, delta.pt, nw);
                    for (unsigned i = 0; i < L; i++) {
                        gf_add(delta.y[i], delta.y[i], y[i]);
                        gf_add(t->y[i], t->y[i], delta.y[i]);
                        gf_store(dp + (1 + i) * nb, delta.y[i], nw);
                    }
                    for (unsigned i = 0; i <= L; i++) gf_mul_acc(&f, delta.c, delta.a[i], y[i]);
                    gf_add(t->c, t->c, delta.c);
                    gf_store(dp + (1 + L) * nb, delta.c, nw);
                    KPQC_CT_DECLASSIFY(dp, (L + 2) * nb);
                }
            }
            party_mpc(&f, p, lin, &mc[(size_t)r * N + q], tp, ctg, N - 1 - q);
        }
        kpqc_wipe(tp, sizeof tp);
        kpqc_wipe(&delta, sizeof delta); /* with the public corrections it gives the secret plaintext */
        KPQC_CT_DECLASSIFY(commits[(size_t)r * N], (size_t)N * 2 * NBMAX);
        for (unsigned q = 0; q < N; q++) kpqc_keccak_absorb(&h1k, commits[(size_t)r * N + q], 2 * nb);
        kpqc_keccak_absorb(&h1k, pr + (size_t)(p->logn + 2) * nb, (L + 2) * nb);
    }
    kpqc_keccak_squeeze(&h1k, h1, 2 * nb);
    KPQC_CT_DECLASSIFY(h1, 2 * nb);

    /* Phases 2 and 3: challenges eps from h1, the check's opened values. */
    kpqc_keccak ek, h2k;
    h_init(&ek, p);
    kpqc_keccak_absorb(&ek, h1, 2 * nb);
    h_init_prefix(&h2k, p, 2);
    kpqc_keccak_absorb(&h2k, h1, 2 * nb);
    kpqc_keccak_absorb(&h2k, salt, nb);
    for (unsigned r = 0; r < T; r++) {
        gf eps[LMAX + 1], alpha[LMAX + 1];
        uint8_t buf[(LMAX + 1) * NBMAX];
        kpqc_keccak_squeeze(&ek, buf, (L + 1) * nb);
        for (unsigned i = 0; i <= L; i++) {
            gf_load(eps[i], buf + i * nb, nw);
            gf_zero(alpha[i]);
        }
        for (unsigned q = 0; q < N; q += PARTY_BATCH) {
            check_shares(&f, L, &mc[(size_t)r * N + q], (const gf *)eps, &alpha_sh[(size_t)r * N + q], &v_sh[q]);
            for (unsigned j = 0; j < PARTY_BATCH; j++)
                for (unsigned i = 0; i <= L; i++) gf_add(alpha[i], alpha[i], alpha_sh[(size_t)r * N + q + j][i]);
        }
        KPQC_CT_DECLASSIFY(alpha, sizeof alpha);
        for (unsigned q = 0; q < N; q += PARTY_BATCH) {
            const gf(*bs[PARTY_BATCH]);
            for (unsigned j = 0; j < PARTY_BATCH; j++) bs[j] = (const gf *)mc[(size_t)r * N + q + j].b;
            add_b_alpha(&f, L, bs, (const gf *)alpha, &v_sh[q]);
        }
        for (unsigned q = 0; q < N; q++) {
            uint8_t ob[(LMAX + 1) * NBMAX];
            for (unsigned i = 0; i <= L; i++) gf_store(ob + i * nb, alpha_sh[(size_t)r * N + q][i], nw);
            KPQC_CT_DECLASSIFY(ob, sizeof ob);
            kpqc_keccak_absorb(&h2k, ob, (L + 1) * nb);
        }
        for (unsigned q = 0; q < N; q++) {
            uint8_t ob[NBMAX];
            gf_store(ob, v_sh[q], nw);
            KPQC_CT_DECLASSIFY(ob, sizeof ob);
            kpqc_keccak_absorb(&h2k, ob, nb);
        }
    }
    kpqc_keccak_squeeze(&h2k, h2, 2 * nb);
    KPQC_CT_DECLASSIFY(h2, 2 * nb);

    /* Phases 4 and 5: hidden party per repetition, open all others. */
    uint8_t idx[80];
    h_init(&ek, p);
    kpqc_keccak_absorb(&ek, h2, 2 * nb);
    kpqc_keccak_squeeze(&ek, idx, T);
    for (unsigned r = 0; r < T; r++) {
        unsigned hid = idx[r] & (N - 1);
        uint8_t (*tn)[NBMAX] = nodes + (size_t)r * 2 * N;
        uint8_t *pr = proofs + r * plen;
        unsigned k = N + hid;
        for (unsigned d = 0; d < p->logn; d++, k >>= 1) memcpy(pr + d * nb, tn[k ^ 1], nb);
        memcpy(pr + (size_t)p->logn * nb, commits[(size_t)r * N + hid], 2 * nb);
        uint8_t *ap = pr + (size_t)(p->logn + 2 + L + 2) * nb;
        for (unsigned i = 0; i <= L; i++) gf_store(ap + i * nb, alpha_sh[(size_t)r * N + hid][i], nw);
    }
    KPQC_CT_DECLASSIFY(sig, p->sig_len);
    *sig_len = p->sig_len;
    kpqc_wipe(ptg, sizeof ptg);
    kpqc_wipe(y, sizeof y);
    kpqc_wipe(xl, sizeof xl);
    kpqc_keccak_wipe(&ek);
    kpqc_keccak_wipe(&h1k);
    kpqc_keccak_wipe(&h2k);
out:
    kpqc_wipe(rnd, sizeof rnd);
    if (nodes) { kpqc_wipe(nodes, n_nodes * NBMAX); free(nodes); }
    if (commits) free(commits);
    if (mc) { kpqc_wipe(mc, (size_t)T * N * sizeof *mc); free(mc); }
    if (alpha_sh) { kpqc_wipe(alpha_sh, (size_t)T * N * sizeof *alpha_sh); free(alpha_sh); }
    if (v_sh) { kpqc_wipe(v_sh, (size_t)N * sizeof(gf)); free(v_sh); }
    free(lin);
    return ret;
}

/* ---------- verification ---------- */

static int aimer_verify(const struct aimer_params *p, const uint8_t *sig, size_t sig_len,
                        const uint8_t *msg, size_t msg_len, const uint8_t *ctx, size_t ctx_len,
                        const uint8_t *pk) {
    const unsigned nb = p->nb, nw = p->nw, L = p->L, T = p->T, N = p->N;
    struct fctx f = field_ctx(nw);
    if (sig_len != p->sig_len || ctx_len > 255) return KPQC_ERR_VERIFY;
    const uint8_t *salt = sig, *h1 = sig + nb, *h2 = sig + 3 * nb, *proofs = sig + 5 * nb;
    size_t plen = proof_len(p);

    struct aimer_lin *lin = malloc(sizeof *lin);
    uint8_t (*nodes)[NBMAX] = malloc((size_t)T * 2 * N * NBMAX);
    gf (*bsh)[LMAX + 1] = malloc((size_t)N * sizeof *bsh);
    gf (*ash)[LMAX + 1] = malloc((size_t)N * sizeof *ash);
    gf *vsh = malloc((size_t)N * sizeof(gf));
    int ret = KPQC_ERR_VERIFY;
    if (!lin || !nodes || !bsh || !ash || !vsh) {
        ret = KPQC_ERR_INTERNAL;
        goto out;
    }
    gen_lin(&f, lin, p, pk);
    gf ctg;
    gf_load(ctg, pk + nb, nw);

    uint8_t idx[80], mu[2 * NBMAX];
    kpqc_keccak ek, h1k, h2k;
    h_init(&ek, p);
    kpqc_keccak_absorb(&ek, h2, 2 * nb);
    kpqc_keccak_squeeze(&ek, idx, T);
    h_init(&ek, p);
    kpqc_keccak_absorb(&ek, h1, 2 * nb);

    /* Rebuild every leaf but the hidden one of each repetition. */
    for (unsigned r = 0; r < T; r++) memset(nodes[(size_t)r * 2 * N + 1], 0, nb);
    expand_trees(p, nodes, salt, idx, proofs, plen);

    message_hash(p, mu, pk, ctx, ctx_len, msg, msg_len);
    h_init_prefix(&h1k, p, 1);
    kpqc_keccak_absorb(&h1k, mu, 2 * nb);
    kpqc_keccak_absorb(&h1k, salt, nb);
    h_init_prefix(&h2k, p, 2);
    kpqc_keccak_absorb(&h2k, h1, 2 * nb);
    kpqc_keccak_absorb(&h2k, salt, nb);

    for (unsigned r = 0; r < T; r++) {
        const uint8_t *pr = proofs + r * plen;
        const uint8_t *dp = pr + (size_t)(p->logn + 2) * nb;
        const uint8_t *ap = dp + (size_t)(L + 2) * nb;
        unsigned hid = idx[r] & (N - 1);
        const uint8_t (*tn)[NBMAX] = (const uint8_t(*)[NBMAX])nodes + (size_t)r * 2 * N;
        gf eps[LMAX + 1], alpha[LMAX + 1];
        uint8_t buf[(LMAX + 1) * NBMAX];
        kpqc_keccak_squeeze(&ek, buf, (L + 1) * nb);
        for (unsigned i = 0; i <= L; i++) {
            gf_load(eps[i], buf + i * nb, nw);
            gf_zero(alpha[i]);
        }
        for (unsigned q = 0; q < N; q += PARTY_BATCH) {
            uint8_t cm[PARTY_BATCH][2 * NBMAX];
            struct tape tp[PARTY_BATCH];
            commit_batch(p, cm, tp, salt, r, q, tn + N + q);
            /* The last party's tape takes the published corrections; the
             * hidden party's (from a placeholder seed) is computed on but
             * never used. */
            if (q + PARTY_BATCH == N && hid != N - 1) {
                struct tape *t = &tp[PARTY_BATCH - 1];
                gf u;
                gf_load(u, dp, nw);
                gf_add(t->pt, t->pt, u);
                for (unsigned i = 0; i < L; i++) {
                    gf_load(u, dp + (1 + i) * nb, nw);
                    gf_add(t->y[i], t->y[i], u);
                }
                gf_load(u, dp + (1 + L) * nb, nw);
                gf_add(t->c, t->c, u);
            }
            struct mult_chk m[PARTY_BATCH];
            party_mpc(&f, p, lin, m, tp, ctg, N - 1 - q);
            check_shares(&f, L, m, (const gf *)eps, &ash[q], &vsh[q]);
            for (unsigned j = 0; j < PARTY_BATCH; j++) {
                unsigned party = q + j;
                if (party == hid) {
                    kpqc_keccak_absorb(&h1k, pr + (size_t)p->logn * nb, 2 * nb);
                    for (unsigned i = 0; i <= L; i++) {
                        gf_load(ash[party][i], ap + i * nb, nw);
                        gf_add(alpha[i], alpha[i], ash[party][i]);
                    }
                    continue;
                }
                kpqc_keccak_absorb(&h1k, cm[j], 2 * nb);
                for (unsigned i = 0; i <= L; i++) {
                    gf_add(alpha[i], alpha[i], ash[party][i]);
                    memcpy(bsh[party][i], m[j].b[i], sizeof(gf));
                }
            }
        }
        /* The hidden party's v share makes the sum of all shares zero. */
        memset(bsh[hid], 0, sizeof bsh[hid]);
        for (unsigned q = 0; q < N; q += PARTY_BATCH) {
            const gf(*bs[PARTY_BATCH]);
            for (unsigned j = 0; j < PARTY_BATCH; j++) bs[j] = (const gf *)bsh[q + j];
            add_b_alpha(&f, L, bs, (const gf *)alpha, &vsh[q]);
        }
        gf_zero(vsh[hid]);
        for (unsigned q = 0; q < N; q++)
            if (q != hid) gf_add(vsh[hid], vsh[hid], vsh[q]);
        for (unsigned q = 0; q < N; q++) {
            uint8_t ob[(LMAX + 1) * NBMAX];
            for (unsigned i = 0; i <= L; i++) gf_store(ob + i * nb, ash[q][i], nw);
            kpqc_keccak_absorb(&h2k, ob, (L + 1) * nb);
        }
        for (unsigned q = 0; q < N; q++) {
            uint8_t ob[NBMAX];
            gf_store(ob, vsh[q], nw);
            kpqc_keccak_absorb(&h2k, ob, nb);
        }
        kpqc_keccak_absorb(&h1k, dp, (L + 2) * nb);
    }
    uint8_t h1p[2 * NBMAX], h2p[2 * NBMAX];
    kpqc_keccak_squeeze(&h1k, h1p, 2 * nb);
    kpqc_keccak_squeeze(&h2k, h2p, 2 * nb);
    if (kpqc_ct_memneq(h1p, h1, 2 * nb) == 0 && kpqc_ct_memneq(h2p, h2, 2 * nb) == 0) ret = KPQC_OK;
out:
    free(lin);
    free(nodes);
    free(bsh);
    free(ash);
    free(vsh);
    return ret;
}

/* ---------- parameter sets and descriptors ---------- */

static const char *impl_name(void) { return kpqc_aimer_select_backend()->info.name; }

#define AIMER_SET(id, nw_, L_, T_, N_, logn_, pre_, e0, e1, e2, e3, siglen)                  \
    static const struct aimer_params id##_params = {nw_, 8 * nw_, L_, T_, N_, logn_, pre_, \
                                                    {e0, e1, e2, e3}, siglen};            \
    static int id##_keypair(uint8_t *pk, uint8_t *sk, const kpqc_rng *rng) {              \
        return aimer_keypair(&id##_params, pk, sk, rng);                                   \
    }                                                                                      \
    static int id##_sign(uint8_t *sig, size_t *sig_len, const uint8_t *msg, size_t msg_len, \
                         const uint8_t *ctx, size_t ctx_len, const uint8_t *sk,             \
                         const kpqc_rng *rng) {                                             \
        return aimer_sign(&id##_params, sig, sig_len, msg, msg_len, ctx, ctx_len, sk, rng); \
    }                                                                                      \
    static int id##_verify(const uint8_t *sig, size_t sig_len, const uint8_t *msg,          \
                           size_t msg_len, const uint8_t *ctx, size_t ctx_len,              \
                           const uint8_t *pk) {                                             \
        return aimer_verify(&id##_params, sig, sig_len, msg, msg_len, ctx, ctx_len, pk);    \
    }                                                                                      \
    static int id##_check_keypair(const uint8_t *pk, const uint8_t *sk) {                  \
        return aimer_check_keypair(&id##_params, pk, sk);                                  \
    }                                                                                      \
    const struct kpqc_sig_ops kpqc_##id##_ops = {id##_keypair, id##_sign, id##_verify,     \
                                                 id##_check_keypair, KPQC_KAT_SM_MSG_SIG, 0, impl_name};

/* L = 2 for 128/192 (exponents of the two input S-boxes, then the output
 * S-box), L = 3 for 256. */
AIMER_SET(aimer128f, 2, 2, 33, 16, 4, 0x00, 3, 7, 11, 0, 6944)
AIMER_SET(aimer128s, 2, 2, 17, 256, 8, 0x10, 3, 7, 11, 0, 4704)
AIMER_SET(aimer192f, 3, 2, 49, 16, 4, 0x20, 11, 23, 47, 0, 15408)
AIMER_SET(aimer192s, 3, 2, 25, 256, 8, 0x30, 11, 23, 47, 0, 10320)
AIMER_SET(aimer256f, 4, 3, 65, 16, 4, 0x40, 3, 7, 11, 19, 31360)
AIMER_SET(aimer256s, 4, 3, 33, 256, 8, 0x50, 3, 7, 11, 19, 20224)

volatile uint64_t kpqc_aimer_parse_fold;

/* The parsing half of verification alone, for the decoder fuzz target: the
 * layout, the hidden party of each repetition (from h2) and every field
 * element the proofs carry (corrections of the last party, the hidden
 * party's alpha shares). */
int kpqc_aimer_parse_signature(unsigned set, const uint8_t *in, size_t len) {
    static const struct aimer_params *const sets[] = {&aimer128f_params, &aimer128s_params, &aimer192f_params,
                                                      &aimer192s_params, &aimer256f_params, &aimer256s_params};
    if (set >= sizeof sets / sizeof sets[0] || len != sets[set]->sig_len) return -1;
    const struct aimer_params *p = sets[set];
    const unsigned nb = p->nb, nw = p->nw, L = p->L, T = p->T, N = p->N;
    const size_t plen = proof_len(p);
    if ((size_t)5 * nb + (size_t)T * plen != len) return -1;
    const uint8_t *h2 = in + 3 * nb, *proofs = in + 5 * nb;
    uint8_t idx[80];
    kpqc_keccak ek;
    h_init(&ek, p);
    kpqc_keccak_absorb(&ek, h2, 2 * nb);
    kpqc_keccak_squeeze(&ek, idx, T);
    gf acc, u;
    gf_zero(acc);
    for (unsigned r = 0; r < T; r++) {
        const uint8_t *dp = proofs + r * plen + (size_t)(p->logn + 2) * nb, *ap = dp + (size_t)(L + 2) * nb;
        unsigned hid = idx[r] & (N - 1);
        for (unsigned i = 0; i < L + 2; i++) {
            gf_load(u, dp + i * nb, nw);
            gf_add(acc, acc, u);
        }
        for (unsigned i = 0; i <= L; i++) {
            gf_load(u, ap + i * nb, nw);
            gf_add(acc, acc, u);
        }
        acc[0] ^= hid;
    }
    kpqc_aimer_parse_fold = acc[0];
    return 0;
}
