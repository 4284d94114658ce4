/*
 * The NIST AES-256-CTR-DRBG of the PQC Known Answer Test harness, as a
 * kpqc_rng.  Deterministic by design: for KATs, tests and reproducible
 * benchmarks only, never for keys that protect anything.
 */
#ifndef KPQC_DRBG_H
#define KPQC_DRBG_H

#include <kpqc/kpqc.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kpqc_nist_drbg {
    uint8_t key[32];
    uint8_t v[16];
    uint64_t reseed_counter;
} kpqc_nist_drbg;

/* randombytes_init(entropy, personalization, 256); personalization may be NULL. */
KPQC_API void kpqc_nist_drbg_init(kpqc_nist_drbg *d, const uint8_t entropy[48],
                                  const uint8_t *personalization48);
/* randombytes(out, len); always returns 0.  Usable as kpqc_rng.fill. */
KPQC_API int kpqc_nist_drbg_fill(void *ctx, uint8_t *out, size_t len);
/* A kpqc_rng drawing from `d`. */
KPQC_API kpqc_rng kpqc_nist_drbg_rng(kpqc_nist_drbg *d);

#ifdef __cplusplus
}
#endif
#endif
