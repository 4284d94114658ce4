/*
 * The three samplers of SMAUG-T: fixed-Hamming-weight ternary secrets
 * (HWT), the discrete Gaussian error of the public key (a Boolean circuit
 * over bit-sliced random words) and the sparse centred binomial
 * distributions of the ephemeral secret.
 */
#include <string.h>

#include "common/ct.h"
#include "smaugt.h"

#define HWT_RAND_WORDS 308 /* 16-bit words drawn for the 256 bounded draws */
_Static_assert(SMAUGT_HWT_BYTES == 2 * HWT_RAND_WORDS + SMAUGT_N / 4, "HWT buffer layout");

/* Lemire's rejection threshold of draw i: 2^16 mod (256 - i), folded into
 * a table by the compiler (one division per draw was most of the time). */
#define HWT_T(i) (uint16_t)(65536u % (SMAUGT_N - (i)))
#define HWT_T4(i) HWT_T(i), HWT_T((i) + 1), HWT_T((i) + 2), HWT_T((i) + 3)
#define HWT_T16(i) HWT_T4(i), HWT_T4((i) + 4), HWT_T4((i) + 8), HWT_T4((i) + 12)
#define HWT_T64(i) HWT_T16(i), HWT_T16((i) + 16), HWT_T16((i) + 32), HWT_T16((i) + 48)
static const uint16_t hwt_threshold[SMAUGT_N] = {HWT_T64(0), HWT_T64(64), HWT_T64(128), HWT_T64(192)};

/*
 * s gets exactly hs non-zero coefficients of random sign.  Draw i picks a
 * uniform value in [0, 256 - i) by Lemire's multiply-and-reject from word
 * i; the value then decides, in constant time, whether coefficient i is
 * one of the remaining non-zero ones (a selection sampling of the
 * positions).  A draw is rejected with probability below 256/65536 and
 * redrawn from the words after the first 256, in order; the verdicts are
 * declassified (they reveal which 16-bit words were out of range, nothing
 * of s), and a seed whose 308 words run out is rejected, as the
 * specification says, so the caller retries with the next counter.  All
 * 256 first draws are made at once (vectorised); only a seed with a
 * rejection, about one in five, takes the redraw loop.
 */
/* Little-endian 16-bit word i of the buffer: one load on a little-endian
 * host, which lets the compiler vectorise the draws (the byte pair it
 * does not). */
static inline uint16_t hwt_word(const uint8_t *buf, unsigned i) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint16_t w;
    memcpy(&w, buf + 2 * i, sizeof w);
    return w;
#else
    return (uint16_t)(buf[2 * i] | (buf[2 * i + 1] << 8));
#endif
}

/* s does not overlap buf (restrict), so the sign pass needs no run-time
 * overlap check and its scalar fallback. */
