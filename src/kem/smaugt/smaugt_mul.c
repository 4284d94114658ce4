/* Portable build of the product kernel, and the family's candidate list. */
#include "smaugt_mul.h"

static void mul_acc_portable(uint16_t r[SMAUGT_N], const uint16_t a[SMAUGT_N], const int16_t s[SMAUGT_N]) {
    smaugt_mul_acc_kernel(r, a, s);
}

const kpqc_smaugt_backend kpqc_smaugt_backend_portable = {{"portable", 0}, mul_acc_portable};

static const kpqc_backend_info *const candidates[] = {
#ifdef KPQC_ISA_AVX2
    &kpqc_smaugt_backend_avx2.info,
#endif
    &kpqc_smaugt_backend_portable.info,
};
KPQC_BACKEND_CHOICE(kpqc_smaugt_backend, kpqc_smaugt_select_backend, kpqc_smaugt_backends, candidates)
