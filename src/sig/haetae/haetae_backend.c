/* HAETAE's portable kernels as a table, and the family's candidate list. */
#include "haetae.h"

const struct haetae_backend haetae_backend_portable = {
    {"portable", 0}, haetae_ntt_portable, haetae_invntt_portable, haetae_fft_sqabs_acc_portable,
    haetae_cdt_sample_portable};

static const kpqc_backend_info *const candidates[] = {
#ifdef KPQC_ISA_AVX512
    &haetae_backend_avx512.info,
#endif
#ifdef KPQC_ISA_AVX2
    &haetae_backend_avx2.info,
#endif
    &haetae_backend_portable.info,
};
KPQC_BACKEND_CHOICE(struct haetae_backend, haetae_select_backend, haetae_backends, candidates)
