/*
 * The portable product kernel (the reference the vector backends are
 * tested against), and the family's candidate list.
 *
 * x^j * a in the negacyclic ring is a window of the 512-entry array
 * ext = (-a_0 .. -a_255, a_0 .. a_255): coefficient k is ext[256 - j + k].
 * So r += sum_j s_j * x^j a is 256 contiguous multiply-adds per j, and s_j
 * only ever appears as a multiplicand: nothing depends on where s is
 * non-zero.  Arithmetic modulo 2^16 on values scaled to the top needs no
 * knowledge of log_mod beyond the unpacking.
 */
#include <string.h>

#include "common/ct.h"
#include "smaugt.h"

static void mul_acc(uint16_t r[SMAUGT_N], const uint16_t a[SMAUGT_N], const int16_t s[SMAUGT_N]) {
    uint16_t ext[2 * SMAUGT_N], acc[SMAUGT_N]; /* local: the compiler need not fear aliasing */
    for (unsigned i = 0; i < SMAUGT_N; i++) {
        ext[i] = (uint16_t)(0u - a[i]);
        ext[SMAUGT_N + i] = a[i];
    }
    memcpy(acc, r, sizeof acc);
    /* Four shifts of a per pass over acc: a quarter of the loads and stores. */
    for (unsigned j = 0; j < SMAUGT_N; j += 4) {
        const uint32_t s0 = (uint16_t)s[j], s1 = (uint16_t)s[j + 1]; /* unsigned: wrap mod 2^16 */
        const uint32_t s2 = (uint16_t)s[j + 2], s3 = (uint16_t)s[j + 3];
        const uint16_t *w0 = ext + SMAUGT_N - j, *w1 = w0 - 1, *w2 = w0 - 2, *w3 = w0 - 3;
        for (unsigned k = 0; k < SMAUGT_N; k++)
            acc[k] = (uint16_t)(acc[k] + s0 * w0[k] + s1 * w1[k] + s2 * w2[k] + s3 * w3[k]);
    }
    memcpy(r, acc, sizeof acc);
    kpqc_wipe(acc, sizeof acc); /* partial sums of products with the secret */
}

static void matvec_acc_portable(uint16_t (*out)[SMAUGT_N], const uint8_t *const *a, unsigned log_mod,
                                const int16_t (*s)[SMAUGT_N], unsigned rows, unsigned k) {
    uint16_t row[SMAUGT_N];
    for (unsigned i = 0; i < rows; i++)
        for (unsigned j = 0; j < k; j++) {
            kpqc_smaugt_unpack_top(row, a[i * k + j], log_mod);
            mul_acc(out[i], row, s[j]);
        }
}

const kpqc_smaugt_backend kpqc_smaugt_backend_portable = {{"portable", 0}, matvec_acc_portable,
                                                          kpqc_smaugt_unpack_top, kpqc_smaugt_pack_round,
                                                          kpqc_smaugt_gaussian, kpqc_smaugt_cbd,
                                                          kpqc_smaugt_unpack_secret};

static const kpqc_backend_info *const candidates[] = {
#ifdef KPQC_ISA_AVX512
    &kpqc_smaugt_backend_avx512.info,
#endif
#ifdef KPQC_ISA_AVX2
    &kpqc_smaugt_backend_avx2.info,
#endif
    &kpqc_smaugt_backend_portable.info,
};
KPQC_BACKEND_CHOICE(kpqc_smaugt_backend, kpqc_smaugt_select_backend, kpqc_smaugt_backends, candidates)
