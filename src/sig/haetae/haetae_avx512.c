/* HAETAE's AVX-512 kernel table: the NTT sixteen coefficients a register,
 * the CDT sample with opmasks, eight entries per instruction; the AVX2
 * kernels for the rest. */
#include "haetae.h"

const struct haetae_backend kpqc_haetae_backend_avx512 = {
    {"avx512", KPQC_LEVEL_AVX512}, kpqc_haetae_ntt_avx512, kpqc_haetae_invntt_avx512, kpqc_haetae_fft_sqabs_acc_avx2,
    kpqc_haetae_cdt_sample_avx512, kpqc_haetae_pointwise_avx512, kpqc_haetae_pointwise_acc_avx512};
