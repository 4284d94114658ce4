/* AIMer's AVX2 kernel table: PCLMULQDQ products and squarings, one element
 * or eight a call, the linear layers for eight vectors with AVX2 masks or
 * through tables by vpshufb. */
#include "aimer_field.h"

const struct kpqc_aimer_backend kpqc_aimer_backend_avx2 = {
    {"avx2", KPQC_FEAT_AVX2 | KPQC_FEAT_PCLMUL}, kpqc_aimer_gf_mul_pclmul, kpqc_aimer_gf_sqr_n_pclmul,
    kpqc_aimer_mat_vec8_avx2, kpqc_aimer_gf_sqr_n8_pclmul,
    kpqc_aimer_gf_mul8_pclmul, kpqc_aimer_mat_tab_avx2, kpqc_aimer_mat_vec_tab_avx2, 4,
    /* One table application costs what 4, 5 and 8 squarings of eight
     * elements do (nw = 2, 3, 4) when the table is warm: e = 11 and 19
     * gained (aimer256f 2 %, 128f 2 %), and e = 7 too (1-2 % for signing
     * and verifying the s sets) once signing's MPC ran beside its check,
     * its tables no longer pushed out by every party's check inputs. */
    7, kpqc_aimer_gf_mul8_sum_pclmul};
