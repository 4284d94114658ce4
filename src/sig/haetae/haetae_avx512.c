/* HAETAE's AVX-512 kernel table: the hyperball's candidates sixteen at a
 * time (the CDT with opmasks, the fixed point with IFMA), their
 * compaction with blends and their scaling with IFMA; the NTT and the
 * pointwise products sixteen coefficients a register; the AVX2 kernels
 * for the rest.  The NTT's zmm multiplies lower the clock for the code
 * around them: while the sampler was 256 bits wide, signing measured
 * faster with the AVX2 NTT; with the sampler's IFMA on zmm it measures
 * faster with this one. */
#include "haetae.h"

const struct haetae_backend kpqc_haetae_backend_avx512 = {
    {"avx512", KPQC_LEVEL_AVX512}, kpqc_haetae_ntt_avx512, kpqc_haetae_invntt_avx512, kpqc_haetae_fft_sqabs_acc_avx2,
    kpqc_haetae_pointwise_avx512, kpqc_haetae_pointwise_acc_avx512,
    kpqc_haetae_gauss16_avx512, kpqc_haetae_gauss_feed_generic,
    kpqc_haetae_ct_compact_avx512, kpqc_haetae_scale_round_avx512,
    kpqc_haetae_sqnorm_avx2, kpqc_haetae_hint_row_avx2, kpqc_haetae_rej_uniform_avx2,
    kpqc_haetae_shuffle_avx2,
    kpqc_haetae_response_avx2, kpqc_haetae_commit_row_avx2};
