/* NTRU+: portable polynomial arithmetic, transforms and encodings. */
#include <string.h>

#include "ntruplus.h"
#include "common/ct.h"
#include "internal.h"

#define Q NTRUPLUS_Q
#define fqmul kpqc_ntruplus_fqmul
#define mont kpqc_ntruplus_mont
#define barrett kpqc_ntruplus_barrett

/*
 * Forward transform.  No reduction until the end: a Montgomery product with
 * a twiddle (|z| <= q/2) has magnitude below |x| q/2^17 + q/2, so from
 * |a| < q the coefficients stay below 8800 after the first split, 12700 and
 * 16800 after the radix-3 layers, and 26000 after the radix-2 layers (four
 * or five of them), inside int16_t.
 */
#define INLINE static inline __attribute__((always_inline))

/* The shape arguments are constants at each call site below, so that every
 * parameter set gets loops of known length. */
INLINE void ntt_core(const kpqc_ntruplus_params *p, int16_t *a, const unsigned n,
                     const unsigned d, const unsigned r3_layers, const unsigned r2_first) {
    const unsigned h = n / 2;
    const int16_t *z = p->zetas;
    unsigned k = 2;

    for (unsigned i = 0; i < h; i++) {
        int16_t t = fqmul(p->zeta1, a[i + h]);
        a[i + h] = (int16_t)(a[i] + a[i + h] - t);
        a[i] = (int16_t)(a[i] + t);
    }
    for (unsigned layer = 0, s = n / 6; layer < r3_layers; layer++, s /= 3) {
        for (unsigned start = 0; start < n; start += 3 * s, k += 2) {
            const int16_t w1 = z[k], w2 = z[k + 1];
            for (unsigned i = start; i < start + s; i++) {
                int16_t t1 = fqmul(w1, a[i + s]);
                int16_t t2 = fqmul(w2, a[i + 2 * s]);
                int16_t t3 = fqmul(NTRUPLUS_OMEGA, (int16_t)(t1 - t2));
                int16_t x = a[i];
                a[i] = (int16_t)(x + t1 + t2);
                a[i + s] = (int16_t)(x - t2 + t3);
                a[i + 2 * s] = (int16_t)(x - t1 - t3);
            }
        }
    }
    for (unsigned s = r2_first; s >= d; s /= 2) {
        for (unsigned start = 0; start < n; start += 2 * s, k++) {
            const int16_t w = z[k];
            for (unsigned i = start; i < start + s; i++) {
                int16_t t = fqmul(w, a[i + s]);
                a[i + s] = (int16_t)(a[i] - t);
                a[i] = (int16_t)(a[i] + t);
            }
        }
    }
    for (unsigned i = 0; i < n; i++) a[i] = barrett(a[i]);
}

void kpqc_ntruplus_ntt_ref(const kpqc_ntruplus_params *p, int16_t *a) {
    switch (p->n) {
    case 768: ntt_core(p, a, 768, 4, 1, 64); break;
    case 864: ntt_core(p, a, 864, 3, 2, 24); break;
    default: ntt_core(p, a, 1152, 4, 2, 32); break;
    }
}

/*
 * Inverse transform: the layers undone in reverse order with the inverse
 * twiddles; the factors 2 and 3 the layers leave are removed at the end
 * (S = 1 / (2^layers2 * 3^layers3)).  A radix-2 layer at most doubles the
 * sums, so they are reduced every second layer (below 4q); the products
 * stay below 0.7q.  Input |a| < q, output |a| < q.
 */
