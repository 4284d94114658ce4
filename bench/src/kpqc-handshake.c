/*
 * kpqc-handshake: full TLS 1.3 handshakes with certificate verification,
 * measured three ways, for any key-exchange group and server certificate
 * algorithm OpenSSL knows (kpqcprovider's included):
 *
 *   inproc  client and server in one process over memory buffers: the pure
 *           cost, plus bytes per flight and heap use per handshake;
 *   tcp     a server process and a client process over loopback TCP:
 *           latency of sequential handshakes;
 *   load    the same with C concurrent client processes: handshakes/s;
 *   link    a server process in one network namespace and a client in
 *           another (an emulated link between them): completion time of
 *           sequential handshakes, each bounded by --timeout-ms, with the
 *           TCP retransmissions of both ends;
 *   server  link's server half alone, for a client on another machine: listens
 *           on --address:--port (0: any free port, printed), serves at most N
 *           connections per worker process, each with its CPU time;
 *   client  link's client half alone, against such a server, with C client
 *           processes at once (--clients, default 1);
 *   pki     writes the certificates of S (--chain: and a chain) to --pki DIR,
 *           for server and client to load with --pki DIR.
 *   quic    link over QUIC instead of TCP (handshake_quic.c).
 *
 *   kpqc-handshake inproc --group G --sig S [--count N] [--mutual] [--chain]
 *   kpqc-handshake tcp    --group G --sig S [--count N] [--chain]
 *   kpqc-handshake load   --group G --sig S [--count N] [--clients C] [--chain]
 *   kpqc-handshake link   --group G --sig S [--count N] [--mutual] [--chain] --server-netns NS
 *                         --client-netns NS --address IP [--timeout-ms T] [--congestion-control CC]
 *   kpqc-handshake pki    --sig S [--chain] --pki DIR
 *   kpqc-handshake server --group G --pki DIR [--count N] [--clients W] [--mutual] --address IP [--port P]
 *                         [--timeout-ms T] [--server-netns NS]
 *   kpqc-handshake client --group G --pki DIR [--count N] [--clients C] [--mutual] --address IP --port P
 *                         [--timeout-ms T] [--client-netns NS]
 *
 * S is a key type for the certificates (EC:P-256, ML-DSA-65, haetae2 ...).
 * Without --chain the peer's certificate is self-signed and trusted as it
 * is; with --chain it is issued by an intermediate CA that a root CA issued
 * (all of type S), the peer sends its certificate and the intermediate's,
 * and only the root is trusted: the shape of a web server's chain.
 * NS is a name under /run/netns (`ip netns add`) or a path; IP is the
 * server's address in its namespace (the client connects to it); CC is a
 * TCP congestion control for both ends (the default is the system's).
 * Output: JSON lines, one per handshake, then a summary line.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <linux/tcp.h> /* the kernel's tcp_info: glibc's lacks the segment counts */
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "clock.h"
#include "handshake_quic.h"

/* ------------------------------------------------ heap accounting */
/* Every allocation carries its size in a 16-byte header so that frees can
 * be counted: live bytes, their peak, and totals per handshake. */
static size_t live_bytes, peak_bytes, alloc_count, alloc_bytes;

static void *count_malloc(size_t n, const char *f, int l) {
    (void)f, (void)l;
    unsigned char *p = malloc(n + 16);
    if (p == NULL) return NULL;
    memcpy(p, &n, sizeof n);
    live_bytes += n;
    alloc_bytes += n;
    alloc_count++;
    if (live_bytes > peak_bytes) peak_bytes = live_bytes;
    return p + 16;
}
static void count_free(void *q, const char *f, int l) {
    (void)f, (void)l;
    if (q == NULL) return;
    unsigned char *p = (unsigned char *)q - 16;
    size_t n;
    memcpy(&n, p, sizeof n);
    live_bytes -= n;
    free(p);
}
static void *count_realloc(void *q, size_t n, const char *f, int l) {
    if (q == NULL) return count_malloc(n, f, l);
    if (n == 0) {
        count_free(q, f, l);
        return NULL;
    }
    void *r = count_malloc(n, f, l);
    if (r == NULL) return NULL;
    size_t old;
    memcpy(&old, (unsigned char *)q - 16, sizeof old);
    memcpy(r, q, old < n ? old : n);
    count_free(q, f, l);
    return r;
}

