/*
 * KEM operations for pure and hybrid groups.  For a hybrid the sender makes
 * an ephemeral classical key: ciphertext = ephemeral public value || KpqC
 * ciphertext, secret = ECDH secret || KpqC secret (the concatenations of
 * draft-ietf-tls-hybrid-design).  One dispatch table serves every
 * algorithm: the key says which one.
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
    size_t cpub = kpqc_classical_pub_len(alg->classical), css = kpqc_classical_secret_len(alg->classical);
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
    if (cpub != 0) {
        EVP_PKEY *eph = kpqc_classical_keygen(ctx->provctx->libctx, ctx->key->propq, alg->classical);
        int ok = eph != NULL && kpqc_classical_get_pub(eph, alg->classical, out) &&
                 kpqc_classical_derive(ctx->provctx->libctx, ctx->key->propq, eph, ctx->key->classical, secret, css);
        EVP_PKEY_free(eph);
        if (!ok) {
            kpqc_prov_raise(ctx->provctx, KPQC_R_OPERATION_FAILED, "%s: classical key agreement failed", alg->name);
            return 0;
        }
    }
    kpqc_rng rng = kpqc_prov_rng(ctx->provctx);
    int rc = kpqc_kem_encaps(kem, out + cpub, kem->ct_len, secret + css, kem->ss_len, ctx->key->pk,
                             kem->pk_len, &rng);
    if (rc != KPQC_OK) {
        OPENSSL_cleanse(secret, css + kem->ss_len);
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
    size_t cpub = kpqc_classical_pub_len(alg->classical), css = kpqc_classical_secret_len(alg->classical);
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
    if (cpub != 0) {
        EVP_PKEY *peer = kpqc_classical_from_pub(ctx->provctx->libctx, ctx->key->propq, alg->classical, in, cpub);
        int ok = peer != NULL &&
                 kpqc_classical_derive(ctx->provctx->libctx, ctx->key->propq, ctx->key->classical, peer, out, css);
        EVP_PKEY_free(peer);
        if (!ok) {
            kpqc_prov_raise(ctx->provctx, KPQC_R_DECAPSULATION_FAILED, "%s: invalid classical share", alg->name);
            return 0;
        }
    }
    int rc = kpqc_kem_decaps(kem, out + css, kem->ss_len, in + cpub, kem->ct_len, ctx->key->sk, kem->sk_len);
    if (rc != KPQC_OK) {
        OPENSSL_cleanse(out, css + kem->ss_len);
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
