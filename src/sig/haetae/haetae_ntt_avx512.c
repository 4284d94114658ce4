/* NTT, inverse NTT and pointwise products with AVX-512 intrinsics, sixteen
 * coefficients a register (see haetae_ntt_simd.h); the data moves with
 * two-source permutes (vpermt2d). */
#include "common/x86_intrin.h"

#include "haetae_ntt_kernel.h"

#define V __m512i
#define W 16
#define MUL _mm512_mul_epi32
#define SRL32(a) _mm512_srli_epi64((a), 32)
#define MERGE(e, o) _mm512_mask_shuffle_epi32((o), 0x5555, (e), (_MM_PERM_ENUM)0xF5)
#define ADD _mm512_add_epi32
#define SUB _mm512_sub_epi32
#define SUB64 _mm512_sub_epi64
#define SET1 _mm512_set1_epi32
#define LOAD(p) _mm512_loadu_si512((const void *)(p))
#define STORE(p, v) _mm512_storeu_si512((void *)(p), (v))

#define ROW16(F, a, b)                                                                                    \
    {F(a, b, 0),  F(a, b, 1),  F(a, b, 2),  F(a, b, 3),  F(a, b, 4),  F(a, b, 5),  F(a, b, 6),  F(a, b, 7), \
     F(a, b, 8),  F(a, b, 9),  F(a, b, 10), F(a, b, 11), F(a, b, 12), F(a, b, 13), F(a, b, 14), F(a, b, 15)}
/* Lane i of the new X (h = 0) or Y (h = 1) when X and Y trade blocks of s
 * lanes; indices 16..31 name Y's lanes. */
#define INTERLEAVE(s, h, i) (16 * (((i) / (s)) & 1) + 2 * (s) * ((i) / (2 * (s))) + (h) * (s) + (i) % (s))
/* Consecutive coefficients to (evens, odds) and back. */
#define DEAL(u, h, i) (2 * (i) + (h))
#define UNDEAL(u, h, i) (16 * (((i) + 16 * (h)) & 1) + ((i) + 16 * (h)) / 2)
/* Lane i's entry of a run for len s, forwards and backwards. */
#define REPEAT(s, u, i) ((i) / (s))
#define REPEAT_BACK(s, u, i) (16 / (s) - 1 - (i) / (s))

/* By log2 of the block or len: 1, 2, 4, 8. */
static const int32_t interleave_idx[4][2][16] = {
    {ROW16(INTERLEAVE, 1, 0), ROW16(INTERLEAVE, 1, 1)},
    {ROW16(INTERLEAVE, 2, 0), ROW16(INTERLEAVE, 2, 1)},
    {ROW16(INTERLEAVE, 4, 0), ROW16(INTERLEAVE, 4, 1)},
    {ROW16(INTERLEAVE, 8, 0), ROW16(INTERLEAVE, 8, 1)},
};
static const int32_t deal_idx[2][16] = {ROW16(DEAL, 0, 0), ROW16(DEAL, 0, 1)};
static const int32_t undeal_idx[2][16] = {ROW16(UNDEAL, 0, 0), ROW16(UNDEAL, 0, 1)};
static const int32_t repeat_idx[2][4][16] = {
    {ROW16(REPEAT, 1, 0), ROW16(REPEAT, 2, 0), ROW16(REPEAT, 4, 0), ROW16(REPEAT, 8, 0)},
    {ROW16(REPEAT_BACK, 1, 0), ROW16(REPEAT_BACK, 2, 0), ROW16(REPEAT_BACK, 4, 0), ROW16(REPEAT_BACK, 8, 0)},
};

/* (X, Y) <- the lanes idx[0], idx[1] of the 32 in X || Y. */
static inline void permute_pair(V *x, V *y, const int32_t idx[2][16]) {
    V nx = _mm512_permutex2var_epi32(*x, LOAD(idx[0]), *y);
    *y = _mm512_permutex2var_epi32(*x, LOAD(idx[1]), *y);
    *x = nx;
}
static inline void interleave(V *x, V *y, unsigned s) { permute_pair(x, y, interleave_idx[__builtin_ctz(s)]); }
static inline void deal(V *x, V *y) { permute_pair(x, y, deal_idx); }
static inline void undeal(V *x, V *y) { permute_pair(x, y, undeal_idx); }
static inline V zetas(const int32_t *from, unsigned len, int back) {
    return _mm512_permutexvar_epi32(LOAD(repeat_idx[back][__builtin_ctz(len)]), LOAD(from));
}

#define HAETAE_NTT_NAME(op) kpqc_haetae_##op##_avx512
#include "haetae_ntt_simd.h"
