/*
 * libFuzzer target: a TLS 1.3 server with every KpqC group enabled, fed
 * arbitrary client bytes (a ClientHello and whatever follows).  The server
 * must answer with an alert or carry on, never crash or leak.
 */
#include <stdlib.h>

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static SSL_CTX *server;

/* One-time state is freed at exit, so LeakSanitizer reports only real leaks. */
static void cleanup(void) {
    SSL_CTX_free(server);
    OPENSSL_cleanup();
}

static void init(void) {
    atexit(cleanup);
    OSSL_LIB_CTX *libctx = NULL; /* the default context, as applications use */
    OSSL_PROVIDER_set_default_search_path(libctx, KPQC_PROVIDER_DIR);
    if (OSSL_PROVIDER_load(libctx, "default") == NULL || OSSL_PROVIDER_load(libctx, "kpqcprovider") == NULL) {
        ERR_print_errors_fp(stderr);
        abort();
    }
    EVP_PKEY *key = EVP_PKEY_Q_keygen(libctx, NULL, "EC", "P-256");
    X509 *cert = X509_new_ex(libctx, NULL);
    X509_set_version(cert, X509_VERSION_3);
    X509_gmtime_adj(X509_getm_notBefore(cert), 0);
    X509_gmtime_adj(X509_getm_notAfter(cert), 86400);
    X509_set_pubkey(cert, key);
    X509_NAME_add_entry_by_txt(X509_get_subject_name(cert), "CN", MBSTRING_ASC, (const unsigned char *)"fuzz", -1, -1, 0);
    X509_set_issuer_name(cert, X509_get_subject_name(cert));
    X509_sign(cert, key, EVP_sha256());
    server = SSL_CTX_new_ex(libctx, NULL, TLS_server_method());
    if (server == NULL || SSL_CTX_use_certificate(server, cert) != 1 || SSL_CTX_use_PrivateKey(server, key) != 1 ||
        SSL_CTX_set1_groups_list(server, "x25519_smaugt1:smaugt1:p256_ntruplus768:x448_smaugt3:ntruplus1152:"
                                         "p521_smaugt5:timer:X25519MLKEM768:X25519") != 1)
    {
        ERR_print_errors_fp(stderr);
        abort();
    }
    X509_free(cert);
    EVP_PKEY_free(key);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (server == NULL) init();
    SSL *s = SSL_new(server);
    BIO *in = BIO_new(BIO_s_mem()), *out = BIO_new(BIO_s_mem());
    BIO_write(in, data, (int)size);
    SSL_set_bio(s, in, out);
    SSL_set_accept_state(s);
    for (int i = 0; i < 4 && SSL_do_handshake(s) != 1; i++)
        if (SSL_get_error(s, 0) != SSL_ERROR_WANT_READ) break;
    SSL_free(s);
    ERR_clear_error();
    return 0;
}
