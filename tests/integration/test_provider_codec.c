/*
 * Private keys encoded with a cipher through OSSL_ENCODER in DER (the path
 * the openssl CLI does not take for DER): the output is PKCS#8
 * EncryptedPrivateKeyInfo, decodes to the same key with the passphrase and
 * not with another one.  Every algorithm named on the command line.
 *
 *   test_provider_codec PROVIDER_DIR ALG...
 */
#include <stdio.h>
#include <string.h>

#include <openssl/decoder.h>
#include <openssl/encoder.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>
#include <openssl/x509.h>

static int failures;
#define CHECK(c)                                                           \
    do {                                                                   \
        if (!(c)) {                                                        \
            fprintf(stderr, "%s:%d: %s failed\n", __FILE__, __LINE__, #c); \
            ERR_print_errors_fp(stderr);                                   \
            failures++;                                                    \
        }                                                                  \
    } while (0)

static OSSL_LIB_CTX *libctx;
static const char passphrase[] = "correct horse";

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

static void check_encrypted_der(const char *alg) {
    EVP_PKEY *key = EVP_PKEY_Q_keygen(libctx, NULL, alg);
    CHECK(key != NULL);
    if (key == NULL) return;
    unsigned char *der = NULL;
    size_t len = 0;
    OSSL_ENCODER_CTX *ctx =
        OSSL_ENCODER_CTX_new_for_pkey(key, EVP_PKEY_KEYPAIR, "DER", "PrivateKeyInfo", NULL);
    CHECK(ctx != NULL && OSSL_ENCODER_CTX_get_num_encoders(ctx) > 0);
    CHECK(OSSL_ENCODER_CTX_set_cipher(ctx, "AES-256-CBC", NULL) &&
          OSSL_ENCODER_CTX_set_passphrase(ctx, (const unsigned char *)passphrase, strlen(passphrase)));
    CHECK(OSSL_ENCODER_to_data(ctx, &der, &len));
    OSSL_ENCODER_CTX_free(ctx);
    if (der != NULL) {
        /* EncryptedPrivateKeyInfo, the whole of it. */
        const unsigned char *p = der;
        X509_SIG *enc = d2i_X509_SIG(NULL, &p, (long)len);
        CHECK(enc != NULL && p == der + len);
        X509_SIG_free(enc);
        EVP_PKEY *back = decode(alg, der, len, passphrase);
        CHECK(back != NULL && EVP_PKEY_eq(key, back) == 1);
        EVP_PKEY_free(back);
        EVP_PKEY *wrong = decode(alg, der, len, "wrong horse");
        CHECK(wrong == NULL);
        EVP_PKEY_free(wrong);
        ERR_clear_error();
    }
    printf("%-16s encrypted PrivateKeyInfo %5zu bytes\n", alg, len);
    OPENSSL_free(der);
    EVP_PKEY_free(key);
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s PROVIDER_DIR ALG...\n", argv[0]);
        return 2;
    }
    libctx = OSSL_LIB_CTX_new();
    OSSL_PROVIDER_set_default_search_path(libctx, argv[1]);
    OSSL_PROVIDER *def = OSSL_PROVIDER_load(libctx, "default");
    OSSL_PROVIDER *kpqc = OSSL_PROVIDER_load(libctx, "kpqcprovider");
    CHECK(def != NULL && kpqc != NULL);
    if (kpqc == NULL) return 1;
    for (int i = 2; i < argc; i++) check_encrypted_der(argv[i]);
    OSSL_PROVIDER_unload(kpqc);
    OSSL_PROVIDER_unload(def);
    OSSL_LIB_CTX_free(libctx);
    printf("test_provider_codec: %s\n", failures ? "FAILED" : "all checks passed");
    return failures != 0;
}
