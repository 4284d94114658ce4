/*
 * Private keys through the provider's encoders and decoders.  Encoded with a
 * cipher through OSSL_ENCODER in DER (a path the openssl CLI does not take)
 * they are PKCS#8 EncryptedPrivateKeyInfo, decode to the same key with the
 * passphrase and not with another one.  And no heap block the provider
 * allocates is freed (or moved by realloc) while still holding secret-key
 * bytes.  libcrypto's allocator is replaced by one
 * that remembers where each block was allocated; when a block from
 * provider/ is released, it is searched for pieces of the secret key the
 * test just generated.  The key is encoded (PrivateKeyInfo, clear and
 * encrypted) and decoded back, whole and truncated (the failure path), so
 * that the decoders' growing input buffer and every encoding buffer pass.
 *
 *   test_provider_private_keys PROVIDER_DIR ALG...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/decoder.h>
#include <openssl/encoder.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>
#include <openssl/x509.h>

#include "check.h"

/* ------------------------------------------------ the watching allocator */

typedef struct {
    size_t size;
    const char *file;
    int line;
    long pad; /* keeps the payload 32-byte aligned */
} header;

#define NEEDLE 16
static unsigned char needles[2][NEEDLE];
static int watching, leftovers;

static int holds_secret(const unsigned char *p, size_t n) {
    for (size_t k = 0; k < 2; k++)
        for (size_t i = 0; i + NEEDLE <= n; i++)
            if (p[i] == needles[k][0] && memcmp(p + i, needles[k], NEEDLE) == 0) return 1;
    return 0;
}

/* A provider block released while it still holds the key is a missed wipe. */
static void check_release(header *h, const char *how) {
    if (watching && h->file != NULL && strstr(h->file, "provider/prov_") != NULL &&
        holds_secret((unsigned char *)(h + 1), h->size)) {
        fprintf(stderr, "secret key bytes left in a block of %zu bytes from %s:%d (%s)\n", h->size, h->file,
                h->line, how);
        leftovers++;
    }
}

static void *watch_malloc(size_t n, const char *file, int line) {
    /* Zeroed, so that only what is written into a block can be found in it. */
    header *h = calloc(1, sizeof *h + (n ? n : 1));
    if (h == NULL) return NULL;
    h->size = n, h->file = file, h->line = line;
    return h + 1;
}

static void watch_free(void *p, const char *file, int line) {
    (void)file, (void)line;
    if (p == NULL) return;
    header *h = (header *)p - 1;
    check_release(h, "freed");
    free(h);
}

static void *watch_realloc(void *p, size_t n, const char *file, int line) {
    if (p == NULL) return watch_malloc(n, file, line);
    header *old = (header *)p - 1;
    void *q = watch_malloc(n, old->file, old->line);
    if (q == NULL) return NULL;
    memcpy(q, p, old->size < n ? old->size : n);
    check_release(old, "moved by realloc");
    free(old);
    return q;
}

/* ------------------------------------------------------------- the test */

static OSSL_LIB_CTX *libctx;
#define PASS "correct horse"

static int encode(EVP_PKEY *key, const char *cipher, unsigned char **der, size_t *len) {
    OSSL_ENCODER_CTX *ctx = OSSL_ENCODER_CTX_new_for_pkey(key, EVP_PKEY_KEYPAIR, "DER", "PrivateKeyInfo", NULL);
    int ok = ctx != NULL && (cipher == NULL || (OSSL_ENCODER_CTX_set_cipher(ctx, cipher, NULL) &&
                                                OSSL_ENCODER_CTX_set_passphrase(ctx, (const unsigned char *)PASS, strlen(PASS)))) &&
             OSSL_ENCODER_to_data(ctx, der, len);
    OSSL_ENCODER_CTX_free(ctx);
    return ok;
}

static EVP_PKEY *decode(const char *alg, const unsigned char *der, size_t len, const char *pass) {
    EVP_PKEY *key = NULL;
    OSSL_DECODER_CTX *ctx = OSSL_DECODER_CTX_new_for_pkey(&key, "DER", NULL, alg, EVP_PKEY_KEYPAIR, libctx, NULL);
    if (ctx == NULL || !OSSL_DECODER_CTX_set_passphrase(ctx, (const unsigned char *)pass, strlen(pass)) ||
        !OSSL_DECODER_from_data(ctx, &der, &len)) {
        EVP_PKEY_free(key);
        key = NULL;
    }
    OSSL_DECODER_CTX_free(ctx);
    return key;
}

