/* Keccak-f[1600] (FIPS 202) and the sponge on top of it. */
#include "keccak.h"

#include <string.h>

#include "ct.h"
#include "keccak_f1600.h"

static void f1600_portable(uint64_t s[25]) { keccak_f1600_permute(s); }

const kpqc_keccak_backend kpqc_keccak_backend_portable = {{"portable", 0}, f1600_portable};

static const kpqc_backend_info *const candidates[] = {
#ifdef KPQC_ISA_AVX512
    &kpqc_keccak_backend_avx512.info,
#endif
#ifdef KPQC_ISA_AVX2
    &kpqc_keccak_backend_avx2.info,
#endif
    &kpqc_keccak_backend_portable.info,
};
KPQC_BACKEND_CHOICE(kpqc_keccak_backend, kpqc_keccak_select_backend, kpqc_keccak_backends, candidates)

void kpqc_keccak_f1600(uint64_t s[25]) { kpqc_keccak_select_backend()->f1600(s); }

static inline void xor_byte(uint64_t s[25], unsigned pos, uint8_t v) {
    s[pos >> 3] ^= (uint64_t)v << (8 * (pos & 7));
}

void kpqc_keccak_init(kpqc_keccak *k, unsigned rate, uint8_t dsep) {
    memset(k->s, 0, sizeof k->s);
    k->pos = 0;
    k->rate = rate;
    k->dsep = dsep;
    k->squeezing = 0;
    k->f1600 = kpqc_keccak_select_backend()->f1600;
}

void kpqc_keccak_absorb(kpqc_keccak *k, const uint8_t *in, size_t len) {
    /* Finish a partial block byte by byte, then take whole lanes. */
    while (len > 0 && (k->pos & 7) != 0) {
        xor_byte(k->s, k->pos++, *in++);
        len--;
        if (k->pos == k->rate) { k->f1600(k->s); k->pos = 0; }
    }
    while (len >= 8) {
        k->s[k->pos >> 3] ^= kpqc_load64_le(in);
        k->pos += 8;
        in += 8;
        len -= 8;
        if (k->pos == k->rate) { k->f1600(k->s); k->pos = 0; }
    }
    while (len > 0) {
        xor_byte(k->s, k->pos++, *in++);
        len--;
        if (k->pos == k->rate) { k->f1600(k->s); k->pos = 0; }
    }
}

static void finalize(kpqc_keccak *k) {
    xor_byte(k->s, k->pos, k->dsep);
    xor_byte(k->s, k->rate - 1, 0x80);
    k->f1600(k->s);
    k->pos = 0;
    k->squeezing = 1;
}

void kpqc_keccak_squeeze(kpqc_keccak *k, uint8_t *out, size_t len) {
    if (!k->squeezing) finalize(k);
    while (len > 0) {
        if (k->pos == k->rate) { k->f1600(k->s); k->pos = 0; }
        if ((k->pos & 7) == 0 && len >= 8) {
            kpqc_store64_le(out, k->s[k->pos >> 3]);
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