/* ------------------------------------------------ certificates */
_Noreturn void die(const char *what) {
    fprintf(stderr, "kpqc-handshake: %s\n", what);
    ERR_print_errors_fp(stderr);
    exit(1);
}

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

/* The certificates of one run: the leaf both peers present, the
 * intermediate sent with it (NULL without --chain), the trust anchor. */
typedef struct {
    EVP_PKEY *key;
    X509 *leaf, *intermediate, *anchor;
} pki;

static pki make_pki(const char *sig, int chain) {
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

static void free_pki(pki *p) {
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

static void save_pki(const pki *p, const char *dir) {
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

typedef struct {
    SSL_CTX *server, *client;
    size_t cert_der_len; /* the certificates a peer sends */
} tls_pair;


/* pki_dir: the certificates from there, else made for sig; quic: contexts
 * for OpenSSL's QUIC client and server. */
static tls_pair setup(const char *group, const char *sig, int mutual, int chain, const char *pki_dir, int quic) {
    tls_pair t;
    pki p = pki_dir ? load_pki(pki_dir) : make_pki(sig, chain);
    t.cert_der_len = (p.leaf ? (size_t)i2d_X509(p.leaf, NULL) : 0) + (p.intermediate ? (size_t)i2d_X509(p.intermediate, NULL) : 0);
    t.server = SSL_CTX_new(quic ? OSSL_QUIC_server_method() : TLS_server_method());
    t.client = SSL_CTX_new(quic ? OSSL_QUIC_client_method() : TLS_client_method());
    if (t.server == NULL || t.client == NULL) die("SSL_CTX_new");
    SSL_CTX *both[2] = {t.server, t.client};
    for (int i = 0; i < 2; i++) {
        SSL_CTX_set_min_proto_version(both[i], TLS1_3_VERSION);
        if (SSL_CTX_set1_groups_list(both[i], group) != 1) die("unknown group");
        SSL_CTX_set_options(both[i], SSL_OP_NO_TICKET);
        X509_STORE_add_cert(SSL_CTX_get_cert_store(both[i]), p.anchor);
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
    free_pki(&p);
    return t;
}

/* ------------------------------------------------ in-process */
static int inproc(tls_pair *t, const char *group, size_t count) {
    double sum = 0;
    for (size_t n = 0; n < count + 2; n++) {
        SSL *c = SSL_new(t->client), *s = SSL_new(t->server);
        BIO *c2s = BIO_new(BIO_s_mem()), *s2c = BIO_new(BIO_s_mem());
        BIO_up_ref(c2s), BIO_up_ref(s2c); /* each BIO is owned by both SSLs */
        SSL_set_bio(c, s2c, c2s);
        SSL_set_bio(s, c2s, s2c);
        SSL_set_connect_state(c);
        SSL_set_accept_state(s);
        size_t flights[8] = {0}, nflights = 0, live0 = live_bytes;
        peak_bytes = live_bytes, alloc_count = 0, alloc_bytes = 0;
        uint64_t t0 = bench_ns(), server_ns = 0; /* server_ns: the server's share */
        int cdone = 0, sdone = 0, rounds = 0;
        while ((!cdone || !sdone) && rounds++ < 16) {
            if (!cdone) {
                int r = SSL_do_handshake(c);
                if (r == 1) cdone = 1;
                else if (SSL_get_error(c, r) != SSL_ERROR_WANT_READ) die("client handshake failed");
            }
            size_t pending = BIO_ctrl_pending(c2s);
            if (pending && nflights < 8) flights[nflights++] = pending;
            if (!sdone) {
                uint64_t s0 = bench_ns();
                int r = SSL_do_handshake(s);
                server_ns += bench_ns() - s0;
                if (r == 1) sdone = 1;
                else if (SSL_get_error(s, r) != SSL_ERROR_WANT_READ) die("server handshake failed");
            }
            pending = BIO_ctrl_pending(s2c);
            if (pending && nflights < 8) flights[nflights++] = pending;
        }
        uint64_t t1 = bench_ns();
        if (!cdone || !sdone) die("handshake did not complete");
        if (SSL_get_verify_result(c) != X509_V_OK) die("certificate did not verify");
        const char *negotiated = SSL_group_to_name(c, SSL_get_negotiated_group(c));
        const char *peer_sig = NULL;
        if (!SSL_get0_peer_signature_name(c, &peer_sig)) peer_sig = NULL;
        /* CH | SH..Fin | Fin; a HelloRetryRequest adds a round: CH | HRR | CH2 | ... */
        int hrr = nflights > 3;
        if (n >= 2) { /* two warm-up handshakes */
            size_t total = 0;
            printf("{\"mode\":\"inproc\",\"group\":\"%s\",\"negotiated\":\"%s\",\"peer_sig\":\"%s\",\"ns\":%llu,"
                   "\"server_ns\":%llu,\"flights\":[",
                   group, negotiated ? negotiated : "?", peer_sig ? peer_sig : "?", (unsigned long long)(t1 - t0),
                   (unsigned long long)server_ns);
            for (size_t i = 0; i < nflights; i++) {
                printf("%s%zu", i ? "," : "", flights[i]);
                total += flights[i];
            }
            printf("],\"bytes\":%zu,\"hrr\":%d,\"heap_peak\":%zu,\"allocs\":%zu,\"alloc_bytes\":%zu}\n",
                   total, hrr, peak_bytes - live0, alloc_count, alloc_bytes);
            sum += (double)(t1 - t0);
        }
        SSL_free(c);
        SSL_free(s);
    }
    fprintf(stderr, "inproc %s: mean %.1f us\n", group, sum / (double)count / 1e3);
    return 0;
}

/* ------------------------------------------------ over TCP */
/* Where the server listens and the client connects (link mode: inside
 * namespaces), and the bound on one handshake (0: none). */
static struct {
    const char *server_ns, *client_ns, *address, *congestion;
    unsigned timeout_ms;
    int port; /* where the server listens; 0: any free port */
} net = {NULL, NULL, "127.0.0.1", NULL, 0, 0};

static void set_congestion(int fd) {
    if (net.congestion != NULL &&
        setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, net.congestion, (socklen_t)strlen(net.congestion)) != 0)
        die("cannot use that congestion control");
}

static struct sockaddr_in server_addr(int port) {
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    if (inet_pton(AF_INET, net.address, &a.sin_addr) != 1) die("--address must be an IPv4 address");
    return a;
}

static int listen_any(int *port) {
    int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    struct sockaddr_in a = server_addr(net.port);
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    set_congestion(fd); /* accepted connections inherit it */
    if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 128) != 0) die("listen");
    socklen_t len = sizeof a;
    getsockname(fd, (struct sockaddr *)&a, &len);
    *port = ntohs(a.sin_port);
    return fd;
}

static struct tcp_info tcp_counters(int fd) {
    struct tcp_info ti;
    socklen_t len = sizeof ti;
    memset(&ti, 0, sizeof ti);
    getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len);
    return ti;
}

