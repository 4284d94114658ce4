/*
 * Sampling of the public matrix, the secret key and the challenge, and the
 * bit packings of polynomials.
 */
#include <string.h>

#include "common/ct.h"
#include "common/keccak.h"
#include "haetae.h"

/* Four streams SHAKE(seed || nonce_j) side by side (AVX2 when available). */
static void stream4_init(kpqc_keccakx4 *st, unsigned rate, const uint8_t *seed, size_t seedlen,
                         const uint16_t nonce[4]) {
    uint8_t in[4][HAETAE_CRHBYTES + 2];
    for (unsigned j = 0; j < 4; j++) {
        memcpy(in[j], seed, seedlen);
        in[j][seedlen] = (uint8_t)nonce[j];
        in[j][seedlen + 1] = (uint8_t)(nonce[j] >> 8);
    }
    kpqc_keccakx4_absorb_once(st, rate, 0x1f, in[0], in[1], in[2], in[3], seedlen + 2);
    kpqc_wipe(in, sizeof in);
}

/* Coefficients in [0, q): 16-bit little-endian words below q, from
 * a->c[ctr] on while ctr < 256; returns the new ctr.  (The portable
 * kernel of the family's table; the data is public.) */
unsigned kpqc_haetae_rej_uniform_portable(int32_t *a, unsigned ctr, const uint8_t *buf, size_t len) {
    for (size_t pos = 0; ctr < HAETAE_N && pos + 2 <= len; pos += 2) {
        uint32_t t = buf[pos] | (uint32_t)buf[pos + 1] << 8;
        if (t < HAETAE_Q) a[ctr++] = (int32_t)t;
    }
    return ctr;
}

/* SHAKE128 streams side by side: eight where an eight-way permutation of
 * its own exists (one costs about 1.5 four-way ones on AVX-512), else four
 * (the eight-way fallback would run two four-way ones, through copies). */
struct uniform_streams {
    unsigned width;
    kpqc_keccakx4 x4;
    kpqc_keccakx8 x8;
};

static void uniform_streams_init(struct uniform_streams *st, const uint8_t (*in)[HAETAE_SEEDBYTES + 2]) {
    const uint8_t *const inp[8] = {in[0], in[1], in[2], in[3], in[4], in[5], in[6], in[7]};
    if (st->width == 8)
        kpqc_keccakx8_absorb_once(&st->x8, KPQC_SHAKE128_RATE, 0x1f, inp, sizeof in[0]);
    else
        kpqc_keccakx4_absorb_once(&st->x4, KPQC_SHAKE128_RATE, 0x1f, in[0], in[1], in[2], in[3], sizeof in[0]);
}

static void uniform_streams_squeeze(struct uniform_streams *st, uint8_t *const out[8], size_t nblocks) {
    if (st->width == 8) {
        kpqc_keccakx8_squeezeblocks(&st->x8, out, nblocks);
        return;
    }
    for (size_t b = 0; b < nblocks; b++) {
        st->x4.f1600x4(st->x4.s);
        for (unsigned j = 0; j < 4; j++)
            kpqc_haetae_store_lanes(out[j] + b * KPQC_SHAKE128_RATE, &st->x4.s[0][0], 4, j, KPQC_SHAKE128_RATE / 8);
    }
}

