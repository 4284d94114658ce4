/* HAETAE's AVX2 kernel table: the NTT, the pointwise products, the key's
 * FFT, and the hyperball's candidates, their compaction and their scaling
 * written with its intrinsics. */
#include "haetae.h"

const struct haetae_backend kpqc_haetae_backend_avx2 = {
    {"avx2", KPQC_FEAT_AVX2}, kpqc_haetae_ntt_avx2, kpqc_haetae_invntt_avx2, kpqc_haetae_fft_sqabs_acc_avx2,
    kpqc_haetae_pointwise_avx2, kpqc_haetae_pointwise_acc_avx2,
    kpqc_haetae_gauss16_avx2, kpqc_haetae_gauss_feed_avx2,
    kpqc_haetae_ct_compact_avx2, kpqc_haetae_scale_round_avx2,
    kpqc_haetae_sqnorm_avx2, kpqc_haetae_hint_row_avx2, kpqc_haetae_rej_uniform_avx2,
    kpqc_haetae_shuffle_avx2,
    kpqc_haetae_response_avx2, kpqc_haetae_commit_row_avx2};