static uint64_t thread_cpu_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* report: one JSON line per connection (link and server modes), with the
 * server's own retransmissions (its first flight is the large one), the
 * data it sent until the client's Finished arrived (bytes and segments)
 * and the CPU time its side of the handshake took. */
static void serve(tls_pair *t, int lfd, size_t count, int report) {
    for (size_t i = 0; i < count; i++) {
        int fd = accept(lfd, NULL, NULL);
        if (fd < 0) continue;
        int one = 1, ok = 0;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        if (net.timeout_ms) { /* a client that gave up must not hold the server */
            struct timeval tv = {.tv_sec = net.timeout_ms / 1000, .tv_usec = (net.timeout_ms % 1000) * 1000};
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
        }
        SSL *s = SSL_new(t->server);
        SSL_set_fd(s, fd);
        unsigned flight_segments = 0; /* data segments sent before the client's Finished arrived */
        unsigned long long flight_bytes = 0, cpu = thread_cpu_ns();
        if (SSL_accept(s) == 1) {
            cpu = thread_cpu_ns() - cpu;
            struct tcp_info ti = tcp_counters(fd);
            flight_segments = ti.tcpi_data_segs_out, flight_bytes = ti.tcpi_bytes_sent;
            char b[1];
            SSL_read(s, b, 1); /* the client's one byte: the handshake is confirmed */
            ok = SSL_write(s, "k", 1) == 1;
        }
        if (report) {
            printf("{\"mode\":\"served\",\"ok\":%d,\"retrans\":%u,\"flight_segments\":%u,\"flight_bytes\":%llu,"
                   "\"cpu_ns\":%llu}\n",
                   ok, tcp_counters(fd).tcpi_total_retrans, flight_segments, flight_bytes, ok ? cpu : 0ull);
            fflush(stdout);
        }
        SSL_free(s);
        close(fd);
    }
}

