/*
 * kpqc-probe: what a TLS server negotiates with a KpqC client.
 *
 *   kpqc-probe [--json] [--groups LIST] [--sigalgs LIST] [--CAfile F]
 *              [--servername N] HOST:PORT
 *       Connects like a client of the configuration (the groups and
 *       signature algorithms of its system_default section, or the lists
 *       given: `--groups X25519 --sigalgs ecdsa_secp256r1_sha256` is a
 *       classical client) and prints the protocol, the negotiated group,
 *       the server's signature algorithm, each certificate of the chain
 *       (subject, key algorithm, signature algorithm) and whether the chain
 *       verified (against F, else the default trust store, and for the
 *       server name N or HOST).  --json: one object with the keys protocol,
 *       group, signature_algorithm, chain, verified.  Exit status 1 when
 *       the connection or the handshake fails.
 *   kpqc-probe --name CODEPOINT
 *       The name of a TLS group or signature code point (nginx logs
 *       $ssl_curve of a provider group as hex: 0xfe8e is x25519_smaugt1).
 *   kpqc-probe --check-config FILE
 *       Exit status 0 only if FILE, as a program reading it as OPENSSL_CONF
 *       would, loads and offers a KpqC group to TLS: for systemd's
 *       ExecStartPre, where the OpenSSL of the service (3.0) stays silent
 *       about a provider that did not load.
 *
 * The configuration: OPENSSL_CONF if set, else the one installed with the
 * probe (../share/kpqc-tls/openssl.cnf from its directory), else the build
 * tree's (openssl.cnf beside it).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/provider.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#ifndef KPQC_PROBE_INSTALLED_CONF
#define KPQC_PROBE_INSTALLED_CONF "../share/kpqc-tls/openssl.cnf"
#endif

/* Code points of the KpqC groups and signature algorithms, from the one
 * table (src/algorithms.def). */
typedef struct {
    unsigned codepoint;
    const char *name;
    int is_group;
} named_codepoint;

static const named_codepoint kpqc_codepoints[] = {
#define KPQC_KEM(fam, id, display, kat, lvl, pk, sk, ct, ss, oid, group, aliases) {group, #id, 1},
#define KPQC_HYBRID(name, kem, classical, group, aliases) {group, #name, 1},
#define KPQC_SIG(fam, id, display, kat, lvl, pk, sk, sig, oid, sigalg, aliases) {sigalg, #id, 0},
#define KPQC_COMPOSITE(name, sig, curve, digest, oid, sigalg, aliases) {sigalg, #name, 0},
#include "algorithms.def"
};
#define N_CODEPOINTS (sizeof kpqc_codepoints / sizeof kpqc_codepoints[0])

static const named_codepoint *kpqc_by_codepoint(unsigned codepoint) {
    for (size_t i = 0; i < N_CODEPOINTS; i++)
        if (kpqc_codepoints[i].codepoint == codepoint)
            return &kpqc_codepoints[i];
    return NULL;
}

static int is_kpqc_group(const char *name) {
    for (size_t i = 0; i < N_CODEPOINTS; i++)
        if (kpqc_codepoints[i].is_group && strcmp(kpqc_codepoints[i].name, name) == 0)
            return 1;
    return 0;
}

__attribute__((noreturn)) static void usage(FILE *out, int status) {
    fputs("usage: kpqc-probe [--json] [--groups LIST] [--sigalgs LIST] [--CAfile F] [--servername N] HOST:PORT\n"
          "       kpqc-probe --name CODEPOINT\n"
          "       kpqc-probe --check-config FILE\n",
          out);
    exit(status);
}

static int list_provider(OSSL_PROVIDER *prov, void *out) {
    fprintf(out, " %s", OSSL_PROVIDER_get0_name(prov));
    return 1;
}

/* OpenSSL reports a provider that did not load only through what then
 * fails (a Groups line naming its groups): say which providers are there. */
static void print_providers(void) {
    fputs("kpqc-probe: providers loaded:", stderr);
    OSSL_PROVIDER_do_all(NULL, list_provider, stderr);
    fputs(OSSL_PROVIDER_available(NULL, "kpqcprovider") ? "\n" : " (not kpqcprovider)\n", stderr);
}

__attribute__((noreturn)) static void fail(const char *what) {
    fprintf(stderr, "kpqc-probe: %s\n", what);
    ERR_print_errors_fp(stderr);
    exit(1);
}

