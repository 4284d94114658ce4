/*
 * Key management for every algorithm (KEMs, hybrid groups, signatures,
 * composites): generation, the encoded public key TLS puts in a key share,
 * raw import/export through OSSL_PARAM, and loading keys the decoders made.
 * One dispatch table per algorithm (only `new` and `gen_init` need to know
 * which one); everything else works on the key object.
 */
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/params.h>
#include <openssl/rand.h>

#include "kpqcprovider.h"

/* ------------------------------------------------------------ keys */

static int key_has(const void *keydata, int selection) {
    const kpqc_key *key = keydata;
    int ok = key != NULL;
    int hybrid = ok && key->alg->classical != KPQC_CLASSICAL_NONE;
    if (ok && (selection & OSSL_KEYMGMT_SELECT_PUBLIC_KEY))
        ok = key->pk != NULL && (!hybrid || key->classical != NULL);
    if (ok && (selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY))
        ok = key->sk != NULL && (!hybrid || key->classical != NULL);
    return ok;
}

static int key_match(const void *a, const void *b, int selection) {
    const kpqc_key *x = a, *y = b;
    if (x->alg != y->alg) return 0;
    if (selection & OSSL_KEYMGMT_SELECT_KEYPAIR) {
        if (x->pk == NULL || y->pk == NULL || memcmp(x->pk, y->pk, x->alg->pq_pk_len) != 0) return 0;
        if (x->classical != NULL && (y->classical == NULL || EVP_PKEY_eq(x->classical, y->classical) != 1))
            return 0;
    }
    return 1;
}

static int key_get_params(void *keydata, OSSL_PARAM params[]) {
    kpqc_key *key = keydata;
    OSSL_PARAM *p;
    if ((p = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_BITS)) != NULL &&
        !OSSL_PARAM_set_int(p, (int)(8 * kpqc_key_pub_len(key->alg))))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_SECURITY_BITS)) != NULL &&
        !OSSL_PARAM_set_int(p, (int)key->alg->secbits))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_MAX_SIZE)) != NULL &&
        !OSSL_PARAM_set_int(p, (int)kpqc_key_max_output(key->alg)))
        return 0;
    /* Signatures hash inside the scheme: no digest to choose. */
    if ((p = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_MANDATORY_DIGEST)) != NULL &&
        key->alg->kind == KPQC_PROV_SIG && !OSSL_PARAM_set_utf8_string(p, ""))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY)) != NULL) {
        size_t len = kpqc_key_pub_len(key->alg);
        if (p->data == NULL) {
            p->return_size = len;
        } else {
            unsigned char *buf = OPENSSL_malloc(len);
            int ok = buf != NULL && kpqc_key_encode_pub(key, buf) && OSSL_PARAM_set_octet_string(p, buf, len);
            OPENSSL_free(buf);
            if (!ok) return 0;
        }
    }
    return 1;
}

static const OSSL_PARAM *key_gettable_params(void *provctx) {
    static const OSSL_PARAM table[] = {
        OSSL_PARAM_int(OSSL_PKEY_PARAM_BITS, NULL),
        OSSL_PARAM_int(OSSL_PKEY_PARAM_SECURITY_BITS, NULL),
        OSSL_PARAM_int(OSSL_PKEY_PARAM_MAX_SIZE, NULL),
        OSSL_PARAM_octet_string(OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, NULL, 0),
        OSSL_PARAM_utf8_string(OSSL_PKEY_PARAM_MANDATORY_DIGEST, NULL, 0),
        OSSL_PARAM_END};
    (void)provctx;
    return table;
}

static int key_set_params(void *keydata, const OSSL_PARAM params[]) {
    const OSSL_PARAM *p = OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY);
    if (p == NULL) return 1;
    if (p->data_type != OSSL_PARAM_OCTET_STRING) return 0;
    return kpqc_key_decode_pub(keydata, p->data, p->data_size);
}

static const OSSL_PARAM *key_settable_params(void *provctx) {
    static const OSSL_PARAM table[] = {
        OSSL_PARAM_octet_string(OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, NULL, 0), OSSL_PARAM_END};
    (void)provctx;
    return table;
}

