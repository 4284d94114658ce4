/*
 * AIMer fields: products and squares against a bit-by-bit schoolbook
 * reference, PCLMULQDQ against portable, and the four-way SHAKE against
 * four single SHAKE calls (on whichever Keccak x4 path is active).
 */
#include <string.h>

#include "harness.h"
#include "common/keccak.h"
#include "internal.h"
#include "sig/aimer/aimer_field.h"

static uint64_t state = 0x9e3779b97f4a7c15ULL;
static uint64_t rnd64(void) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

/* Schoolbook: shift-and-add with reduction after every shift. */
static void ref_mul(uint64_t *c, const uint64_t *a, const uint64_t *b, unsigned nw) {
    unsigned n = 64 * nw;
    uint64_t acc[4] = {0}, sh[4] = {0};
    uint64_t tail = nw == 4 ? ((1u << 10) | (1u << 5) | (1u << 2) | 1u) : ((1u << 7) | (1u << 2) | (1u << 1) | 1u);
    memcpy(sh, a, 8 * nw);
    for (unsigned i = 0; i < n; i++) {
        if ((b[i / 64] >> (i % 64)) & 1)
            for (unsigned w = 0; w < nw; w++) acc[w] ^= sh[w];
        uint64_t top = sh[nw - 1] >> 63;
        for (unsigned w = nw - 1; w > 0; w--) sh[w] = (sh[w] << 1) | (sh[w - 1] >> 63);
        sh[0] <<= 1;
        if (top) sh[0] ^= tail;
    }
    memcpy(c, acc, 8 * nw);
}

int main(void) {
    for (unsigned nw = 2; nw <= 4; nw++) {
        for (int it = 0; it < 300; it++) {
            uint64_t a[4] = {0}, b[4] = {0}, r[4], p[4], q[4], s[4];
            for (unsigned w = 0; w < nw; w++) {
                a[w] = rnd64();
                b[w] = rnd64();
            }
            if (it == 0) memset(a, 0xff, sizeof a);
            if (it == 1) { memset(a, 0, sizeof a); a[0] = 1; }
            ref_mul(r, a, b, nw);
            kpqc_aimer_gf_mul(p, a, b, nw, 0);
            CHECK_MSG(memcmp(r, p, 8 * nw) == 0, "portable product nw=%u it=%d", nw, it);
            if (kpqc_use_pclmul()) {
                kpqc_aimer_gf_mul(q, a, b, nw, 1);
                CHECK_MSG(memcmp(r, q, 8 * nw) == 0, "pclmul product nw=%u it=%d", nw, it);
            }
            ref_mul(r, a, a, nw);
            kpqc_aimer_gf_sqr_n(s, a, nw, 1, 0);
            CHECK_MSG(memcmp(r, s, 8 * nw) == 0, "square nw=%u it=%d", nw, it);
            /* e squarings in one call, both ways, against e reference products */
            unsigned e = (unsigned)(it % 101);
            memcpy(r, a, sizeof r);
            for (unsigned k = 0; k < e; k++) ref_mul(r, r, r, nw);
            kpqc_aimer_gf_sqr_n(p, a, nw, e, 0);
            CHECK_MSG(memcmp(r, p, 8 * nw) == 0, "portable x^(2^%u) nw=%u it=%d", e, nw, it);
            if (kpqc_use_pclmul()) {
                kpqc_aimer_gf_sqr_n(q, a, nw, e, 1);
                CHECK_MSG(memcmp(r, q, 8 * nw) == 0, "pclmul x^(2^%u) nw=%u it=%d", e, nw, it);
            }
        }
    }
    printf("pclmul path %s\n", kpqc_use_pclmul() ? "tested" : "not available");

    /* Keccak x4 against single instances, several lengths across block edges. */
    static const size_t lens[] = {0, 1, 35, 135, 136, 167, 168, 169, 300, 500};
    for (unsigned li = 0; li < sizeof lens / sizeof lens[0]; li++) {
        size_t inlen = lens[li], outlen = 2 * lens[li] + 17;
        uint8_t in[4][500], out[4][1100], one[1100];
        for (unsigned j = 0; j < 4; j++)
            for (size_t i = 0; i < inlen; i++) in[j][i] = (uint8_t)rnd64();
        kpqc_shake128x4(out[0], out[1], out[2], out[3], outlen, in[0], in[1], in[2], in[3], inlen);
        for (unsigned j = 0; j < 4; j++) {
            kpqc_shake128(one, outlen, in[j], inlen);
            CHECK_MSG(memcmp(one, out[j], outlen) == 0, "shake128x4 len %zu lane %u", inlen, j);
        }
        kpqc_shake256x4(out[0], out[1], out[2], out[3], outlen, in[0], in[1], in[2], in[3], inlen);
        for (unsigned j = 0; j < 4; j++) {
            kpqc_shake256(one, outlen, in[j], inlen);
            CHECK_MSG(memcmp(one, out[j], outlen) == 0, "shake256x4 len %zu lane %u", inlen, j);
        }
    }
    /* The raw permutation too. */
    uint64_t s4[25][4], s1[4][25];
    for (unsigned i = 0; i < 25; i++)
        for (unsigned j = 0; j < 4; j++) s4[i][j] = s1[j][i] = rnd64();
    kpqc_keccakx4_f1600(s4);
    for (unsigned j = 0; j < 4; j++) {
        kpqc_keccak_f1600(s1[j]);
        for (unsigned i = 0; i < 25; i++) CHECK(s1[j][i] == s4[i][j]);
    }
    printf("keccak x4 path %s\n", kpqc_use_avx2() ? "avx2" : "portable");
    return test_result("test_aimer_field");
}