/* a[i] from SHAKE128(seed || nonce[i]).  The seed is public. */
void kpqc_haetae_poly_uniform_many(const struct haetae_backend *be, hpoly *const *a, const uint16_t *nonce, size_t n,
                                   const uint8_t seed[HAETAE_SEEDBYTES]) {
    enum { FIRST = 4 }; /* blocks of the first squeeze: 4 x 84 words */
    struct uniform_streams st;
    st.width = kpqc_haetae_keccak_width();
    for (size_t g = 0; g < n; g += st.width) {
        uint8_t buf[8][FIRST * KPQC_SHAKE128_RATE], in[8][HAETAE_SEEDBYTES + 2];
        uint8_t *out[8];
        hpoly dummy;
        hpoly *dst[8];
        unsigned ctr[8], pending = 0;
        for (unsigned j = 0; j < st.width; j++) {
            const int used = g + j < n;
            dst[j] = used ? a[g + j] : &dummy;
            memcpy(in[j], seed, HAETAE_SEEDBYTES);
            in[j][HAETAE_SEEDBYTES] = (uint8_t)(used ? nonce[g + j] : 0);
            in[j][HAETAE_SEEDBYTES + 1] = (uint8_t)((used ? nonce[g + j] : 0) >> 8);
            out[j] = buf[j];
        }
        uniform_streams_init(&st, in);
        uniform_streams_squeeze(&st, out, FIRST);
        for (unsigned j = 0; j < st.width; j++) {
            ctr[j] = g + j < n ? be->rej_uniform(dst[j]->c, 0, buf[j], sizeof buf[j]) : HAETAE_N;
            pending += ctr[j] < HAETAE_N;
        }
        /* the rate is even: no byte is left over between blocks */
        while (pending) {
            uniform_streams_squeeze(&st, out, 1);
            pending = 0;
            for (unsigned j = 0; j < st.width; j++) {
                ctr[j] = be->rej_uniform(dst[j]->c, ctr[j], buf[j], KPQC_SHAKE128_RATE);
                pending += ctr[j] < HAETAE_N;
            }
        }
    }
}

/*
 * Coefficients in {-1, 0, 1}: every byte below 3^5 = 243 of
 * SHAKE256(seed || nonce) gives five base-3 digits (digit 2 stands for -1).
 * The seed is secret, so the accepted bytes are gathered by an oblivious
 * compaction; only whether a window of bytes held enough of them is made
 * public (the first 64 bytes almost always do; a block practically always).
 */
#define ETA_BYTES_NEEDED ((HAETAE_N + 4) / 5)
#define ETA_WINDOW 64

/* Entries of the byte compaction: value in bits 0-7, "accepted" in bit 8,
 * the number of refused bytes before it in bits 9-16. */
#define ETA_KEEP (UINT32_C(1) << 8)
#define ETA_D_SHIFT 9

struct eta_lane {
    uint32_t e[ETA_BYTES_NEEDED + KPQC_SHAKE256_RATE];
    size_t n;
    int done;
};

/* Order-preserving oblivious compaction of the accepted bytes, as
 * kpqc_haetae_ct_compact but with each entry in one word; enough rounds for
 * moves up to max_d. */
static void eta_compact(uint32_t *e, size_t n, size_t max_d) {
    uint32_t dropped = 0;
    for (size_t i = 0; i < n; i++) {
        e[i] = (e[i] & 0x1ff) | (dropped << ETA_D_SHIFT);
        dropped += 1 - ((e[i] >> 8) & 1);
    }
    for (unsigned k = 0; ((size_t)1 << k) <= max_d; k++) {
        const size_t s = (size_t)1 << k;
        for (size_t j = s; j < n; j++) {
            uint32_t m = 0 - ((e[j] >> 8) & (e[j] >> (ETA_D_SHIFT + k)) & 1);
            e[j - s] = (e[j - s] & ~m) | (e[j] & m);
            e[j] &= ~(m & ETA_KEEP);
        }
    }
}

static void eta_feed(struct eta_lane *l, const uint8_t block[KPQC_SHAKE256_RATE]) {
    uint32_t count = 0, count_window = 0;
    size_t n = l->n;
    for (size_t i = 0; i < n; i++) count += (l->e[i] >> 8) & 1;
    for (size_t i = 0; i < KPQC_SHAKE256_RATE; i++) {
        uint32_t keep = ((uint32_t)block[i] - 243) >> 31;
        l->e[n + i] = block[i] | (keep << 8);
        count += keep;
        if (n + i == ETA_WINDOW - 1) count_window = count;
    }
    if (n == 0) {
        uint32_t window_enough = (uint32_t)(ETA_BYTES_NEEDED - 1 - (int32_t)count_window) >> 31;
        KPQC_CT_DECLASSIFY(&window_enough, sizeof window_enough);
        if (window_enough) {
            /* at most 64 - 52 bytes were refused, so no entry moves further */
            eta_compact(l->e, ETA_WINDOW, ETA_WINDOW - ETA_BYTES_NEEDED);
            l->done = 1;
            return;
        }
    }
    n += KPQC_SHAKE256_RATE;
    eta_compact(l->e, n, n - 1);
    uint32_t enough = (uint32_t)(ETA_BYTES_NEEDED - 1 - (int32_t)count) >> 31;
    KPQC_CT_DECLASSIFY(&enough, sizeof enough);
    l->done = (int)enough;
    l->n = ETA_BYTES_NEEDED; /* the accepted bytes are all in front */
}

