/*
 * Binary fields of AIMer: GF(2^128) = GF(2)[x]/(x^128 + x^7 + x^2 + x + 1),
 * GF(2^192) mod x^192 + x^7 + x^2 + x + 1, GF(2^256) mod x^256 + x^10 + x^5 + x^2 + 1.
 * An element is nw little-endian 64-bit words (bit i of word j = x^(64j+i)).
 *
 * The family's kernels (see common/cpu.h): field products and repeated
 * squarings, and the binary matrix-vector product of AIM3's linear layers.
 * The portable backend (aimer_field.c) multiplies with a constant-time
 * carry-less product built on integer multiplications of sparse operands;
 * the AVX2 one (aimer_avx2.c) with PCLMULQDQ (aimer_field_pclmul.c, on
 * aimer_clmul.h) and AVX2 masks (aimer_matvec_avx2.c), eight parties a
 * call where the MPC has them; the AVX-512 one (aimer_field_avx512.c) with
 * VPCLMULQDQ, opmasks and eight parties at once, and the PCLMULQDQ kernels
 * for single elements.
 */
#ifndef KPQC_AIMER_FIELD_H
#define KPQC_AIMER_FIELD_H

#include <stddef.h>
#include <stdint.h>

#include "common/cpu.h"

struct kpqc_aimer_backend {
    kpqc_backend_info info;
    /* c = a * b (nw = 2, 3, 4); c may alias a or b */
    void (*gf_mul)(uint64_t *c, const uint64_t *a, const uint64_t *b, unsigned nw);
    /* c = a^(2^e): e squarings in one call (a linear map, so shares square too) */
    void (*gf_sqr_n)(uint64_t *c, const uint64_t *a, unsigned nw, unsigned e);
    /* c_j = M v_j for eight vectors (the parties of a batch), M given by
     * its rows (4-word slots; row i is added when bit i of v_j is set),
     * without branches or indices that depend on v */
    void (*mat_vec8)(uint64_t (*c)[4], const uint64_t (*M)[4], const uint64_t (*v)[4], unsigned nw);
    /* Optional (NULL: one element at a time through the kernels above):
     * e squarings of eight elements in place, and eight products
     * c_j = a_j b_j. */
    void (*gf_sqr_n8)(uint64_t (*x)[4], unsigned nw, unsigned e);
    void (*gf_mul8)(uint64_t (*c)[4], const uint64_t (*a)[4], const uint64_t (*b)[4], unsigned nw);
    /* Optional (NULL: mat_vec8 on the rows): the matrix turned once into
     * tables of the backend's own (KPQC_AIMER_TAB_BYTES(nw) bytes), and
     * nv = 16 or 32 vectors (two or four batches) through them, c_j = M v_j. */
    void (*mat_tab)(uint8_t *tab, const uint64_t (*M)[4], unsigned nw);
    void (*mat_vec_tab)(uint64_t (*c)[4], const uint8_t *tab, const uint64_t (*v)[4], unsigned nw, unsigned nv);
    /* The widest field (in words) for which the tables pay off: they take
     * 2048 nw^2 bytes a matrix, read once per eight vectors. */
    unsigned mat_tab_max_nw;
    /* From how many squarings on x^(2^e) of a batch goes through the
     * tables of its matrix instead, where the width has tables. */
    unsigned pow_tab_min_e;
    /* Optional (NULL: m calls of gf_mul8 and additions): sums of m <= 4
     * products for eight elements, c_j += sum_i a[8i+j] b[8i+j], reduced
     * once per sum instead of once per product. */
    void (*gf_mul8_sum)(uint64_t (*c)[4], const uint64_t (*a)[4], const uint64_t (*b)[4], unsigned nw, unsigned m);
};

/* Bytes of a matrix's tables: 16 nw groups of four rows, 128 bytes per
 * group and word. */
#define KPQC_AIMER_TAB_BYTES(nw) (2048u * (nw) * (nw))

extern const struct kpqc_aimer_backend kpqc_aimer_backend_portable;
#ifdef KPQC_ISA_AVX2
extern const struct kpqc_aimer_backend kpqc_aimer_backend_avx2;
void kpqc_aimer_gf_mul_pclmul(uint64_t *c, const uint64_t *a, const uint64_t *b, unsigned nw);
void kpqc_aimer_gf_sqr_n_pclmul(uint64_t *c, const uint64_t *a, unsigned nw, unsigned e);
void kpqc_aimer_gf_mul8_pclmul(uint64_t (*c)[4], const uint64_t (*a)[4], const uint64_t (*b)[4], unsigned nw);
void kpqc_aimer_gf_sqr_n8_pclmul(uint64_t (*x)[4], unsigned nw, unsigned e);
void kpqc_aimer_gf_mul8_sum_pclmul(uint64_t (*c)[4], const uint64_t (*a)[4], const uint64_t (*b)[4], unsigned nw,
                                   unsigned m);
