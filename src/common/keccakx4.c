/*
 * Four Keccak instances in lock-step.  The state is lane-interleaved
 * (s[lane][instance]) so that a vector permutation can process one lane of
 * all four instances per register; this portable version simply runs the
 * scalar permutation on each instance.
 */
#include <string.h>

#include "ct.h"
#include "keccak.h"
#include "keccak_f1600.h"

/* One state at a time: inlined into the loop below, the permutation
 * compiles to slower code (1 % more instructions per HAETAE signature). */
static __attribute__((noinline)) void f1600_one(uint64_t s[25]) { keccak_f1600_permute(s); }

/* Four portable permutations, one after the other. */
static void f1600x4_portable(uint64_t s[25][4]) {
    for (unsigned j = 0; j < 4; j++) {
        uint64_t one[25];
        for (unsigned i = 0; i < 25; i++) one[i] = s[i][j];
        f1600_one(one);
        for (unsigned i = 0; i < 25; i++) s[i][j] = one[i];
    }
}

static void store_lanes_portable(uint8_t *const out[4], const uint64_t s[25][4], unsigned n) {
    for (unsigned j = 0; j < 4; j++)
        for (unsigned i = 0; i < n; i++) kpqc_store64_le(out[j] + 8 * i, s[i][j]);
}

const kpqc_keccakx4_backend kpqc_keccakx4_backend_portable = {{"portable", 0}, f1600x4_portable, store_lanes_portable,
                                                              0};

static const kpqc_backend_info *const candidates[] = {
#ifdef KPQC_ISA_AVX512
    &kpqc_keccakx4_backend_avx512.info,
#endif
#ifdef KPQC_ISA_AVX2
    &kpqc_keccakx4_backend_avx2.info,
#endif
    &kpqc_keccakx4_backend_portable.info,
};
KPQC_BACKEND_CHOICE(kpqc_keccakx4_backend, kpqc_keccakx4_select_backend, kpqc_keccakx4_backends, candidates)

void kpqc_keccakx4_f1600(uint64_t s[25][4]) { kpqc_keccakx4_select_backend()->f1600x4(s); }

/* All but the last byte of a block through the ordinary absorb (which does
 * not permute short of a full block), the last one by hand: the block is
 * then complete and waits for its permutation. */
static void fill_block(kpqc_keccak *k, const uint8_t *in, size_t n) {
    kpqc_keccak_absorb(k, in, n - 1);
    k->s[(k->rate - 1) / 8] ^= (uint64_t)in[n - 1] << (8 * ((k->rate - 1) % 8));
}

void kpqc_keccak_absorb_pair(kpqc_keccak *a, const uint8_t *ina, size_t lena,
                             kpqc_keccak *b, const uint8_t *inb, size_t lenb) {
    const kpqc_keccakx4_backend *be = kpqc_keccakx4_select_backend();
    if (be != &kpqc_keccakx4_backend_portable) {
        uint64_t s[25][4];
        for (;;) {
            size_t na = a->rate - a->pos, nb = b->rate - b->pos;
            if (lena < na || lenb < nb) break;
            fill_block(a, ina, na);
            fill_block(b, inb, nb);
            for (unsigned i = 0; i < 25; i++) {
                s[i][0] = a->s[i];
                s[i][1] = b->s[i];
                s[i][2] = s[i][3] = 0;
            }
            be->f1600x4(s);
            for (unsigned i = 0; i < 25; i++) {
                a->s[i] = s[i][0];
                b->s[i] = s[i][1];
            }
            a->pos = b->pos = 0;
            ina += na;
            lena -= na;
            inb += nb;
            lenb -= nb;
        }
        kpqc_wipe(s, sizeof s);
    }
    kpqc_keccak_absorb(a, ina, lena);
    kpqc_keccak_absorb(b, inb, lenb);
}

void kpqc_keccakx4_absorb_once(kpqc_keccakx4 *k, unsigned rate, uint8_t dsep,
                               const uint8_t *in0, const uint8_t *in1,
                               const uint8_t *in2, const uint8_t *in3, size_t len) {
    const uint8_t *in[4] = {in0, in1, in2, in3};
    memset(k->s, 0, sizeof k->s);
    k->rate = rate;
    k->dsep = dsep;
    const kpqc_keccakx4_backend *be = kpqc_keccakx4_select_backend();
    k->f1600x4 = be->f1600x4;
    k->store_lanes = be->store_lanes;
    size_t off = 0;
    for (; len - off >= rate; off += rate) {
        for (unsigned j = 0; j < 4; j++) kpqc_keccak_xor_instance(&k->s[0][0], 4, j, in[j] + off, rate);
        k->f1600x4(k->s);
    }
    for (unsigned j = 0; j < 4; j++) {
        kpqc_keccak_xor_instance(&k->s[0][0], 4, j, in[j] + off, len - off);
        kpqc_keccak_pad_instance(&k->s[0][0], 4, j, len - off, rate, dsep);
    }
}

void kpqc_keccakx4_squeezeblocks(kpqc_keccakx4 *k, uint8_t *out0, uint8_t *out1,
                                 uint8_t *out2, uint8_t *out3, size_t nblocks) {
    for (size_t b = 0; b < nblocks; b++) {
        uint8_t *const at[4] = {out0 + b * k->rate, out1 + b * k->rate, out2 + b * k->rate, out3 + b * k->rate};
        k->f1600x4(k->s);
        k->store_lanes(at, k->s, k->rate / 8);
    }
}

static void shakex4(unsigned rate, uint8_t *out0, uint8_t *out1, uint8_t *out2, uint8_t *out3,
                    size_t outlen, const uint8_t *in0, const uint8_t *in1, const uint8_t *in2,
                    const uint8_t *in3, size_t inlen) {
    kpqc_keccakx4 k;
    size_t full = outlen / rate, rest = outlen % rate;
    kpqc_keccakx4_absorb_once(&k, rate, 0x1f, in0, in1, in2, in3, inlen);
    kpqc_keccakx4_squeezeblocks(&k, out0, out1, out2, out3, full);
    if (rest != 0) {
        uint8_t tail[4][200];
        kpqc_keccakx4_squeezeblocks(&k, tail[0], tail[1], tail[2], tail[3], 1);
        memcpy(out0 + full * rate, tail[0], rest);
        memcpy(out1 + full * rate, tail[1], rest);
        memcpy(out2 + full * rate, tail[2], rest);
        memcpy(out3 + full * rate, tail[3], rest);
        kpqc_wipe(tail, sizeof tail);
    }
    kpqc_wipe(&k, sizeof k);
}

void kpqc_shake128x4(uint8_t *out0, uint8_t *out1, uint8_t *out2, uint8_t *out3, size_t outlen,
                     const uint8_t *in0, const uint8_t *in1, const uint8_t *in2,
                     const uint8_t *in3, size_t inlen) {
    shakex4(KPQC_SHAKE128_RATE, out0, out1, out2, out3, outlen, in0, in1, in2, in3, inlen);
}

void kpqc_shake256x4(uint8_t *out0, uint8_t *out1, uint8_t *out2, uint8_t *out3, size_t outlen,
                     const uint8_t *in0, const uint8_t *in1, const uint8_t *in2,
                     const uint8_t *in3, size_t inlen) {
    shakex4(KPQC_SHAKE256_RATE, out0, out1, out2, out3, outlen, in0, in1, in2, in3, inlen);
}
