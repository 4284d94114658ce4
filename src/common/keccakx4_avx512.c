/*
 * Keccak-f[1600] on four states at once with AVX-512VL on 256-bit
 * registers: vprolq rotates in one instruction (AVX2 needs three) and
 * vpternlogq computes chi's a ^ (~b & c) and three-way XORs in one.
 */
#include "common/x86_intrin.h"

#include "keccak.h"
#include "keccak_simd_round.h"

#define V __m256i
#define XOR(a, b) _mm256_xor_si256((a), (b))
#define XOR5(a, b, c, d, e) KPQC_XOR3(_mm256, KPQC_XOR3(_mm256, (a), (b), (c)), (d), (e))
#define ROL(v, n) _mm256_rol_epi64((v), (n))
#define ROL1(v) ROL((v), 1)
/* rho's rotations by 8 and 56 as byte shuffles; with the parities carried
 * from chi (keccak_simd_round.h), 550 against 598 TSC ticks a permutation
 * for the textbook round on Zen 4 */
#define RHO(v, n) KECCAK_RHO_BY_BYTES(v, n, ROL, KECCAK_ROLB256)
#define CHI(a, b, c) KPQC_CHI(_mm256, (a), (b), (c))
#define SET1(x) _mm256_set1_epi64x((long long)(x))
#define LOADV(p) _mm256_loadu_si256((const __m256i *)(p))
#define STOREV(p, v) _mm256_storeu_si256((__m256i *)(p), (v))
#define KECCAK_SIMD_CARRY_PARITIES 1

KECCAK_SIMD_PERMUTE(kpqc_keccakx4_f1600_avx512, 4)

const kpqc_keccakx4_backend kpqc_keccakx4_backend_avx512 = {{"avx512", KPQC_LEVEL_AVX512},
                                                            kpqc_keccakx4_f1600_avx512,
                                                            kpqc_keccakx4_store_lanes_avx2, 1};