int kpqc_smaugt_hwt(int16_t s[restrict SMAUGT_N], const uint8_t buf[restrict SMAUGT_HWT_BYTES], unsigned hs) {
    const uint8_t *sign = buf + 2 * HWT_RAND_WORDS;
    uint16_t pick[SMAUGT_N];
    uint8_t reject[SMAUGT_N];
    int rc = 0;

    /* 16 x 16-bit products, high and low halves: vector multiplies */
    uint8_t any = 0;
    for (unsigned i = 0; i < SMAUGT_N; i++) {
        const uint16_t w = hwt_word(buf, i), bound = (uint16_t)(SMAUGT_N - i);
        const uint16_t lo = (uint16_t)(w * bound);
        pick[i] = (uint16_t)(((uint32_t)w * bound) >> 16);
        reject[i] = (uint8_t)(lo < hwt_threshold[i]);
        any |= reject[i];
    }
    /* pick is the high half of a product: secret, which MemorySanitizer
     * does not see by itself (see KPQC_CT_TAINT). */
    KPQC_CT_TAINT(pick, sizeof pick, buf, 2 * SMAUGT_N);
    KPQC_CT_DECLASSIFY(&any, sizeof any);
    if (any) {
        unsigned next = SMAUGT_N;
        KPQC_CT_DECLASSIFY(reject, sizeof reject);
        for (unsigned i = 0; i < SMAUGT_N && rc == 0; i++) {
            if (i % 8 == 0) { /* eight accepted draws at once (public by now) */
                uint64_t eight;
                memcpy(&eight, reject + i, sizeof eight);
                if (eight == 0) {
                    i += 7;
                    continue;
                }
            }
            uint32_t bound = SMAUGT_N - i, m = 0, again = reject[i];
            while (again) {
                if (next >= HWT_RAND_WORDS) {
                    rc = -1;
                    break;
                }
                m = (uint32_t)hwt_word(buf, next) * bound;
                next++;
                again = (m & 0xFFFF) < hwt_threshold[i];
                KPQC_CT_DECLASSIFY(&again, sizeof again);
            }
            if (reject[i]) {
                pick[i] = (uint16_t)(m >> 16);
                KPQC_CT_TAINT(&pick[i], sizeof pick[i], buf + 2 * (next - 1), 2);
            }
        }
    }
    if (rc == 0) {
        /* Coefficient i is non-zero iff its draw lands among the still
         * missing positions: pick >= remaining, where remaining counts
         * down the zeros still to place.  Only the count is sequential
         * (a compare and a borrow a coefficient, no branch); the count
         * before each coefficient is kept and the comparison redone in
         * the vectorisable pass below (a byte-wise nonzero[] written in
         * the chain was twice as slow). */
        uint16_t before[SMAUGT_N];
        uint32_t remaining = SMAUGT_N - hs;
        for (unsigned i = 0; i < SMAUGT_N; i++) {
            before[i] = (uint16_t)remaining;
            remaining -= (uint32_t)pick[i] < remaining;
        }
        KPQC_CT_EXPECT_SECRET(before, sizeof before, "the fixed-weight sampler's count of zeros");
        /* Sign bits are laid out in 128-coefficient halves of 8 bit planes
         * of 16 bytes: coefficient 128 h + 16 p + t takes bit p of byte
         * 16 h + t, and is negated where that bit is clear:
         * (x ^ -1) + 1 = -x. */
        for (unsigned h = 0; h < 2; h++)
            for (unsigned pl = 0; pl < 8; pl++)
                for (unsigned t = 0; t < 16; t++) {
                    const unsigned i = 128 * h + 16 * pl + t;
                    const int16_t nonzero = (int16_t)(pick[i] >= before[i]);
                    const int16_t neg = (int16_t)(((sign[16 * h + t] >> pl) & 1) - 1);
                    s[i] = (int16_t)((nonzero ^ neg) - neg);
                }
        /* The signs are borrows out of sign bits: secret, which
         * MemorySanitizer does not see by itself (see KPQC_CT_TAINT). */
        KPQC_CT_TAINT(s, SMAUGT_N * sizeof s[0], sign, 32);
        KPQC_CT_EXPECT_SECRET_EACH(s, SMAUGT_N, sizeof s[0], "the fixed-weight secret");
        kpqc_wipe(before, sizeof before);
    }
    kpqc_wipe(pick, sizeof pick);
    return rc;
}

/*
 * Discrete Gaussian error with values in [-3, 3] (scaled by 2^(16-log_q)).
 * 64 coefficients at a time from ten 64-bit words: bit k of each word is
 * one random bit of coefficient k; the magnitude's two bits are Boolean
 * functions of nine of them and the tenth is the sign.  The words take
 * their bytes column-wise from each 80-byte block of SHAKE256 output.
 * w gets the magnitude's low and high bits and the sign bits of the
 * block's 64 coefficients.
 */
