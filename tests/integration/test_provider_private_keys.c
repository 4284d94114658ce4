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
#include "watched_heap.h"

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
    CHECK(heap_watch_key(key));
    if (key == NULL || !heap_watching) return;

    int before = heap_missed_wipes;
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
    heap_watch_key(NULL);
    printf("%-16s %s\n", alg, heap_missed_wipes > before ? "secret bytes left in provider blocks" : "no secret left behind");
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s PROVIDER_DIR ALG...\n", argv[0]);
        return 2;
    }
    if (!heap_install()) {
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
    printf("test_provider_private_keys: %s\n", failures || heap_missed_wipes ? "FAILED" : "all checks passed");
    return failures != 0 || heap_missed_wipes != 0;
}
