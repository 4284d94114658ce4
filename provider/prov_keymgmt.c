/*
 * Key management for every KEM and hybrid group: generation, the encoded
 * public key TLS puts in a key share, raw import/export through OSSL_PARAM.
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
        if (x->pk == NULL || y->pk == NULL || memcmp(x->pk, y->pk, x->alg->kem->pk_len) != 0) return 0;
        if (x->classical != NULL && (y->classical == NULL || EVP_PKEY_eq(x->classical, y->classical) != 1))
            return 0;
    }
    return 1;
}

/* classical public value || KpqC public key */
static int encode_pub(const kpqc_key *key, unsigned char *out) {
    size_t c = kpqc_classical_pub_len(key->alg->classical);
    if (key->pk == NULL) return 0;
    if (c != 0 && (key->classical == NULL || !kpqc_classical_get_pub(key->classical, key->alg->classical, out)))
        return 0;
    memcpy(out + c, key->pk, key->alg->kem->pk_len);
    return 1;
}

static int decode_pub(kpqc_key *key, const unsigned char *in, size_t len) {
    size_t c = kpqc_classical_pub_len(key->alg->classical);
    if (len != kpqc_key_pub_len(key->alg)) {
        kpqc_prov_raise(key->provctx, KPQC_R_WRONG_LENGTH, "%s public key must be %zu bytes, got %zu",
                        key->alg->name, kpqc_key_pub_len(key->alg), len);
        return 0;
    }
    EVP_PKEY *classical = NULL;
    if (c != 0 && (classical = kpqc_classical_from_pub(key->provctx->libctx, key->alg->classical, in, c)) == NULL) {
        kpqc_prov_raise(key->provctx, KPQC_R_OPERATION_FAILED, "invalid classical share in %s public key",
                        key->alg->name);
        return 0;
    }
    unsigned char *pk = OPENSSL_memdup(in + c, key->alg->kem->pk_len);
    if (pk == NULL) {
        EVP_PKEY_free(classical);
        return 0;
    }
    OPENSSL_free(key->pk);
    OPENSSL_clear_free(key->sk, key->alg->kem->sk_len);
    EVP_PKEY_free(key->classical);
    key->pk = pk;
    key->sk = NULL;
    key->classical = classical;
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
        !OSSL_PARAM_set_int(p, (int)kpqc_key_ct_len(key->alg)))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY)) != NULL) {
        size_t len = kpqc_key_pub_len(key->alg);
        if (p->data == NULL) {
            p->return_size = len;
        } else {
            unsigned char *buf = OPENSSL_malloc(len);
            int ok = buf != NULL && encode_pub(key, buf) && OSSL_PARAM_set_octet_string(p, buf, len);
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
        OSSL_PARAM_END};
    (void)provctx;
    return table;
}

static int key_set_params(void *keydata, const OSSL_PARAM params[]) {
    const OSSL_PARAM *p = OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY);
    if (p == NULL) return 1;
    if (p->data_type != OSSL_PARAM_OCTET_STRING) return 0;
    return decode_pub(keydata, p->data, p->data_size);
}

static const OSSL_PARAM *key_settable_params(void *provctx) {
    static const OSSL_PARAM table[] = {
        OSSL_PARAM_octet_string(OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, NULL, 0), OSSL_PARAM_END};
    (void)provctx;
    return table;
}

/* Raw import/export: PUB_KEY is the encoded public key; PRIV_KEY the KpqC
 * secret key (pure KEMs only: a hybrid's classical secret stays in its
 * EVP_PKEY). */