/* A TLS context of the configuration, or exit naming what is missing. */
static SSL_CTX *new_context(const SSL_METHOD *method) {
    SSL_CTX *ctx = SSL_CTX_new(method);
    if (ctx == NULL) {
        fputs("kpqc-probe: the configuration's TLS settings do not apply (an algorithm no loaded provider "
              "offers?)\n", stderr);
        ERR_print_errors_fp(stderr);
        print_providers();
        exit(1);
    }
    return ctx;
}

/* OPENSSL_CONF unless set: the installed configuration, else the build
 * tree's, found from the directory of this program. */
static void choose_configuration(void) {
    char exe[PATH_MAX], path[PATH_MAX + 64];
    if (getenv("OPENSSL_CONF") != NULL)
        return;
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash == NULL)
        return;
    *slash = '\0';
    const char *candidates[] = {KPQC_PROBE_INSTALLED_CONF, "openssl.cnf"};
    for (size_t i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", exe, candidates[i]);
        if (access(path, R_OK) == 0) {
            setenv("OPENSSL_CONF", path, 1);
            return;
        }
    }
}

static void load_configuration(void) {
    if (!OPENSSL_init_ssl(OPENSSL_INIT_LOAD_CONFIG, NULL))
        fail(getenv("OPENSSL_CONF") ? "the OpenSSL configuration does not load" : "OpenSSL does not initialise");
}

/* The name of a TLS group code point: OpenSSL's (its own groups and those
 * of the loaded providers), else the table's. */
static const char *group_name(SSL *ssl, unsigned codepoint) {
    const char *name = ssl ? SSL_group_to_name(ssl, (int)(TLSEXT_nid_unknown | codepoint)) : NULL;
    if (name != NULL)
        return name;
    const named_codepoint *row = kpqc_by_codepoint(codepoint);
    return row != NULL && row->is_group ? row->name : NULL;
}

static int print_name(const char *text) {
    char *end;
    unsigned long codepoint = strtoul(text, &end, 0);
    if (*text == '\0' || *end != '\0' || codepoint > 0xFFFF) {
        fprintf(stderr, "kpqc-probe: not a code point: %s\n", text);
        return 2;
    }
    const named_codepoint *row = kpqc_by_codepoint((unsigned)codepoint);
    if (row != NULL) {
        puts(row->name);
        return 0;
    }
    /* Not a KpqC code point: ask OpenSSL about its own groups. */
    SSL_CTX *ctx = SSL_CTX_new(TLS_method());
    SSL *ssl = ctx ? SSL_new(ctx) : NULL;
    const char *name = group_name(ssl, (unsigned)codepoint);
    int rc = 1;
    if (name != NULL) {
        puts(name);
        rc = 0;
    } else {
        fprintf(stderr, "kpqc-probe: unknown code point 0x%04lx\n", codepoint);
    }
    SSL_free(ssl);
    SSL_CTX_free(ctx);
    return rc;
}

/* The supported_groups extension of a ClientHello, captured by a server's
 * ClientHello callback (which then ends the handshake). */
typedef struct {
    unsigned char groups[512];
    size_t len;
} offered_groups;

static int capture_groups(SSL *server, int *alert, void *arg) {
    offered_groups *out = arg;
    const unsigned char *ext;
    size_t len;
    (void)alert;
    if (SSL_client_hello_get0_ext(server, TLSEXT_TYPE_supported_groups, &ext, &len) && len >= 2 &&
        len - 2 <= sizeof out->groups) {
        memcpy(out->groups, ext + 2, len - 2);
        out->len = len - 2;
    }
    return SSL_CLIENT_HELLO_ERROR;
}

/* The first KpqC group a client of the loaded configuration offers, or NULL:
 * its ClientHello, handed in memory to a server that reads the groups. */
static const char *first_offered_kpqc_group(void) {
    static offered_groups offered;
    static char found[64];
    SSL_CTX *cctx = new_context(TLS_client_method()), *sctx = new_context(TLS_server_method());
    SSL *client = SSL_new(cctx), *server = SSL_new(sctx);
    BIO *to_server = BIO_new(BIO_s_mem()), *to_client = BIO_new(BIO_s_mem());
    if (client == NULL || server == NULL || to_server == NULL || to_client == NULL)
        fail("cannot make a TLS context");
    SSL_CTX_set_client_hello_cb(sctx, capture_groups, &offered);
    SSL_set_bio(client, to_client, to_server);
    BIO_up_ref(to_server);
    BIO_up_ref(to_client);
    SSL_set_bio(server, to_server, to_client);
    SSL_connect(client);
    SSL_accept(server);
    for (size_t i = 0; i + 1 < offered.len && found[0] == '\0'; i += 2) {
        const char *name = group_name(client, (unsigned)(offered.groups[i] << 8 | offered.groups[i + 1]));
        if (name != NULL && is_kpqc_group(name))
            snprintf(found, sizeof found, "%s", name); /* the name belongs to the context */
    }
    ERR_clear_error();
    SSL_free(client);
    SSL_free(server);
    SSL_CTX_free(cctx);
    SSL_CTX_free(sctx);
    return found[0] ? found : NULL;
}

