/*
 * Arithmetic per coefficient of signing and verification, as kernels of
 * the family's table (portable here, AVX2 in haetae_hint_avx2.c): the
 * signer's commitment rows (A y + 2 y2 mod 2q and their high bits) and
 * response z with its two norms; the verifier's squared norm of
 * z1, and from A z1 - q c j the high bits w1 (with the hint) and the
 * squared norm of the z2 they imply.
 */
#include "haetae.h"

uint64_t kpqc_haetae_sqnorm_portable(const hpoly *a) {
    uint64_t norm = 0;
    for (unsigned t = 0; t < HAETAE_N; t++) norm += (uint64_t)((int64_t)a->c[t] * a->c[t]);
    return norm;
}

uint64_t kpqc_haetae_hint_row_portable(hpoly *w1, const hpoly *wq, const hpoly *h, const hpoly *lsb,
                                       unsigned alpha_bits) {
    const int32_t top = (HAETAE_DQ - 2) >> alpha_bits;
    uint64_t norm = 0;
    for (unsigned t = 0; t < HAETAE_N; t++) {
        const int32_t parity = lsb != NULL ? lsb->c[t] : 0;
        /* the value mod 2q from wq mod q and its parity */
        const int32_t v = kpqc_haetae_from_parity(wq->c[t], parity);
        int32_t w = kpqc_haetae_highbits_alpha(v, alpha_bits) + h->c[t];
        w -= top & ~((w - top) >> 31);
        w1->c[t] = w;
        int32_t z2 = kpqc_haetae_freeze2q(w * (1 << alpha_bits) - v + parity);
        z2 -= HAETAE_DQ & ~((z2 - HAETAE_Q) >> 31); /* [-q, q) */
        z2 >>= 1;
        norm += (uint64_t)((int64_t)z2 * z2);
    }
    return norm;
}

void kpqc_haetae_response_portable(int32_t z[HAETAE_N], const int32_t y[HAETAE_N], const hpoly *cs, uint32_t sign,
                                   uint64_t norms[2]) {
    const int32_t neg = -(int32_t)sign;
    for (unsigned t = 0; t < HAETAE_N; t++) {
        int32_t c = kpqc_haetae_center(cs->c[t]);
        c = (c ^ neg) - neg;
        z[t] = y[t] + HAETAE_LN * c;
        const int32_t d = 2 * z[t] - y[t];
        norms[0] += (uint64_t)((int64_t)z[t] * z[t]);
        norms[1] += (uint64_t)((int64_t)d * d);
    }
}

void kpqc_haetae_commit_row_portable(hpoly *w, hpoly *hb, const hpoly *wq, const hpoly *y2, const hpoly *lsb,
                                     unsigned alpha_bits) {
    for (unsigned t = 0; t < HAETAE_N; t++) {
        const int32_t parity = lsb != NULL ? lsb->c[t] : 0;
        /* the ranges the vector kernels' masked corrections rely on */
        KPQC_BOUND(wq->c[t] > -HAETAE_Q && wq->c[t] < HAETAE_Q);
        KPQC_BOUND(y2->c[t] >= -(HAETAE_Q / 2) && y2->c[t] <= HAETAE_Q / 2);
        w->c[t] = kpqc_haetae_from_parity(wq->c[t] + 2 * y2->c[t], parity);
        hb->c[t] = kpqc_haetae_highbits_alpha(w->c[t], alpha_bits);
    }
}
