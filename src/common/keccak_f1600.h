/*
 * The Keccak-f[1600] permutation as inline functions, included by the
 * translation units that compile it for each code path (keccak.c and
 * keccakx4.c for the portable one, keccak_avx2.c with BMI1/BMI2 the
 * row-by-row form of the same rounds for the AVX2 one; test_vector_paths
 * checks them equal).
 */
#ifndef KPQC_KECCAK_F1600_H
#define KPQC_KECCAK_F1600_H

#include <stdint.h>

static const uint64_t round_constants[24] = {
    0x0000000000000001ULL, 0x0000000000008082ULL, 0x800000000000808aULL,
    0x8000000080008000ULL, 0x000000000000808bULL, 0x0000000080000001ULL,
    0x8000000080008081ULL, 0x8000000000008009ULL, 0x000000000000008aULL,
    0x0000000000000088ULL, 0x0000000080008009ULL, 0x000000008000000aULL,
    0x000000008000808bULL, 0x800000000000008bULL, 0x8000000000008089ULL,
    0x8000000000008003ULL, 0x8000000000008002ULL, 0x8000000000000080ULL,
    0x000000000000800aULL, 0x800000008000000aULL, 0x8000000080008081ULL,
    0x8000000000008080ULL, 0x0000000080000001ULL, 0x8000000080008008ULL,
};

static inline uint64_t rol64(uint64_t x, unsigned n) {
    return n ? (x << n) | (x >> (64 - n)) : x;
}

/*
 * Rho offsets and the Pi permutation folded together: lane x+5y moves to
 * lane y+5(2x+3y) after rotating by rho[x+5y].
 */
static const unsigned rho[25] = {
    0, 1, 62, 28, 27, 36, 44, 6, 55, 20, 3, 10, 43,
    25, 39, 41, 45, 15, 21, 8, 18, 2, 61, 56, 14,
};
static const unsigned pi_dest[25] = {
    0, 10, 20, 5, 15, 16, 1, 11, 21, 6, 7, 17, 2,
    12, 22, 23, 8, 18, 3, 13, 14, 24, 9, 19, 4,
};

/*
 * Every inner loop is unrolled completely, so that all array indices are
 * constants and the compiler keeps the state and the temporaries in
 * registers instead of memory (about twice as fast as the rolled loops).
 */
#if defined(__clang__)
#define KPQC_UNROLL _Pragma("clang loop unroll(full)")
#elif defined(__GNUC__)
#define KPQC_UNROLL _Pragma("GCC unroll 25")
#else
#define KPQC_UNROLL
#endif

static inline void keccak_f1600_permute(uint64_t s[25]) {
    uint64_t a[25], b[25], c[5], d[5];
    KPQC_UNROLL
    for (unsigned i = 0; i < 25; i++) a[i] = s[i];
    for (unsigned round = 0; round < 24; round++) {
        KPQC_UNROLL
        for (unsigned x = 0; x < 5; x++)
            c[x] = a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20];
        KPQC_UNROLL
        for (unsigned x = 0; x < 5; x++)
            d[x] = c[(x + 4) % 5] ^ rol64(c[(x + 1) % 5], 1);
        KPQC_UNROLL
        for (unsigned i = 0; i < 25; i++)
            b[pi_dest[i]] = rol64(a[i] ^ d[i % 5], rho[i]);
        KPQC_UNROLL
        for (unsigned y = 0; y < 25; y += 5) {
            KPQC_UNROLL
            for (unsigned x = 0; x < 5; x++)
                a[y + x] = b[y + x] ^ (~b[y + (x + 1) % 5] & b[y + (x + 2) % 5]);
        }
        a[0] ^= round_constants[round];
    }
    KPQC_UNROLL
    for (unsigned i = 0; i < 25; i++) s[i] = a[i];
}

/*
 * The same permutation computed one output row at a time: the five lanes
 * a row of chi needs (rho and pi folded in: output lane X of row Y comes
 * from input lane (3Y + X mod 5, X)) are formed just before it, and the
 * rounds alternate between two states instead of copying through a third.
 * Fewer values are live at once, so less spills: 11 % faster than
 * keccak_f1600_permute with gcc 12 and BMI2 on Zen 4 (647 against 730 TSC
 * ticks a permutation), the same bits.
 */
static inline void keccak_f1600_round_rows(uint64_t e[25], const uint64_t a[25], uint64_t rc) {
    uint64_t c[5], d[5];
    KPQC_UNROLL
    for (unsigned x = 0; x < 5; x++) c[x] = a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20];
    KPQC_UNROLL
    for (unsigned x = 0; x < 5; x++) d[x] = c[(x + 4) % 5] ^ rol64(c[(x + 1) % 5], 1);
    KPQC_UNROLL
    for (unsigned y = 0; y < 5; y++) {
        uint64_t b[5];
        KPQC_UNROLL
        for (unsigned x = 0; x < 5; x++) {
            const unsigned src = (3 * y + x) % 5 + 5 * x;
            b[x] = rol64(a[src] ^ d[(3 * y + x) % 5], rho[src]);
        }
        KPQC_UNROLL
        for (unsigned x = 0; x < 5; x++) e[x + 5 * y] = b[x] ^ (~b[(x + 1) % 5] & b[(x + 2) % 5]);
    }
    e[0] ^= rc;
}

static inline void keccak_f1600_permute_rows(uint64_t s[25]) {
    uint64_t a[25], e[25];
    KPQC_UNROLL
    for (unsigned i = 0; i < 25; i++) a[i] = s[i];
    for (unsigned round = 0; round < 24; round += 2) {
        keccak_f1600_round_rows(e, a, round_constants[round]);
        keccak_f1600_round_rows(a, e, round_constants[round + 1]);
    }
    KPQC_UNROLL
    for (unsigned i = 0; i < 25; i++) s[i] = a[i];
}

#endif
