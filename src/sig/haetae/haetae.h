/*
 * HAETAE (v1.2.0): module-lattice signatures with hyperball rejection
 * sampling over Z_q[X]/(X^256 + 1), q = 64513.
 *
 * Shared definitions of the family's files.  One code base serves the three
 * parameter sets through a `struct haetae_params`; vectors are sized for the
 * largest set (k = 4, l = 7).
 */
#ifndef KPQC_HAETAE_H
#define KPQC_HAETAE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/bounds.h"
#include "common/cpu.h"
#include "common/keccak.h"

#define HAETAE_N 256
#define HAETAE_Q 64513
#define HAETAE_DQ (2 * HAETAE_Q)
#define HAETAE_KMAX 4
#define HAETAE_LMAX 7
#define HAETAE_SEEDBYTES 32
#define HAETAE_CRHBYTES 64
/* Fixed-point scale of the hyperball samples: 2^13. */
#define HAETAE_LNBITS 13
#define HAETAE_LN (1 << HAETAE_LNBITS)
/* A packed public-key polynomial of the widest set (mode 5: 16 bits a
 * coefficient; modes 2 and 3 take 480 bytes). */
#define HAETAE_POLYQ_MAX_BYTES 512
/* Packed high bits of one polynomial, as hashed into the challenge. */
#define HAETAE_HIGHBITS_BYTES (HAETAE_N * 9 / 8)

typedef struct {
    int32_t c[HAETAE_N];
} hpoly;

/* A 96-bit unsigned (or two's complement) fixed-point number held as two
 * limbs, value = hi * 2^48 + lo; lo normally < 2^48. */
typedef struct {
    uint64_t lo, hi;
} hfix;

/* Frequencies of the rANS alphabet (they sum to 2^10). */
struct haetae_rans_table {
    unsigned nsym;
    const uint16_t *freq;
};

struct haetae_params {
    unsigned k, l, tau;
    size_t sig_bytes;         /* fixed, zero-padded */
    unsigned polyq_bytes;     /* packed public-key polynomial */
    unsigned s2_bytes;        /* packed polynomial of s2 */
    int pk_in_ntt;            /* mode 5: pk holds NTT(-2b), no rounding of b */
    unsigned alpha_hint_bits; /* log2 of the hint modulus alpha_h */
    uint64_t b0sq, b1sq, b2sq;    /* floor(B^2) */
    int64_t gamma_sq_n;           /* floor(gamma^2 * n), key rejection bound */
    uint64_t radius_scale;        /* (uint64)(B0 * 2^13 + sqrt(n m)/2) << 15 */
    hfix invsqrt_cube, invsqrt_three_halves; /* Newton starting point */
    unsigned base_enc_hb_z1, base_enc_h;
    struct haetae_rans_table rans_hb_z1, rans_h;
    unsigned offset_hb_z1, offset_h; /* symbol offsets (see haetae_rans.c) */
};

extern const struct haetae_params kpqc_haetae2_params, kpqc_haetae3_params, kpqc_haetae5_params;

/* pk = seed || k packed polynomials; sk = pk || s1 || s2 || key. */
static inline size_t haetae_pk_bytes(const struct haetae_params *p) {
    return HAETAE_SEEDBYTES + (size_t)p->k * p->polyq_bytes;
}
static inline size_t haetae_sk_bytes(const struct haetae_params *p) {
    return haetae_pk_bytes(p) + (size_t)(p->l - 1) * (HAETAE_N / 4) + (size_t)p->k * p->s2_bytes +
           HAETAE_SEEDBYTES;
}

/* ---- arithmetic mod q (inline: called per coefficient; haetae_ntt.c) ---- */
int32_t kpqc_haetae_montgomery_reduce(int64_t a);