static void eta_digits(hpoly *a, const struct eta_lane *l) {
    for (unsigned i = 0; i < HAETAE_N; i += 5) {
        uint32_t t = l->e[i / 5] & 0xff;
        for (unsigned d = 0; d < 5 && i + d < HAETAE_N; d++) {
            uint32_t t3 = (t * 171) >> 9; /* t / 3 for t < 243 */
            int32_t digit = (int32_t)(t - 3 * t3);
            a->c[i + d] = digit - 3 * (digit >> 1);
            t = t3;
        }
    }
    /* The signs are borrows MemorySanitizer does not carry (KPQC_CT_TAINT). */
    KPQC_CT_TAINT(a->c, sizeof a->c, l->e, (HAETAE_N + 4) / 5 * sizeof l->e[0]);
    KPQC_CT_EXPECT_SECRET_EACH(a->c, HAETAE_N, sizeof a->c[0], "a secret key polynomial");
}

/* a[i] from SHAKE256(seed || nonce0 + i), four at a time. */
void kpqc_haetae_poly_eta_many(hpoly *a, size_t n, const uint8_t seed[HAETAE_CRHBYTES], uint16_t nonce0) {
    struct eta_lane lanes[4];
    for (size_t g = 0; g < n; g += 4) {
        kpqc_keccakx4 st;
        uint8_t block[4][KPQC_SHAKE256_RATE];
        uint16_t nn[4];
        for (unsigned j = 0; j < 4; j++) {
            nn[j] = (uint16_t)(nonce0 + g + j);
            lanes[j].n = 0;
            lanes[j].done = g + j >= n;
        }
        stream4_init(&st, KPQC_SHAKE256_RATE, seed, HAETAE_CRHBYTES, nn);
        while (!(lanes[0].done && lanes[1].done && lanes[2].done && lanes[3].done)) {
            kpqc_keccakx4_squeezeblocks(&st, block[0], block[1], block[2], block[3], 1);
            for (unsigned j = 0; j < 4; j++)
                if (!lanes[j].done) eta_feed(&lanes[j], block[j]);
        }
        for (unsigned j = 0; j < 4 && g + j < n; j++) eta_digits(&a[g + j], &lanes[j]);
        kpqc_wipe(block, sizeof block);
        kpqc_wipe(&st, sizeof st);
    }
    kpqc_wipe(lanes, sizeof lanes);
}

size_t kpqc_haetae_challenge_input_bytes(const struct haetae_params *p) {
    return p->k * HAETAE_HIGHBITS_BYTES + HAETAE_N / 8;
}

/* The masks below are borrows, which MemorySanitizer does not carry: m is
 * marked secret if x or y is (KPQC_CT_TAINT; nothing outside that check). */
static inline uint64_t borrow_mask(uint64_t m, uint32_t x, uint32_t y) {
    KPQC_CT_TAINT(&m, sizeof m, &x, sizeof x);
    KPQC_CT_TAINT(&m, sizeof m, &y, sizeof y);
    return m;
}

/* All-ones when x <= y, else 0, for x, y < 2^31. */
static inline uint64_t mask_le(uint32_t x, uint32_t y) {
    return borrow_mask(0 - (uint64_t)(kpqc_ct_barrier32(((y - x) >> 31) ^ 1)), x, y);
}

