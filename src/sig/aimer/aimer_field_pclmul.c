/*
 * AIMer field products and repeated squarings with PCLMULQDQ, one element
 * or eight independent ones a call (the parties of a batch: their
 * products' latencies overlap instead of queueing behind a call each).
 */
#include "aimer_clmul.h"

#define AIMER_FOLD_LANES fold_lanes
#define AIMER_SQR_LANES sqr_lanes
#define AIMER_MUL_LANES mul_lanes
#define AIMER_MUL_WIDE mul_wide
#define V __m128i
#define CLMUL(a, b, i) _mm_clmulepi64_si128((a), (b), (i))
#define XOR(a, b) _mm_xor_si128((a), (b))
#define BSLL8(a) _mm_slli_si128((a), 8)
#define BSRL8(a) _mm_srli_si128((a), 8)
#include "aimer_sqr_lanes.h"

/* The tail of x^n as a carry-less multiplier. */
static inline __m128i tail(unsigned nw) { return _mm_cvtsi32_si128(nw == 4 ? 0x425 : 0x87); }

static inline void load_lanes(__m128i x[2], const uint64_t *a, unsigned nw) {
    x[0] = _mm_loadu_si128((const __m128i *)a);
    x[1] = nw == 4 ? _mm_loadu_si128((const __m128i *)(a + 2)) : _mm_cvtsi64_si128((long long)a[2]);
}

static inline void store_lanes(uint64_t *c, const __m128i x[2], unsigned nw) {
    _mm_storeu_si128((__m128i *)c, x[0]);
    if (nw == 4) _mm_storeu_si128((__m128i *)(c + 2), x[1]);
    else c[2] = (uint64_t)_mm_cvtsi128_si64(x[1]);
}

/* c = a^(2^e), kept in registers for all e squarings. */
static inline __attribute__((always_inline)) void sqr_n_w(uint64_t *c, const uint64_t *a, unsigned e,
                                                          const unsigned nw, const unsigned k1,
                                                          const unsigned k2, const unsigned k3) {
    (void)k1, (void)k2, (void)k3;
    if (nw == 2) {
        __m128i v = _mm_loadu_si128((const __m128i *)a);
        for (unsigned r = 0; r < e; r++) v = kpqc_aimer_sqr128(v); /* e is public */
        _mm_storeu_si128((__m128i *)c, v);
        return;
    }
    __m128i x[2];
    load_lanes(x, a, nw);
    for (unsigned r = 0; r < e; r++) sqr_lanes(x, nw, tail(nw)); /* e is public */
    store_lanes(c, x, nw);
}

/* c = a * b, the wider fields in lanes. */
static inline __attribute__((always_inline)) void mul_w(uint64_t *c, const uint64_t *a, const uint64_t *b,
                                                        const unsigned nw) {
    if (nw == 2) {
        _mm_storeu_si128((__m128i *)c, kpqc_aimer_mul128(_mm_loadu_si128((const __m128i *)a),
                                                         _mm_loadu_si128((const __m128i *)b)));
        return;
    }
    __m128i x[2], y[2];
    load_lanes(x, a, nw);
    load_lanes(y, b, nw);
    mul_lanes(x, x, y, nw, tail(nw));
    store_lanes(c, x, nw);
}

void kpqc_aimer_gf_mul_pclmul(uint64_t *c, const uint64_t *a, const uint64_t *b, unsigned nw) {
    if (nw == 2) mul_w(c, a, b, 2);
    else if (nw == 3) mul_w(c, a, b, 3);
    else mul_w(c, a, b, 4);
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
    (void)k1, (void)k2, (void)k3;
    for (unsigned j = 0; j < 8; j++) mul_w(c[j], a[j], b[j], nw);
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
    (void)k1, (void)k2, (void)k3;
    __m128i v[8][2];
    for (unsigned j = 0; j < 8; j++) load_lanes(v[j], x[j], nw);
    for (unsigned r = 0; r < e; r++) /* e is public */
        for (unsigned j = 0; j < 8; j++) sqr_lanes(v[j], nw, tail(nw));
    for (unsigned j = 0; j < 8; j++) store_lanes(x[j], v[j], nw);
}

void kpqc_aimer_gf_sqr_n8_pclmul(uint64_t (*x)[4], unsigned nw, unsigned e) {
    KPQC_AIMER_BY_WIDTH(sqr_n8_w, nw, x, e);
}

/* c_j += sum_{i<m} a[8i+j] b[8i+j]: the products summed unreduced (the
 * fold is linear), one fold per sum. */
static inline __attribute__((always_inline)) void mul8_sum_w(uint64_t (*c)[4], const uint64_t (*a)[4],
                                                             const uint64_t (*b)[4], unsigned m, const unsigned nw,
                                                             const unsigned k1, const unsigned k2, const unsigned k3) {
    (void)k1, (void)k2, (void)k3;
    for (unsigned j = 0; j < 8; j++) {
        if (nw == 2) {
            __m128i lo = _mm_setzero_si128(), hi = _mm_setzero_si128();
            for (unsigned i = 0; i < m; i++) {
                __m128i l, h;
                kpqc_aimer_mul128_wide(&l, &h, _mm_loadu_si128((const __m128i *)a[8 * i + j]),
                                       _mm_loadu_si128((const __m128i *)b[8 * i + j]));
                lo = _mm_xor_si128(lo, l);
                hi = _mm_xor_si128(hi, h);
            }
            _mm_storeu_si128((__m128i *)c[j],
                             _mm_xor_si128(_mm_loadu_si128((const __m128i *)c[j]), kpqc_aimer_fold128(lo, hi)));
            continue;
        }
        __m128i t[4] = {_mm_setzero_si128(), _mm_setzero_si128(), _mm_setzero_si128(), _mm_setzero_si128()};
        for (unsigned i = 0; i < m; i++) {
            __m128i x[2], y[2], u[4];
            load_lanes(x, a[8 * i + j], nw);
            load_lanes(y, b[8 * i + j], nw);
            mul_wide(u, x, y, nw);
            for (unsigned w = 0; w < 4; w++) t[w] = _mm_xor_si128(t[w], u[w]);
        }
        __m128i r[2], cj[2];
        fold_lanes(r, t[0], t[1], t[2], t[3], nw, tail(nw));
        load_lanes(cj, c[j], nw);
        cj[0] = _mm_xor_si128(cj[0], r[0]);
        cj[1] = _mm_xor_si128(cj[1], r[1]);
        store_lanes(c[j], cj, nw);
    }
}

void kpqc_aimer_gf_mul8_sum_pclmul(uint64_t (*c)[4], const uint64_t (*a)[4], const uint64_t (*b)[4], unsigned nw,
                                   unsigned m) {
    KPQC_AIMER_BY_WIDTH(mul8_sum_w, nw, c, a, b, m);
}
