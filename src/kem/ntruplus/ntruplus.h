/*
 * NTRU+ (KpqC final): shared definitions of the three parameter sets.
 *
 * Ring R_q = Z_q[X]/(X^n - X^(n/2) + 1), q = 3457, n = 768, 864 or 1152.
 * The NTT maps R_q to a product of small rings Z_q[X]/(X^d -+ z) (d = 4, or
 * 3 for n = 864) in three stages: a split by a sixth root of unity, one or
 * two radix-3 layers, then radix-2 layers.  Polynomials are int16_t arrays
 * of NTRUPLUS_NMAX entries of which the first n are used.
 */
#ifndef KPQC_NTRUPLUS_H
#define KPQC_NTRUPLUS_H

#include <stddef.h>
#include <stdint.h>

#include "common/bounds.h"
#include "common/cpu.h"

#define NTRUPLUS_Q 3457
#define NTRUPLUS_NMAX 1152
#define NTRUPLUS_SYMBYTES 32
#define NTRUPLUS_SSBYTES 32

/* Montgomery constants (R = 2^16). */
#define NTRUPLUS_QINV 12929   /* q^-1 mod 2^16 */
#define NTRUPLUS_RSQ 867      /* R^2 mod q */
#define NTRUPLUS_RINV (-682)  /* R^-1 mod q */
#define NTRUPLUS_OMEGA (-886) /* cube root of unity, times R, mod q */

typedef struct kpqc_ntruplus_params {
    uint16_t n, d, polybytes, msgbytes;
    uint16_t nzetas;    /* twiddles in the tables */
    uint16_t r3_layers; /* radix-3 layers (strides n/6, n/18) */
    uint16_t r2_first;  /* stride of the first radix-2 layer; halves down to d */
    int16_t zeta1;      /* sixth root of the first split, Montgomery form */
    int16_t c0;         /* (2*zeta1 - 1)^-1, Montgomery form */
    int16_t s_half, s;  /* inverse-transform scale S/2 and S, Montgomery form */
    const int16_t *zetas; /* forward twiddles, Montgomery form */
    const int16_t *zinv;  /* their inverses, same indices */
} kpqc_ntruplus_params;

extern const kpqc_ntruplus_params kpqc_ntruplus_params768;
extern const kpqc_ntruplus_params kpqc_ntruplus_params864;
extern const kpqc_ntruplus_params kpqc_ntruplus_params1152;

/* Twiddles of the base rings: block i is X^d - z_i (then X^d + z_i). */
static inline const int16_t *kpqc_ntruplus_base_zetas(const kpqc_ntruplus_params *p) {
    return p->zetas + p->nzetas - p->n / (2 * p->d);
}

/* Field arithmetic. */
static inline int16_t kpqc_ntruplus_mont(int32_t a) {
    /* a * R^-1 mod q in (-q, q), for |a| < q * 2^15 */
    KPQC_BOUND(a > -NTRUPLUS_Q * 32768 && a < NTRUPLUS_Q * 32768);
    int16_t t = (int16_t)((uint32_t)a * NTRUPLUS_QINV);
    return (int16_t)((a - (int32_t)t * NTRUPLUS_Q) >> 16);
}
static inline int16_t kpqc_ntruplus_fqmul(int16_t a, int16_t b) {
    return kpqc_ntruplus_mont((int32_t)a * b);
}
static inline int16_t kpqc_ntruplus_barrett(int16_t a) {
    /* centred representative, |result| <= q/2 */
    const int32_t v = ((1 << 26) + NTRUPLUS_Q / 2) / NTRUPLUS_Q;
    int16_t t = (int16_t)((v * a + (1 << 25)) >> 26);
    return (int16_t)(a - t * NTRUPLUS_Q);
}
/* Canonical representative in [0, q) of any a with |a| < q. */
static inline int16_t kpqc_ntruplus_canon(int16_t a) {
    KPQC_BOUND(a > -NTRUPLUS_Q && a < NTRUPLUS_Q);
    return (int16_t)(a + ((a >> 15) & NTRUPLUS_Q));
}
/* The representative in {-1, 0, 1} of (a mod+- q) mod 3, for |a| < q:
 * branch-free integer steps that compilers also vectorise. */
