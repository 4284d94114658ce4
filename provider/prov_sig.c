/*
 * Signature operations for pure and composite signatures.  KpqC schemes
 * hash the message themselves, so there is no digest to choose: one-shot
 * and streaming calls (the message is buffered) both sign the message.
 *
 * A composite signs, with both halves, the message representative of
 * draft-ietf-lamps-pq-composite-sigs:
 *     M' = "CompositeAlgorithmSignatures2025" || label || len(ctx) || ctx || H(M)
 * where H is the composite's digest and the label names the composite
 * ("KPQC-COMPSIG-" and its upper-case name); the KpqC half signs M' with the
 * label as its context, ECDSA signs M' with H.  The signature is
 * KpqC signature (fixed size) || DER ECDSA signature.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/params.h>

#include "kpqcprovider.h"

#define COMPOSITE_PREFIX "CompositeAlgorithmSignatures2025"

/* Streaming calls buffer the message (the schemes hash it themselves); a
 * message longer than this is refused rather than growing without bound. */
#define MAX_STREAMED_MESSAGE ((size_t)64 << 20)

typedef struct {
    kpqc_prov_ctx *provctx;
    kpqc_key *key;
    char *propq; /* the application's property query: ECDSA and the digest are fetched with it */
    unsigned char context[KPQC_SIG_MAX_CONTEXT];
    size_t context_len;
    unsigned char *msg; /* streaming: the message so far */
    size_t msg_len, msg_cap;
} sig_ctx;

static void *sig_newctx(void *provctx, const char *propq) {
    sig_ctx *ctx = OPENSSL_zalloc(sizeof *ctx);
    if (ctx == NULL) return NULL;
    ctx->provctx = provctx;
    if (propq != NULL && (ctx->propq = OPENSSL_strdup(propq)) == NULL) {
        OPENSSL_free(ctx);
        return NULL;
    }
    return ctx;
}

static void sig_freectx(void *vctx) {
    sig_ctx *ctx = vctx;
    if (ctx == NULL) return;
    OPENSSL_clear_free(ctx->msg, ctx->msg_cap);
    OPENSSL_free(ctx->propq);
    OPENSSL_free(ctx);
}

static void *sig_dupctx(void *vctx) {
    sig_ctx *src = vctx, *ctx = OPENSSL_memdup(src, sizeof *src);
    if (ctx == NULL) return NULL;
    ctx->msg = NULL;
    ctx->msg_cap = 0;
    ctx->propq = NULL;
    if ((src->propq != NULL && (ctx->propq = OPENSSL_strdup(src->propq)) == NULL) ||
        (src->msg_len != 0 && (ctx->msg = OPENSSL_memdup(src->msg, src->msg_len)) == NULL)) {
        OPENSSL_free(ctx->propq);
        OPENSSL_free(ctx);
        return NULL;
    }
    ctx->msg_cap = ctx->msg_len;
    return ctx;
}

static int sig_set_ctx_params(void *vctx, const OSSL_PARAM params[]) {
    sig_ctx *ctx = vctx;
    const OSSL_PARAM *p = OSSL_PARAM_locate_const(params, OSSL_SIGNATURE_PARAM_CONTEXT_STRING);
    if (p == NULL) return 1;
    void *buf = ctx->context;
    if (p->data_size > sizeof ctx->context) {
        kpqc_prov_raise(ctx->provctx, KPQC_R_CONTEXT_TOO_LONG, "context string of %zu bytes (at most %d)",
                        p->data_size, KPQC_SIG_MAX_CONTEXT);
        return 0;
    }
    return OSSL_PARAM_get_octet_string(p, &buf, sizeof ctx->context, &ctx->context_len);
}

static const OSSL_PARAM *sig_settable_ctx_params(void *vctx, void *provctx) {
    static const OSSL_PARAM table[] = {
        OSSL_PARAM_octet_string(OSSL_SIGNATURE_PARAM_CONTEXT_STRING, NULL, 0), OSSL_PARAM_END};
    (void)vctx, (void)provctx;
    return table;
}

/* The AlgorithmIdentifier X.509 puts beside the signature: SEQUENCE { OID }. */
static int sig_get_ctx_params(void *vctx, OSSL_PARAM params[]) {
    sig_ctx *ctx = vctx;
    OSSL_PARAM *p = OSSL_PARAM_locate(params, OSSL_SIGNATURE_PARAM_ALGORITHM_ID);
    if (p == NULL) return 1;
    unsigned char der[2 + 2 + 64];
    size_t oid_len = sizeof der - 4;
    if (ctx->key == NULL || ctx->key->alg->oid == NULL || !kpqc_der_oid(ctx->key->alg->oid, der + 4, &oid_len) ||
        oid_len > 127 - 2)
        return 0;
    der[0] = 0x30, der[1] = (unsigned char)(oid_len + 2), der[2] = 0x06, der[3] = (unsigned char)oid_len;
    return OSSL_PARAM_set_octet_string(p, der, oid_len + 4);
}

