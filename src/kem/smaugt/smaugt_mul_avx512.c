/*
 * AVX-512 kernels: the exact product by two NTTs (smaugt_ntt_core.h) with
 * both primes in one register, 7681 in the low sixteen 16-bit lanes and
 * 10753 in the high sixteen, so each transform, pointwise product and
 * reduction serves both primes at once.  Packing, unpacking and the samplers are
 * AVX2's.
 */
#include "common/ct.h"
#include "common/x86_intrin.h"
#include "smaugt.h"
#include "smaugt_ntt.h"
#include "smaugt_unpack_avx2.h"

typedef __m512i vec;
#define NTT_CONSTS smaugt_ntt_consts32
#define V_ADD _mm512_add_epi16
#define V_SUB _mm512_sub_epi16
#define V_MULLO _mm512_mullo_epi16
#define V_MULHI _mm512_mulhi_epi16
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

static void matvec_acc_avx512(uint16_t (*out)[SMAUGT_N], const uint8_t *const *a, unsigned log_mod,
                              const int16_t (*s)[SMAUGT_N], unsigned rows, unsigned k) {
    const NTT_CONSTS *c = &kpqc_smaugt_ntt32;
    const __m128i shift = _mm_cvtsi32_si128((int)(16 - log_mod));
    vec sh[SMAUGT_KMAX][16], shq[SMAUGT_KMAX][16], acc[16], x[16];
    __m256i row[16];

    for (unsigned j = 0; j < k; j++) {
        for (unsigned i = 0; i < 16; i++)
            sh[j][i] = _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)(s[j] + 16 * i)));
        transform_secret(sh[j], shq[j], c);
    }
    for (unsigned r = 0; r < rows; r++) {
        for (unsigned j = 0; j < k; j++) {
            unpack_row(row, a[r * k + j], log_mod);
            for (unsigned i = 0; i < 16; i++) x[i] = _mm512_broadcast_i64x4(row[i]);
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
    kpqc_wipe(sh, k * sizeof sh[0]); /* the transformed secrets */
    kpqc_wipe(shq, k * sizeof shq[0]);
    kpqc_wipe(acc, sizeof acc);
}

const kpqc_smaugt_backend kpqc_smaugt_backend_avx512 = {{"avx512", KPQC_LEVEL_AVX512},
                                                        matvec_acc_avx512, kpqc_smaugt_unpack_top_avx2,
                                                        kpqc_smaugt_pack_round_avx2, kpqc_smaugt_gaussian_avx2,
                                                        kpqc_smaugt_cbd_avx2};