/* Barrett step leaves t in (-2m, 2m); two masked corrections follow. */
static inline int32_t kpqc_haetae_reduce_mod(int32_t a, int32_t m, int64_t rec) {
    int32_t t = a - (int32_t)(((int64_t)a * rec) >> 32) * m;
    t += (t >> 31) & (2 * m);
    t -= m;
    t += (t >> 31) & m;
    return t;
}
/* canonical in [0, q), |a| < 2^30 (66575 = floor(2^32 / q)) */
static inline int32_t kpqc_haetae_freeze(int32_t a) {
    KPQC_BOUND(a > -(1 << 30) && a < (1 << 30));
    return kpqc_haetae_reduce_mod(a, HAETAE_Q, 66575);
}
/* canonical in [0, 2q), |a| < 2^30 (33287 = floor(2^32 / 2q)) */
static inline int32_t kpqc_haetae_freeze2q(int32_t a) {
    KPQC_BOUND(a > -(1 << 30) && a < (1 << 30));
    return kpqc_haetae_reduce_mod(a, HAETAE_DQ, 33287);
}
/* From a value mod q and its parity, the value mod 2q in [0, 2q). */
static inline int32_t kpqc_haetae_from_parity(int32_t xq, int32_t parity) {
    return kpqc_haetae_freeze2q(xq + (HAETAE_Q & -((xq ^ parity) & 1)));
}
/* |a| < q -> representative in (-q/2, q/2] */
static inline int32_t kpqc_haetae_center(int32_t a) {
    KPQC_BOUND(a > -HAETAE_Q && a < HAETAE_Q);
    a += (a >> 31) & HAETAE_Q;                                  /* [0, q) */
    a -= ((int32_t)((HAETAE_Q - 1) / 2 - a) >> 31) & HAETAE_Q; /* (-q/2, q/2] */
    return a;
}
void kpqc_haetae_ntt_portable(hpoly *a);
void kpqc_haetae_invntt_portable(hpoly *a);
void kpqc_haetae_ntt_avx2(hpoly *a);
void kpqc_haetae_invntt_avx2(hpoly *a);
void kpqc_haetae_pointwise_avx2(hpoly *r, const hpoly *a, const hpoly *b);
void kpqc_haetae_pointwise_acc_avx2(hpoly *r, const hpoly *a, const hpoly *b);
void kpqc_haetae_ntt_avx512(hpoly *a);
void kpqc_haetae_invntt_avx512(hpoly *a);
void kpqc_haetae_pointwise_avx512(hpoly *r, const hpoly *a, const hpoly *b);
void kpqc_haetae_pointwise_acc_avx512(hpoly *r, const hpoly *a, const hpoly *b);
void kpqc_haetae_pointwise(hpoly *r, const hpoly *a, const hpoly *b);     /* a*b*2^-32 */
void kpqc_haetae_pointwise_acc(hpoly *r, const hpoly *a, const hpoly *b); /* r += a*b*2^-32 */

/* ---- polynomial sampling and packing (haetae_poly.c) ---- */
struct haetae_backend;
void kpqc_haetae_poly_uniform_many(const struct haetae_backend *be, hpoly *const *a, const uint16_t *nonce, size_t n,
                                   const uint8_t seed[HAETAE_SEEDBYTES]);
unsigned kpqc_haetae_rej_uniform_portable(int32_t *a, unsigned ctr, const uint8_t *buf, size_t len);
unsigned kpqc_haetae_rej_uniform_avx2(int32_t *a, unsigned ctr, const uint8_t *buf, size_t len);
void kpqc_haetae_poly_eta_many(hpoly *a, size_t n, const uint8_t seed[HAETAE_CRHBYTES], uint16_t nonce0);
/* The challenge from secret inputs (constant-time) and, for verification,
 * from public ones; both give the same c. */
void kpqc_haetae_challenge(const struct haetae_params *p, const struct haetae_backend *be, hpoly *c,
                           const uint8_t *hb_lsb, const uint8_t mu[HAETAE_SEEDBYTES]);
void kpqc_haetae_challenge_public(const struct haetae_params *p, hpoly *c, const uint8_t *hb_lsb,
                             const uint8_t mu[HAETAE_SEEDBYTES]);