INLINE void invntt_core(const kpqc_ntruplus_params *p, int16_t *a, const unsigned n,
                        const unsigned d, const unsigned r3_layers, const unsigned r2_first) {
    const unsigned h = n / 2;
    const int16_t *zi = p->zinv;
    unsigned k = p->nzetas;
    unsigned s;

    unsigned layer = 0;
    for (s = d; s <= r2_first; s *= 2, layer++) {
        k -= n / (2 * s);
        for (unsigned start = 0, b = k; start < n; start += 2 * s, b++) {
            const int16_t w = zi[b];
            for (unsigned i = start; i < start + s; i++) {
                int16_t u = a[i], v = a[i + s];
                int16_t sum = (int16_t)(u + v);
                a[i] = (layer & 1) ? barrett(sum) : sum;
                a[i + s] = fqmul(w, (int16_t)(u - v));
            }
        }
    }
    s = r3_layers == 2 ? n / 18 : n / 6;
    for (layer = 0; layer < r3_layers; layer++, s *= 3) {
        k -= 2 * (n / (3 * s));
        for (unsigned start = 0, b = k; start < n; start += 3 * s, b += 2) {
            const int16_t w1 = zi[b], w2 = zi[b + 1];
            for (unsigned i = start; i < start + s; i++) {
                int16_t y0 = a[i], y1 = a[i + s], y2 = a[i + 2 * s];
                int16_t e = fqmul(NTRUPLUS_OMEGA, (int16_t)(y1 - y2));
                a[i] = barrett((int16_t)(y0 + y1 + y2));
                a[i + s] = fqmul(w1, (int16_t)(y0 - y1 - e));
                a[i + 2 * s] = fqmul(w2, (int16_t)(y0 - y2 + e));
            }
        }
    }
    for (unsigned i = 0; i < h; i++) {
        int16_t u = a[i], v = a[i + h];
        int16_t b = fqmul(p->c0, (int16_t)(u - v));
        a[i] = fqmul(p->s_half, (int16_t)(u + v - b));
        a[i + h] = fqmul(p->s, b);
    }
}

void kpqc_ntruplus_invntt_ref(const kpqc_ntruplus_params *p, int16_t *a) {
    switch (p->n) {
    case 768: invntt_core(p, a, 768, 4, 1, 64); break;
    case 864: invntt_core(p, a, 864, 3, 2, 24); break;
    default: invntt_core(p, a, 1152, 4, 2, 32); break;
    }
}

/* Product in Z_q[X]/(X^4 - z), z in Montgomery form; result times R^-1. */
static inline void mul4(int32_t r[4], const int16_t *a, const int16_t *b, int16_t z) {
    int32_t h0 = (int32_t)a[1] * b[3] + (int32_t)a[2] * b[2] + (int32_t)a[3] * b[1];
    int32_t h1 = (int32_t)a[2] * b[3] + (int32_t)a[3] * b[2];
    int32_t h2 = (int32_t)a[3] * b[3];
    r[0] = (int32_t)a[0] * b[0] + (int32_t)z * mont(h0);
    r[1] = (int32_t)a[0] * b[1] + (int32_t)a[1] * b[0] + (int32_t)z * mont(h1);
    r[2] = (int32_t)a[0] * b[2] + (int32_t)a[1] * b[1] + (int32_t)a[2] * b[0] +
           (int32_t)z * mont(h2);
    r[3] = (int32_t)a[0] * b[3] + (int32_t)a[1] * b[2] + (int32_t)a[2] * b[1] +
           (int32_t)a[3] * b[0];
}

/* Product in Z_q[X]/(X^3 - z), z in Montgomery form. */
static inline void mul3(int32_t r[3], const int16_t *a, const int16_t *b, int16_t z) {
    int32_t h0 = (int32_t)a[1] * b[2] + (int32_t)a[2] * b[1];
    int32_t h1 = (int32_t)a[2] * b[2];
    r[0] = (int32_t)a[0] * b[0] + (int32_t)z * mont(h0);
    r[1] = (int32_t)a[0] * b[1] + (int32_t)a[1] * b[0] + (int32_t)z * mont(h1);
    r[2] = (int32_t)a[0] * b[2] + (int32_t)a[1] * b[1] + (int32_t)a[2] * b[0];
}

/*
 * r = a * b (+ c).  Each block sum is < 4q^2 + q^2 in magnitude, inside
 * Montgomery's range; mont() leaves a factor R^-1 that the product with R^2
 * (again through mont) turns into none.
 */
