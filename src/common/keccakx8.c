/*
 * Eight Keccak instances in lock-step, lane-interleaved (s[lane][instance])
 * so that one AVX-512 register holds one lane of all eight.  Without
 * AVX-512 the permutation runs as two four-way ones, so callers can batch
 * by eight on every path.
 */
#include <string.h>

#include "ct.h"
#include "keccak.h"

/* Two four-way permutations on the level's four-way kernels. */
static void f1600x8_by_four(uint64_t s[25][8]) {
    const kpqc_keccakx4_backend *x4 = kpqc_keccakx4_select_backend();
    for (unsigned h = 0; h < 8; h += 4) {
        uint64_t q[25][4];
        for (unsigned i = 0; i < 25; i++) memcpy(q[i], &s[i][h], sizeof q[i]);
        x4->f1600x4(q);
        for (unsigned i = 0; i < 25; i++) memcpy(&s[i][h], q[i], sizeof q[i]);
        kpqc_wipe(q, sizeof q);
    }
}

/* Named "portable" as the fallback of every level without eight-way
 * kernels; the four-way kernels it calls are the level's own. */
const kpqc_keccakx8_backend kpqc_keccakx8_backend_portable = {{"portable", 0}, f1600x8_by_four};

static const kpqc_backend_info *const candidates[] = {
#ifdef KPQC_ISA_AVX512
    &kpqc_keccakx8_backend_avx512.info,
#endif
    &kpqc_keccakx8_backend_portable.info,
};
KPQC_BACKEND_CHOICE(kpqc_keccakx8_backend, kpqc_keccakx8_select_backend, kpqc_keccakx8_backends, candidates)

void kpqc_keccakx8_f1600(uint64_t s[25][8]) { kpqc_keccakx8_select_backend()->f1600x8(s); }

/* XOR len < rate bytes of each input at byte offset 0, then the padding. */
static void absorb_last(uint64_t s[25][8], unsigned rate, uint8_t dsep,
                        const uint8_t *const in[8], size_t off, size_t len) {
    for (unsigned j = 0; j < 8; j++) {
        const uint8_t *p = in[j] + off;
        size_t i = 0;
        for (; i + 8 <= len; i += 8) s[i / 8][j] ^= kpqc_load64_le(p + i);
        for (; i < len; i++) s[i / 8][j] ^= (uint64_t)p[i] << (8 * (i % 8));
        s[len / 8][j] ^= (uint64_t)dsep << (8 * (len % 8));
        s[(rate - 1) / 8][j] ^= (uint64_t)0x80 << (8 * ((rate - 1) % 8));
    }
}

static void shakex8(unsigned rate, uint8_t *const out[8], size_t outlen,
                    const uint8_t *const in[8], size_t inlen) {
    const kpqc_keccakx8_backend *be = kpqc_keccakx8_select_backend();
    uint64_t s[25][8];
    memset(s, 0, sizeof s);
    size_t off = 0;
    for (; inlen - off >= rate; off += rate) {
        for (unsigned j = 0; j < 8; j++)
            for (unsigned i = 0; i < rate / 8; i++) s[i][j] ^= kpqc_load64_le(in[j] + off + 8 * i);
        be->f1600x8(s);
    }
    absorb_last(s, rate, 0x1f, in, off, inlen - off);
    for (size_t done = 0; done < outlen; done += rate) {
        be->f1600x8(s);
        size_t n = outlen - done < rate ? outlen - done : rate;
        for (unsigned j = 0; j < 8; j++) {
            uint8_t *p = out[j] + done;
            size_t i = 0;
            for (; i + 8 <= n; i += 8) kpqc_store64_le(p + i, s[i / 8][j]);
            for (; i < n; i++) p[i] = (uint8_t)(s[i / 8][j] >> (8 * (i % 8)));
        }
    }
    kpqc_wipe(s, sizeof s);
}

void kpqc_shake128x8(uint8_t *const out[8], size_t outlen, const uint8_t *const in[8], size_t inlen) {
    shakex8(KPQC_SHAKE128_RATE, out, outlen, in, inlen);
}

void kpqc_shake256x8(uint8_t *const out[8], size_t outlen, const uint8_t *const in[8], size_t inlen) {
    shakex8(KPQC_SHAKE256_RATE, out, outlen, in, inlen);
}
