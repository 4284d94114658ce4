/*
 * AVX2 kernels: the exact product by two NTTs (smaugt_ntt_core.h), one
 * prime per register of sixteen 16-bit lanes; bit-string unpacking,
 * rounding with packing, and the Gaussian error's expansion to lanes.
 */
#include <string.h>

#include "common/ct.h"
#include "common/x86_intrin.h"
#include "smaugt.h"
#include "smaugt_ntt.h"

typedef __m256i vec;
#define NTT_CONSTS smaugt_ntt_consts16
#define V_ADD _mm256_add_epi16
#define V_SUB _mm256_sub_epi16
/* A plain subtraction ends the reductions here: gcc reassociates it into
 * the butterflies (see the AVX-512 backend), but the form it keeps, a
 * saturating one, made the ymm products 1-2 % slower. */
#define V_SUB_LAST _mm256_sub_epi16
#define NTT_FORWARD_INLINE 1
#define V_MULLO _mm256_mullo_epi16
#define V_MULHI _mm256_mulhi_epi16
#define V_MULHRS _mm256_mulhrs_epi16
#define V_SRAI _mm256_srai_epi16
#define V_SET1 _mm256_set1_epi16
#define V_LOAD(p) _mm256_loadu_si256((const __m256i *)(p))

/* The last step of the 16 x 16 transpose: the 128-bit halves of c
 * (rows 0-7) and d (rows 8-15) exchanged, low halves to *lo, high to *hi. */
static inline void exchange_halves(vec c, vec d, vec *lo, vec *hi) {
    *lo = _mm256_permute2x128_si256(c, d, 0x20);
    *hi = _mm256_permute2x128_si256(c, d, 0x31);
}
#define V_UNPACKLO16 _mm256_unpacklo_epi16
#define V_UNPACKHI16 _mm256_unpackhi_epi16
#define V_UNPACKLO32 _mm256_unpacklo_epi32
#define V_UNPACKHI32 _mm256_unpackhi_epi32
#define V_UNPACKLO64 _mm256_unpacklo_epi64
#define V_UNPACKHI64 _mm256_unpackhi_epi64

#include "smaugt_ntt_core.h"
#include "smaugt_ntt_crt.h"

/*
 * Unpacking 16 fields per step: each group of 8 fields is `bits` bytes;
 * the 16 bytes from a group's start go to both halves of a register, a
 * byte shuffle gives each 32-bit lane the three bytes its field touches,
 * a variable shift and a mask cut the field out.  The first 24 groups'
 * loads stay inside the input (23 bits + 16 <= 32 bits); the last 8 groups
 * are read from a zero-padded copy.  The callers do their own
 * per-coefficient work on each step's 16 fields, with no second pass.
 */
typedef struct {
    __m256i shuf, shift, mask;
} unpack_consts;

/* Per width (2..11), fixed at compile time: field c of a group starts at
 * bit c * bits, in byte c * bits / 8 at offset c * bits % 8. */
#define UNPACK_SHUF1(b, c) (uint8_t)((c) * (b) / 8), (uint8_t)((c) * (b) / 8 + 1), (uint8_t)((c) * (b) / 8 + 2), 0x80
#define UNPACK_SHUF(b)                                                                                        \
    {UNPACK_SHUF1(b, 0), UNPACK_SHUF1(b, 1), UNPACK_SHUF1(b, 2), UNPACK_SHUF1(b, 3),                          \
     UNPACK_SHUF1(b, 4), UNPACK_SHUF1(b, 5), UNPACK_SHUF1(b, 6), UNPACK_SHUF1(b, 7)}
#define UNPACK_OFF(b) {0, (b) % 8, 2 * (b) % 8, 3 * (b) % 8, 4 * (b) % 8, 5 * (b) % 8, 6 * (b) % 8, 7 * (b) % 8}
static const _Alignas(32) uint8_t unpack_shuf[SMAUGT_WIDTHS][32] = {SMAUGT_WIDTH_TABLE(UNPACK_SHUF)};
static const _Alignas(32) uint32_t unpack_off[SMAUGT_WIDTHS][8] = {SMAUGT_WIDTH_TABLE(UNPACK_OFF)};

