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

#ifdef __x86_64__
/* Rows of random 4-word slots, words beyond nw zero as in aimer.c. */
static void random_rows(uint64_t (*M)[4], unsigned nw) {
    for (unsigned j = 0; j < 64 * nw; j++)
        for (unsigned w = 0; w < 4; w++) M[j][w] = w < nw ? rnd64() : 0;
}

static void ref_mat_vec(uint64_t c[4], const uint64_t (*M)[4], const uint64_t *v, unsigned nw) {
    memset(c, 0, 4 * sizeof *c);
    for (unsigned j = 0; j < 64 * nw; j++)
        if ((v[j / 64] >> (j % 64)) & 1)
            for (unsigned w = 0; w < 4; w++) c[w] ^= M[j][w];
}

/* The AVX-512 products, squarings and matrix-vector products against the
 * schoolbook and the portable kernels. */
static void check_avx512_kernels(void) {
    static uint64_t M[256][4];
    for (unsigned nw = 2; nw <= 4; nw++) {
        for (int it = 0; it < 200; it++) {
            uint64_t a[4] = {0}, b[4] = {0}, r[4], p[4];
            for (unsigned w = 0; w < nw; w++) a[w] = rnd64(), b[w] = rnd64();
            if (it == 0) memset(a, 0xff, 8 * nw);
            ref_mul(r, a, b, nw);
            kpqc_aimer_gf_mul(p, a, b, nw, AIMER_GF_AVX512);
            CHECK_MSG(memcmp(r, p, 8 * nw) == 0, "avx512 product nw=%u it=%d", nw, it);
            unsigned e = (unsigned)(it % 53);
            kpqc_aimer_gf_sqr_n(r, a, nw, e, AIMER_GF_PORTABLE);
            kpqc_aimer_gf_sqr_n(p, a, nw, e, AIMER_GF_AVX512);
            CHECK_MSG(memcmp(r, p, 8 * nw) == 0, "avx512 x^(2^%u) nw=%u it=%d", e, nw, it);
        }
        for (int it = 0; it < 20; it++) {
            uint64_t v[8][4] = {{0}}, c[8][4], one[4], x[8][4], want[8][4];
            random_rows(M, nw);
            for (unsigned j = 0; j < 8; j++)
                for (unsigned w = 0; w < nw; w++) v[j][w] = x[j][w] = rnd64();
            if (it == 0) memset(v[3], 0xff, 8 * nw);
            kpqc_aimer_mat_vec8_avx512(c, (const uint64_t(*)[4])M, (const uint64_t(*)[4])v, nw);
            for (unsigned j = 0; j < 8; j++) {
                ref_mat_vec(one, (const uint64_t(*)[4])M, v[j], nw);
                CHECK_MSG(memcmp(one, c[j], sizeof one) == 0, "avx512 mat_vec8 nw=%u it=%d vector %u", nw, it, j);
                kpqc_aimer_mat_vec_avx512(c[j], (const uint64_t(*)[4])M, v[j], nw);
                CHECK_MSG(memcmp(one, c[j], sizeof one) == 0, "avx512 mat_vec nw=%u it=%d vector %u", nw, it, j);
                kpqc_aimer_gf_sqr_n(want[j], x[j], nw, (unsigned)it, AIMER_GF_PORTABLE);
            }
            kpqc_aimer_gf_sqr_n8_avx512(x, nw, (unsigned)it);
            for (unsigned j = 0; j < 8; j++)
                CHECK_MSG(memcmp(want[j], x[j], 8 * nw) == 0, "avx512 eight x^(2^%d) nw=%u element %u", it, nw, j);
        }
    }
}
#endif

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
#ifdef __x86_64__
    if (kpqc_set_impl(KPQC_IMPL_AVX512) == KPQC_OK) {
        check_avx512_kernels();
        printf("avx512 field kernels tested\n");
    } else {
        printf("avx512 field kernels: not available on this machine, not tested\n");
    }
    kpqc_set_impl(KPQC_IMPL_AUTO);
#endif

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
    printf("keccak x4 path %s\n", kpqc_impl_name());
    return test_result("test_aimer_field");
}
