/*
 * AVX-512 kernels: the exact product by two NTTs (smaugt_ntt_core.h) with
 * both primes in one register, 7681 in the low sixteen 16-bit lanes and
 * 10753 in the high sixteen, so each transform, pointwise product and
 * reduction serves both primes at once; the product's rows unpacked by
 * VBMI's byte permutation and multishift.  Packing, the unpacking of c2 and
 * the samplers are AVX2's.
 */
#include "common/ct.h"
#include "common/x86_intrin.h"
#include "smaugt.h"
#include "smaugt_ntt.h"

typedef __m512i vec;
#define NTT_CONSTS smaugt_ntt_consts32
#define V_ADD _mm512_add_epi16
#define V_SUB _mm512_sub_epi16
/* The subtraction ending a Montgomery product or a fold, as a masked one
 * with every lane selected: gcc reassociates a plain one into the
 * butterfly's sum and difference, a +- (h - m) -> (a + h) - m and
 * (a + m) - h, one operation more per butterfly, and the forward
 * transform took 9 % longer. */
#define V_SUB_LAST(a, b) _mm512_maskz_sub_epi16(~(__mmask32)0, (a), (b))
#define NTT_FORWARD_INLINE 0
#define V_MULLO _mm512_mullo_epi16
#define V_MULHI _mm512_mulhi_epi16
#define V_MULHRS _mm512_mulhrs_epi16
#define V_SRAI _mm512_srai_epi16
#define V_SET1 _mm512_set1_epi16
#define V_LOAD(p) _mm512_loadu_si512((const void *)(p))

/* The last step of the 16 x 16 transpose, in each 256-bit half: as AVX2's
 * permute2x128, the low 128-bit lanes of c and d to *lo, the high ones to
 * *hi, by one two-source qword permutation each. */
static inline void exchange_halves(vec c, vec d, vec *lo, vec *hi) {
    const __m512i l = _mm512_set_epi64(13, 12, 5, 4, 9, 8, 1, 0), h = _mm512_set_epi64(15, 14, 7, 6, 11, 10, 3, 2);
    *lo = _mm512_permutex2var_epi64(c, l, d);
    *hi = _mm512_permutex2var_epi64(c, h, d);
}
#define V_UNPACKLO16 _mm512_unpacklo_epi16
#define V_UNPACKHI16 _mm512_unpackhi_epi16
#define V_UNPACKLO32 _mm512_unpacklo_epi32
#define V_UNPACKHI32 _mm512_unpackhi_epi32
#define V_UNPACKLO64 _mm512_unpacklo_epi64
#define V_UNPACKHI64 _mm512_unpackhi_epi64

#include "smaugt_ntt_core.h"
#include "smaugt_ntt_crt.h"

/*
 * A public row of 32 bits bytes as the transform's input, 32 fields per
 * step (VBMI): a byte permutation gives each 64-bit lane the 8 bytes from
 * the one holding its first field (lane q of a step starts at bit 4 q bits,
 * byte q bits / 2, offset 4 (q bits mod 2)), a multishift takes each of
 * its 4 fields' low and high bytes from their bit offsets, and shifting
 * the field to the top and back sign-extends it (the bits above the field
 * leave on the way up).  The last steps' loads are masked to the row's
 * end.  Each half of a step's 32 fields is then copied to both halves of
 * a register, one copy per prime.
 */
#define ROW_PERM8(b, q) (char)((q) * (b) / 2), (char)((q) * (b) / 2 + 1), (char)((q) * (b) / 2 + 2), \
    (char)((q) * (b) / 2 + 3), (char)((q) * (b) / 2 + 4), (char)((q) * (b) / 2 + 5), (char)((q) * (b) / 2 + 6), \
    (char)((q) * (b) / 2 + 7)
#define ROW_PERM(b) {ROW_PERM8(b, 0), ROW_PERM8(b, 1), ROW_PERM8(b, 2), ROW_PERM8(b, 3), \
                     ROW_PERM8(b, 4), ROW_PERM8(b, 5), ROW_PERM8(b, 6), ROW_PERM8(b, 7)}
#define ROW_O(b, q) ((q) * (b) % 2 * 4)
#define ROW_SHIFT8(b, q) (char)ROW_O(b, q), (char)(ROW_O(b, q) + 8), (char)(ROW_O(b, q) + (b)), \
    (char)(ROW_O(b, q) + (b) + 8), (char)(ROW_O(b, q) + 2 * (b)), (char)(ROW_O(b, q) + 2 * (b) + 8), \
    (char)(ROW_O(b, q) + 3 * (b)), (char)(ROW_O(b, q) + 3 * (b) + 8)