static int check_configuration(const char *file) {
    if (access(file, R_OK) != 0) {
        fprintf(stderr, "kpqc-probe: cannot read %s\n", file);
        return 1;
    }
    setenv("OPENSSL_CONF", file, 1);
    load_configuration();
    const char *group = first_offered_kpqc_group();
    if (group != NULL) {
        printf("kpqc-probe: %s: kpqcprovider active, TLS clients offer %s\n", file, group);
        return 0;
    }
    fprintf(stderr, "kpqc-probe: %s: TLS clients offer no KpqC group (kpqcprovider not loaded, or no Groups "
                    "line naming a KpqC group)\n", file);
    print_providers();
    return 1;
}

/* JSON and text output of one result. */
typedef struct {
    const char *protocol, *group, *signature_algorithm;
    int verified;
    long verify_result;
} result;

static void json_string(const char *s) {
    putchar('"');
    for (; s != NULL && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            printf("\\%c", c);
        else if (c < 0x20)
            printf("\\u%04x", c);
        else
            putchar(c);
    }
    putchar('"');
}

static void json_field(const char *key, const char *value, int last) {
    json_string(key);
    fputs(": ", stdout);
    if (value == NULL)
        fputs("null", stdout);
    else
        json_string(value);
    fputs(last ? "" : ", ", stdout);
}

/* Subject, key algorithm and signature algorithm of a certificate. */
typedef struct {
    char subject[512], key_algorithm[128], signature_algorithm[128];
} cert_info;

static void describe(X509 *x, cert_info *info) {
    BIO *b = BIO_new(BIO_s_mem());
    X509_NAME_print_ex(b, X509_get_subject_name(x), 0, XN_FLAG_RFC2253);
    int n = BIO_read(b, info->subject, sizeof info->subject - 1);
    info->subject[n > 0 ? n : 0] = '\0';
    BIO_free(b);
    EVP_PKEY *pkey = X509_get0_pubkey(x);
    const char *key = pkey ? EVP_PKEY_get0_type_name(pkey) : NULL;
    if (key != NULL) {
        snprintf(info->key_algorithm, sizeof info->key_algorithm, "%s", key);
    } else {
        ASN1_OBJECT *alg = NULL;
        X509_PUBKEY_get0_param(&alg, NULL, NULL, NULL, X509_get_X509_PUBKEY(x));
        OBJ_obj2txt(info->key_algorithm, sizeof info->key_algorithm, alg, 0);
    }
    const X509_ALGOR *sigalg = NULL;
    const ASN1_OBJECT *sigobj = NULL;
    X509_get0_signature(NULL, &sigalg, x);
    X509_ALGOR_get0(&sigobj, NULL, NULL, sigalg);
    OBJ_obj2txt(info->signature_algorithm, sizeof info->signature_algorithm, sigobj, 0);
}

static void print_result(const result *r, STACK_OF(X509) *chain, int json) {
    int n = chain ? sk_X509_num(chain) : 0;
    cert_info info;
    if (json) {
        putchar('{');
        json_field("protocol", r->protocol, 0);
        json_field("group", r->group, 0);
        json_field("signature_algorithm", r->signature_algorithm, 0);
        fputs("\"chain\": [", stdout);
        for (int i = 0; i < n; i++) {
            describe(sk_X509_value(chain, i), &info);
            fputs(i ? ", {" : "{", stdout);
            json_field("subject", info.subject, 0);
            json_field("key_algorithm", info.key_algorithm, 0);
            json_field("signature_algorithm", info.signature_algorithm, 1);
            putchar('}');
        }
        printf("], \"verified\": %s}\n", r->verified ? "true" : "false");
        return;
    }
    printf("protocol:            %s\n", r->protocol);
    printf("group:               %s\n", r->group ? r->group : "(none)");
    printf("signature algorithm: %s\n", r->signature_algorithm ? r->signature_algorithm : "(none)");
    for (int i = 0; i < n; i++) {
        describe(sk_X509_value(chain, i), &info);
        printf("certificate %d:       %s\n                     key %s, signed with %s\n", i, info.subject,
               info.key_algorithm, info.signature_algorithm);
    }
    printf("verified:            %s\n",
           r->verified ? "yes" : X509_verify_cert_error_string(r->verify_result));
}

