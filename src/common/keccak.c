/* Keccak-f[1600] (FIPS 202) and the sponge on top of it. */
#include "keccak.h"

#include <string.h>

#include "ct.h"

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

void kpqc_keccak_f1600(uint64_t s[25]) {
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

static inline void xor_byte(uint64_t s[25], unsigned pos, uint8_t v) {
    s[pos >> 3] ^= (uint64_t)v << (8 * (pos & 7));
}

static inline uint64_t load64_le(const uint8_t *p) {
    uint64_t v = 0;
    for (unsigned i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static inline void store64_le(uint8_t *p, uint64_t v) {
    for (unsigned i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

void kpqc_keccak_init(kpqc_keccak *k, unsigned rate, uint8_t dsep) {
    memset(k->s, 0, sizeof k->s);
    k->pos = 0;
    k->rate = rate;
    k->dsep = dsep;
    k->squeezing = 0;
}

void kpqc_keccak_absorb(kpqc_keccak *k, const uint8_t *in, size_t len) {
    /* Finish a partial block byte by byte, then take whole lanes. */
    while (len > 0 && (k->pos & 7) != 0) {
        xor_byte(k->s, k->pos++, *in++);
        len--;
        if (k->pos == k->rate) { kpqc_keccak_f1600(k->s); k->pos = 0; }
    }
    while (len >= 8) {
        k->s[k->pos >> 3] ^= load64_le(in);
        k->pos += 8;
        in += 8;
        len -= 8;
        if (k->pos == k->rate) { kpqc_keccak_f1600(k->s); k->pos = 0; }
    }
    while (len > 0) {
        xor_byte(k->s, k->pos++, *in++);
        len--;
        if (k->pos == k->rate) { kpqc_keccak_f1600(k->s); k->pos = 0; }
    }
}

static void finalize(kpqc_keccak *k) {
    xor_byte(k->s, k->pos, k->dsep);
    xor_byte(k->s, k->rate - 1, 0x80);
    kpqc_keccak_f1600(k->s);
    k->pos = 0;
    k->squeezing = 1;
}

void kpqc_keccak_squeeze(kpqc_keccak *k, uint8_t *out, size_t len) {
    if (!k->squeezing) finalize(k);
    while (len > 0) {
        if (k->pos == k->rate) { kpqc_keccak_f1600(k->s); k->pos = 0; }
        if ((k->pos & 7) == 0 && len >= 8) {
            store64_le(out, k->s[k->pos >> 3]);
            out += 8; len -= 8; k->pos += 8;
        } else {
            *out++ = (uint8_t)(k->s[k->pos >> 3] >> (8 * (k->pos & 7)));
            len--; k->pos++;
        }
    }
}

void kpqc_keccak_squeezeblocks(kpqc_keccak *k, uint8_t *out, size_t nblocks) {
    kpqc_keccak_squeeze(k, out, nblocks * k->rate);
}

void kpqc_keccak_wipe(kpqc_keccak *k) { kpqc_wipe(k, sizeof *k); }

static void oneshot(unsigned rate, uint8_t dsep, uint8_t *out, size_t outlen,
                    const uint8_t *in, size_t inlen) {
    kpqc_keccak k;
    kpqc_keccak_init(&k, rate, dsep);
    kpqc_keccak_absorb(&k, in, inlen);
    kpqc_keccak_squeeze(&k, out, outlen);
    kpqc_keccak_wipe(&k);
}

void kpqc_shake128(uint8_t *out, size_t outlen, const uint8_t *in, size_t inlen) {
    oneshot(KPQC_SHAKE128_RATE, 0x1f, out, outlen, in, inlen);
}
void kpqc_shake256(uint8_t *out, size_t outlen, const uint8_t *in, size_t inlen) {
    oneshot(KPQC_SHAKE256_RATE, 0x1f, out, outlen, in, inlen);
}
void kpqc_sha3_256(uint8_t out[32], const uint8_t *in, size_t inlen) {
    oneshot(KPQC_SHA3_256_RATE, 0x06, out, 32, in, inlen);
}
void kpqc_sha3_512(uint8_t out[64], const uint8_t *in, size_t inlen) {
    oneshot(KPQC_SHA3_512_RATE, 0x06, out, 64, in, inlen);
}