static inline unpack_consts unpack_setup(unsigned bits) {
    unpack_consts u = {_mm256_load_si256((const __m256i *)unpack_shuf[bits - 2]),
                       _mm256_load_si256((const __m256i *)unpack_off[bits - 2]), _mm256_set1_epi32((1 << bits) - 1)};
    return u;
}

static inline __m256i unpack_group(const uint8_t *g, const unpack_consts *u) {
    __m256i x = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)g));
    return _mm256_and_si256(_mm256_srlv_epi32(_mm256_shuffle_epi8(x, u->shuf), u->shift), u->mask);
}

/* Fields 16 it .. 16 it + 15; tail holds the last 8 groups, zero-padded. */
static inline __m256i unpack16(const uint8_t *in, const uint8_t *tail, unsigned it, unsigned bits,
                               const unpack_consts *u) {
    const uint8_t *g = it < 12 ? in + 2 * it * bits : tail + (2 * it - 24) * bits;
    __m256i g0 = unpack_group(g, u), g1 = unpack_group(g + bits, u);
    /* packus interleaves the halves: qwords g0 0-3, g1 0-3, g0 4-7, g1 4-7 */
    return _mm256_permute4x64_epi64(_mm256_packus_epi32(g0, g1), 0xD8);
}

/* A public row of 32 bits bytes (a polynomial modulo 2^bits) as 16
 * vectors of its centred values, each field sign-extended from its top
 * bit: the product kernels' input, straight from the packed bytes. */
static inline void unpack_row(__m256i x[16], const uint8_t *in, unsigned bits) {
    uint8_t tail[8 * SMAUGT_LOG_Q_MAX + 16] = {0};
    const unpack_consts u = unpack_setup(bits);
    const __m128i up = _mm_cvtsi32_si128((int)(16 - bits));
    memcpy(tail, in + 24 * bits, 8 * bits);
    for (unsigned it = 0; it < SMAUGT_N / 16; it++)
        x[it] = _mm256_sra_epi16(_mm256_sll_epi16(unpack16(in, tail, it, bits, &u), up), up);
}

static const NTT_CONSTS *const primes[2] = {&kpqc_smaugt_ntt16_q7681, &kpqc_smaugt_ntt16_q10753};

static void matvec_acc_avx2(uint16_t (*out)[SMAUGT_N], const uint8_t *const *a, unsigned log_mod,
                            const int16_t (*s)[SMAUGT_N], unsigned rows, unsigned k) {
    const __m128i shift = _mm_cvtsi32_si128((int)(16 - log_mod));
    /* As on AVX-512: the secrets' blocks and a row's sums, wiped at once. */
    vec secret[2 * SMAUGT_KMAX + 1][2][16], x[16], row[16];
    vec (*const sh)[2][16] = secret, (*const shq)[2][16] = secret + k, (*const acc)[16] = secret[2 * k];

    for (unsigned j = 0; j < k; j++)
        for (unsigned p = 0; p < 2; p++) {
            for (unsigned i = 0; i < 16; i++) sh[j][p][i] = V_LOAD(s[j] + 16 * i);
            transform_secret(sh[j][p], shq[j][p], primes[p]);
        }
    for (unsigned r = 0; r < rows; r++) {
        for (unsigned j = 0; j < k; j++) {
            unpack_row(row, a[r * k + j], log_mod);
            memcpy(x, row, sizeof x); /* the first prime transforms a copy, the second the row itself */
            vec *in[2] = {x, row};
            for (unsigned p = 0; p < 2; p++) {
                ntt_forward(in[p], primes[p]);
                pointwise_acc(acc[p], in[p], sh[j][p], shq[j][p], j, k, primes[p]);
            }
        }
        for (unsigned p = 0; p < 2; p++) ntt_inverse(acc[p], primes[p]);
        for (unsigned i = 0; i < 16; i++) {
            __m256i *o = (__m256i *)(out[r] + 16 * i);
            _mm256_storeu_si256(o, _mm256_add_epi16(_mm256_loadu_si256(o),
                                                    _mm256_sll_epi16(crt(acc[0][i], acc[1][i]), shift)));
        }
    }
    kpqc_wipe(secret, (2 * k + 1) * sizeof secret[0]);
}

