/*
 * Constants of the exact product by number-theoretic transforms (the
 * vector backends): two primes, 7681 and 10753, whose product bounds every
 * coefficient SMAUG-T's products can reach, so the result modulo 2^16 is
 * recovered exactly by the Chinese remainder theorem.  gen_tables.py
 * explains the layout and writes smaugt_ntt_tables.c.
 */
#ifndef KPQC_SMAUGT_NTT_H
#define KPQC_SMAUGT_NTT_H

#include <stdint.h>

typedef struct smaugt_ntt_prime {
    int16_t q, qinv, barrett; /* q, q^-1 mod 2^16, round(2^26 / q) */
    int16_t scale, scale_qinv; /* 2^32 / 256 mod q: undoes the pointwise 2^-16 and the inverse's 256 */
    /* Twiddles in Montgomery form, with their products by qinv: one per
     * vector pair for the layers of length 128..16, one per lane for the
     * layers of length 8..1 (vector 0: length 8; 1-2: length 4; 3-6:
     * length 2; 7-14: length 1). */
    int16_t fwd_hi[15], fwd_hi_qinv[15];
    int16_t fwd_lo[15][16], fwd_lo_qinv[15][16];
    int16_t inv_hi[15], inv_hi_qinv[15];
    int16_t inv_lo[15][16], inv_lo_qinv[15][16];
} smaugt_ntt_prime;

extern const smaugt_ntt_prime kpqc_smaugt_ntt_primes[2];
/* q1^-1 mod q2 in Montgomery form and its product by q2^-1 mod 2^16. */
extern const int16_t kpqc_smaugt_ntt_crt[2];

#endif