void kpqc_aimer_mat_vec8_avx2(uint64_t (*c)[4], const uint64_t (*M)[4], const uint64_t (*v)[4], unsigned nw);
void kpqc_aimer_mat_tab_avx2(uint8_t *tab, const uint64_t (*M)[4], unsigned nw);
void kpqc_aimer_mat_vec_tab_avx2(uint64_t (*c)[4], const uint8_t *tab, const uint64_t (*v)[4], unsigned nw, unsigned nv);
#endif
#ifdef KPQC_ISA_AVX512
extern const struct kpqc_aimer_backend kpqc_aimer_backend_avx512;
void kpqc_aimer_mat_vec8_avx512(uint64_t (*c)[4], const uint64_t (*M)[4], const uint64_t (*v)[4], unsigned nw);
void kpqc_aimer_gf_sqr_n8_avx512(uint64_t (*x)[4], unsigned nw, unsigned e);
void kpqc_aimer_gf_mul8_avx512(uint64_t (*c)[4], const uint64_t (*a)[4], const uint64_t (*b)[4], unsigned nw);
void kpqc_aimer_gf_mul8_sum_avx512(uint64_t (*c)[4], const uint64_t (*a)[4], const uint64_t (*b)[4], unsigned nw,
                                   unsigned m);
void kpqc_aimer_mat_tab_avx512(uint8_t *tab, const uint64_t (*M)[4], unsigned nw);
void kpqc_aimer_mat_vec_tab_avx512(uint64_t (*c)[4], const uint8_t *tab, const uint64_t (*v)[4], unsigned nw, unsigned nv);
#endif
const struct kpqc_aimer_backend *kpqc_aimer_select_backend(void);
const kpqc_backend_info *const *kpqc_aimer_backends(size_t *n);

/*
 * Fold the high half of an unreduced 2*nw-word product t down into c, using
 * x^n = tail(x) = 1 + x^k3 + x^k2 + x^k1.  Working from the top word down,
 * a fold from word i spills into word i-nw+1, which is still above the low
 * half only for the topmost word and is then folded in turn.  Inlined with
 * constant arguments, per width, into every backend.
 */
static inline __attribute__((always_inline)) void kpqc_aimer_reduce_w(uint64_t *c, uint64_t *t,
                                                                      const unsigned nw, const unsigned k1,
                                                                      const unsigned k2, const unsigned k3) {
    for (unsigned i = 2 * nw - 1; i >= nw; i--) {
        uint64_t w = t[i];
        t[i - nw] ^= w ^ (w << k1) ^ (w << k2) ^ (w << k3);
        t[i - nw + 1] ^= (w >> (64 - k1)) ^ (w >> (64 - k2)) ^ (w >> (64 - k3));
    }
    for (unsigned i = 0; i < nw; i++) c[i] = t[i];
}

/*
 * Defines `static void name(c, a, e, nw, k1, k2, k3)`: c = a^(2^e) by e
 * squarings, each word squared into two by SQUARE_WORD(t, w) (a square
 * has no cross terms) and the result reduced, all inlined per width: the
 * S-boxes' x^(2^e) take up to 47 squarings in a row.
 */
#define KPQC_AIMER_DEFINE_SQR_N(name, SQUARE_WORD)                                             \
    static inline __attribute__((always_inline)) void name(                                   \
        uint64_t *c, const uint64_t *a, unsigned e, const unsigned nw, const unsigned k1,     \
        const unsigned k2, const unsigned k3) {                                               \
        uint64_t x[4], t[8];                                                                  \
        for (unsigned i = 0; i < nw; i++) x[i] = a[i];                                        \
        for (unsigned r = 0; r < e; r++) { /* e is public */                                  \
            for (unsigned i = 0; i < nw; i++) SQUARE_WORD(t + 2 * i, x[i]);                   \
            kpqc_aimer_reduce_w(x, t, nw, k1, k2, k3);                                        \
        }                                                                                     \
        for (unsigned i = 0; i < nw; i++) c[i] = x[i];                                        \
    }

/* The reductions per width: tail x^10 + x^5 + x^2 + 1 for n = 256, x^7 +
 * x^2 + x + 1 otherwise.  KPQC_AIMER_BY_WIDTH(F, nw, args) calls
 * F(args, nw, k1, k2, k3) with all four constant. */
#define KPQC_AIMER_BY_WIDTH(F, nw, ...)                     \
    do {                                                   \
        if ((nw) == 2) F(__VA_ARGS__, 2, 7, 2, 1);         \
        else if ((nw) == 3) F(__VA_ARGS__, 3, 7, 2, 1);    \
        else F(__VA_ARGS__, 4, 10, 5, 2);                  \
    } while (0)

#endif
