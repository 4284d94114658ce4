/*
 * Keccak-f[1600] on several states at once, one lane of every state per
 * vector register: the round written once for every vector path.
 *
 * The including file defines the vector type V and the operations
 *   XOR(a, b), XOR5(a, b, c, d, e), ROL(v, n) (n constant, 0 < n < 64),
 *   CHI(a, b, c) = a ^ (~b & c), SET1(u64), LOADV(p), STOREV(p, v)
 * (AVX2 builds them from two-operand instructions, AVX-512 from vpternlogq
 * and vprolq), then defines KECCAK_SIMD_PERMUTE(name, W): a function
 * name(uint64_t s[25][W]) permuting W lane-interleaved states (or with
 * KECCAK_SIMD_PERMUTE_AT, a group of them inside a wider state).
 */
#ifndef KPQC_KECCAK_SIMD_ROUND_H
#define KPQC_KECCAK_SIMD_ROUND_H

#include <stdint.h>

#include "keccak_rho_pi.h"

static const uint64_t keccak_simd_rc[24] = {
    0x0000000000000001ULL, 0x0000000000008082ULL, 0x800000000000808aULL, 0x8000000080008000ULL,
    0x000000000000808bULL, 0x0000000080000001ULL, 0x8000000080008081ULL, 0x8000000000008009ULL,
    0x000000000000008aULL, 0x0000000000000088ULL, 0x0000000080008009ULL, 0x000000008000000aULL,
    0x000000008000808bULL, 0x800000000000008bULL, 0x8000000000008089ULL, 0x8000000000008003ULL,
    0x8000000000008002ULL, 0x8000000000000080ULL, 0x000000000000800aULL, 0x800000008000000aULL,
    0x8000000080008081ULL, 0x8000000000008080ULL, 0x0000000080000001ULL, 0x8000000080008008ULL,
};

/*
 * One round in the textbook form (rho/pi from keccak_rho_pi.h, every
 * rotation count a constant).
 */
#define KECCAK_SIMD_ROUND(A, E, r)                                                              \
    do {                                                                                        \
        V c0 = XOR5(A##00, A##05, A##10, A##15, A##20);                                         \
        V c1 = XOR5(A##01, A##06, A##11, A##16, A##21);                                         \
        V c2 = XOR5(A##02, A##07, A##12, A##17, A##22);                                         \
        V c3 = XOR5(A##03, A##08, A##13, A##18, A##23);                                         \
        V c4 = XOR5(A##04, A##09, A##14, A##19, A##24);                                         \
        KECCAK_THETA_D;                                                                         \
        V b0, b1, b2, b3, b4;                                                                   \
        KECCAK_RHO_PI_ROW0(A, ROL);                                                             \
        E##00 = XOR(CHI(b0, b1, b2), SET1(keccak_simd_rc[r]));                                  \
        E##01 = CHI(b1, b2, b3);                                                                \
        E##02 = CHI(b2, b3, b4);                                                                \
        E##03 = CHI(b3, b4, b0);                                                                \
        E##04 = CHI(b4, b0, b1);                                                                \
        KECCAK_RHO_PI_ROW1(A, ROL);                                                             \
        E##05 = CHI(b0, b1, b2);                                                                \
        E##06 = CHI(b1, b2, b3);                                                                \
        E##07 = CHI(b2, b3, b4);                                                                \
        E##08 = CHI(b3, b4, b0);                                                                \
        E##09 = CHI(b4, b0, b1);                                                                \
        KECCAK_RHO_PI_ROW2(A, ROL);                                                             \
        E##10 = CHI(b0, b1, b2);                                                                \
        E##11 = CHI(b1, b2, b3);                                                                \
        E##12 = CHI(b2, b3, b4);                                                                \
        E##13 = CHI(b3, b4, b0);                                                                \
        E##14 = CHI(b4, b0, b1);                                                                \
        KECCAK_RHO_PI_ROW3(A, ROL);                                                             \
        E##15 = CHI(b0, b1, b2);                                                                \
        E##16 = CHI(b1, b2, b3);                                                                \
        E##17 = CHI(b2, b3, b4);                                                                \
        E##18 = CHI(b3, b4, b0);                                                                \
        E##19 = CHI(b4, b0, b1);                                                                \
        KECCAK_RHO_PI_ROW4(A, ROL);                                                             \
        E##20 = CHI(b0, b1, b2);                                                                \
        E##21 = CHI(b1, b2, b3);                                                                \
        E##22 = CHI(b2, b3, b4);                                                                \
        E##23 = CHI(b3, b4, b0);                                                                \
        E##24 = CHI(b4, b0, b1);                                                                \
    } while (0)

#define KECCAK_SIMD_DECL(P) V P##00, P##01, P##02, P##03, P##04, P##05, P##06, P##07, P##08, \
    P##09, P##10, P##11, P##12, P##13, P##14, P##15, P##16, P##17, P##18, P##19, P##20, P##21,  \
    P##22, P##23, P##24
#define KECCAK_SIMD_LD(P, i, n) P##n = LOADV(s[i] + at)
#define KECCAK_SIMD_ST(P, i, n) STOREV(s[i] + at, P##n)
#define KECCAK_SIMD_ALL(OP, P)                                                                  \
    OP(P, 0, 00); OP(P, 1, 01); OP(P, 2, 02); OP(P, 3, 03); OP(P, 4, 04); OP(P, 5, 05);         \
    OP(P, 6, 06); OP(P, 7, 07); OP(P, 8, 08); OP(P, 9, 09); OP(P, 10, 10); OP(P, 11, 11);       \
    OP(P, 12, 12); OP(P, 13, 13); OP(P, 14, 14); OP(P, 15, 15); OP(P, 16, 16); OP(P, 17, 17);   \
    OP(P, 18, 18); OP(P, 19, 19); OP(P, 20, 20); OP(P, 21, 21); OP(P, 22, 22); OP(P, 23, 23);   \
    OP(P, 24, 24)

/* The states whose lanes start at word at of each row of s. */
#define KECCAK_SIMD_BODY                             \
    {                                                \
        KECCAK_SIMD_DECL(a);                         \
        KECCAK_SIMD_DECL(e);                         \
        KECCAK_SIMD_ALL(KECCAK_SIMD_LD, a);          \
        for (unsigned r = 0; r < 24; r += 2) {       \
            KECCAK_SIMD_ROUND(a, e, r);              \
            KECCAK_SIMD_ROUND(e, a, r + 1);          \
        }                                            \
        KECCAK_SIMD_ALL(KECCAK_SIMD_ST, a);          \
    }

#define KECCAK_SIMD_PERMUTE(name, W)                 \
    void name(uint64_t s[25][W]);                    \
    void name(uint64_t s[25][W]) {                   \
        const unsigned at = 0;                       \
        KECCAK_SIMD_BODY                             \
    }

/* name(s) permutes the states in words AT.. of each row of s, which holds
 * W states of which these are some (the rest are left alone).  AT is a
 * constant: with a run-time offset gcc keeps 25 lane addresses live and
 * spills them. */
#define KECCAK_SIMD_PERMUTE_AT(name, W, AT) \
    static void name(uint64_t s[25][W]) {   \
        const unsigned at = (AT);           \
        KECCAK_SIMD_BODY                    \
    }

#endif
