/*
 * Provider entry point: algorithm lists derived from the table, TLS-GROUP
 * and TLS-SIGALG capabilities, OID registration, identifier overrides from
 * openssl.cnf, error reasons, the self-test on load.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <openssl/conf.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/objects.h>
#include <openssl/params.h>
#include <openssl/provider.h>
#include <openssl/prov_ssl.h>

#include "kpqcprovider.h"


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

static const OSSL_ALGORITHM *query_operation(void *vctx, int operation_id, int *no_cache) {
    const kpqc_prov_ctx *provctx = vctx;
    *no_cache = 0;
    switch (operation_id) {
    case OSSL_OP_KEYMGMT: return provctx->keymgmt_algs;
    case OSSL_OP_KEM: return provctx->kem_algs;
    case OSSL_OP_SIGNATURE: return provctx->sig_algs;
    case OSSL_OP_ENCODER: return provctx->encoder_algs;
    case OSSL_OP_DECODER: return provctx->decoder_algs;
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
int kpqc_prov_tls_groups(const kpqc_prov_ctx *provctx, OSSL_CALLBACK *cb, void *arg) {
    for (size_t i = 0; i < provctx->table.len; i++) {
        const kpqc_prov_alg *k = &provctx->table.algs[i];
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
int kpqc_prov_tls_sigalgs(const kpqc_prov_ctx *provctx, OSSL_CALLBACK *cb, void *arg) {
    for (size_t i = 0; i < provctx->table.len; i++) {
        const kpqc_prov_alg *a = &provctx->table.algs[i];
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

/* Provider parameter: "available" when KpqC signatures are offered as TLS 1.3
 * signature algorithms, "unavailable" on cores older than 3.2. */
#define KPQC_PROV_PARAM_TLS_SIGALGS "kpqc-tls-sigalgs"

/*
 * TLS-SIGALG only where the core understands it: libssl learnt provider
 * signature algorithms in 3.2.  An older core is offered none (the query
 * succeeds with an empty list), so KpqC certificates still verify there but
 * no handshake can be signed with them; "kpqc-tls-sigalgs" says which.
 */
static int get_capabilities(void *vctx, const char *capability, OSSL_CALLBACK *cb, void *arg) {
    kpqc_prov_ctx *provctx = vctx;
    if (strcasecmp(capability, "TLS-GROUP") == 0) return kpqc_prov_tls_groups(provctx, cb, arg);
    if (strcasecmp(capability, "TLS-SIGALG") == 0)
        return provctx->tls_sigalgs ? kpqc_prov_tls_sigalgs(provctx, cb, arg) : 1;
    return 0;
}

/* The running core's version ("3.0.19", "4.0.3"), read once at load time. */
static int core_understands_tls_sigalgs(const kpqc_prov_ctx *c) {
    const char *version = NULL;
    unsigned major = 0, minor = 0;
    OSSL_PARAM params[] = {OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_CORE_VERSION, (char **)&version, 0), OSSL_PARAM_END};
    if (c->core.get_params == NULL || !c->core.get_params(c->handle, params) || version == NULL ||
        sscanf(version, "%u.%u", &major, &minor) != 2)
        return 0; /* unknown: offer nothing the core might misread */
    return major > 3 || (major == 3 && minor >= 2);
}

static const OSSL_PARAM *gettable_params(void *provctx) {
    static const OSSL_PARAM table[] = {
        OSSL_PARAM_DEFN(OSSL_PROV_PARAM_NAME, OSSL_PARAM_UTF8_PTR, NULL, 0),
        OSSL_PARAM_DEFN(OSSL_PROV_PARAM_VERSION, OSSL_PARAM_UTF8_PTR, NULL, 0),
        OSSL_PARAM_DEFN(OSSL_PROV_PARAM_BUILDINFO, OSSL_PARAM_UTF8_PTR, NULL, 0),
        OSSL_PARAM_DEFN(OSSL_PROV_PARAM_STATUS, OSSL_PARAM_INTEGER, NULL, 0),
        OSSL_PARAM_DEFN(KPQC_PROV_PARAM_TLS_SIGALGS, OSSL_PARAM_UTF8_PTR, NULL, 0),
        OSSL_PARAM_END};
    (void)provctx;
    return table;
}

