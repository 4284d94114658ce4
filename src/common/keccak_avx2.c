/* Keccak-f[1600] for the AVX2 path: the row-by-row form of the portable
 * permutation (keccak_f1600.h) compiled with BMI1/BMI2, whose andn and rorx
 * make chi and rho about 10 % cheaper.  Chosen only where cpu.c found AVX2,
 * BMI1 and BMI2. */
#include "keccak.h"
#include "keccak_f1600.h"

static void f1600_avx2(uint64_t s[25]) { keccak_f1600_permute_rows(s); }

const kpqc_keccak_backend kpqc_keccak_backend_avx2 = {{"avx2", KPQC_FEAT_AVX2}, f1600_avx2};