/* Raw import/export: PUB_KEY and PRIV_KEY carry the encodings of
 * kpqc_key_encode_pub/kpqc_key_encode_priv (hybrid groups: public only). */
static int key_import(void *keydata, int selection, const OSSL_PARAM params[]) {
    kpqc_key *key = keydata;
    const OSSL_PARAM *pub = OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_PUB_KEY);
    const OSSL_PARAM *priv = OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_PRIV_KEY);
    if ((selection & OSSL_KEYMGMT_SELECT_KEYPAIR) == 0) return 1;
    if ((selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) && priv != NULL) {
        if (priv->data_type != OSSL_PARAM_OCTET_STRING || !kpqc_key_decode_priv(key, priv->data, priv->data_size))
            return 0;
        if (pub == NULL) return 1;
        /* A public key given beside must be the private key's. */
        size_t len = kpqc_key_pub_len(key->alg);
        unsigned char *mine = OPENSSL_malloc(len);
        int same = mine != NULL && kpqc_key_encode_pub(key, mine) && pub->data_size == len &&
                   CRYPTO_memcmp(mine, pub->data, len) == 0;
        OPENSSL_free(mine);
        if (!same) kpqc_prov_raise(key->provctx, KPQC_R_BAD_ENCODING, "%s public key does not match private key",
                                   key->alg->name);
        return same;
    }
    if (pub == NULL || pub->data_type != OSSL_PARAM_OCTET_STRING) {
        kpqc_prov_raise(key->provctx, KPQC_R_MISSING_KEY, "%s: no key to import", key->alg->name);
        return 0;
    }
    return kpqc_key_decode_pub(key, pub->data, pub->data_size);
}

int kpqc_key_export(void *keydata, int selection, OSSL_CALLBACK *cb, void *cbarg) {
    kpqc_key *key = keydata;
    size_t len = kpqc_key_pub_len(key->alg), priv_len = 0;
    unsigned char *pub = OPENSSL_malloc(len), *priv = NULL;
    OSSL_PARAM params[3];
    size_t n = 0;
    int ok = 0;
    if (pub == NULL || !kpqc_key_encode_pub(key, pub)) goto done;
    if (selection & OSSL_KEYMGMT_SELECT_PUBLIC_KEY)
        params[n++] = OSSL_PARAM_construct_octet_string(OSSL_PKEY_PARAM_PUB_KEY, pub, len);
    if ((selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) && key->sk != NULL &&
        kpqc_key_has_priv_encoding(key->alg)) {
        if (!kpqc_key_encode_priv(key, &priv, &priv_len)) goto done;
        params[n++] = OSSL_PARAM_construct_octet_string(OSSL_PKEY_PARAM_PRIV_KEY, priv, priv_len);
    }
    params[n] = OSSL_PARAM_construct_end();
    ok = cb(params, cbarg);
done:
    OPENSSL_free(pub);
    OPENSSL_secure_clear_free(priv, priv_len);
    return ok;
}

static const OSSL_PARAM *key_io_types(int selection) {
    static const OSSL_PARAM table[] = {
        OSSL_PARAM_octet_string(OSSL_PKEY_PARAM_PUB_KEY, NULL, 0),
        OSSL_PARAM_octet_string(OSSL_PKEY_PARAM_PRIV_KEY, NULL, 0), OSSL_PARAM_END};
    return (selection & OSSL_KEYMGMT_SELECT_KEYPAIR) ? table : NULL;
}

static void *key_dup(const void *keydata, int selection) {
    const kpqc_key *src = keydata;
    kpqc_key *key = kpqc_key_new(src->provctx, src->alg);
    if (key == NULL || !kpqc_key_set_propq(key, src->propq)) goto fail;
    if ((selection & OSSL_KEYMGMT_SELECT_PUBLIC_KEY) && src->pk != NULL &&
        (key->pk = OPENSSL_memdup(src->pk, src->alg->pq_pk_len)) == NULL)
        goto fail;
    if ((selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) && src->sk != NULL) {
        if ((key->sk = OPENSSL_secure_malloc(src->alg->pq_sk_len)) == NULL) goto fail;
        memcpy(key->sk, src->sk, src->alg->pq_sk_len);
    }
    if (src->classical != NULL && (selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY)) {
        if (!EVP_PKEY_up_ref(src->classical)) goto fail;
        key->classical = src->classical; /* immutable once made */
    } else if (src->classical != NULL && (selection & OSSL_KEYMGMT_SELECT_PUBLIC_KEY)) {
        /* A public copy must not share the object that holds the scalar. */
        unsigned char point[KPQC_CLASSICAL_MAX_PUB];
        kpqc_classical c = src->alg->classical;
        if (!kpqc_classical_get_pub(src->classical, c, point) ||
            (key->classical = kpqc_classical_from_pub(src->provctx->libctx, src->propq, c, point,
                                                      kpqc_classical_pub_len(c))) == NULL)
            goto fail;
    }
    return key;
fail:
    kpqc_key_free(key);
    return NULL;
}