static const OSSL_PARAM *sig_gettable_ctx_params(void *vctx, void *provctx) {
    static const OSSL_PARAM table[] = {
        OSSL_PARAM_octet_string(OSSL_SIGNATURE_PARAM_ALGORITHM_ID, NULL, 0), OSSL_PARAM_END};
    (void)vctx, (void)provctx;
    return table;
}

static int sig_init(void *vctx, void *vkey, const OSSL_PARAM params[], int signing) {
    sig_ctx *ctx = vctx;
    kpqc_key *key = vkey;
    if (key != NULL) ctx->key = key;
    if (ctx->key == NULL || ctx->key->alg->kind != KPQC_PROV_SIG ||
        (signing ? ctx->key->sk == NULL : ctx->key->pk == NULL) ||
        (ctx->key->alg->classical != KPQC_CLASSICAL_NONE && ctx->key->classical == NULL)) {
        kpqc_prov_raise(ctx->provctx, KPQC_R_MISSING_KEY, "a %s signature key is needed",
                        signing ? "private" : "public");
        return 0;
    }
    if (ctx->msg != NULL) OPENSSL_cleanse(ctx->msg, ctx->msg_len);
    ctx->msg_len = 0;
    ctx->context_len = 0;
    return sig_set_ctx_params(ctx, params);
}

static int sign_init(void *vctx, void *vkey, const OSSL_PARAM params[]) { return sig_init(vctx, vkey, params, 1); }
static int verify_init(void *vctx, void *vkey, const OSSL_PARAM params[]) { return sig_init(vctx, vkey, params, 0); }

static int no_digest(sig_ctx *ctx, const char *mdname) {
    if (mdname == NULL || mdname[0] == '\0') return 1;
    kpqc_prov_raise(ctx->provctx, KPQC_R_OPERATION_FAILED, "%s hashes the message itself; digest %s not allowed",
                    ctx->key != NULL ? ctx->key->alg->name : "KpqC", mdname);
    return 0;
}

static int digest_sign_init(void *vctx, const char *mdname, void *vkey, const OSSL_PARAM params[]) {
    return sign_init(vctx, vkey, params) && no_digest(vctx, mdname);
}
static int digest_verify_init(void *vctx, const char *mdname, void *vkey, const OSSL_PARAM params[]) {
    return verify_init(vctx, vkey, params) && no_digest(vctx, mdname);
}

/* ----------------------------------------------------- composites */

static void composite_label(const kpqc_prov_alg *alg, char *label, size_t size) {
    size_t n = (size_t)snprintf(label, size, "KPQC-COMPSIG-%s", alg->name);
    for (size_t i = 0; i < n && i < size; i++) label[i] = (char)toupper((unsigned char)label[i]);
}

/* M' of the construction above, in a fresh buffer. */
static unsigned char *composite_representative(sig_ctx *ctx, const unsigned char *msg, size_t msg_len,
                                               const char *label, size_t *rep_len) {
    OSSL_LIB_CTX *libctx = ctx->provctx->libctx;
    EVP_MD *md = EVP_MD_fetch(libctx, ctx->key->alg->digest, ctx->propq);
    size_t prefix = strlen(COMPOSITE_PREFIX), lab = strlen(label);
    unsigned char *rep = NULL;
    unsigned int hlen = 0;
    if (md == NULL) goto done;
    *rep_len = prefix + lab + 1 + ctx->context_len + (size_t)EVP_MD_get_size(md);
    if ((rep = OPENSSL_malloc(*rep_len)) == NULL) goto done;
    unsigned char *p = rep;
    memcpy(p, COMPOSITE_PREFIX, prefix), p += prefix;
    memcpy(p, label, lab), p += lab;
    *p++ = (unsigned char)ctx->context_len;
    memcpy(p, ctx->context, ctx->context_len), p += ctx->context_len;
    if (!EVP_Digest(msg, msg_len, p, &hlen, md, NULL)) {
        OPENSSL_free(rep);
        rep = NULL;
    }
done:
    EVP_MD_free(md);
    return rep;
}

