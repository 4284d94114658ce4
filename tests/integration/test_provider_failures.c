/*
 * kpqcprovider when memory runs out.  Each operation (key generation,
 * PrivateKeyInfo and SubjectPublicKeyInfo encoding and decoding, encapsulation and decapsulation or
 * signing and verification, and a whole TLS 1.3 handshake through the
 * provider) first runs once with no failure, which counts its allocations,
 * T; then once for each n = 0 .. T-1 with OpenSSL's allocator failing the
 * n-th allocation (and all after it), as BoringSSL's malloc tests do.  Each
 * of those runs must either fail, saying so, or succeed with a right result
 * (a signature that verifies, the same shared secret, the same key): never
 * report success with a wrong one.  No block the provider allocated may be
 * released with pieces of the private key in it (watched_heap.h).  Built
 * with AddressSanitizer and LeakSanitizer where the compiler has them
 * (tests/integration/CMakeLists.txt): a crash, an invalid access or a leak
 * on any failure path fails the test.  Prints, per operation, the
 * failure points exercised.  (RNG failures are covered at the library
 * level by test_api: every randomised call returns KPQC_ERR_RNG and wipes
 * what it drew; the provider turns that status into its "random number
 * generator failed" error.)
 *
 *   test_provider_failures PROVIDER_DIR [--handshake GROUP SIG] ALG...
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
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include "check.h"
#include "watched_heap.h"

enum { FAILED, RIGHT, WRONG }; /* what one run of an operation did */

typedef struct {
    OSSL_LIB_CTX *libctx;
    OSSL_PROVIDER *def, *kpqc;
    const char *alg;
    EVP_PKEY *key;                   /* made with no failure */
    unsigned char *der, *spki;       /* its PrivateKeyInfo and SubjectPublicKeyInfo */
    unsigned char *out, *secret;     /* a signature or ciphertext; the secret */
    size_t der_len, spki_len, out_len, secret_len;
    SSL_CTX *server, *client;        /* the handshake's */
    const char *group;
} fixture;

typedef int (*operation)(fixture *f);

static unsigned long operation_end; /* the serial of the operation's last allocation, before its check */

/* The operation proper is over: what follows checks its result, and no allocation fails there. */
static void finished(void) {
    operation_end = heap_serial;
    heap_fail_after(-1);
}

static const unsigned char msg[] = "allocation failures";

/* ------------------------------------------------------- operations */

/* DER of key: its PrivateKeyInfo (private) or SubjectPublicKeyInfo. */
static int encode_to(EVP_PKEY *key, int private, unsigned char **der, size_t *len) {
    OSSL_ENCODER_CTX *ctx = OSSL_ENCODER_CTX_new_for_pkey(key, private ? EVP_PKEY_KEYPAIR : EVP_PKEY_PUBLIC_KEY, "DER",
                                                          private ? "PrivateKeyInfo" : "SubjectPublicKeyInfo", NULL);
    int ok = ctx != NULL && OSSL_ENCODER_to_data(ctx, der, len) == 1;
    OSSL_ENCODER_CTX_free(ctx);
    return ok;
}

/* A new key is right when it has a private key to encode. */
static int keygen(fixture *f) {
    EVP_PKEY *key = EVP_PKEY_Q_keygen(f->libctx, NULL, f->alg);
    unsigned char *der = NULL;
    size_t len = 0;
    finished();
    int r = key == NULL ? FAILED : encode_to(key, 1, &der, &len) && len > 0 ? RIGHT : WRONG;
    OPENSSL_clear_free(der, len);
    EVP_PKEY_free(key);
    return r;
}

/* Encoding is right when it writes the bytes the clean run wrote. */
static int encode_either(fixture *f, int private) {
    unsigned char *der = NULL;
    size_t len = 0;
    int ok = encode_to(f->key, private, &der, &len);
    finished();
    size_t want_len = private ? f->der_len : f->spki_len;
    const unsigned char *want = private ? f->der : f->spki;
    int r = !ok ? FAILED : len == want_len && memcmp(der, want, len) == 0 ? RIGHT : WRONG;
    OPENSSL_clear_free(der, len);
    return r;
}

