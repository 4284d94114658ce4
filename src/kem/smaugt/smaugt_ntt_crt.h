/*
 * The recombination of the two primes' results (smaugt_ntt.h) on sixteen
 * 16-bit lanes, for both vector backends (AVX-512 splits its registers in
 * halves).  x1 in (-q1, q1) and x2 in (-q2, q2) are the product modulo
 * each prime; the product X, |X| < q1 q2 / 2, is x1 + q1 t with x1 centred
 * and t = (x2 - x1) / q1 mod q2 centred, and modulo 2^16 that is one
 * multiply-add on 16-bit lanes.
 */
#ifndef KPQC_SMAUGT_NTT_CRT_H
#define KPQC_SMAUGT_NTT_CRT_H

/* x in (-q, q) to its representative in [-(q-1)/2, (q-1)/2]. */
static inline __m256i centre(__m256i x, __m256i q, __m256i half) {
    x = _mm256_add_epi16(x, _mm256_and_si256(q, _mm256_srai_epi16(x, 15)));
    return _mm256_sub_epi16(x, _mm256_and_si256(q, _mm256_cmpgt_epi16(x, half)));
}

static inline __m256i crt(__m256i x1, __m256i x2) {
    const __m256i q1 = _mm256_set1_epi16(7681), q2 = _mm256_set1_epi16(10753);
    const __m256i h1 = _mm256_set1_epi16(7681 / 2), h2 = _mm256_set1_epi16(10753 / 2);
    const __m256i c = _mm256_set1_epi16(kpqc_smaugt_ntt_crt[0]), cq = _mm256_set1_epi16(kpqc_smaugt_ntt_crt[1]);
    x1 = centre(x1, q1, h1);
    __m256i d = _mm256_sub_epi16(x2, x1);
    __m256i t = _mm256_sub_epi16(_mm256_mulhi_epi16(d, c), _mm256_mulhi_epi16(_mm256_mullo_epi16(d, cq), q2));
    t = centre(t, q2, h2);
    return _mm256_add_epi16(x1, _mm256_mullo_epi16(t, q1));
}

#endif