static inline int16_t kpqc_ntruplus_crepmod3_coeff(int16_t a) {
    int32_t x = kpqc_ntruplus_canon(a);                        /* [0, q) */
    x -= NTRUPLUS_Q & -(((NTRUPLUS_Q / 2) - x) >> 31 & 1); /* centred, |x| <= q/2 */
    x += NTRUPLUS_Q / 2;                                 /* [0, q), same class mod 3 */
    int32_t r = x - 3 * ((x * 21846) >> 16);             /* x mod 3 */
    return (int16_t)(r - 3 * (r >> 1));                  /* 0, 1, 2 -> 0, 1, -1 */
}

/* The family's kernel table (see common/cpu.h): transforms and products,
 * every backend's agreeing mod q.  Inputs have |coefficient| < q; outputs
 * too. */
typedef struct kpqc_ntruplus_backend {
    kpqc_backend_info info;
    void (*ntt)(const kpqc_ntruplus_params *p, int16_t *a);
    void (*invntt)(const kpqc_ntruplus_params *p, int16_t *a);
    /* r = a * b in the NTT domain (r may alias a or b) */
    void (*basemul)(const kpqc_ntruplus_params *p, int16_t *r, const int16_t *a,
                    const int16_t *b);
    /* r = a * b + c in the NTT domain (r may alias any input) */
    void (*basemul_add)(const kpqc_ntruplus_params *p, int16_t *r, const int16_t *a,
                        const int16_t *b, const int16_t *c);
    /* r = a^-1 in the NTT domain; 1 if a is not invertible (r then
     * meaningless), else 0; constant time */
    int (*baseinv)(const kpqc_ntruplus_params *p, int16_t *r, const int16_t *a);
    /* decryption's middle: m = invntt(m) mod+- 3 coefficient-wise (as
     * kpqc_ntruplus_crepmod3), then t = ntt(m) */
    void (*invntt_mod3_ntt)(const kpqc_ntruplus_params *p, int16_t *m, int16_t *t);
    /* serialisation, as kpqc_ntruplus_tobytes / kpqc_ntruplus_frombytes */
    void (*tobytes)(const kpqc_ntruplus_params *p, uint8_t *out, const int16_t *a);
    uint32_t (*frombytes)(const kpqc_ntruplus_params *p, int16_t *a, const uint8_t *in);
    /* sampling and message decoding, as kpqc_ntruplus_cbd1 and
     * kpqc_ntruplus_sotp_decode */
    void (*cbd1)(const kpqc_ntruplus_params *p, int16_t *a, const uint8_t *buf, int16_t scale);
    uint32_t (*sotp_decode)(const kpqc_ntruplus_params *p, uint8_t *msg, const int16_t *m,
                            const uint8_t *pad);
    /* r = (a - b) c in the NTT domain (r may alias any input) */
    void (*sub_mul)(const kpqc_ntruplus_params *p, int16_t *r, const int16_t *a,
                    const int16_t *b, const int16_t *c);
    /* 1 if a and b differ mod q at some coefficient, else 0; constant time */
    uint32_t (*neq)(const kpqc_ntruplus_params *p, const int16_t *a, const int16_t *b);
} kpqc_ntruplus_backend;