void kpqc_smaugt_unpack_top_avx2(uint16_t v[SMAUGT_N], const uint8_t *in, unsigned bits) {
    uint8_t tail[8 * SMAUGT_LOG_Q_MAX + 16] = {0};
    const unpack_consts u = unpack_setup(bits);
    const __m128i up = _mm_cvtsi32_si128((int)(16 - bits));
    memcpy(tail, in + 24 * bits, 8 * bits);
    for (unsigned it = 0; it < SMAUGT_N / 16; it++)
        _mm256_storeu_si256((__m256i *)(v + 16 * it), _mm256_sll_epi16(unpack16(in, tail, it, bits, &u), up));
}

/* kpqc_smaugt_cbd_fields on 16 fields a step, straight from the unpacking
 * (the branch is on the public parameter set only). */
void kpqc_smaugt_cbd_avx2(int16_t r[SMAUGT_N], const uint8_t *buf, enum smaugt_cbd kind) {
    uint8_t tail[8 * SMAUGT_LOG_Q_MAX + 16] = {0};
    const unsigned bits = smaugt_cbd_width(kind);
    const unpack_consts u = unpack_setup(bits);
    const __m256i one = _mm256_set1_epi16(1);
    memcpy(tail, buf + 24 * bits, 8 * bits);
    for (unsigned it = 0; it < SMAUGT_N / 16; it++) {
        const __m256i f = unpack16(buf, tail, it, bits, &u);
        __m256i x;
        if (kind == SMAUGT_CBD1) { /* b0 - b1 */
            x = _mm256_sub_epi16(_mm256_and_si256(f, one), _mm256_and_si256(_mm256_srli_epi16(f, 1), one));
        } else { /* non-zero nz, negated by the sign bit sg: nz - 2 (nz & sg) */
            __m256i nz, sg;
            if (kind == SMAUGT_SPARSE_CBD3) {
                nz = _mm256_and_si256(_mm256_and_si256(f, _mm256_srli_epi16(f, 1)), one);
                sg = _mm256_srli_epi16(f, 2);
            } else {
                nz = _mm256_and_si256(_mm256_and_si256(_mm256_or_si256(f, _mm256_srli_epi16(f, 1)), _mm256_srli_epi16(f, 2)),
                                      one);
                sg = _mm256_srli_epi16(f, 3);
            }
            const __m256i neg = _mm256_and_si256(nz, sg);
            x = _mm256_sub_epi16(nz, _mm256_add_epi16(neg, neg));
        }
        _mm256_storeu_si256((__m256i *)(r + 16 * it), x);
    }
    kpqc_wipe(tail, sizeof tail); /* r's seed bytes */
}

/* The secret's 2-bit fields, 16 a step from 4 bytes: a byte shuffle puts
 * byte i in the low half of lanes 4i..4i+3, a multiply moves field j to
 * bits 6..7 (by 2^(6 - 2j)), a shift and a mask leave f, and s = 1 - f. */