static double client_once(tls_pair *t, int port, int *ok) {
    int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    struct sockaddr_in a = server_addr(port);
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    uint64_t t0 = bench_ns();
    *ok = 0;
    if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0) {
        SSL *c = SSL_new(t->client);
        SSL_set_fd(c, fd);
        char b[1];
        if (SSL_connect(c) == 1 && SSL_write(c, "h", 1) == 1 && SSL_read(c, b, 1) == 1) *ok = 1;
        SSL_free(c);
    }
    uint64_t t1 = bench_ns();
    close(fd);
    return (double)(t1 - t0);
}

static int tcp(tls_pair *t, const char *group, size_t count, unsigned clients) {
    int port, lfd = listen_any(&port);
    size_t total = count + (clients == 1 ? 2 : 0);
    unsigned workers = clients > 1 ? 2 : 1; /* pre-forked server processes share the socket */
    pid_t servers[2];
    for (unsigned w = 0; w < workers; w++) {
        if ((servers[w] = fork()) == 0) {
            serve(t, lfd, total, 0);
            _exit(0);
        }
    }
    close(lfd);
    if (clients <= 1) {
        for (size_t i = 0; i < total; i++) {
            int ok;
            double ns = client_once(t, port, &ok);
            if (i >= 2)
                printf("{\"mode\":\"tcp\",\"group\":\"%s\",\"ns\":%.0f,\"ok\":%d}\n", group, ns, ok);
        }
    } else {
        int pipefd[2];
        if (pipe(pipefd) != 0) die("pipe");
        uint64_t t0 = bench_ns();
        pid_t *kids = calloc(clients, sizeof *kids);
        for (unsigned c = 0; c < clients; c++) {
            if ((kids[c] = fork()) == 0) {
                size_t mine = count / clients + (c < count % clients), good = 0;
                for (size_t i = 0; i < mine; i++) {
                    int ok;
                    client_once(t, port, &ok);
                    good += (size_t)ok;
                }
                if (write(pipefd[1], &good, sizeof good) != sizeof good) _exit(1);
                _exit(0);
            }
        }
        size_t good = 0;
        for (unsigned c = 0; c < clients; c++) {
            size_t g;
            if (read(pipefd[0], &g, sizeof g) == sizeof g) good += g;
        }
        uint64_t t1 = bench_ns();
        for (unsigned c = 0; c < clients; c++) waitpid(kids[c], NULL, 0);
        free(kids);
        printf("{\"mode\":\"load\",\"group\":\"%s\",\"clients\":%u,\"handshakes\":%zu,\"failures\":%zu,"
               "\"seconds\":%.3f,\"per_second\":%.1f}\n",
               group, clients, count, count - good, (double)(t1 - t0) / 1e9, (double)good * 1e9 / (double)(t1 - t0));
        for (unsigned w = 0; w < workers; w++) kill(servers[w], SIGTERM);
    }
    for (unsigned w = 0; w < workers; w++) waitpid(servers[w], NULL, 0);
    return 0;
}

/* ------------------------------------------------ across a link between namespaces */
void enter_netns(const char *ns) {
    char path[512];
    snprintf(path, sizeof path, strchr(ns, '/') ? "%s" : "/run/netns/%s", ns);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || setns(fd, CLONE_NEWNET) != 0) die("cannot enter the network namespace");
    close(fd);
}

