/*
 * AIMer fields: every backend this CPU runs, its products and squares
 * (single, eight, sums of products) against a bit-by-bit schoolbook
 * reference and its matrix-vector products
 * (one vector, eight, eight through the matrix's tables) against a plain
 * one; the four-way SHAKE against four single SHAKE calls
 * (on the current level's kernels), and every Keccak backend's
 * permutations against the portable ones.
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

/* c = M v, bit by bit */
static void ref_mat_vec(uint64_t c[4], const uint64_t (*M)[4], const uint64_t *v, unsigned nw) {
    memset(c, 0, 4 * sizeof c[0]);
    for (unsigned j = 0; j < 64 * nw; j++)
        if ((v[j / 64] >> (j % 64)) & 1)
            for (unsigned w = 0; w < nw; w++) c[w] ^= M[j][w];
}

static void check_field(const struct kpqc_aimer_backend *be) {
    const char *name = be->info.name;
    for (unsigned nw = 2; nw <= 4; nw++) {
        for (int it = 0; it < 300; it++) {
            uint64_t a[4] = {0}, b[4] = {0}, r[4], p[4];
            for (unsigned w = 0; w < nw; w++) {
                a[w] = rnd64();
                b[w] = rnd64();
            }
            if (it == 0) memset(a, 0xff, sizeof a);
            if (it == 1) { memset(a, 0, sizeof a); a[0] = 1; }
            ref_mul(r, a, b, nw);
            be->gf_mul(p, a, b, nw);
            CHECK_MSG(memcmp(r, p, 8 * nw) == 0, "%s product nw=%u it=%d", name, nw, it);
            ref_mul(r, a, a, nw);
            be->gf_sqr_n(p, a, nw, 1);
            CHECK_MSG(memcmp(r, p, 8 * nw) == 0, "%s square nw=%u it=%d", name, nw, it);
            /* e squarings in one call against e reference products */
            unsigned e = (unsigned)(it % 101);
            memcpy(r, a, sizeof r);
            for (unsigned k = 0; k < e; k++) ref_mul(r, r, r, nw);
            be->gf_sqr_n(p, a, nw, e);
            CHECK_MSG(memcmp(r, p, 8 * nw) == 0, "%s x^(2^%u) nw=%u it=%d", name, e, nw, it);
        }
        static uint64_t M[256][4];
        for (int it = 0; it < 20; it++) {
            uint64_t want[4];
            for (unsigned j = 0; j < 64 * nw; j++)
                for (unsigned w = 0; w < 4; w++) M[j][w] = w < nw ? rnd64() : 0;
            uint64_t v8[8][4] = {{0}}, c8[8][4], x8[8][4], sq[8][4];
            for (unsigned j = 0; j < 8; j++)
                for (unsigned w = 0; w < nw; w++) v8[j][w] = x8[j][w] = j == 3 && it == 0 ? ~UINT64_C(0) : rnd64();
            be->mat_vec8(c8, (const uint64_t (*)[4])M, (const uint64_t (*)[4])v8, nw);
            for (unsigned j = 0; j < 8; j++) {
                ref_mat_vec(want, (const uint64_t (*)[4])M, v8[j], nw);
                CHECK_MSG(memcmp(want, c8[j], sizeof want) == 0, "%s mat_vec8 nw=%u it=%d vector %u", name, nw,
                          it, j);
            }
            /* the optional kernels, where the backend has them */
            if (be->mat_tab != NULL) {
                static uint8_t tab[KPQC_AIMER_TAB_BYTES(4)];
                uint64_t vs[32][4] = {{0}}, cs[32][4];
                for (unsigned j = 0; j < 32; j++)
                    for (unsigned w = 0; w < nw; w++) vs[j][w] = j < 8 ? v8[j][w] : j == 12u + (unsigned)it * 18u && it < 2 ? ~UINT64_C(0) : rnd64();
                be->mat_tab(tab, (const uint64_t (*)[4])M, nw);
                for (unsigned nv = 16; nv <= 32; nv += 16) {
                    be->mat_vec_tab(cs, tab, (const uint64_t (*)[4])vs, nw, nv);
                    for (unsigned j = 0; j < nv; j++) {
                        ref_mat_vec(want, (const uint64_t (*)[4])M, vs[j], nw);
                        CHECK_MSG(memcmp(want, cs[j], sizeof want) == 0, "%s mat_vec_tab nw=%u nv=%u it=%d vector %u",
                                  name, nw, nv, it, j);
                    }
                }
            }
            if (be->gf_mul8 != NULL) {
                uint64_t prod[8][4], want_prod[8][4];
                for (unsigned j = 0; j < 8; j++) ref_mul(want_prod[j], v8[j], x8[j], nw);
                be->gf_mul8(prod, (const uint64_t (*)[4])v8, (const uint64_t (*)[4])x8, nw);
                for (unsigned j = 0; j < 8; j++)
                    CHECK_MSG(memcmp(want_prod[j], prod[j], 8 * nw) == 0, "%s eight products nw=%u it=%d pair %u",
                              name, nw, it, j);
            }
            if (be->gf_mul8_sum != NULL) {
                /* sums of up to four products, onto what the sums start from */
                uint64_t sa[32][4] = {{0}}, sb[32][4] = {{0}}, sum[8][4], want_sum[8][4];
                for (unsigned m = 1; m <= 4; m++) {
                    for (unsigned k = 0; k < 8 * m; k++)
                        for (unsigned w = 0; w < nw; w++) {
                            sa[k][w] = k == 9 && it == 0 ? ~UINT64_C(0) : rnd64();
                            sb[k][w] = rnd64();
                        }
                    for (unsigned j = 0; j < 8; j++) {
                        memcpy(sum[j], c8[j], sizeof sum[j]);
                        memcpy(want_sum[j], c8[j], sizeof want_sum[j]);
                        for (unsigned i = 0; i < m; i++) {
                            uint64_t t[4];
                            ref_mul(t, sa[8 * i + j], sb[8 * i + j], nw);
                            for (unsigned w = 0; w < nw; w++) want_sum[j][w] ^= t[w];
                        }
                    }
                    be->gf_mul8_sum(sum, (const uint64_t (*)[4])sa, (const uint64_t (*)[4])sb, nw, m);
                    for (unsigned j = 0; j < 8; j++)
                        CHECK_MSG(memcmp(want_sum[j], sum[j], 8 * nw) == 0, "%s sums of %u products nw=%u it=%d element %u",
                                  name, m, nw, it, j);
                }
            }
            if (be->gf_sqr_n8 != NULL) {
                for (unsigned j = 0; j < 8; j++) kpqc_aimer_backend_portable.gf_sqr_n(sq[j], x8[j], nw, (unsigned)it);
                be->gf_sqr_n8(x8, nw, (unsigned)it);
                for (unsigned j = 0; j < 8; j++)
                    CHECK_MSG(memcmp(sq[j], x8[j], 8 * nw) == 0, "%s eight x^(2^%d) nw=%u element %u", name, it,
                              nw, j);
            }
        }
    }
}