/* Decoding is right when it gives the key back (its public half, for SPKI). */
static int decode_either(fixture *f, int private) {
    EVP_PKEY *key = NULL;
    const unsigned char *p = private ? f->der : f->spki;
    size_t left = private ? f->der_len : f->spki_len;
    OSSL_DECODER_CTX *ctx = OSSL_DECODER_CTX_new_for_pkey(&key, "DER", private ? "PrivateKeyInfo" : "SubjectPublicKeyInfo",
                                                          f->alg, private ? EVP_PKEY_KEYPAIR : EVP_PKEY_PUBLIC_KEY,
                                                          f->libctx, NULL);
    int ok = ctx != NULL && OSSL_DECODER_from_data(ctx, &p, &left) == 1 && key != NULL;
    finished();
    int r = !ok ? FAILED : EVP_PKEY_eq(key, f->key) == 1 ? RIGHT : WRONG;
    OSSL_DECODER_CTX_free(ctx);
    EVP_PKEY_free(key);
    return r;
}

static int encode(fixture *f) { return encode_either(f, 1); }
static int decode(fixture *f) { return decode_either(f, 1); }
static int encode_public(fixture *f) { return encode_either(f, 0); }
static int decode_public(fixture *f) { return decode_either(f, 0); }

/* The KEM or signature call itself; 1 when it reported success. */
static int encapsulate_into(fixture *f, unsigned char *ct, size_t *ct_len, unsigned char *ss, size_t *ss_len) {
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(f->libctx, f->key, NULL);
    int ok = ctx != NULL && EVP_PKEY_encapsulate_init(ctx, NULL) == 1 &&
             EVP_PKEY_encapsulate(ctx, ct, ct_len, ss, ss_len) == 1;
    EVP_PKEY_CTX_free(ctx);
    return ok;
}

static int decapsulate_into(fixture *f, const unsigned char *ct, size_t ct_len, unsigned char *ss, size_t *ss_len) {
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(f->libctx, f->key, NULL);
    int ok = ctx != NULL && EVP_PKEY_decapsulate_init(ctx, NULL) == 1 &&
             EVP_PKEY_decapsulate(ctx, ss, ss_len, ct, ct_len) == 1;
    EVP_PKEY_CTX_free(ctx);
    return ok;
}

static int sign_into(fixture *f, unsigned char *sig, size_t *sig_len) {
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    int ok = md != NULL && EVP_DigestSignInit_ex(md, NULL, NULL, f->libctx, NULL, f->key, NULL) == 1 &&
             EVP_DigestSign(md, sig, sig_len, msg, sizeof msg) == 1;
    EVP_MD_CTX_free(md);
    return ok;
}

static int verifies(fixture *f, const unsigned char *sig, size_t sig_len) {
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    int ok = md != NULL && EVP_DigestVerifyInit_ex(md, NULL, NULL, f->libctx, NULL, f->key, NULL) == 1 &&
             EVP_DigestVerify(md, sig, sig_len, msg, sizeof msg) == 1;
    EVP_MD_CTX_free(md);
    return ok;
}

static int encapsulate(fixture *f) {
    unsigned char ct[8192], ss[128], ss2[128];
    size_t ct_len = sizeof ct, ss_len = sizeof ss, ss2_len = sizeof ss2;
    int ok = encapsulate_into(f, ct, &ct_len, ss, &ss_len);
    finished();
    int r = !ok ? FAILED
            : decapsulate_into(f, ct, ct_len, ss2, &ss2_len) && ss2_len == ss_len && memcmp(ss, ss2, ss_len) == 0
                ? RIGHT
                : WRONG;
    OPENSSL_cleanse(ss, sizeof ss);
    OPENSSL_cleanse(ss2, sizeof ss2);
    return r;
}

