/*
 * kpqcprovider when memory runs out: with OpenSSL's allocator failing after
 * n allocations, for n = 0, 1, 2, ... (sparser as n grows) until the whole
 * sequence succeeds (load the providers into a fresh library context, then
 * per algorithm keygen, PKCS#8 encode and decode, sign and verify or
 * encapsulate and decapsulate), every call must fail cleanly or succeed:
 * no crash, no use of a failed allocation.  (RNG failures are covered at
 * the library level by test_api: every randomised call returns
 * KPQC_ERR_RNG and wipes what it drew; the provider turns that status into
 * its "random number generator failed" error.)
 *   argv: provider directory, then algorithm names to exercise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/decoder.h>
#include <openssl/encoder.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

#include "check.h"

/* ------------------------------------------------ failing allocator */
static long allocations_left = -1; /* -1: never fail */
static long allocations_made;

static int allocation_allowed(void) {
    allocations_made++;
    if (allocations_left < 0) return 1;
    if (allocations_left == 0) return 0;
    allocations_left--;
    return 1;
}
static void *test_malloc(size_t n, const char *f, int l) {
    (void)f, (void)l;
    return allocation_allowed() ? malloc(n) : NULL;
}
static void *test_realloc(void *p, size_t n, const char *f, int l) {
    (void)f, (void)l;
    return allocation_allowed() ? realloc(p, n) : NULL;
}
static void test_free(void *p, const char *f, int l) {
    (void)f, (void)l;
    free(p);
}

/* -------------------------------------------------------- operations */

static int is_signature(OSSL_LIB_CTX *libctx, const char *alg) {
    EVP_SIGNATURE *s = EVP_SIGNATURE_fetch(libctx, alg, NULL);
    EVP_SIGNATURE_free(s);
    ERR_clear_error();
    return s != NULL;
}

/* The whole life of one key; 1 when every step succeeded. */
static int exercise(OSSL_LIB_CTX *libctx, const char *alg) {
    static const unsigned char msg[] = "failure injection";
    EVP_PKEY *key = EVP_PKEY_Q_keygen(libctx, NULL, alg), *copy = NULL;
    EVP_PKEY_CTX *ctx = NULL;
    EVP_MD_CTX *md = NULL;
    OSSL_ENCODER_CTX *ectx = NULL;
    OSSL_DECODER_CTX *dctx = NULL;
    unsigned char *der = NULL, *out = NULL, *secret = NULL, *secret2 = NULL;
    size_t der_len = 0, out_len = 0, secret_len = 0, secret2_len = 0;
    int ok = 0;
    if (key == NULL) goto done;
    ectx = OSSL_ENCODER_CTX_new_for_pkey(key, EVP_PKEY_KEYPAIR, "DER", "PrivateKeyInfo", NULL);
    if (ectx == NULL || OSSL_ENCODER_to_data(ectx, &der, &der_len) != 1) goto done;
    dctx = OSSL_DECODER_CTX_new_for_pkey(&copy, "DER", "PrivateKeyInfo", alg, EVP_PKEY_KEYPAIR, libctx, NULL);
    const unsigned char *p = der;
    size_t left = der_len;
    if (dctx == NULL || OSSL_DECODER_from_data(dctx, &p, &left) != 1 || copy == NULL) goto done;
    if (is_signature(libctx, alg)) {
        if ((md = EVP_MD_CTX_new()) == NULL ||
            EVP_DigestSignInit_ex(md, NULL, NULL, libctx, NULL, copy, NULL) != 1 ||
            EVP_DigestSign(md, NULL, &out_len, msg, sizeof msg) != 1 || (out = OPENSSL_malloc(out_len)) == NULL ||
            EVP_DigestSign(md, out, &out_len, msg, sizeof msg) != 1)
            goto done;
        EVP_MD_CTX_free(md);
        if ((md = EVP_MD_CTX_new()) == NULL ||
            EVP_DigestVerifyInit_ex(md, NULL, NULL, libctx, NULL, key, NULL) != 1 ||
            EVP_DigestVerify(md, out, out_len, msg, sizeof msg) != 1)
            goto done;
    } else {
        if ((ctx = EVP_PKEY_CTX_new_from_pkey(libctx, key, NULL)) == NULL || EVP_PKEY_encapsulate_init(ctx, NULL) != 1 ||
            EVP_PKEY_encapsulate(ctx, NULL, &out_len, NULL, &secret_len) != 1 ||
            (out = OPENSSL_malloc(out_len)) == NULL || (secret = OPENSSL_malloc(secret_len)) == NULL ||
            EVP_PKEY_encapsulate(ctx, out, &out_len, secret, &secret_len) != 1)
            goto done;
        EVP_PKEY_CTX_free(ctx);
        secret2_len = secret_len;
        if ((ctx = EVP_PKEY_CTX_new_from_pkey(libctx, copy, NULL)) == NULL ||
            EVP_PKEY_decapsulate_init(ctx, NULL) != 1 || (secret2 = OPENSSL_malloc(secret2_len)) == NULL ||
            EVP_PKEY_decapsulate(ctx, secret2, &secret2_len, out, out_len) != 1 ||
            memcmp(secret, secret2, secret_len) != 0)
            goto done;
    }
    ok = 1;
done:
    EVP_PKEY_free(key);
    EVP_PKEY_free(copy);
    EVP_PKEY_CTX_free(ctx);
    EVP_MD_CTX_free(md);
    OSSL_ENCODER_CTX_free(ectx);
    OSSL_DECODER_CTX_free(dctx);
    OPENSSL_free(der);
    OPENSSL_free(out);
    OPENSSL_clear_free(secret, secret_len);
    OPENSSL_clear_free(secret2, secret2_len);
    return ok;
}

