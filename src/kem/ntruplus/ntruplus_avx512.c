/*
 * NTRU+: the AVX-512 kernel table.  The kernels of ntruplus_x86.h compiled
 * for AVX-512 (32 vector registers, EVEX forms, two-source word
 * permutations for the transpositions and regroupings of n = 864).  They
 * stay on 256-bit vectors: the Zen 4 we measure on splits a 512-bit
 * operation in two, and a butterfly layer on 512-bit vectors measured only
 * 9 % faster than on 256-bit ones, a gain limited to the wide layers
 * (docs/design-notes.md).
 */
#include "ntruplus_x86.h"

const kpqc_ntruplus_backend kpqc_ntruplus_backend_avx512 = {
    {"avx512", KPQC_LEVEL_AVX512},
    ntt_v256, invntt_v256, basemul_v256, basemul_add_v256, baseinv_v256, invntt_mod3_ntt_v256,
    tobytes_v256, frombytes_v256, cbd1_v256, sotp_decode_v256, sub_mul_v256, neq_v256};
