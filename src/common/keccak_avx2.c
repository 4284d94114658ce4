/* Keccak-f[1600] for the AVX2 path: the portable permutation compiled with
 * BMI1/BMI2, whose andn and rorx make chi and rho about 10 % cheaper.  Only
 * called after cpu.c found AVX2, BMI1 and BMI2. */
#include "keccak_f1600.h"

void kpqc_keccak_f1600_avx2(uint64_t s[25]);

void kpqc_keccak_f1600_avx2(uint64_t s[25]) { keccak_f1600_permute(s); }
