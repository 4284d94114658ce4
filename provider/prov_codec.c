/*
 * Encoders (key -> SubjectPublicKeyInfo / PrivateKeyInfo in DER or PEM,
 * and text) and decoders (DER SubjectPublicKeyInfo / PrivateKeyInfo ->
 * key) for every algorithm that has an OID.  PEM input reaches the DER
 * decoders through libcrypto's own PEM-to-DER decoder.  The dispatch
 * tables are shared by all algorithms: encoders get the key (which knows
 * its algorithm), decoders recognise the algorithm by the OID.
 */
#include <string.h>

#include <openssl/asn1.h>
#include <openssl/bio.h>
#include <openssl/core_names.h>
#include <openssl/core_object.h>
#include <openssl/params.h>
#include <openssl/pem.h>
#include <openssl/pkcs12.h>
#include <openssl/x509.h>

#include "kpqcprovider.h"

/* Encoded keys are a few kilobytes; anything far larger is not ours. */
#define MAX_ENCODED_INPUT (1 << 20)

enum structure { SPKI, PKCS8, TEXT };
enum format { DER, PEM };

/* ------------------------------------------------------- encoding */

/* An encoder's or decoder's context. */
typedef struct {
    kpqc_prov_ctx *provctx;
    EVP_CIPHER *cipher; /* encoders: encrypt private keys with it (`-aes256`), or NULL */
    char *propq;        /* decoders: the application's property query, kept by the keys made */
} codec_ctx;

static void *codec_newctx(void *provctx) {
    codec_ctx *ctx = OPENSSL_zalloc(sizeof *ctx);
    if (ctx != NULL) ctx->provctx = provctx;
    return ctx;
}

static void codec_freectx(void *vctx) {
    codec_ctx *ctx = vctx;
    if (ctx == NULL) return;
    EVP_CIPHER_free(ctx->cipher);
    OPENSSL_free(ctx->propq);
    OPENSSL_free(ctx);
}

static int encoder_set_ctx_params(void *vctx, const OSSL_PARAM params[]) {
    codec_ctx *ctx = vctx;
    const OSSL_PARAM *c = OSSL_PARAM_locate_const(params, OSSL_ENCODER_PARAM_CIPHER);
    const OSSL_PARAM *pq = OSSL_PARAM_locate_const(params, OSSL_ENCODER_PARAM_PROPERTIES);
    const char *name = NULL, *propq = NULL;
    if (c == NULL) return 1;
    if (!OSSL_PARAM_get_utf8_string_ptr(c, &name) || (pq != NULL && !OSSL_PARAM_get_utf8_string_ptr(pq, &propq)))
        return 0;
    EVP_CIPHER_free(ctx->cipher);
    ctx->cipher = NULL;
    if (name == NULL || name[0] == '\0') return 1; /* no encryption */
    if ((ctx->cipher = EVP_CIPHER_fetch(ctx->provctx->libctx, name, propq)) == NULL) {
        kpqc_prov_raise(ctx->provctx, KPQC_R_OPERATION_FAILED, "cipher %s for the private key is not available", name);
        return 0;
    }
    return 1;
}

static const OSSL_PARAM *encoder_settable_ctx_params(void *provctx) {
    static const OSSL_PARAM table[] = {
        OSSL_PARAM_utf8_string(OSSL_ENCODER_PARAM_CIPHER, NULL, 0),
        OSSL_PARAM_utf8_string(OSSL_ENCODER_PARAM_PROPERTIES, NULL, 0), OSSL_PARAM_END};
    (void)provctx;
    return table;
}

static int write_all(BIO *out, const unsigned char *buf, size_t len) {
    size_t done = 0;
    return BIO_write_ex(out, buf, len, &done) == 1 && done == len;
}

/*
 * PrivateKeyInfo `der` as PKCS#8 EncryptedPrivateKeyInfo under ctx's
 * cipher (PBES2, PBKDF2 with OpenSSL's defaults), with the passphrase the
 * application's callback gives.  In place: `*der` is replaced.
 */