static int get_params(void *vctx, OSSL_PARAM params[]) {
    const kpqc_prov_ctx *provctx = vctx;
    OSSL_PARAM *p;
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
    if ((p = OSSL_PARAM_locate(params, KPQC_PROV_PARAM_TLS_SIGALGS)) != NULL &&
        !OSSL_PARAM_set_utf8_ptr(p, provctx->tls_sigalgs ? "available" : "unavailable"))
        return 0;
    return 1;
}

static OSSL_ALGORITHM entry(const char *names, const kpqc_prov_alg *a, const char *properties,
                            const OSSL_DISPATCH *dispatch) {
    OSSL_ALGORITHM e = {names, properties, dispatch, a->display};
    return e;
}

/* The operation lists of an instance; each is terminated by a zeroed entry. */
static int build_algorithm_lists(kpqc_prov_ctx *c) {
    const kpqc_prov_table *t = &c->table;
    size_t n = t->len, nk = 0, nm = 0, ns = 0, ne = 0, nd = 0;
    c->keymgmt_algs = OPENSSL_zalloc((n + 1) * sizeof *c->keymgmt_algs);
    c->kem_algs = OPENSSL_zalloc((n + 1) * sizeof *c->kem_algs);
    c->sig_algs = OPENSSL_zalloc((n + 1) * sizeof *c->sig_algs);
    c->encoder_algs = OPENSSL_zalloc((n * kpqc_prov_encoder_count + 1) * sizeof *c->encoder_algs);
    c->decoder_algs = OPENSSL_zalloc((n * kpqc_prov_decoder_count + 1) * sizeof *c->decoder_algs);
    if (c->keymgmt_algs == NULL || c->kem_algs == NULL || c->sig_algs == NULL || c->encoder_algs == NULL ||
        c->decoder_algs == NULL)
        return 0;
    for (size_t i = 0; i < n; i++) {
        const kpqc_prov_alg *a = &t->algs[i];
        c->keymgmt_algs[nk++] = entry(a->names, a, "provider=kpqcprovider", kpqc_prov_keymgmt_dispatch(a->name));
        if (a->kind == KPQC_PROV_KEM) c->kem_algs[nm++] = entry(a->names, a, "provider=kpqcprovider", kpqc_prov_kem_functions);
        else c->sig_algs[ns++] = entry(a->names, a, "provider=kpqcprovider", kpqc_prov_sig_functions);
        if (a->oid == NULL) continue; /* hybrid groups are never encoded */
        for (size_t j = 0; j < kpqc_prov_encoder_count; j++)
            if (!kpqc_prov_encoders[j].private_only || kpqc_key_has_priv_encoding(a))
                c->encoder_algs[ne++] = entry(a->names, a, kpqc_prov_encoders[j].properties, kpqc_prov_encoders[j].dispatch);
        for (size_t j = 0; j < kpqc_prov_decoder_count; j++)
            if (!kpqc_prov_decoders[j].private_only || kpqc_key_has_priv_encoding(a))
                c->decoder_algs[nd++] = entry(a->decoder_names, a, kpqc_prov_decoders[j].properties, kpqc_prov_decoders[j].dispatch);
    }
    return 1;
}

/*
 * OIDs made known to libcrypto under the algorithms' names, so certificates
 * print them and X.509 verification finds the key type of a signature OID.
 */
/* The object table is the process's: an instance loading at the same time
 * in another thread may register an OID (or its signature mapping) between
 * the core's check and its creation, which then fails.  Registered as ours
 * either way is success, and the failed attempt's errors are dropped. */
static int registered(int done, int ours) {
    if (!done && ours) {
        ERR_pop_to_mark();
        return 1;
    }
    ERR_clear_last_mark();
    return done;
}

/*
 * The object table is the process's, so an algorithm's OID is too: once a
 * library context registered haetae2 under one OID, a context configured
 * with another cannot have it.  Such a context is refused, with an error
 * that names the algorithm and both OIDs (1), rather than by libcrypto's
 * "oid exists".
 */
static int oid_conflict(kpqc_prov_ctx *c, const kpqc_prov_alg *a) {
    int nid = OBJ_sn2nid(a->name);
    char known[128];
    if (nid == NID_undef || OBJ_obj2txt(known, sizeof known, OBJ_nid2obj(nid), 1) <= 0 || strcmp(known, a->oid) == 0)
        return 0;
    kpqc_prov_raise(c, KPQC_R_BAD_CONFIG,
                    "provider configuration: %s has OID %s in this process (registered by another library context), "
                    "not this context's %s: OIDs are per process, give %s the same OID in every context",
                    a->name, known, a->oid, a->name);
    return 1;
}

