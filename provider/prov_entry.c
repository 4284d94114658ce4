/*
 * Provider entry point: algorithm lists derived from the table, TLS-GROUP
 * and TLS-SIGALG capabilities, OID registration, identifier overrides from
 * openssl.cnf, error reasons, the self-test on load.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <openssl/core_names.h>
#include <openssl/params.h>
#include <openssl/prov_ssl.h>
#include <openssl/rand.h>

#include "kpqcprovider.h"

static OSSL_FUNC_core_new_error_fn *core_new_error;
static OSSL_FUNC_core_set_error_debug_fn *core_set_error_debug;
static OSSL_FUNC_core_vset_error_fn *core_vset_error;
static OSSL_FUNC_core_get_params_fn *core_get_params;
static OSSL_FUNC_core_obj_create_fn *core_obj_create;
static OSSL_FUNC_core_obj_add_sigid_fn *core_obj_add_sigid;

static OSSL_ALGORITHM *keymgmt_algs, *kem_algs, *sig_algs, *encoder_algs, *decoder_algs;
static int loaded; /* the lists are shared by every instance */

void kpqc_prov_raise(kpqc_prov_ctx *provctx, int reason, const char *fmt, ...) {
    va_list ap;
    if (core_new_error == NULL || provctx == NULL) return;
    core_new_error(provctx->handle);
    core_set_error_debug(provctx->handle, NULL, 0, "kpqcprovider");
    va_start(ap, fmt);
    core_vset_error(provctx->handle, (uint32_t)reason, fmt, ap);
    va_end(ap);
}

static int rng_fill(void *ctx, uint8_t *out, size_t len) {
    kpqc_prov_ctx *provctx = ctx;
    return RAND_bytes_ex(provctx->libctx, out, len, 0) == 1 ? 0 : -1;
}

kpqc_rng kpqc_prov_rng(kpqc_prov_ctx *provctx) {
    kpqc_rng rng = {rng_fill, provctx};
    return rng;
}

static const OSSL_ITEM reason_strings[] = {
    {KPQC_R_WRONG_LENGTH, "wrong length"},
    {KPQC_R_MISSING_KEY, "missing key"},
    {KPQC_R_OPERATION_FAILED, "operation failed"},
    {KPQC_R_DECAPSULATION_FAILED, "decapsulation failed"},
    {KPQC_R_RNG_FAILED, "random number generator failed"},
    {KPQC_R_SELF_TEST_FAILED, "self-test failed"},
    {KPQC_R_BAD_ENCODING, "bad encoding"},
    {KPQC_R_CONTEXT_TOO_LONG, "context string too long"},
    {KPQC_R_BAD_CONFIG, "bad configuration"},
    {0, NULL}};

static const OSSL_ITEM *get_reason_strings(void *provctx) {
    (void)provctx;
    return reason_strings;
}

static const OSSL_ALGORITHM *query_operation(void *provctx, int operation_id, int *no_cache) {
    (void)provctx;
    *no_cache = 0;
    switch (operation_id) {
    case OSSL_OP_KEYMGMT: return keymgmt_algs;
    case OSSL_OP_KEM: return kem_algs;
    case OSSL_OP_SIGNATURE: return sig_algs;
    case OSSL_OP_ENCODER: return encoder_algs;
    case OSSL_OP_DECODER: return decoder_algs;
    default: return NULL;
    }
}

static int group_capability(const kpqc_prov_alg *k, const char *name, OSSL_CALLBACK *cb, void *arg) {
    unsigned id = k->codepoint, secbits = k->secbits, is_kem = 1;
    int min_tls = TLS1_3_VERSION, max_tls = 0, min_dtls = -1, max_dtls = -1;
    OSSL_PARAM params[] = {
        OSSL_PARAM_utf8_string(OSSL_CAPABILITY_TLS_GROUP_NAME, (char *)name, 0),
        OSSL_PARAM_utf8_string(OSSL_CAPABILITY_TLS_GROUP_NAME_INTERNAL, (char *)k->name, 0),
        OSSL_PARAM_utf8_string(OSSL_CAPABILITY_TLS_GROUP_ALG, (char *)k->name, 0),
        OSSL_PARAM_uint(OSSL_CAPABILITY_TLS_GROUP_ID, &id),
        OSSL_PARAM_uint(OSSL_CAPABILITY_TLS_GROUP_SECURITY_BITS, &secbits),
        OSSL_PARAM_int(OSSL_CAPABILITY_TLS_GROUP_MIN_TLS, &min_tls),
        OSSL_PARAM_int(OSSL_CAPABILITY_TLS_GROUP_MAX_TLS, &max_tls),
        OSSL_PARAM_int(OSSL_CAPABILITY_TLS_GROUP_MIN_DTLS, &min_dtls),
        OSSL_PARAM_int(OSSL_CAPABILITY_TLS_GROUP_MAX_DTLS, &max_dtls),
        OSSL_PARAM_uint(OSSL_CAPABILITY_TLS_GROUP_IS_KEM, &is_kem),
        OSSL_PARAM_END};
    return cb(params, arg);
}