static int key_import(void *keydata, int selection, const OSSL_PARAM params[]) {
    kpqc_key *key = keydata;
    const OSSL_PARAM *pub = OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_PUB_KEY);
    const OSSL_PARAM *priv = OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_PRIV_KEY);
    if ((selection & OSSL_KEYMGMT_SELECT_KEYPAIR) == 0) return 1;
    if (pub == NULL || !decode_pub(key, pub->data, pub->data_size)) return 0;
    if ((selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) && priv != NULL) {
        if (key->alg->classical != KPQC_CLASSICAL_NONE || priv->data_size != key->alg->kem->sk_len) {
            kpqc_prov_raise(key->provctx, KPQC_R_WRONG_LENGTH, "%s private key must be %zu bytes",
                            key->alg->name, key->alg->kem->sk_len);
            return 0;
        }
        key->sk = OPENSSL_secure_malloc(key->alg->kem->sk_len);
        if (key->sk == NULL) return 0;
        memcpy(key->sk, priv->data, key->alg->kem->sk_len);
    }
    return 1;
}

static int key_export(void *keydata, int selection, OSSL_CALLBACK *cb, void *cbarg) {
    kpqc_key *key = keydata;
    size_t len = kpqc_key_pub_len(key->alg);
    unsigned char *pub = OPENSSL_malloc(len);
    OSSL_PARAM params[3];
    size_t n = 0;
    int ok = 0;
    if (pub == NULL || !encode_pub(key, pub)) goto done;
    if (selection & OSSL_KEYMGMT_SELECT_PUBLIC_KEY)
        params[n++] = OSSL_PARAM_construct_octet_string(OSSL_PKEY_PARAM_PUB_KEY, pub, len);
    if ((selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) && key->sk != NULL &&
        key->alg->classical == KPQC_CLASSICAL_NONE)
        params[n++] = OSSL_PARAM_construct_octet_string(OSSL_PKEY_PARAM_PRIV_KEY, key->sk, key->alg->kem->sk_len);
    params[n] = OSSL_PARAM_construct_end();
    ok = cb(params, cbarg);
done:
    OPENSSL_free(pub);
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
    if (key == NULL) return NULL;
    if ((selection & OSSL_KEYMGMT_SELECT_PUBLIC_KEY) && src->pk != NULL &&
        (key->pk = OPENSSL_memdup(src->pk, src->alg->kem->pk_len)) == NULL)
        goto fail;
    if ((selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) && src->sk != NULL) {
        if ((key->sk = OPENSSL_secure_malloc(src->alg->kem->sk_len)) == NULL) goto fail;
        memcpy(key->sk, src->sk, src->alg->kem->sk_len);
    }
    if (src->classical != NULL && (selection & OSSL_KEYMGMT_SELECT_KEYPAIR)) {
        if (!EVP_PKEY_up_ref(src->classical)) goto fail;
        key->classical = src->classical; /* immutable once made */
    }
    return key;
fail:
    kpqc_key_free(key);
    return NULL;
}

/* ------------------------------------------------------ generation */

typedef struct {
    kpqc_prov_ctx *provctx;
    const kpqc_prov_kem *alg;
    int selection;
} gen_ctx;

static int gen_set_params(void *genctx, const OSSL_PARAM params[]) {
    (void)genctx, (void)params; /* the group name is implied by the algorithm */
    return 1;
}

static const OSSL_PARAM *gen_settable_params(void *genctx, void *provctx) {
    static const OSSL_PARAM table[] = {
        OSSL_PARAM_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, NULL, 0), OSSL_PARAM_END};
    (void)genctx, (void)provctx;
    return table;
}

static void *gen(void *genctx, OSSL_CALLBACK *cb, void *cbarg) {
    gen_ctx *g = genctx;
    (void)cb, (void)cbarg;
    kpqc_key *key = kpqc_key_new(g->provctx, g->alg);
    if (key == NULL || (g->selection & OSSL_KEYMGMT_SELECT_KEYPAIR) == 0)
        return key; /* a parameters-only key: TLS fills in the peer's share */
    const kpqc_kem *kem = g->alg->kem;
    key->pk = OPENSSL_malloc(kem->pk_len);
    key->sk = OPENSSL_secure_malloc(kem->sk_len);
    if (key->pk == NULL || key->sk == NULL) goto fail;
    kpqc_rng rng = kpqc_prov_rng(g->provctx);
    int rc = kpqc_kem_keypair(kem, key->pk, kem->pk_len, key->sk, kem->sk_len, &rng);
    if (rc != KPQC_OK) {
        kpqc_prov_raise(g->provctx, rc == KPQC_ERR_RNG ? KPQC_R_RNG_FAILED : KPQC_R_OPERATION_FAILED,
                        "%s key generation: %s", g->alg->name, kpqc_status_string(rc));
        goto fail;
    }
    if (g->alg->classical != KPQC_CLASSICAL_NONE &&
        (key->classical = kpqc_classical_keygen(g->provctx->libctx, g->alg->classical)) == NULL)
        goto fail;
    return key;
fail:
    kpqc_key_free(key);
    return NULL;
}

