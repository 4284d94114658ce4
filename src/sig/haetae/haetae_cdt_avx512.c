/* AVX-512 build of the CDT sample (see haetae_sampler.c): eight table
 * entries per instruction; an entry is below the 83-bit input when its
 * high half is, or the high halves are equal and its low half is below,
 * and the opmask of that test counts it with one masked add. */
#include "common/x86_intrin.h"

#include "haetae.h"

uint64_t kpqc_haetae_cdt_sample_avx512(uint64_t lo, uint32_t hi) {
    const __m512i r_lo = _mm512_set1_epi64((int64_t)(lo & ((UINT64_C(1) << HAETAE_CDT_SPLIT) - 1)));
    const __m512i r_hi =
        _mm512_set1_epi64((int64_t)((lo >> HAETAE_CDT_SPLIT) | ((uint64_t)hi << (64 - HAETAE_CDT_SPLIT))));
    const __m512i one = _mm512_set1_epi64(1);
    __m512i acc = _mm512_setzero_si512();
    for (unsigned i = 0; i < HAETAE_CDT_PADDED; i += 8) {
        __m512i c_lo = _mm512_loadu_si512((const void *)&kpqc_haetae_cdt_lo[i]);
        __m512i c_hi = _mm512_loadu_si512((const void *)&kpqc_haetae_cdt_hi[i]);
        __mmask8 below = _mm512_cmplt_epi64_mask(c_hi, r_hi);
        below |= _mm512_mask_cmplt_epi64_mask(_mm512_cmpeq_epi64_mask(c_hi, r_hi), c_lo, r_lo);
        acc = _mm512_mask_add_epi64(acc, below, acc, one);
    }
    return (uint64_t)_mm512_reduce_add_epi64(acc);
}
