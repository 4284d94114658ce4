/*
 * AVX2 product kernel: the exact product by two NTTs (smaugt_ntt.h) on
 * sixteen 16-bit lanes.
 *
 * A polynomial is 16 vectors; vector v, lane l holds coefficient 16 v + l.
 * The layers of length 128..16 pair whole vectors; a 16 x 16 transpose then
 * makes the layers of length 8..1 pair whole vectors too (with a twiddle
 * per lane).  The transformed polynomial stays in that transposed, bit-
 * reversed order: the pointwise product does not care, and the inverse
 * walks the same path back.
 *
 * Ranges (signed 16-bit): inputs |x| <= 2^13; Montgomery products land in
 * (-q, q); the forward transform Barrett-reduces to [0, q] after every
 * second layer, so its sums stay below 3q < 2^15 (3 * 10753 = 32259); the
 * inverse reduces its sums after every layer.  Everything is arithmetic on
 * whole vectors: no branch or address depends on the data.
 */
#include <string.h>

#include "common/ct.h"
#include "common/x86_intrin.h"
#include "smaugt.h"
#include "smaugt_ntt.h"

typedef struct {
    __m256i v[16];
} ntt_poly;

/* a * b * 2^-16 mod q, in (-q, q); bq = b * q^-1 mod 2^16. */
static inline __m256i montmul(__m256i a, __m256i b, __m256i bq, __m256i q) {
    __m256i t = _mm256_mullo_epi16(a, bq);
    return _mm256_sub_epi16(_mm256_mulhi_epi16(a, b), _mm256_mulhi_epi16(t, q));
}

/* x - floor(x v / 2^26) q, in [0, q] for every 16-bit x. */
static inline __m256i barrett(__m256i x, __m256i q, __m256i v) {
    __m256i t = _mm256_srai_epi16(_mm256_mulhi_epi16(x, v), 10);
    return _mm256_sub_epi16(x, _mm256_mullo_epi16(t, q));
}

static void reduce_all(ntt_poly *x, const smaugt_ntt_prime *p) {
    const __m256i q = _mm256_set1_epi16(p->q), v = _mm256_set1_epi16(p->barrett);
    for (unsigned i = 0; i < 16; i++) x->v[i] = barrett(x->v[i], q, v);
}

/* 16 x 16 transpose: two 8 x 8 transposes per 128-bit half, then the
 * halves exchanged. */
static void transpose(ntt_poly *x) {
    __m256i c[16];
    for (unsigned h = 0; h < 2; h++) {
        const __m256i *r = x->v + 8 * h;
        __m256i a[8], b[8];
        for (unsigned i = 0; i < 4; i++) {
            a[2 * i] = _mm256_unpacklo_epi16(r[2 * i], r[2 * i + 1]);
            a[2 * i + 1] = _mm256_unpackhi_epi16(r[2 * i], r[2 * i + 1]);
        }
        for (unsigned i = 0; i < 2; i++) { /* rows 4i..4i+3 */
            b[4 * i + 0] = _mm256_unpacklo_epi32(a[4 * i], a[4 * i + 2]);     /* columns 0, 1 */
            b[4 * i + 1] = _mm256_unpackhi_epi32(a[4 * i], a[4 * i + 2]);     /* 2, 3 */
            b[4 * i + 2] = _mm256_unpacklo_epi32(a[4 * i + 1], a[4 * i + 3]); /* 4, 5 */
            b[4 * i + 3] = _mm256_unpackhi_epi32(a[4 * i + 1], a[4 * i + 3]); /* 6, 7 */
        }
        for (unsigned i = 0; i < 4; i++) {
            c[8 * h + 2 * i] = _mm256_unpacklo_epi64(b[i], b[i + 4]);
            c[8 * h + 2 * i + 1] = _mm256_unpackhi_epi64(b[i], b[i + 4]);
        }
    }
    /* c[j] (rows 0-7) and c[8 + j] (rows 8-15) hold columns j and j + 8 */
    for (unsigned j = 0; j < 8; j++) {
        x->v[j] = _mm256_permute2x128_si256(c[j], c[8 + j], 0x20);
        x->v[j + 8] = _mm256_permute2x128_si256(c[j], c[8 + j], 0x31);
    }
}

/* Cooley-Tukey butterflies between vectors j and j + len (len in vectors). */
static inline void ct_layer_hi(ntt_poly *x, unsigned len, const smaugt_ntt_prime *p, __m256i q) {
    unsigned k = 16 / (2 * len) - 1; /* the layer's first twiddle */
    for (unsigned start = 0; start < 16; start += 2 * len, k++) {
        const __m256i z = _mm256_set1_epi16(p->fwd_hi[k]), zq = _mm256_set1_epi16(p->fwd_hi_qinv[k]);
        for (unsigned j = start; j < start + len; j++) {
            __m256i t = montmul(x->v[j + len], z, zq, q);
            x->v[j + len] = _mm256_sub_epi16(x->v[j], t);
            x->v[j] = _mm256_add_epi16(x->v[j], t);
        }
    }
}

