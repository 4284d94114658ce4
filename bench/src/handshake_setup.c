/* kpqc-handshake's certificate set-up: keys and certificates of any type
 * (self-signed, or a root -> intermediate -> leaf chain), written to and
 * read from files for two machines, and the client and server TLS (or
 * QUIC) contexts that present and trust them. */
#include <stdio.h>
#include <string.h>

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "handshake.h"
#include "handshake_quic.h"

static EVP_PKEY *make_key(const char *spec) {
    const char *colon = strchr(spec, ':');
    if (colon != NULL) {
        char type[32];
        snprintf(type, sizeof type, "%.*s", (int)(colon - spec), spec);
        return EVP_PKEY_Q_keygen(NULL, NULL, type, colon + 1);
    }
    EVP_PKEY *key = NULL;
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, spec, NULL);
    if (ctx != NULL && EVP_PKEY_keygen_init(ctx) > 0) EVP_PKEY_keygen(ctx, &key);
    EVP_PKEY_CTX_free(ctx);
    return key;
}

/* A certificate for `key` issued by `issuer` with `issuer_key`, or
 * self-signed when issuer is NULL; a CA's says so in basicConstraints. */
static X509 *make_cert(EVP_PKEY *key, const char *cn, X509 *issuer, EVP_PKEY *issuer_key, int ca) {
    static long serial;
    X509 *x = X509_new();
    X509_set_version(x, X509_VERSION_3);
    ASN1_INTEGER_set(X509_get_serialNumber(x), ++serial);
    X509_gmtime_adj(X509_getm_notBefore(x), -3600);
    X509_gmtime_adj(X509_getm_notAfter(x), 86400);
    X509_set_pubkey(x, key);
    /* A certificate's names are read-only from OpenSSL 4.0 on: build the
     * subject, then set copies of it. */
    X509_NAME *name = X509_NAME_new();
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)cn, -1, -1, 0);
    X509_set_subject_name(x, name);
    X509_set_issuer_name(x, issuer ? X509_get_subject_name(issuer) : name);
    X509_NAME_free(name);
    if (issuer == NULL) issuer_key = key;
    int ok = 1;
    if (ca) {
        X509V3_CTX v3;
        X509V3_set_ctx(&v3, issuer ? issuer : x, x, NULL, NULL, 0);
        X509_EXTENSION *ext = X509V3_EXT_conf_nid(NULL, &v3, NID_basic_constraints, "critical,CA:TRUE");
        ok = ext != NULL && X509_add_ext(x, ext, -1) == 1;
        X509_EXTENSION_free(ext);
    }
    if (!ok || X509_sign(x, issuer_key, EVP_PKEY_is_a(issuer_key, "EC") ? EVP_sha256() : NULL) <= 0) {
        X509_free(x);
        return NULL;
    }
    return x;
}

pki make_pki(const char *sig, int chain) {
    pki p = {make_key(sig), NULL, NULL, NULL};
    if (p.key == NULL) die("cannot make a key of that type");
    if (!chain) {
        p.leaf = p.anchor = make_cert(p.key, "localhost", NULL, NULL, 0);
        if (p.leaf == NULL) die("cannot sign a certificate");
        X509_up_ref(p.anchor);
        return p;
    }
    EVP_PKEY *root_key = make_key(sig), *ca_key = make_key(sig);
    if (root_key == NULL || ca_key == NULL) die("cannot make a key of that type");
    p.anchor = make_cert(root_key, "kpqc-bench root CA", NULL, NULL, 1);
    p.intermediate = p.anchor ? make_cert(ca_key, "kpqc-bench intermediate CA", p.anchor, root_key, 1) : NULL;
    p.leaf = p.intermediate ? make_cert(p.key, "localhost", p.intermediate, ca_key, 0) : NULL;
    if (p.leaf == NULL) die("cannot sign a certificate");
    EVP_PKEY_free(root_key);
    EVP_PKEY_free(ca_key);
    return p;
}

void free_pki(pki *p) {
    X509_free(p->leaf);
    X509_free(p->intermediate);
    X509_free(p->anchor);
    EVP_PKEY_free(p->key);
}

/* The same certificates in files of DIR, so that two machines share them:
 * the leaf's key, the leaf, the intermediate (with a chain only) and the
 * trust anchor (the root, or the self-signed leaf).  A client that does
 * not authenticate itself needs only the anchor. */
static FILE *pki_file(const char *dir, const char *name, const char *how) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return fopen(path, how);
}