/* Every group under its primary name and under each alias of the table. */
int kpqc_prov_tls_groups(OSSL_CALLBACK *cb, void *arg) {
    for (size_t i = 0; i < kpqc_prov_alg_count(); i++) {
        const kpqc_prov_alg *k = kpqc_prov_alg_at(i);
        if (k->kind != KPQC_PROV_KEM) continue;
        if (!group_capability(k, k->name, cb, arg)) return 0;
        char alias[64];
        for (const char *p = k->aliases; *p != '\0';) {
            size_t n = strcspn(p, ",");
            if (n > 0 && n < sizeof alias) {
                memcpy(alias, p, n);
                alias[n] = '\0';
                if (!group_capability(k, alias, cb, arg)) return 0;
            }
            p += n + (p[n] == ',');
        }
    }
    return 1;
}

/* Every signature (pure and composite) as a TLS 1.3 SignatureScheme. */
int kpqc_prov_tls_sigalgs(OSSL_CALLBACK *cb, void *arg) {
    for (size_t i = 0; i < kpqc_prov_alg_count(); i++) {
        const kpqc_prov_alg *a = kpqc_prov_alg_at(i);
        if (a->kind != KPQC_PROV_SIG) continue;
        unsigned code_point = a->codepoint, secbits = a->secbits;
        int min_tls = TLS1_3_VERSION, max_tls = 0, min_dtls = -1, max_dtls = -1;
        OSSL_PARAM params[] = {
            OSSL_PARAM_utf8_string(OSSL_CAPABILITY_TLS_SIGALG_IANA_NAME, (char *)a->name, 0),
            OSSL_PARAM_utf8_string(OSSL_CAPABILITY_TLS_SIGALG_NAME, (char *)a->name, 0),
            OSSL_PARAM_utf8_string(OSSL_CAPABILITY_TLS_SIGALG_OID, a->oid, 0),
            OSSL_PARAM_uint(OSSL_CAPABILITY_TLS_SIGALG_CODE_POINT, &code_point),
            OSSL_PARAM_uint(OSSL_CAPABILITY_TLS_SIGALG_SECURITY_BITS, &secbits),
            OSSL_PARAM_int(OSSL_CAPABILITY_TLS_SIGALG_MIN_TLS, &min_tls),
            OSSL_PARAM_int(OSSL_CAPABILITY_TLS_SIGALG_MAX_TLS, &max_tls),
            OSSL_PARAM_int(OSSL_CAPABILITY_TLS_SIGALG_MIN_DTLS, &min_dtls),
            OSSL_PARAM_int(OSSL_CAPABILITY_TLS_SIGALG_MAX_DTLS, &max_dtls),
            OSSL_PARAM_END};
        if (!cb(params, arg)) return 0;
    }
    return 1;
}

static int get_capabilities(void *provctx, const char *capability, OSSL_CALLBACK *cb, void *arg) {
    (void)provctx;
    if (strcasecmp(capability, "TLS-GROUP") == 0) return kpqc_prov_tls_groups(cb, arg);
    if (strcasecmp(capability, "TLS-SIGALG") == 0) return kpqc_prov_tls_sigalgs(cb, arg);
    return 0;
}

static const OSSL_PARAM *gettable_params(void *provctx) {
    static const OSSL_PARAM table[] = {
        OSSL_PARAM_DEFN(OSSL_PROV_PARAM_NAME, OSSL_PARAM_UTF8_PTR, NULL, 0),
        OSSL_PARAM_DEFN(OSSL_PROV_PARAM_VERSION, OSSL_PARAM_UTF8_PTR, NULL, 0),
        OSSL_PARAM_DEFN(OSSL_PROV_PARAM_BUILDINFO, OSSL_PARAM_UTF8_PTR, NULL, 0),
        OSSL_PARAM_DEFN(OSSL_PROV_PARAM_STATUS, OSSL_PARAM_INTEGER, NULL, 0),
        OSSL_PARAM_END};
    (void)provctx;
    return table;
}

