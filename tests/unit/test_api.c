/* The algorithm lists, name lookup, status strings, the KAT DRBG and the rng hook. */
#include <string.h>

#include "harness.h"

static int failing_fill(void *ctx, uint8_t *out, size_t len) {
    (void)ctx;
    memset(out, 0x5A, len); /* garbage a careless caller might pass on */
    return -1;
}

static void test_names(void) {
    for (size_t i = 0; i < kpqc_kem_count(); i++) {
        const kpqc_kem *k = kpqc_kem_at(i);
        CHECK(kpqc_kem_by_name(k->name) == k);
        char upper[64];
        size_t n = strlen(k->name);
        for (size_t j = 0; j <= n; j++) upper[j] = (char)(k->name[j] >= 'a' && k->name[j] <= 'z' ? k->name[j] - 32 : k->name[j]);
        CHECK(kpqc_kem_by_name(upper) == k);
        CHECK(kpqc_sig_by_name(k->name) == NULL);
        CHECK(k->nist_level == 1 || k->nist_level == 3 || k->nist_level == 5);
        CHECK(k->ss_len == 32);
    }
    for (size_t i = 0; i < kpqc_sig_count(); i++) {
        const kpqc_sig *s = kpqc_sig_at(i);
        CHECK(kpqc_sig_by_name(s->name) == s);
        CHECK(kpqc_kem_by_name(s->name) == NULL);
    }
    CHECK(kpqc_kem_at(kpqc_kem_count()) == NULL);
    CHECK(kpqc_sig_at(kpqc_sig_count()) == NULL);
    CHECK(kpqc_kem_by_name("no-such-kem") == NULL);
    CHECK(kpqc_kem_by_name("") == NULL);
    CHECK(kpqc_kem_by_name(NULL) == NULL);
    CHECK(kpqc_sig_by_name("smaug") == NULL);
    /* Aliases of the deployment notes, where the family is built in. */
    if (kpqc_kem_by_name("smaugt1") != NULL) {
        CHECK(kpqc_kem_by_name("smaug_t1") == kpqc_kem_by_name("smaugt1"));
        CHECK(kpqc_kem_by_name("SMAUG_T3") == kpqc_kem_by_name("smaugt3"));
        CHECK(kpqc_kem_by_name("smaug_t") == NULL); /* a prefix is not a name */
    }
    if (kpqc_kem_by_name("ntruplus768") != NULL)
        CHECK(kpqc_kem_by_name("ntru_plus_kem768") == kpqc_kem_by_name("ntruplus768"));
    if (kpqc_sig_by_name("haetae2") != NULL)
        CHECK(kpqc_sig_by_name("HAETAE_MODE2") == kpqc_sig_by_name("haetae2"));
    /* No name or alias is claimed twice across both lists. */
    for (size_t i = 0; i < kpqc_kem_count(); i++)
        for (size_t j = 0; j < kpqc_kem_count(); j++)
            if (i != j) CHECK(strcmp(kpqc_kem_at(i)->name, kpqc_kem_at(j)->name) != 0);
}

static void test_drbg(void) {
    /* The first record seed of every NIST PQC KAT file. */
    static const uint8_t first_seed[8] = {0x06, 0x15, 0x50, 0x23, 0x4D, 0x15, 0x8C, 0x5E};
    uint8_t entropy[48], out[48];
    for (unsigned i = 0; i < 48; i++) entropy[i] = (uint8_t)i;
    kpqc_nist_drbg d;
    kpqc_nist_drbg_init(&d, entropy, NULL);
    kpqc_rng rng = kpqc_nist_drbg_rng(&d);
    CHECK(kpqc_randombytes(&rng, out, 48) == KPQC_OK);
    CHECK(memcmp(out, first_seed, sizeof first_seed) == 0);
}

