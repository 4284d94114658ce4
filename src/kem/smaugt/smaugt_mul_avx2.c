/* AVX2 build of the product kernel (16 coefficients per instruction). */
#include "smaugt_mul.h"

static void mul_acc_avx2(uint16_t r[SMAUGT_N], const uint16_t a[SMAUGT_N], const int16_t s[SMAUGT_N]) {
    smaugt_mul_acc_kernel(r, a, s);
}

const kpqc_smaugt_backend kpqc_smaugt_backend_avx2 = {{"avx2", KPQC_FEAT_AVX2}, mul_acc_avx2};
