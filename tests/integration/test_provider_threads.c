/*
 * Loading the provider from several threads at once.  Each thread, again
 * and again, makes its own library context, loads the default provider and
 * kpqcprovider into it through a configuration file, uses a hybrid group
 * (key generation, encapsulation, decapsulation) and frees the context.
 * Every other thread's configuration moves the group to another code point:
 * each context must see exactly its own configuration's code point.
 *
 *   test_provider_threads PROVIDER_DIR [THREADS ITERATIONS RUNS]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

#include "provider_conf.h"

#define GROUP "x25519_smaugt1"
#define TABLE_CODEPOINT 0xFE8Eu
#define OVERRIDE_CODEPOINT 0x2F01u

static char plain_conf[4096], override_conf[4096];

typedef struct {
    unsigned want;
    unsigned *seen;
} group_query;

static int find_group(const OSSL_PARAM params[], void *arg) {
    group_query *q = arg;
    const OSSL_PARAM *name = OSSL_PARAM_locate_const(params, OSSL_CAPABILITY_TLS_GROUP_NAME);
    const OSSL_PARAM *id = OSSL_PARAM_locate_const(params, OSSL_CAPABILITY_TLS_GROUP_ID);
    const char *s = NULL;
    if (name != NULL && OSSL_PARAM_get_utf8_string_ptr(name, &s) && strcmp(s, GROUP) == 0 && id != NULL)
        OSSL_PARAM_get_uint(id, q->seen);
    return 1;
}

/* One round in a fresh library context; 1 when everything held. */
static int one_round(int overridden) {
    OSSL_LIB_CTX *libctx = OSSL_LIB_CTX_new();
    EVP_PKEY_CTX *gen = NULL, *enc = NULL, *dec = NULL;
    EVP_PKEY *key = NULL;
    unsigned char ct[2048], ss[128], ss2[128];
    size_t ct_len = sizeof ct, ss_len = sizeof ss, ss2_len = sizeof ss2;
    unsigned seen = 0;
    group_query q = {overridden ? OVERRIDE_CODEPOINT : TABLE_CODEPOINT, &seen};
    int ok = 0;
    if (libctx == NULL || !OSSL_LIB_CTX_load_config(libctx, overridden ? override_conf : plain_conf)) goto done;
    EVP_KEM *kem = EVP_KEM_fetch(libctx, GROUP, NULL);
    if (kem == NULL) goto done;
    int caps = OSSL_PROVIDER_get_capabilities(EVP_KEM_get0_provider(kem), "TLS-GROUP", find_group, &q);
    EVP_KEM_free(kem);
    if (!caps || seen != q.want) {
        fprintf(stderr, "%s has code point 0x%04X in a context configured for 0x%04X\n", GROUP, seen, q.want);
        goto done;
    }
    if ((gen = EVP_PKEY_CTX_new_from_name(libctx, GROUP, NULL)) == NULL || EVP_PKEY_keygen_init(gen) <= 0 ||
        EVP_PKEY_generate(gen, &key) <= 0)
        goto done;
    if ((enc = EVP_PKEY_CTX_new_from_pkey(libctx, key, NULL)) == NULL || EVP_PKEY_encapsulate_init(enc, NULL) <= 0 ||
        EVP_PKEY_encapsulate(enc, ct, &ct_len, ss, &ss_len) <= 0)
        goto done;
    if ((dec = EVP_PKEY_CTX_new_from_pkey(libctx, key, NULL)) == NULL || EVP_PKEY_decapsulate_init(dec, NULL) <= 0 ||
        EVP_PKEY_decapsulate(dec, ss2, &ss2_len, ct, ct_len) <= 0)
        goto done;
    ok = ss_len == ss2_len && memcmp(ss, ss2, ss_len) == 0;
done:
    EVP_PKEY_CTX_free(gen);
    EVP_PKEY_CTX_free(enc);
    EVP_PKEY_CTX_free(dec);
    EVP_PKEY_free(key);
    OSSL_LIB_CTX_free(libctx);
    if (!ok) ERR_print_errors_fp(stderr);
    return ok;
}

typedef struct {
    int index, iterations, failures;
} worker;

static void *work(void *arg) {
    worker *w = arg;
    for (int i = 0; i < w->iterations; i++)
        if (!one_round((w->index + i) % 2)) w->failures++;
    OPENSSL_thread_stop();
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 2 && argc != 5) {
        fprintf(stderr, "usage: %s PROVIDER_DIR [THREADS ITERATIONS RUNS]\n", argv[0]);
        return 2;
    }
    int threads = argc == 5 ? atoi(argv[2]) : 4, iterations = argc == 5 ? atoi(argv[3]) : 300;
    int runs = argc == 5 ? atoi(argv[4]) : 3, failures = 0;
    if (threads < 1 || threads > 64 || iterations < 1 || runs < 1) return 2;
    char override_line[64];
    snprintf(override_line, sizeof override_line, "%s.codepoint = 0x%04X\n", GROUP, OVERRIDE_CODEPOINT);
    if (!write_provider_conf(plain_conf, sizeof plain_conf, argv[1], "threads-plain", 1, "") ||
        !write_provider_conf(override_conf, sizeof override_conf, argv[1], "threads-override", 1, override_line)) {
        perror("configuration file");
        return 1;
    }
    for (int r = 0; r < runs; r++) {
        pthread_t tid[64];
        worker w[64];
        for (int t = 0; t < threads; t++) {
            w[t] = (worker){t, iterations, 0};
            if (pthread_create(&tid[t], NULL, work, &w[t]) != 0) return 1;
        }
        for (int t = 0; t < threads; t++) {
            pthread_join(tid[t], NULL);
            failures += w[t].failures;
        }
        printf("run %d: %d threads x %d rounds, %d failed so far\n", r + 1, threads, iterations, failures);
    }
    remove(plain_conf);
    remove(override_conf);
    return failures == 0 ? 0 : 1;
}