static OSSL_LIB_CTX *new_libctx(const char *dir) {
    OSSL_LIB_CTX *libctx = OSSL_LIB_CTX_new();
    if (libctx == NULL) return NULL;
    OSSL_PROVIDER_set_default_search_path(libctx, dir);
    if (OSSL_PROVIDER_load(libctx, "default") == NULL || OSSL_PROVIDER_load(libctx, "kpqcprovider") == NULL) {
        OSSL_LIB_CTX_free(libctx);
        return NULL;
    }
    return libctx;
}

/* One full sequence; 1 when every step succeeded. */
static int sequence(const char *dir, const char **algs, int nalgs) {
    OSSL_LIB_CTX *libctx = new_libctx(dir);
    int all = libctx != NULL;
    for (int i = 0; all && i < nalgs; i++) all = exercise(libctx, algs[i]);
    OSSL_LIB_CTX_free(libctx);
    ERR_clear_error();
    return all;
}

static void allocation_failures(const char *dir, const char **algs, int nalgs) {
    /* A first run without failures sets up libcrypto's global state (whose
     * own initialisation does not survive a failed allocation) and counts
     * the allocations of one sequence. */
    allocations_made = 0;
    CHECK(sequence(dir, algs, nalgs));
    long total = allocations_made, runs = 0, n;
    for (n = 0; n < total; n += 1 + n / 32) { /* every count at first, then sparser */
        allocations_left = n;
        int ok = sequence(dir, algs, nalgs);
        allocations_left = -1;
        CHECK(!ok || n >= total / 2); /* cannot succeed with far too little memory */
        runs++;
    }
    CHECK(sequence(dir, algs, nalgs)); /* and nothing is left broken */
    printf("allocation failure injected at %ld points of a %ld-allocation sequence\n", runs, total);
}

int main(int argc, char **argv) {
    if (!CRYPTO_set_mem_functions(test_malloc, test_realloc, test_free)) {
        fprintf(stderr, "cannot install the allocator\n");
        return 1;
    }
    if (argc < 3) {
        fprintf(stderr, "usage: test_provider_failures PROVIDER_DIR ALG...\n");
        return 1;
    }
    allocation_failures(argv[1], (const char **)argv + 2, argc - 2);
    printf("test_provider_failures: %s\n", failures ? "FAILED" : "all checks passed");
    return failures != 0;
}
