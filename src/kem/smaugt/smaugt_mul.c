/* Portable build of the product kernel and the run-time choice of path. */
#include "internal.h"
#include "smaugt_mul.h"

void kpqc_smaugt_mul_acc_portable(uint16_t r[SMAUGT_N], const uint16_t a[SMAUGT_N],
                                  const int16_t s[SMAUGT_N]) {
    smaugt_mul_acc_kernel(r, a, s);
}

void kpqc_smaugt_mul_acc(uint16_t r[SMAUGT_N], const uint16_t a[SMAUGT_N], const int16_t s[SMAUGT_N]) {
#if defined(__x86_64__)
    if (kpqc_use_avx2()) {
        kpqc_smaugt_mul_acc_avx2(r, a, s);
        return;
    }
#endif
    kpqc_smaugt_mul_acc_portable(r, a, s);
}