/* All-ones when x == y, else 0, for x, y < 2^31. */
static inline uint64_t mask_eq(uint32_t x, uint32_t y) {
    return borrow_mask(0 - (uint64_t)(((x ^ y) - 1) >> 31), x, y);
}

/*
 * The inside-out shuffle of modes 2 and 3 over the 256 bits of c (four
 * words): for each byte b of the stream, while fewer than tau ones are
 * placed (i < 256), a byte b <= i moves bit b to bit i and sets bit b; as
 * bit i is still 0, that adds bit b to the set, or bit i if b is in it
 * already.  Every byte is processed the same way, the word holding a bit
 * selected by masks, so neither the bytes' values nor how many were
 * refused show in the branches or addresses.  Returns the updated i.
 * (The portable kernel of the family's table; see haetae_shuffle_avx2.c.)
 */
uint32_t kpqc_haetae_shuffle_portable(uint64_t c[4], uint32_t i, const uint8_t *buf, size_t len) {
    for (size_t pos = 0; pos < len; pos++) {
        const uint32_t b = buf[pos];
        const uint64_t take = mask_le(b, i) & ~mask_le(HAETAE_N, i);
        const uint64_t bit_b = UINT64_C(1) << (b & 63), bit_i = UINT64_C(1) << (i & 63);
        uint64_t w_b[4], w_i[4], found = 0;
        for (uint32_t w = 0; w < 4; w++) {
            w_b[w] = mask_eq(w, b >> 6);
            w_i[w] = mask_eq(w, i >> 6);
            found |= c[w] & w_b[w];
        }
        const uint64_t in = 0 - (((found & bit_b) | (0 - (found & bit_b))) >> 63);
        for (uint32_t w = 0; w < 4; w++) c[w] |= take & ((w_b[w] & bit_b & ~in) | (w_i[w] & bit_i & in));
        i += (uint32_t)(take & 1);
    }
    return i;
}

/*
 * The challenge: a polynomial with coefficients in {0, 1} drawn from
 * SHAKE256(highbits || lsb || mu).  Modes 2 and 3 place tau ones by an
 * inside-out shuffle; mode 5 takes 256 hash bits and complements them when
 * more than half are set (ties broken by the first bit), giving weight
 * at most 128.
 *
 * The signer derives c before it knows whether the attempt is accepted,
 * and c of a rejected attempt must stay secret, so the derivation is
 * constant-time: the shuffle reads a fixed number of blocks of the stream
 * whatever their bytes, and only "they were not enough" is made public,
 * an event of probability below 2^-100: one block for tau = 58 (more than
 * 78 refused bytes of 136: below 2^-111), two for tau = 80 (more than 192
 * of 272: below 2^-240).  Further blocks, if ever, one at a time.
 * The verifier's inputs are public, and there the shuffle stops at the
 * last byte it needs (is_secret = 0: about 70 bytes instead of 136 or
 * 272, each with a few instructions instead of some 120).
 */
#define CHALLENGE_MAX_BLOCKS 2
static unsigned challenge_blocks(const struct haetae_params *p) { return p->tau <= 64 ? 1 : 2; }

/* The shuffle on public bytes: bit i set when bit b already is. */
static void shuffle_public(uint64_t c[4], unsigned tau, kpqc_keccak *st) {
    uint8_t buf[KPQC_SHAKE256_RATE];
    size_t pos = sizeof buf;
    for (unsigned i = HAETAE_N - tau; i < HAETAE_N; i++) {
        unsigned b;
        do {
            if (pos == sizeof buf) {
                kpqc_keccak_squeezeblocks(st, buf, 1);
                pos = 0;
            }
            b = buf[pos++];
        } while (b > i);
        c[i >> 6] |= ((c[b >> 6] >> (b & 63)) & 1) << (i & 63);
        c[b >> 6] |= UINT64_C(1) << (b & 63);
    }
}