size_t kpqc_haetae_challenge_input_bytes(const struct haetae_params *p);
void kpqc_haetae_pack_highbits(const struct haetae_params *p, uint8_t *buf, const hpoly *w);
void kpqc_haetae_pack_lsb(uint8_t buf[HAETAE_N / 8], const hpoly *a);
void kpqc_haetae_pack_q(const struct haetae_params *p, uint8_t *r, const hpoly *a);
void kpqc_haetae_unpack_q(const struct haetae_params *p, hpoly *a, const uint8_t *r);
void kpqc_haetae_pack_eta(uint8_t r[HAETAE_N / 4], const hpoly *a);
void kpqc_haetae_unpack_eta(hpoly *a, const uint8_t r[HAETAE_N / 4]);
void kpqc_haetae_pack_2eta(uint8_t r[HAETAE_N * 3 / 8], const hpoly *a);
void kpqc_haetae_unpack_2eta(hpoly *a, const uint8_t r[HAETAE_N * 3 / 8]);
/* High bits with respect to alpha_h of r in [0, 2q): round(r / alpha_h),
 * with the top value (2q - 2) / alpha_h wrapped to 0. */
static inline int32_t kpqc_haetae_highbits_alpha(int32_t r, unsigned alpha_bits) {
    int32_t top = (HAETAE_DQ - 2) >> alpha_bits;
    int32_t hb = (r + (1 << (alpha_bits - 1))) >> alpha_bits;
    hb -= top & ~((hb - top) >> 31); /* hb >= top -> 0 */
    return hb;
}
static inline int32_t kpqc_haetae_highbits_hint(const struct haetae_params *p, int32_t r) {
    return kpqc_haetae_highbits_alpha(r, p->alpha_hint_bits);
}


/* ---- fixed point (haetae_fixpoint.c) ---- */
hfix kpqc_haetae_fix_square(hfix x);
hfix kpqc_haetae_fix_mul(hfix x, hfix y);
hfix kpqc_haetae_fix_mul_u64(hfix x, uint64_t y); /* round(x * y / 2^28) */
hfix kpqc_haetae_fix_invsqrt(const struct haetae_params *p, hfix xhalf);
int32_t kpqc_haetae_fix_scale_round(uint64_t x, hfix y, uint32_t sign);
/* y[i] = kpqc_haetae_fix_scale_round(x[i], scale, bit i of signs) for n
 * (a multiple of 8) values; returns the sum of the y[i]^2. */
uint64_t kpqc_haetae_scale_round_portable(int32_t *y, const uint64_t *x, const uint8_t *signs, size_t n, hfix scale);
uint64_t kpqc_haetae_scale_round_avx2(int32_t *y, const uint64_t *x, const uint8_t *signs, size_t n, hfix scale);
uint64_t kpqc_haetae_scale_round_avx512(int32_t *y, const uint64_t *x, const uint8_t *signs, size_t n, hfix scale);

/* ---- hyperball sampler (haetae_sampler.c) ---- */
/* Order-preserving compaction: moves the entries with keep[i] = 1 to the
 * front, in their order, without secret-dependent branches or indices.
 * max_d is a public bound on the number of refused entries before a kept
 * one (n - 1 if nothing better is known). */
void kpqc_haetae_ct_compact(uint64_t *val, uint8_t *keep, size_t n, size_t max_d);
void kpqc_haetae_ct_compact_avx2(uint64_t *val, uint8_t *keep, size_t n, size_t max_d);
void kpqc_haetae_ct_compact_avx512(uint64_t *val, uint8_t *keep, size_t n, size_t max_d);
/* The 83-bit CDT of the width-16 half-Gaussian, as 41-bit high and 42-bit
 * low halves: 166 entries in blocks of 16, stored in 16 rows of 11 (row j
 * holds entry j of every block), padded; a sample counts the entries
 * below its 83 random bits. */
#define HAETAE_CDT_SPLIT 42
#define HAETAE_CDT_BLOCKS 11
#define HAETAE_CDT_SLOTS (16 * HAETAE_CDT_BLOCKS)
extern const int64_t kpqc_haetae_cdt_hi[HAETAE_CDT_SLOTS], kpqc_haetae_cdt_lo[HAETAE_CDT_SLOTS];
uint64_t kpqc_haetae_cdt_sample_portable(uint64_t lo, uint32_t hi);
uint64_t kpqc_haetae_cdt_sample_avx2(uint64_t lo, uint32_t hi);
/* exp(-xi / 2^48) of the acceptance test, in 48 fractional bits, for eight
 * 0 <= xi < 2^48 (a candidate's xi is (y^2 - x^2) / 512 with x <= 166 and
 * y - x < 1, so below 2^48 * 333 / 512), by a degree-10 polynomial with
 * the rounding of the specification.  Computed apart from the rest of
 * the candidate, eight at a time: measured faster than inline, and faster
 * than an AVX-512 build of exact 26-bit-limb products. */
