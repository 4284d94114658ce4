#define _POSIX_C_SOURCE 200809L /* clock_gettime */
/*
 * Every signature scheme of the table: round trips with random messages and
 * contexts; any single-bit flip of signature, message, context or public
 * key makes verification fail; truncated and oversized signatures are
 * refused; wrong lengths give an error; the key-pair check refuses every
 * altered public key and every altered secret key but for the bytes that
 * only seed signing.  Run under AddressSanitizer too, so a decoder reading
 * past a short signature is caught.
 */
#include <string.h>

#include "harness.h"

#include <time.h>

#define ROUND_TRIPS 8
#define FLIP_SECONDS 0.5 /* time budget per flipped field; more bits than fit get an even sample */

static size_t max_flips = 16384;

static int verifies(const kpqc_sig *s, const uint8_t *sig, size_t sig_len, const uint8_t *msg,
                    size_t msg_len, const uint8_t *ctx, size_t ctx_len, const uint8_t *pk) {
    return kpqc_sig_verify(s, sig, sig_len, msg, msg_len, ctx, ctx_len, pk, s->pk_len) == KPQC_OK;
}

/* Flips bits of buf[0..len) one at a time (all of them, or an evenly
 * spread sample that includes the first and last bit); returns how many of
 * the altered inputs still verified. */
static unsigned flips_accepted(const kpqc_sig *s, uint8_t *buf, size_t len, uint8_t *sig,
                               size_t sig_len, uint8_t *msg, size_t msg_len, uint8_t *ctx,
                               size_t ctx_len, uint8_t *pk) {
    size_t bits = 8 * len, n = bits < max_flips ? bits : max_flips;
    unsigned accepted = 0;
    for (size_t i = 0; i < n; i++) {
        size_t b = n == bits ? i : (i == n - 1 ? bits - 1 : i * (bits / n));
        buf[b / 8] ^= (uint8_t)(1u << (b % 8));
        accepted += verifies(s, sig, sig_len, msg, msg_len, ctx, ctx_len, pk);
        buf[b / 8] ^= (uint8_t)(1u << (b % 8));
    }
    return accepted;
}

/* The most a secret key may carry that no check can tie to its public key:
 * HAETAE's 32-byte seed of the signing randomness, at its end. */
#define FREE_SEED_BYTES 32

static int pair_checks(const kpqc_sig *s, const uint8_t *pk, const uint8_t *sk) {
    return kpqc_sig_check_keypair(s, pk, s->pk_len, sk, s->sk_len) == KPQC_OK;
}

static void keypair_check(const kpqc_sig *s, uint8_t *pk, uint8_t *sk) {
    CHECK_MSG(pair_checks(s, pk, sk), "%s: fresh key pair refused", s->name);
    unsigned accepted = 0, unusable = 0;
    for (size_t b = 0; b < 8 * s->pk_len; b++) {
        pk[b / 8] ^= (uint8_t)(1u << (b % 8));
        accepted += pair_checks(s, pk, sk);
        pk[b / 8] ^= (uint8_t)(1u << (b % 8));
    }
    CHECK_MSG(accepted == 0, "%s: %u public-key bit flips accepted by the pair check", s->name, accepted);
    accepted = 0;
    for (size_t b = 0; b < 8 * s->sk_len; b++) {
        sk[b / 8] ^= (uint8_t)(1u << (b % 8));
        if (pair_checks(s, pk, sk)) {
            /* tolerated only in the trailing seed, and the key must still sign */
            uint8_t *sig = test_alloc(s->sig_len), msg[32] = {(uint8_t)b};
            size_t len = s->sig_len;
            accepted++;
            unusable += b / 8 < s->sk_len - FREE_SEED_BYTES ||
                        kpqc_sig_sign(s, sig, &len, msg, sizeof msg, NULL, 0, sk, s->sk_len, NULL) != KPQC_OK ||
                        kpqc_sig_verify(s, sig, len, msg, sizeof msg, NULL, 0, pk, s->pk_len) != KPQC_OK;
            free(sig);
        }
        sk[b / 8] ^= (uint8_t)(1u << (b % 8));
    }
    CHECK_MSG(unusable == 0, "%s: %u of %u secret-key bit flips accepted wrongly", s->name, unusable, accepted);
    CHECK(kpqc_sig_check_keypair(s, pk, s->pk_len - 1, sk, s->sk_len) == KPQC_ERR_LENGTH);
    CHECK(kpqc_sig_check_keypair(s, pk, s->pk_len, sk, s->sk_len + 1) == KPQC_ERR_LENGTH);
    CHECK(kpqc_sig_check_keypair(s, NULL, s->pk_len, sk, s->sk_len) == KPQC_ERR_ARGUMENT);
    /* Constant secret keys: all-ones puts every secret coefficient out of
     * range, which the check reads on (it does not stop at the first
     * mismatch) and which overflows the arithmetic if left unchecked: run
     * under UBSan too. */
    uint8_t *fill = test_alloc(s->sk_len);
    for (int v = 0; v < 256; v += 255) {
        memset(fill, v, s->sk_len);
        CHECK_MSG(!pair_checks(s, pk, fill), "%s: a secret key of bytes %02x accepted", s->name, v);
    }
    free(fill);
    /* a secret key from another pair */
    uint8_t *pk2 = test_alloc(s->pk_len), *sk2 = test_alloc(s->sk_len);
    CHECK(kpqc_sig_keypair(s, pk2, s->pk_len, sk2, s->sk_len, NULL) == KPQC_OK);
    CHECK(!pair_checks(s, pk, sk2) && !pair_checks(s, pk2, sk) && pair_checks(s, pk2, sk2));
    free(pk2), free(sk2);
}

