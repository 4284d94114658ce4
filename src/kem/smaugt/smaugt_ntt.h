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

/* Every field is a vector of L 16-bit lanes: q, q^-1 mod 2^16, the Barrett
 * factor round(2^26 / q), the coarser fold's round(2^15 / q), the inverse's final factor 2^32 / 256 mod q
 * (undoing the pointwise product's 2^-16 and the butterflies' 256), and
 * the twiddles tw[direction (0 forward, 1 inverse)][0 value, 1 value times
 * q^-1][k]: k < 15 one per pair of vectors (the layers of length 128..16),
 * 15 + k one per lane (length 8: k = 0; 4: 1-2; 2: 3-6; 1: 7-14); and
 * the inverse's last twiddle times the final factor. */
#define SMAUGT_NTT_CONSTS(L)                                    \
    struct {                                                    \
        _Alignas(64) int16_t q[L];                              \
        int16_t qinv[L], barrett[L], fold[L], scale[L], scale_qinv[L];   \
        int16_t tw[2][2][30][L];                                \
        int16_t last[L], last_qinv[L];                          \
    }

typedef SMAUGT_NTT_CONSTS(16) smaugt_ntt_consts16; /* one prime */
typedef SMAUGT_NTT_CONSTS(32) smaugt_ntt_consts32; /* lanes 0-15 the first prime, 16-31 the second */

extern const smaugt_ntt_consts16 kpqc_smaugt_ntt16_q7681, kpqc_smaugt_ntt16_q10753;
extern const smaugt_ntt_consts32 kpqc_smaugt_ntt32;
/* q1^-1 mod q2, centred, and round(2^15 c / q2) (smaugt_ntt_crt.h). */
extern const int16_t kpqc_smaugt_ntt_crt[2];

#endif
