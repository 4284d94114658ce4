/*
 * Keccak-f[1600] on several states at once, one lane of every state per
 * vector register: the round written once for every vector path.
 *
 * The including file defines the vector type V and the operations
 *   XOR(a, b), XOR5(a, b, c, d, e), ROL(v, n) (n constant, 0 < n < 64),
 *   ROL1(v) = ROL(v, 1) (theta's rotations), RHO(v, n) (rho's: ROL, or one
 *   that turns some offsets into cheaper instructions),
 *   CHI(a, b, c) = a ^ (~b & c), SET1(u64), LOADV(p), STOREV(p, v)
 * (AVX2 builds them from two-operand instructions, AVX-512 from vpternlogq
 * and vprolq) and KECCAK_SIMD_CARRY_PARITIES (below), then defines
 * KECCAK_SIMD_PERMUTE(name, W): a function name(uint64_t s[25][W])
 * permuting W lane-interleaved states (or with KECCAK_SIMD_PERMUTE_AT, a
 * group of them inside a wider state).
 *
 * Theta's column parities c0..c4 are formed in one of two ways, whichever
 * the kernel measured faster:
 *  - KECCAK_SIMD_CARRY_PARITIES 0: the textbook round, five XOR5s over the
 *    state at the start of each round;
 *  - KECCAK_SIMD_CARRY_PARITIES 1: accumulated while chi produces each row
 *    of the previous round (the same number of XORs), so theta does not
 *    read the whole state once more before rho reads it, and the next
 *    round's theta can start as soon as the last row is done.
 */
#ifndef KPQC_KECCAK_SIMD_ROUND_H
#define KPQC_KECCAK_SIMD_ROUND_H

#include <stdint.h>

#include "keccak_rho_pi.h"

#ifdef __AVX2__
/* Each 64-bit word of the 256-bit v rotated left by k whole bytes in one
 * byte shuffle (byte j of a word takes byte j - k mod 8): for RHO, whose
 * offsets 8 and 56 are whole bytes. */
#define KECCAK_ROLB256(v, k) \
    _mm256_shuffle_epi8((v), _mm256_setr_epi8(KECCAK_ROLB_WORD(k, 0), KECCAK_ROLB_WORD(k, 8), \
                                              KECCAK_ROLB_WORD(k, 0), KECCAK_ROLB_WORD(k, 8)))
#define KECCAK_ROLB_WORD(k, at)                                                                   \
    (at) + (8 - (k)) % 8, (at) + (9 - (k)) % 8, (at) + (10 - (k)) % 8, (at) + (11 - (k)) % 8,      \
        (at) + (12 - (k)) % 8, (at) + (13 - (k)) % 8, (at) + (14 - (k)) % 8, (at) + (15 - (k)) % 8
#endif

static const uint64_t keccak_simd_rc[24] = {
    0x0000000000000001ULL, 0x0000000000008082ULL, 0x800000000000808aULL, 0x8000000080008000ULL,
    0x000000000000808bULL, 0x0000000080000001ULL, 0x8000000080008081ULL, 0x8000000000008009ULL,
    0x000000000000008aULL, 0x0000000000000088ULL, 0x0000000080008009ULL, 0x000000008000000aULL,
    0x000000008000808bULL, 0x800000000000008bULL, 0x8000000000008089ULL, 0x8000000000008003ULL,
    0x8000000000008002ULL, 0x8000000000000080ULL, 0x000000000000800aULL, 0x800000008000000aULL,
    0x8000000080008081ULL, 0x8000000000008080ULL, 0x0000000080000001ULL, 0x8000000080008008ULL,
};

/* Chi on the row b0..b4 into lanes E##i0..E##i4, added to the carried
 * column parities. */
#define KECCAK_SIMD_CHI_ROW(E, i0, i1, i2, i3, i4)                                              \
    do {                                                                                        \
        E##i0 = CHI(b0, b1, b2);                                                                \
        E##i1 = CHI(b1, b2, b3);                                                                \
        E##i2 = CHI(b2, b3, b4);                                                                \
        E##i3 = CHI(b3, b4, b0);                                                                \
        E##i4 = CHI(b4, b0, b1);                                                                \
        if (KECCAK_SIMD_CARRY_PARITIES) {                                                       \
            c0 = XOR(c0, E##i0);                                                                \
            c1 = XOR(c1, E##i1);                                                                \
            c2 = XOR(c2, E##i2);                                                                \
            c3 = XOR(c3, E##i3);                                                                \
            c4 = XOR(c4, E##i4);                                                                \
        }                                                                                       \
    } while (0)

/* The column parities of state A into c0..c4. */
#define KECCAK_SIMD_PARITIES(A)                                                                 \
    do {                                                                                        \
        c0 = XOR5(A##00, A##05, A##10, A##15, A##20);                                           \
        c1 = XOR5(A##01, A##06, A##11, A##16, A##21);                                           \
        c2 = XOR5(A##02, A##07, A##12, A##17, A##22);                                           \
        c3 = XOR5(A##03, A##08, A##13, A##18, A##23);                                           \
        c4 = XOR5(A##04, A##09, A##14, A##19, A##24);                                           \
    } while (0)

/*
 * One round from state A into state E (rho/pi from keccak_rho_pi.h, every
 * rotation count a constant); with carried parities, c0..c4 hold A's on
 * entry and E's on exit.
 */
#define KECCAK_SIMD_ROUND(A, E, r)                                                              \
    do {                                                                                        \
        if (!KECCAK_SIMD_CARRY_PARITIES) KECCAK_SIMD_PARITIES(A);                               \
        KECCAK_THETA_D(ROL1);                                                                   \
        V b0, b1, b2, b3, b4;                                                                   \
        KECCAK_RHO_PI_ROW0(A, RHO);                                                             \
        E##00 = XOR(CHI(b0, b1, b2), SET1(keccak_simd_rc[r]));                                  \
        E##01 = CHI(b1, b2, b3);                                                                \
        E##02 = CHI(b2, b3, b4);                                                                \
        E##03 = CHI(b3, b4, b0);                                                                \
        E##04 = CHI(b4, b0, b1);                                                                \
        if (KECCAK_SIMD_CARRY_PARITIES) {                                                       \
            c0 = E##00;                                                                         \
            c1 = E##01;                                                                         \
            c2 = E##02;                                                                         \
            c3 = E##03;                                                                         \
            c4 = E##04;                                                                         \
        }                                                                                       \
        KECCAK_RHO_PI_ROW1(A, RHO);                                                             \
        KECCAK_SIMD_CHI_ROW(E, 05, 06, 07, 08, 09);                                             \
        KECCAK_RHO_PI_ROW2(A, RHO);                                                             \
        KECCAK_SIMD_CHI_ROW(E, 10, 11, 12, 13, 14);                                             \
        KECCAK_RHO_PI_ROW3(A, RHO);                                                             \
        KECCAK_SIMD_CHI_ROW(E, 15, 16, 17, 18, 19);                                             \
        KECCAK_RHO_PI_ROW4(A, RHO);                                                             \
        KECCAK_SIMD_CHI_ROW(E, 20, 21, 22, 23, 24);                                             \
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
        V c0, c1, c2, c3, c4;                        \
        if (KECCAK_SIMD_CARRY_PARITIES)              \
            KECCAK_SIMD_PARITIES(a);                 \
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