/* Every usable backend of a list, by its info. */
#define FOR_EACH_USABLE(b, list, n)                                                          \
    for (size_t b = 0; b < (n); b++)                                                         \
        if (!kpqc_backend_usable((list)[b])) printf("%s not available on this CPU\n", (list)[b]->name); \
        else

int main(void) {
    size_t n;
    const kpqc_backend_info *const *aimer = kpqc_aimer_backends(&n);
    FOR_EACH_USABLE(b, aimer, n) check_field((const struct kpqc_aimer_backend *)aimer[b]);

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
    /* The raw permutations of every backend against the portable one. */
    const kpqc_backend_info *const *one = kpqc_keccak_backends(&n);
    FOR_EACH_USABLE(b, one, n) {
        uint64_t x[25], y[25];
        for (unsigned i = 0; i < 25; i++) x[i] = y[i] = rnd64();
        kpqc_keccak_backend_portable.f1600(x);
        ((const kpqc_keccak_backend *)one[b])->f1600(y);
        CHECK_MSG(memcmp(x, y, sizeof x) == 0, "keccak %s", one[b]->name);
    }
    const kpqc_backend_info *const *four = kpqc_keccakx4_backends(&n);
    FOR_EACH_USABLE(b, four, n) {
        uint64_t s4[25][4], s1[4][25];
        for (unsigned i = 0; i < 25; i++)
            for (unsigned j = 0; j < 4; j++) s4[i][j] = s1[j][i] = rnd64();
        ((const kpqc_keccakx4_backend *)four[b])->f1600x4(s4);
        for (unsigned j = 0; j < 4; j++) {
            kpqc_keccak_backend_portable.f1600(s1[j]);
            for (unsigned i = 0; i < 25; i++) CHECK_MSG(s1[j][i] == s4[i][j], "keccak x4 %s", four[b]->name);
        }
    }
    return test_result("test_aimer_field");
}