static int decapsulate(fixture *f) {
    unsigned char ss[128];
    size_t ss_len = sizeof ss;
    int ok = decapsulate_into(f, f->out, f->out_len, ss, &ss_len);
    finished();
    int r = !ok ? FAILED : ss_len == f->secret_len && memcmp(ss, f->secret, ss_len) == 0 ? RIGHT : WRONG;
    OPENSSL_cleanse(ss, sizeof ss);
    return r;
}

static int sign(fixture *f) {
    unsigned char sig[65536];
    size_t sig_len = sizeof sig;
    int ok = sign_into(f, sig, &sig_len);
    finished();
    if (ok && sig_len > sizeof sig) {
        fprintf(stderr, "%s signing reported %zu bytes for a buffer of %zu\n", f->alg, sig_len, sizeof sig);
        return WRONG;
    }
    return !ok ? FAILED : verifies(f, sig, sig_len) ? RIGHT : WRONG;
}

static int verify(fixture *f) {
    int ok = verifies(f, f->out, f->out_len);
    finished();
    return ok ? RIGHT : FAILED;
}

/* A whole TLS 1.3 handshake in memory, the server's certificate and the
 * key exchange the provider's. */
static int handshake(fixture *f) {
    SSL *server = SSL_new(f->server), *client = SSL_new(f->client);
    BIO *sb = NULL, *cb = NULL;
    int done = 0;
    if (server != NULL && client != NULL && BIO_new_bio_pair(&sb, 0, &cb, 0) == 1) {
        SSL_set_bio(server, sb, sb);
        SSL_set_bio(client, cb, cb);
        SSL_set_accept_state(server);
        SSL_set_connect_state(client);
        for (int round = 0; round < 32 && !done; round++) {
            int c = SSL_do_handshake(client), s = SSL_do_handshake(server);
            done = c == 1 && s == 1;
            int ce = c == 1 ? SSL_ERROR_NONE : SSL_get_error(client, c);
            int se = s == 1 ? SSL_ERROR_NONE : SSL_get_error(server, s);
            if (!done && ((ce != SSL_ERROR_NONE && ce != SSL_ERROR_WANT_READ && ce != SSL_ERROR_WANT_WRITE) ||
                          (se != SSL_ERROR_NONE && se != SSL_ERROR_WANT_READ && se != SSL_ERROR_WANT_WRITE)))
                break;
        }
    }
    finished();
    const char *group = done ? SSL_group_to_name(client, SSL_get_negotiated_group(client)) : NULL;
    int r = !done ? FAILED : group != NULL && strcmp(group, f->group) == 0 ? RIGHT : WRONG;
    SSL_free(server);
    SSL_free(client);
    return r;
}

/* ----------------------------------------------------------- the sweep */

/*
 * One clean run counts the operation's allocations, T; then a run with the
 * n-th failing for every n < T.  The failure points exercised (T) are
 * printed; a run that reports success with a wrong result fails the test.
 */
static void sweep(fixture *f, const char *name, operation op) {
    unsigned long before = heap_serial;
    heap_fail_after(-1);
    CHECK(op(f) == RIGHT);
    long total = (long)(operation_end - before), failed = 0, right = 0;
    for (long n = 0; n < total; n++) {
        heap_fail_after(n);
        int r = op(f);
        heap_fail_after(-1);
        ERR_clear_error();
        if (r == WRONG) fprintf(stderr, "%s %s: success with a wrong result when allocation %ld failed\n", name, f->alg, n);
        CHECK(r != WRONG);
        if (r == FAILED) failed++;
        else right++;
    }
    printf("%-12s %-16s %5ld failure points: %5ld runs failed cleanly, %4ld succeeded without the allocation\n", name,
           f->alg, total, failed, right);
}

