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
 *
 * What the family's pieces share: sizes, the field helpers, the parties'
 * tapes and check inputs, the parameter sets.  The pieces, one job each,
 * are compiled as one unit by aimer.c: aimer_hash.c.inc (batched SHAKE,
 * the sponge riding in their spare lane, message hash), aimer_aim3.c.inc
 * (AIM3), aimer_keys.c.inc (key pairs), aimer_tree.c.inc (seed trees),
 * aimer_commit.c.inc (commitments
 * and tapes), aimer_mpc.c.inc (the parties' computation and the
 * multiplication check), aimer_sign.c.inc, aimer_verify.c.inc.
 */
#ifndef KPQC_AIMER_H
#define KPQC_AIMER_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "aimer_field.h"
#include "common/ct.h"
#include "common/keccak.h"
#include "internal.h"

/* The widest sets' sizes: field words and bytes (AIMer256), S-boxes
 * before the last (L = 3 for AIMer256), repetitions (aimer256f's 65). */
#define NWMAX 4
#define LMAX 3
#define NBMAX 32
#define AIMER_TMAX 65
/* A seed tree's or commitment's hash input: domain byte, salt,
 * repetition, node or party index, seed. */
#define SEED_IN_MAX (1 + NBMAX + 2 + NBMAX)

typedef uint64_t gf[NWMAX];

struct aimer_params {
    unsigned nw, nb, L, T, N, logn;
    uint8_t prefix0;
    unsigned exps[LMAX + 1];
    size_t sig_len;
};

/* Everything derived from the public iv: 2L matrices (one row per bit,
 * row j = image of x^j), L+1 constants, and where the backend has them
 * the matrices' tables (mat_tab), matrix m's at tab + m * tab_len; then,
 * for the S-boxes whose x^(2^e) is cheaper as a linear map than as e
 * squarings (pow_tab[i] = k > 0), that map's tables at
 * tab + (2L + k - 1) * tab_len. */
struct aimer_lin {
    gf A[2 * LMAX][8 * NBMAX];
    gf b[LMAX + 1];
    uint8_t *tab;
    size_t tab_len;
    unsigned char pow_tab[LMAX + 1];
};

/* The field of an operation: its width and the kernels it runs on. */
struct fctx {
    unsigned nw;
    const struct kpqc_aimer_backend *be;
};

static inline struct fctx field_ctx(unsigned nw) {
    struct fctx f = {nw, kpqc_aimer_select_backend()};
    return f;
}

/* ---------- working memory ---------- */

/*
 * Signing and verifying take their working memory as one block, with the
 * pieces at 64-byte boundaries (the table kernels read 32- and 64-byte
 * pieces).  glibc gives a block back to the system at free() once the
 * free space on top of its heap exceeds twice the largest block freed so
 * far: in separate pieces, aimer256f's signing memory sat just below that
 * and one more table put it above, so every signature paid for page
 * faults (18 % of its time).  Alone, the block is its own largest.
 */
static inline size_t mem_piece(size_t *end, size_t len) {
    size_t at = *end;
    *end = (at + len + 63) & ~(size_t)63;
    return at;
}

/* A block of len bytes, from a 64-byte boundary; free() *raw. */
static inline uint8_t *mem_block(size_t len, void **raw) {
    *raw = malloc(len + 63);
    if (*raw == NULL) return NULL;
    return (uint8_t *)*raw + ((64 - (uintptr_t)*raw % 64) % 64);
}

/* ---------- field helpers ---------- */

