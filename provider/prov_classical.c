/*
 * The classical halves of hybrid groups, computed by libcrypto through the
 * provider's child library context: key generation, the public value as
 * TLS encodes it (raw X25519/X448 keys, uncompressed EC points) and ECDH.
 */
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/objects.h>
#include <openssl/params.h>

#include "kpqcprovider.h"

static const struct {
    const char *keytype, *group;
    size_t pub_len, secret_len;
} classical[] = {
    [KPQC_CLASSICAL_NONE] = {NULL, NULL, 0, 0},
    [KPQC_X25519] = {"X25519", NULL, 32, 32},
    [KPQC_X448] = {"X448", NULL, 56, 56},
    [KPQC_P256] = {"EC", "P-256", 65, 32},
    [KPQC_P384] = {"EC", "P-384", 97, 48},
    [KPQC_P521] = {"EC", "P-521", 133, 66},
};

size_t kpqc_classical_pub_len(kpqc_classical c) { return classical[c].pub_len; }
size_t kpqc_classical_secret_len(kpqc_classical c) { return classical[c].secret_len; }

/* SEQUENCE { INTEGER r, INTEGER s }, each integer at most one byte longer
 * than the field (a leading zero). */
size_t kpqc_classical_sig_max_len(kpqc_classical c) {
    if (c == KPQC_CLASSICAL_NONE) return 0;
    size_t body = 2 * (2 + classical[c].secret_len + 1);
    return body + (body < 128 ? 2 : 3);
}

EVP_PKEY *kpqc_classical_keygen(OSSL_LIB_CTX *libctx, const char *propq, kpqc_classical c) {
    EVP_PKEY *key = NULL;
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(libctx, classical[c].keytype, propq);
    if (ctx == NULL || EVP_PKEY_keygen_init(ctx) <= 0) goto done;
    if (classical[c].group != NULL) {
        OSSL_PARAM params[] = {
            OSSL_PARAM_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, (char *)classical[c].group, 0),
            OSSL_PARAM_END};
        if (EVP_PKEY_CTX_set_params(ctx, params) <= 0) goto done;
    }
    if (EVP_PKEY_keygen(ctx, &key) <= 0) key = NULL;
done:
    EVP_PKEY_CTX_free(ctx);
    return key;
}

int kpqc_classical_get_pub(const EVP_PKEY *key, kpqc_classical c, unsigned char *out) {
    size_t len = 0;
    if (!EVP_PKEY_get_octet_string_param(key, OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, out,
                                         classical[c].pub_len, &len))
        return 0;
    return len == classical[c].pub_len;
}

EVP_PKEY *kpqc_classical_from_pub(OSSL_LIB_CTX *libctx, const char *propq, kpqc_classical c, const unsigned char *pub,
                                  size_t len) {
    EVP_PKEY *key = NULL;
    /* TLS 1.3 (RFC 8446, 4.2.8.2) and the composite encoding carry EC points
     * uncompressed: 0x04 || x || y.  libcrypto would also take the hybrid
     * forms (0x06/0x07) of the same length; they are refused here. */
    if (len != classical[c].pub_len || (classical[c].group != NULL && pub[0] != 0x04)) return NULL;
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(libctx, classical[c].keytype, propq);
    OSSL_PARAM params[3];
    size_t n = 0;
    if (classical[c].group != NULL)
        params[n++] = OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, (char *)classical[c].group, 0);
    params[n++] = OSSL_PARAM_construct_octet_string(OSSL_PKEY_PARAM_PUB_KEY, (void *)pub, len);
    params[n] = OSSL_PARAM_construct_end();
    if (ctx == NULL || EVP_PKEY_fromdata_init(ctx) <= 0 ||
        EVP_PKEY_fromdata(ctx, &key, EVP_PKEY_PUBLIC_KEY, params) <= 0)
        key = NULL;
    EVP_PKEY_CTX_free(ctx);
    return key;
}

int kpqc_classical_derive(OSSL_LIB_CTX *libctx, const char *propq, EVP_PKEY *priv, EVP_PKEY *peer, unsigned char *out,
                          size_t len) {
    size_t got = len;
    int ok = 0;
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(libctx, priv, propq);
    if (ctx != NULL && EVP_PKEY_derive_init(ctx) > 0 && EVP_PKEY_derive_set_peer(ctx, peer) > 0 &&
        EVP_PKEY_derive(ctx, out, &got) > 0 && got == len)
        ok = 1;
    EVP_PKEY_CTX_free(ctx);
    return ok;
}

int kpqc_classical_priv_der(const EVP_PKEY *key, unsigned char **der, size_t *len) {
    unsigned char *buf = NULL;
    int n = i2d_PrivateKey(key, &buf);
    if (n <= 0) return 0;
    *der = buf;
    *len = (size_t)n;
    return 1;
}

EVP_PKEY *kpqc_classical_from_priv_der(OSSL_LIB_CTX *libctx, const char *propq, kpqc_classical c, const unsigned char *der,
                                       size_t len) {
    const unsigned char *p = der;
    EVP_PKEY *key = d2i_PrivateKey_ex(EVP_PKEY_EC, NULL, &p, (long)len, libctx, propq);
    EVP_PKEY_CTX *check = NULL;
    char group[32];
    /* The whole rest of the encoding, on the curve the algorithm names, and
     * a public point that belongs to the private scalar. */
    if (key == NULL || p != der + len ||
        !EVP_PKEY_get_utf8_string_param(key, OSSL_PKEY_PARAM_GROUP_NAME, group, sizeof group, NULL) ||
        classical[c].group == NULL || OBJ_sn2nid(group) != EC_curve_nist2nid(classical[c].group) ||
        (check = EVP_PKEY_CTX_new_from_pkey(libctx, key, propq)) == NULL || EVP_PKEY_pairwise_check(check) != 1) {
        EVP_PKEY_CTX_free(check);
        EVP_PKEY_free(key);
        return NULL;
    }
    EVP_PKEY_CTX_free(check);
    return key;
}
