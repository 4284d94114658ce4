/*
 * Library contexts of one process that configure the provider's OIDs
 * differently.  OIDs live in libcrypto's object table, which is the
 * process's: the first context to load the provider fixes an algorithm's
 * OID, a context that asks for another is refused with an error that names
 * the algorithm and both OIDs, and a context that asks for the same one
 * works beside the first.  Code points are per context.
 *
 *   1. two threads load contexts at once, configured with two OIDs for
 *      ALG: exactly one loads, the other is refused, naming both (rounds:
 *      the winner's OID keeps winning);
 *   2. then, one after another: a context with the winner's OID and another
 *      code point for GROUP loads and signs; contexts with the other OID or
 *      the table's own are refused; one whose configuration activates the
 *      provider with the other OID is left without it (OpenSSL drops the
 *      errors of a failed activation), and loading it by name says why.
 *
 *   test_provider_contexts PROVIDER_DIR
 */
#define _POSIX_C_SOURCE 200809L /* pthread barriers */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

#include "check.h"
#include "provider_conf.h"

#define ALG "haetae2"
#define TABLE_OID "1.3.9999.410.2.1"
static const char *const oids[2] = {"1.3.9999.410.77.1", "1.3.9999.410.77.2"};

static const char *provider_dir;

static int conf_with_oid(char *path, size_t size, const char *tag, int activate, const char *oid) {
    char line[128] = "";
    if (oid != NULL) snprintf(line, sizeof line, ALG ".oid = %s\nx25519_smaugt1.codepoint = 0x2F%02X", oid,
                              (unsigned)(strlen(tag) & 0xFF));
    return write_provider_conf(path, size, provider_dir, tag, activate, line);
}

/* Every error on this thread's queue, one string. */
static void take_errors(char *out, size_t size) {
    unsigned long e;
    const char *data;
    int flags;
    size_t used = 0;
    out[0] = '\0';
    while ((e = ERR_get_error_all(NULL, NULL, NULL, &data, &flags)) != 0 && used + 1 < size) {
        char one[256];
        ERR_error_string_n(e, one, sizeof one);
        used += (size_t)snprintf(out + used, size - used, "%s %s; ", one, (flags & ERR_TXT_STRING) ? data : "");
        if (used >= size) used = size - 1;
    }
}

/* The refusal names the algorithm and both OIDs. */
static int names_both(const char *errors, const char *registered, const char *wanted) {
    return strstr(errors, ALG) != NULL && strstr(errors, registered) != NULL && strstr(errors, wanted) != NULL &&
           strstr(errors, "OIDs are per process") != NULL;
}

/* A context whose configuration has the provider's section (not activated);
 * the provider then loaded by name.  NULL (errors in `errors`) when refused. */
static OSSL_LIB_CTX *load(const char *conf, char *errors, size_t size) {
    OSSL_LIB_CTX *ctx = OSSL_LIB_CTX_new();
    if (ctx == NULL || !OSSL_LIB_CTX_load_config(ctx, conf) || OSSL_PROVIDER_load(ctx, "kpqcprovider") == NULL) {
        take_errors(errors, size);
        OSSL_LIB_CTX_free(ctx);
        return NULL;
    }
    errors[0] = '\0';
    return ctx;
}

/* A signature made and verified in ctx. */
static int signs(OSSL_LIB_CTX *ctx) {
    static const unsigned char msg[] = "two contexts";
    unsigned char sig[4096];
    size_t sig_len = sizeof sig;
    EVP_PKEY *key = EVP_PKEY_Q_keygen(ctx, NULL, ALG);
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    int ok = key != NULL && md != NULL && EVP_DigestSignInit_ex(md, NULL, NULL, ctx, NULL, key, NULL) == 1 &&
             EVP_DigestSign(md, sig, &sig_len, msg, sizeof msg) == 1;
    EVP_MD_CTX_free(md);
    md = EVP_MD_CTX_new();
    ok = ok && md != NULL && EVP_DigestVerifyInit_ex(md, NULL, NULL, ctx, NULL, key, NULL) == 1 &&
         EVP_DigestVerify(md, sig, sig_len, msg, sizeof msg) == 1;
    EVP_MD_CTX_free(md);
    EVP_PKEY_free(key);
    return ok;
}

/* ------------------------------------------------ 1. two threads at once */

typedef struct {
    const char *conf;
    pthread_barrier_t *start;
    OSSL_LIB_CTX *ctx;
    char errors[2048];
} loader;