#define HAETAE_EXP_DEGREE 10
/* the leading coefficient, which the vector kernels' first step needs below
 * 2^26, and all of them (see kpqc_haetae_exp_coef): a kernel that holds
 * them as constants unrolls Horner's steps on immediate operands */
#define HAETAE_EXP_COEF0 INT64_C(55868746)
#define HAETAE_EXP_COEFS                                                                                   \
    HAETAE_EXP_COEF0, INT64_C(-743564434), INT64_C(6953427278), INT64_C(-55833338892), INT64_C(390932311155), \
        INT64_C(-2345623661771), INT64_C(11728123872951), INT64_C(-46912496106200), INT64_C(140737488354861), \
        INT64_C(-281474976710650), INT64_C(281474976710657)
extern const int64_t kpqc_haetae_exp_coef[HAETAE_EXP_DEGREE + 1];
void kpqc_haetae_approx_exp8(uint64_t out[8], const int64_t xi[8]);
#ifdef KPQC_ISA_AVX2
void kpqc_haetae_approx_exp8_avx2(uint64_t out[8], const int64_t xi[8]);
#endif
#ifdef KPQC_ISA_AVX512
void kpqc_haetae_approx_exp8_avx512(uint64_t out[8], const int64_t xi[8]);
#endif

/*
 * Up to sixteen consecutive 26-byte candidates, evaluated side by side:
 * each one's value, its acceptance (0 or 1, which is secret) and its
 * square, the 85-bit sq_hi 2^48 + sq_lo summed over the accepted ones.
 * Entries from n on are left unspecified.
 */
#define HAETAE_CAND_BATCH 16
struct haetae_cands {
    uint64_t v[HAETAE_CAND_BATCH], accept[HAETAE_CAND_BATCH], sq_lo[HAETAE_CAND_BATCH], sq_hi[HAETAE_CAND_BATCH];
};
void kpqc_haetae_gauss16_from_cdt(struct haetae_cands *out, const uint8_t *r, size_t n, const uint64_t *x);
void kpqc_haetae_gauss16_portable(struct haetae_cands *out, const uint8_t *r, size_t n);
void kpqc_haetae_gauss16_avx2(struct haetae_cands *out, const uint8_t *r, size_t n);
void kpqc_haetae_gauss16_avx512(struct haetae_cands *out, const uint8_t *r, size_t n);
/*
 * n <= HAETAE_FEED_BATCH candidates appended to a row's sampling state at
 * lane->n (the caller advances n and keeps room for them): their values
 * and keep flags, lane->count advanced by the accepted ones, and the
 * squares of those among the first lane->len accepted added to
 * lane->sum_lo, sum_hi.  The generic one takes the candidates from
 * lane->be->gauss, sixteen at a time; the AVX2 one evaluates all 32 side
 * by side, since its acceptance polynomial is bound by the latency of
 * Horner's steps, not by their throughput.
 */
#define HAETAE_FEED_BATCH 32
struct haetae_gauss_lane;
void kpqc_haetae_gauss_feed_generic(struct haetae_gauss_lane *lane, const uint8_t *r, size_t n);
void kpqc_haetae_gauss_feed_avx2(struct haetae_gauss_lane *lane, const uint8_t *r, size_t n);

/*
 * The family's kernel table (see common/cpu.h); haetae_backend.c lists
 * them, an operation picks one and passes it down.
 */
