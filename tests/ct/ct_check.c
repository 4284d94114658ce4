/*
 * Constant-time check.  Run under valgrind memcheck, or built with
 * -fsanitize=memory (MemorySanitizer as a taint tracker, which runs every
 * path natively, avx512 included): every secret (the secret key, and every
 * byte the rng hands out, which seeds keys, messages and signing nonces) is
 * marked undefined, so any branch or memory index that depends on a secret
 * is reported as a use of uninitialised memory.
 * Outputs are declassified before the program looks at them.  Linked with
 * the KPQC_CT_TESTING copy of the library, in which the values a
 * specification makes public on purpose (rejection-sampling verdicts) are
 * declassified where they are decided.
 *
 *   valgrind --error-exitcode=1 ct_check [ALG...]     (ct_check)
 *   ct_check_msan [ALG...]                           (MemorySanitizer build)
 *
 * KPQC_IMPL=<path> names the code path; if this machine (or valgrind's
 * emulated CPU) cannot run it the check exits 77 (skipped), never runs
 * another path in its place.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kpqc/drbg.h>
#include <kpqc/kpqc.h>

#include "ct.h" /* KPQC_CT_POISON / KPQC_CT_DECLASSIFY: valgrind's or MSan's */

static int secret_fill(void *ctx, uint8_t *out, size_t len) {
    kpqc_nist_drbg_fill(ctx, out, len);
    KPQC_CT_POISON(out, len);
    return 0;
}

#define PUBLIC(p, n) KPQC_CT_DECLASSIFY((p), (n))
#define SECRET(p, n) KPQC_CT_POISON((p), (n))

static int selected(int argc, char **argv, const char *name) {
    if (argc < 2) return 1;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], name) == 0) return 1;
    return 0;
}

/*
 * The check checking itself: a lookup indexed by a secret and a branch on a
 * secret, which the checker must report (registered as tests that must
 * fail).  Out of line, and the table filled at run time, so the optimiser
 * keeps a real load and a real branch.  MemorySanitizer stops at its first
 * report, so each can be run alone: --self-test
 * [index|branch|product|mask|cmov|public] (public: a value declassified
 * where it must still be secret).
 */
static __attribute__((noinline)) int leaky_index(const uint8_t *table, const uint8_t *secret) {
    return table[secret[0]];
}
static __attribute__((noinline)) void count(int *acc) { ++*acc; }
static __attribute__((noinline)) int leaky_branch(const uint8_t *secret) {
    int acc = 0;
    if (secret[1] & 1) count(&acc);
    return acc;
}

/* A branch on the high half of a product of a secret by a public bound
 * (a multiply-and-shift draw): MemorySanitizer alone sees no secret in it
 * (its shadow of a product carries nothing upward), so the value is
 * marked with KPQC_CT_TAINT as the samplers mark theirs.  The bound is
 * read at run time: a constant multiplier would shift the shadow up. */
static volatile uint32_t public_bound = 201;
static __attribute__((noinline)) int leaky_product(const uint8_t *secret) {
    int acc = 0;
    const uint16_t w = (uint16_t)(secret[0] | secret[1] << 8);
    uint16_t hi = (uint16_t)((w * public_bound) >> 16);
    KPQC_CT_TAINT(&hi, sizeof hi, secret, 2);
    if (hi & 1) count(&acc);
    return acc;
}

/* A branch on whether a secret is non-zero (kpqc_ct_nonzero_mask32's
 * answer is the borrow of 0 - x, which MemorySanitizer does not carry up
 * by itself): must be reported however small the secret. */
static __attribute__((noinline)) int leaky_mask(const uint8_t *secret) {
    int acc = 0;
    if (kpqc_ct_nonzero_mask32(secret[0]) & 1u) count(&acc);
    return acc;
}

/* A branch on the top bit of a byte chosen by a secret condition
 * (kpqc_ct_cmov's mask, 0 - cond, is another borrow): must be reported. */
static __attribute__((noinline)) int leaky_cmov(const uint8_t *secret) {
    int acc = 0;
    uint8_t chosen = 0;
    static const uint8_t all_ones = 0xFF;
    kpqc_ct_cmov(&chosen, &all_ones, 1, secret[0] & 1);
    if (chosen & 0x80) count(&acc);
    return acc;
}

/* A value made public although the code says it must still be secret
 * (KPQC_CT_EXPECT_SECRET, as on a rejected signing attempt): must stop. */
static __attribute__((noinline)) int early_public(uint8_t *secret) {
    PUBLIC(secret, 2);
    KPQC_CT_EXPECT_SECRET(secret, 2, "the self-test's value");
    return secret[0];
}

/* One word of an array of 0/1 words made public (a challenge coefficient,
 * say): the any-byte statement still holds, the per-word one must stop. */
static __attribute__((noinline)) int early_public_word(void) {
    uint32_t words[4] = {0, 1, 1, 0};
    SECRET(words, sizeof words);
    PUBLIC(&words[2], sizeof words[2]);
    KPQC_CT_EXPECT_SECRET(words, sizeof words, "the self-test's words");
    KPQC_CT_EXPECT_SECRET_EACH_LOW(words, 4, sizeof words[0], "the self-test's words");
    return (int)words[2];
}

