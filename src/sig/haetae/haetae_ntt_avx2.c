/* NTT, inverse NTT and pointwise products with AVX2 intrinsics, eight
 * coefficients a register (see haetae_ntt_simd.h). */
#include "common/x86_intrin.h"

#include "haetae_ntt_kernel.h"

#define V __m256i
#define W 8
#define MUL _mm256_mul_epi32
#define SRL32(a) _mm256_srli_epi64((a), 32)
#define MERGE(e, o) _mm256_blend_epi32(_mm256_srli_epi64((e), 32), (o), 0xAA)
#define ADD _mm256_add_epi32
#define SUB _mm256_sub_epi32
#define SUB64 _mm256_sub_epi64
#define SET1 _mm256_set1_epi32
#define LOAD(p) _mm256_loadu_si256((const __m256i *)(p))
#define STORE(p, v) _mm256_storeu_si256((__m256i *)(p), (v))

static inline void interleave(V *x, V *y, unsigned s) {
    V nx, ny;
    if (s == 4) {
        nx = _mm256_permute2x128_si256(*x, *y, 0x20);
        ny = _mm256_permute2x128_si256(*x, *y, 0x31);
    } else if (s == 2) {
        nx = _mm256_unpacklo_epi64(*x, *y);
        ny = _mm256_unpackhi_epi64(*x, *y);
    } else {
        nx = _mm256_blend_epi32(*x, _mm256_slli_epi64(*y, 32), 0xAA);
        ny = _mm256_blend_epi32(_mm256_srli_epi64(*x, 32), *y, 0xAA);
    }
    *x = nx, *y = ny;
}

/* Each register's evens, then odds (vpermd); then the halves swapped. */
static inline void deal(V *x, V *y) {
    const V split = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
    V a = _mm256_permutevar8x32_epi32(*x, split), b = _mm256_permutevar8x32_epi32(*y, split);
    *x = _mm256_permute2x128_si256(a, b, 0x20);
    *y = _mm256_permute2x128_si256(a, b, 0x31);
}
static inline void undeal(V *x, V *y) {
    const V join = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    V a = _mm256_permute2x128_si256(*x, *y, 0x20), b = _mm256_permute2x128_si256(*x, *y, 0x31);
    *x = _mm256_permutevar8x32_epi32(a, join);
    *y = _mm256_permutevar8x32_epi32(b, join);
}

/* Lane i's entry for len 1, 2, 4 (by log2), forwards and backwards. */
static const int32_t repeat_idx[2][3][8] = {
    {{0, 1, 2, 3, 4, 5, 6, 7}, {0, 0, 1, 1, 2, 2, 3, 3}, {0, 0, 0, 0, 1, 1, 1, 1}},
    {{7, 6, 5, 4, 3, 2, 1, 0}, {3, 3, 2, 2, 1, 1, 0, 0}, {1, 1, 1, 1, 0, 0, 0, 0}},
};
static inline V zetas(const int32_t *from, unsigned len, int back) {
    return _mm256_permutevar8x32_epi32(LOAD(from), LOAD(repeat_idx[back][__builtin_ctz(len)]));
}

#define HAETAE_NTT_NAME(op) kpqc_haetae_##op##_avx2
#include "haetae_ntt_simd.h"