static int register_oids(kpqc_prov_ctx *c) {
    if (c->core.obj_create == NULL || c->core.obj_add_sigid == NULL) return 1; /* an older core: names only */
    for (size_t i = 0; i < c->table.len; i++) {
        const kpqc_prov_alg *a = &c->table.algs[i];
        if (a->oid == NULL) continue;
        if (oid_conflict(c, a)) return 0;
        ERR_set_mark();
        int done = c->core.obj_create(c->handle, a->oid, a->name, a->name);
        int nid = OBJ_txt2nid(a->oid);
        if (!registered(done, nid != NID_undef && strcmp(OBJ_nid2sn(nid), a->name) == 0)) {
            oid_conflict(c, a); /* another thread registered another OID meanwhile */
            return 0;
        }
        if (a->kind != KPQC_PROV_SIG) continue;
        ERR_set_mark();
        done = c->core.obj_add_sigid(c->handle, a->name, "", a->name);
        if (!registered(done, OBJ_find_sigid_algs(nid, NULL, NULL))) return 0;
    }
    return 1;
}

/* "name.oid" / "name.codepoint" lines of the provider's openssl.cnf section. */
static const char *config_value(void *vctx, const char *key) {
    const kpqc_prov_ctx *c = vctx;
    const char *value = NULL;
    OSSL_PARAM params[] = {OSSL_PARAM_utf8_ptr(key, (char **)&value, 0), OSSL_PARAM_END};
    if (c->core.get_params == NULL || !c->core.get_params(c->handle, params)) return NULL;
    return value;
}

/*
 * A key of this instance's section that the provider reads nothing under
 * (a misspelt attribute, a name no algorithm has) would leave the default
 * identifiers silently in place.  OpenSSL hands a provider the value of a
 * key it asks for, never the list of its section's keys, so the list is
 * read from the process's configuration file (OPENSSL_CONF, or OpenSSL's
 * default): a key there counts as this instance's only when the core gives
 * this instance the same value for it, so a library context configured from
 * another file is never refused for that file's keys.  1 (and `why`) when
 * such a key is found.
 */
static int stray_key(kpqc_prov_ctx *c, char *why, size_t why_size) {
    static const char *const read_by_openssl[] = {"module", "activate", "soft_load", "identity", "oid-profile"};
    const char *name = NULL;
    OSSL_PARAM params[] = {OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_CORE_PROV_NAME, (char **)&name, 0), OSSL_PARAM_END};
    if (c->core.get_params == NULL || !c->core.get_params(c->handle, params) || name == NULL) return 0;
    char *file = CONF_get1_default_config_file();
    CONF *conf = file != NULL ? NCONF_new_ex(NULL, NULL) : NULL;
    int found = 0;
    ERR_set_mark(); /* a missing file or section is no error of ours */
    if (conf != NULL && NCONF_load(conf, file, NULL) > 0) {
        const char *init = NCONF_get_string(conf, NULL, "openssl_conf");
        const char *providers = init != NULL ? NCONF_get_string(conf, init, "providers") : NULL;
        const char *section = providers != NULL ? NCONF_get_string(conf, providers, name) : NULL;
        STACK_OF(CONF_VALUE) *values = section != NULL ? NCONF_get_section(conf, section) : NULL;
        for (int i = 0; !found && i < sk_CONF_VALUE_num(values); i++) {
            const CONF_VALUE *v = sk_CONF_VALUE_value(values, i);
            int known = kpqc_prov_table_reads_key(v->name);
            for (size_t k = 0; !known && k < sizeof read_by_openssl / sizeof read_by_openssl[0]; k++)
                known = strcmp(v->name, read_by_openssl[k]) == 0;
            const char *mine = known ? NULL : config_value(c, v->name);
            if (mine != NULL && strcmp(mine, v->value) == 0) {
                snprintf(why, why_size,
                         "%s = %s names no setting: overrides are NAME.oid or NAME.codepoint, NAME a name or alias of an "
                         "algorithm as the table writes it, in lower or in upper case",
                         v->name, v->value);
                found = 1;
            }
        }
    }
    ERR_pop_to_mark();
    NCONF_free(conf);
    OPENSSL_free(file);
    return found;
}

