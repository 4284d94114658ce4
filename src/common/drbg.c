/*
 * The NIST SP 800-90A AES-256-CTR-DRBG without derivation function, exactly
 * as the NIST PQC KAT harness (rng.c of the submission packages) uses it:
 * seeding from a 48-byte entropy input, no reseeding, no additional input.
 * It exists to replay Known Answer Tests; it is not the library's source of
 * randomness (that is the caller's kpqc_rng or the OS).
 *
 * The AES here is a plain byte-oriented implementation with an S-box table:
 * the KAT inputs are public, so table look-ups leak nothing of value.
 */
#include <string.h>

#include <kpqc/drbg.h>

#include "ct.h"

static const uint8_t sbox[256] = {
    0x63, 0x7c, 0x77, 0x7b, 0xf2, 0x6b, 0x6f, 0xc5, 0x30, 0x01, 0x67, 0x2b, 0xfe, 0xd7, 0xab, 0x76,
    0xca, 0x82, 0xc9, 0x7d, 0xfa, 0x59, 0x47, 0xf0, 0xad, 0xd4, 0xa2, 0xaf, 0x9c, 0xa4, 0x72, 0xc0,
    0xb7, 0xfd, 0x93, 0x26, 0x36, 0x3f, 0xf7, 0xcc, 0x34, 0xa5, 0xe5, 0xf1, 0x71, 0xd8, 0x31, 0x15,
    0x04, 0xc7, 0x23, 0xc3, 0x18, 0x96, 0x05, 0x9a, 0x07, 0x12, 0x80, 0xe2, 0xeb, 0x27, 0xb2, 0x75,
    0x09, 0x83, 0x2c, 0x1a, 0x1b, 0x6e, 0x5a, 0xa0, 0x52, 0x3b, 0xd6, 0xb3, 0x29, 0xe3, 0x2f, 0x84,
    0x53, 0xd1, 0x00, 0xed, 0x20, 0xfc, 0xb1, 0x5b, 0x6a, 0xcb, 0xbe, 0x39, 0x4a, 0x4c, 0x58, 0xcf,
    0xd0, 0xef, 0xaa, 0xfb, 0x43, 0x4d, 0x33, 0x85, 0x45, 0xf9, 0x02, 0x7f, 0x50, 0x3c, 0x9f, 0xa8,
    0x51, 0xa3, 0x40, 0x8f, 0x92, 0x9d, 0x38, 0xf5, 0xbc, 0xb6, 0xda, 0x21, 0x10, 0xff, 0xf3, 0xd2,
    0xcd, 0x0c, 0x13, 0xec, 0x5f, 0x97, 0x44, 0x17, 0xc4, 0xa7, 0x7e, 0x3d, 0x64, 0x5d, 0x19, 0x73,
    0x60, 0x81, 0x4f, 0xdc, 0x22, 0x2a, 0x90, 0x88, 0x46, 0xee, 0xb8, 0x14, 0xde, 0x5e, 0x0b, 0xdb,
    0xe0, 0x32, 0x3a, 0x0a, 0x49, 0x06, 0x24, 0x5c, 0xc2, 0xd3, 0xac, 0x62, 0x91, 0x95, 0xe4, 0x79,
    0xe7, 0xc8, 0x37, 0x6d, 0x8d, 0xd5, 0x4e, 0xa9, 0x6c, 0x56, 0xf4, 0xea, 0x65, 0x7a, 0xae, 0x08,
    0xba, 0x78, 0x25, 0x2e, 0x1c, 0xa6, 0xb4, 0xc6, 0xe8, 0xdd, 0x74, 0x1f, 0x4b, 0xbd, 0x8b, 0x8a,
    0x70, 0x3e, 0xb5, 0x66, 0x48, 0x03, 0xf6, 0x0e, 0x61, 0x35, 0x57, 0xb9, 0x86, 0xc1, 0x1d, 0x9e,
    0xe1, 0xf8, 0x98, 0x11, 0x69, 0xd9, 0x8e, 0x94, 0x9b, 0x1e, 0x87, 0xe9, 0xce, 0x55, 0x28, 0xdf,
    0x8c, 0xa1, 0x89, 0x0d, 0xbf, 0xe6, 0x42, 0x68, 0x41, 0x99, 0x2d, 0x0f, 0xb0, 0x54, 0xbb, 0x16,
};

static uint8_t xtime(uint8_t x) { return (uint8_t)((x << 1) ^ (0x1b & (0u - (x >> 7)))); }

