/*
 * SMAUG-T v1.2.0 (and its TiMER variant): Module-LWE keys, Module-LWR
 * ciphertexts, everything modulo powers of two.  Ring elements live in
 * Z_{2^16}[x]/(x^256 + 1) with each coefficient scaled to the top of a
 * 16-bit word (a value mod 2^log_q is stored as value << (16 - log_q)), so
 * reductions modulo 2^log_q, 2^log_p and 2^log_p' are free.
 */
#ifndef KPQC_SMAUGT_H
#define KPQC_SMAUGT_H

#include <stddef.h>
#include <stdint.h>

#include "common/cpu.h"

#define SMAUGT_N 256
#define SMAUGT_KMAX 4
#define SMAUGT_SEED_BYTES 32
#define SMAUGT_SS_BYTES 32
#define SMAUGT_MSG_MAX 32
#define SMAUGT_SKPOLY_BYTES (SMAUGT_N / 4) /* 2 bits per ternary coefficient */
/* The widest sets: log_q = 11 (SMAUG-T3 and T5), and SMAUG-T5's ciphertext
 * (k = 4, log_p = 9, log_p' = 7), the longest. */
#define SMAUGT_LOG_Q_MAX 11
#define SMAUGT_CT_MAX_BYTES ((SMAUGT_KMAX * 9 + 7) * SMAUGT_N / 8)
/* The rows of a vector kernel's table of constants per bit width: row
 * b - 2 given by M(b), for the widths 2 <= b <= 11 the kernels take. */
#define SMAUGT_WIDTHS 10
#define SMAUGT_WIDTH_TABLE(M) M(2), M(3), M(4), M(5), M(6), M(7), M(8), M(9), M(10), M(11)

/* How the ephemeral secret r is sampled from its 3N/8, N/4 or N/2 seed bytes. */
enum smaugt_cbd { SMAUGT_SPARSE_CBD3, SMAUGT_CBD1, SMAUGT_SPARSE_CBD4 };

typedef struct smaugt_params {
    unsigned k;          /* module rank */
    unsigned log_q;      /* public-key modulus 2^log_q */
    unsigned log_p;      /* first ciphertext part modulus */
    unsigned log_p2;     /* second ciphertext part modulus (p') */
    unsigned hs;         /* Hamming weight of each secret polynomial */
    enum smaugt_cbd cbd; /* sampler of r */
    unsigned msg_bytes;  /* 32, or 16 for TiMER's D2 encoding */
    int timer;           /* TiMER: message bits doubled into both halves (D2) */
} smaugt_params;

typedef struct {
    uint16_t c[SMAUGT_N];
} smaugt_poly;

static inline size_t smaugt_pk_bytes(const smaugt_params *p) {
    return SMAUGT_SEED_BYTES + p->k * p->log_q * SMAUGT_N / 8;
}
static inline size_t smaugt_ct_bytes(const smaugt_params *p) {
    return (p->k * p->log_p + p->log_p2) * SMAUGT_N / 8;
}
/* sk = s (k packed ternary polynomials) || d (32 bytes) || pk */
static inline size_t smaugt_sk_pke_bytes(const smaugt_params *p) { return p->k * SMAUGT_SKPOLY_BYTES; }
static inline size_t smaugt_sk_bytes(const smaugt_params *p) {
    return smaugt_sk_pke_bytes(p) + 32 + smaugt_pk_bytes(p);
}
static inline unsigned smaugt_cbd_width(enum smaugt_cbd kind) {
    return kind == SMAUGT_SPARSE_CBD3 ? 3 : kind == SMAUGT_CBD1 ? 2 : 4;
}
static inline size_t smaugt_cbd_seed_bytes(const smaugt_params *p) {
    return smaugt_cbd_width(p->cbd) * SMAUGT_N / 8;
}

/* The parameter sets (smaugt_kem.c). */
extern const smaugt_params kpqc_smaugt1_params, kpqc_smaugt3_params, kpqc_smaugt5_params, kpqc_timer_params;

/* Samplers (smaugt_sample.c), from the SHAKE256 output the caller drew:
 * the fixed-weight secret takes 308 16-bit words then N/4 sign bytes, the
 * Gaussian error 80 bytes per 64 coefficients. */
#define SMAUGT_HWT_BYTES (2 * 308 + SMAUGT_N / 4)
#define SMAUGT_GAUSS_BYTES (SMAUGT_N / 64 * 80)
int kpqc_smaugt_hwt(int16_t s[SMAUGT_N], const uint8_t buf[SMAUGT_HWT_BYTES], unsigned hs);
void kpqc_smaugt_gaussian(smaugt_poly *e, const uint8_t buf[SMAUGT_GAUSS_BYTES], unsigned log_q);
/* The Gaussian's bit-sliced part for 64 coefficients (80 bytes): the
 * magnitude's low and high bits and the sign bits. */
void kpqc_smaugt_gaussian_words(uint64_t w[3], const uint8_t b[80]);
/* r from the smaugt_cbd_width(kind)-bit fields of its smaugt_cbd_seed_bytes
 * seed bytes (cbd_fields: from the fields already unpacked). */
void kpqc_smaugt_cbd(int16_t r[SMAUGT_N], const uint8_t *buf, enum smaugt_cbd kind);
void kpqc_smaugt_cbd_fields(int16_t r[SMAUGT_N], const uint16_t field[SMAUGT_N], enum smaugt_cbd kind);

/* Packing (smaugt_pack.c): little-endian bit strings of `bits` per
 * coefficient; these are the portable kernels of the tables' unpack. */