static void *load_at_once(void *arg) {
    loader *l = arg;
    pthread_barrier_wait(l->start);
    l->ctx = load(l->conf, l->errors, sizeof l->errors);
    return NULL;
}

static int two_threads(char confs[2][512], int rounds) {
    int winner = -1;
    for (int r = 0; r < rounds; r++) {
        pthread_barrier_t start;
        pthread_t tid[2];
        loader l[2] = {{confs[0], &start, NULL, ""}, {confs[1], &start, NULL, ""}};
        pthread_barrier_init(&start, NULL, 2);
        for (int t = 0; t < 2; t++) CHECK(pthread_create(&tid[t], NULL, load_at_once, &l[t]) == 0);
        for (int t = 0; t < 2; t++) pthread_join(tid[t], NULL);
        pthread_barrier_destroy(&start);
        int loaded = (l[0].ctx != NULL) + (l[1].ctx != NULL);
        CHECK(loaded == 1);
        if (loaded == 1) {
            int w = l[0].ctx != NULL ? 0 : 1;
            CHECK(winner < 0 || w == winner); /* the first winner's OID is the process's */
            winner = w;
            CHECK(signs(l[w].ctx));
            if (!names_both(l[1 - w].errors, oids[w], oids[1 - w]))
                fprintf(stderr, "round %d: refusal without the algorithm and both OIDs: %s\n", r, l[1 - w].errors);
            CHECK(names_both(l[1 - w].errors, oids[w], oids[1 - w]));
        }
        OSSL_LIB_CTX_free(l[0].ctx);
        OSSL_LIB_CTX_free(l[1].ctx);
    }
    return winner;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s PROVIDER_DIR\n", argv[0]);
        return 2;
    }
    provider_dir = argv[1];
    char confs[2][512], same[512], table[512], activated[512], errors[2048];
    CHECK(conf_with_oid(confs[0], sizeof confs[0], "a", 0, oids[0]));
    CHECK(conf_with_oid(confs[1], sizeof confs[1], "bb", 0, oids[1]));
    int winner = two_threads(confs, 10);
    if (winner < 0) return 1;
    const char *mine = oids[winner], *other = oids[1 - winner];

    /* 2. one after another */
    CHECK(conf_with_oid(same, sizeof same, "ccc", 0, mine)); /* the same OID, another code point */
    OSSL_LIB_CTX *first = load(confs[winner], errors, sizeof errors), *second = load(same, errors, sizeof errors);
    CHECK(first != NULL && second != NULL);
    CHECK(first != NULL && signs(first));
    CHECK(second != NULL && signs(second));
    OSSL_LIB_CTX *refused = load(confs[1 - winner], errors, sizeof errors);
    CHECK(refused == NULL && names_both(errors, mine, other));
    CHECK(conf_with_oid(table, sizeof table, "dddd", 0, NULL));
    refused = load(table, errors, sizeof errors);
    CHECK(refused == NULL && names_both(errors, mine, TABLE_OID));

    /* Activated by the configuration: OpenSSL counts a provider that fails
     * to activate as a non-fatal error and drops its errors, so the
     * context loads without it; loading it by name then says why. */
    CHECK(conf_with_oid(activated, sizeof activated, "eeeee", 1, other));
    OSSL_LIB_CTX *ctx = OSSL_LIB_CTX_new();
    CHECK(ctx != NULL && OSSL_LIB_CTX_load_config(ctx, activated));
    CHECK(!OSSL_PROVIDER_available(ctx, "kpqcprovider"));
    ERR_clear_error();
    OSSL_PROVIDER_set_default_search_path(ctx, provider_dir);
    CHECK(OSSL_PROVIDER_load(ctx, "kpqcprovider") == NULL);
    take_errors(errors, sizeof errors);
    if (!names_both(errors, mine, TABLE_OID)) fprintf(stderr, "loaded by name: %s\n", errors);
    CHECK(names_both(errors, mine, TABLE_OID));
    OSSL_LIB_CTX_free(ctx);

    OSSL_LIB_CTX_free(first);
    OSSL_LIB_CTX_free(second);
    for (int i = 0; i < 2; i++) remove(confs[i]);
    remove(same);
    remove(table);
    remove(activated);
    printf("test_provider_contexts: %s\n", failures ? "FAILED" : "all checks passed");
    return failures != 0;
}
