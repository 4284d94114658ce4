/*
 * AVX2 build of the challenge's constant-time shuffle (see
 * kpqc_haetae_shuffle_portable in haetae_poly.c): the 256 bits of c in one
 * register.  A bit's one-hot mask is a variable shift of 1 in each 64-bit
 * lane by the bit's index minus the lane's first (vpsllvq gives 0 for
 * counts outside [0, 64)), whether bit b is set is an OR across the lanes,
 * and i stays in a register: no branch, no secret address.
 */
#include "common/x86_intrin.h"
#include "haetae.h"

uint32_t kpqc_haetae_shuffle_avx2(uint64_t c[4], uint32_t i, const uint8_t *buf, size_t len) {
    const __m256i first = _mm256_setr_epi64x(0, 64, 128, 192), one = _mm256_set1_epi64x(1);
    const __m256i n = _mm256_set1_epi64x(HAETAE_N), zero = _mm256_setzero_si256(), ones = _mm256_set1_epi64x(-1);
    __m256i cv = _mm256_loadu_si256((const __m256i *)c), iv = _mm256_set1_epi64x(i);
    for (size_t pos = 0; pos < len; pos++) {
        const __m256i bv = _mm256_set1_epi64x(buf[pos]);
        const __m256i bit_b = _mm256_sllv_epi64(one, _mm256_sub_epi64(bv, first));
        const __m256i bit_i = _mm256_sllv_epi64(one, _mm256_sub_epi64(iv, first));
        __m256i t = _mm256_and_si256(cv, bit_b);
        t = _mm256_or_si256(t, _mm256_permute4x64_epi64(t, 0x4e));
        t = _mm256_or_si256(t, _mm256_shuffle_epi32(t, 0x4e));
        const __m256i found = _mm256_xor_si256(_mm256_cmpeq_epi64(t, zero), ones);
        /* b <= i and i < 256 */
        const __m256i take = _mm256_andnot_si256(_mm256_cmpgt_epi64(bv, iv), _mm256_cmpgt_epi64(n, iv));
        cv = _mm256_or_si256(cv, _mm256_and_si256(_mm256_blendv_epi8(bit_b, bit_i, found), take));
        iv = _mm256_sub_epi64(iv, take);
    }
    _mm256_storeu_si256((__m256i *)c, cv);
    return (uint32_t)_mm256_cvtsi256_si32(iv);
}
