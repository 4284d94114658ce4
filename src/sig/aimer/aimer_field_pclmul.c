/* AIMer field products and repeated squarings with PCLMULQDQ. */
#include "common/x86_intrin.h"

#include "aimer_field.h"

static inline __m128i ld(const uint64_t *p) { return _mm_set_epi64x((long long)p[1], (long long)p[0]); }
static inline __m128i mul_lo(__m128i a, __m128i b) { return _mm_clmulepi64_si128(a, b, 0x00); }

static void prod2(uint64_t r[4], const uint64_t a[2], const uint64_t b[2]) {
    __m128i x = ld(a), y = ld(b);
    __m128i lo = _mm_clmulepi64_si128(x, y, 0x00);
    __m128i hi = _mm_clmulepi64_si128(x, y, 0x11);
    __m128i mid = _mm_xor_si128(_mm_clmulepi64_si128(x, y, 0x01), _mm_clmulepi64_si128(x, y, 0x10));
    lo = _mm_xor_si128(lo, _mm_slli_si128(mid, 8));
    hi = _mm_xor_si128(hi, _mm_srli_si128(mid, 8));
    _mm_storeu_si128((__m128i *)r, lo);
    _mm_storeu_si128((__m128i *)(r + 2), hi);
}

/* Schoolbook: the product of words i and j lands at words i+j and i+j+1. */
static inline void prod_n(uint64_t *r, const uint64_t *a, const uint64_t *b, unsigned nw) {
    __m128i even[4], odd[4]; /* even[k]: words 2k,2k+1; odd[k]: words 2k+1,2k+2 */
    for (unsigned k = 0; k < 4; k++) even[k] = odd[k] = _mm_setzero_si128();
    for (unsigned i = 0; i < nw; i++) {
        __m128i ai = _mm_cvtsi64_si128((long long)a[i]);
        for (unsigned j = 0; j < nw; j++) {
            __m128i p = mul_lo(ai, _mm_cvtsi64_si128((long long)b[j]));
            unsigned s = i + j;
            if (s & 1) odd[s >> 1] = _mm_xor_si128(odd[s >> 1], p);
            else even[s >> 1] = _mm_xor_si128(even[s >> 1], p);
        }
    }
    uint64_t e[8], o[8];
    for (unsigned k = 0; k < nw; k++) {
        _mm_storeu_si128((__m128i *)(e + 2 * k), even[k]);
        _mm_storeu_si128((__m128i *)(o + 2 * k), odd[k]);
    }
    r[0] = e[0];
    for (unsigned w = 1; w < 2 * nw; w++) r[w] = e[w] ^ o[w - 1];
}

void kpqc_aimer_gf_mul_pclmul(uint64_t *c, const uint64_t *a, const uint64_t *b, unsigned nw) {
    uint64_t t[8];
    if (nw == 2) prod2(t, a, b);
    else if (nw == 3) prod_n(t, a, b, 3);
    else prod_n(t, a, b, 4);
    KPQC_AIMER_BY_WIDTH(kpqc_aimer_reduce_w, nw, c, t);
}

/* A word's square is its carry-less product with itself. */
static inline void clmul_square(uint64_t t[2], uint64_t w) {
    __m128i x = _mm_cvtsi64_si128((long long)w);
    _mm_storeu_si128((__m128i *)t, mul_lo(x, x));
}
KPQC_AIMER_DEFINE_SQR_N(sqr_n_w, clmul_square)

void kpqc_aimer_gf_sqr_n_pclmul(uint64_t *c, const uint64_t *a, unsigned nw, unsigned e) {
    KPQC_AIMER_BY_WIDTH(sqr_n_w, nw, c, a, e);
}
