/*
 * Every KEM of the table: round trips over many keys, rejection of every
 * single-bit flip of a ciphertext (implicit: a pseudo-random secret other
 * than the real one; explicit: an error and an all-zero secret), refusal of
 * wrong lengths, arbitrary bytes as ciphertext and public key.
 */
#include <string.h>

#include "harness.h"

#define ROUND_TRIPS 200

static void round_trips(const kpqc_kem *k, unsigned seed) {
    kpqc_nist_drbg d;
    kpqc_rng rng = test_rng(&d, seed);
    uint8_t *pk = test_alloc(k->pk_len), *sk = test_alloc(k->sk_len), *ct = test_alloc(k->ct_len);
    uint8_t ss[32], ss2[32], previous[32] = {0};
    for (unsigned i = 0; i < ROUND_TRIPS; i++) {
        /* Half the keys from the deterministic DRBG, half from the OS. */
        const kpqc_rng *r = (i & 1) ? NULL : &rng;
        CHECK(kpqc_kem_keypair(k, pk, k->pk_len, sk, k->sk_len, r) == KPQC_OK);
        CHECK(kpqc_kem_encaps(k, ct, k->ct_len, ss, 32, pk, k->pk_len, r) == KPQC_OK);
        CHECK(kpqc_kem_decaps(k, ss2, 32, ct, k->ct_len, sk, k->sk_len) == KPQC_OK);
        CHECK_MSG(memcmp(ss, ss2, 32) == 0, "%s: round trip %u", k->name, i);
        CHECK(memcmp(ss, previous, 32) != 0);
        memcpy(previous, ss, 32);
    }
    free(pk), free(sk), free(ct);
}