/* The same on the transposed matrix, where lane r of a twiddle vector
 * serves row r; the layer's blocks take the vectors from `first` on. */
static inline void ct_layer_lo(ntt_poly *x, unsigned len, unsigned first, const smaugt_ntt_prime *p, __m256i q) {
    for (unsigned start = 0; start < 16; start += 2 * len) {
        const unsigned k = first + start / (2 * len);
        const __m256i z = _mm256_loadu_si256((const __m256i *)p->fwd_lo[k]);
        const __m256i zq = _mm256_loadu_si256((const __m256i *)p->fwd_lo_qinv[k]);
        for (unsigned j = start; j < start + len; j++) {
            __m256i t = montmul(x->v[j + len], z, zq, q);
            x->v[j + len] = _mm256_sub_epi16(x->v[j], t);
            x->v[j] = _mm256_add_epi16(x->v[j], t);
        }
    }
}

static void ntt(ntt_poly *x, const smaugt_ntt_prime *p) {
    const __m256i q = _mm256_set1_epi16(p->q);
    ct_layer_hi(x, 8, p, q);
    ct_layer_hi(x, 4, p, q);
    reduce_all(x, p);
    ct_layer_hi(x, 2, p, q);
    ct_layer_hi(x, 1, p, q);
    transpose(x);
    reduce_all(x, p);
    ct_layer_lo(x, 8, 0, p, q);
    ct_layer_lo(x, 4, 1, p, q);
    reduce_all(x, p);
    ct_layer_lo(x, 2, 3, p, q);
    ct_layer_lo(x, 1, 7, p, q);
}

/* Gentleman-Sande butterflies: (u, w) -> (u + w reduced, (u - w) z). */
static inline void gs_pair(__m256i *u, __m256i *w, __m256i z, __m256i zq, __m256i q, __m256i v) {
    __m256i d = _mm256_sub_epi16(*u, *w);
    *u = barrett(_mm256_add_epi16(*u, *w), q, v);
    *w = montmul(d, z, zq, q);
}

static void invntt(ntt_poly *x, const smaugt_ntt_prime *p) {
    const __m256i q = _mm256_set1_epi16(p->q), v = _mm256_set1_epi16(p->barrett);
    static const unsigned first_lo[4] = {7, 3, 1, 0}; /* twiddle vectors of lengths 1, 2, 4, 8 */
    for (unsigned l = 0, len = 1; len <= 8; l++, len <<= 1)
        for (unsigned start = 0; start < 16; start += 2 * len) {
            const unsigned k = first_lo[l] + start / (2 * len);
            const __m256i z = _mm256_loadu_si256((const __m256i *)p->inv_lo[k]);
            const __m256i zq = _mm256_loadu_si256((const __m256i *)p->inv_lo_qinv[k]);
            for (unsigned j = start; j < start + len; j++) gs_pair(&x->v[j], &x->v[j + len], z, zq, q, v);
        }
    transpose(x);
    for (unsigned len = 1; len <= 8; len <<= 1) {
        unsigned k = 16 / (2 * len) - 1;
        for (unsigned start = 0; start < 16; start += 2 * len, k++) {
            const __m256i z = _mm256_set1_epi16(p->inv_hi[k]), zq = _mm256_set1_epi16(p->inv_hi_qinv[k]);
            for (unsigned j = start; j < start + len; j++) gs_pair(&x->v[j], &x->v[j + len], z, zq, q, v);
        }
    }
    const __m256i f = _mm256_set1_epi16(p->scale), fq = _mm256_set1_epi16(p->scale_qinv);
    for (unsigned i = 0; i < 16; i++) x->v[i] = montmul(x->v[i], f, fq, q);
}

/* x in (-q, q) to its representative in [-(q-1)/2, (q-1)/2]. */
static inline __m256i centre(__m256i x, __m256i q, __m256i half) {
    x = _mm256_add_epi16(x, _mm256_and_si256(q, _mm256_srai_epi16(x, 15)));
    return _mm256_sub_epi16(x, _mm256_and_si256(q, _mm256_cmpgt_epi16(x, half)));
}