/* FIPS 197 key expansion for AES-256: 15 round keys of 16 bytes. */
static void aes256_expand(uint8_t rk[240], const uint8_t key[32]) {
    uint8_t rcon = 1;
    memcpy(rk, key, 32);
    for (unsigned i = 8; i < 60; i++) {
        uint8_t t[4];
        memcpy(t, rk + 4 * (i - 1), 4);
        if (i % 8 == 0) {
            uint8_t first = t[0];
            t[0] = (uint8_t)(sbox[t[1]] ^ rcon);
            t[1] = sbox[t[2]];
            t[2] = sbox[t[3]];
            t[3] = sbox[first];
            rcon = xtime(rcon);
        } else if (i % 8 == 4) {
            for (unsigned j = 0; j < 4; j++) t[j] = sbox[t[j]];
        }
        for (unsigned j = 0; j < 4; j++) rk[4 * i + j] = (uint8_t)(rk[4 * (i - 8) + j] ^ t[j]);
    }
}

static void aes256_encrypt(uint8_t out[16], const uint8_t in[16], const uint8_t rk[240]) {
    uint8_t s[16];
    for (unsigned i = 0; i < 16; i++) s[i] = in[i] ^ rk[i];
    for (unsigned round = 1; round <= 14; round++) {
        uint8_t t[16];
        /* SubBytes and ShiftRows together: column c row r takes column c+r. */
        for (unsigned c = 0; c < 4; c++)
            for (unsigned r = 0; r < 4; r++) t[4 * c + r] = sbox[s[4 * ((c + r) % 4) + r]];
        if (round != 14) {
            for (unsigned c = 0; c < 4; c++) {
                uint8_t *col = t + 4 * c;
                uint8_t all = col[0] ^ col[1] ^ col[2] ^ col[3], first = col[0];
                col[0] ^= all ^ xtime(col[0] ^ col[1]);
                col[1] ^= all ^ xtime(col[1] ^ col[2]);
                col[2] ^= all ^ xtime(col[2] ^ col[3]);
                col[3] ^= all ^ xtime(col[3] ^ first);
            }
        }
        for (unsigned i = 0; i < 16; i++) s[i] = t[i] ^ rk[16 * round + i];
    }
    memcpy(out, s, 16);
}

static void increment_v(uint8_t v[16]) {
    for (int i = 15; i >= 0; i--) {
        if (++v[i] != 0) break;
    }
}

/* CTR_DRBG_Update: key || V <- AES_key(V+1) || AES_key(V+2) || AES_key(V+3), xor data. */
static void drbg_update(kpqc_nist_drbg *d, const uint8_t *data48) {
    uint8_t rk[240], temp[48];
    aes256_expand(rk, d->key);
    for (unsigned i = 0; i < 3; i++) {
        increment_v(d->v);
        aes256_encrypt(temp + 16 * i, d->v, rk);
    }
    if (data48 != NULL)
        for (unsigned i = 0; i < 48; i++) temp[i] ^= data48[i];
    memcpy(d->key, temp, 32);
    memcpy(d->v, temp + 32, 16);
    kpqc_wipe(rk, sizeof rk);
    kpqc_wipe(temp, sizeof temp);
}

void kpqc_nist_drbg_init(kpqc_nist_drbg *d, const uint8_t entropy[48],
                         const uint8_t *personalization48) {
    uint8_t seed[48];
    memcpy(seed, entropy, 48);
    if (personalization48 != NULL)
        for (unsigned i = 0; i < 48; i++) seed[i] ^= personalization48[i];
    memset(d->key, 0, sizeof d->key);
    memset(d->v, 0, sizeof d->v);
    drbg_update(d, seed);
    d->reseed_counter = 1;
    kpqc_wipe(seed, sizeof seed);
}

int kpqc_nist_drbg_fill(void *ctx, uint8_t *out, size_t len) {
    kpqc_nist_drbg *d = ctx;
    uint8_t rk[240], block[16];
    aes256_expand(rk, d->key);
    while (len > 0) {
        increment_v(d->v);
        aes256_encrypt(block, d->v, rk);
        size_t n = len < 16 ? len : 16;
        memcpy(out, block, n);
        out += n;
        len -= n;
    }
    drbg_update(d, NULL);
    d->reseed_counter++;
    kpqc_wipe(rk, sizeof rk);
    kpqc_wipe(block, sizeof block);
    return 0;
}

kpqc_rng kpqc_nist_drbg_rng(kpqc_nist_drbg *d) {
    kpqc_rng rng = {kpqc_nist_drbg_fill, d};
    return rng;
}