static void implicit_rejection(const kpqc_kem *k) {
    uint8_t *pk = test_alloc(k->pk_len), *sk = test_alloc(k->sk_len);
    uint8_t *ct = test_alloc(k->ct_len), *bad = test_alloc(k->ct_len);
    uint8_t ss[32], rej[32], rej_again[32], first_rej[32];
    CHECK(kpqc_kem_keypair(k, pk, k->pk_len, sk, k->sk_len, NULL) == KPQC_OK);
    CHECK(kpqc_kem_encaps(k, ct, k->ct_len, ss, 32, pk, k->pk_len, NULL) == KPQC_OK);
    static const uint8_t zero[32] = {0};
    unsigned same_as_real = 0, differs_from_first = 0, wrong_answer = 0;
    const int explicit_rejection = k->rejection == KPQC_REJECT_EXPLICIT;
    for (size_t bit = 0; bit < 8 * k->ct_len; bit++) {
        memcpy(bad, ct, k->ct_len);
        bad[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        int rc = kpqc_kem_decaps(k, rej, 32, bad, k->ct_len, sk, k->sk_len);
        if (explicit_rejection) {
            wrong_answer += rc != KPQC_ERR_DECAPS || memcmp(rej, zero, 32) != 0;
            continue;
        }
        wrong_answer += rc != KPQC_OK;
        same_as_real += memcmp(rej, ss, 32) == 0;
        if (bit == 0) memcpy(first_rej, rej, 32);
        else differs_from_first += memcmp(rej, first_rej, 32) != 0;
        if (bit % 997 == 0) { /* rejection is a deterministic function of (sk, ct) */
            CHECK(kpqc_kem_decaps(k, rej_again, 32, bad, k->ct_len, sk, k->sk_len) == KPQC_OK);
            CHECK(memcmp(rej, rej_again, 32) == 0);
        }
    }
    CHECK_MSG(wrong_answer == 0, "%s: %u flipped ciphertexts not rejected as specified", k->name, wrong_answer);
    CHECK_MSG(same_as_real == 0, "%s: %u flipped ciphertexts gave the real secret", k->name, same_as_real);
    if (!explicit_rejection)
        CHECK_MSG(differs_from_first == 8 * k->ct_len - 1, "%s: rejection secrets repeat", k->name);
    free(pk), free(sk), free(ct), free(bad);
}

static void wrong_lengths(const kpqc_kem *k) {
    size_t big = k->sk_len + k->pk_len + k->ct_len + 64;
    uint8_t *a = test_alloc(big), *b = test_alloc(big), *c = test_alloc(big), ss[64];
    CHECK(kpqc_kem_keypair(k, a, k->pk_len - 1, b, k->sk_len, NULL) == KPQC_ERR_LENGTH);
    CHECK(kpqc_kem_keypair(k, a, k->pk_len, b, k->sk_len + 1, NULL) == KPQC_ERR_LENGTH);
    CHECK(kpqc_kem_keypair(NULL, a, k->pk_len, b, k->sk_len, NULL) == KPQC_ERR_ARGUMENT);
    CHECK(kpqc_kem_keypair(k, NULL, k->pk_len, b, k->sk_len, NULL) == KPQC_ERR_ARGUMENT);
    CHECK(kpqc_kem_keypair(k, a, k->pk_len, b, k->sk_len, NULL) == KPQC_OK);
    CHECK(kpqc_kem_encaps(k, c, k->ct_len + 1, ss, 32, a, k->pk_len, NULL) == KPQC_ERR_LENGTH);
    CHECK(kpqc_kem_encaps(k, c, k->ct_len, ss, 31, a, k->pk_len, NULL) == KPQC_ERR_LENGTH);
    CHECK(kpqc_kem_encaps(k, c, k->ct_len, ss, 32, a, k->pk_len - 1, NULL) == KPQC_ERR_LENGTH);
    CHECK(kpqc_kem_encaps(k, c, k->ct_len, ss, 32, a, 0, NULL) == KPQC_ERR_LENGTH);
    CHECK(kpqc_kem_encaps(k, c, k->ct_len, NULL, 32, a, k->pk_len, NULL) == KPQC_ERR_ARGUMENT);
    CHECK(kpqc_kem_decaps(k, ss, 32, c, k->ct_len - 1, b, k->sk_len) == KPQC_ERR_LENGTH);
    CHECK(kpqc_kem_decaps(k, ss, 32, c, k->ct_len + 1, b, k->sk_len) == KPQC_ERR_LENGTH);
    CHECK(kpqc_kem_decaps(k, ss, 32, c, k->ct_len, b, k->sk_len - 1) == KPQC_ERR_LENGTH);
    CHECK(kpqc_kem_decaps(k, ss, 33, c, k->ct_len, b, k->sk_len) == KPQC_ERR_LENGTH);
    CHECK(kpqc_kem_decaps(k, ss, 32, NULL, k->ct_len, b, k->sk_len) == KPQC_ERR_ARGUMENT);
    free(a), free(b), free(c);
}

/* Arbitrary bytes as ciphertext and as public key: no crash, a defined result. */
static void garbage_inputs(const kpqc_kem *k) {
    uint8_t *pk = test_alloc(k->pk_len), *sk = test_alloc(k->sk_len), *ct = test_alloc(k->ct_len);
    uint8_t ss[32];
    CHECK(kpqc_kem_keypair(k, pk, k->pk_len, sk, k->sk_len, NULL) == KPQC_OK);
    for (int fill = 0; fill < 2; fill++) {
        memset(ct, fill ? 0xFF : 0x00, k->ct_len);
        int drc = kpqc_kem_decaps(k, ss, 32, ct, k->ct_len, sk, k->sk_len);
        CHECK(drc == (k->rejection == KPQC_REJECT_EXPLICIT ? KPQC_ERR_DECAPS : KPQC_OK));
        memset(pk, fill ? 0xFF : 0x00, k->pk_len);
        int rc = kpqc_kem_encaps(k, ct, k->ct_len, ss, 32, pk, k->pk_len, NULL);
        CHECK(rc == KPQC_OK || rc == KPQC_ERR_DECODE);
    }
    free(pk), free(sk), free(ct);
}

/* The secret key's copy (or hash) of the public key binds the pair. */
static void keypair_check(const kpqc_kem *k) {
    uint8_t *pk = test_alloc(k->pk_len), *sk = test_alloc(k->sk_len), *pk2 = test_alloc(k->pk_len),
            *sk2 = test_alloc(k->sk_len);
    CHECK(kpqc_kem_keypair(k, pk, k->pk_len, sk, k->sk_len, NULL) == KPQC_OK);
    CHECK(kpqc_kem_keypair(k, pk2, k->pk_len, sk2, k->sk_len, NULL) == KPQC_OK);
    CHECK(kpqc_kem_check_keypair(k, pk, k->pk_len, sk, k->sk_len) == KPQC_OK);
    CHECK(kpqc_kem_check_keypair(k, pk, k->pk_len, sk2, k->sk_len) == KPQC_ERR_DECODE);
    unsigned accepted = 0;
    for (size_t b = 0; b < 8 * k->pk_len; b++) {
        pk[b / 8] ^= (uint8_t)(1u << (b % 8));
        accepted += kpqc_kem_check_keypair(k, pk, k->pk_len, sk, k->sk_len) == KPQC_OK;
        pk[b / 8] ^= (uint8_t)(1u << (b % 8));
    }
    CHECK_MSG(accepted == 0, "%s: %u public-key bit flips accepted by the pair check", k->name, accepted);
    CHECK(kpqc_kem_check_keypair(k, pk, k->pk_len + 1, sk, k->sk_len) == KPQC_ERR_LENGTH);
    CHECK(kpqc_kem_check_keypair(k, pk, k->pk_len, sk, k->sk_len - 1) == KPQC_ERR_LENGTH);
    CHECK(kpqc_kem_check_keypair(k, pk, k->pk_len, NULL, k->sk_len) == KPQC_ERR_ARGUMENT);
    free(pk), free(sk), free(pk2), free(sk2);
}

int main(int argc, char **argv) {
    for (size_t i = 0; i < kpqc_kem_count(); i++) {
        const kpqc_kem *k = kpqc_kem_at(i);
        if (argc > 1 && kpqc_kem_by_name(argv[1]) != k) continue;
        printf("%s (%s path)\n", k->name, kpqc_impl_name());
        round_trips(k, (unsigned)i);
        implicit_rejection(k);
        wrong_lengths(k);
        garbage_inputs(k);
        keypair_check(k);
    }
    return test_result("test_kem");
}
