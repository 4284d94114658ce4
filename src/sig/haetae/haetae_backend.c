/* HAETAE's portable kernels as a table, and the family's candidate list. */
#include "haetae.h"

const struct haetae_backend kpqc_haetae_backend_portable = {
    {"portable", 0}, kpqc_haetae_ntt_portable, kpqc_haetae_invntt_portable, kpqc_haetae_fft_sqabs_acc_portable,
    kpqc_haetae_pointwise, kpqc_haetae_pointwise_acc,
    kpqc_haetae_gauss16_portable, kpqc_haetae_gauss_feed_generic,
    kpqc_haetae_ct_compact, kpqc_haetae_scale_round_portable,
    kpqc_haetae_sqnorm_portable, kpqc_haetae_hint_row_portable, kpqc_haetae_rej_uniform_portable,
    kpqc_haetae_shuffle_portable,
    kpqc_haetae_response_portable, kpqc_haetae_commit_row_portable};

static const kpqc_backend_info *const candidates[] = {
#ifdef KPQC_ISA_AVX512
    &kpqc_haetae_backend_avx512.info,
#endif
#ifdef KPQC_ISA_AVX2
    &kpqc_haetae_backend_avx2.info,
#endif
    &kpqc_haetae_backend_portable.info,
};
KPQC_BACKEND_CHOICE(struct haetae_backend, kpqc_haetae_select_backend, kpqc_haetae_backends, candidates)