void kpqc_smaugt_unpack_secret_avx2(int16_t s[SMAUGT_N], const uint8_t in[SMAUGT_SKPOLY_BYTES]) {
    const __m256i spread = _mm256_setr_epi8(0, -1, 0, -1, 0, -1, 0, -1, 1, -1, 1, -1, 1, -1, 1, -1,
                                            2, -1, 2, -1, 2, -1, 2, -1, 3, -1, 3, -1, 3, -1, 3, -1);
    const __m256i up = _mm256_setr_epi16(64, 16, 4, 1, 64, 16, 4, 1, 64, 16, 4, 1, 64, 16, 4, 1);
    const __m256i three = _mm256_set1_epi16(3), one = _mm256_set1_epi16(1);
    for (unsigned it = 0; it < SMAUGT_N / 16; it++) {
        uint32_t w;
        memcpy(&w, in + 4 * it, sizeof w);
        __m256i f = _mm256_shuffle_epi8(_mm256_set1_epi32((int)w), spread);
        f = _mm256_and_si256(_mm256_srli_epi16(_mm256_mullo_epi16(f, up), 6), three);
        _mm256_storeu_si256((__m256i *)(s + 16 * it), _mm256_sub_epi16(one, f));
    }
}

/*
 * Rounding and packing 16 values per step (8 per 128-bit half, which then
 * make `bits` bytes): the rounded fields are paired into 32-bit lanes by a
 * multiply-add, each lane shifted to its bit offset within its first byte,
 * and four byte shuffles put the lanes' bytes in place, ORed where they
 * share a byte.  Each half is stored whole (16 bytes), the next store
 * overwriting its tail.
 */
/* Per width, fixed at compile time: pair i (< 4) of a half starts at bit
 * 2 bits i, in byte F = 2 bits i / 8 at offset 2 bits i % 8; shuffle i
 * moves its lane's bytes 4i..4i+3 to bytes F..F+3 of the half. */
#define PACK_F(b, i) (2 * (b) * (i) / 8)
#define PACK_CTL1(b, i, d) (uint8_t)((d) >= PACK_F(b, i) && (d) < PACK_F(b, i) + 4 ? 4 * (i) + (d) - PACK_F(b, i) : 0x80)
#define PACK_CTL4(b, i, d) PACK_CTL1(b, i, d), PACK_CTL1(b, i, (d) + 1), PACK_CTL1(b, i, (d) + 2), PACK_CTL1(b, i, (d) + 3)
#define PACK_CTL16(b, i) PACK_CTL4(b, i, 0), PACK_CTL4(b, i, 4), PACK_CTL4(b, i, 8), PACK_CTL4(b, i, 12)
#define PACK_CTL(b) {{PACK_CTL16(b, 0), PACK_CTL16(b, 0)}, {PACK_CTL16(b, 1), PACK_CTL16(b, 1)}, \
                     {PACK_CTL16(b, 2), PACK_CTL16(b, 2)}, {PACK_CTL16(b, 3), PACK_CTL16(b, 3)}}
#define PACK_OFF(b) {0, 2 * (b) % 8, 4 * (b) % 8, 6 * (b) % 8, 0, 2 * (b) % 8, 4 * (b) % 8, 6 * (b) % 8}
static const _Alignas(32) uint8_t pack_ctl[SMAUGT_WIDTHS][4][32] = {SMAUGT_WIDTH_TABLE(PACK_CTL)};
static const _Alignas(32) uint32_t pack_off[SMAUGT_WIDTHS][8] = {SMAUGT_WIDTH_TABLE(PACK_OFF)};

