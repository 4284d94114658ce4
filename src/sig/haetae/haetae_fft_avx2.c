/*
 * AVX2 build of the key's FFT (see haetae_fft.c), four evaluations per
 * instruction.  Every value is an int32 kept in the low half of a 64-bit
 * lane: vpmuldq multiplies those halves exactly, and additions and the
 * logical shift of a rounded product leave the low halves equal to the
 * portable code's int32 results, bit for bit.  The final squares are
 * non-negative, so their whole lanes are the exact 64-bit results.
 */
#include "haetae.h"

#include "common/x86_intrin.h"

/* (w * x + 2^15) >> 16 in the low halves */
static inline __m256i mulrnd16(__m256i w, __m256i x) {
    return _mm256_srli_epi64(_mm256_add_epi64(_mm256_mul_epi32(w, x), _mm256_set1_epi64x(1 << 15)), 16);
}

static inline unsigned bitrev8(unsigned x) {
    x = ((x & 0xF0) >> 4) | ((x & 0x0F) << 4);
    x = ((x & 0xCC) >> 2) | ((x & 0x33) << 2);
    return ((x & 0xAA) >> 1) | ((x & 0x55) << 1);
}

void kpqc_haetae_fft_sqabs_acc_avx2(int64_t sum[HAETAE_N], const hpoly *a) {
    const int32_t (*roots)[2] = kpqc_haetae_fft_roots;
    int64_t re[HAETAE_N] __attribute__((aligned(32))), im[HAETAE_N] __attribute__((aligned(32)));
    for (unsigned i = 0; i < HAETAE_N; i++) {
        unsigned t = bitrev8(i);
        re[t] = (int32_t)(a->c[i] * roots[i][0]);
        im[t] = (int32_t)(a->c[i] * roots[i][1]);
    }
    /* layers 1 and 2 only use the roots 1 and -i */
    for (unsigned e = 0; e < HAETAE_N; e += 2) {
        int64_t tr = re[e + 1], ti = im[e + 1];
        re[e + 1] = re[e] - tr, im[e + 1] = im[e] - ti;
        re[e] += tr, im[e] += ti;
    }
    for (unsigned n = 0; n < HAETAE_N; n += 4) {
        int64_t tr = re[n + 2], ti = im[n + 2];
        re[n + 2] = re[n] - tr, im[n + 2] = im[n] - ti;
        re[n] += tr, im[n] += ti;
        tr = im[n + 3], ti = -re[n + 3];
        re[n + 3] = re[n + 1] - tr, im[n + 3] = im[n + 1] - ti;
        re[n + 1] += tr, im[n + 1] += ti;
    }
    for (unsigned r = 3; r <= 8; r++) {
        const unsigned half = 1u << (r - 1), sh = 9 - r;
        for (unsigned k = 0; k < half; k += 4) {
            const __m256i w0 = _mm256_set_epi64x(roots[(k + 3) << sh][0], roots[(k + 2) << sh][0],
                                                 roots[(k + 1) << sh][0], roots[k << sh][0]);
            const __m256i w1 = _mm256_set_epi64x(roots[(k + 3) << sh][1], roots[(k + 2) << sh][1],
                                                 roots[(k + 1) << sh][1], roots[k << sh][1]);
            for (unsigned n = 0; n < HAETAE_N; n += 2 * half) {
                unsigned e = n + k, o = e + half;
                __m256i ro = _mm256_load_si256((const __m256i *)&re[o]);
                __m256i io = _mm256_load_si256((const __m256i *)&im[o]);
                __m256i tr = _mm256_sub_epi64(mulrnd16(w0, ro), mulrnd16(w1, io));
                __m256i ti = _mm256_add_epi64(mulrnd16(w0, io), mulrnd16(w1, ro));
                __m256i re_e = _mm256_load_si256((const __m256i *)&re[e]);
                __m256i im_e = _mm256_load_si256((const __m256i *)&im[e]);
                _mm256_store_si256((__m256i *)&re[o], _mm256_sub_epi64(re_e, tr));
                _mm256_store_si256((__m256i *)&im[o], _mm256_sub_epi64(im_e, ti));
                _mm256_store_si256((__m256i *)&re[e], _mm256_add_epi64(re_e, tr));
                _mm256_store_si256((__m256i *)&im[e], _mm256_add_epi64(im_e, ti));
            }
        }
    }
    for (unsigned j = 0; j < HAETAE_N; j += 4) {
        __m256i x = _mm256_load_si256((const __m256i *)&re[j]);
        __m256i y = _mm256_load_si256((const __m256i *)&im[j]);
        int64_t s[4] __attribute__((aligned(32)));
        _mm256_store_si256((__m256i *)s, _mm256_add_epi64(mulrnd16(x, x), mulrnd16(y, y)));
        for (unsigned t = 0; t < 4; t++) sum[j + t] += s[t];
    }
}