void kpqc_smaugt_pack_bits(uint8_t *out, const uint16_t v[SMAUGT_N], unsigned bits);
void kpqc_smaugt_unpack_bits(uint16_t v[SMAUGT_N], const uint8_t *in, unsigned bits);
/* kpqc_smaugt_unpack_bits with each value scaled to the top of its word
 * (shifted left by 16 - bits), as ring elements are kept. */
void kpqc_smaugt_unpack_top(uint16_t v[SMAUGT_N], const uint8_t *in, unsigned bits);
/* Each value rounded from 16 bits to its top `bits` (add half a step,
 * keep the top bits, modulo 2^bits), then packed. */
void kpqc_smaugt_pack_round(uint8_t *out, const uint16_t v[SMAUGT_N], unsigned bits);
void kpqc_smaugt_pack_secret(uint8_t out[SMAUGT_SKPOLY_BYTES], const int16_t s[SMAUGT_N]);
void kpqc_smaugt_unpack_secret(int16_t s[SMAUGT_N], const uint8_t in[SMAUGT_SKPOLY_BYTES]);

/* Keccak sponges run side by side on the four-way permutation
 * (smaugt_sponge.c): SHAKE (dsep 0x1f) or SHA3 (0x06) of `in` followed by
 * the taglen <= 2 bytes of `tag` (the indices the scheme appends to a
 * seed; they must fit in the input's last block) at `rate` bytes per
 * block, outlen bytes to `out`.  A job with after = i + 1 starts only
 * once job i (an earlier one: i < its own index) is done, so its input
 * may be that job's output; after = 0: no wait.  Ready jobs start in the
 * list's order.  At most 32 jobs. */
typedef struct smaugt_sponge_job {
    const uint8_t *in;
    size_t inlen;
    uint8_t tag[2];
    unsigned taglen;
    uint8_t *out;
    size_t outlen;
    unsigned rate;
    uint8_t dsep;
    unsigned after;
} smaugt_sponge_job;
void kpqc_smaugt_sponges(const smaugt_sponge_job *jobs, unsigned n);

/* The family's kernel table (see common/cpu.h): one per backend,
 * smaugt_mul.c lists them and picks one per operation. */
typedef struct kpqc_smaugt_backend {
    kpqc_backend_info info;
    /* out[i] += sum_{j < k} a[i k + j] * s[j] for i < rows, in
     * Z_{2^16}[x]/(x^256 + 1): a matrix of public polynomials times a
     * vector of secret ones.  Each a[i k + j] is a public packed string of
     * 32 log_mod bytes (kpqc_smaugt_unpack_top's input, log_mod <= 11):
     * a polynomial modulo 2^log_mod, scaled to the top as every ring
     * element here; every coefficient of s is in [-2, 1] (any 2-bit secret
     * encoding), k <= SMAUGT_KMAX.  Exact, and constant time: no index or
     * branch depends on s. */
    void (*matvec_acc)(uint16_t (*out)[SMAUGT_N], const uint8_t *const *a, unsigned log_mod,
                       const int16_t (*s)[SMAUGT_N], unsigned rows, unsigned k);
    /* kpqc_smaugt_unpack_top for 2 <= bits <= 11 (reads exactly
     * 32 * bits bytes). */
    void (*unpack_top)(uint16_t v[SMAUGT_N], const uint8_t *in, unsigned bits);
    /* kpqc_smaugt_pack_bits of each 16-bit value rounded to its top `bits`
     * bits (kpqc_smaugt_pack_round), 2 <= bits <= 11. */
    void (*pack_round)(uint8_t *out, const uint16_t v[SMAUGT_N], unsigned bits);
    /* kpqc_smaugt_gaussian. */
    void (*gaussian)(smaugt_poly *e, const uint8_t buf[SMAUGT_GAUSS_BYTES], unsigned log_q);
    /* kpqc_smaugt_cbd. */
    void (*cbd)(int16_t r[SMAUGT_N], const uint8_t *buf, enum smaugt_cbd kind);
    /* kpqc_smaugt_unpack_secret. */
    void (*unpack_secret)(int16_t s[SMAUGT_N], const uint8_t in[SMAUGT_SKPOLY_BYTES]);
} kpqc_smaugt_backend;

extern const kpqc_smaugt_backend kpqc_smaugt_backend_portable;
#ifdef KPQC_ISA_AVX2
extern const kpqc_smaugt_backend kpqc_smaugt_backend_avx2;
/* AVX-512 reuses these */
void kpqc_smaugt_unpack_top_avx2(uint16_t v[SMAUGT_N], const uint8_t *in, unsigned bits);
void kpqc_smaugt_cbd_avx2(int16_t r[SMAUGT_N], const uint8_t *buf, enum smaugt_cbd kind);
void kpqc_smaugt_unpack_secret_avx2(int16_t s[SMAUGT_N], const uint8_t in[SMAUGT_SKPOLY_BYTES]);
void kpqc_smaugt_pack_round_avx2(uint8_t *out, const uint16_t v[SMAUGT_N], unsigned bits);
void kpqc_smaugt_gaussian_avx2(smaugt_poly *e, const uint8_t buf[SMAUGT_GAUSS_BYTES], unsigned log_q);
#endif
#ifdef KPQC_ISA_AVX512
extern const kpqc_smaugt_backend kpqc_smaugt_backend_avx512;
#endif
const kpqc_smaugt_backend *kpqc_smaugt_select_backend(void);
const kpqc_backend_info *const *kpqc_smaugt_backends(size_t *n);

#endif