static inline void gf_zero(gf a) { memset(a, 0, sizeof(gf)); }
static inline void gf_add(gf c, const gf a, const gf b) {
    for (unsigned i = 0; i < NWMAX; i++) c[i] = a[i] ^ b[i];
}
static inline void gf_load(gf a, const uint8_t *p, unsigned nw) {
    gf_zero(a);
    for (unsigned i = 0; i < nw; i++) a[i] = kpqc_load64_le(p + 8 * i);
}
static inline void gf_store(uint8_t *p, const gf a, unsigned nw) {
    for (unsigned i = 0; i < nw; i++) kpqc_store64_le(p + 8 * i, a[i]);
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


/* c_j = M v_j for the PARTY_BATCH vectors of a batch (rows in 4-word slots) */
#define PARTY_BATCH 8
static inline void mat_vec_batch(const struct fctx *f, gf c[PARTY_BATCH], const gf *M, const gf v[PARTY_BATCH]) {
    f->be->mat_vec8(c, (const uint64_t (*)[4])M, v, f->nw);
}

/* The parties of one MPC step (party_mpc): four batches, since a table
 * kernel serves all of them with each table it reads (per vector, 20 %
 * less time with 32 than with 16).  With 16 parties a step takes two
 * repetitions (the last of an odd T alone, a step of two batches). */
#define MPC_MAX (4 * PARTY_BATCH)
static inline unsigned mpc_reps(const struct aimer_params *p) { return p->N < MPC_MAX ? MPC_MAX / p->N : 1; }

/* A table kernel's outputs are secret where its vectors are.  The vectors
 * select table entries as byte-permutation indices, and MemorySanitizer
 * gives AVX-512's vpermi2b result the tables' shadow only, not the
 * indices': on that path the outputs came out public, and a branch on them
 * went unseen.  A no-op outside that check. */
static inline void table_taint(gf *c, const gf *v, unsigned n) {
    for (unsigned j = 0; j < n; j++) KPQC_CT_TAINT(c[j], sizeof(gf), v[j], sizeof(gf));
}

/* c_j = A_m v_j for the n vectors of a step, m a linear layer, through
 * its tables where the backend has them. */
static inline void layer_step(const struct fctx *f, const struct aimer_lin *lin, unsigned m,
                              gf c[MPC_MAX], const gf v[MPC_MAX], unsigned n) {
    if (lin->tab_len != 0) {
        f->be->mat_vec_tab(c, lin->tab + m * lin->tab_len, v, f->nw, n);
        table_taint(c, v, n);
        return;
    }
    for (unsigned h = 0; h < n; h += PARTY_BATCH) mat_vec_batch(f, c + h, (const gf *)lin->A[m], v + h);
}

/* x_j = x_j^(2^e) for the PARTY_BATCH elements of a batch. */
static inline void sqr_n_batch(const struct fctx *f, gf x[PARTY_BATCH], unsigned e) {
    if (f->be->gf_sqr_n8 != NULL) {
        f->be->gf_sqr_n8(x, f->nw, e);
        return;
    }
    for (unsigned j = 0; j < PARTY_BATCH; j++) f->be->gf_sqr_n(x[j], x[j], f->nw, e);
}

/* x_j = x_j^(2^e_i) for the n elements of a step, S-box i. */
static inline void sbox_pow_step(const struct fctx *f, const struct aimer_lin *lin, unsigned L, unsigned i,
                                 unsigned e, gf x[MPC_MAX], unsigned n) {
    if (lin->pow_tab[i]) {
        gf t[MPC_MAX];
        f->be->mat_vec_tab(t, lin->tab + (2 * L + lin->pow_tab[i] - 1) * lin->tab_len, (const gf *)x, f->nw, n);
        table_taint(t, (const gf *)x, n);
        memcpy(x, t, n * sizeof(gf));
        kpqc_wipe(t, n * sizeof(gf));
        return;
    }
    for (unsigned h = 0; h < n; h += PARTY_BATCH) sqr_n_batch(f, x + h, e);
}

/* c_j = a_j * b_j for the PARTY_BATCH pairs of a batch. */
static inline void gf_mul_batch(const struct fctx *f, gf c[PARTY_BATCH], const gf a[PARTY_BATCH],
                         const gf b[PARTY_BATCH]) {
    if (f->be->gf_mul8 != NULL) {
        f->be->gf_mul8(c, a, b, f->nw);
        return;
    }
    for (unsigned j = 0; j < PARTY_BATCH; j++) gf_mul(f, c[j], a[j], b[j]);
}

/* c_j += sum_{i<m} a[8i+j] b[8i+j] for the PARTY_BATCH elements of a
 * batch, reduced once per sum where the backend can. */
static inline void gf_mul_sum_batch(const struct fctx *f, gf c[PARTY_BATCH], const gf *a, const gf *b, unsigned m) {
    if (f->be->gf_mul8_sum != NULL) {
        f->be->gf_mul8_sum(c, a, b, f->nw, m);
        return;
    }
    gf prod[PARTY_BATCH];
    for (unsigned i = 0; i < m; i++) {
        gf_mul_batch(f, prod, a + PARTY_BATCH * i, b + PARTY_BATCH * i);
        for (unsigned j = 0; j < PARTY_BATCH; j++) gf_add(c[j], c[j], prod[j]);
    }
    kpqc_wipe(prod, sizeof prod);
}

/* ---------- hashing ---------- */

static inline void h_init(kpqc_keccak *k, const struct aimer_params *p) {
    if (p->nb == 16) kpqc_shake128_init(k);
    else kpqc_shake256_init(k);
}
static inline void h_init_prefix(kpqc_keccak *k, const struct aimer_params *p, uint8_t prefix) {
    h_init(k, p);
    kpqc_keccak_absorb(k, &prefix, 1);
}

/* ---------- party commitments and tapes ---------- */

/* A party's random tape: pt share, y shares [L], a shares [L+1], c share. */
struct tape {
    gf pt, y[LMAX], a[LMAX + 1], c;
};

#define TAPE_MAX_BYTES ((2 * LMAX + 3) * NBMAX)

/* Inputs of the multiplication check for one party: x_l * y_l = z_l
 * (shares), with random a_l and c = sum a_l y_l. */
struct mult_chk {
    gf x[LMAX + 1], z[LMAX + 1], a[LMAX + 1], b[LMAX + 1], c;
};


/* Offsets inside a proof. */
static inline size_t proof_len(const struct aimer_params *p) {
    return (size_t)p->nb * (p->logn + 2 + 1 + p->L + 1 + p->L + 1);
}

/* The six parameter sets (aimer.c). */
extern const struct aimer_params kpqc_aimer128f_params, kpqc_aimer128s_params, kpqc_aimer192f_params,
    kpqc_aimer192s_params, kpqc_aimer256f_params, kpqc_aimer256s_params;

#endif