/* Waits until fd is ready for `events` or the deadline passes (returns 0). */
static int wait_until(int fd, short events, uint64_t deadline) {
    uint64_t now = bench_ns();
    if (now >= deadline) return 0;
    struct pollfd p = {.fd = fd, .events = events};
    return poll(&p, 1, (int)((deadline - now + 999999) / 1000000)) > 0;
}

/* After an SSL call returned r: wait for what it needs, 0 when it failed or time is up. */
static int ssl_wait(SSL *ssl, int r, int fd, uint64_t deadline) {
    int e = SSL_get_error(ssl, r);
    if (e == SSL_ERROR_WANT_READ) return wait_until(fd, POLLIN, deadline);
    if (e == SSL_ERROR_WANT_WRITE) return wait_until(fd, POLLOUT, deadline);
    return 0;
}

typedef struct {
    uint64_t connect_ns, handshake_ns, total_ns; /* to TCP established, to client Finished, to the reply byte */
    int ok, timed_out;
    unsigned retrans, mss, data_segs; /* data_segs: every data segment the client sent */
    unsigned rtt_us, min_rtt_us, segs_in; /* the kernel's smoothed and least RTT; data segments received */
    unsigned long long bytes_sent, bytes_received;
} link_result;

/* One handshake on a non-blocking socket, the whole of it within net.timeout_ms. */
static link_result client_link(tls_pair *t, int port) {
    link_result res = {0};
    struct sockaddr_in a = server_addr(port);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0), one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    set_congestion(fd);
    SSL *c = NULL;
    uint64_t t0 = bench_ns(), deadline = t0 + (uint64_t)net.timeout_ms * 1000000u;
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        int err = 0;
        socklen_t len = sizeof err;
        if (errno != EINPROGRESS || !wait_until(fd, POLLOUT, deadline) ||
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err != 0)
            goto done;
    }
    res.connect_ns = bench_ns() - t0;
    c = SSL_new(t->client);
    SSL_set_fd(c, fd);
    int r;
    while ((r = SSL_connect(c)) != 1)
        if (!ssl_wait(c, r, fd, deadline)) goto done;
    res.handshake_ns = bench_ns() - t0;
    while ((r = SSL_write(c, "h", 1)) != 1)
        if (!ssl_wait(c, r, fd, deadline)) goto done;
    char b[1];
    while ((r = SSL_read(c, b, 1)) != 1)
        if (!ssl_wait(c, r, fd, deadline)) goto done;
    res.ok = 1;
done:
    res.total_ns = bench_ns() - t0;
    res.timed_out = !res.ok && bench_ns() >= deadline;
    struct tcp_info ti = tcp_counters(fd);
    res.retrans = ti.tcpi_total_retrans, res.mss = ti.tcpi_snd_mss, res.data_segs = ti.tcpi_data_segs_out;
    res.rtt_us = ti.tcpi_rtt, res.min_rtt_us = ti.tcpi_min_rtt, res.segs_in = ti.tcpi_data_segs_in;
    res.bytes_sent = ti.tcpi_bytes_sent, res.bytes_received = ti.tcpi_bytes_received;
    SSL_free(c);
    close(fd);
    return res;
}

/* count handshakes after a warm-up one, one JSON line each. */
static void client_loop(tls_pair *t, const char *group, int port, size_t count, size_t warmup) {
    for (size_t i = 0; i < count + warmup; i++) {
        link_result r = client_link(t, port);
        if (i < warmup) continue;
        printf("{\"mode\":\"link\",\"group\":\"%s\",\"ok\":%d,\"timeout\":%d,\"connect_ns\":%llu,"
               "\"hs_ns\":%llu,\"ns\":%llu,\"retrans\":%u,\"mss\":%u,\"data_segs\":%u,\"rtt_us\":%u,"
               "\"min_rtt_us\":%u,\"segs_in\":%u,\"bytes_sent\":%llu,\"bytes_received\":%llu}\n",
               group, r.ok, r.timed_out, (unsigned long long)r.connect_ns, (unsigned long long)r.handshake_ns,
               (unsigned long long)r.total_ns, r.retrans, r.mss, r.data_segs, r.rtt_us, r.min_rtt_us, r.segs_in,
               r.bytes_sent, r.bytes_received);
        fflush(stdout); /* one write per line: lines of concurrent clients never mix */
    }
}