static void test_rng_failure(void) {
    kpqc_rng bad = {failing_fill, NULL};
    uint8_t buf[32];
    CHECK(kpqc_randombytes(&bad, buf, sizeof buf) == KPQC_ERR_RNG);
    for (size_t i = 0; i < sizeof buf; i++) CHECK(buf[i] == 0); /* wiped, not garbage */
    CHECK(kpqc_randombytes(NULL, buf, sizeof buf) == KPQC_OK);
    for (size_t i = 0; i < kpqc_kem_count(); i++) {
        const kpqc_kem *k = kpqc_kem_at(i);
        uint8_t *pk = test_alloc(k->pk_len), *sk = test_alloc(k->sk_len);
        uint8_t *ct = test_alloc(k->ct_len), ss[64];
        CHECK(kpqc_kem_keypair(k, pk, k->pk_len, sk, k->sk_len, &bad) == KPQC_ERR_RNG);
        CHECK(kpqc_kem_keypair(k, pk, k->pk_len, sk, k->sk_len, NULL) == KPQC_OK);
        CHECK(kpqc_kem_encaps(k, ct, k->ct_len, ss, k->ss_len, pk, k->pk_len, &bad) == KPQC_ERR_RNG);
        free(pk), free(sk), free(ct);
    }
    for (size_t i = 0; i < kpqc_sig_count(); i++) {
        const kpqc_sig *s = kpqc_sig_at(i);
        uint8_t *pk = test_alloc(s->pk_len), *sk = test_alloc(s->sk_len), *sig = test_alloc(s->sig_len);
        size_t sig_len = s->sig_len;
        CHECK(kpqc_sig_keypair(s, pk, s->pk_len, sk, s->sk_len, &bad) == KPQC_ERR_RNG);
        CHECK(kpqc_sig_keypair(s, pk, s->pk_len, sk, s->sk_len, NULL) == KPQC_OK);
        CHECK(kpqc_sig_sign(s, sig, &sig_len, (const uint8_t *)"m", 1, NULL, 0, sk, s->sk_len, &bad) == KPQC_ERR_RNG);
        free(pk), free(sk), free(sig);
    }
}

static void test_status_and_impl(void) {
    for (int s = 0; s >= -8; s--) CHECK(strcmp(kpqc_status_string(s), "unknown status") != 0);
    CHECK(strcmp(kpqc_status_string(-99), "unknown status") == 0);
    /* Each level the CPU has: every family runs kernels of that level or
     * of a lower one, never above it; at the portable level, portable. */
    static const kpqc_impl ladder[] = {KPQC_IMPL_PORTABLE, KPQC_IMPL_AVX2, KPQC_IMPL_AVX512};
    const char *below[sizeof ladder / sizeof ladder[0]];
    size_t nbelow = 0;
    for (size_t l = 0; l < sizeof ladder / sizeof ladder[0]; l++) {
        const char *before = kpqc_impl_name();
        if (kpqc_set_impl(ladder[l]) != KPQC_OK) { /* refused, never replaced */
            CHECK(strcmp(kpqc_impl_name(), before) == 0);
            printf("level %d not available here\n", (int)ladder[l]);
            continue;
        }
        const char *level = kpqc_impl_name();
        below[nbelow++] = level;
        for (size_t i = 0; i < kpqc_kem_count() + kpqc_sig_count(); i++) {
            const char *fam = i < kpqc_kem_count() ? kpqc_kem_impl_name(kpqc_kem_at(i))
                                                   : kpqc_sig_impl_name(kpqc_sig_at(i - kpqc_kem_count()));
            int ok = 0;
            for (size_t j = 0; j < nbelow; j++) ok |= fam != NULL && strcmp(fam, below[j]) == 0;
            CHECK_MSG(ok, "at level %s algorithm %zu runs %s", level, i, fam ? fam : "(null)");
        }
    }
    CHECK(nbelow >= 1 && strcmp(below[0], "portable") == 0);
    /* an unknown level is refused and changes nothing */
    CHECK(kpqc_set_impl(KPQC_IMPL_PORTABLE) == KPQC_OK);
    CHECK(kpqc_set_impl((kpqc_impl)99) == KPQC_ERR_UNSUPPORTED);
    CHECK(strcmp(kpqc_impl_name(), "portable") == 0);
    CHECK(kpqc_kem_impl_name(NULL) == NULL && kpqc_sig_impl_name(NULL) == NULL);
    CHECK(kpqc_set_impl(KPQC_IMPL_AUTO) == KPQC_OK);
    CHECK(strcmp(kpqc_impl_name(), below[nbelow - 1]) == 0); /* the best level */
}

int main(void) {
    test_names();
    test_drbg();
    test_rng_failure();
    test_status_and_impl();
    return test_result("test_api");
}
