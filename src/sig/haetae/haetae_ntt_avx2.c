/* AVX2 build of the NTT kernels (see haetae_ntt_kernel.h). */
#include "haetae_ntt_kernel.h"

void kpqc_haetae_ntt_avx2(hpoly *a) { ntt_kernel(a->c); }
void kpqc_haetae_invntt_avx2(hpoly *a) { invntt_kernel(a->c); }
