/*
 * Keccak-f[1600] on four states at once with AVX2: register i holds lane i
 * of the four instances (the s[lane][instance] layout of kpqc_keccakx4).
 */
#include <immintrin.h>

#include "keccak.h"

void kpqc_keccakx4_f1600_avx2(uint64_t s[25][4]);

static const uint64_t rc[24] = {
    0x0000000000000001ULL, 0x0000000000008082ULL, 0x800000000000808aULL, 0x8000000080008000ULL,
    0x000000000000808bULL, 0x0000000080000001ULL, 0x8000000080008081ULL, 0x8000000000008009ULL,
    0x000000000000008aULL, 0x0000000000000088ULL, 0x0000000080008009ULL, 0x000000008000000aULL,
    0x000000008000808bULL, 0x800000000000008bULL, 0x8000000000008089ULL, 0x8000000000008003ULL,
    0x8000000000008002ULL, 0x8000000000000080ULL, 0x000000000000800aULL, 0x800000008000000aULL,
    0x8000000080008081ULL, 0x8000000000008080ULL, 0x0000000080000001ULL, 0x8000000080008008ULL,
};

#define ROL(v, n) ((n) == 0 ? (v) : _mm256_or_si256(_mm256_slli_epi64((v), (n)), _mm256_srli_epi64((v), 64 - (n))))
#define XOR(a, b) _mm256_xor_si256((a), (b))
#define ANDN(a, b) _mm256_andnot_si256((a), (b)) /* ~a & b */

/*
 * One round in the "lane complementing"-free textbook form; the rho/pi
 * step is written out so every rotation count is a constant.  Lane (x,y)
 * is index x + 5y; pi sends (x,y) to (y, 2x+3y).
 */