/* be: the kernels for secret inputs; NULL for public ones */
static void challenge(const struct haetae_params *p, const struct haetae_backend *be, hpoly *c, const uint8_t *hb_lsb,
                      const uint8_t mu[HAETAE_SEEDBYTES]) {
    kpqc_keccak st;
    uint64_t bits[4] = {0, 0, 0, 0};
    kpqc_shake256_init(&st);
    kpqc_keccak_absorb(&st, hb_lsb, kpqc_haetae_challenge_input_bytes(p));
    kpqc_keccak_absorb(&st, mu, HAETAE_SEEDBYTES);
    if (p->tau < 128 && be == NULL) {
        shuffle_public(bits, p->tau, &st);
    } else if (p->tau < 128) {
        uint8_t buf[CHALLENGE_MAX_BLOCKS * KPQC_SHAKE256_RATE];
        uint32_t i = HAETAE_N - p->tau;
        kpqc_keccak_squeezeblocks(&st, buf, challenge_blocks(p));
        i = be->shuffle(bits, i, buf, challenge_blocks(p) * KPQC_SHAKE256_RATE);
        for (;;) {
            uint32_t more = (uint32_t)(mask_le(HAETAE_N, i) == 0);
            KPQC_CT_DECLASSIFY(&more, sizeof more);
            if (!more) break;
            kpqc_keccak_squeezeblocks(&st, buf, 1);
            i = be->shuffle(bits, i, buf, KPQC_SHAKE256_RATE);
        }
        kpqc_wipe(buf, sizeof buf);
    } else {
        uint8_t buf[HAETAE_N / 8];
        uint32_t weight = 0;
        kpqc_keccak_squeeze(&st, buf, sizeof buf);
        for (unsigned j = 0; j < 4; j++)
            for (unsigned t = 0; t < 8; t++) bits[j] |= (uint64_t)buf[8 * j + t] << (8 * t);
        for (unsigned j = 0; j < 4; j++)
            for (unsigned t = 0; t < 64; t++) weight += (uint32_t)(bits[j] >> t) & 1;
        /* complement when weight > 128, or weight = 128 and bit 0 is set */
        uint64_t flip = ~mask_le(weight, 128) | (mask_le(weight, 128) & mask_le(128, weight) & (0 - (bits[0] & 1)));
        for (unsigned j = 0; j < 4; j++) bits[j] ^= flip;
        kpqc_wipe(buf, sizeof buf);
    }
    for (unsigned t = 0; t < HAETAE_N; t++) c->c[t] = (int32_t)((bits[t >> 6] >> (t & 63)) & 1);
    kpqc_wipe(bits, sizeof bits);
    kpqc_keccak_wipe(&st);
}

void kpqc_haetae_challenge(const struct haetae_params *p, const struct haetae_backend *be, hpoly *c,
                           const uint8_t *hb_lsb, const uint8_t mu[HAETAE_SEEDBYTES]) {
    challenge(p, be, c, hb_lsb, mu);
}

void kpqc_haetae_challenge_public(const struct haetae_params *p, hpoly *c, const uint8_t *hb_lsb,
                             const uint8_t mu[HAETAE_SEEDBYTES]) {
    challenge(p, NULL, c, hb_lsb, mu);
}

/* Modes 2, 3: one byte per coefficient, rest of the 288-byte slot zero;
 * mode 5: 9 bits per coefficient, little-endian. */
void kpqc_haetae_pack_highbits(const struct haetae_params *p, uint8_t *buf, const hpoly *w) {
    memset(buf, 0, HAETAE_HIGHBITS_BYTES);
    if (p->alpha_hint_bits == 9) {
        for (unsigned i = 0; i < HAETAE_N; i++) buf[i] = (uint8_t)w->c[i];
        return;
    }
    /* eight values fill nine bytes exactly: 64 bits, then the last
     * value's top eight */
    for (unsigned i = 0; i < HAETAE_N; i += 8, buf += 9) {
        uint64_t acc = 0;
        for (unsigned j = 0; j < 8; j++) acc |= (uint64_t)((uint32_t)w->c[i + j] & 0x1ff) << (9 * j);
        for (unsigned j = 0; j < 8; j++) buf[j] = (uint8_t)(acc >> (8 * j));
        buf[8] = (uint8_t)(((uint32_t)w->c[i + 7] & 0x1ff) >> 1);
    }
}