static int encrypt_pkcs8(codec_ctx *ctx, const kpqc_prov_alg *alg, unsigned char **der, size_t *der_len,
                         OSSL_PASSPHRASE_CALLBACK *cb, void *cbarg) {
    char pass[1024];
    size_t pass_len = 0;
    const unsigned char *p = *der;
    PKCS8_PRIV_KEY_INFO *p8 = NULL;
    X509_SIG *enc = NULL;
    unsigned char *out = NULL;
    int n = 0;
    if (cb == NULL || !cb(pass, sizeof pass, &pass_len, NULL, cbarg)) {
        kpqc_prov_raise(ctx->provctx, KPQC_R_MISSING_KEY, "%s: no passphrase to encrypt the private key", alg->name);
        goto done;
    }
    if ((p8 = d2i_PKCS8_PRIV_KEY_INFO(NULL, &p, (long)*der_len)) == NULL ||
        (enc = PKCS8_encrypt_ex(-1, ctx->cipher, pass, (int)pass_len, NULL, 0, 0, p8, ctx->provctx->libctx, NULL)) ==
            NULL ||
        (n = i2d_X509_SIG(enc, &out)) <= 0) {
        kpqc_prov_raise(ctx->provctx, KPQC_R_OPERATION_FAILED, "%s: private key encryption failed", alg->name);
        n = 0;
    }
done:
    OPENSSL_cleanse(pass, sizeof pass);
    PKCS8_PRIV_KEY_INFO_free(p8); /* cleanses the key bytes */
    X509_SIG_free(enc);
    if (n <= 0) return 0;
    OPENSSL_secure_clear_free(*der, *der_len);
    *der = out; /* ciphertext: no longer secret */
    *der_len = (size_t)n;
    return 1;
}

static int encode_der_or_pem(codec_ctx *ctx, BIO *out, const kpqc_key *key, enum structure s, enum format f,
                             OSSL_PASSPHRASE_CALLBACK *cb, void *cbarg) {
    const kpqc_prov_alg *alg = key->alg;
    unsigned char *body = NULL, *der = NULL;
    size_t body_len = 0, der_len = 0;
    int encrypted = s == PKCS8 && ctx->cipher != NULL;
    const char *pem_name = s == SPKI ? PEM_STRING_PUBLIC : encrypted ? PEM_STRING_PKCS8 : PEM_STRING_PKCS8INF;
    int ok = kpqc_bc_encode(ctx->provctx, key, s == PKCS8, &der, &der_len); /* oid-profile = bouncycastle */
    if (ok < 0) return 0;
    if (ok) {
        /* written as Bouncy Castle reads it */
    } else if (s == SPKI) {
        body_len = kpqc_key_pub_len(alg);
        if ((body = OPENSSL_secure_malloc(body_len)) == NULL || !kpqc_key_encode_pub(key, body)) goto done;
        ok = kpqc_der_spki(alg, body, body_len, &der, &der_len);
    } else {
        ok = kpqc_key_encode_priv(key, &body, &body_len) && kpqc_der_pkcs8(alg, body, body_len, &der, &der_len);
    }
    if (!ok) {
        kpqc_prov_raise(ctx->provctx, KPQC_R_MISSING_KEY, "%s: no %s key to encode", alg->name,
                        s == SPKI ? "public" : "private");
        goto done;
    }
    if (encrypted && !(ok = encrypt_pkcs8(ctx, alg, &der, &der_len, cb, cbarg))) goto done;
    ok = f == DER ? write_all(out, der, der_len) : PEM_write_bio(out, pem_name, "", der, (long)der_len) > 0;
done:
    OPENSSL_secure_clear_free(body, body_len);
    if (encrypted && ok) OPENSSL_free(der);
    else OPENSSL_secure_clear_free(der, der_len);
    return ok;
}

static int print_hex(BIO *out, const char *label, const unsigned char *buf, size_t len) {
    return BIO_printf(out, "%s:\n", label) > 0 && ASN1_buf_print(out, buf, len, 4);
}

