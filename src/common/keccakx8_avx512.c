/*
 * Keccak-f[1600] on eight states at once with AVX-512F: register i holds
 * lane i of the eight instances (the s[lane][instance] layout of
 * kpqc_keccakx8), with vprolq and vpternlogq as in keccakx4_avx512.c.
 */
#include "common/x86_intrin.h"

#include "keccak.h"
#include "keccak_simd_round.h"

#define V __m512i
#define XOR(a, b) _mm512_xor_si512((a), (b))
#define XOR5(a, b, c, d, e) KPQC_XOR3(_mm512, KPQC_XOR3(_mm512, (a), (b), (c)), (d), (e))
#define ROL(v, n) _mm512_rol_epi64((v), (n))
#define CHI(a, b, c) KPQC_CHI(_mm512, (a), (b), (c))
#define SET1(x) _mm512_set1_epi64((long long)(x))
#define LOADV(p) _mm512_loadu_si512((const void *)(p))
#define STOREV(p, v) _mm512_storeu_si512((void *)(p), (v))

KECCAK_SIMD_PERMUTE(kpqc_keccakx8_f1600_avx512, 8)

const kpqc_keccakx8_backend kpqc_keccakx8_backend_avx512 = {{"avx512", KPQC_LEVEL_AVX512},
                                                            kpqc_keccakx8_f1600_avx512};