struct haetae_backend {
    kpqc_backend_info info;
    void (*ntt)(hpoly *a);
    void (*invntt)(hpoly *a); /* inverse NTT, times 2^32 */
    /* adds the squared moduli of a's 256 evaluations to sum */
    void (*fft_sqabs_acc)(int64_t sum[HAETAE_N], const hpoly *a);
    /* r = a * b * 2^-32 coefficient by coefficient (the NTT domain's
     * product), and r += that */
    void (*pointwise)(hpoly *r, const hpoly *a, const hpoly *b);
    void (*pointwise_acc)(hpoly *r, const hpoly *a, const hpoly *b);
    /* the hyperball's candidates, up to sixteen at a time */
    void (*gauss)(struct haetae_cands *out, const uint8_t *r, size_t n);
    /* and into a row's sampling state (kpqc_haetae_gauss_feed_generic) */
    void (*gauss_feed)(struct haetae_gauss_lane *lane, const uint8_t *r, size_t n);
    /* kpqc_haetae_ct_compact */
    void (*compact)(uint64_t *val, uint8_t *keep, size_t n, size_t max_d);
    /* the hyperball's samples onto the sphere */
    uint64_t (*scale_round)(int32_t *y, const uint64_t *x, const uint8_t *signs, size_t n, hfix scale);
    /* verification: kpqc_haetae_sqnorm, kpqc_haetae_hint_row */
    uint64_t (*sqnorm)(const hpoly *a);
    uint64_t (*hint_row)(hpoly *w1, const hpoly *wq, const hpoly *h, const hpoly *lsb, unsigned alpha_bits);
    /* the public matrix's coefficients from a SHAKE128 stream */
    unsigned (*rej_uniform)(int32_t *a, unsigned ctr, const uint8_t *buf, size_t len);
    /* signing: the challenge's constant-time shuffle, kpqc_haetae_response */
    uint32_t (*shuffle)(uint64_t c[4], uint32_t i, const uint8_t *buf, size_t len);
    void (*response)(int32_t z[HAETAE_N], const int32_t y[HAETAE_N], const hpoly *cs, uint32_t sign, uint64_t norms[2]);
    /* signing: kpqc_haetae_commit_row */
    void (*commit_row)(hpoly *w, hpoly *hb, const hpoly *wq, const hpoly *y2, const hpoly *lsb, unsigned alpha_bits);
};
extern const struct haetae_backend kpqc_haetae_backend_portable;
#ifdef KPQC_ISA_AVX2
extern const struct haetae_backend kpqc_haetae_backend_avx2;
#endif
#ifdef KPQC_ISA_AVX512
extern const struct haetae_backend kpqc_haetae_backend_avx512;
#endif
const struct haetae_backend *kpqc_haetae_select_backend(void);
const kpqc_backend_info *const *kpqc_haetae_backends(size_t *n);

/* The first nwords lanes of state j of w lane-interleaved Keccak states
 * (lane i at st[i * w + j]), little-endian. */
static inline void kpqc_haetae_store_lanes(uint8_t *out, const uint64_t *st, unsigned w, unsigned j, unsigned nwords) {
    for (unsigned i = 0; i < nwords; i++) kpqc_store64_le(out + 8 * i, st[i * w + j]);
}


/* Hyperball candidates are 26-byte pieces; a polynomial takes at least
 * ceil((32 + 26 * 256) / 136) blocks of its stream, which are evaluated
 * at once, and further ones a block at a time. */
#define HAETAE_CAND_BYTES 26
#define HAETAE_FIRST_BLOCKS 49
#define HAETAE_CAND_CAP 512
/* One polynomial's sampling state (see haetae_sampler.c). */
struct haetae_gauss_lane {
    uint64_t val[HAETAE_CAND_CAP];
    uint8_t keep[HAETAE_CAND_CAP];
    size_t n, ncarry;
    unsigned len;
    uint32_t count;
    int done;
    uint64_t sum_lo, sum_hi; /* the squares' limbs, each below 2^57 */
    struct haetae_cands cands;
    const struct haetae_backend *be;
    /* the stream it reads: row `row` of the queue, `blocks` squeezed; past
     * the first ones a block goes to buf after the ncarry bytes of a
     * candidate it completes */
    uint32_t row;
    unsigned blocks;
    int busy;
    uint8_t buf[HAETAE_FIRST_BLOCKS * KPQC_SHAKE256_RATE];
};
/*
 * Working memory of the hyperball sampler (large: kept off the stack).
 * Signing reads the rows' streams SHAKE256(seed || nonce) for consecutive
 * nonces, rows rows an attempt; they run as a queue on the side-by-side
 * Keccak states, a state taking the next row as soon as its own is done,
 * up to one attempt ahead.  A finished row waits in its slot.
 */
