/*
 * AVX2 store of the four Keccak states' output blocks (see
 * kpqc_haetae_store_rate4): four words of the four states are a 4 x 4
 * transpose, four loads, eight shuffles and four stores, where the
 * portable loop takes a load and a store per word and state.
 */
#include <string.h>

#include "common/x86_intrin.h"
#include "haetae.h"

void kpqc_haetae_store_rate4_avx2(uint8_t *const out[4], const uint64_t *st, unsigned nwords) {
    unsigned i = 0;
    for (; i + 4 <= nwords; i += 4) {
        /* row r: word i + r of the four states */
        const __m256i r0 = _mm256_loadu_si256((const __m256i *)&st[4 * (i + 0)]);
        const __m256i r1 = _mm256_loadu_si256((const __m256i *)&st[4 * (i + 1)]);
        const __m256i r2 = _mm256_loadu_si256((const __m256i *)&st[4 * (i + 2)]);
        const __m256i r3 = _mm256_loadu_si256((const __m256i *)&st[4 * (i + 3)]);
        const __m256i a = _mm256_unpacklo_epi64(r0, r1), b = _mm256_unpackhi_epi64(r0, r1); /* states 0,2 / 1,3 */
        const __m256i c = _mm256_unpacklo_epi64(r2, r3), d = _mm256_unpackhi_epi64(r2, r3);
        _mm256_storeu_si256((__m256i *)(out[0] + 8 * i), _mm256_permute2x128_si256(a, c, 0x20));
        _mm256_storeu_si256((__m256i *)(out[1] + 8 * i), _mm256_permute2x128_si256(b, d, 0x20));
        _mm256_storeu_si256((__m256i *)(out[2] + 8 * i), _mm256_permute2x128_si256(a, c, 0x31));
        _mm256_storeu_si256((__m256i *)(out[3] + 8 * i), _mm256_permute2x128_si256(b, d, 0x31));
    }
    for (; i < nwords; i++)
        for (unsigned j = 0; j < 4; j++) memcpy(out[j] + 8 * i, &st[4 * i + j], 8);
}
