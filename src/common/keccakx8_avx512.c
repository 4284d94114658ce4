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
#define ROL1(v) ROL((v), 1)
#define RHO ROL
#define CHI(a, b, c) KPQC_CHI(_mm512, (a), (b), (c))
#define SET1(x) _mm512_set1_epi64((long long)(x))
#define LOADV(p) _mm512_loadu_si512((const void *)(p))
#define STOREV(p, v) _mm512_storeu_si512((void *)(p), (v))
/* the textbook round: with 32 registers for 25 lanes, carried parities
 * (keccak_simd_round.h) measured 2 % slower here */
#define KECCAK_SIMD_CARRY_PARITIES 0

KECCAK_SIMD_PERMUTE(kpqc_keccakx8_f1600_avx512, 8)

/* Lanes i..i+7 of the eight instances, a transposed 8x8 block of words:
 * 64-bit unpacks pair the rows, a two-source permutation pairs the pairs,
 * and 256-bit halves finish. */
static void store_lanes_avx512(uint8_t *const out[8], const uint64_t s[25][8], unsigned n) {
    const __m512i pick0 = _mm512_setr_epi64(0, 1, 8, 9, 4, 5, 12, 13), pick1 = _mm512_setr_epi64(2, 3, 10, 11, 6, 7, 14, 15);
    unsigned i = 0;
    for (; i + 8 <= n; i += 8) {
        __m512i t[8], u[8];
        for (unsigned k = 0; k < 8; k += 2) {
            const __m512i a = LOADV(s[i + k]), b = LOADV(s[i + k + 1]);
            t[k] = _mm512_unpacklo_epi64(a, b);
            t[k + 1] = _mm512_unpackhi_epi64(a, b);
        }
        for (unsigned k = 0; k < 8; k += 4) {
            u[k] = _mm512_permutex2var_epi64(t[k], pick0, t[k + 2]);
            u[k + 2] = _mm512_permutex2var_epi64(t[k], pick1, t[k + 2]);
            u[k + 1] = _mm512_permutex2var_epi64(t[k + 1], pick0, t[k + 3]);
            u[k + 3] = _mm512_permutex2var_epi64(t[k + 1], pick1, t[k + 3]);
        }
        for (unsigned j = 0; j < 4; j++) {
            STOREV(out[j] + 8 * i, _mm512_shuffle_i64x2(u[j], u[j + 4], 0x44));
            STOREV(out[j + 4] + 8 * i, _mm512_shuffle_i64x2(u[j], u[j + 4], 0xee));
        }
    }
    for (; i < n; i++)
        for (unsigned j = 0; j < 8; j++) kpqc_store64_le(out[j] + 8 * i, s[i][j]);
}

const kpqc_keccakx8_backend kpqc_keccakx8_backend_avx512 = {{"avx512", KPQC_LEVEL_AVX512},
                                                            kpqc_keccakx8_f1600_avx512, store_lanes_avx512, 1};