static int self_test(const char *which) {
    uint8_t table[256], secret[2] = {7, 9};
    for (int i = 0; i < 256; i++) table[i] = (uint8_t)(i * 37);
    SECRET(secret, sizeof secret);
    int r = 0;
    if (which == NULL || strcmp(which, "index") == 0) r += leaky_index(table, secret);
    if (which == NULL || strcmp(which, "branch") == 0) r += leaky_branch(secret);
    if (which == NULL || strcmp(which, "product") == 0) r += leaky_product(secret);
    if (which == NULL || strcmp(which, "mask") == 0) r += leaky_mask(secret);
    if (which == NULL || strcmp(which, "cmov") == 0) r += leaky_cmov(secret);
    if (which != NULL && strcmp(which, "public") == 0) r += early_public(secret);
    if (which != NULL && strcmp(which, "public_word") == 0) r += early_public_word();
    PUBLIC(&r, sizeof r);
    printf("self-test ran a deliberately leaky function unflagged (result %d)\n", r);
    return 0;
}

int main(int argc, char **argv) {
    if (argc >= 2 && strcmp(argv[1], "--self-test") == 0) return self_test(argc > 2 ? argv[2] : NULL);
    const char *want = getenv("KPQC_IMPL");
    if (want != NULL && *want != '\0' && strcmp(want, "auto") != 0 && strcmp(want, kpqc_impl_name()) != 0) {
        printf("path %s not available here (running %s): skipped\n", want, kpqc_impl_name());
        return 77;
    }
    printf("path: %s\n", kpqc_impl_name());
    uint8_t entropy[48] = {1, 2, 3};
    kpqc_nist_drbg d;
    kpqc_nist_drbg_init(&d, entropy, NULL);
    kpqc_rng rng = {secret_fill, &d};
    int failures = 0, checked = 0;

    for (size_t i = 0; i < kpqc_kem_count(); i++) {
        const kpqc_kem *k = kpqc_kem_at(i);
        if (!selected(argc, argv, k->name)) continue;
        uint8_t *pk = malloc(k->pk_len), *sk = malloc(k->sk_len), *ct = malloc(k->ct_len);
        uint8_t ss[32], ss2[32];
        int rc = kpqc_kem_keypair(k, pk, k->pk_len, sk, k->sk_len, &rng);
        PUBLIC(&rc, sizeof rc);
        PUBLIC(pk, k->pk_len);
        rc |= kpqc_kem_encaps(k, ct, k->ct_len, ss, 32, pk, k->pk_len, &rng);
        PUBLIC(&rc, sizeof rc);
        PUBLIC(ct, k->ct_len);
        SECRET(sk, k->sk_len);
        rc |= kpqc_kem_check_keypair(k, pk, k->pk_len, sk, k->sk_len);
        PUBLIC(&rc, sizeof rc);
        rc |= kpqc_kem_decaps(k, ss2, 32, ct, k->ct_len, sk, k->sk_len);
        /* Decapsulation of a forged ciphertext takes the rejection path. */
        ct[0] ^= 1;
        int rej = kpqc_kem_decaps(k, ss2, 32, ct, k->ct_len, sk, k->sk_len);
        PUBLIC(&rej, sizeof rej);
        if (rej != (k->rejection == KPQC_REJECT_EXPLICIT ? KPQC_ERR_DECAPS : KPQC_OK)) rc = -1;
        PUBLIC(&rc, sizeof rc);
        printf("%s: keypair/encaps/check/decaps %s\n", k->name, rc == KPQC_OK ? "ran" : "FAILED");
        failures += rc != KPQC_OK;
        checked++;
        free(pk), free(sk), free(ct);
    }
    for (size_t i = 0; i < kpqc_sig_count(); i++) {
        const kpqc_sig *s = kpqc_sig_at(i);
        if (!selected(argc, argv, s->name)) continue;
        uint8_t *pk = malloc(s->pk_len), *sk = malloc(s->sk_len), *sig = malloc(s->sig_len);
        uint8_t msg[32] = "constant-time check message";
        size_t sig_len = s->sig_len;
        int rc = kpqc_sig_keypair(s, pk, s->pk_len, sk, s->sk_len, &rng);
        PUBLIC(&rc, sizeof rc);
        PUBLIC(pk, s->pk_len);
        SECRET(sk, s->sk_len);
        rc |= kpqc_sig_check_keypair(s, pk, s->pk_len, sk, s->sk_len);
        PUBLIC(&rc, sizeof rc);
        rc |= kpqc_sig_sign(s, sig, &sig_len, msg, sizeof msg, NULL, 0, sk, s->sk_len, &rng);
        PUBLIC(&rc, sizeof rc);
        PUBLIC(&sig_len, sizeof sig_len);
        PUBLIC(sig, s->sig_len);
        if (rc == KPQC_OK)
            rc = kpqc_sig_verify(s, sig, sig_len, msg, sizeof msg, NULL, 0, pk, s->pk_len);
        printf("%s: keypair/check/sign %s\n", s->name, rc == KPQC_OK ? "ran" : "FAILED");
        failures += rc != KPQC_OK;
        checked++;
        free(pk), free(sk), free(sig);
    }
    printf("%d algorithm(s) run with secrets undefined; the checker reports any "
           "secret-dependent branch or index\n", checked);
    return failures != 0 || checked == 0;
}
