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

/* i with its eight bits reversed */
static const uint8_t bitrev8[HAETAE_N] = {
    0, 128, 64, 192, 32, 160, 96, 224, 16, 144, 80, 208, 48, 176, 112, 240,
    8, 136, 72, 200, 40, 168, 104, 232, 24, 152, 88, 216, 56, 184, 120, 248,
    4, 132, 68, 196, 36, 164, 100, 228, 20, 148, 84, 212, 52, 180, 116, 244,
    12, 140, 76, 204, 44, 172, 108, 236, 28, 156, 92, 220, 60, 188, 124, 252,
    2, 130, 66, 194, 34, 162, 98, 226, 18, 146, 82, 210, 50, 178, 114, 242,
    10, 138, 74, 202, 42, 170, 106, 234, 26, 154, 90, 218, 58, 186, 122, 250,
    6, 134, 70, 198, 38, 166, 102, 230, 22, 150, 86, 214, 54, 182, 118, 246,
    14, 142, 78, 206, 46, 174, 110, 238, 30, 158, 94, 222, 62, 190, 126, 254,
    1, 129, 65, 193, 33, 161, 97, 225, 17, 145, 81, 209, 49, 177, 113, 241,
    9, 137, 73, 201, 41, 169, 105, 233, 25, 153, 89, 217, 57, 185, 121, 249,
    5, 133, 69, 197, 37, 165, 101, 229, 21, 149, 85, 213, 53, 181, 117, 245,
    13, 141, 77, 205, 45, 173, 109, 237, 29, 157, 93, 221, 61, 189, 125, 253,
    3, 131, 67, 195, 35, 163, 99, 227, 19, 147, 83, 211, 51, 179, 115, 243,
    11, 139, 75, 203, 43, 171, 107, 235, 27, 155, 91, 219, 59, 187, 123, 251,
    7, 135, 71, 199, 39, 167, 103, 231, 23, 151, 87, 215, 55, 183, 119, 247,
    15, 143, 79, 207, 47, 175, 111, 239, 31, 159, 95, 223, 63, 191, 127, 255,
};

/* The products by the twists in bit-reversed order and the first two
 * layers (roots 1 and -i), four points at a time in registers. */
static void fft_start(int64_t re[HAETAE_N], int64_t im[HAETAE_N], const hpoly *a) {
    const int32_t (*roots)[2] = kpqc_haetae_fft_roots;
    for (unsigned n = 0; n < HAETAE_N; n += 4) {
        int64_t r[4], m[4];
        for (unsigned j = 0; j < 4; j++) {
            const unsigned i = bitrev8[n + j];
            r[j] = (int32_t)(a->c[i] * roots[i][0]);
            m[j] = (int32_t)(a->c[i] * roots[i][1]);
        }
        const int64_t r0 = r[0] + r[1], r1 = r[0] - r[1], r2 = r[2] + r[3], r3 = r[2] - r[3];
        const int64_t m0 = m[0] + m[1], m1 = m[0] - m[1], m2 = m[2] + m[3], m3 = m[2] - m[3];
        re[n] = r0 + r2, im[n] = m0 + m2;
        re[n + 2] = r0 - r2, im[n + 2] = m0 - m2;
        re[n + 1] = r1 + m3, im[n + 1] = m1 - r3; /* times -i */
        re[n + 3] = r1 - m3, im[n + 3] = m1 + r3;
    }
}

/* Layer r (3 to 8) four butterflies an instruction. */
static void fft_layer(int64_t re[HAETAE_N], int64_t im[HAETAE_N], unsigned r) {
    const int32_t (*roots)[2] = kpqc_haetae_fft_roots;
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

void kpqc_haetae_fft_sqabs_acc_avx2(int64_t sum[HAETAE_N], const hpoly *a) {
    int64_t re[HAETAE_N] __attribute__((aligned(32))), im[HAETAE_N] __attribute__((aligned(32)));
    fft_start(re, im, a);
    for (unsigned r = 3; r <= 8; r++) fft_layer(re, im, r);
    for (unsigned j = 0; j < HAETAE_N; j += 4) {
        __m256i x = _mm256_load_si256((const __m256i *)&re[j]);
        __m256i y = _mm256_load_si256((const __m256i *)&im[j]);
        __m256i s = _mm256_loadu_si256((const __m256i *)&sum[j]);
        _mm256_storeu_si256((__m256i *)&sum[j], _mm256_add_epi64(s, _mm256_add_epi64(mulrnd16(x, x), mulrnd16(y, y))));
    }
}
