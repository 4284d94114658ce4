/*
 * KEM operations for pure and hybrid groups.  For a hybrid the sender makes
 * an ephemeral classical key; ciphertext and secret concatenate the halves
 * (draft-ietf-tls-hybrid-design) in the order of kpqc_pq_first: KpqC first
 * for X25519/X448, ECDH first on NIST curves.  One dispatch table serves
 * every algorithm: the key says which one.
 */
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/params.h>

#include "kpqcprovider.h"

typedef struct {
    kpqc_prov_ctx *provctx;
    kpqc_key *key;
} kem_ctx;

static void *kem_newctx(void *provctx) {
    kem_ctx *ctx = OPENSSL_zalloc(sizeof *ctx);
    if (ctx != NULL) ctx->provctx = provctx;
    return ctx;
}

static void kem_freectx(void *vctx) { OPENSSL_free(vctx); }

static void *kem_dupctx(void *vctx) {
    kem_ctx *src = vctx, *ctx = OPENSSL_memdup(src, sizeof *src);
    return ctx;
}

static int kem_init(void *vctx, void *vkey, const OSSL_PARAM params[], int need_private) {
    kem_ctx *ctx = vctx;
    kpqc_key *key = vkey;
    (void)params;
    if (key == NULL || key->alg->kind != KPQC_PROV_KEM || (need_private ? key->sk == NULL : key->pk == NULL)) {
        kpqc_prov_raise(ctx->provctx, KPQC_R_MISSING_KEY, "%s KEM key needed",
                        need_private ? "a private" : "a public");
        return 0;
    }
    ctx->key = key;
    return 1;
}

/* Where the halves sit in a ciphertext and in a secret. */
typedef struct {
    size_t cpub, css;                /* classical public value and secret; 0 for pure groups */
    size_t ct_classical, ct_pq;      /* offsets in the ciphertext */
    size_t ss_classical, ss_pq;      /* offsets in the secret */
} layout;

static layout layout_of(const kpqc_prov_alg *alg) {
    layout l;
    int pq_first = kpqc_pq_first(alg);
    l.cpub = kpqc_classical_pub_len(alg->classical);
    l.css = kpqc_classical_secret_len(alg->classical);
    l.ct_pq = pq_first ? 0 : l.cpub;
    l.ct_classical = pq_first ? alg->kem->ct_len : 0;
    l.ss_pq = pq_first ? 0 : l.css;
    l.ss_classical = pq_first ? alg->kem->ss_len : 0;
    return l;
}

static int kem_encapsulate_init(void *vctx, void *vkey, const OSSL_PARAM params[]) {
    return kem_init(vctx, vkey, params, 0);
}

static int kem_decapsulate_init(void *vctx, void *vkey, const OSSL_PARAM params[]) {
    return kem_init(vctx, vkey, params, 1);
}

static int kem_encapsulate(void *vctx, unsigned char *out, size_t *outlen, unsigned char *secret,
                           size_t *secretlen) {
    kem_ctx *ctx = vctx;
    const kpqc_prov_alg *alg = ctx->key->alg;
    const kpqc_kem *kem = alg->kem;
    const layout l = layout_of(alg);
    /* OpenSSL's convention: no ciphertext buffer asks for the sizes; a
     * ciphertext without a buffer for its secret is an error, never a
     * "success" that leaves the secret unwritten. */
    if (out == NULL) {
        if (outlen == NULL && secretlen == NULL) return 0;
        if (outlen != NULL) *outlen = kpqc_key_ct_len(alg);
        if (secretlen != NULL) *secretlen = kpqc_key_secret_len(alg);
        return 1;
    }
    if (secret == NULL) {
        kpqc_prov_raise(ctx->provctx, KPQC_R_WRONG_LENGTH, "no buffer for the shared secret");
        return 0;
    }
    if ((outlen != NULL && *outlen < kpqc_key_ct_len(alg)) ||
        (secretlen != NULL && *secretlen < kpqc_key_secret_len(alg))) {
        kpqc_prov_raise(ctx->provctx, KPQC_R_WRONG_LENGTH, "output buffer too small");
        return 0;
    }
    if (l.cpub != 0) {
        EVP_PKEY *eph = kpqc_classical_keygen(ctx->provctx->libctx, ctx->key->propq, alg->classical);
        int ok = eph != NULL && kpqc_classical_get_pub(eph, alg->classical, out + l.ct_classical) &&
                 kpqc_classical_derive(ctx->provctx->libctx, ctx->key->propq, eph, ctx->key->classical,
                                       secret + l.ss_classical, l.css);
        EVP_PKEY_free(eph);
        if (!ok) {
            OPENSSL_cleanse(secret, kpqc_key_secret_len(alg));
            kpqc_prov_raise(ctx->provctx, KPQC_R_OPERATION_FAILED, "%s: classical key agreement failed", alg->name);
            return 0;
        }
    }
    kpqc_rng rng = kpqc_prov_rng(ctx->provctx);
    int rc = kpqc_kem_encaps(kem, out + l.ct_pq, kem->ct_len, secret + l.ss_pq, kem->ss_len, ctx->key->pk,
                             kem->pk_len, &rng);
    if (rc != KPQC_OK) {
        OPENSSL_cleanse(secret, kpqc_key_secret_len(alg));
        kpqc_prov_raise(ctx->provctx, rc == KPQC_ERR_RNG ? KPQC_R_RNG_FAILED : KPQC_R_OPERATION_FAILED,
                        "%s encapsulation: %s", alg->name, kpqc_status_string(rc));
        return 0;
    }
    if (outlen != NULL) *outlen = kpqc_key_ct_len(alg);
    if (secretlen != NULL) *secretlen = kpqc_key_secret_len(alg);
    return 1;
}