static int ecdsa(sig_ctx *ctx, int signing, unsigned char *sig, size_t *sig_len, const unsigned char *msg,
                 size_t msg_len) {
    EVP_MD_CTX *mctx = EVP_MD_CTX_new();
    const char *digest = ctx->key->alg->digest;
    OSSL_LIB_CTX *libctx = ctx->provctx->libctx;
    int ok = mctx != NULL &&
             (signing ? EVP_DigestSignInit_ex(mctx, NULL, digest, libctx, ctx->propq, ctx->key->classical, NULL) == 1 &&
                            EVP_DigestSign(mctx, sig, sig_len, msg, msg_len) == 1
                      : EVP_DigestVerifyInit_ex(mctx, NULL, digest, libctx, ctx->propq, ctx->key->classical, NULL) == 1 &&
                            EVP_DigestVerify(mctx, sig, *sig_len, msg, msg_len) == 1);
    EVP_MD_CTX_free(mctx);
    return ok;
}

/* ------------------------------------------------- sign and verify */

static int sign_message(sig_ctx *ctx, unsigned char *sig, size_t *siglen, size_t sigsize, const unsigned char *msg,
                        size_t msg_len) {
    const kpqc_prov_alg *alg = ctx->key->alg;
    size_t max = kpqc_key_max_output(alg);
    if (sig == NULL) {
        *siglen = max;
        return 1;
    }
    if (sigsize < max) {
        kpqc_prov_raise(ctx->provctx, KPQC_R_WRONG_LENGTH, "%s signature needs %zu bytes, buffer has %zu",
                        alg->name, max, sigsize);
        return 0;
    }
    kpqc_rng rng = kpqc_prov_rng(ctx->provctx);
    size_t pq_len = alg->sig->sig_len;
    int rc, ok = 0;
    if (alg->classical == KPQC_CLASSICAL_NONE) {
        rc = kpqc_sig_sign(alg->sig, sig, &pq_len, msg, msg_len, ctx->context, ctx->context_len, ctx->key->sk,
                           alg->pq_sk_len, &rng);
        ok = rc == KPQC_OK;
        *siglen = pq_len;
    } else {
        char label[64];
        size_t rep_len = 0, ec_len = sigsize - alg->sig->sig_len;
        composite_label(alg, label, sizeof label);
        unsigned char *rep = composite_representative(ctx, msg, msg_len, label, &rep_len);
        rc = rep == NULL ? KPQC_ERR_INTERNAL
                         : kpqc_sig_sign(alg->sig, sig, &pq_len, rep, rep_len, (const uint8_t *)label, strlen(label),
                                         ctx->key->sk, alg->pq_sk_len, &rng);
        /* libcrypto's ECDSA reports success with a length of (unsigned)-1
         * when its DER encoding fails to allocate: the classical part counts
         * only with a length a DER ECDSA signature of its curve can have. */
        ok = rc == KPQC_OK && pq_len == alg->sig->sig_len && ecdsa(ctx, 1, sig + pq_len, &ec_len, rep, rep_len) &&
             ec_len > 0 && ec_len <= kpqc_classical_sig_max_len(alg->classical) && ec_len <= sigsize - pq_len;
        *siglen = ok ? pq_len + ec_len : 0;
        OPENSSL_free(rep);
    }
    if (!ok) {
        OPENSSL_cleanse(sig, sigsize);
        kpqc_prov_raise(ctx->provctx, rc == KPQC_ERR_RNG ? KPQC_R_RNG_FAILED : KPQC_R_OPERATION_FAILED,
                        "%s signing: %s", alg->name, rc != KPQC_OK ? kpqc_status_string(rc) : "ECDSA failed");
    }
    return ok;
}

/* 1 when valid, 0 otherwise (an error is queued only for misuse). */
static int verify_message(sig_ctx *ctx, const unsigned char *sig, size_t siglen, const unsigned char *msg,
                          size_t msg_len) {
    const kpqc_prov_alg *alg = ctx->key->alg;
    if (alg->classical == KPQC_CLASSICAL_NONE)
        return kpqc_sig_verify(alg->sig, sig, siglen, msg, msg_len, ctx->context, ctx->context_len, ctx->key->pk,
                               alg->pq_pk_len) == KPQC_OK;
    size_t pq_len = alg->sig->sig_len;
    if (siglen <= pq_len || siglen > kpqc_key_max_output(alg)) return 0;
    char label[64];
    size_t rep_len = 0, ec_len = siglen - pq_len;
    composite_label(alg, label, sizeof label);
    unsigned char *rep = composite_representative(ctx, msg, msg_len, label, &rep_len);
    int pq_ok = rep != NULL && kpqc_sig_verify(alg->sig, sig, pq_len, rep, rep_len, (const uint8_t *)label,
                                               strlen(label), ctx->key->pk, alg->pq_pk_len) == KPQC_OK;
    /* Both halves are always checked; a composite is valid only if both are. */
    int ec_ok = rep != NULL && ecdsa(ctx, 0, (unsigned char *)sig + pq_len, &ec_len, rep, rep_len);
    OPENSSL_free(rep);
    return pq_ok && ec_ok;
}

