/*
 * libFuzzer target: kpqcprovider's key decoders and signature verification
 * through OpenSSL's public APIs.  The first byte chooses what the rest is:
 *   0-3  a key for OSSL_DECODER: {DER, PEM} x {SubjectPublicKeyInfo,
 *        PrivateKeyInfo}; a key that decodes is encoded again and, for a
 *        signature key, used to sign and verify;
 *   4-   a signature checked by EVP_DigestVerify against a fixed key of one
 *        pure or composite KpqC signature (byte value selects which).
 * Every outcome must be a clean success or an OpenSSL error.
 */
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/decoder.h>
#include <openssl/encoder.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Keys for verification: those of the built families are made at start. */
static const char *sig_names[] = {"aimer128f", "p256_aimer128f", "haetae2", "p256_haetae2", "aimer192s",
                                  "p384_haetae3"};
#define NSIGS (sizeof sig_names / sizeof sig_names[0])
static EVP_PKEY *sig_keys[NSIGS];
static const unsigned char message[] = "fuzzed signatures over a fixed message";
static int ready;

static void cleanup(void) {
    for (size_t i = 0; i < NSIGS; i++) EVP_PKEY_free(sig_keys[i]);
    OPENSSL_cleanup();
}

static void init(void) {
    atexit(cleanup);
    OSSL_PROVIDER_set_default_search_path(NULL, KPQC_PROVIDER_DIR);
    if (OSSL_PROVIDER_load(NULL, "default") == NULL || OSSL_PROVIDER_load(NULL, "kpqcprovider") == NULL) {
        ERR_print_errors_fp(stderr);
        abort();
    }
    for (size_t i = 0; i < NSIGS; i++) sig_keys[i] = EVP_PKEY_Q_keygen(NULL, NULL, sig_names[i]);
    ERR_clear_error(); /* families not built in have no keys */
}

static void sign_and_verify(EVP_PKEY *key) {
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    unsigned char *sig = NULL;
    size_t len = 0;
    if (ctx != NULL && EVP_DigestSignInit_ex(ctx, NULL, NULL, NULL, NULL, key, NULL) == 1 &&
        EVP_DigestSign(ctx, NULL, &len, message, sizeof message) == 1 && (sig = OPENSSL_malloc(len)) != NULL &&
        EVP_DigestSign(ctx, sig, &len, message, sizeof message) == 1) {
        EVP_MD_CTX_reset(ctx);
        /* A key the decoder accepted must be internally consistent. */
        if (EVP_DigestVerifyInit_ex(ctx, NULL, NULL, NULL, NULL, key, NULL) != 1 ||
            EVP_DigestVerify(ctx, sig, len, message, sizeof message) != 1)
            abort();
    }
    OPENSSL_free(sig);
    EVP_MD_CTX_free(ctx);
}

static void decode_key(unsigned kind, const uint8_t *data, size_t size) {
    static const char *formats[] = {"DER", "PEM"};
    static const char *structures[] = {"SubjectPublicKeyInfo", "PrivateKeyInfo"};
    EVP_PKEY *key = NULL;
    int selection = kind & 2 ? EVP_PKEY_KEYPAIR : EVP_PKEY_PUBLIC_KEY;
    OSSL_DECODER_CTX *dctx = OSSL_DECODER_CTX_new_for_pkey(&key, formats[kind & 1], structures[kind >> 1], NULL,
                                                           selection, NULL, NULL);
    const unsigned char *p = data;
    size_t left = size;
    if (dctx != NULL && OSSL_DECODER_from_data(dctx, &p, &left) == 1 && key != NULL) {
        unsigned char *der = NULL;
        size_t der_len = 0;
        OSSL_ENCODER_CTX *ectx =
            OSSL_ENCODER_CTX_new_for_pkey(key, selection, "DER", structures[kind >> 1], NULL);
        if (ectx != NULL) OSSL_ENCODER_to_data(ectx, &der, &der_len);
        OSSL_ENCODER_CTX_free(ectx);
        OPENSSL_free(der);
        if (kind & 2) sign_and_verify(key);
    }
    EVP_PKEY_free(key);
    OSSL_DECODER_CTX_free(dctx);
}

static void verify(EVP_PKEY *key, const uint8_t *sig, size_t len) {
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    if (ctx != NULL && EVP_DigestVerifyInit_ex(ctx, NULL, NULL, NULL, NULL, key, NULL) == 1 &&
        EVP_DigestVerify(ctx, sig, len, message, sizeof message) == 1)
        abort(); /* a forgery of a fixed key from random bytes: impossible */
    EVP_MD_CTX_free(ctx);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!ready) {
        init();
        ready = 1;
    }
    if (size < 1) return 0;
    unsigned kind = data[0];
    if (kind < 4) {
        decode_key(kind, data + 1, size - 1);
    } else {
        EVP_PKEY *key = sig_keys[(kind - 4) % NSIGS];
        if (key != NULL) verify(key, data + 1, size - 1);
    }
    ERR_clear_error();
    return 0;
}