/* ------------------------------------------------------ generation */

typedef struct {
    kpqc_prov_ctx *provctx;
    const kpqc_prov_alg *alg;
    int selection;
    char *propq; /* "properties": the application's query for the classical half */
} gen_ctx;

static int gen_set_params(void *genctx, const OSSL_PARAM params[]) {
    gen_ctx *g = genctx;
    const OSSL_PARAM *p = OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_PROPERTIES);
    const char *propq = NULL;
    /* The group name is implied by the algorithm. */
    if (p == NULL) return 1;
    if (!OSSL_PARAM_get_utf8_string_ptr(p, &propq)) return 0;
    OPENSSL_free(g->propq);
    return propq == NULL || (g->propq = OPENSSL_strdup(propq)) != NULL;
}

static const OSSL_PARAM *gen_settable_params(void *genctx, void *provctx) {
    static const OSSL_PARAM table[] = {
        OSSL_PARAM_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, NULL, 0),
        OSSL_PARAM_utf8_string(OSSL_PKEY_PARAM_PROPERTIES, NULL, 0), OSSL_PARAM_END};
    (void)genctx, (void)provctx;
    return table;
}

static void *gen(void *genctx, OSSL_CALLBACK *cb, void *cbarg) {
    gen_ctx *g = genctx;
    (void)cb, (void)cbarg;
    kpqc_key *key = kpqc_key_new(g->provctx, g->alg);
    if (key == NULL || !kpqc_key_set_propq(key, g->propq)) goto fail;
    if ((g->selection & OSSL_KEYMGMT_SELECT_KEYPAIR) == 0)
        return key; /* a parameters-only key: TLS fills in the peer's share */
    if (!kpqc_key_generate(key)) goto fail;
    return key;
fail:
    kpqc_key_free(key);
    return NULL;
}

static void gen_cleanup(void *genctx) {
    gen_ctx *g = genctx;
    if (g == NULL) return;
    OPENSSL_free(g->propq);
    OPENSSL_free(g);
}

static void *gen_init_for(kpqc_prov_ctx *provctx, const char *name, int selection, const OSSL_PARAM params[]) {
    gen_ctx *g = OPENSSL_zalloc(sizeof *g);
    if (g == NULL) return NULL;
    g->provctx = provctx;
    g->selection = selection;
    g->alg = kpqc_prov_table_find(&provctx->table, name);
    if (g->alg == NULL || !gen_set_params(g, params)) {
        gen_cleanup(g);
        return NULL;
    }
    return g;
}

static void *new_for(kpqc_prov_ctx *provctx, const char *name) {
    const kpqc_prov_alg *alg = kpqc_prov_table_find(&provctx->table, name);
    return alg != NULL ? kpqc_key_new(provctx, alg) : NULL;
}

static void key_free(void *keydata) { kpqc_key_free(keydata); }

/* A decoder hands over the key it made by reference (prov_codec.c). */
static void *key_load(const void *reference, size_t reference_sz) {
    kpqc_key *key = NULL;
    if (reference == NULL || reference_sz != sizeof key) return NULL;
    key = *(kpqc_key *const *)reference;
    *(kpqc_key **)reference = NULL; /* ownership moves to the caller */
    return key;
}

/* ------------------------------------------------ dispatch tables */

