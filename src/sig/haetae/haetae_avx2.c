/* HAETAE's AVX2 kernel table: the NTT compiled for AVX2, the key's FFT
 * and the CDT sample written with its intrinsics. */
#include "haetae.h"

const struct haetae_backend haetae_backend_avx2 = {
    {"avx2", KPQC_FEAT_AVX2}, haetae_ntt_avx2, haetae_invntt_avx2, haetae_fft_sqabs_acc_avx2,
    haetae_cdt_sample_avx2};
