/*
 * Arithmetic mod q = 64513 and the negacyclic NTT of length 256.
 *
 * The public matrix is sampled directly in the NTT domain, so the transform
 * must be the specification's: zeta = 426 of order 512, outputs in
 * bit-reversed order, Montgomery factor 2^32.  Inputs are not reduced
 * between layers: inputs below 12q in absolute value keep every
 * intermediate inside int32.
 */
#include "haetae.h"
#include "haetae_ntt_kernel.h"
#include "internal.h"

/* r = a * 2^-32 mod q with |r| < q, for |a| < 2^31 q. */
int32_t kpqc_haetae_montgomery_reduce(int64_t a) { return ntt_montgomery(a); }

void kpqc_haetae_ntt_portable(hpoly *p) {
    int32_t *a = p->c;
    for (unsigned j = 0; j < HAETAE_N; j++) KPQC_BOUND(a[j] > -12 * HAETAE_Q && a[j] < 12 * HAETAE_Q);
    unsigned k = 0;
    for (unsigned len = 128; len > 0; len >>= 1) {
        for (unsigned start = 0; start < HAETAE_N; start += 2 * len) {
            const int64_t zeta = haetae_zetas[++k];
            for (unsigned j = start; j < start + len; j++) {
                int32_t t = ntt_montgomery(zeta * a[j + len]);
                a[j + len] = a[j] - t;
                a[j] = a[j] + t;
            }
        }
    }
}

void kpqc_haetae_invntt_portable(hpoly *p) {
    int32_t *a = p->c;
    unsigned k = 256;
    for (unsigned len = 1; len < HAETAE_N; len <<= 1) {
        for (unsigned start = 0; start < HAETAE_N; start += 2 * len) {
            const int64_t zeta = -haetae_zetas[--k];
            for (unsigned j = start; j < start + len; j++) {
                int32_t t = a[j];
                a[j] = t + a[j + len];
                a[j + len] = ntt_montgomery(zeta * (t - a[j + len]));
            }
        }
    }
    for (unsigned j = 0; j < HAETAE_N; j++) a[j] = ntt_montgomery((int64_t)HAETAE_INVNTT_F * a[j]);
}

/* r = a * b * 2^-32 coefficient by coefficient, or r += that (acc). */
static inline void pointwise(hpoly *r, const hpoly *a, const hpoly *b, int acc) {
    for (unsigned j = 0; j < HAETAE_N; j++) {
        int32_t t = ntt_montgomery((int64_t)a->c[j] * b->c[j]);
        r->c[j] = acc ? r->c[j] + t : t;
    }
}

void kpqc_haetae_pointwise(hpoly *r, const hpoly *a, const hpoly *b) { pointwise(r, a, b, 0); }
void kpqc_haetae_pointwise_acc(hpoly *r, const hpoly *a, const hpoly *b) { pointwise(r, a, b, 1); }
