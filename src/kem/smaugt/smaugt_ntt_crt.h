/*
 * The recombination of the two primes' results (smaugt_ntt.h) on sixteen
 * 16-bit lanes, for both vector backends (AVX-512 splits its registers in
 * halves).  x1 in (-q1, q1) and x2 in (-q2, q2) are the product modulo
 * each prime; the product X, |X| < 2^21, is x1 + q1 t with
 * t = (x2 - x1) / q1 mod q2 taken in (-q2/2, q2/2), and modulo 2^16 that
 * is one multiply-add on 16-bit lanes.  t is a Barrett product by
 * c = q1^-1 mod q2: d c - q2 round(d c15 / 2^15) is congruent to t and
 * smaller in size than q2 - |t| for every d = x2 - x1 (gen_tables.py
 * checks them all), so it is t itself, whichever representative x1 is:
 * neither x1 nor t needs centring.
 */
#ifndef KPQC_SMAUGT_NTT_CRT_H
#define KPQC_SMAUGT_NTT_CRT_H

static inline __m256i crt(__m256i x1, __m256i x2) {
    const __m256i q1 = _mm256_set1_epi16(7681), q2 = _mm256_set1_epi16(10753);
    const __m256i c = _mm256_set1_epi16(kpqc_smaugt_ntt_crt[0]), c15 = _mm256_set1_epi16(kpqc_smaugt_ntt_crt[1]);
    const __m256i d = _mm256_sub_epi16(x2, x1);
    const __m256i t = _mm256_sub_epi16(_mm256_mullo_epi16(d, c), _mm256_mullo_epi16(_mm256_mulhrs_epi16(d, c15), q2));
    return _mm256_add_epi16(x1, _mm256_mullo_epi16(t, q1));
}

#endif
