/* NTRU+: the AVX2 kernel table (the kernels are in ntruplus_x86.h). */
#include "ntruplus_x86.h"

const kpqc_ntruplus_backend kpqc_ntruplus_backend_avx2 = {
    {"avx2", KPQC_FEAT_AVX2},
    ntt_v256, invntt_v256, basemul_v256, basemul_add_v256, baseinv_v256, invntt_mod3_ntt_v256,
    tobytes_v256, frombytes_v256, cbd1_v256, sotp_decode_v256, sub_mul_v256, neq_v256};