void kpqc_smaugt_gaussian_words(uint64_t w[3], const uint8_t b[80]) {
    uint64_t x[10];
    for (unsigned j = 0; j < 10; j++) {
        x[j] = 0;
        for (unsigned byte = 0; byte < 8; byte++) x[j] |= (uint64_t)b[10 * byte + j] << (8 * byte);
    }
    w[0] = (x[0] & x[1] & x[2] & x[3] & x[4] & x[5] & x[7] & ~x[8]) |
           (x[0] & x[3] & x[4] & x[5] & x[6] & x[8]) |
           (x[1] & x[3] & x[4] & x[5] & x[6] & x[8]) |
           (x[2] & x[3] & x[4] & x[5] & x[6] & x[8]) |
           (~x[2] & ~x[3] & ~x[6] & x[8]) | (~x[1] & ~x[3] & ~x[6] & x[8]) |
           (x[6] & x[7] & ~x[8]) | (~x[5] & ~x[6] & x[8]) |
           (~x[4] & ~x[6] & x[8]) | (~x[7] & x[8]);
    w[1] = (x[1] & x[2] & x[4] & x[5] & x[7] & x[8]) |
           (x[3] & x[4] & x[5] & x[7] & x[8]) | (x[6] & x[7] & x[8]);
    w[2] = x[9];
    kpqc_wipe(x, sizeof x);
}

void kpqc_smaugt_gaussian(smaugt_poly *e, const uint8_t buf[SMAUGT_GAUSS_BYTES], unsigned log_q) {
    for (unsigned blk = 0; blk < SMAUGT_N / 64; blk++) {
        uint64_t w[3];
        kpqc_smaugt_gaussian_words(w, buf + 80 * blk);
        for (unsigned k = 0; k < 64; k++) {
            uint16_t mag = (uint16_t)(((w[0] >> k) & 1) | (((w[1] >> k) & 1) << 1));
            uint16_t neg = (uint16_t)(0u - ((w[2] >> k) & 1));
            uint16_t v = (uint16_t)((mag ^ neg) - neg); /* two's complement of +-mag */
            e->c[64 * blk + k] = (uint16_t)((uint32_t)v << (16 - log_q));
        }
        kpqc_wipe(w, sizeof w);
    }
}

/* Sparse CBDs: a coefficient is non-zero when (b0 & b1) [3 bits] or
 * ((b0 | b1) & b2) [4 bits], its sign the last bit; CBD1 is b0 - b1.  The
 * branch is on the public parameter set only. */
void kpqc_smaugt_cbd_fields(int16_t r[SMAUGT_N], const uint16_t field[SMAUGT_N], enum smaugt_cbd kind) {
    if (kind == SMAUGT_CBD1) {
        for (unsigned i = 0; i < SMAUGT_N; i++) r[i] = (int16_t)((field[i] & 1) - ((field[i] >> 1) & 1));
    } else if (kind == SMAUGT_SPARSE_CBD3) {
        for (unsigned i = 0; i < SMAUGT_N; i++) {
            int16_t nz = (int16_t)(field[i] & (field[i] >> 1) & 1), sg = (int16_t)((field[i] >> 2) & 1);
            r[i] = (int16_t)(nz - 2 * (nz & sg));
        }
    } else {
        for (unsigned i = 0; i < SMAUGT_N; i++) {
            int16_t nz = (int16_t)((field[i] | (field[i] >> 1)) & (field[i] >> 2) & 1), sg = (int16_t)((field[i] >> 3) & 1);
            r[i] = (int16_t)(nz - 2 * (nz & sg));
        }
    }
}

void kpqc_smaugt_cbd(int16_t r[SMAUGT_N], const uint8_t *buf, enum smaugt_cbd kind) {
    uint16_t field[SMAUGT_N];
    kpqc_smaugt_unpack_bits(field, buf, smaugt_cbd_width(kind));
    kpqc_smaugt_cbd_fields(r, field, kind);
    kpqc_wipe(field, sizeof field);
}