/* Runs fn(i, arg) in a child process that ends with this one; its pid. */
pid_t spawn(void (*fn)(unsigned i, void *arg), unsigned i, void *arg) {
    fflush(stdout);
    pid_t parent = getpid(), pid = fork();
    if (pid < 0) die("fork");
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGTERM); /* stopping the parent stops them all */
        if (getppid() != parent) _exit(0); /* it was stopped before that took effect */
        fn(i, arg);
        fflush(stdout);
        _exit(0);
    }
    return pid;
}

typedef struct {
    tls_pair *t;
    int lfd;
    size_t count;
} link_server;

static void serve_link(unsigned i, void *arg) {
    link_server *l = arg;
    (void)i;
    serve(l->t, l->lfd, l->count, 1);
}

static int link_mode(tls_pair *t, const char *group, size_t count) {
    if (net.server_ns == NULL || net.client_ns == NULL) die("link needs --server-netns and --client-netns");
    if (net.timeout_ms == 0) net.timeout_ms = 30000;
    enter_netns(net.server_ns);
    int port, lfd = listen_any(&port);
    size_t warmup = 1;
    link_server l = {t, lfd, count + warmup};
    pid_t server = spawn(serve_link, 0, &l);
    close(lfd);
    enter_netns(net.client_ns);
    client_loop(t, group, port, count, warmup);
    /* a connection the client abandoned may still be open on the server side */
    kill(server, SIGTERM);
    waitpid(server, NULL, 0);
    return 0;
}

/* Runs fn(i) in n child processes at once and waits for them all. */
static void in_processes(unsigned n, void (*fn)(unsigned, void *), void *arg) {
    pid_t *kids = calloc(n, sizeof *kids);
    if (kids == NULL) die("out of memory");
    for (unsigned i = 0; i < n; i++) kids[i] = spawn(fn, i, arg);
    for (unsigned i = 0; i < n; i++) waitpid(kids[i], NULL, 0);
    free(kids);
}

typedef struct {
    tls_pair *t;
    const char *group;
    int lfd, port;
    size_t count;
    unsigned n;
} job;

static void serve_job(unsigned i, void *arg) {
    job *j = arg;
    (void)i;
    serve(j->t, j->lfd, j->count, 1);
}

/* Serves until each worker has served --count connections or the process
 * is stopped; every handshake bounded by --timeout-ms, so that a client
 * that stalls or goes away does not hold a worker. */
static int server_mode(tls_pair *t, size_t count, unsigned workers) {
    prctl(PR_SET_PDEATHSIG, SIGTERM); /* never outlive whoever started it */
    if (net.server_ns != NULL) enter_netns(net.server_ns);
    if (net.timeout_ms == 0) net.timeout_ms = 30000;
    int port, lfd = listen_any(&port);
    printf("{\"mode\":\"listening\",\"port\":%d}\n", port);
    job j = {t, NULL, lfd, 0, count, workers};
    in_processes(workers ? workers : 1, serve_job, &j);
    close(lfd);
    return 0;
}

static void client_job(unsigned i, void *arg) {
    job *j = arg;
    client_loop(j->t, j->group, j->port, j->count / j->n + (i < j->count % j->n), i == 0);
}

/* count handshakes over clients processes at once (one warm-up handshake
 * first, by the first); then the wall time of them all. */
