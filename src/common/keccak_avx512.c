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
 * 542 against 571 TSC ticks a permutation for the textbook round of
 * keccak_simd_round.h (gcc 12, medians of interleaved runs).
 */
#include "common/x86_intrin.h"

#include "keccak.h"
#include "keccak_f1600.h"
#include "keccak_rho_pi.h"

#define V __m128i
#define XOR(a, b) _mm_xor_si128((a), (b))
#define ROL(v, n) _mm_rol_epi64((v), (n))
#define ROL1(v) ROL((v), 1)
#define CHI(a, b, c) KPQC_CHI(_mm, (a), (b), (c)) /* a ^ (~b & c) */
/* rho's rotations, those by 8 and 56 as byte shuffles (n is a constant,
 * so the choice is made at compile time) */
#define RHO(v, n) ((n) == 8 ? _mm_shuffle_epi8((v), rol8) : (n) == 56 ? _mm_shuffle_epi8((v), rol56) : ROL((v), (n)))

/* Chi on one row b0..b4 into lanes E##i0..E##i4, each added to its
 * column's parity c0..c4 (the first row, which also takes iota, starts
 * them in ROUND). */
#define CHI_ROW(E, i0, i1, i2, i3, i4)                                                         \
    do {                                                                                       \
        E##i0 = CHI(b0, b1, b2); E##i1 = CHI(b1, b2, b3); E##i2 = CHI(b2, b3, b4);             \
        E##i3 = CHI(b3, b4, b0); E##i4 = CHI(b4, b0, b1);                                      \
        c0 = XOR(c0, E##i0); c1 = XOR(c1, E##i1); c2 = XOR(c2, E##i2); c3 = XOR(c3, E##i3); \
        c4 = XOR(c4, E##i4);                                                                   \
    } while (0)

/*
 * One round from state A into state E with the column parities c0..c4 of A
 * given, leaving those of E in c0..c4 (rho/pi from keccak_rho_pi.h).
 */
#define ROUND(A, E, rc)                                                                        \
    do {                                                                                       \
        KECCAK_THETA_D(ROL1);                                                                        \
        V b0, b1, b2, b3, b4;                                                                  \
        KECCAK_RHO_PI_ROW0(A, RHO);                                                            \
        E##00 = XOR(CHI(b0, b1, b2), _mm_cvtsi64_si128((long long)(rc)));                      \
        E##01 = CHI(b1, b2, b3); E##02 = CHI(b2, b3, b4);             \
        E##03 = CHI(b3, b4, b0); E##04 = CHI(b4, b0, b1);                                      \
        c0 = E##00; c1 = E##01; c2 = E##02; c3 = E##03; c4 = E##04;                            \
        KECCAK_RHO_PI_ROW1(A, RHO);                                                            \
        CHI_ROW(E, 05, 06, 07, 08, 09);                                                        \
        KECCAK_RHO_PI_ROW2(A, RHO);                                                            \
        CHI_ROW(E, 10, 11, 12, 13, 14);                                                        \
        KECCAK_RHO_PI_ROW3(A, RHO);                                                            \
        CHI_ROW(E, 15, 16, 17, 18, 19);                                                        \
        KECCAK_RHO_PI_ROW4(A, RHO);                                                            \
        CHI_ROW(E, 20, 21, 22, 23, 24);                                                        \
    } while (0)

#define DECL(P) V P##00, P##01, P##02, P##03, P##04, P##05, P##06, P##07, P##08, P##09, P##10, \
    P##11, P##12, P##13, P##14, P##15, P##16, P##17, P##18, P##19, P##20, P##21, P##22, P##23, P##24
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
    /* byte shuffles rotating each 64-bit half left by 8 and by 56 bits */
    const V rol8 = _mm_set_epi8(14, 13, 12, 11, 10, 9, 8, 15, 6, 5, 4, 3, 2, 1, 0, 7);
    const V rol56 = _mm_set_epi8(8, 15, 14, 13, 12, 11, 10, 9, 0, 7, 6, 5, 4, 3, 2, 1);
    DECL(a);
    DECL(e);
    V c0, c1, c2, c3, c4;
    ALL_ROWS(LOAD_ROW);
    c0 = XOR(XOR(a00, a05), XOR(XOR(a10, a15), a20));
    c1 = XOR(XOR(a01, a06), XOR(XOR(a11, a16), a21));
    c2 = XOR(XOR(a02, a07), XOR(XOR(a12, a17), a22));
    c3 = XOR(XOR(a03, a08), XOR(XOR(a13, a18), a23));
    c4 = XOR(XOR(a04, a09), XOR(XOR(a14, a19), a24));
    for (unsigned r = 0; r < 24; r += 2) {
        ROUND(a, e, round_constants[r]);
        ROUND(e, a, round_constants[r + 1]);
    }
    ALL_ROWS(STORE_ROW);
}

const kpqc_keccak_backend kpqc_keccak_backend_avx512 = {{"avx512", KPQC_LEVEL_AVX512}, f1600_avx512};
