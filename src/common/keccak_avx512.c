/*
 * Keccak-f[1600] for one state on the AVX-512 path: each lane in a 128-bit
 * register (AVX-512VL gives 32 of them), chi one vpternlogq a lane,
 * rotations one vprolq.
 *
 * The single-state permutation is throughput-bound (about 95 vector
 * operations a round against a dependency chain of about 9 cycles), so the
 * round is arranged to spend fewer operations on the pipes that are
 * scarce.  On the AMD EPYC Zen 4 we measure on, XORs, ANDNs and ternlogs
 * issue four a cycle but rotations and byte shuffles only two, and every
 * register copy (which the destructive vpternlogq forces) costs a slot:
 *  - the column parities C of the next round are accumulated with plain
 *    XORs while chi produces each row, so theta needs no copies of the
 *    state and no separate pass over it;
 *  - the two rotations by a multiple of eight (lanes (4,3) by 8 and (3,4)
 *    by 56) are byte shuffles, which run on other ports than vprolq.
 * That is keccak_simd_round.h's round with KECCAK_SIMD_CARRY_PARITIES:
 * 542 against 571 TSC ticks a permutation for its textbook round (gcc 12,
 * medians of interleaved runs).
 */
#include "common/x86_intrin.h"

#include "keccak.h"
#include "keccak_simd_round.h"

#define V __m128i
#define XOR(a, b) _mm_xor_si128((a), (b))
#define XOR5(a, b, c, d, e) XOR(XOR((a), (b)), XOR(XOR((c), (d)), (e)))
#define ROL(v, n) _mm_rol_epi64((v), (n))
#define ROL1(v) ROL((v), 1)
#define CHI(a, b, c) KPQC_CHI(_mm, (a), (b), (c)) /* a ^ (~b & c) */
/* iota touches the lane's low half only: the high one is never stored */
#define SET1(x) _mm_cvtsi64_si128((long long)(x))
/* the round of keccak_simd_round.h with the parities carried from chi */
#define KECCAK_SIMD_CARRY_PARITIES 1
/* rho's rotations, those by 8 and 56 as byte shuffles */
#define RHO(v, n) KECCAK_RHO_BY_BYTES(v, n, ROL, ROLB128)
#define ROLB128(v, k) _mm_shuffle_epi8((v), _mm_setr_epi8(KECCAK_ROLB_WORD(k, 0), KECCAK_ROLB_WORD(k, 8)))

#define LOAD_ROW(i0, i1, i2, i3, i4)                                                           \
    a##i0 = _mm_loadl_epi64((const __m128i *)&s[1##i0 - 100]);                                 \
    a##i1 = _mm_loadl_epi64((const __m128i *)&s[1##i1 - 100]);                                 \
    a##i2 = _mm_loadl_epi64((const __m128i *)&s[1##i2 - 100]);                                 \
    a##i3 = _mm_loadl_epi64((const __m128i *)&s[1##i3 - 100]);                                 \
    a##i4 = _mm_loadl_epi64((const __m128i *)&s[1##i4 - 100])
#define STORE_ROW(i0, i1, i2, i3, i4)                                                          \
    _mm_storel_epi64((__m128i *)&s[1##i0 - 100], a##i0);                                       \
    _mm_storel_epi64((__m128i *)&s[1##i1 - 100], a##i1);                                       \
    _mm_storel_epi64((__m128i *)&s[1##i2 - 100], a##i2);                                       \
    _mm_storel_epi64((__m128i *)&s[1##i3 - 100], a##i3);                                       \
    _mm_storel_epi64((__m128i *)&s[1##i4 - 100], a##i4)
#define ALL_ROWS(OP)                                                                           \
    OP(00, 01, 02, 03, 04); OP(05, 06, 07, 08, 09); OP(10, 11, 12, 13, 14);                    \
    OP(15, 16, 17, 18, 19); OP(20, 21, 22, 23, 24)

static void f1600_avx512(uint64_t s[25]) {
    KECCAK_SIMD_DECL(a);
    KECCAK_SIMD_DECL(e);
    V c0, c1, c2, c3, c4;
    ALL_ROWS(LOAD_ROW);
    KECCAK_SIMD_PARITIES(a);
    for (unsigned r = 0; r < 24; r += 2) {
        KECCAK_SIMD_ROUND(a, e, r);
        KECCAK_SIMD_ROUND(e, a, r + 1);
    }
    ALL_ROWS(STORE_ROW);
}

const kpqc_keccak_backend kpqc_keccak_backend_avx512 = {{"avx512", KPQC_LEVEL_AVX512}, f1600_avx512};