INLINE void basemul_core(const kpqc_ntruplus_params *p, int16_t *r, const int16_t *a,
                         const int16_t *b, const int16_t *c, const unsigned n, const unsigned d) {
    const int16_t *bz = kpqc_ntruplus_base_zetas(p);
    const unsigned nb = n / (2 * d);
    int32_t t[4];
    for (unsigned i = 0; i < nb; i++) {
        for (unsigned half = 0; half < 2; half++) {
            const unsigned o = 2 * d * i + d * half;
            const int16_t z = half ? (int16_t)-bz[i] : bz[i];
            if (d == 4)
                mul4(t, a + o, b + o, z);
            else
                mul3(t, a + o, b + o, z);
            for (unsigned j = 0; j < d; j++) {
                int16_t v = fqmul(mont(t[j]), NTRUPLUS_RSQ);
                r[o + j] = c ? barrett((int16_t)(v + c[o + j])) : v;
            }
        }
    }
}

static void basemul_generic(const kpqc_ntruplus_params *p, int16_t *r, const int16_t *a,
                            const int16_t *b, const int16_t *c) {
    switch (p->n) {
    case 768: basemul_core(p, r, a, b, c, 768, 4); break;
    case 864: basemul_core(p, r, a, b, c, 864, 3); break;
    default: basemul_core(p, r, a, b, c, 1152, 4); break;
    }
}

void kpqc_ntruplus_basemul_ref(const kpqc_ntruplus_params *p, int16_t *r, const int16_t *a,
                               const int16_t *b) {
    basemul_generic(p, r, a, b, NULL);
}

void kpqc_ntruplus_basemul_add_ref(const kpqc_ntruplus_params *p, int16_t *r,
                                   const int16_t *a, const int16_t *b, const int16_t *c) {
    basemul_generic(p, r, a, b, c);
}

/* Montgomery product: x y R^-1. */
#define mm(x, y) fqmul((x), (y))

/* Inverse of x under mm (whose unit is R): x^(q-2) by mm, 0 -> 0. */
static int16_t mm_inverse(int16_t x) {
    const unsigned e = NTRUPLUS_Q - 2; /* public exponent */
    int16_t y = x;
    for (int bit = 10; bit >= 0; bit--) {
        y = mm(y, y);
        if ((e >> bit) & 1) y = mm(y, x);
    }
    return y;
}

/*
 * Inversion block by block.  For X^4 - z: a(X) a(-X) = b0 + b1 X^2 with
 * b0 = a0^2 + z (a2^2 - 2 a1 a3), b1 = 2 a0 a2 - a1^2 - z a3^2; the norm is
 * N = b0^2 - z b1^2 and a^-1 = a(-X) (b0 - b1 X^2) / N.  For X^3 - z the
 * adjugate: y = (a0^2 - z a1 a2, z a2^2 - a0 a1, a1^2 - a0 a2), N = a0 y0 +
 * z (a1 y2 + a2 y1), a^-1 = y / N.  a is invertible iff no N is zero.
 *
 * Products are summed in 32 bits and reduced once (Montgomery), so y and N
 * carry known powers of R: y' = y R^-2, N' = N R^-3 for d = 4, y' = y R^-1,
 * N' = N R^-2 for d = 3; in both cases mont(y' * N'^-1) = y / N.  All N' are
 * inverted together (Montgomery's trick, one exponentiation).
 */