/* As `openssl pkey -text` prints other keys: a title, then hex dumps. */
static int encode_text(BIO *out, const kpqc_key *key, int selection) {
    const kpqc_prov_alg *alg = key->alg;
    int priv = (selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) && key->sk != NULL;
    int ok = BIO_printf(out, "%s %s-Key:\n", alg->name, priv ? "Private" : "Public") > 0;
    if (ok && priv) ok = print_hex(out, "priv", key->sk, alg->pq_sk_len);
    if (ok && key->pk != NULL) ok = print_hex(out, "pub", key->pk, alg->pq_pk_len);
    if (ok && key->classical != NULL) {
        ok = BIO_printf(out, "%s part:\n", alg->kind == KPQC_PROV_SIG ? "ECDSA" : "classical") > 0 &&
             (priv ? EVP_PKEY_print_private(out, key->classical, 4, NULL)
                   : EVP_PKEY_print_public(out, key->classical, 4, NULL)) > 0;
    }
    return ok;
}

static int encode(void *vctx, OSSL_CORE_BIO *cout, const void *obj, enum structure s, enum format f, int selection,
                  OSSL_PASSPHRASE_CALLBACK *cb, void *cbarg) {
    codec_ctx *ctx = vctx;
    const kpqc_key *key = obj;
    if (key == NULL) return 0; /* keys of other providers are exported to ours first */
    BIO *out = BIO_new_from_core_bio(ctx->provctx->libctx, cout);
    if (out == NULL) return 0;
    int ok = s == TEXT ? encode_text(out, key, selection) : encode_der_or_pem(ctx, out, key, s, f, cb, cbarg);
    BIO_free(out);
    return ok;
}

/* Which selections a structure can serve, checked from the most demanding
 * part down as libcrypto's own codecs do (0 means "anything"). */
static int spki_selection(void *ctx, int selection) {
    (void)ctx;
    if (selection == 0) return 1;
    return (selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) == 0 && (selection & OSSL_KEYMGMT_SELECT_PUBLIC_KEY) != 0;
}
static int pkcs8_selection(void *ctx, int selection) {
    (void)ctx;
    return selection == 0 || (selection & OSSL_KEYMGMT_SELECT_KEYPAIR) != 0;
}
static int text_selection(void *ctx, int selection) {
    (void)ctx;
    return selection == 0 || (selection & OSSL_KEYMGMT_SELECT_KEYPAIR) != 0;
}

#define ENCODER(fn, s, f, selection_fn)                                                                     \
    static int fn(void *ctx, OSSL_CORE_BIO *out, const void *obj, const OSSL_PARAM abstract[], int selection, \
                  OSSL_PASSPHRASE_CALLBACK *cb, void *cbarg) {                                               \
        (void)abstract;                                                                                      \
        return encode(ctx, out, obj, s, f, selection, cb, cbarg);                                            \
    }                                                                                                        \
    static const OSSL_DISPATCH fn##_dispatch[] = {                                                           \
        {OSSL_FUNC_ENCODER_NEWCTX, (void (*)(void))codec_newctx},                                            \
        {OSSL_FUNC_ENCODER_FREECTX, (void (*)(void))codec_freectx},                                          \
        {OSSL_FUNC_ENCODER_SET_CTX_PARAMS, (void (*)(void))encoder_set_ctx_params},                          \
        {OSSL_FUNC_ENCODER_SETTABLE_CTX_PARAMS, (void (*)(void))encoder_settable_ctx_params},                \
        {OSSL_FUNC_ENCODER_DOES_SELECTION, (void (*)(void))selection_fn},                                    \
        {OSSL_FUNC_ENCODER_ENCODE, (void (*)(void))fn},                                                      \
        OSSL_DISPATCH_END};
ENCODER(encode_spki_der, SPKI, DER, spki_selection)
ENCODER(encode_spki_pem, SPKI, PEM, spki_selection)
ENCODER(encode_pkcs8_der, PKCS8, DER, pkcs8_selection)
ENCODER(encode_pkcs8_pem, PKCS8, PEM, pkcs8_selection)
ENCODER(encode_key_text, TEXT, DER, text_selection)