/* A library context with the default provider and kpqcprovider; the
 * providers are unloaded before the context is freed (a loaded provider
 * holds a reference the context's free does not drop). */
typedef struct {
    OSSL_LIB_CTX *libctx;
    OSSL_PROVIDER *def, *kpqc;
} loaded;

static loaded load(const char *dir) {
    loaded l = {OSSL_LIB_CTX_new(), NULL, NULL};
    if (l.libctx == NULL) return l;
    OSSL_PROVIDER_set_default_search_path(l.libctx, dir);
    l.def = OSSL_PROVIDER_load(l.libctx, "default");
    l.kpqc = OSSL_PROVIDER_load(l.libctx, "kpqcprovider");
    return l;
}

static void unload(loaded *l) {
    OSSL_PROVIDER_unload(l->kpqc);
    OSSL_PROVIDER_unload(l->def);
    OSSL_LIB_CTX_free(l->libctx);
}

static int is_signature(OSSL_LIB_CTX *libctx, const char *alg) {
    EVP_SIGNATURE *s = EVP_SIGNATURE_fetch(libctx, alg, NULL);
    EVP_SIGNATURE_free(s);
    ERR_clear_error();
    return s != NULL;
}

/* The key, its encoding and an output of it, made with no failure; pieces
 * of its secret key watched for in released provider blocks. */
static int prepare(fixture *f) {
    if ((f->key = EVP_PKEY_Q_keygen(f->libctx, NULL, f->alg)) == NULL || !encode_to(f->key, 1, &f->der, &f->der_len) ||
        !encode_to(f->key, 0, &f->spki, &f->spki_len))
        return 0;
    if (!heap_watch_key(f->key)) return 0;
    if (is_signature(f->libctx, f->alg)) {
        f->out_len = 65536;
        return (f->out = OPENSSL_malloc(f->out_len)) != NULL && sign_into(f, f->out, &f->out_len);
    }
    f->out_len = 8192, f->secret_len = 128;
    return (f->out = OPENSSL_malloc(f->out_len)) != NULL && (f->secret = OPENSSL_malloc(f->secret_len)) != NULL &&
           encapsulate_into(f, f->out, &f->out_len, f->secret, &f->secret_len);
}

static void release(fixture *f) {
    heap_watch_key(NULL); /* the test's own copies are not the provider's to wipe */
    EVP_PKEY_free(f->key);
    OPENSSL_clear_free(f->der, f->der_len);
    OPENSSL_free(f->spki);
    OPENSSL_free(f->out);
    OPENSSL_clear_free(f->secret, f->secret_len);
    SSL_CTX_free(f->server);
    SSL_CTX_free(f->client);
    loaded l = {f->libctx, f->def, f->kpqc};
    unload(&l);
}

static X509 *self_signed(OSSL_LIB_CTX *libctx, EVP_PKEY *key) {
    X509 *x = X509_new_ex(libctx, NULL);
    X509_NAME *name = x != NULL ? X509_get_subject_name(x) : NULL;
    if (name == NULL || !X509_set_version(x, X509_VERSION_3) || !ASN1_INTEGER_set(X509_get_serialNumber(x), 1) ||
        X509_gmtime_adj(X509_getm_notBefore(x), 0) == NULL || X509_gmtime_adj(X509_getm_notAfter(x), 3600) == NULL ||
        !X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)"localhost", -1, -1, 0) ||
        !X509_set_issuer_name(x, name) || !X509_set_pubkey(x, key) || X509_sign(x, key, NULL) <= 0) {
        X509_free(x);
        return NULL;
    }
    return x;
}