#define HAETAE_ROWS_MAX (HAETAE_LMAX + HAETAE_KMAX)
#define HAETAE_ROW_SLOTS (2 * HAETAE_ROWS_MAX)
struct haetae_gauss_ws {
    struct haetae_gauss_lane lanes[8];
    uint64_t st[25 * 8]; /* lane i of state j at st[i * width + j] */
    unsigned width, rows;
    const kpqc_keccakx4_backend *x4;
    void (*f1600x8)(uint64_t s[25][8]);
    uint8_t in[HAETAE_CRHBYTES + 2]; /* seed || nonce */
    uint16_t nonce0;
    uint32_t base, next; /* the attempt's first row; the next row to start */
    unsigned ready_now;  /* rows of the attempt in their slots */
    uint8_t ready[HAETAE_ROW_SLOTS];
    uint64_t sum_lo[HAETAE_ROW_SLOTS], sum_hi[HAETAE_ROW_SLOTS];
    uint64_t samples[HAETAE_ROW_SLOTS][HAETAE_N];
    uint8_t signs[HAETAE_ROW_SLOTS][HAETAE_N / 8];
};
/* Starts the rows at nonce; then each call returns one attempt's y (in the
 * ball) and its bit b, and the rows of the next attempt follow. */
/* How many Keccak states the side-by-side sponges run: 4 or 8. */
unsigned kpqc_haetae_keccak_width(void);
void kpqc_haetae_hyperball_start(const struct haetae_params *p, struct haetae_gauss_ws *ws,
                                 const uint8_t seed[HAETAE_CRHBYTES], uint16_t nonce);
void kpqc_haetae_sample_hyperball(const struct haetae_params *p, const struct haetae_backend *be,
                                  struct haetae_gauss_ws *ws, int32_t y[][HAETAE_N], uint8_t *b);
/* Wipes what the sampler wrote: the states' lanes it ran and the rest. */
void kpqc_haetae_hyperball_wipe(struct haetae_gauss_ws *ws);

/* ---- key singular value (haetae_fft.c) ---- */
int64_t kpqc_haetae_sk_singular_value(const struct haetae_params *p, const struct haetae_backend *be,
                                 const hpoly *s, unsigned npolys);
/* The FFT's roots of unity, times 2^16 (re, im), for every backend. */
extern const int32_t kpqc_haetae_fft_roots[HAETAE_N][2];
void kpqc_haetae_fft_sqabs_acc_portable(int64_t sum[HAETAE_N], const hpoly *a);
void kpqc_haetae_fft_sqabs_acc_avx2(int64_t sum[HAETAE_N], const hpoly *a);

/* The constant-time inside-out shuffle of the challenge over the bits of c
 * (four words), from i on, for len bytes; returns the new i
 * (haetae_poly.c, haetae_shuffle_avx2.c). */
uint32_t kpqc_haetae_shuffle_portable(uint64_t c[4], uint32_t i, const uint8_t *buf, size_t len);
uint32_t kpqc_haetae_shuffle_avx2(uint64_t c[4], uint32_t i, const uint8_t *buf, size_t len);

/* ---- per-coefficient arithmetic of signing and verification (haetae_hint.c) ---- */
/* the sum of the squares of a's coefficients (|a| < 2^15) */
uint64_t kpqc_haetae_sqnorm_portable(const hpoly *a);
uint64_t kpqc_haetae_sqnorm_avx2(const hpoly *a);
/* From wq = A z1 - q c j mod q (|wq| < q) and the parity of the value mod
 * 2q (lsb; NULL for even), w1 = HighBits(value) + h wrapped at the top
 * (0 <= h < top), and the returned squared norm of the z2 they imply. */
uint64_t kpqc_haetae_hint_row_portable(hpoly *w1, const hpoly *wq, const hpoly *h, const hpoly *lsb,
                                       unsigned alpha_bits);
