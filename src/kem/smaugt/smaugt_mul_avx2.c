/* AVX2 build of the product kernel (16 coefficients per instruction). */
#include "smaugt_mul.h"

#if defined(__x86_64__)
void kpqc_smaugt_mul_acc_avx2(uint16_t r[SMAUGT_N], const uint16_t a[SMAUGT_N],
                              const int16_t s[SMAUGT_N]) {
    smaugt_mul_acc_kernel(r, a, s);
}
#endif