#define ROW_SHIFT(b) {ROW_SHIFT8(b, 0), ROW_SHIFT8(b, 1), ROW_SHIFT8(b, 2), ROW_SHIFT8(b, 3), \
                      ROW_SHIFT8(b, 4), ROW_SHIFT8(b, 5), ROW_SHIFT8(b, 6), ROW_SHIFT8(b, 7)}
static const _Alignas(64) char row_perm[SMAUGT_WIDTHS][64] = {SMAUGT_WIDTH_TABLE(ROW_PERM)};
static const _Alignas(64) char row_shift[SMAUGT_WIDTHS][64] = {SMAUGT_WIDTH_TABLE(ROW_SHIFT)};

static inline void unpack_row(vec x[16], const uint8_t *in, unsigned bits) {
    const __m512i perm = _mm512_load_si512((const void *)row_perm[bits - 2]);
    const __m512i ctl = _mm512_load_si512((const void *)row_shift[bits - 2]);
    const __m128i up = _mm_cvtsi32_si128((int)(16 - bits));
    for (unsigned m = 0; m < SMAUGT_N / 32; m++) {
        const unsigned start = 4 * m * bits, left = 32 * bits - start;
        const __mmask64 live = left >= 64 ? ~(__mmask64)0 : ((__mmask64)1 << left) - 1;
        __m512i z = _mm512_multishift_epi64_epi8(ctl, _mm512_permutexvar_epi8(perm, _mm512_maskz_loadu_epi8(live, in + start)));
        z = _mm512_sra_epi16(_mm512_sll_epi16(z, up), up);
        x[2 * m] = _mm512_shuffle_i64x2(z, z, 0x44);     /* fields 32 m .. 32 m + 15, twice */
        x[2 * m + 1] = _mm512_shuffle_i64x2(z, z, 0xEE); /* 32 m + 16 .. 32 m + 31, twice */
    }
}

static void matvec_acc_avx512(uint16_t (*out)[SMAUGT_N], const uint8_t *const *a, unsigned log_mod,
                              const int16_t (*s)[SMAUGT_N], unsigned rows, unsigned k) {
    const NTT_CONSTS *c = &kpqc_smaugt_ntt32;
    const __m128i shift = _mm_cvtsi32_si128((int)(16 - log_mod));
    /* The transformed secrets, their products by q^-1 and a row's sums in
     * one block, wiped by one call (each call's start-up was a tenth of
     * a 1 x 4 product). */
    vec secret[2 * SMAUGT_KMAX + 1][16], x[16];
    vec (*const sh)[16] = secret, (*const shq)[16] = secret + k, *const acc = secret[2 * k];

    for (unsigned j = 0; j < k; j++) {
        for (unsigned i = 0; i < 16; i++)
            sh[j][i] = _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)(s[j] + 16 * i)));
        transform_secret(sh[j], shq[j], c);
    }
    for (unsigned r = 0; r < rows; r++) {
        for (unsigned j = 0; j < k; j++) {
            unpack_row(x, a[r * k + j], log_mod);
            ntt_forward(x, c);
            pointwise_acc(acc, x, sh[j], shq[j], j, k, c);
        }
        ntt_inverse(acc, c);
        for (unsigned i = 0; i < 16; i++) {
            __m256i y = crt(_mm512_castsi512_si256(acc[i]), _mm512_extracti64x4_epi64(acc[i], 1));
            __m256i *o = (__m256i *)(out[r] + 16 * i);
            _mm256_storeu_si256(o, _mm256_add_epi16(_mm256_loadu_si256(o), _mm256_sll_epi16(y, shift)));
        }
    }
    kpqc_wipe(secret, (2 * k + 1) * sizeof secret[0]);
}

const kpqc_smaugt_backend kpqc_smaugt_backend_avx512 = {{"avx512", KPQC_LEVEL_AVX512},
                                                        matvec_acc_avx512, kpqc_smaugt_unpack_top_avx2,
                                                        kpqc_smaugt_pack_round_avx2, kpqc_smaugt_gaussian_avx2,
                                                        kpqc_smaugt_cbd_avx2, kpqc_smaugt_unpack_secret_avx2};