int kpqc_ntruplus_baseinv(const kpqc_ntruplus_params *p, int16_t *r, const int16_t *a) {
    const int16_t *bz = kpqc_ntruplus_base_zetas(p);
    const unsigned d = p->d, nblocks = p->n / d;
    int16_t norm[NTRUPLUS_NMAX / 3], prefix[NTRUPLUS_NMAX / 3];
    uint32_t zero = 0;

    for (unsigned blk = 0; blk < nblocks; blk++) {
        const int32_t z = (blk & 1) ? -bz[blk / 2] : bz[blk / 2];
        const int16_t *x = a + d * blk;
        int16_t *y = r + d * blk;
        const int32_t x0 = x[0], x1 = x[1], x2 = x[2];
        int16_t nrm;
        if (d == 4) {
            const int32_t x3 = x[3];
            int32_t b0 = mont(x0 * x0 + z * mont(x2 * x2 - 2 * x1 * x3));
            int32_t b1 = mont(2 * x0 * x2 - x1 * x1 - z * mont(x3 * x3));
            nrm = mont(b0 * b0 - z * mont(b1 * b1));
            y[0] = mont(x0 * b0 - z * mont(x2 * b1));
            y[1] = mont(z * mont(x3 * b1) - x1 * b0);
            y[2] = mont(x2 * b0 - x0 * b1);
            y[3] = mont(x1 * b1 - x3 * b0);
        } else {
            int32_t y0 = mont(x0 * x0 - z * mont(x1 * x2));
            int32_t y1 = mont(z * mont(x2 * x2) - x0 * x1);
            int32_t y2 = mont(x1 * x1 - x0 * x2);
            nrm = mont(x0 * y0 + z * mont(x1 * y2 + x2 * y1));
            y[0] = (int16_t)y0, y[1] = (int16_t)y1, y[2] = (int16_t)y2;
        }
        norm[blk] = nrm;
        zero |= ~kpqc_ct_nonzero_mask32((uint32_t)(int32_t)barrett(nrm)) & 1u;
    }
    int16_t acc = norm[0];
    prefix[0] = acc;
    for (unsigned blk = 1; blk < nblocks; blk++) prefix[blk] = acc = mm(acc, norm[blk]);
    int16_t inv = mm_inverse(acc);
    for (unsigned blk = nblocks; blk-- > 0;) {
        int16_t ninv = blk ? mm(inv, prefix[blk - 1]) : inv; /* mm-inverse: N'^-1 R^2 */
        if (blk) inv = mm(inv, norm[blk]);
        ninv = mont(mont(ninv)); /* N'^-1 */
        for (unsigned j = 0; j < d; j++) r[d * blk + j] = mm(r[d * blk + j], ninv);
    }
    kpqc_wipe(norm, sizeof norm);
    kpqc_wipe(prefix, sizeof prefix);
    return (int)zero;
}

void kpqc_ntruplus_tobytes(const kpqc_ntruplus_params *p, uint8_t *out, const int16_t *a) {
    for (unsigned i = 0; i < p->n / 2; i++) {
        uint16_t t0 = (uint16_t)kpqc_ntruplus_canon(a[2 * i]);
        uint16_t t1 = (uint16_t)kpqc_ntruplus_canon(a[2 * i + 1]);
        out[3 * i] = (uint8_t)t0;
        out[3 * i + 1] = (uint8_t)((t0 >> 8) | (t1 << 4));
        out[3 * i + 2] = (uint8_t)(t1 >> 4);
    }
}

uint32_t kpqc_ntruplus_frombytes(const kpqc_ntruplus_params *p, int16_t *a, const uint8_t *in) {
    uint32_t bad = 0;
    for (unsigned i = 0; i < p->n / 2; i++) {
        uint32_t t[2];
        t[0] = (in[3 * i] | ((uint32_t)in[3 * i + 1] << 8)) & 0xFFF;
        t[1] = ((in[3 * i + 1] >> 4) | ((uint32_t)in[3 * i + 2] << 4)) & 0xFFF;
        for (unsigned j = 0; j < 2; j++) {
            uint32_t ge = ((uint32_t)(NTRUPLUS_Q - 1) - t[j]) >> 31; /* t >= q */
            bad |= ge;
            a[2 * i + j] = (int16_t)(t[j] - (NTRUPLUS_Q & (0u - ge)));
        }
    }
    /* The range verdicts are borrows out of q - 1 - t: secret for a secret
     * key, which MemorySanitizer does not see by itself (KPQC_CT_TAINT). */
    KPQC_CT_TAINT(&bad, sizeof bad, in, 3 * (p->n / 2));
    return 0u - bad;
}

