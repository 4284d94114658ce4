/* kpqc-handshake verify: certificate path validation, what a TLS client
 * does with the server's certificates.  A root -> intermediate -> leaf
 * chain of one signature type; each sample decodes the leaf and the
 * intermediate from DER (as they arrive) and validates the path to the
 * trusted root (X509_verify_cert: both signatures of the path, names,
 * validity, basic constraints; the anchor's own signature is not checked,
 * as in TLS).  Fresh objects each time, so no verification is cached. */
#include <stdio.h>
#include <stdlib.h>

#include <openssl/x509.h>
#include <openssl/x509_vfy.h>

#include "clock.h"
#include "handshake.h"

static unsigned char *der_of(X509 *x, int *len) {
    unsigned char *der = NULL;
    *len = i2d_X509(x, &der);
    if (*len <= 0) die("cannot encode a certificate");
    return der;
}

int verify_mode(const char *sig, size_t count) {
    pki p = make_pki(sig, 1);
    int leaf_len, ca_len, root_len;
    unsigned char *leaf_der = der_of(p.leaf, &leaf_len), *ca_der = der_of(p.intermediate, &ca_len);
    OPENSSL_free(der_of(p.anchor, &root_len));
    X509_STORE *store = X509_STORE_new();
    if (store == NULL || X509_STORE_add_cert(store, p.anchor) != 1) die("cannot make the trust store");
    for (size_t n = 0; n < count + 2; n++) {
        const unsigned char *a = leaf_der, *b = ca_der;
        uint64_t t0 = bench_ns();
        X509 *leaf = d2i_X509(NULL, &a, leaf_len), *ca = d2i_X509(NULL, &b, ca_len);
        STACK_OF(X509) *untrusted = sk_X509_new_null();
        X509_STORE_CTX *ctx = X509_STORE_CTX_new();
        int ok = leaf && ca && untrusted && ctx && sk_X509_push(untrusted, ca) > 0 &&
                 X509_STORE_CTX_init(ctx, store, leaf, untrusted) == 1 && X509_verify_cert(ctx) == 1;
        uint64_t t1 = bench_ns();
        if (!ok) die("the chain did not verify");
        X509_STORE_CTX_free(ctx);
        sk_X509_pop_free(untrusted, X509_free);
        X509_free(leaf);
        if (n >= 2) /* two warm-up validations */
            printf("{\"mode\":\"verify\",\"sig\":\"%s\",\"ns\":%llu,\"chain_der\":%d,\"root_der\":%d}\n", sig,
                   (unsigned long long)(t1 - t0), leaf_len + ca_len, root_len);
    }
    OPENSSL_free(leaf_der);
    OPENSSL_free(ca_der);
    X509_STORE_free(store);
    free_pki(&p);
    return 0;
}