#define ROUND(A, E, r)                                                                          \
    do {                                                                                        \
        __m256i c0 = XOR(XOR(XOR(A##00, A##05), XOR(A##10, A##15)), A##20);                     \
        __m256i c1 = XOR(XOR(XOR(A##01, A##06), XOR(A##11, A##16)), A##21);                     \
        __m256i c2 = XOR(XOR(XOR(A##02, A##07), XOR(A##12, A##17)), A##22);                     \
        __m256i c3 = XOR(XOR(XOR(A##03, A##08), XOR(A##13, A##18)), A##23);                     \
        __m256i c4 = XOR(XOR(XOR(A##04, A##09), XOR(A##14, A##19)), A##24);                     \
        __m256i d0 = XOR(c4, ROL(c1, 1)), d1 = XOR(c0, ROL(c2, 1)), d2 = XOR(c1, ROL(c3, 1));  \
        __m256i d3 = XOR(c2, ROL(c4, 1)), d4 = XOR(c3, ROL(c0, 1));                             \
        __m256i b0, b1, b2, b3, b4;                                                             \
        /* row y'=0 of the result takes lanes (0,0),(1,1),(2,2),(3,3),(4,4) */                \
        b0 = XOR(A##00, d0);                                                                    \
        b1 = ROL(XOR(A##06, d1), 44);                                                           \
        b2 = ROL(XOR(A##12, d2), 43);                                                           \
        b3 = ROL(XOR(A##18, d3), 21);                                                           \
        b4 = ROL(XOR(A##24, d4), 14);                                                           \
        E##00 = XOR(XOR(b0, ANDN(b1, b2)), _mm256_set1_epi64x((long long)rc[r]));               \
        E##01 = XOR(b1, ANDN(b2, b3));                                                          \
        E##02 = XOR(b2, ANDN(b3, b4));                                                          \
        E##03 = XOR(b3, ANDN(b4, b0));                                                          \
        E##04 = XOR(b4, ANDN(b0, b1));                                                          \
        /* y'=1: lanes (3,0),(4,1),(0,2),(1,3),(2,4) */                                        \
        b0 = ROL(XOR(A##03, d3), 28);                                                           \
        b1 = ROL(XOR(A##09, d4), 20);                                                           \
        b2 = ROL(XOR(A##10, d0), 3);                                                            \
        b3 = ROL(XOR(A##16, d1), 45);                                                           \
        b4 = ROL(XOR(A##22, d2), 61);                                                           \
        E##05 = XOR(b0, ANDN(b1, b2));                                                          \
        E##06 = XOR(b1, ANDN(b2, b3));                                                          \
        E##07 = XOR(b2, ANDN(b3, b4));                                                          \
        E##08 = XOR(b3, ANDN(b4, b0));                                                          \
        E##09 = XOR(b4, ANDN(b0, b1));                                                          \
        /* y'=2: lanes (1,0),(2,1),(3,2),(4,3),(0,4) */                                        \
        b0 = ROL(XOR(A##01, d1), 1);                                                            \
        b1 = ROL(XOR(A##07, d2), 6);                                                            \
        b2 = ROL(XOR(A##13, d3), 25);                                                           \
        b3 = ROL(XOR(A##19, d4), 8);                                                            \
        b4 = ROL(XOR(A##20, d0), 18);                                                           \
        E##10 = XOR(b0, ANDN(b1, b2));                                                          \
        E##11 = XOR(b1, ANDN(b2, b3));                                                          \
        E##12 = XOR(b2, ANDN(b3, b4));                                                          \
        E##13 = XOR(b3, ANDN(b4, b0));                                                          \
        E##14 = XOR(b4, ANDN(b0, b1));                                                          \
        /* y'=3: lanes (4,0),(0,1),(1,2),(2,3),(3,4) */                                        \
        b0 = ROL(XOR(A##04, d4), 27);                                                           \
        b1 = ROL(XOR(A##05, d0), 36);                                                           \
        b2 = ROL(XOR(A##11, d1), 10);                                                           \
        b3 = ROL(XOR(A##17, d2), 15);                                                           \
        b4 = ROL(XOR(A##23, d3), 56);                                                           \
        E##15 = XOR(b0, ANDN(b1, b2));                                                          \
        E##16 = XOR(b1, ANDN(b2, b3));                                                          \
        E##17 = XOR(b2, ANDN(b3, b4));                                                          \
        E##18 = XOR(b3, ANDN(b4, b0));                                                          \
        E##19 = XOR(b4, ANDN(b0, b1));                                                          \
        /* y'=4: lanes (2,0),(3,1),(4,2),(0,3),(1,4) */                                        \
        b0 = ROL(XOR(A##02, d2), 62);                                                           \
        b1 = ROL(XOR(A##08, d3), 55);                                                           \
        b2 = ROL(XOR(A##14, d4), 39);                                                           \
        b3 = ROL(XOR(A##15, d0), 41);                                                           \
        b4 = ROL(XOR(A##21, d1), 2);                                                            \
        E##20 = XOR(b0, ANDN(b1, b2));                                                          \
        E##21 = XOR(b1, ANDN(b2, b3));                                                          \
        E##22 = XOR(b2, ANDN(b3, b4));                                                          \
        E##23 = XOR(b3, ANDN(b4, b0));                                                          \
        E##24 = XOR(b4, ANDN(b0, b1));                                                          \
    } while (0)

#define DECL(P) __m256i P##00, P##01, P##02, P##03, P##04, P##05, P##06, P##07, P##08, P##09, \
    P##10, P##11, P##12, P##13, P##14, P##15, P##16, P##17, P##18, P##19, P##20, P##21, P##22, P##23, P##24
#define LD(P, i, n) P##n = _mm256_loadu_si256((const __m256i *)s[i])
#define ST(P, i, n) _mm256_storeu_si256((__m256i *)s[i], P##n)
#define ALL(OP, P) \
    OP(P, 0, 00); OP(P, 1, 01); OP(P, 2, 02); OP(P, 3, 03); OP(P, 4, 04); OP(P, 5, 05); OP(P, 6, 06); \
    OP(P, 7, 07); OP(P, 8, 08); OP(P, 9, 09); OP(P, 10, 10); OP(P, 11, 11); OP(P, 12, 12); OP(P, 13, 13); \
    OP(P, 14, 14); OP(P, 15, 15); OP(P, 16, 16); OP(P, 17, 17); OP(P, 18, 18); OP(P, 19, 19); \
    OP(P, 20, 20); OP(P, 21, 21); OP(P, 22, 22); OP(P, 23, 23); OP(P, 24, 24)

void kpqc_keccakx4_f1600_avx2(uint64_t s[25][4]) {
    DECL(a);
    DECL(e);
    ALL(LD, a);
    for (unsigned r = 0; r < 24; r += 2) {
        ROUND(a, e, r);
        ROUND(e, a, r + 1);
    }
    ALL(ST, a);
}
