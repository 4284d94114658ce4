/* Serialisation of ring elements and secrets. */
#include "common/ct.h"
#include "smaugt.h"

/* Coefficient i occupies bits [bits*i, bits*(i+1)) of a little-endian string. */
void kpqc_smaugt_pack_bits(uint8_t *out, const uint16_t v[SMAUGT_N], unsigned bits) {
    uint32_t acc = 0;
    unsigned have = 0, o = 0;
    for (unsigned i = 0; i < SMAUGT_N; i++) {
        acc |= (uint32_t)(v[i] & ((1u << bits) - 1)) << have;
        have += bits;
        while (have >= 8) {
            out[o++] = (uint8_t)acc;
            acc >>= 8;
            have -= 8;
        }
    }
}

void kpqc_smaugt_unpack_bits(uint16_t v[SMAUGT_N], const uint8_t *in, unsigned bits) {
    uint32_t acc = 0;
    unsigned have = 0, o = 0;
    for (unsigned i = 0; i < SMAUGT_N; i++) {
        while (have < bits) {
            acc |= (uint32_t)in[o++] << have;
            have += 8;
        }
        v[i] = (uint16_t)(acc & ((1u << bits) - 1));
        acc >>= bits;
        have -= bits;
    }
}

void kpqc_smaugt_unpack_top(uint16_t v[SMAUGT_N], const uint8_t *in, unsigned bits) {
    kpqc_smaugt_unpack_bits(v, in, bits);
    for (unsigned i = 0; i < SMAUGT_N; i++) v[i] = (uint16_t)(v[i] << (16 - bits));
}

void kpqc_smaugt_pack_round(uint8_t *out, const uint16_t v[SMAUGT_N], unsigned bits) {
    uint16_t r[SMAUGT_N];
    for (unsigned i = 0; i < SMAUGT_N; i++) r[i] = (uint16_t)(((uint32_t)v[i] + (1u << (15 - bits))) >> (16 - bits));
    kpqc_smaugt_pack_bits(out, r, bits); /* keeps the low `bits` of each */
    kpqc_wipe(r, sizeof r);
}

/* A ternary coefficient s is stored as the two bits of 1 - s (0, 1 or 2). */
void kpqc_smaugt_pack_secret(uint8_t out[SMAUGT_SKPOLY_BYTES], const int16_t s[SMAUGT_N]) {
    for (unsigned i = 0; i < SMAUGT_SKPOLY_BYTES; i++) {
        unsigned b = 0;
        for (unsigned j = 0; j < 4; j++) b |= ((unsigned)(1 - s[4 * i + j]) & 3u) << (2 * j);
        out[i] = (uint8_t)b;
    }
}

void kpqc_smaugt_unpack_secret(int16_t s[SMAUGT_N], const uint8_t in[SMAUGT_SKPOLY_BYTES]) {
    for (unsigned i = 0; i < SMAUGT_SKPOLY_BYTES; i++)
        for (unsigned j = 0; j < 4; j++) s[4 * i + j] = (int16_t)(1 - ((in[i] >> (2 * j)) & 3));
}
