/*
 * Keccak-f[1600] and the FIPS 202 functions built on it: SHA3-256,
 * SHA3-512, SHAKE128, SHAKE256, one-shot and incremental.
 *
 * Incremental use: init, absorb any number of times, then squeeze any number
 * of times (the first squeeze pads).  Squeezing in pieces gives the same
 * stream as squeezing at once.
 */
#ifndef KPQC_KECCAK_H
#define KPQC_KECCAK_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "cpu.h"

#define KPQC_SHAKE128_RATE 168
#define KPQC_SHAKE256_RATE 136
#define KPQC_SHA3_256_RATE 136
#define KPQC_SHA3_512_RATE 72

/* Little-endian lanes, whatever the host's byte order.  On a
 * little-endian host a lane is one unaligned move (gcc does not merge the
 * byte loop: 24 instructions a lane where the sponges absorb). */
static inline uint64_t kpqc_load64_le(const uint8_t *p) {
    uint64_t v = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(&v, p, 8);
#else
    for (unsigned i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
#endif
    return v;
}
static inline void kpqc_store64_le(uint8_t *p, uint64_t v) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(p, &v, 8);
#else
    for (unsigned i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
#endif
}

/* Instance j of w lane-interleaved states (lane i at s[i * w + j]), for
 * the multi-way sponges: XOR len <= rate bytes of in into it; and after
 * the last such bytes, the domain bits dsep and pad10*1. */
static inline void kpqc_keccak_xor_instance(uint64_t *s, unsigned w, unsigned j, const uint8_t *in, size_t len) {
    size_t i = 0;
    for (; i + 8 <= len; i += 8) s[i / 8 * w + j] ^= kpqc_load64_le(in + i);
    for (; i < len; i++) s[i / 8 * w + j] ^= (uint64_t)in[i] << (8 * (i % 8));
}

static inline void kpqc_keccak_pad_instance(uint64_t *s, unsigned w, unsigned j, size_t len, unsigned rate,
                                            uint8_t dsep) {
    s[len / 8 * w + j] ^= (uint64_t)dsep << (8 * (len % 8));
    s[(rate - 1) / 8 * w + j] ^= (uint64_t)0x80 << (8 * ((rate - 1) % 8));
}

/* Kernel tables (cpu.h): the permutation of one state, of four, of eight. */
typedef struct kpqc_keccak_backend {
    kpqc_backend_info info;
    void (*f1600)(uint64_t s[25]);
} kpqc_keccak_backend;

typedef struct kpqc_keccakx4_backend {
    kpqc_backend_info info;
    void (*f1600x4)(uint64_t s[25][4]); /* s[lane][instance] */
    /* the first n lanes of instance j to out[j], little-endian */
    void (*store_lanes)(uint8_t *const out[4], const uint64_t s[25][4], unsigned n);
    /* 1 where the four states are one kernel of their own, cheaper than
     * four one-state permutations; 0 where f1600x4 is those four in turn
     * (callers with fewer busy states then do better one at a time) */
    int single_kernel;
} kpqc_keccakx4_backend;

typedef struct kpqc_keccakx8_backend {
    kpqc_backend_info info;
    void (*f1600x8)(uint64_t s[25][8]); /* s[lane][instance] */
    /* the first n lanes of instance j to out[j], little-endian */
    void (*store_lanes)(uint8_t *const out[8], const uint64_t s[25][8], unsigned n);
    /* 1 where the eight states are one kernel of their own, cheaper than
     * two four-way permutations; 0 where f1600x8 is two of those (callers
     * that may leave lanes idle then do better with four states) */
    int single_kernel;
} kpqc_keccakx8_backend;

extern const kpqc_keccak_backend kpqc_keccak_backend_portable;
extern const kpqc_keccakx4_backend kpqc_keccakx4_backend_portable;
extern const kpqc_keccakx8_backend kpqc_keccakx8_backend_portable;
#ifdef KPQC_ISA_AVX2
extern const kpqc_keccak_backend kpqc_keccak_backend_avx2;
extern const kpqc_keccakx4_backend kpqc_keccakx4_backend_avx2;
extern const kpqc_keccakx8_backend kpqc_keccakx8_backend_avx2;
void kpqc_keccakx4_store_lanes_avx2(uint8_t *const out[4], const uint64_t s[25][4], unsigned n);
#endif
#ifdef KPQC_ISA_AVX512
extern const kpqc_keccak_backend kpqc_keccak_backend_avx512;
extern const kpqc_keccakx4_backend kpqc_keccakx4_backend_avx512;
extern const kpqc_keccakx8_backend kpqc_keccakx8_backend_avx512;
#endif
const kpqc_keccak_backend *kpqc_keccak_select_backend(void);
const kpqc_backend_info *const *kpqc_keccak_backends(size_t *n);
const kpqc_keccakx4_backend *kpqc_keccakx4_select_backend(void);
const kpqc_backend_info *const *kpqc_keccakx4_backends(size_t *n);
const kpqc_keccakx8_backend *kpqc_keccakx8_select_backend(void);
const kpqc_backend_info *const *kpqc_keccakx8_backends(size_t *n);

/* A sponge takes its permutation when initialised. */
typedef struct kpqc_keccak {
    uint64_t s[25];
    unsigned pos;       /* byte position inside the current block */
    unsigned rate;      /* bytes */
    uint8_t dsep;       /* domain separation + first padding bit */
    uint8_t squeezing;
    void (*f1600)(uint64_t s[25]);
} kpqc_keccak;

/* One permutation on the current level's kernels. */
void kpqc_keccak_f1600(uint64_t s[25]);

void kpqc_keccak_init(kpqc_keccak *k, unsigned rate, uint8_t dsep);
void kpqc_keccak_absorb(kpqc_keccak *k, const uint8_t *in, size_t len);
void kpqc_keccak_squeeze(kpqc_keccak *k, uint8_t *out, size_t len);
/*
 * Absorb ina into a and inb into b, two sponges of the same rate in the
 * absorbing phase: the same states as two kpqc_keccak_absorb calls, but
 * wherever both need a permutation they take it together in one four-way
 * call (two instances idle).  On the vector paths that costs about one
 * permutation (AVX-512) or three quarters of two (AVX2); elsewhere the two
 * are simply absorbed one after the other.
 */
void kpqc_keccak_absorb_pair(kpqc_keccak *a, const uint8_t *ina, size_t lena,
                             kpqc_keccak *b, const uint8_t *inb, size_t lenb);
/* Squeeze whole blocks (rate bytes each) as the references' squeezeblocks. */
void kpqc_keccak_squeezeblocks(kpqc_keccak *k, uint8_t *out, size_t nblocks);
void kpqc_keccak_wipe(kpqc_keccak *k);

static inline void kpqc_shake128_init(kpqc_keccak *k) { kpqc_keccak_init(k, KPQC_SHAKE128_RATE, 0x1f); }
static inline void kpqc_shake256_init(kpqc_keccak *k) { kpqc_keccak_init(k, KPQC_SHAKE256_RATE, 0x1f); }
static inline void kpqc_sha3_256_init(kpqc_keccak *k) { kpqc_keccak_init(k, KPQC_SHA3_256_RATE, 0x06); }
static inline void kpqc_sha3_512_init(kpqc_keccak *k) { kpqc_keccak_init(k, KPQC_SHA3_512_RATE, 0x06); }

void kpqc_shake128(uint8_t *out, size_t outlen, const uint8_t *in, size_t inlen);
void kpqc_shake256(uint8_t *out, size_t outlen, const uint8_t *in, size_t inlen);
void kpqc_sha3_256(uint8_t out[32], const uint8_t *in, size_t inlen);
void kpqc_sha3_512(uint8_t out[64], const uint8_t *in, size_t inlen);

/*
 * Four independent instances side by side (AVX2 when available, else four
 * scalar permutations).  All four absorb inputs of the same length.
 */
typedef struct kpqc_keccakx4 {
    uint64_t s[25][4]; /* lane-interleaved: s[lane][instance] */
    unsigned rate;
    uint8_t dsep;
    void (*f1600x4)(uint64_t s[25][4]); /* taken by absorb_once */
    void (*store_lanes)(uint8_t *const out[4], const uint64_t s[25][4], unsigned n); /* likewise */
} kpqc_keccakx4;

void kpqc_keccakx4_f1600(uint64_t s[25][4]);
/* One-shot absorb of four equal-length inputs, with padding. */
void kpqc_keccakx4_absorb_once(kpqc_keccakx4 *k, unsigned rate, uint8_t dsep,
                               const uint8_t *in0, const uint8_t *in1,
                               const uint8_t *in2, const uint8_t *in3, size_t len);
void kpqc_keccakx4_squeezeblocks(kpqc_keccakx4 *k, uint8_t *out0, uint8_t *out1,
                                 uint8_t *out2, uint8_t *out3, size_t nblocks);
void kpqc_shake128x4(uint8_t *out0, uint8_t *out1, uint8_t *out2, uint8_t *out3, size_t outlen,
                     const uint8_t *in0, const uint8_t *in1, const uint8_t *in2,
                     const uint8_t *in3, size_t inlen);
void kpqc_shake256x4(uint8_t *out0, uint8_t *out1, uint8_t *out2, uint8_t *out3, size_t outlen,
                     const uint8_t *in0, const uint8_t *in1, const uint8_t *in2,
                     const uint8_t *in3, size_t inlen);

/*
 * Eight independent instances side by side (AVX-512 when available, else
 * two four-way permutations: in place on AVX2, copied out elsewhere).  All
 * eight absorb inputs of the same length and squeeze outputs of the same
 * length.
 */
typedef struct kpqc_keccakx8 {
    uint64_t s[25][8]; /* lane-interleaved: s[lane][instance] */
    unsigned rate;
    const kpqc_keccakx8_backend *be; /* taken by absorb_once */
} kpqc_keccakx8;

void kpqc_keccakx8_f1600(uint64_t s[25][8]);
/* One-shot absorb of eight equal-length inputs, with padding; then whole
 * blocks of output. */
void kpqc_keccakx8_absorb_once(kpqc_keccakx8 *k, unsigned rate, uint8_t dsep, const uint8_t *const in[8], size_t len);
void kpqc_keccakx8_squeezeblocks(kpqc_keccakx8 *k, uint8_t *const out[8], size_t nblocks);
void kpqc_shake128x8(uint8_t *const out[8], size_t outlen, const uint8_t *const in[8], size_t inlen);
void kpqc_shake256x8(uint8_t *const out[8], size_t outlen, const uint8_t *const in[8], size_t inlen);

#endif