uint64_t kpqc_haetae_hint_row_avx2(hpoly *w1, const hpoly *wq, const hpoly *h, const hpoly *lsb, unsigned alpha_bits);
/* The signer's response for one row, z = y + (-1)^sign 2^13 center(cs)
 * (|cs| < q), adding |z|^2 and |2z - y|^2 to norms[0] and norms[1]
 * (mod 2^64). */
void kpqc_haetae_response_portable(int32_t z[HAETAE_N], const int32_t y[HAETAE_N], const hpoly *cs, uint32_t sign,
                                   uint64_t norms[2]);
/* A row of the signer's commitment: w = wq + 2 y2 mod 2q in [0, 2q), the
 * value mod q made even or odd as the parity row lsb says (NULL: even),
 * and its high bits hb.  |wq| < q (an inverse NTT's output) and
 * |y2| < q / 2 (a rounded hyperball coordinate: at most B0 < q / 2); w and
 * wq may be the same row. */
void kpqc_haetae_commit_row_portable(hpoly *w, hpoly *hb, const hpoly *wq, const hpoly *y2, const hpoly *lsb,
                                     unsigned alpha_bits);
void kpqc_haetae_commit_row_avx2(hpoly *w, hpoly *hb, const hpoly *wq, const hpoly *y2, const hpoly *lsb,
                                 unsigned alpha_bits);
void kpqc_haetae_response_avx2(int32_t z[HAETAE_N], const int32_t y[HAETAE_N], const hpoly *cs, uint32_t sign,
                               uint64_t norms[2]);

/* ---- entropy coding (haetae_rans.c) ---- */
/* floor(x / f) for x < 2^31 and 1 <= f <= 1024 by one multiplication:
 * with 2^(l-1) < f <= 2^l and m = ceil(2^(31 + l) / f), m f exceeds
 * 2^(31 + l) by less than 2^l, which makes floor(x m / 2^(31 + l)) exact
 * (Granlund and Montgomery, theorem 4.2).  The encoder's state divided by
 * a symbol's frequency, without a division's latency on its chain. */
struct haetae_rans_divisor {
    uint64_t m;
    unsigned shift;
};
static inline struct haetae_rans_divisor kpqc_haetae_rans_divisor(uint32_t f) {
    unsigned l = 0;
    while ((UINT32_C(1) << l) < f) l++;
    const uint64_t top = UINT64_C(1) << (31 + l);
    struct haetae_rans_divisor d = {(top + f - 1) / f, 31 + l};
    return d;
}
static inline uint32_t kpqc_haetae_rans_div(uint32_t x, struct haetae_rans_divisor d) {
    return (uint32_t)((x * d.m) >> d.shift);
}
/* Encodes n symbols; returns the size, or 0 when a value has no symbol or
 * the code would exceed cap bytes. */
size_t kpqc_haetae_rans_encode(uint8_t *out, size_t cap, const struct haetae_rans_table *t,
                          const uint8_t *sym, size_t n);
/* n symbols from sym encoded under table t into out, at most cap bytes;
 * the code's size goes to len. */
struct haetae_rans_text {
    const uint8_t *sym;
    size_t n;
    const struct haetae_rans_table *t;
    uint8_t *out;
    size_t cap, len;
};
/* Encodes two texts at once (as two kpqc_haetae_rans_encode); 0 when both
 * have codes that fit, else -1 with both lengths 0 or one of them 0. */
int kpqc_haetae_rans_encode_two(struct haetae_rans_text *a, struct haetae_rans_text *b);
/* Decodes exactly n symbols from exactly len bytes; 0 on success. */
int kpqc_haetae_rans_decode(uint8_t *sym, size_t n, const struct haetae_rans_table *t,
                       const uint8_t *in, size_t len);
/* n symbols into sym from exactly the len bytes at in, under table t. */
struct haetae_rans_code {
    uint8_t *sym;
    size_t n;
    const struct haetae_rans_table *t;
    const uint8_t *in;
    size_t len;
};
/* Decodes two codes at once (as two kpqc_haetae_rans_decode); 0 when both
 * are valid. */
int kpqc_haetae_rans_decode_two(const struct haetae_rans_code *a, const struct haetae_rans_code *b);

#endif
