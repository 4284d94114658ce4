/* AVX2 build of the NTT kernels (see haetae_ntt_kernel.h). */
#include "haetae_ntt_kernel.h"

void haetae_ntt_avx2(hpoly *a) { ntt_kernel(a->c); }
void haetae_invntt_avx2(hpoly *a) { invntt_kernel(a->c); }