void kpqc_ntruplus_cbd1(const kpqc_ntruplus_params *p, int16_t *a, const uint8_t *buf,
                        int16_t scale) {
    const unsigned m = p->n / 8;
    for (unsigned i = 0; i < m; i++) {
        unsigned x = buf[i], y = buf[i + m];
        for (unsigned j = 0; j < 8; j++)
            a[8 * i + j] = (int16_t)(scale * ((int)((x >> j) & 1) - (int)((y >> j) & 1)));
    }
    /* A coefficient's upper bits are the borrow of a difference of two
     * secret bits: secret, which MemorySanitizer does not see by itself
     * (see KPQC_CT_TAINT; the vector kernels' compares mark whole lanes). */
    KPQC_CT_TAINT(a, p->n * sizeof a[0], buf, p->n / 4);
}

void kpqc_ntruplus_crepmod3(const kpqc_ntruplus_params *p, int16_t *a) {
    for (unsigned i = 0; i < p->n; i++) a[i] = kpqc_ntruplus_crepmod3_coeff(a[i]);
}

void kpqc_ntruplus_invntt_mod3_ntt(const kpqc_ntruplus_params *p, int16_t *m, int16_t *t) {
    kpqc_ntruplus_invntt_ref(p, m);
    kpqc_ntruplus_crepmod3(p, m);
    memcpy(t, m, p->n * sizeof t[0]);
    kpqc_ntruplus_ntt_ref(p, t);
}

uint32_t kpqc_ntruplus_sotp_decode(const kpqc_ntruplus_params *p, uint8_t *msg, const int16_t *m,
                                   const uint8_t *pad) {
    const unsigned mb = p->msgbytes;
    uint32_t bad = 0;
    for (unsigned i = 0; i < mb; i++) {
        unsigned byte = 0;
        for (unsigned j = 0; j < 8; j++) {
            uint32_t v = (uint32_t)(int32_t)(m[8 * i + j] + ((pad[mb + i] >> j) & 1));
            bad |= v;
            byte |= ((v ^ (pad[i] >> j)) & 1u) << j;
        }
        msg[i] = (uint8_t)byte;
    }
    bad = (uint32_t)kpqc_ct_nonzero_mask32(bad >> 1) & 1u;
    uint8_t keep = (uint8_t)(bad - 1);
    for (unsigned i = 0; i < mb; i++) msg[i] &= keep;
    return bad;
}

void kpqc_ntruplus_sub_mul(const kpqc_ntruplus_params *p, int16_t *r, const int16_t *a,
                           const int16_t *b, const int16_t *c) {
    int16_t d[NTRUPLUS_NMAX];
    for (unsigned i = 0; i < p->n; i++) d[i] = barrett((int16_t)(a[i] - b[i]));
    kpqc_ntruplus_basemul_ref(p, r, d, c);
    kpqc_wipe(d, p->n * sizeof d[0]);
}

uint32_t kpqc_ntruplus_neq(const kpqc_ntruplus_params *p, const int16_t *a, const int16_t *b) {
    uint32_t diff = 0;
    for (unsigned i = 0; i < p->n; i++)
        diff |= (uint16_t)(kpqc_ntruplus_canon(a[i]) ^ kpqc_ntruplus_canon(b[i]));
    return kpqc_ct_nonzero_mask32(diff) & 1u;
}

const kpqc_ntruplus_backend kpqc_ntruplus_backend_portable = {
    {"portable", 0}, kpqc_ntruplus_ntt_ref, kpqc_ntruplus_invntt_ref, kpqc_ntruplus_basemul_ref,
    kpqc_ntruplus_basemul_add_ref, kpqc_ntruplus_baseinv, kpqc_ntruplus_invntt_mod3_ntt,
    kpqc_ntruplus_tobytes, kpqc_ntruplus_frombytes, kpqc_ntruplus_cbd1, kpqc_ntruplus_sotp_decode,
    kpqc_ntruplus_sub_mul, kpqc_ntruplus_neq};

static const kpqc_backend_info *const candidates[] = {
#ifdef KPQC_ISA_AVX512
    &kpqc_ntruplus_backend_avx512.info,
#endif
#ifdef KPQC_ISA_AVX2
    &kpqc_ntruplus_backend_avx2.info,
#endif
    &kpqc_ntruplus_backend_portable.info,
};
KPQC_BACKEND_CHOICE(kpqc_ntruplus_backend, kpqc_ntruplus_select_backend, kpqc_ntruplus_backends, candidates)
