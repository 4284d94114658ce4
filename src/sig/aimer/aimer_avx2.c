/* AIMer's AVX2 kernel table: PCLMULQDQ products and squarings, the
 * linear layers with AVX2 masks. */
#include "aimer_field.h"

const struct kpqc_aimer_backend kpqc_aimer_backend_avx2 = {
    {"avx2", KPQC_FEAT_AVX2 | KPQC_FEAT_PCLMUL}, kpqc_aimer_gf_mul_pclmul, kpqc_aimer_gf_sqr_n_pclmul,
    kpqc_aimer_mat_vec_avx2, NULL, NULL, NULL};