/*
 * An identifier moved by the configuration must not take one that
 * libcrypto already knows (an OID of another object) or that the default
 * provider gives one of its TLS groups or signature schemes: a peer would
 * read our key share or signature as that algorithm's.
 */
typedef struct {
    const kpqc_prov_table *table;
    kpqc_prov_kind kind;
    char *why;
    size_t why_size;
} foreign_check;

static int check_foreign(const OSSL_PARAM params[], void *arg) {
    foreign_check *fc = arg;
    int group = fc->kind == KPQC_PROV_KEM;
    const OSSL_PARAM *id = OSSL_PARAM_locate_const(params, group ? OSSL_CAPABILITY_TLS_GROUP_ID
                                                                 : OSSL_CAPABILITY_TLS_SIGALG_CODE_POINT);
    const OSSL_PARAM *name = OSSL_PARAM_locate_const(params, group ? OSSL_CAPABILITY_TLS_GROUP_NAME
                                                                   : OSSL_CAPABILITY_TLS_SIGALG_NAME);
    const char *foreign = "?";
    unsigned cp = 0;
    if (id == NULL || !OSSL_PARAM_get_uint(id, &cp)) return 1;
    if (name != NULL) OSSL_PARAM_get_utf8_string_ptr(name, &foreign);
    for (size_t i = 0; i < fc->table->len; i++) {
        const kpqc_prov_alg *a = &fc->table->algs[i];
        if (a->overridden && a->kind == fc->kind && a->codepoint == cp) {
            snprintf(fc->why, fc->why_size, "%s.codepoint 0x%04X is the default provider's %s", a->name, cp,
                     foreign);
            return 0;
        }
    }
    return 1;
}

static int overrides_are_free(const kpqc_prov_table *t, char *why, size_t why_size) {
    int any = 0;
    for (size_t i = 0; i < t->len; i++) {
        const kpqc_prov_alg *a = &t->algs[i];
        if (!a->overridden) continue;
        any = 1;
        int nid = a->oid != NULL ? OBJ_txt2nid(a->oid) : NID_undef;
        if (nid != NID_undef && strcmp(OBJ_nid2sn(nid), a->name) != 0) {
            snprintf(why, why_size, "%s.oid %s is already %s", a->name, a->oid, OBJ_nid2sn(nid));
            return 0;
        }
    }
    if (!any) return 1;
    OSSL_LIB_CTX *scratch = OSSL_LIB_CTX_new();
    OSSL_PROVIDER *def = scratch != NULL ? OSSL_PROVIDER_load(scratch, "default") : NULL;
    foreign_check groups = {t, KPQC_PROV_KEM, why, why_size}, sigalgs = {t, KPQC_PROV_SIG, why, why_size};
    int ok = def != NULL;
    if (ok && !OSSL_PROVIDER_get_capabilities(def, "TLS-GROUP", check_foreign, &groups)) ok = 0;
    if (ok && !OSSL_PROVIDER_get_capabilities(def, "TLS-SIGALG", check_foreign, &sigalgs) && why[0] != '\0') ok = 0;
    if (def == NULL) snprintf(why, why_size, "cannot load the default provider to check the overrides");
    OSSL_PROVIDER_unload(def);
    OSSL_LIB_CTX_free(scratch);
    return ok;
}

static void provctx_free(kpqc_prov_ctx *c) {
    OPENSSL_free(c->keymgmt_algs);
    OPENSSL_free(c->kem_algs);
    OPENSSL_free(c->sig_algs);
    OPENSSL_free(c->encoder_algs);
    OPENSSL_free(c->decoder_algs);
    kpqc_prov_table_free(&c->table);
    OSSL_LIB_CTX_free(c->libctx);
    OPENSSL_free(c);
}

static void teardown(void *vctx) { provctx_free(vctx); }

