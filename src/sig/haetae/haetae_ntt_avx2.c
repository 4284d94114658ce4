/* AVX2 build of the NTT and pointwise kernels (see haetae_ntt_kernel.h). */
#include "haetae_ntt_kernel.h"

void kpqc_haetae_ntt_avx2(hpoly *a) { ntt_kernel(a->c); }
void kpqc_haetae_invntt_avx2(hpoly *a) { invntt_kernel(a->c); }
void kpqc_haetae_pointwise_avx2(hpoly *r, const hpoly *a, const hpoly *b) { pointwise_kernel(r->c, a->c, b->c, 0); }
void kpqc_haetae_pointwise_acc_avx2(hpoly *r, const hpoly *a, const hpoly *b) { pointwise_kernel(r->c, a->c, b->c, 1); }
