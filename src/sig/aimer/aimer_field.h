/*
 * Binary fields of AIMer: GF(2^128) = GF(2)[x]/(x^128 + x^7 + x^2 + x + 1),
 * GF(2^192) mod x^192 + x^7 + x^2 + x + 1, GF(2^256) mod x^256 + x^10 + x^5 + x^2 + 1.
 * An element is nw little-endian 64-bit words (bit i of word j = x^(64j+i)).
 *
 * Products are formed either with PCLMULQDQ (aimer_field_pclmul.c) or with a
 * portable constant-time carry-less multiplication built on integer
 * multiplications of sparse operands; both give the unreduced 2*nw-word
 * product, which the caller reduces.
 */
#ifndef KPQC_AIMER_FIELD_H
#define KPQC_AIMER_FIELD_H

#include <stdint.h>

/* Unreduced products, r has 2*nw words. */
void kpqc_aimer_prod_portable(uint64_t *r, const uint64_t *a, const uint64_t *b, unsigned nw);
void kpqc_aimer_prod2_pclmul(uint64_t r[4], const uint64_t a[2], const uint64_t b[2]);
void kpqc_aimer_prod3_pclmul(uint64_t r[6], const uint64_t a[3], const uint64_t b[3]);
void kpqc_aimer_prod4_pclmul(uint64_t r[8], const uint64_t a[4], const uint64_t b[4]);
void kpqc_aimer_sqr_pclmul(uint64_t *r, const uint64_t *a, unsigned nw);

/* Reduced field operations (nw = 2, 3, 4); use_clmul selects PCLMULQDQ. */
void kpqc_aimer_gf_mul(uint64_t *c, const uint64_t *a, const uint64_t *b, unsigned nw, int use_clmul);
/* c = a^(2^e): e squarings in one call (a linear map, so shares square too) */
void kpqc_aimer_gf_sqr_n(uint64_t *c, const uint64_t *a, unsigned nw, unsigned e, int use_clmul);
void kpqc_aimer_reduce(uint64_t *c, uint64_t *t, unsigned nw);

#endif