#define PROPS "provider=kpqcprovider,"
const kpqc_prov_codec kpqc_prov_encoders[] = {
    {PROPS "output=der,structure=SubjectPublicKeyInfo", encode_spki_der_dispatch, 0},
    {PROPS "output=pem,structure=SubjectPublicKeyInfo", encode_spki_pem_dispatch, 0},
    {PROPS "output=der,structure=PrivateKeyInfo", encode_pkcs8_der_dispatch, 1},
    {PROPS "output=pem,structure=PrivateKeyInfo", encode_pkcs8_pem_dispatch, 1},
    {PROPS "output=text", encode_key_text_dispatch, 0},
};
const size_t kpqc_prov_encoder_count = sizeof kpqc_prov_encoders / sizeof kpqc_prov_encoders[0];

/* ------------------------------------------------------- decoding */

static unsigned char *read_all(kpqc_prov_ctx *provctx, OSSL_CORE_BIO *cin, size_t *len) {
    BIO *in = BIO_new_from_core_bio(provctx->libctx, cin);
    unsigned char *buf = NULL;
    size_t cap = 0;
    *len = 0;
    if (in == NULL) return NULL;
    for (;;) {
        size_t got = 0;
        if (*len == cap) {
            /* The input may be a private key: no uncleansed copy is left
             * behind when the buffer moves or the read fails. */
            size_t grown = cap ? 2 * cap : 4096;
            unsigned char *p = cap < MAX_ENCODED_INPUT ? OPENSSL_clear_realloc(buf, cap, grown) : NULL;
            if (p == NULL) {
                OPENSSL_clear_free(buf, cap);
                buf = NULL;
                break;
            }
            buf = p;
            cap = grown;
        }
        if (BIO_read_ex(in, buf + *len, cap - *len, &got) != 1 || got == 0) break;
        *len += got;
    }
    BIO_free(in);
    return buf;
}

/* The algorithm whose OID heads this structure, and the key bytes in it. */
static const kpqc_prov_alg *identify(const kpqc_prov_table *t, enum structure s, const unsigned char *der,
                                     size_t len, const unsigned char **body, size_t *body_len) {
    for (size_t i = 0; i < t->len; i++) {
        const kpqc_prov_alg *alg = &t->algs[i];
        if (alg->oid == NULL) continue;
        if (s == SPKI ? kpqc_der_parse_spki(alg, der, len, body, body_len)
                      : kpqc_der_parse_pkcs8(alg, der, len, body, body_len))
            return alg;
    }
    return NULL;
}

static int decoder_set_ctx_params(void *vctx, const OSSL_PARAM params[]) {
    codec_ctx *ctx = vctx;
    const OSSL_PARAM *p = OSSL_PARAM_locate_const(params, OSSL_DECODER_PARAM_PROPERTIES);
    const char *propq = NULL;
    if (p == NULL) return 1;
    if (!OSSL_PARAM_get_utf8_string_ptr(p, &propq)) return 0;
    OPENSSL_free(ctx->propq);
    ctx->propq = NULL;
    return propq == NULL || (ctx->propq = OPENSSL_strdup(propq)) != NULL;
}

static const OSSL_PARAM *decoder_settable_ctx_params(void *provctx) {
    static const OSSL_PARAM table[] = {OSSL_PARAM_utf8_string(OSSL_DECODER_PARAM_PROPERTIES, NULL, 0), OSSL_PARAM_END};
    (void)provctx;
    return table;
}

/* Our structure, or Bouncy Castle's: 1 and *key set, 0 not ours, -1 error. */
static int decode_key(codec_ctx *ctx, enum structure s, const unsigned char *der, size_t len, kpqc_key **key) {
    kpqc_prov_ctx *provctx = ctx->provctx;
    const unsigned char *body = NULL;
    size_t body_len = 0;
    const kpqc_prov_alg *alg = identify(&provctx->table, s, der, len, &body, &body_len);
    if (alg == NULL) return kpqc_bc_decode(provctx, ctx->propq, s == PKCS8, der, len, key);
    *key = kpqc_key_new(provctx, alg);
    if (*key != NULL && kpqc_key_set_propq(*key, ctx->propq) &&
        (s == SPKI ? kpqc_key_decode_pub(*key, body, body_len) : kpqc_key_decode_priv(*key, body, body_len)))
        return 1;
    kpqc_key_free(*key);
    *key = NULL;
    return -1;
}