static void matvec_acc_avx2(uint16_t (*out)[SMAUGT_N], const uint16_t *const *a, const int16_t (*s)[SMAUGT_N],
                            unsigned rows, unsigned k, unsigned log_mod) {
    const smaugt_ntt_prime *pr = kpqc_smaugt_ntt_primes;
    const __m128i shift = _mm_cvtsi32_si128((int)(16 - log_mod));
    ntt_poly sh[SMAUGT_KMAX][2], acc[2], x;

    for (unsigned j = 0; j < k; j++)
        for (unsigned p = 0; p < 2; p++) {
            for (unsigned i = 0; i < 16; i++) sh[j][p].v[i] = _mm256_loadu_si256((const __m256i *)(s[j] + 16 * i));
            ntt(&sh[j][p], &pr[p]);
            reduce_all(&sh[j][p], &pr[p]);
        }
    for (unsigned r = 0; r < rows; r++) {
        for (unsigned j = 0; j < k; j++) {
            const uint16_t *row = a[r * k + j];
            for (unsigned p = 0; p < 2; p++) {
                const __m256i q = _mm256_set1_epi16(pr[p].q), v = _mm256_set1_epi16(pr[p].barrett);
                const __m256i qinv = _mm256_set1_epi16(pr[p].qinv);
                for (unsigned i = 0; i < 16; i++)
                    x.v[i] = _mm256_sra_epi16(_mm256_loadu_si256((const __m256i *)(row + 16 * i)), shift);
                ntt(&x, &pr[p]);
                for (unsigned i = 0; i < 16; i++) {
                    const __m256i b = sh[j][p].v[i];
                    __m256i m = montmul(x.v[i], b, _mm256_mullo_epi16(b, qinv), q);
                    acc[p].v[i] = j == 0 ? m : barrett(_mm256_add_epi16(acc[p].v[i], m), q, v);
                }
            }
        }
        for (unsigned p = 0; p < 2; p++) invntt(&acc[p], &pr[p]);
        const __m256i q1 = _mm256_set1_epi16(pr[0].q), q2 = _mm256_set1_epi16(pr[1].q);
        const __m256i h1 = _mm256_set1_epi16((int16_t)(pr[0].q / 2)), h2 = _mm256_set1_epi16((int16_t)(pr[1].q / 2));
        const __m256i c = _mm256_set1_epi16(kpqc_smaugt_ntt_crt[0]), cq = _mm256_set1_epi16(kpqc_smaugt_ntt_crt[1]);
        for (unsigned i = 0; i < 16; i++) {
            /* X = x1 + q1 t with t = (x2 - x1) / q1 mod q2, both centred */
            __m256i x1 = centre(acc[0].v[i], q1, h1);
            __m256i t = centre(montmul(_mm256_sub_epi16(acc[1].v[i], x1), c, cq, q2), q2, h2);
            __m256i y = _mm256_add_epi16(x1, _mm256_mullo_epi16(t, q1));
            __m256i *o = (__m256i *)(out[r] + 16 * i);
            _mm256_storeu_si256(o, _mm256_add_epi16(_mm256_loadu_si256(o), _mm256_sll_epi16(y, shift)));
        }
    }
    kpqc_wipe(sh, k * sizeof sh[0]); /* the transformed secrets */
    kpqc_wipe(acc, sizeof acc);
}

/*
 * Unpacking 16 fields per step: each group of 8 fields is `bits` bytes;
 * the 16 bytes from a group's start go to both halves of a register, a
 * byte shuffle gives each 32-bit lane the three bytes its field touches,
 * a variable shift and a mask cut the field out.  The input is copied into
 * a padded buffer first, so the last loads stay inside it.
 */
static void unpack_bits_avx2(uint16_t v[SMAUGT_N], const uint8_t *in, unsigned bits) {
    uint8_t buf[SMAUGT_LOG_Q_MAX * SMAUGT_N / 8 + 16] = {0};
    uint8_t ctl[32];
    uint32_t off[8];
    memcpy(buf, in, bits * SMAUGT_N / 8);
    for (unsigned c = 0; c < 8; c++) {
        const unsigned first = c * bits / 8;
        for (unsigned t = 0; t < 3; t++) ctl[4 * c + t] = (uint8_t)(first + t);
        ctl[4 * c + 3] = 0x80; /* zero */
        off[c] = c * bits % 8;
    }
    const __m256i shuf = _mm256_loadu_si256((const __m256i *)ctl), shift = _mm256_loadu_si256((const __m256i *)off);
    const __m256i mask = _mm256_set1_epi32((1 << bits) - 1);
    for (unsigned it = 0; it < SMAUGT_N / 16; it++) {
        const uint8_t *g = buf + 2 * it * bits;
        __m256i g0 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)g));
        __m256i g1 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(g + bits)));
        g0 = _mm256_and_si256(_mm256_srlv_epi32(_mm256_shuffle_epi8(g0, shuf), shift), mask);
        g1 = _mm256_and_si256(_mm256_srlv_epi32(_mm256_shuffle_epi8(g1, shuf), shift), mask);
        /* packus interleaves the halves: qwords g0 0-3, g1 0-3, g0 4-7, g1 4-7 */
        __m256i w = _mm256_permute4x64_epi64(_mm256_packus_epi32(g0, g1), 0xD8);
        _mm256_storeu_si256((__m256i *)(v + 16 * it), w);
    }
    kpqc_wipe(buf, sizeof buf); /* r's seed bytes pass through here */
}

const kpqc_smaugt_backend kpqc_smaugt_backend_avx2 = {{"avx2", KPQC_FEAT_AVX2}, matvec_acc_avx2, unpack_bits_avx2};
