/*
 * AIMer field products and repeated squarings with PCLMULQDQ, one element
 * or eight independent ones a call (the parties of a batch: their
 * products' latencies overlap instead of queueing behind a call each).
 */
#include "aimer_clmul.h"

KPQC_AIMER_DEFINE_SQR_N(sqr_n_words, kpqc_aimer_clmul_square)

/* c = a^(2^e); GF(2^128) stays in one register for all e squarings. */
static inline __attribute__((always_inline)) void sqr_n_w(uint64_t *c, const uint64_t *a, unsigned e,
                                                          const unsigned nw, const unsigned k1,
                                                          const unsigned k2, const unsigned k3) {
    if (nw == 2) {
        __m128i v = _mm_loadu_si128((const __m128i *)a);
        for (unsigned r = 0; r < e; r++) v = kpqc_aimer_sqr128(v); /* e is public */
        _mm_storeu_si128((__m128i *)c, v);
        return;
    }
    sqr_n_words(c, a, e, nw, k1, k2, k3);
}

void kpqc_aimer_gf_mul_pclmul(uint64_t *c, const uint64_t *a, const uint64_t *b, unsigned nw) {
    KPQC_AIMER_BY_WIDTH(kpqc_aimer_mul_w, nw, c, a, b);
}

void kpqc_aimer_gf_sqr_n_pclmul(uint64_t *c, const uint64_t *a, unsigned nw, unsigned e) {
    KPQC_AIMER_BY_WIDTH(sqr_n_w, nw, c, a, e);
}

/* Words a field does not use stay zero in the 4-word slots. */
static inline void clear_unused(uint64_t (*x)[4], unsigned nw) {
    for (unsigned j = 0; j < 8; j++)
        for (unsigned w = nw; w < 4; w++) x[j][w] = 0;
}

static inline __attribute__((always_inline)) void mul8_w(uint64_t (*c)[4], const uint64_t (*a)[4],
                                                         const uint64_t (*b)[4], const unsigned nw,
                                                         const unsigned k1, const unsigned k2, const unsigned k3) {
    for (unsigned j = 0; j < 8; j++) kpqc_aimer_mul_w(c[j], a[j], b[j], nw, k1, k2, k3);
    clear_unused(c, nw);
}

void kpqc_aimer_gf_mul8_pclmul(uint64_t (*c)[4], const uint64_t (*a)[4], const uint64_t (*b)[4], unsigned nw) {
    KPQC_AIMER_BY_WIDTH(mul8_w, nw, c, a, b);
}

/* Eight chains of e squarings, advanced together one squaring at a time. */
static inline __attribute__((always_inline)) void sqr_n8_w(uint64_t (*x)[4], unsigned e, const unsigned nw,
                                                           const unsigned k1, const unsigned k2,
                                                           const unsigned k3) {
    if (nw == 2) {
        __m128i v[8];
        for (unsigned j = 0; j < 8; j++) v[j] = _mm_loadu_si128((const __m128i *)x[j]);
        for (unsigned r = 0; r < e; r++) /* e is public */
            for (unsigned j = 0; j < 8; j++) v[j] = kpqc_aimer_sqr128(v[j]);
        for (unsigned j = 0; j < 8; j++) _mm_storeu_si128((__m128i *)x[j], v[j]);
        return;
    }
    for (unsigned r = 0; r < e; r++) /* e is public */
        for (unsigned j = 0; j < 8; j++) {
            uint64_t t[8];
            for (unsigned i = 0; i < nw; i++) kpqc_aimer_clmul_square(t + 2 * i, x[j][i]);
            kpqc_aimer_reduce_w(x[j], t, nw, k1, k2, k3);
        }
}

void kpqc_aimer_gf_sqr_n8_pclmul(uint64_t (*x)[4], unsigned nw, unsigned e) {
    KPQC_AIMER_BY_WIDTH(sqr_n8_w, nw, x, e);
}