static void check_alg(const char *alg) {
    EVP_PKEY *key = EVP_PKEY_Q_keygen(libctx, NULL, alg);
    OSSL_PARAM *params = NULL;
    const OSSL_PARAM *priv = NULL;
    const void *raw = NULL;
    size_t raw_len = 0;
    CHECK(key != NULL && EVP_PKEY_todata(key, EVP_PKEY_KEYPAIR, &params) == 1 &&
          (priv = OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_PRIV_KEY)) != NULL &&
          OSSL_PARAM_get_octet_string_ptr(priv, &raw, &raw_len) && raw_len >= 2 * NEEDLE);
    /* Two pieces of the private encoding (KpqC secret key || public key
     * ...) that are not in the public key: secret bytes. */
    unsigned char *pub = NULL;
    size_t pub_len = key != NULL ? EVP_PKEY_get1_encoded_public_key(key, &pub) : 0, found = 0;
    for (size_t off = 0; found < 2 && off + NEEDLE <= raw_len; off += NEEDLE / 2) {
        const unsigned char *w = (const unsigned char *)raw + off;
        int in_pub = 0;
        for (size_t i = 0; !in_pub && i + NEEDLE <= pub_len; i++) in_pub = memcmp(pub + i, w, NEEDLE) == 0;
        if (!in_pub) memcpy(needles[found++], w, NEEDLE);
    }
    OPENSSL_free(pub);
    OSSL_PARAM_free(params);
    CHECK(found == 2);
    if (key == NULL || found < 2) return;

    int before = leftovers;
    watching = 1;
    for (int encrypted = 0; encrypted < 2; encrypted++) {
        unsigned char *der = NULL;
        size_t len = 0;
        CHECK(encode(key, encrypted ? "AES-128-CBC" : NULL, &der, &len));
        EVP_PKEY *back = der != NULL ? decode(alg, der, len, PASS) : NULL;
        CHECK(back != NULL && EVP_PKEY_eq(key, back) == 1);
        EVP_PKEY_free(back);
        if (der != NULL && !encrypted) {
            CHECK(decode(alg, der, len - 1, PASS) == NULL); /* truncated: the decoder's failure path */
            ERR_clear_error();
        }
        if (der != NULL && encrypted) {
            /* EncryptedPrivateKeyInfo, the whole of it, and only for the passphrase. */
            const unsigned char *p = der;
            X509_SIG *enc = d2i_X509_SIG(NULL, &p, (long)len);
            CHECK(enc != NULL && p == der + len);
            X509_SIG_free(enc);
            CHECK(decode(alg, der, len, "wrong horse") == NULL);
            ERR_clear_error();
        }
        OPENSSL_clear_free(der, len);
    }
    EVP_PKEY_free(key);
    watching = 0;
    printf("%-16s %s\n", alg, leftovers > before ? "secret bytes left in provider blocks" : "no secret left behind");
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s PROVIDER_DIR ALG...\n", argv[0]);
        return 2;
    }
    if (!CRYPTO_set_mem_functions(watch_malloc, watch_realloc, watch_free)) {
        fprintf(stderr, "cannot replace libcrypto's allocator\n");
        return 1;
    }
    libctx = OSSL_LIB_CTX_new();
    OSSL_PROVIDER_set_default_search_path(libctx, argv[1]);
    OSSL_PROVIDER *def = OSSL_PROVIDER_load(libctx, "default");
    OSSL_PROVIDER *kpqc = OSSL_PROVIDER_load(libctx, "kpqcprovider");
    CHECK(def != NULL && kpqc != NULL);
    if (kpqc == NULL) return 1;
    for (int i = 2; i < argc; i++) check_alg(argv[i]);
    OSSL_PROVIDER_unload(kpqc);
    OSSL_PROVIDER_unload(def);
    OSSL_LIB_CTX_free(libctx);
    printf("test_provider_private_keys: %s\n", failures || leftovers ? "FAILED" : "all checks passed");
    return failures != 0 || leftovers != 0;
}
