/* The parts of kpqc-handshake, one job per file (its modes and options
 * are described in kpqc-handshake.c). */
#ifndef KPQC_BENCH_HANDSHAKE_H
#define KPQC_BENCH_HANDSHAKE_H

#include <stddef.h>
#include <sys/types.h>

#include <openssl/ssl.h>
#include <openssl/x509.h>

/* handshake_die.c: reports what failed, with OpenSSL's error queue, and exits. */
_Noreturn void die(const char *what);
/* Moves this process into network namespace ns (a name or a path). */
void enter_netns(const char *ns);
/* Runs fn(i, arg) in a child process that ends with this one; its pid. */
pid_t spawn(void (*fn)(unsigned i, void *arg), unsigned i, void *arg);

/* handshake_heap.c: OpenSSL's allocations, counted once heap_install()
 * succeeded (before anything else is allocated). */
extern size_t live_bytes, peak_bytes, alloc_count, alloc_bytes;
int heap_install(void);

/* handshake_setup.c: the certificates of one run (the leaf both peers
 * present, the intermediate sent with it or NULL, the trust anchor) and
 * the two TLS contexts; pki_dir: certificates from there, else made. */
typedef struct {
    EVP_PKEY *key;
    X509 *leaf, *intermediate, *anchor;
} pki;
pki make_pki(const char *sig, int chain);
void free_pki(pki *p);
void save_pki(const pki *p, const char *dir);

typedef struct {
    SSL_CTX *server, *client;
    size_t cert_der_len; /* the certificates a peer sends */
} tls_pair;
/* quic: contexts for OpenSSL's QUIC client and server; client_anchor (or
 * NULL): a PEM file, the only anchor the server trusts for client
 * certificates. */
tls_pair setup(const char *group, const char *sig, int mutual, int chain, const char *pki_dir,
               const char *client_anchor, int quic);

/* handshake_inproc.c */
int inproc(tls_pair *t, const char *group, size_t count);

/* handshake_net.c: where the server listens and the client connects (link
 * mode: inside namespaces), and the bound on one handshake (0: none). */
struct net_options {
    const char *server_ns, *client_ns, *address, *congestion;
    unsigned timeout_ms;
    int port; /* where the server listens; 0: any free port */
};
extern struct net_options net;
int tcp(tls_pair *t, const char *group, size_t count, unsigned clients);
int link_mode(tls_pair *t, const char *group, size_t count);
int server_mode(tls_pair *t, size_t count, unsigned workers);
int client_mode(tls_pair *t, const char *group, size_t count, unsigned clients);

/* handshake_verify.c */
int verify_mode(const char *sig, size_t count);

#endif
