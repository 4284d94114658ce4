/*
 * Keccak-f[1600] on four states at once with AVX2: register i holds lane i
 * of the four instances (the s[lane][instance] layout of kpqc_keccakx4).
 */
#include "common/x86_intrin.h"

#include "keccak.h"
#include "keccak_simd_round.h"

#define V __m256i
#define XOR(a, b) _mm256_xor_si256((a), (b))
#define XOR5(a, b, c, d, e) XOR(XOR(XOR((a), (b)), XOR((c), (d))), (e))
#define ROL(v, n) _mm256_or_si256(_mm256_slli_epi64((v), (n)), _mm256_srli_epi64((v), 64 - (n)))
#define CHI(a, b, c) XOR((a), _mm256_andnot_si256((b), (c)))
#define SET1(x) _mm256_set1_epi64x((long long)(x))
#define LOADV(p) _mm256_loadu_si256((const __m256i *)(p))
#define STOREV(p, v) _mm256_storeu_si256((__m256i *)(p), (v))

KECCAK_SIMD_PERMUTE(kpqc_keccakx4_f1600_avx2, 4)

const kpqc_keccakx4_backend kpqc_keccakx4_backend_avx2 = {{"avx2", KPQC_FEAT_AVX2}, kpqc_keccakx4_f1600_avx2};