static int get_params(void *provctx, OSSL_PARAM params[]) {
    OSSL_PARAM *p;
    (void)provctx;
    if ((p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_NAME)) != NULL &&
        !OSSL_PARAM_set_utf8_ptr(p, "kpqcprovider: Korean post-quantum cryptography (libkpqc)"))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_VERSION)) != NULL &&
        !OSSL_PARAM_set_utf8_ptr(p, KPQC_VERSION_STRING))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_BUILDINFO)) != NULL &&
        !OSSL_PARAM_set_utf8_ptr(p, "libkpqc " KPQC_VERSION_STRING))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_STATUS)) != NULL && !OSSL_PARAM_set_int(p, 1))
        return 0;
    return 1;
}

static OSSL_ALGORITHM entry(const kpqc_prov_alg *a, const char *properties, const OSSL_DISPATCH *dispatch) {
    OSSL_ALGORITHM e = {a->names, properties, dispatch, a->display};
    return e;
}

/* The operation lists; each is terminated by a zeroed entry. */
static int build_algorithm_lists(void) {
    size_t n = kpqc_prov_alg_count(), nk = 0, nm = 0, ns = 0, ne = 0, nd = 0;
    keymgmt_algs = OPENSSL_zalloc((n + 1) * sizeof *keymgmt_algs);
    kem_algs = OPENSSL_zalloc((n + 1) * sizeof *kem_algs);
    sig_algs = OPENSSL_zalloc((n + 1) * sizeof *sig_algs);
    encoder_algs = OPENSSL_zalloc((n * kpqc_prov_encoder_count + 1) * sizeof *encoder_algs);
    decoder_algs = OPENSSL_zalloc((n * kpqc_prov_decoder_count + 1) * sizeof *decoder_algs);
    if (keymgmt_algs == NULL || kem_algs == NULL || sig_algs == NULL || encoder_algs == NULL || decoder_algs == NULL)
        return 0;
    for (size_t i = 0; i < n; i++) {
        const kpqc_prov_alg *a = kpqc_prov_alg_at(i);
        keymgmt_algs[nk++] = entry(a, "provider=kpqcprovider", kpqc_prov_keymgmt_dispatch(a->name));
        if (a->kind == KPQC_PROV_KEM) kem_algs[nm++] = entry(a, "provider=kpqcprovider", kpqc_prov_kem_functions);
        else sig_algs[ns++] = entry(a, "provider=kpqcprovider", kpqc_prov_sig_functions);
        if (a->oid == NULL) continue; /* hybrid groups are never encoded */
        for (size_t j = 0; j < kpqc_prov_encoder_count; j++)
            if (!kpqc_prov_encoders[j].private_only || kpqc_key_has_priv_encoding(a))
                encoder_algs[ne++] = entry(a, kpqc_prov_encoders[j].properties, kpqc_prov_encoders[j].dispatch);
        for (size_t j = 0; j < kpqc_prov_decoder_count; j++)
            if (!kpqc_prov_decoders[j].private_only || kpqc_key_has_priv_encoding(a))
                decoder_algs[nd++] = entry(a, kpqc_prov_decoders[j].properties, kpqc_prov_decoders[j].dispatch);
    }
    return 1;
}

static void free_algorithm_lists(void) {
    OPENSSL_free(keymgmt_algs);
    OPENSSL_free(kem_algs);
    OPENSSL_free(sig_algs);
    OPENSSL_free(encoder_algs);
    OPENSSL_free(decoder_algs);
    keymgmt_algs = kem_algs = sig_algs = encoder_algs = decoder_algs = NULL;
}

/*
 * OIDs made known to libcrypto under the algorithms' names, so certificates
 * print them and X.509 verification finds the key type of a signature OID.
 */
static int register_oids(const OSSL_CORE_HANDLE *handle) {
    if (core_obj_create == NULL || core_obj_add_sigid == NULL) return 1; /* an older core: names only */
    for (size_t i = 0; i < kpqc_prov_alg_count(); i++) {
        const kpqc_prov_alg *a = kpqc_prov_alg_at(i);
        if (a->oid == NULL) continue;
        if (!core_obj_create(handle, a->oid, a->name, a->name)) return 0;
        if (a->kind == KPQC_PROV_SIG && !core_obj_add_sigid(handle, a->name, "", a->name)) return 0;
    }
    return 1;
}

