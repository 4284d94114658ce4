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
};

/* How the NIST KAT file lays out its `sm` field. */
enum kpqc_kat_layout {
    KPQC_KAT_SM_SIG_MSG = 0, /* sm = signature || message (NIST default) */
    KPQC_KAT_SM_MSG_SIG = 1, /* sm = message || signature */
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
    enum kpqc_kat_layout kat_layout;
};

/* Declarations of every family's ops, derived from the table. */
#define KPQC_KEM(fam, id, ...) extern const struct kpqc_kem_ops kpqc_##id##_ops;
#define KPQC_SIG(fam, id, ...) extern const struct kpqc_sig_ops kpqc_##id##_ops;
#include "algorithms.def"

/* True when the AVX2 (and related) code paths may be used right now. */
int kpqc_use_avx2(void);
/* True when PCLMULQDQ may be used right now. */
int kpqc_use_pclmul(void);

#endif
