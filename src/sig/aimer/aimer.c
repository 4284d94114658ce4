/*
 * AIMer's one translation unit: the pieces of the scheme (aimer.h lists
 * them) are read in here, then the six parameter sets and their
 * descriptors, and the parser of signatures alone for the decoder fuzz
 * target.  One unit, because the compiler then specialises every function
 * for each set's constants (field width, L, T, N): split into separately
 * compiled files, aimer128f's signing took 7.6% more instructions on the
 * AVX2 path (callgrind).
 */
#include <stdlib.h>

#include "aimer.h"
#include "decoders.h"

#include "aimer_hash.c.inc"
#include "aimer_aim3.c.inc"
#include "aimer_keys.c.inc"
#include "aimer_tree.c.inc"
#include "aimer_commit.c.inc"
#include "aimer_mpc.c.inc"
#include "aimer_sign.c.inc"
#include "aimer_verify.c.inc"

static const char *impl_name(void) { return kpqc_aimer_select_backend()->info.name; }

#define AIMER_SET(id, nw_, L_, T_, N_, logn_, pre_, e0, e1, e2, e3, siglen)                  \
    const struct aimer_params kpqc_##id##_params = {nw_, 8 * nw_, L_, T_, N_, logn_, pre_,   \
                                                    {e0, e1, e2, e3}, siglen};               \
    static int id##_keypair(uint8_t *pk, uint8_t *sk, const kpqc_rng *rng) {              \
        return aimer_keypair(&kpqc_##id##_params, pk, sk, rng);                              \
    }                                                                                      \
    static int id##_sign(uint8_t *sig, size_t *sig_len, const uint8_t *msg, size_t msg_len, \
                         const uint8_t *ctx, size_t ctx_len, const uint8_t *sk,             \
                         const kpqc_rng *rng) {                                             \
        return aimer_sign(&kpqc_##id##_params, sig, sig_len, msg, msg_len, ctx, ctx_len, sk, rng); \
    }                                                                                      \
    static int id##_verify(const uint8_t *sig, size_t sig_len, const uint8_t *msg,          \
                           size_t msg_len, const uint8_t *ctx, size_t ctx_len,              \
                           const uint8_t *pk) {                                             \
        return aimer_verify(&kpqc_##id##_params, sig, sig_len, msg, msg_len, ctx, ctx_len, pk); \
    }                                                                                      \
    static int id##_check_keypair(const uint8_t *pk, const uint8_t *sk) {                  \
        return aimer_check_keypair(&kpqc_##id##_params, pk, sk);                             \
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
    static const struct aimer_params *const sets[] = {&kpqc_aimer128f_params, &kpqc_aimer128s_params, &kpqc_aimer192f_params,
                                                      &kpqc_aimer192s_params, &kpqc_aimer256f_params, &kpqc_aimer256s_params};
    if (set >= sizeof sets / sizeof sets[0] || len != sets[set]->sig_len) return -1;
    const struct aimer_params *p = sets[set];
    const unsigned nb = p->nb, nw = p->nw, L = p->L, T = p->T, N = p->N;
    const size_t plen = proof_len(p);
    if ((size_t)5 * nb + (size_t)T * plen != len) return -1;
    const uint8_t *h2 = in + 3 * nb, *proofs = in + 5 * nb;
    uint8_t idx[AIMER_TMAX];
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