/* "name.oid" / "name.codepoint" lines of the provider's openssl.cnf section. */
static const char *config_value(void *handle, const char *key) {
    const char *value = NULL;
    OSSL_PARAM params[] = {OSSL_PARAM_utf8_ptr(key, (char **)&value, 0), OSSL_PARAM_END};
    if (core_get_params == NULL || !core_get_params(handle, params)) return NULL;
    return value;
}

static void teardown(void *vctx) {
    kpqc_prov_ctx *provctx = vctx;
    OSSL_LIB_CTX_free(provctx->libctx);
    OPENSSL_free(provctx);
    if (--loaded == 0) {
        free_algorithm_lists();
        kpqc_prov_algorithms_free();
    }
}

static const OSSL_DISPATCH provider_functions[] = {
    {OSSL_FUNC_PROVIDER_TEARDOWN, (void (*)(void))teardown},
    {OSSL_FUNC_PROVIDER_GETTABLE_PARAMS, (void (*)(void))gettable_params},
    {OSSL_FUNC_PROVIDER_GET_PARAMS, (void (*)(void))get_params},
    {OSSL_FUNC_PROVIDER_QUERY_OPERATION, (void (*)(void))query_operation},
    {OSSL_FUNC_PROVIDER_GET_CAPABILITIES, (void (*)(void))get_capabilities},
    {OSSL_FUNC_PROVIDER_GET_REASON_STRINGS, (void (*)(void))get_reason_strings},
    OSSL_DISPATCH_END};

__attribute__((visibility("default"))) int OSSL_provider_init(const OSSL_CORE_HANDLE *handle, const OSSL_DISPATCH *in,
                                      const OSSL_DISPATCH **out, void **provctx);

int OSSL_provider_init(const OSSL_CORE_HANDLE *handle, const OSSL_DISPATCH *in,
                       const OSSL_DISPATCH **out, void **vprovctx) {
    for (const OSSL_DISPATCH *f = in; f->function_id != 0; f++) {
        switch (f->function_id) {
        case OSSL_FUNC_CORE_NEW_ERROR: core_new_error = OSSL_FUNC_core_new_error(f); break;
        case OSSL_FUNC_CORE_SET_ERROR_DEBUG: core_set_error_debug = OSSL_FUNC_core_set_error_debug(f); break;
        case OSSL_FUNC_CORE_VSET_ERROR: core_vset_error = OSSL_FUNC_core_vset_error(f); break;
        case OSSL_FUNC_CORE_GET_PARAMS: core_get_params = OSSL_FUNC_core_get_params(f); break;
        case OSSL_FUNC_CORE_OBJ_CREATE: core_obj_create = OSSL_FUNC_core_obj_create(f); break;
        case OSSL_FUNC_CORE_OBJ_ADD_SIGID: core_obj_add_sigid = OSSL_FUNC_core_obj_add_sigid(f); break;
        default: break;
        }
    }
    kpqc_prov_ctx *provctx = OPENSSL_zalloc(sizeof *provctx);
    if (provctx == NULL) return 0;
    provctx->handle = handle;
    /* A child library context sees the same providers as the application's,
     * so hybrids' X25519/ECDH come from the default provider. */
    provctx->libctx = OSSL_LIB_CTX_new_child(handle, in);
    if (provctx->libctx == NULL) goto fail;
    if (loaded == 0) {
        if (!kpqc_prov_algorithms_init(config_value, (void *)handle)) {
            kpqc_prov_raise(provctx, KPQC_R_BAD_CONFIG, "invalid OID or code point in the provider's configuration");
            goto fail_lists;
        }
        if (!build_algorithm_lists() || !register_oids(handle)) goto fail_lists;
        if (!kpqc_prov_self_test()) {
            kpqc_prov_raise(provctx, KPQC_R_SELF_TEST_FAILED, "known-answer self-test failed");
            goto fail_lists;
        }
    }
    loaded++;
    *out = provider_functions;
    *vprovctx = provctx;
    return 1;
fail_lists:
    free_algorithm_lists();
    kpqc_prov_algorithms_free();
fail:
    OSSL_LIB_CTX_free(provctx->libctx);
    OPENSSL_free(provctx);
    return 0;
}