static int decode(codec_ctx *ctx, OSSL_CORE_BIO *cin, enum structure s, int selection, OSSL_CALLBACK *data_cb,
                  void *data_cbarg) {
    size_t len = 0;
    unsigned char *der = read_all(ctx->provctx, cin, &len);
    kpqc_key *key = NULL;
    int found = der != NULL ? decode_key(ctx, s, der, len, &key) : 0;
    /* "Not ours" lets the next decoder try; ours but unusable stops there,
     * with the reason on the error queue. */
    int ok = found >= 0;
    (void)selection;
    if (found > 0) {
        int object_type = OSSL_OBJECT_PKEY;
        OSSL_PARAM params[] = {
            OSSL_PARAM_construct_int(OSSL_OBJECT_PARAM_TYPE, &object_type),
            OSSL_PARAM_construct_utf8_string(OSSL_OBJECT_PARAM_DATA_TYPE, (char *)key->alg->name, 0),
            OSSL_PARAM_construct_octet_string(OSSL_OBJECT_PARAM_REFERENCE, &key, sizeof key),
            OSSL_PARAM_construct_end()};
        ok = data_cb(params, data_cbarg); /* the keymgmt's load takes the key */
    }
    kpqc_key_free(key); /* NULL if loaded */
    OPENSSL_clear_free(der, len);
    return ok;
}

static int decoder_export_object(void *vctx, const void *reference, size_t reference_sz, OSSL_CALLBACK *export_cb,
                                 void *export_cbarg) {
    (void)vctx;
    if (reference_sz != sizeof(kpqc_key *)) return 0;
    kpqc_key *key = *(kpqc_key *const *)reference;
    return key != NULL && kpqc_key_export(key, OSSL_KEYMGMT_SELECT_ALL, export_cb, export_cbarg);
}

#define DECODER(fn, s, selection_fn)                                                                          \
    static int fn(void *ctx, OSSL_CORE_BIO *in, int selection, OSSL_CALLBACK *data_cb, void *data_cbarg,        \
                  OSSL_PASSPHRASE_CALLBACK *pw_cb, void *pw_cbarg) {                                           \
        (void)pw_cb, (void)pw_cbarg;                                                                           \
        return decode(ctx, in, s, selection, data_cb, data_cbarg);                                             \
    }                                                                                                          \
    static const OSSL_DISPATCH fn##_dispatch[] = {                                                             \
        {OSSL_FUNC_DECODER_NEWCTX, (void (*)(void))codec_newctx},                                              \
        {OSSL_FUNC_DECODER_FREECTX, (void (*)(void))codec_freectx},                                            \
        {OSSL_FUNC_DECODER_SET_CTX_PARAMS, (void (*)(void))decoder_set_ctx_params},                            \
        {OSSL_FUNC_DECODER_SETTABLE_CTX_PARAMS, (void (*)(void))decoder_settable_ctx_params},                  \
        {OSSL_FUNC_DECODER_DOES_SELECTION, (void (*)(void))selection_fn},                                      \
        {OSSL_FUNC_DECODER_DECODE, (void (*)(void))fn},                                                        \
        {OSSL_FUNC_DECODER_EXPORT_OBJECT, (void (*)(void))decoder_export_object},                              \
        OSSL_DISPATCH_END};
DECODER(decode_spki, SPKI, spki_selection)
DECODER(decode_pkcs8, PKCS8, pkcs8_selection)

const kpqc_prov_codec kpqc_prov_decoders[] = {
    {PROPS "input=der,structure=SubjectPublicKeyInfo", decode_spki_dispatch, 0},
    {PROPS "input=der,structure=PrivateKeyInfo", decode_pkcs8_dispatch, 1},
};
const size_t kpqc_prov_decoder_count = sizeof kpqc_prov_decoders / sizeof kpqc_prov_decoders[0];
