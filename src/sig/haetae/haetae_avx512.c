/* HAETAE's AVX-512 kernel table: the hyperball's candidates sixteen at a
 * time (the CDT with opmasks, the fixed point with IFMA), their
 * compaction with blends and their scaling with IFMA; the AVX2 kernels
 * for the rest.  The NTT and the pointwise products stay 256 bits
 * wide: a 512-bit build of them (vpmuldq on zmm) was faster alone, but its
 * multiplies lowered the clock for the code around them; on the Xeon
 * measured, signing took about 5% longer than with the AVX2 kernels. */
#include "haetae.h"

const struct haetae_backend kpqc_haetae_backend_avx512 = {
    {"avx512", KPQC_LEVEL_AVX512}, kpqc_haetae_ntt_avx2, kpqc_haetae_invntt_avx2, kpqc_haetae_fft_sqabs_acc_avx2,
    kpqc_haetae_pointwise_avx2, kpqc_haetae_pointwise_acc_avx2,
    kpqc_haetae_gauss16_avx512, kpqc_haetae_ct_compact_avx512, kpqc_haetae_scale_round_avx512};