void kpqc_smaugt_pack_round_avx2(uint8_t *out, const uint16_t v[SMAUGT_N], unsigned bits) {
    uint8_t tail[8 * SMAUGT_LOG_Q_MAX + 16];
    const __m256i shift = _mm256_load_si256((const __m256i *)pack_off[bits - 2]);
    const __m256i c0 = _mm256_load_si256((const __m256i *)pack_ctl[bits - 2][0]);
    const __m256i c1 = _mm256_load_si256((const __m256i *)pack_ctl[bits - 2][1]);
    const __m256i c2 = _mm256_load_si256((const __m256i *)pack_ctl[bits - 2][2]);
    const __m256i c3 = _mm256_load_si256((const __m256i *)pack_ctl[bits - 2][3]);
    const __m256i half = _mm256_set1_epi16((int16_t)(1 << (15 - bits)));
    const __m256i pair = _mm256_set1_epi32((int)((1u << bits) << 16 | 1u)); /* x[2i] + x[2i+1] 2^bits */
    const __m128i down = _mm_cvtsi32_si128((int)(16 - bits));
    for (unsigned it = 0; it < SMAUGT_N / 16; it++) {
        __m256i x = _mm256_srl_epi16(_mm256_add_epi16(_mm256_loadu_si256((const __m256i *)(v + 16 * it)), half), down);
        __m256i m = _mm256_sllv_epi32(_mm256_madd_epi16(x, pair), shift);
        __m256i r = _mm256_or_si256(_mm256_or_si256(_mm256_shuffle_epi8(m, c0), _mm256_shuffle_epi8(m, c1)),
                                    _mm256_or_si256(_mm256_shuffle_epi8(m, c2), _mm256_shuffle_epi8(m, c3)));
        /* the first 24 groups' 16-byte stores stay inside out (23 bits + 16
         * <= 32 bits for bits >= 2); the last 8 go through tail */
        uint8_t *g = it < 12 ? out + 2 * it * bits : tail + (2 * it - 24) * bits;
        _mm_storeu_si128((__m128i *)g, _mm256_castsi256_si128(r));
        _mm_storeu_si128((__m128i *)(g + bits), _mm256_extracti128_si256(r, 1));
    }
    memcpy(out + 24 * bits, tail, 8 * bits);
    kpqc_wipe(tail, sizeof tail); /* the re-encryption in decapsulation is secret until compared */
}

/*
 * The Gaussian error: the bit-sliced words as the portable code makes them,
 * then 16 coefficients a step: each word's 16 bits broadcast to the lanes
 * and compared with the lane's own bit give all-ones masks, from which
 * the signed magnitude is assembled.
 */
void kpqc_smaugt_gaussian_avx2(smaugt_poly *e, const uint8_t buf[SMAUGT_GAUSS_BYTES], unsigned log_q) {
    const __m256i bit = _mm256_setr_epi16(1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384,
                                          (int16_t)0x8000);
    const __m256i one = _mm256_set1_epi16(1), two = _mm256_set1_epi16(2);
    const __m128i up = _mm_cvtsi32_si128((int)(16 - log_q));
    for (unsigned blk = 0; blk < SMAUGT_N / 64; blk++) {
        uint64_t w[3];
        kpqc_smaugt_gaussian_words(w, buf + 80 * blk);
        for (unsigned q = 0; q < 4; q++) {
            __m256i m[3];
            for (unsigned t = 0; t < 3; t++) {
                __m256i b = _mm256_and_si256(_mm256_set1_epi16((int16_t)(uint16_t)(w[t] >> (16 * q))), bit);
                m[t] = _mm256_cmpeq_epi16(b, bit);
            }
            __m256i mag = _mm256_or_si256(_mm256_and_si256(m[0], one), _mm256_and_si256(m[1], two));
            __m256i v = _mm256_sub_epi16(_mm256_xor_si256(mag, m[2]), m[2]); /* +-mag */
            _mm256_storeu_si256((__m256i *)(e->c + 64 * blk + 16 * q), _mm256_sll_epi16(v, up));
        }
        kpqc_wipe(w, sizeof w);
    }
}

const kpqc_smaugt_backend kpqc_smaugt_backend_avx2 = {{"avx2", KPQC_FEAT_AVX2}, matvec_acc_avx2,
                                                  kpqc_smaugt_unpack_top_avx2, kpqc_smaugt_pack_round_avx2,
                                                  kpqc_smaugt_gaussian_avx2, kpqc_smaugt_cbd_avx2,
                                                  kpqc_smaugt_unpack_secret_avx2};
