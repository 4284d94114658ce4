/*
 * Sampling of the public matrix, the secret key and the challenge, and the
 * bit packings of polynomials.
 */
#include <string.h>

#include "common/ct.h"
#include "common/keccak.h"
#include "haetae.h"

static void stream_init(kpqc_keccak *st, int shake256, const uint8_t *seed, size_t seedlen,
                        uint16_t nonce) {
    uint8_t t[2] = {(uint8_t)nonce, (uint8_t)(nonce >> 8)};
    if (shake256)
        kpqc_shake256_init(st);
    else
        kpqc_shake128_init(st);
    kpqc_keccak_absorb(st, seed, seedlen);
    kpqc_keccak_absorb(st, t, 2);
}

/* Coefficients in [0, q) by rejection of 16-bit little-endian words of
 * SHAKE128(seed || nonce).  The seed is public. */
void haetae_poly_uniform(hpoly *a, const uint8_t seed[HAETAE_SEEDBYTES], uint16_t nonce) {
    kpqc_keccak st;
    uint8_t buf[4 * KPQC_SHAKE128_RATE];
    size_t len = sizeof buf, pos = 0;
    unsigned ctr = 0;
    stream_init(&st, 0, seed, HAETAE_SEEDBYTES, nonce);
    kpqc_keccak_squeezeblocks(&st, buf, 4);
    while (ctr < HAETAE_N) {
        if (pos + 2 > len) { /* the rate is even: no byte is left over */
            kpqc_keccak_squeezeblocks(&st, buf, 1);
            len = KPQC_SHAKE128_RATE;
            pos = 0;
        }
        uint32_t t = buf[pos] | (uint32_t)buf[pos + 1] << 8;
        pos += 2;
        if (t < HAETAE_Q) a->c[ctr++] = (int32_t)t;
    }
}

/*
 * Coefficients in {-1, 0, 1}: every byte below 3^5 = 243 of
 * SHAKE256(seed || nonce) gives five base-3 digits (digit 2 stands for -1).
 * The seed is secret, so the accepted bytes are gathered by an oblivious
 * compaction; only whether a window of bytes held enough of them is made
 * public (the first 64 bytes almost always do; a block practically always).
 */
#define ETA_BYTES_NEEDED ((HAETAE_N + 4) / 5)
#define ETA_WINDOW 64
void haetae_poly_eta(hpoly *a, const uint8_t seed[HAETAE_CRHBYTES], uint16_t nonce) {
    kpqc_keccak st;
    uint64_t val[ETA_BYTES_NEEDED + KPQC_SHAKE256_RATE];
    uint8_t keep[ETA_BYTES_NEEDED + KPQC_SHAKE256_RATE];
    uint8_t block[KPQC_SHAKE256_RATE];
    size_t n = 0;
    stream_init(&st, 1, seed, HAETAE_CRHBYTES, nonce);
    for (;;) {
        kpqc_keccak_squeezeblocks(&st, block, 1);
        uint32_t count = 0, count_window = 0;
        for (size_t i = 0; i < n; i++) count += keep[i];
        for (size_t i = 0; i < KPQC_SHAKE256_RATE; i++) {
            val[n + i] = block[i];
            keep[n + i] = (uint8_t)(((uint32_t)block[i] - 243) >> 31);
            count += keep[n + i];
            if (n + i == ETA_WINDOW - 1) count_window = count;
        }
        if (n == 0) {
            uint32_t window_enough = (uint32_t)(ETA_BYTES_NEEDED - 1 - (int32_t)count_window) >> 31;
            KPQC_CT_DECLASSIFY(&window_enough, sizeof window_enough);
            if (window_enough) {
                haetae_ct_compact(val, keep, ETA_WINDOW);
                break;
            }
        }
        n += KPQC_SHAKE256_RATE;
        haetae_ct_compact(val, keep, n);
        uint32_t enough = (uint32_t)(ETA_BYTES_NEEDED - 1 - (int32_t)count) >> 31;
        KPQC_CT_DECLASSIFY(&enough, sizeof enough);
        if (enough) break;
        n = ETA_BYTES_NEEDED; /* the accepted bytes are all in front */
    }
    for (unsigned i = 0; i < HAETAE_N; i += 5) {
        uint32_t t = (uint32_t)val[i / 5];
        for (unsigned d = 0; d < 5 && i + d < HAETAE_N; d++) {
            uint32_t t3 = (t * 171) >> 9; /* t / 3 for t < 243 */
            int32_t digit = (int32_t)(t - 3 * t3);
            a->c[i + d] = digit - 3 * (digit >> 1);
            t = t3;
        }
    }
    kpqc_wipe(val, sizeof val);
    kpqc_wipe(block, sizeof block);
    kpqc_keccak_wipe(&st);
}

