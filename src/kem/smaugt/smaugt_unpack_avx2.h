/*
 * Bit-string unpacking on AVX2 registers, for the AVX2 and AVX-512
 * kernels (smaugt_mul_avx2.c, smaugt_mul_avx512.c).
 */
#ifndef KPQC_SMAUGT_UNPACK_AVX2_H
#define KPQC_SMAUGT_UNPACK_AVX2_H

#include <string.h>

#include "common/x86_intrin.h"
#include "smaugt.h"

/*
 * Unpacking 16 fields per step: each group of 8 fields is `bits` bytes;
 * the 16 bytes from a group's start go to both halves of a register, a
 * byte shuffle gives each 32-bit lane the three bytes its field touches,
 * a variable shift and a mask cut the field out.  The first 24 groups'
 * loads stay inside the input (23 bits + 16 <= 32 bits); the last 8 groups
 * are read from a zero-padded copy.  The callers do their own
 * per-coefficient work on each step's 16 fields, with no second pass.
 */
typedef struct {
    __m256i shuf, shift, mask;
} unpack_consts;

/* Per width (2..11), fixed at compile time: field c of a group starts at
 * bit c * bits, in byte c * bits / 8 at offset c * bits % 8. */
#define UNPACK_SHUF1(b, c) (uint8_t)((c) * (b) / 8), (uint8_t)((c) * (b) / 8 + 1), (uint8_t)((c) * (b) / 8 + 2), 0x80
#define UNPACK_SHUF(b)                                                                                        \
    {UNPACK_SHUF1(b, 0), UNPACK_SHUF1(b, 1), UNPACK_SHUF1(b, 2), UNPACK_SHUF1(b, 3),                          \
     UNPACK_SHUF1(b, 4), UNPACK_SHUF1(b, 5), UNPACK_SHUF1(b, 6), UNPACK_SHUF1(b, 7)}
#define UNPACK_OFF(b) {0, (b) % 8, 2 * (b) % 8, 3 * (b) % 8, 4 * (b) % 8, 5 * (b) % 8, 6 * (b) % 8, 7 * (b) % 8}
static const _Alignas(32) uint8_t unpack_shuf[12][32] = {
    {0}, {0}, UNPACK_SHUF(2), UNPACK_SHUF(3), UNPACK_SHUF(4), UNPACK_SHUF(5),
    UNPACK_SHUF(6), UNPACK_SHUF(7), UNPACK_SHUF(8), UNPACK_SHUF(9), UNPACK_SHUF(10), UNPACK_SHUF(11)};
static const _Alignas(32) uint32_t unpack_off[12][8] = {
    {0}, {0}, UNPACK_OFF(2), UNPACK_OFF(3), UNPACK_OFF(4), UNPACK_OFF(5),
    UNPACK_OFF(6), UNPACK_OFF(7), UNPACK_OFF(8), UNPACK_OFF(9), UNPACK_OFF(10), UNPACK_OFF(11)};

static inline unpack_consts unpack_setup(unsigned bits) {
    unpack_consts u = {_mm256_load_si256((const __m256i *)unpack_shuf[bits]),
                       _mm256_load_si256((const __m256i *)unpack_off[bits]), _mm256_set1_epi32((1 << bits) - 1)};
    return u;
}

static inline __m256i unpack_group(const uint8_t *g, const unpack_consts *u) {
    __m256i x = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)g));
    return _mm256_and_si256(_mm256_srlv_epi32(_mm256_shuffle_epi8(x, u->shuf), u->shift), u->mask);
}

/* Fields 16 it .. 16 it + 15; tail holds the last 8 groups, zero-padded. */
static inline __m256i unpack16(const uint8_t *in, const uint8_t *tail, unsigned it, unsigned bits,
                               const unpack_consts *u) {
    const uint8_t *g = it < 12 ? in + 2 * it * bits : tail + (2 * it - 24) * bits;
    __m256i g0 = unpack_group(g, u), g1 = unpack_group(g + bits, u);
    /* packus interleaves the halves: qwords g0 0-3, g1 0-3, g0 4-7, g1 4-7 */
    return _mm256_permute4x64_epi64(_mm256_packus_epi32(g0, g1), 0xD8);
}

/* A public row of 32 bits bytes (a polynomial modulo 2^bits) as 16
 * vectors of its centred values, each field sign-extended from its top
 * bit: the product kernels' input, straight from the packed bytes. */
static inline void unpack_row(__m256i x[16], const uint8_t *in, unsigned bits) {
    uint8_t tail[8 * SMAUGT_LOG_Q_MAX + 16] = {0};
    const unpack_consts u = unpack_setup(bits);
    const __m128i up = _mm_cvtsi32_si128((int)(16 - bits));
    memcpy(tail, in + 24 * bits, 8 * bits);
    for (unsigned it = 0; it < SMAUGT_N / 16; it++)
        x[it] = _mm256_sra_epi16(_mm256_sll_epi16(unpack16(in, tail, it, bits, &u), up), up);
}

#endif