#define COMMON_KEYMGMT_FUNCTIONS                                                          \
    {OSSL_FUNC_KEYMGMT_FREE, (void (*)(void))key_free},                                   \
    {OSSL_FUNC_KEYMGMT_LOAD, (void (*)(void))key_load},                                   \
    {OSSL_FUNC_KEYMGMT_HAS, (void (*)(void))key_has},                                     \
    {OSSL_FUNC_KEYMGMT_MATCH, (void (*)(void))key_match},                                 \
    {OSSL_FUNC_KEYMGMT_VALIDATE, (void (*)(void))kpqc_key_validate},                      \
    {OSSL_FUNC_KEYMGMT_GET_PARAMS, (void (*)(void))key_get_params},                       \
    {OSSL_FUNC_KEYMGMT_GETTABLE_PARAMS, (void (*)(void))key_gettable_params},             \
    {OSSL_FUNC_KEYMGMT_SET_PARAMS, (void (*)(void))key_set_params},                       \
    {OSSL_FUNC_KEYMGMT_SETTABLE_PARAMS, (void (*)(void))key_settable_params},             \
    {OSSL_FUNC_KEYMGMT_IMPORT, (void (*)(void))key_import},                               \
    {OSSL_FUNC_KEYMGMT_IMPORT_TYPES, (void (*)(void))key_io_types},                       \
    {OSSL_FUNC_KEYMGMT_EXPORT, (void (*)(void))kpqc_key_export},                               \
    {OSSL_FUNC_KEYMGMT_EXPORT_TYPES, (void (*)(void))key_io_types},                       \
    {OSSL_FUNC_KEYMGMT_DUP, (void (*)(void))key_dup},                                     \
    {OSSL_FUNC_KEYMGMT_GEN_SET_PARAMS, (void (*)(void))gen_set_params},                   \
    {OSSL_FUNC_KEYMGMT_GEN_SETTABLE_PARAMS, (void (*)(void))gen_settable_params},         \
    {OSSL_FUNC_KEYMGMT_GEN, (void (*)(void))gen},                                         \
    {OSSL_FUNC_KEYMGMT_GEN_CLEANUP, (void (*)(void))gen_cleanup},                         \
    OSSL_DISPATCH_END

#define KEYMGMT_FOR(n)                                                                        \
    static void *new_##n(void *provctx) { return new_for(provctx, #n); }                      \
    static void *gen_init_##n(void *provctx, int selection, const OSSL_PARAM params[]) {      \
        return gen_init_for(provctx, #n, selection, params);                                  \
    }                                                                                         \
    static const OSSL_DISPATCH keymgmt_##n[] = {                                              \
        {OSSL_FUNC_KEYMGMT_NEW, (void (*)(void))new_##n},                                     \
        {OSSL_FUNC_KEYMGMT_GEN_INIT, (void (*)(void))gen_init_##n}, COMMON_KEYMGMT_FUNCTIONS};
#define KPQC_KEM(fam, id, ...) KPQC_SELECTED(id, KEYMGMT_FOR(id))
#define KPQC_HYBRID(name, ...) KPQC_SELECTED(name, KEYMGMT_FOR(name))
#define KPQC_SIG(fam, id, ...) KPQC_SELECTED(id, KEYMGMT_FOR(id))
#define KPQC_COMPOSITE(name, ...) KPQC_SELECTED(name, KEYMGMT_FOR(name))
#include "algorithms.def"

static const struct {
    const char *name;
    const OSSL_DISPATCH *dispatch;
} keymgmt_tables[] = {
#define KPQC_KEM(fam, id, ...) KPQC_SELECTED(id, {#id, keymgmt_##id},)
#define KPQC_HYBRID(name, ...) KPQC_SELECTED(name, {#name, keymgmt_##name},)
#define KPQC_SIG(fam, id, ...) KPQC_SELECTED(id, {#id, keymgmt_##id},)
#define KPQC_COMPOSITE(name, ...) KPQC_SELECTED(name, {#name, keymgmt_##name},)
#include "algorithms.def"
};

const OSSL_DISPATCH *kpqc_prov_keymgmt_dispatch(const char *name) {
    for (size_t i = 0; i < sizeof keymgmt_tables / sizeof keymgmt_tables[0]; i++)
        if (strcmp(keymgmt_tables[i].name, name) == 0) return keymgmt_tables[i].dispatch;
    return NULL;
}