void save_pki(const pki *p, const char *dir) {
    FILE *f = pki_file(dir, "key.pem", "w");
    int ok = f != NULL && PEM_write_PrivateKey(f, p->key, NULL, NULL, 0, NULL, NULL) == 1;
    if (f != NULL) ok &= fclose(f) == 0;
    X509 *certs[3] = {p->leaf, p->intermediate, p->anchor};
    const char *names[3] = {"leaf.pem", "intermediate.pem", "anchor.pem"};
    for (int i = 0; i < 3 && ok; i++) {
        if (certs[i] == NULL) continue;
        ok = (f = pki_file(dir, names[i], "w")) != NULL && PEM_write_X509(f, certs[i]) == 1;
        if (f != NULL) ok &= fclose(f) == 0;
    }
    if (!ok) die("cannot write the certificates to --pki DIR");
}

static X509 *read_cert(const char *dir, const char *name) {
    FILE *f = pki_file(dir, name, "r");
    if (f == NULL) return NULL;
    X509 *x = PEM_read_X509(f, NULL, NULL, NULL);
    fclose(f);
    return x;
}

static pki load_pki(const char *dir) {
    pki p = {NULL, read_cert(dir, "leaf.pem"), read_cert(dir, "intermediate.pem"), read_cert(dir, "anchor.pem")};
    FILE *f = pki_file(dir, "key.pem", "r");
    if (f != NULL) {
        p.key = PEM_read_PrivateKey(f, NULL, NULL, NULL);
        fclose(f);
    }
    if (p.anchor == NULL || (p.key == NULL) != (p.leaf == NULL)) die("cannot read the certificates of --pki DIR");
    return p;
}

/* The peer's certificate, its chain and its key. */
static int present(SSL_CTX *ctx, const pki *p) {
    return p->leaf != NULL && SSL_CTX_use_certificate(ctx, p->leaf) == 1 && SSL_CTX_use_PrivateKey(ctx, p->key) == 1 &&
           (p->intermediate == NULL || SSL_CTX_add1_chain_cert(ctx, p->intermediate) == 1);
}

/* A certificate from a PEM file. */
static X509 *read_cert_file(const char *path) {
    FILE *f = fopen(path, "r");
    X509 *x = f != NULL ? PEM_read_X509(f, NULL, NULL, NULL) : NULL;
    if (f != NULL) fclose(f);
    if (x == NULL) die("cannot read the certificate of --client-anchor");
    return x;
}

/* pki_dir: the certificates from there, else made for sig; quic: contexts
 * for OpenSSL's QUIC client and server. */
tls_pair setup(const char *group, const char *sig, int mutual, int chain, const char *pki_dir,
               const char *client_anchor, int quic) {
    tls_pair t;
    pki p = pki_dir ? load_pki(pki_dir) : make_pki(sig, chain);
    X509 *clients_anchor = client_anchor != NULL ? read_cert_file(client_anchor) : p.anchor;
    t.cert_der_len = (p.leaf ? (size_t)i2d_X509(p.leaf, NULL) : 0) + (p.intermediate ? (size_t)i2d_X509(p.intermediate, NULL) : 0);
    t.server = SSL_CTX_new(quic ? OSSL_QUIC_server_method() : TLS_server_method());
    t.client = SSL_CTX_new(quic ? OSSL_QUIC_client_method() : TLS_client_method());
    if (t.server == NULL || t.client == NULL) die("SSL_CTX_new");
    SSL_CTX *both[2] = {t.server, t.client};
    for (int i = 0; i < 2; i++) {
        SSL_CTX_set_min_proto_version(both[i], TLS1_3_VERSION);
        if (SSL_CTX_set1_groups_list(both[i], group) != 1) die("unknown group");
        SSL_CTX_set_options(both[i], SSL_OP_NO_TICKET);
        X509_STORE_add_cert(SSL_CTX_get_cert_store(both[i]), both[i] == t.server ? clients_anchor : p.anchor);
    }
    SSL_CTX_set_num_tickets(t.server, 0);
    SSL_CTX_set_session_cache_mode(t.server, SSL_SESS_CACHE_OFF);
    SSL_CTX_set_session_cache_mode(t.client, SSL_SESS_CACHE_OFF);
    /* (a client's files hold no server certificate: its server context stays unused) */
    if ((p.leaf != NULL || pki_dir == NULL) && !present(t.server, &p)) die("server certificate");
    SSL_CTX_set_verify(t.client, SSL_VERIFY_PEER, NULL);
    if (mutual) {
        if (!present(t.client, &p)) die("client certificate");
        SSL_CTX_set_verify(t.server, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, NULL);
    }
    if (quic) quic_prepare(t.server, t.client);
    if (clients_anchor != p.anchor) X509_free(clients_anchor);
    free_pki(&p);
    return t;
}