static int sig_sign(void *vctx, unsigned char *sig, size_t *siglen, size_t sigsize, const unsigned char *tbs,
                    size_t tbslen) {
    return sign_message(vctx, sig, siglen, sigsize, tbs, tbslen);
}

static int sig_verify(void *vctx, const unsigned char *sig, size_t siglen, const unsigned char *tbs, size_t tbslen) {
    return verify_message(vctx, sig, siglen, tbs, tbslen);
}

static int digest_update(void *vctx, const unsigned char *data, size_t len) {
    sig_ctx *ctx = vctx;
    if (len == 0) return 1;
    if (len > MAX_STREAMED_MESSAGE - ctx->msg_len) {
        kpqc_prov_raise(ctx->provctx, KPQC_R_WRONG_LENGTH, "streamed message longer than %zu bytes",
                        MAX_STREAMED_MESSAGE);
        return 0;
    }
    if (ctx->msg_len + len > ctx->msg_cap) {
        size_t cap = 2 * (ctx->msg_len + len);
        if (cap > MAX_STREAMED_MESSAGE) cap = MAX_STREAMED_MESSAGE;
        unsigned char *p = OPENSSL_clear_realloc(ctx->msg, ctx->msg_cap, cap);
        if (p == NULL) return 0;
        ctx->msg = p;
        ctx->msg_cap = cap;
    }
    memcpy(ctx->msg + ctx->msg_len, data, len);
    ctx->msg_len += len;
    return 1;
}

static int digest_sign_final(void *vctx, unsigned char *sig, size_t *siglen, size_t sigsize) {
    sig_ctx *ctx = vctx;
    return sign_message(ctx, sig, siglen, sigsize, ctx->msg, ctx->msg_len);
}

static int digest_verify_final(void *vctx, const unsigned char *sig, size_t siglen) {
    sig_ctx *ctx = vctx;
    return verify_message(ctx, sig, siglen, ctx->msg, ctx->msg_len);
}

const OSSL_DISPATCH kpqc_prov_sig_functions[] = {
    {OSSL_FUNC_SIGNATURE_NEWCTX, (void (*)(void))sig_newctx},
    {OSSL_FUNC_SIGNATURE_FREECTX, (void (*)(void))sig_freectx},
    {OSSL_FUNC_SIGNATURE_DUPCTX, (void (*)(void))sig_dupctx},
    {OSSL_FUNC_SIGNATURE_SIGN_INIT, (void (*)(void))sign_init},
    {OSSL_FUNC_SIGNATURE_SIGN, (void (*)(void))sig_sign},
    {OSSL_FUNC_SIGNATURE_VERIFY_INIT, (void (*)(void))verify_init},
    {OSSL_FUNC_SIGNATURE_VERIFY, (void (*)(void))sig_verify},
    {OSSL_FUNC_SIGNATURE_DIGEST_SIGN_INIT, (void (*)(void))digest_sign_init},
    {OSSL_FUNC_SIGNATURE_DIGEST_SIGN_UPDATE, (void (*)(void))digest_update},
    {OSSL_FUNC_SIGNATURE_DIGEST_SIGN_FINAL, (void (*)(void))digest_sign_final},
    {OSSL_FUNC_SIGNATURE_DIGEST_SIGN, (void (*)(void))sig_sign},
    {OSSL_FUNC_SIGNATURE_DIGEST_VERIFY_INIT, (void (*)(void))digest_verify_init},
    {OSSL_FUNC_SIGNATURE_DIGEST_VERIFY_UPDATE, (void (*)(void))digest_update},
    {OSSL_FUNC_SIGNATURE_DIGEST_VERIFY_FINAL, (void (*)(void))digest_verify_final},
    {OSSL_FUNC_SIGNATURE_DIGEST_VERIFY, (void (*)(void))sig_verify},
    {OSSL_FUNC_SIGNATURE_GET_CTX_PARAMS, (void (*)(void))sig_get_ctx_params},
    {OSSL_FUNC_SIGNATURE_GETTABLE_CTX_PARAMS, (void (*)(void))sig_gettable_ctx_params},
    {OSSL_FUNC_SIGNATURE_SET_CTX_PARAMS, (void (*)(void))sig_set_ctx_params},
    {OSSL_FUNC_SIGNATURE_SETTABLE_CTX_PARAMS, (void (*)(void))sig_settable_ctx_params},
    OSSL_DISPATCH_END};