static int kem_decapsulate(void *vctx, unsigned char *out, size_t *outlen, const unsigned char *in,
                           size_t inlen) {
    kem_ctx *ctx = vctx;
    const kpqc_prov_alg *alg = ctx->key->alg;
    const kpqc_kem *kem = alg->kem;
    const layout l = layout_of(alg);
    if (out == NULL) {
        if (outlen != NULL) *outlen = kpqc_key_secret_len(alg);
        return 1;
    }
    if (inlen != kpqc_key_ct_len(alg)) {
        kpqc_prov_raise(ctx->provctx, KPQC_R_WRONG_LENGTH, "%s ciphertext must be %zu bytes, got %zu",
                        alg->name, kpqc_key_ct_len(alg), inlen);
        return 0;
    }
    if (outlen != NULL && *outlen < kpqc_key_secret_len(alg)) {
        kpqc_prov_raise(ctx->provctx, KPQC_R_WRONG_LENGTH, "output buffer too small");
        return 0;
    }
    if (l.cpub != 0) {
        EVP_PKEY *peer = kpqc_classical_from_pub(ctx->provctx->libctx, ctx->key->propq, alg->classical,
                                                 in + l.ct_classical, l.cpub);
        int ok = peer != NULL && kpqc_classical_derive(ctx->provctx->libctx, ctx->key->propq, ctx->key->classical,
                                                       peer, out + l.ss_classical, l.css);
        EVP_PKEY_free(peer);
        if (!ok) {
            OPENSSL_cleanse(out, kpqc_key_secret_len(alg));
            kpqc_prov_raise(ctx->provctx, KPQC_R_DECAPSULATION_FAILED, "%s: invalid classical share", alg->name);
            return 0;
        }
    }
    int rc = kpqc_kem_decaps(kem, out + l.ss_pq, kem->ss_len, in + l.ct_pq, kem->ct_len, ctx->key->sk, kem->sk_len);
    if (rc != KPQC_OK) {
        OPENSSL_cleanse(out, kpqc_key_secret_len(alg));
        kpqc_prov_raise(ctx->provctx, KPQC_R_DECAPSULATION_FAILED, "%s decapsulation: %s", alg->name,
                        kpqc_status_string(rc));
        return 0;
    }
    if (outlen != NULL) *outlen = kpqc_key_secret_len(alg);
    return 1;
}

static int kem_set_ctx_params(void *vctx, const OSSL_PARAM params[]) {
    (void)vctx, (void)params;
    return 1;
}

static const OSSL_PARAM *kem_settable_ctx_params(void *vctx, void *provctx) {
    static const OSSL_PARAM table[] = {OSSL_PARAM_END};
    (void)vctx, (void)provctx;
    return table;
}

const OSSL_DISPATCH kpqc_prov_kem_functions[] = {
    {OSSL_FUNC_KEM_NEWCTX, (void (*)(void))kem_newctx},
    {OSSL_FUNC_KEM_FREECTX, (void (*)(void))kem_freectx},
    {OSSL_FUNC_KEM_DUPCTX, (void (*)(void))kem_dupctx},
    {OSSL_FUNC_KEM_ENCAPSULATE_INIT, (void (*)(void))kem_encapsulate_init},
    {OSSL_FUNC_KEM_ENCAPSULATE, (void (*)(void))kem_encapsulate},
    {OSSL_FUNC_KEM_DECAPSULATE_INIT, (void (*)(void))kem_decapsulate_init},
    {OSSL_FUNC_KEM_DECAPSULATE, (void (*)(void))kem_decapsulate},
    {OSSL_FUNC_KEM_SET_CTX_PARAMS, (void (*)(void))kem_set_ctx_params},
    {OSSL_FUNC_KEM_SETTABLE_CTX_PARAMS, (void (*)(void))kem_settable_ctx_params},
    OSSL_DISPATCH_END};