/* Server and client contexts: the group, a certificate of sig, TLS 1.3 only, no tickets. */
static int prepare_tls(fixture *f, const char *sig) {
    EVP_PKEY *key = EVP_PKEY_Q_keygen(f->libctx, NULL, sig);
    X509 *cert = key != NULL ? self_signed(f->libctx, key) : NULL;
    f->server = SSL_CTX_new_ex(f->libctx, NULL, TLS_server_method());
    f->client = SSL_CTX_new_ex(f->libctx, NULL, TLS_client_method());
    int ok = cert != NULL && f->server != NULL && f->client != NULL && SSL_CTX_use_certificate(f->server, cert) == 1 &&
             SSL_CTX_use_PrivateKey(f->server, key) == 1 &&
             X509_STORE_add_cert(SSL_CTX_get_cert_store(f->client), cert) == 1;
    SSL_CTX *both[2] = {f->server, f->client};
    for (int i = 0; ok && i < 2; i++)
        ok = SSL_CTX_set_min_proto_version(both[i], TLS1_3_VERSION) == 1 &&
             SSL_CTX_set1_groups_list(both[i], f->group) == 1 &&
             (SSL_CTX_set_options(both[i], SSL_OP_NO_TICKET) & SSL_OP_NO_TICKET) != 0;
    if (ok) {
        SSL_CTX_set_verify(f->client, SSL_VERIFY_PEER, NULL);
        SSL_CTX_set_num_tickets(f->server, 0);
        SSL_CTX_set_session_cache_mode(f->server, SSL_SESS_CACHE_OFF);
        SSL_CTX_set_session_cache_mode(f->client, SSL_SESS_CACHE_OFF);
    }
    X509_free(cert);
    EVP_PKEY_free(key);
    return ok;
}

/* The operations of one algorithm (or the handshake, alg NULL) in a library
 * context of their own. */
static void exercise(const char *dir, const char *alg, const char *group, const char *sig) {
    fixture f = {0};
    f.alg = alg != NULL ? alg : sig, f.group = group;
    loaded l = load(dir);
    f.libctx = l.libctx, f.def = l.def, f.kpqc = l.kpqc;
    CHECK(l.def != NULL && l.kpqc != NULL);
    if (l.kpqc == NULL) {
        unload(&l);
        return;
    }
    if (alg == NULL) {
        CHECK(prepare_tls(&f, sig));
        if (f.server != NULL && f.client != NULL) sweep(&f, "handshake", handshake);
    } else {
        CHECK(prepare(&f));
        sweep(&f, "keygen", keygen);
        sweep(&f, "encode", encode);
        sweep(&f, "decode", decode);
        sweep(&f, "encode SPKI", encode_public);
        sweep(&f, "decode SPKI", decode_public);
        if (f.secret != NULL) {
            sweep(&f, "encapsulate", encapsulate);
            sweep(&f, "decapsulate", decapsulate);
        } else {
            sweep(&f, "sign", sign);
            sweep(&f, "verify", verify);
        }
    }
    release(&f);
    ERR_clear_error();
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: test_provider_failures PROVIDER_DIR [--handshake GROUP SIG] ALG...\n");
        return 2;
    }
    if (!heap_install()) {
        fprintf(stderr, "cannot install the allocator\n");
        return 1;
    }
    /* libcrypto's global state (error strings, the object table with the
     * provider's OIDs, per-thread state) is made once, before any count. */
    const char *dir = argv[1];
    loaded warm = load(dir);
    unload(&warm);
    OPENSSL_init_ssl(0, NULL);
    ERR_clear_error();
    int i = 2;
    if (strcmp(argv[i], "--handshake") == 0 && i + 2 < argc) {
        exercise(dir, NULL, argv[i + 1], argv[i + 2]); /* first, while libssl's own start-up is counted as warm-up */
        i += 3;
    }
    for (; i < argc; i++) exercise(dir, argv[i], NULL, NULL);
    printf("missed wipes: %d\n", heap_missed_wipes);
    CHECK(heap_missed_wipes == 0);
    printf("test_provider_failures: %s\n", failures ? "FAILED" : "all checks passed");
    return failures != 0;
}
