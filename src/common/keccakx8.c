/*
 * Eight Keccak instances in lock-step, lane-interleaved (s[lane][instance])
 * so that one AVX-512 register holds one lane of all eight.  Without
 * AVX-512 the permutation runs as two four-way ones (keccakx4_avx2.c on
 * the AVX2 path), so callers can batch by eight on every path.
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

static void store_lanes_portable(uint8_t *const out[8], const uint64_t s[25][8], unsigned n) {
    for (unsigned j = 0; j < 8; j++)
        for (unsigned i = 0; i < n; i++) kpqc_store64_le(out[j] + 8 * i, s[i][j]);
}

/* Named "portable" as the fallback of every level without eight-way
 * kernels; the four-way kernels it calls are the level's own. */
const kpqc_keccakx8_backend kpqc_keccakx8_backend_portable = {{"portable", 0}, f1600x8_by_four, store_lanes_portable, 0};

static const kpqc_backend_info *const candidates[] = {
#ifdef KPQC_ISA_AVX512
    &kpqc_keccakx8_backend_avx512.info,
#endif
#ifdef KPQC_ISA_AVX2
    &kpqc_keccakx8_backend_avx2.info,
#endif
    &kpqc_keccakx8_backend_portable.info,
};
KPQC_BACKEND_CHOICE(kpqc_keccakx8_backend, kpqc_keccakx8_select_backend, kpqc_keccakx8_backends, candidates)

void kpqc_keccakx8_f1600(uint64_t s[25][8]) { kpqc_keccakx8_select_backend()->f1600x8(s); }

void kpqc_keccakx8_absorb_once(kpqc_keccakx8 *k, unsigned rate, uint8_t dsep, const uint8_t *const in[8], size_t len) {
    memset(k->s, 0, sizeof k->s);
    k->rate = rate;
    k->be = kpqc_keccakx8_select_backend();
    size_t off = 0;
    for (; len - off >= rate; off += rate) {
        for (unsigned j = 0; j < 8; j++) kpqc_keccak_xor_instance(&k->s[0][0], 8, j, in[j] + off, rate);
        k->be->f1600x8(k->s);
    }
    for (unsigned j = 0; j < 8; j++) {
        kpqc_keccak_xor_instance(&k->s[0][0], 8, j, in[j] + off, len - off);
        kpqc_keccak_pad_instance(&k->s[0][0], 8, j, len - off, rate, dsep);
    }
}

void kpqc_keccakx8_squeezeblocks(kpqc_keccakx8 *k, uint8_t *const out[8], size_t nblocks) {
    for (size_t b = 0; b < nblocks; b++) {
        uint8_t *const at[8] = {out[0] + b * k->rate, out[1] + b * k->rate, out[2] + b * k->rate,
                                out[3] + b * k->rate, out[4] + b * k->rate, out[5] + b * k->rate,
                                out[6] + b * k->rate, out[7] + b * k->rate};
        k->be->f1600x8(k->s);
        k->be->store_lanes(at, k->s, k->rate / 8);
    }
}

static void shakex8(unsigned rate, uint8_t *const out[8], size_t outlen,
                    const uint8_t *const in[8], size_t inlen) {
    kpqc_keccakx8 k;
    const size_t full = outlen / rate, rest = outlen % rate;
    kpqc_keccakx8_absorb_once(&k, rate, 0x1f, in, inlen);
    kpqc_keccakx8_squeezeblocks(&k, out, full);
    if (rest != 0) {
        /* The last block's whole lanes straight to the outputs, then the
         * bytes of a partial lane (no copy of the block to wipe). */
        uint8_t *at[8];
        for (unsigned j = 0; j < 8; j++) at[j] = out[j] + full * rate;
        k.be->f1600x8(k.s);
        k.be->store_lanes(at, k.s, (unsigned)(rest / 8));
        for (unsigned j = 0; j < 8; j++)
            for (size_t b = rest & ~(size_t)7; b < rest; b++) at[j][b] = (uint8_t)(k.s[b / 8][j] >> (8 * (b % 8)));
    }
    kpqc_wipe(&k, sizeof k);
}

void kpqc_shake128x8(uint8_t *const out[8], size_t outlen, const uint8_t *const in[8], size_t inlen) {
    shakex8(KPQC_SHAKE128_RATE, out, outlen, in, inlen);
}

void kpqc_shake256x8(uint8_t *const out[8], size_t outlen, const uint8_t *const in[8], size_t inlen) {
    shakex8(KPQC_SHAKE256_RATE, out, outlen, in, inlen);
}