size_t haetae_challenge_input_bytes(const struct haetae_params *p) {
    return p->k * HAETAE_HIGHBITS_BYTES + HAETAE_N / 8;
}

/*
 * The challenge: a polynomial with coefficients in {0, 1} drawn from
 * SHAKE256(highbits || lsb || mu).  Modes 2 and 3 place tau ones by an
 * inside-out shuffle; mode 5 takes 256 hash bits and complements them when
 * more than half are set (ties broken by the first bit), giving weight
 * at most 128.  The hash output is declassified: it is the challenge of a
 * Fiat-Shamir transcript, published with the signature.
 */
void haetae_challenge(const struct haetae_params *p, hpoly *c, const uint8_t *hb_lsb,
                      const uint8_t mu[HAETAE_SEEDBYTES]) {
    kpqc_keccak st;
    kpqc_shake256_init(&st);
    kpqc_keccak_absorb(&st, hb_lsb, haetae_challenge_input_bytes(p));
    kpqc_keccak_absorb(&st, mu, HAETAE_SEEDBYTES);
    if (p->tau < 128) {
        uint8_t buf[KPQC_SHAKE256_RATE];
        unsigned pos = 0;
        kpqc_keccak_squeezeblocks(&st, buf, 1);
        KPQC_CT_DECLASSIFY(buf, sizeof buf);
        memset(c, 0, sizeof *c);
        for (unsigned i = HAETAE_N - p->tau; i < HAETAE_N; i++) {
            unsigned b;
            do {
                if (pos >= sizeof buf) {
                    kpqc_keccak_squeezeblocks(&st, buf, 1);
                    KPQC_CT_DECLASSIFY(buf, sizeof buf);
                    pos = 0;
                }
                b = buf[pos++];
            } while (b > i);
            c->c[i] = c->c[b];
            c->c[b] = 1;
        }
    } else {
        uint8_t buf[HAETAE_N / 8];
        unsigned weight = 0;
        kpqc_keccak_squeeze(&st, buf, sizeof buf);
        KPQC_CT_DECLASSIFY(buf, sizeof buf);
        for (unsigned i = 0; i < sizeof buf; i++)
            for (unsigned j = 0; j < 8; j++) weight += (buf[i] >> j) & 1;
        uint8_t flip = (weight > 128 || (weight == 128 && (buf[0] & 1))) ? 0xff : 0;
        for (unsigned i = 0; i < HAETAE_N; i++) c->c[i] = ((buf[i / 8] ^ flip) >> (i % 8)) & 1;
    }
}

/* High bits with respect to alpha_h of r in [0, 2q): round(r / alpha_h),
 * with the top value (2q - 2) / alpha_h wrapped to 0. */
int32_t haetae_highbits_hint(const struct haetae_params *p, int32_t r) {
    int32_t top = (HAETAE_DQ - 2) >> p->alpha_hint_bits;
    int32_t hb = (r + (1 << (p->alpha_hint_bits - 1))) >> p->alpha_hint_bits;
    hb -= top & ~((hb - top) >> 31); /* hb >= top -> 0 */
    return hb;
}

/* Modes 2, 3: one byte per coefficient, rest of the 288-byte slot zero;
 * mode 5: 9 bits per coefficient, little-endian. */
