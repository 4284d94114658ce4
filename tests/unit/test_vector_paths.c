/*
 * Every vector path against the portable one, kernel by kernel, on random
 * inputs: the Keccak permutations (one, four and eight states), the
 * four- and eight-way SHAKEs across block edges, two sponges absorbing
 * together, the four- and eight-way lane stores.  Each path the machine can
 * run is forced in turn with kpqc_set_impl; the others are reported as not
 * tested.
 */
#include <string.h>

#include "harness.h"
#include "common/keccak.h"
#include "internal.h"

static uint64_t state = 0x243f6a8885a308d3ULL;
static uint64_t rnd64(void) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

static void fill(void *p, size_t n) {
    uint8_t *b = p;
    for (size_t i = 0; i < n; i++) b[i] = (uint8_t)rnd64();
}

static void check_permutations(const char *path, kpqc_impl impl) {
    uint64_t s8[25][8], s4[25][4], s1[8][25], ref[8][25];
    fill(s8, sizeof s8);
    for (unsigned i = 0; i < 25; i++)
        for (unsigned j = 0; j < 8; j++) s1[j][i] = ref[j][i] = s8[i][j];
    for (unsigned i = 0; i < 25; i++) memcpy(s4[i], s8[i], sizeof s4[i]);
    kpqc_set_impl(KPQC_IMPL_PORTABLE);
    for (unsigned j = 0; j < 8; j++) kpqc_keccak_f1600(ref[j]);
    CHECK(kpqc_set_impl(impl) == KPQC_OK);
    for (unsigned j = 0; j < 8; j++) kpqc_keccak_f1600(s1[j]);
    kpqc_keccakx4_f1600(s4);
    kpqc_keccakx8_f1600(s8);
    for (unsigned j = 0; j < 8; j++)
        for (unsigned i = 0; i < 25; i++) {
            CHECK_MSG(s1[j][i] == ref[j][i], "%s keccak_f1600 state %u lane %u", path, j, i);
            CHECK_MSG(s8[i][j] == ref[j][i], "%s keccakx8_f1600 state %u lane %u", path, j, i);
            if (j < 4) CHECK_MSG(s4[i][j] == ref[j][i], "%s keccakx4_f1600 state %u lane %u", path, j, i);
        }
}

/* One state permuted 100 times in a row from all zeros, against the
 * portable permutation after every step (the rounds' constants and the
 * values that random states rarely give: zero lanes, the states that
 * follow them), and the first step against the published value of its
 * lane (0,0); every instance of the four- and eight-way permutations runs
 * the same chain. */
static void check_permutation_chain(const char *path, kpqc_impl impl) {
    uint64_t s[25] = {0}, ref[25] = {0}, s4[25][4] = {{0}}, s8[25][8] = {{0}};
    for (unsigned step = 0; step < 100; step++) {
        kpqc_set_impl(KPQC_IMPL_PORTABLE);
        kpqc_keccak_f1600(ref);
        CHECK(kpqc_set_impl(impl) == KPQC_OK);
        kpqc_keccak_f1600(s);
        kpqc_keccakx4_f1600(s4);
        kpqc_keccakx8_f1600(s8);
        if (step == 0) CHECK_MSG(s[0] == 0xf1258f7940e1dde7ULL, "%s keccak_f1600 of zero, lane 0", path);
        CHECK_MSG(memcmp(s, ref, sizeof s) == 0, "%s keccak_f1600 step %u of the chain from zero", path, step);
        for (unsigned i = 0; i < 25; i++)
            for (unsigned j = 0; j < 8; j++) {
                CHECK_MSG(s8[i][j] == ref[i], "%s keccakx8_f1600 step %u instance %u lane %u", path, step, j, i);
                if (j < 4) CHECK_MSG(s4[i][j] == ref[i], "%s keccakx4_f1600 step %u instance %u lane %u", path, step, j, i);
            }
    }
}

static void check_shakes(const char *path) {
    static const size_t lens[] = {0, 1, 7, 8, 35, 135, 136, 137, 167, 168, 169, 300, 500};
    for (unsigned li = 0; li < sizeof lens / sizeof lens[0]; li++) {
        size_t inlen = lens[li], outlen = 2 * lens[li] + 17;
        static uint8_t in[8][500], out[8][1100], one[1100];
        const uint8_t *inp[8];
        uint8_t *outp[8];
        for (unsigned j = 0; j < 8; j++) {
            fill(in[j], inlen);
            inp[j] = in[j];
            outp[j] = out[j];
        }
        for (int w = 128; w <= 256; w += 128) {
            memset(out, 0, sizeof out);
            if (w == 128) kpqc_shake128x8(outp, outlen, inp, inlen);
            else kpqc_shake256x8(outp, outlen, inp, inlen);
            for (unsigned j = 0; j < 8; j++) {
                if (w == 128) kpqc_shake128(one, outlen, in[j], inlen);
                else kpqc_shake256(one, outlen, in[j], inlen);
                CHECK_MSG(memcmp(one, out[j], outlen) == 0, "%s shake%dx8 len %zu instance %u", path, w, inlen, j);
            }
            if (w == 128) kpqc_shake128x4(out[0], out[1], out[2], out[3], outlen, in[0], in[1], in[2], in[3], inlen);
            else kpqc_shake256x4(out[0], out[1], out[2], out[3], outlen, in[0], in[1], in[2], in[3], inlen);
            for (unsigned j = 0; j < 4; j++) {
                if (w == 128) kpqc_shake128(one, outlen, in[j], inlen);
                else kpqc_shake256(one, outlen, in[j], inlen);
                CHECK_MSG(memcmp(one, out[j], outlen) == 0, "%s shake%dx4 len %zu instance %u", path, w, inlen, j);
            }
        }
    }
}

