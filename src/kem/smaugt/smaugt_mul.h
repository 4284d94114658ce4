/*
 * The product kernel shared by the portable and the AVX2 build of the same
 * source: the compiler vectorises the inner loop for whatever instruction
 * set the including file is compiled for.
 *
 * x^j * a in the negacyclic ring is a window of the 512-entry array
 * ext = (-a_0 .. -a_255, a_0 .. a_255): coefficient k is ext[256 - j + k].
 * So r += sum_j s_j * x^j a is 256 contiguous multiply-adds per j, and s_j
 * only ever appears as a multiplicand: nothing depends on where s is
 * non-zero.
 */
#include <string.h>

#include "common/ct.h"
#include "smaugt.h"

static inline void smaugt_mul_acc_kernel(uint16_t r[SMAUGT_N], const uint16_t a[SMAUGT_N],
                                         const int16_t s[SMAUGT_N]) {
    uint16_t ext[2 * SMAUGT_N];
    uint16_t acc[SMAUGT_N];
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
