/*
 * What kpqcprovider offers libssl on the running OpenSSL: every KEM as a
 * TLS-GROUP everywhere, and every signature as a TLS-SIGALG only on cores
 * >= 3.2 (older libssl cannot use provider signature algorithms).  The
 * expectation comes from the libcrypto this test runs on, independently of
 * the provider's own detection; the "kpqc-tls-sigalgs" parameter must agree.
 *   test_provider_capabilities <provider-dir>
 */
#include <stdio.h>
#include <string.h>

#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/params.h>
#include <openssl/provider.h>

#include "check.h"

static int count_entry(const OSSL_PARAM params[], void *arg) {
    (void)params;
    ++*(size_t *)arg;
    return 1;
}

static size_t algorithms(OSSL_PROVIDER *prov, int operation) {
    int no_cache = 0;
    size_t n = 0;
    const OSSL_ALGORITHM *list = OSSL_PROVIDER_query_operation(prov, operation, &no_cache);
    for (const OSSL_ALGORITHM *a = list; a != NULL && a->algorithm_names != NULL; a++) n++;
    OSSL_PROVIDER_unquery_operation(prov, operation, list);
    return n;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s <provider-dir>\n", argv[0]);
        return 2;
    }
    OSSL_LIB_CTX *libctx = OSSL_LIB_CTX_new();
    CHECK(libctx != NULL && OSSL_PROVIDER_set_default_search_path(libctx, argv[1]));
    OSSL_PROVIDER *def = OSSL_PROVIDER_load(libctx, "default");
    OSSL_PROVIDER *prov = OSSL_PROVIDER_load(libctx, "kpqcprovider");
    CHECK(def != NULL && prov != NULL);
    if (prov == NULL) return 1;

    int sigalgs_expected = OPENSSL_version_major() > 3 || (OPENSSL_version_major() == 3 && OPENSSL_version_minor() >= 2);
    size_t kems = algorithms(prov, OSSL_OP_KEM), sigs = algorithms(prov, OSSL_OP_SIGNATURE);
    size_t groups = 0, sigalgs = 0;
    CHECK(kems > 0 && sigs > 0);
    CHECK(OSSL_PROVIDER_get_capabilities(prov, "TLS-GROUP", count_entry, &groups) == 1);
    CHECK(OSSL_PROVIDER_get_capabilities(prov, "TLS-SIGALG", count_entry, &sigalgs) == 1);
    CHECK(groups >= kems); /* each KEM under its name and its aliases */
    CHECK(sigalgs == (sigalgs_expected ? sigs : 0));

    const char *state = NULL;
    OSSL_PARAM params[] = {OSSL_PARAM_utf8_ptr("kpqc-tls-sigalgs", (char **)&state, 0), OSSL_PARAM_END};
    CHECK(OSSL_PROVIDER_get_params(prov, params) == 1 && state != NULL);
    if (state != NULL) CHECK(strcmp(state, sigalgs_expected ? "available" : "unavailable") == 0);

    printf("OpenSSL %s: %zu KEMs as %zu TLS groups, %zu signatures, %zu TLS signature algorithms (%s)\n",
           OpenSSL_version(OPENSSL_VERSION_STRING), kems, groups, sigs, sigalgs, state ? state : "?");
    OSSL_PROVIDER_unload(prov);
    OSSL_PROVIDER_unload(def);
    OSSL_LIB_CTX_free(libctx);
    return failures != 0;
}