static const OSSL_DISPATCH provider_functions[] = {
    {OSSL_FUNC_PROVIDER_TEARDOWN, (void (*)(void))teardown},
    {OSSL_FUNC_PROVIDER_GETTABLE_PARAMS, (void (*)(void))gettable_params},
    {OSSL_FUNC_PROVIDER_GET_PARAMS, (void (*)(void))get_params},
    {OSSL_FUNC_PROVIDER_QUERY_OPERATION, (void (*)(void))query_operation},
    {OSSL_FUNC_PROVIDER_GET_CAPABILITIES, (void (*)(void))get_capabilities},
    {OSSL_FUNC_PROVIDER_GET_REASON_STRINGS, (void (*)(void))get_reason_strings},
    OSSL_DISPATCH_END};

/* The known-answer self-test depends on nothing an instance configures: it
 * runs once per process, whichever thread loads the provider first. */
static CRYPTO_ONCE self_test_once = CRYPTO_ONCE_STATIC_INIT;
static int self_test_passed;
static void run_self_test(void) { self_test_passed = kpqc_prov_self_test(); }

static void read_core_functions(kpqc_prov_core *core, const OSSL_DISPATCH *in) {
    for (const OSSL_DISPATCH *f = in; f->function_id != 0; f++) {
        switch (f->function_id) {
        case OSSL_FUNC_CORE_NEW_ERROR: core->new_error = OSSL_FUNC_core_new_error(f); break;
        case OSSL_FUNC_CORE_SET_ERROR_DEBUG: core->set_error_debug = OSSL_FUNC_core_set_error_debug(f); break;
        case OSSL_FUNC_CORE_VSET_ERROR: core->vset_error = OSSL_FUNC_core_vset_error(f); break;
        case OSSL_FUNC_CORE_GET_PARAMS: core->get_params = OSSL_FUNC_core_get_params(f); break;
        case OSSL_FUNC_CORE_OBJ_CREATE: core->obj_create = OSSL_FUNC_core_obj_create(f); break;
        case OSSL_FUNC_CORE_OBJ_ADD_SIGID: core->obj_add_sigid = OSSL_FUNC_core_obj_add_sigid(f); break;
        default: break;
        }
    }
}

__attribute__((visibility("default"))) int OSSL_provider_init(const OSSL_CORE_HANDLE *handle, const OSSL_DISPATCH *in,
                                      const OSSL_DISPATCH **out, void **provctx);

int OSSL_provider_init(const OSSL_CORE_HANDLE *handle, const OSSL_DISPATCH *in,
                       const OSSL_DISPATCH **out, void **vprovctx) {
    char why[256];
    kpqc_prov_ctx *provctx = OPENSSL_zalloc(sizeof *provctx);
    if (provctx == NULL) return 0;
    provctx->handle = handle;
    read_core_functions(&provctx->core, in);
    provctx->tls_sigalgs = core_understands_tls_sigalgs(provctx);
    if (!CRYPTO_THREAD_run_once(&self_test_once, run_self_test) || !self_test_passed) {
        kpqc_prov_raise(provctx, KPQC_R_SELF_TEST_FAILED, "known-answer self-test failed");
        goto fail;
    }
    /* A child library context sees the same providers as the application's,
     * so hybrids' X25519/ECDH come from the default provider. */
    provctx->libctx = OSSL_LIB_CTX_new_child(handle, in);
    if (provctx->libctx == NULL) goto fail;
    kpqc_oid_profile profile;
    if (!kpqc_bc_parse_profile(config_value(provctx, "oid-profile"), &profile)) {
        kpqc_prov_raise(provctx, KPQC_R_BAD_CONFIG, "provider configuration: oid-profile must be kpqc or bouncycastle");
        goto fail;
    }
    provctx->oid_profile = profile;
    if (!kpqc_prov_table_init(&provctx->table, config_value, provctx, why, sizeof why)) {
        kpqc_prov_raise(provctx, KPQC_R_BAD_CONFIG, "provider configuration: %s",
                        why[0] != '\0' ? why : "out of memory");
        goto fail;
    }
    if (stray_key(provctx, why, sizeof why) || !overrides_are_free(&provctx->table, why, sizeof why)) {
        kpqc_prov_raise(provctx, KPQC_R_BAD_CONFIG, "provider configuration: %s", why);
        goto fail;
    }
    if (!build_algorithm_lists(provctx) || !register_oids(provctx)) goto fail;
    *out = provider_functions;
    *vprovctx = provctx;
    return 1;
fail:
    provctx_free(provctx);
    return 0;
}