extern const kpqc_ntruplus_backend kpqc_ntruplus_backend_portable;
#ifdef KPQC_ISA_AVX2
extern const kpqc_ntruplus_backend kpqc_ntruplus_backend_avx2;
#ifdef KPQC_ISA_AVX512
extern const kpqc_ntruplus_backend kpqc_ntruplus_backend_avx512;
#endif
/* Twiddles laid out for the vector code (ntruplus_tables.c). */
extern const int16_t kpqc_ntruplus_avx_tail_fwd768[768], kpqc_ntruplus_avx_tail_inv768[768];
extern const int16_t kpqc_ntruplus_avx_tail_fwd864[576], kpqc_ntruplus_avx_tail_inv864[576];
extern const int16_t kpqc_ntruplus_avx_tail_fwd1152[1152], kpqc_ntruplus_avx_tail_inv1152[1152];
/* The same twiddles times q^-1 mod 2^16. */
extern const int16_t kpqc_ntruplus_avx_tail_fwd768_qinv[768], kpqc_ntruplus_avx_tail_inv768_qinv[768];
extern const int16_t kpqc_ntruplus_avx_tail_fwd864_qinv[576], kpqc_ntruplus_avx_tail_inv864_qinv[576];
extern const int16_t kpqc_ntruplus_avx_tail_fwd1152_qinv[1152], kpqc_ntruplus_avx_tail_inv1152_qinv[1152];
extern const int16_t kpqc_ntruplus_avx_base768[192], kpqc_ntruplus_avx_base864[288],
    kpqc_ntruplus_avx_base1152[288];
#endif

/* The backend of an operation (ntruplus_poly.c lists them). */
const kpqc_ntruplus_backend *kpqc_ntruplus_select_backend(void);
const kpqc_backend_info *const *kpqc_ntruplus_backends(size_t *n);

/* Portable building blocks (ntruplus_poly.c). */
void kpqc_ntruplus_ntt_ref(const kpqc_ntruplus_params *p, int16_t *a);
void kpqc_ntruplus_invntt_ref(const kpqc_ntruplus_params *p, int16_t *a);
void kpqc_ntruplus_basemul_ref(const kpqc_ntruplus_params *p, int16_t *r, const int16_t *a,
                               const int16_t *b);
void kpqc_ntruplus_basemul_add_ref(const kpqc_ntruplus_params *p, int16_t *r,
                                   const int16_t *a, const int16_t *b, const int16_t *c);
/* Portable inversion (see the backend's baseinv). */
int kpqc_ntruplus_baseinv(const kpqc_ntruplus_params *p, int16_t *r, const int16_t *a);

/* Serialisation: 12 bits per coefficient, canonical form. */
void kpqc_ntruplus_tobytes(const kpqc_ntruplus_params *p, uint8_t *out, const int16_t *a);
/* Returns all-ones if some coefficient was >= q (it is then reduced), else 0. */
uint32_t kpqc_ntruplus_frombytes(const kpqc_ntruplus_params *p, int16_t *a, const uint8_t *in);

/* a_i = scale * (bit i of buf[0..n/8) - bit i of buf[n/8..n/4)) */
void kpqc_ntruplus_cbd1(const kpqc_ntruplus_params *p, int16_t *a, const uint8_t *buf,
                        int16_t scale);
/* Centred residues mod q, then mod 3 into {-1, 0, 1}. */
void kpqc_ntruplus_crepmod3(const kpqc_ntruplus_params *p, int16_t *a);
void kpqc_ntruplus_invntt_mod3_ntt(const kpqc_ntruplus_params *p, int16_t *m, int16_t *t);
/*
 * The inverse of the message encoding (cbd1 of the pad with its first n/8
 * bytes xored with msg) for m with coefficients in {-1, 0, 1}: each
 * m_i + (bit i of the second half of pad) must be 0 or 1, and xored with
 * bit i of the first half gives message bit i.  Returns 1 (and a zero
 * message) if some coefficient is out of range, else 0; constant time.
 */
uint32_t kpqc_ntruplus_sotp_decode(const kpqc_ntruplus_params *p, uint8_t *msg, const int16_t *m,
                                   const uint8_t *pad);
void kpqc_ntruplus_sub_mul(const kpqc_ntruplus_params *p, int16_t *r, const int16_t *a,
                           const int16_t *b, const int16_t *c);
uint32_t kpqc_ntruplus_neq(const kpqc_ntruplus_params *p, const int16_t *a, const int16_t *b);

#endif
