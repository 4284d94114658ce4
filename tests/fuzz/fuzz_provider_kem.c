/*
 * libFuzzer target: kpqcprovider's key-share and ciphertext parsing through
 * EVP, as libssl drives it.  Input: a group selector byte, then bytes used
 * as the peer's encoded public key (encapsulation) and as a ciphertext for
 * a fixed private key (decapsulation).  Every outcome must be a clean
 * success or an OpenSSL error.
 */
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *groups[] = {"smaugt1", "smaugt5", "timer", "ntruplus768", "ntruplus1152", "x25519_smaugt1",
                               "p256_smaugt1", "x448_smaugt3", "p384_ntruplus864", "p521_ntruplus1152",
                               "x25519_ntruplus768"};
#define NGROUPS (sizeof groups / sizeof groups[0])
static OSSL_LIB_CTX *libctx; /* NULL: the default context */
static int ready;
static EVP_PKEY *keys[NGROUPS];

static void cleanup(void) {
    for (size_t i = 0; i < NGROUPS; i++) EVP_PKEY_free(keys[i]);
    OPENSSL_cleanup();
}

static void init(void) {
    atexit(cleanup);
    OSSL_PROVIDER_set_default_search_path(libctx, KPQC_PROVIDER_DIR);
    if (OSSL_PROVIDER_load(libctx, "default") == NULL || OSSL_PROVIDER_load(libctx, "kpqcprovider") == NULL) {
        ERR_print_errors_fp(stderr);
        abort();
    }
    for (size_t i = 0; i < NGROUPS; i++) {
        EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(libctx, groups[i], NULL);
        if (ctx == NULL || EVP_PKEY_keygen_init(ctx) <= 0 || EVP_PKEY_keygen(ctx, &keys[i]) <= 0) {
        ERR_print_errors_fp(stderr);
        abort();
    }
        EVP_PKEY_CTX_free(ctx);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!ready) {
        init();
        ready = 1;
    }
    if (size < 1) return 0;
    size_t g = data[0] % NGROUPS;
    data++, size--;

    /* The peer's key share, set on a parameters-only key as libssl does. */
    EVP_PKEY *peer = NULL;
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(libctx, groups[g], NULL);
    if (ctx != NULL && EVP_PKEY_paramgen_init(ctx) > 0 && EVP_PKEY_paramgen(ctx, &peer) > 0 &&
        EVP_PKEY_set1_encoded_public_key(peer, data, size) > 0) {
        EVP_PKEY_CTX *enc = EVP_PKEY_CTX_new_from_pkey(libctx, peer, NULL);
        size_t ctlen = 0, sslen = 0;
        if (enc != NULL && EVP_PKEY_encapsulate_init(enc, NULL) > 0 &&
            EVP_PKEY_encapsulate(enc, NULL, &ctlen, NULL, &sslen) > 0 && ctlen < 65536 && sslen < 1024) {
            unsigned char *ct = malloc(ctlen), *ss = malloc(sslen);
            EVP_PKEY_encapsulate(enc, ct, &ctlen, ss, &sslen);
            free(ct);
            free(ss);
        }
        EVP_PKEY_CTX_free(enc);
    }
    EVP_PKEY_free(peer);
    EVP_PKEY_CTX_free(ctx);

    /* The same bytes as a ciphertext for our private key. */
    EVP_PKEY_CTX *dec = EVP_PKEY_CTX_new_from_pkey(libctx, keys[g], NULL);
    unsigned char ss[256];
    size_t sslen = sizeof ss;
    if (dec != NULL && EVP_PKEY_decapsulate_init(dec, NULL) > 0)
        EVP_PKEY_decapsulate(dec, ss, &sslen, data, size);
    EVP_PKEY_CTX_free(dec);
    ERR_clear_error();
    return 0;
}
