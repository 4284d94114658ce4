/*
 * What the algorithm families implement, and what the table glue expects.
 * For a table row with id `foo`, the family defines `kpqc_foo_ops`.  Sizes
 * are the table's; the glue checks every length before calling in, so ops
 * may assume buffers of exactly the table's sizes.
 */
#ifndef KPQC_INTERNAL_H
#define KPQC_INTERNAL_H

#include <kpqc/kpqc.h>

struct kpqc_kem_ops {
    int (*keypair)(uint8_t *pk, uint8_t *sk, const kpqc_rng *rng);
    int (*encaps)(uint8_t *ct, uint8_t *ss, const uint8_t *pk, const kpqc_rng *rng);
    int (*decaps)(uint8_t *ss, const uint8_t *ct, const uint8_t *sk);
    /* KPQC_OK or KPQC_ERR_DECODE; see kpqc_kem_check_keypair. */
    int (*check_keypair)(const uint8_t *pk, const uint8_t *sk);
    /* The name of the kernels an operation would take now (cpu.h). */
    const char *(*impl_name)(void);
};

/* How a family's official KAT file records a signature. */
enum kpqc_kat_layout {
    KPQC_KAT_SM_SIG_MSG = 0, /* smlen/sm, sm = signature || message (NIST default) */
    KPQC_KAT_SM_MSG_SIG = 1, /* smlen/sm, sm = message || signature */
    /* siglen/sig, detached.  After keypair the harness draws
     * kat_sign_rnd_len bytes of signing randomness, then one byte ctxlen and
     * ctxlen bytes of context, and signs with an rng replaying the former. */
    KPQC_KAT_DETACHED_CTX = 2,
};

struct kpqc_sig_ops {
    int (*keypair)(uint8_t *pk, uint8_t *sk, const kpqc_rng *rng);
    /* *sig_len is the buffer size (table's sig_len) on entry, actual on exit. */
    int (*sign)(uint8_t *sig, size_t *sig_len, const uint8_t *msg, size_t msg_len,
                const uint8_t *ctx, size_t ctx_len, const uint8_t *sk,
                const kpqc_rng *rng);
    /* Returns KPQC_OK or KPQC_ERR_VERIFY; sig_len may be anything. */
    int (*verify)(const uint8_t *sig, size_t sig_len, const uint8_t *msg,
                  size_t msg_len, const uint8_t *ctx, size_t ctx_len,
                  const uint8_t *pk);
    /* KPQC_OK or KPQC_ERR_DECODE; see kpqc_sig_check_keypair. */
    int (*check_keypair)(const uint8_t *pk, const uint8_t *sk);
    enum kpqc_kat_layout kat_layout;
    size_t kat_sign_rnd_len; /* KPQC_KAT_DETACHED_CTX only */
    /* The name of the kernels an operation would take now (cpu.h). */
    const char *(*impl_name)(void);
};

/* Declarations of every family's ops, derived from the table. */
#define KPQC_KEM(fam, id, ...) extern const struct kpqc_kem_ops kpqc_##id##_ops;
#define KPQC_SIG(fam, id, ...) extern const struct kpqc_sig_ops kpqc_##id##_ops;
#include "algorithms.def"

#endif