void haetae_pack_highbits(const struct haetae_params *p, uint8_t *buf, const hpoly *w) {
    memset(buf, 0, HAETAE_HIGHBITS_BYTES);
    if (p->alpha_hint_bits == 9) {
        for (unsigned i = 0; i < HAETAE_N; i++) buf[i] = (uint8_t)w->c[i];
        return;
    }
    for (unsigned i = 0; i < HAETAE_N; i++) {
        uint32_t v = (uint32_t)w->c[i] & 0x1ff;
        unsigned bit = 9 * i;
        buf[bit / 8] |= (uint8_t)(v << (bit % 8));
        buf[bit / 8 + 1] |= (uint8_t)(v >> (8 - bit % 8));
    }
}

void haetae_pack_lsb(uint8_t buf[HAETAE_N / 8], const hpoly *a) {
    memset(buf, 0, HAETAE_N / 8);
    for (unsigned i = 0; i < HAETAE_N; i++) buf[i / 8] |= (uint8_t)((a->c[i] & 1) << (i % 8));
}

/* Public-key polynomials: 15 bits each (modes 2, 3) or 16 bits (mode 5). */
void haetae_pack_q(const struct haetae_params *p, uint8_t *r, const hpoly *a) {
    unsigned bits = p->pk_in_ntt ? 16 : 15;
    memset(r, 0, p->polyq_bytes);
    for (unsigned i = 0; i < HAETAE_N; i++) {
        uint32_t v = (uint32_t)a->c[i];
        unsigned bit = bits * i;
        for (unsigned j = 0; j < bits; j++, bit++) r[bit / 8] |= (uint8_t)(((v >> j) & 1) << (bit % 8));
    }
}

void haetae_unpack_q(const struct haetae_params *p, hpoly *a, const uint8_t *r) {
    unsigned bits = p->pk_in_ntt ? 16 : 15;
    for (unsigned i = 0; i < HAETAE_N; i++) {
        unsigned bit = bits * i;
        uint32_t w = r[bit / 8] | (uint32_t)r[bit / 8 + 1] << 8;
        if (bit / 8 + 2 < p->polyq_bytes) w |= (uint32_t)r[bit / 8 + 2] << 16;
        a->c[i] = (int32_t)((w >> (bit % 8)) & ((1u << bits) - 1));
    }
}

/* Coefficients in [-1, 1] as 1 - x in two bits. */
void haetae_pack_eta(uint8_t r[HAETAE_N / 4], const hpoly *a) {
    for (unsigned i = 0; i < HAETAE_N / 4; i++) {
        r[i] = 0;
        for (unsigned j = 0; j < 4; j++) r[i] |= (uint8_t)(((1 - a->c[4 * i + j]) & 3) << (2 * j));
    }
}

void haetae_unpack_eta(hpoly *a, const uint8_t r[HAETAE_N / 4]) {
    for (unsigned i = 0; i < HAETAE_N; i++) a->c[i] = 1 - ((r[i / 4] >> (2 * (i % 4))) & 3);
}

/* Coefficients in [-2, 2] as 2 - x in three bits. */
void haetae_pack_2eta(uint8_t r[HAETAE_N * 3 / 8], const hpoly *a) {
    memset(r, 0, HAETAE_N * 3 / 8);
    for (unsigned i = 0; i < HAETAE_N; i++) {
        uint32_t v = (uint32_t)(2 - a->c[i]) & 7;
        unsigned bit = 3 * i;
        r[bit / 8] |= (uint8_t)(v << (bit % 8));
        if (bit % 8 > 5) r[bit / 8 + 1] |= (uint8_t)(v >> (8 - bit % 8));
    }
}

void haetae_unpack_2eta(hpoly *a, const uint8_t r[HAETAE_N * 3 / 8]) {
    for (unsigned i = 0; i < HAETAE_N; i++) {
        unsigned bit = 3 * i;
        uint32_t w = r[bit / 8];
        if (bit / 8 + 1 < HAETAE_N * 3 / 8) w |= (uint32_t)r[bit / 8 + 1] << 8;
        a->c[i] = 2 - (int32_t)((w >> (bit % 8)) & 7);
    }
}