/* Two sponges absorbing in lock-step end in the states of two separate
 * absorbs: from every starting position class, across block edges, the
 * shorter input on either side. */
static void check_absorb_pair(const char *path) {
    static const size_t starts[] = {0, 1, 8, 135, 167}, lens[] = {0, 1, 33, 134, 136, 168, 169, 500, 1000};
    static uint8_t in[2][1200];
    for (unsigned rate = KPQC_SHAKE256_RATE;; rate = KPQC_SHAKE128_RATE) {
        for (unsigned si = 0; si < 5; si++)
            for (unsigned la = 0; la < 9; la++)
                for (unsigned lb = 0; lb < 9; lb++) {
                    size_t sa = starts[si] % rate, sb = starts[(si + lb) % 5] % rate;
                    kpqc_keccak a, b, ra, rb;
                    fill(in, sizeof in);
                    kpqc_keccak_init(&a, rate, 0x1f);
                    kpqc_keccak_init(&b, rate, 0x1f);
                    kpqc_keccak_absorb(&a, in[0] + 1000, sa); /* past every lens[] input */
                    kpqc_keccak_absorb(&b, in[1] + 1000, sb);
                    ra = a;
                    rb = b;
                    kpqc_keccak_absorb_pair(&a, in[0], lens[la], &b, in[1], lens[lb]);
                    kpqc_keccak_absorb(&ra, in[0], lens[la]);
                    kpqc_keccak_absorb(&rb, in[1], lens[lb]);
                    CHECK_MSG(a.pos == ra.pos && memcmp(a.s, ra.s, sizeof a.s) == 0 && b.pos == rb.pos &&
                                  memcmp(b.s, rb.s, sizeof b.s) == 0,
                              "%s absorb_pair rate %u starts %zu/%zu lengths %zu/%zu", path, rate, sa, sb,
                              lens[la], lens[lb]);
                }
        if (rate == KPQC_SHAKE128_RATE) break;
    }
}

/* The four- and eight-way tables' lane stores: every length up to a whole
 * state, each instance against a word-by-word little-endian copy, and the
 * bytes past the length untouched. */
static void check_store_lanes(const char *path) {
    uint64_t s8[25][8], s4[25][4];
    fill(s8, sizeof s8);
    fill(s4, sizeof s4);
    const kpqc_keccakx4_backend *x4 = kpqc_keccakx4_select_backend();
    const kpqc_keccakx8_backend *x8 = kpqc_keccakx8_select_backend();
    for (unsigned n = 0; n <= 25; n++) {
        uint8_t ref[8][200 + 8], got[8][200 + 8];
        uint8_t *const out[8] = {got[0], got[1], got[2], got[3], got[4], got[5], got[6], got[7]};
        for (unsigned w = 4; w <= 8; w += 4) {
            memset(ref, 0xa5, sizeof ref);
            memset(got, 0xa5, sizeof got);
            for (unsigned j = 0; j < w; j++)
                for (unsigned i = 0; i < n; i++) kpqc_store64_le(ref[j] + 8 * i, w == 4 ? s4[i][j] : s8[i][j]);
            if (w == 4) x4->store_lanes(out, (const uint64_t (*)[4])s4, n);
            else x8->store_lanes(out, (const uint64_t (*)[8])s8, n);
            CHECK_MSG(memcmp(ref, got, sizeof ref) == 0, "%s keccakx%u store_lanes, %u lanes", path, w, n);
        }
    }
}

int main(void) {
    static const struct { const char *name; kpqc_impl impl; } paths[] = {
        {"portable", KPQC_IMPL_PORTABLE}, {"avx2", KPQC_IMPL_AVX2}, {"avx512", KPQC_IMPL_AVX512},
    };
    for (unsigned p = 0; p < sizeof paths / sizeof paths[0]; p++) {
        if (kpqc_set_impl(paths[p].impl) != KPQC_OK) {
            printf("%s path: not available on this machine, not tested\n", paths[p].name);
            continue;
        }
        CHECK(strcmp(kpqc_impl_name(), paths[p].name) == 0);
        for (int round = 0; round < 20; round++) check_permutations(paths[p].name, paths[p].impl);
        check_permutation_chain(paths[p].name, paths[p].impl);
        kpqc_set_impl(paths[p].impl);
        check_shakes(paths[p].name);
        check_absorb_pair(paths[p].name);
        check_store_lanes(paths[p].name);
        printf("%s path tested\n", paths[p].name);
    }
    kpqc_set_impl(KPQC_IMPL_AUTO);
    return test_result("test_vector_paths");
}