static void gen_cleanup(void *genctx) { OPENSSL_free(genctx); }

static void *gen_init_for(void *provctx, const char *name, int selection, const OSSL_PARAM params[]) {
    gen_ctx *g = OPENSSL_zalloc(sizeof *g);
    if (g == NULL) return NULL;
    g->provctx = provctx;
    g->selection = selection;
    for (size_t i = 0; i < kpqc_prov_kem_count(); i++)
        if (strcmp(kpqc_prov_kem_at(i)->name, name) == 0) g->alg = kpqc_prov_kem_at(i);
    if (g->alg == NULL || !gen_set_params(g, params)) {
        OPENSSL_free(g);
        return NULL;
    }
    return g;
}

static void *new_for(void *provctx, const char *name) {
    for (size_t i = 0; i < kpqc_prov_kem_count(); i++)
        if (strcmp(kpqc_prov_kem_at(i)->name, name) == 0) return kpqc_key_new(provctx, kpqc_prov_kem_at(i));
    return NULL;
}

static void key_free(void *keydata) { kpqc_key_free(keydata); }

/* ------------------------------------------------ dispatch tables */

#define COMMON_KEYMGMT_FUNCTIONS                                                          \
    {OSSL_FUNC_KEYMGMT_FREE, (void (*)(void))key_free},                                   \
    {OSSL_FUNC_KEYMGMT_HAS, (void (*)(void))key_has},                                     \
    {OSSL_FUNC_KEYMGMT_MATCH, (void (*)(void))key_match},                                 \
    {OSSL_FUNC_KEYMGMT_GET_PARAMS, (void (*)(void))key_get_params},                       \
    {OSSL_FUNC_KEYMGMT_GETTABLE_PARAMS, (void (*)(void))key_gettable_params},             \
    {OSSL_FUNC_KEYMGMT_SET_PARAMS, (void (*)(void))key_set_params},                       \
    {OSSL_FUNC_KEYMGMT_SETTABLE_PARAMS, (void (*)(void))key_settable_params},             \
    {OSSL_FUNC_KEYMGMT_IMPORT, (void (*)(void))key_import},                               \
    {OSSL_FUNC_KEYMGMT_IMPORT_TYPES, (void (*)(void))key_io_types},                       \
    {OSSL_FUNC_KEYMGMT_EXPORT, (void (*)(void))key_export},                               \
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
#define KPQC_KEM(fam, id, ...) KEYMGMT_FOR(id)
#define KPQC_HYBRID(name, ...) KEYMGMT_FOR(name)
#include "algorithms.def"

static const struct {
    const char *name;
    const OSSL_DISPATCH *dispatch;
} keymgmt_tables[] = {
#define KPQC_KEM(fam, id, ...) {#id, keymgmt_##id},
#define KPQC_HYBRID(name, ...) {#name, keymgmt_##name},
#include "algorithms.def"
};

const OSSL_DISPATCH *kpqc_prov_keymgmt_dispatch(const char *name);
const OSSL_DISPATCH *kpqc_prov_keymgmt_dispatch(const char *name) {
    for (size_t i = 0; i < sizeof keymgmt_tables / sizeof keymgmt_tables[0]; i++)
        if (strcmp(keymgmt_tables[i].name, name) == 0) return keymgmt_tables[i].dispatch;
    return NULL;
}