static void check_one(const kpqc_sig *s, unsigned seed) {
    kpqc_nist_drbg d;
    kpqc_rng rng = test_rng(&d, seed);
    uint8_t *pk = test_alloc(s->pk_len), *sk = test_alloc(s->sk_len);
    uint8_t *sig = test_alloc(s->sig_len + 16), msg[96], ctx[KPQC_SIG_MAX_CONTEXT + 1];
    for (unsigned i = 0; i < ROUND_TRIPS; i++) {
        size_t sig_len = s->sig_len + 16, msg_len = i * 5 % sizeof msg, ctx_len = (i * 37) % 256;
        CHECK(kpqc_randombytes(&rng, msg, sizeof msg) == KPQC_OK);
        CHECK(kpqc_randombytes(&rng, ctx, sizeof ctx) == KPQC_OK);
        if (i == 0) ctx_len = 0;
        if (i == 1) ctx_len = KPQC_SIG_MAX_CONTEXT;
        CHECK(kpqc_sig_keypair(s, pk, s->pk_len, sk, s->sk_len, (i & 1) ? NULL : &rng) == KPQC_OK);
        CHECK(kpqc_sig_sign(s, sig, &sig_len, msg, msg_len, ctx, ctx_len, sk, s->sk_len, (i & 1) ? NULL : &rng) == KPQC_OK);
        CHECK(sig_len <= s->sig_len);
        CHECK_MSG(verifies(s, sig, sig_len, msg, msg_len, ctx, ctx_len, pk), "%s: round trip %u", s->name, i);
        if (msg_len > 0) CHECK(!verifies(s, sig, sig_len, msg, msg_len - 1, ctx, ctx_len, pk));
        CHECK(!verifies(s, sig, sig_len, msg, msg_len + 1, ctx, ctx_len, pk));
        if (ctx_len > 0) CHECK(!verifies(s, sig, sig_len, msg, msg_len, ctx, ctx_len - 1, pk));
        if (i != 2) continue;

        /* The exhaustive part, once per scheme. */
        msg_len = 64, ctx_len = 16;
        sig_len = s->sig_len + 16;
        CHECK(kpqc_sig_sign(s, sig, &sig_len, msg, msg_len, ctx, ctx_len, sk, s->sk_len, &rng) == KPQC_OK);
        /* Flip every bit when verification is fast enough, else an evenly
         * spread sample (always including the first and the last bit). */
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        CHECK(verifies(s, sig, sig_len, msg, msg_len, ctx, ctx_len, pk));
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double one = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
        max_flips = (size_t)(FLIP_SECONDS / (one > 1e-7 ? one : 1e-7));
        if (max_flips < 64) max_flips = 64;
        if (max_flips > 16384) max_flips = 16384;
        unsigned a;
        a = flips_accepted(s, sig, sig_len, sig, sig_len, msg, msg_len, ctx, ctx_len, pk);
        CHECK_MSG(a == 0, "%s: %u signature bit flips accepted", s->name, a);
        a = flips_accepted(s, msg, msg_len, sig, sig_len, msg, msg_len, ctx, ctx_len, pk);
        CHECK_MSG(a == 0, "%s: %u message bit flips accepted", s->name, a);
        a = flips_accepted(s, ctx, ctx_len, sig, sig_len, msg, msg_len, ctx, ctx_len, pk);
        CHECK_MSG(a == 0, "%s: %u context bit flips accepted", s->name, a);
        a = flips_accepted(s, pk, s->pk_len, sig, sig_len, msg, msg_len, ctx, ctx_len, pk);
        CHECK_MSG(a == 0, "%s: %u public-key bit flips accepted", s->name, a);
        CHECK(verifies(s, sig, sig_len, msg, msg_len, ctx, ctx_len, pk));
        keypair_check(s, pk, sk);

        /* Truncated and oversized signatures: heap copies of the exact size,
         * so AddressSanitizer sees any read past the end. */
        size_t cuts[] = {0, 1, sig_len / 2, sig_len - 1, sig_len + 1, sig_len + 16};
        for (size_t c = 0; c < sizeof cuts / sizeof cuts[0]; c++) {
            uint8_t *copy = test_alloc(cuts[c]);
            memcpy(copy, sig, cuts[c] < sig_len ? cuts[c] : sig_len);
            if (cuts[c] > sig_len) memset(copy + sig_len, 0, cuts[c] - sig_len);
            CHECK_MSG(!verifies(s, copy, cuts[c], msg, msg_len, ctx, ctx_len, pk), "%s: length %zu accepted", s->name, cuts[c]);
            free(copy);
        }
        /* All-zero and all-one signatures. */
        uint8_t *junk = test_alloc(s->sig_len);
        memset(junk, 0, s->sig_len);
        CHECK(!verifies(s, junk, s->sig_len, msg, msg_len, ctx, ctx_len, pk));
        memset(junk, 0xFF, s->sig_len);
        CHECK(!verifies(s, junk, s->sig_len, msg, msg_len, ctx, ctx_len, pk));
        free(junk);
    }

    /* Wrong lengths and arguments. */
    size_t sig_len = s->sig_len - 1;
    CHECK(kpqc_sig_sign(s, sig, &sig_len, msg, 8, NULL, 0, sk, s->sk_len, NULL) == KPQC_ERR_LENGTH);
    sig_len = s->sig_len;
    CHECK(kpqc_sig_sign(s, sig, &sig_len, msg, 8, NULL, 0, sk, s->sk_len - 1, NULL) == KPQC_ERR_LENGTH);
    CHECK(kpqc_sig_sign(s, sig, &sig_len, msg, 8, ctx, 256, sk, s->sk_len, NULL) == KPQC_ERR_LENGTH);
    CHECK(kpqc_sig_sign(s, sig, &sig_len, NULL, 8, NULL, 0, sk, s->sk_len, NULL) == KPQC_ERR_ARGUMENT);
    CHECK(kpqc_sig_sign(s, sig, NULL, msg, 8, NULL, 0, sk, s->sk_len, NULL) == KPQC_ERR_ARGUMENT);
    CHECK(kpqc_sig_keypair(s, pk, s->pk_len + 1, sk, s->sk_len, NULL) == KPQC_ERR_LENGTH);
    CHECK(kpqc_sig_sign(s, sig, &sig_len, NULL, 0, NULL, 0, sk, s->sk_len, NULL) == KPQC_OK);
    CHECK(kpqc_sig_verify(s, sig, sig_len, NULL, 0, NULL, 0, pk, s->pk_len) == KPQC_OK);
    CHECK(kpqc_sig_verify(s, sig, sig_len, NULL, 0, NULL, 0, pk, s->pk_len - 1) == KPQC_ERR_LENGTH);
    CHECK(kpqc_sig_verify(s, sig, sig_len, NULL, 0, ctx, 256, pk, s->pk_len) == KPQC_ERR_LENGTH);
    free(pk), free(sk), free(sig);
}

int main(int argc, char **argv) {
    for (size_t i = 0; i < kpqc_sig_count(); i++) {
        const kpqc_sig *s = kpqc_sig_at(i);
        if (argc > 1 && kpqc_sig_by_name(argv[1]) != s) continue;
        printf("%s (%s path)\n", s->name, kpqc_impl_name());
        check_one(s, (unsigned)i);
    }
    return test_result("test_sig");
}