typedef struct {
    int json;
    const char *groups, *sigalgs, *cafile, *servername, *target;
} options;

static int probe(const options *o) {
    load_configuration();
    SSL_CTX *ctx = new_context(TLS_client_method());
    if (o->groups && !SSL_CTX_set1_groups_list(ctx, o->groups))
        fail("unknown group in --groups");
    if (o->sigalgs && !SSL_CTX_set1_sigalgs_list(ctx, o->sigalgs))
        fail("unknown signature algorithm in --sigalgs");
    if (o->cafile ? !SSL_CTX_load_verify_file(ctx, o->cafile) : !SSL_CTX_set_default_verify_paths(ctx))
        fail("cannot load the trust anchors");
    /* Verification is reported, not enforced: the probe shows what a server
     * sends even when it would be refused. */
    SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, NULL);

    BIO *conn = BIO_new_connect(o->target);
    if (conn == NULL || BIO_do_connect(conn) <= 0)
        fail("cannot connect");
    int fd = (int)BIO_get_fd(conn, NULL);
    struct timeval timeout = {10, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);

    SSL *ssl = SSL_new(ctx);
    if (ssl == NULL)
        fail("cannot make a TLS connection");
    SSL_set_bio(ssl, conn, conn);
    const char *host = o->servername;
    char hostbuf[256];
    if (host == NULL) {
        /* HOST of HOST:PORT, without the brackets of an IPv6 address. */
        const char *colon = strrchr(o->target, ':');
        size_t len = colon ? (size_t)(colon - o->target) : strlen(o->target);
        const char *start = o->target;
        if (len >= 2 && start[0] == '[' && start[len - 1] == ']') {
            start++;
            len -= 2;
        }
        snprintf(hostbuf, sizeof hostbuf, "%.*s", (int)len, start);
        host = hostbuf;
    }
    /* SSL_set1_host takes an IP address as one; SNI only for names. */
    ASN1_OCTET_STRING *ip = a2i_IPADDRESS(host);
    if (ip == NULL)
        SSL_set_tlsext_host_name(ssl, host);
    ASN1_OCTET_STRING_free(ip);
    if (!SSL_set1_host(ssl, host))
        fail("bad server name");
    if (SSL_connect(ssl) != 1)
        fail("TLS handshake failed");

    result r = {0};
    r.protocol = SSL_get_version(ssl);
    r.group = SSL_get0_group_name(ssl);
#if OPENSSL_VERSION_NUMBER >= 0x30500000L
    SSL_get0_peer_signature_name(ssl, &r.signature_algorithm);
#else
    int nid;
    if (SSL_get_peer_signature_type_nid(ssl, &nid))
        r.signature_algorithm = OBJ_nid2sn(nid);
#endif
    r.verify_result = SSL_get_verify_result(ssl);
    X509 *peer = SSL_get1_peer_certificate(ssl);
    r.verified = peer != NULL && r.verify_result == X509_V_OK;
    X509_free(peer);
    print_result(&r, SSL_get_peer_cert_chain(ssl), o->json);
    SSL_shutdown(ssl);
    SSL_free(ssl);
    SSL_CTX_free(ctx);
    return 0;
}

int main(int argc, char **argv) {
    options o = {0};
    const char *name = NULL, *check = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char **value = strcmp(a, "--groups") == 0         ? &o.groups
                             : strcmp(a, "--sigalgs") == 0      ? &o.sigalgs
                             : strcmp(a, "--CAfile") == 0       ? &o.cafile
                             : strcmp(a, "--servername") == 0   ? &o.servername
                             : strcmp(a, "--name") == 0         ? &name
                             : strcmp(a, "--check-config") == 0 ? &check
                                                                : NULL;
        if (value != NULL) {
            if (++i == argc)
                usage(stderr, 2);
            *value = argv[i];
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout, 0);
        } else if (strcmp(a, "--json") == 0) {
            o.json = 1;
        } else if (a[0] == '-' || o.target != NULL) {
            usage(stderr, 2);
        } else {
            o.target = a;
        }
    }
    /* One mode at a time. */
    if ((check != NULL) + (name != NULL) + (o.target != NULL) != 1 || (o.target && !strrchr(o.target, ':')))
        usage(stderr, 2);
    if (check != NULL)
        return check_configuration(check);
    choose_configuration();
    if (name != NULL)
        return print_name(name);
    return probe(&o);
}