void kpqc_haetae_pack_lsb(uint8_t buf[HAETAE_N / 8], const hpoly *a) {
    memset(buf, 0, HAETAE_N / 8);
    for (unsigned i = 0; i < HAETAE_N; i++) buf[i / 8] |= (uint8_t)((a->c[i] & 1) << (i % 8));
}

/* Public-key polynomials: 15 bits each (modes 2, 3) or 16 bits (mode 5). */
void kpqc_haetae_pack_q(const struct haetae_params *p, uint8_t *r, const hpoly *a) {
    unsigned bits = p->pk_in_ntt ? 16 : 15;
    memset(r, 0, p->polyq_bytes);
    for (unsigned i = 0; i < HAETAE_N; i++) {
        uint32_t v = (uint32_t)a->c[i];
        unsigned bit = bits * i;
        for (unsigned j = 0; j < bits; j++, bit++) r[bit / 8] |= (uint8_t)(((v >> j) & 1) << (bit % 8));
    }
}

void kpqc_haetae_unpack_q(const struct haetae_params *p, hpoly *a, const uint8_t *r) {
    if (p->pk_in_ntt) { /* 16 bits */
        for (unsigned i = 0; i < HAETAE_N; i++) a->c[i] = (int32_t)(r[2 * i] | (uint32_t)r[2 * i + 1] << 8);
        return;
    }
    /* 15 bits: eight coefficients in every 15 bytes */
    for (unsigned g = 0; g < HAETAE_N / 8; g++) {
        const uint8_t *q = r + 15 * g;
        uint64_t hi = 0;
        for (unsigned b = 0; b < 7; b++) hi |= (uint64_t)q[8 + b] << (8 * b);
        const unsigned __int128 v = (unsigned __int128)hi << 64 | kpqc_load64_le(q);
        for (unsigned j = 0; j < 8; j++) a->c[8 * g + j] = (int32_t)((uint64_t)(v >> (15 * j)) & 0x7fff);
    }
}

/* Coefficients in [-1, 1] as 1 - x in two bits. */
void kpqc_haetae_pack_eta(uint8_t r[HAETAE_N / 4], const hpoly *a) {
    for (unsigned i = 0; i < HAETAE_N / 4; i++) {
        r[i] = 0;
        for (unsigned j = 0; j < 4; j++) r[i] |= (uint8_t)(((1 - a->c[4 * i + j]) & 3) << (2 * j));
    }
}

void kpqc_haetae_unpack_eta(hpoly *a, const uint8_t r[HAETAE_N / 4]) {
    for (unsigned i = 0; i < HAETAE_N; i++) a->c[i] = 1 - ((r[i / 4] >> (2 * (i % 4))) & 3);
}

/* Coefficients in [-2, 2] as 2 - x in three bits. */
void kpqc_haetae_pack_2eta(uint8_t r[HAETAE_N * 3 / 8], const hpoly *a) {
    memset(r, 0, HAETAE_N * 3 / 8);
    for (unsigned i = 0; i < HAETAE_N; i++) {
        uint32_t v = (uint32_t)(2 - a->c[i]) & 7;
        unsigned bit = 3 * i;
        r[bit / 8] |= (uint8_t)(v << (bit % 8));
        if (bit % 8 > 5) r[bit / 8 + 1] |= (uint8_t)(v >> (8 - bit % 8));
    }
}

void kpqc_haetae_unpack_2eta(hpoly *a, const uint8_t r[HAETAE_N * 3 / 8]) {
    for (unsigned i = 0; i < HAETAE_N; i++) {
        unsigned bit = 3 * i;
        uint32_t w = r[bit / 8];
        if (bit / 8 + 1 < HAETAE_N * 3 / 8) w |= (uint32_t)r[bit / 8 + 1] << 8;
        a->c[i] = 2 - (int32_t)((w >> (bit % 8)) & 7);
    }
}