static int client_mode(tls_pair *t, const char *group, size_t count, unsigned clients) {
    if (net.port <= 0) die("client needs --port");
    if (net.client_ns != NULL) enter_netns(net.client_ns);
    if (net.timeout_ms == 0) net.timeout_ms = 30000;
    if (clients == 0 || clients > count) clients = clients ? (unsigned)count : 1;
    job j = {t, group, -1, net.port, count, clients};
    uint64_t t0 = bench_ns();
    if (clients == 1) client_loop(t, group, net.port, count, 1);
    else in_processes(clients, client_job, &j);
    printf("{\"mode\":\"clients\",\"group\":\"%s\",\"clients\":%u,\"seconds\":%.6f}\n", group, clients,
           (double)(bench_ns() - t0) / 1e9);
    return 0;
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "", *group = "X25519", *sig = "EC:P-256", *pki_dir = NULL;
    size_t count = 100;
    unsigned clients = 0; /* 0: the mode's default */
    int mutual = 0, chain = 0;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--group") == 0 && i + 1 < argc) group = argv[++i];
        else if (strcmp(argv[i], "--sig") == 0 && i + 1 < argc) sig = argv[++i];
        else if (strcmp(argv[i], "--count") == 0 && i + 1 < argc) count = strtoul(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--clients") == 0 && i + 1 < argc) clients = (unsigned)strtoul(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--mutual") == 0) mutual = 1;
        else if (strcmp(argv[i], "--chain") == 0) chain = 1;
        else if (strcmp(argv[i], "--pki") == 0 && i + 1 < argc) pki_dir = argv[++i];
        else if (strcmp(argv[i], "--server-netns") == 0 && i + 1 < argc) net.server_ns = argv[++i];
        else if (strcmp(argv[i], "--client-netns") == 0 && i + 1 < argc) net.client_ns = argv[++i];
        else if (strcmp(argv[i], "--address") == 0 && i + 1 < argc) net.address = argv[++i];
        else if (strcmp(argv[i], "--port") == 0 && i + 1 < argc) net.port = atoi(argv[++i]);
        else if (strcmp(argv[i], "--congestion-control") == 0 && i + 1 < argc) net.congestion = argv[++i];
        else if (strcmp(argv[i], "--timeout-ms") == 0 && i + 1 < argc)
            net.timeout_ms = (unsigned)strtoul(argv[++i], NULL, 10);
        else die("unknown option (see the comment at the top of kpqc-handshake.c)");
    }
    if (strcmp(mode, "inproc") == 0 && getenv("KPQC_NO_HEAP") == NULL &&
        !CRYPTO_set_mem_functions(count_malloc, count_realloc, count_free))
        die("cannot install the memory hooks");
    if (count == 0 || count > 1000000) die("--count must be 1..1000000");
    if (clients > 256) die("--clients must be 1..256");
    if (net.port < 0 || net.port > 65535) die("--port must be 0..65535");
    if (strcmp(mode, "pki") == 0) {
        if (pki_dir == NULL) die("pki needs --pki DIR");
        pki p = make_pki(sig, chain);
        save_pki(&p, pki_dir);
        free_pki(&p);
        return 0;
    }
    if ((strcmp(mode, "server") == 0 || strcmp(mode, "client") == 0) && pki_dir == NULL)
        die("server and client need --pki DIR (made by `kpqc-handshake pki`)");
    int quic = strcmp(mode, "quic") == 0;
    tls_pair t = setup(group, sig, mutual, chain, pki_dir, quic);
    printf("{\"mode\":\"setup\",\"group\":\"%s\",\"sig\":\"%s\",\"cert_der\":%zu,\"mutual\":%d,\"chain\":%d}\n",
           group, sig, t.cert_der_len, mutual, chain);
    int rc = 1;
    if (strcmp(mode, "inproc") == 0) rc = inproc(&t, group, count);
    else if (strcmp(mode, "tcp") == 0) rc = tcp(&t, group, count, 1);
    else if (strcmp(mode, "load") == 0) rc = tcp(&t, group, count, clients ? clients : 8);
    else if (strcmp(mode, "link") == 0) rc = link_mode(&t, group, count);
    else if (strcmp(mode, "server") == 0) rc = server_mode(&t, count, clients);
    else if (strcmp(mode, "client") == 0) rc = client_mode(&t, group, count, clients);
    else if (quic) {
        quic_link_opts o = {net.server_ns, net.client_ns, net.address, net.timeout_ms};
        rc = quic_link(t.server, t.client, group, count, &o);
    } else die("mode must be inproc, tcp, load, link, quic, server, client or pki");
    SSL_CTX_free(t.server);
    SSL_CTX_free(t.client);
    return rc;
}
