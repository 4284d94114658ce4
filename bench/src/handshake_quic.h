/* The QUIC mode of kpqc-handshake (handshake_quic.c) and what it shares
 * with the helper's TCP modes (kpqc-handshake.c). */
#ifndef KPQC_BENCH_HANDSHAKE_QUIC_H
#define KPQC_BENCH_HANDSHAKE_QUIC_H

#include <stddef.h>
#include <sys/types.h>
#include <openssl/ssl.h>

_Noreturn void die(const char *what);
void enter_netns(const char *ns);
/* Runs fn(i, arg) in a child process that ends with this one; its pid. */
pid_t spawn(void (*fn)(unsigned i, void *arg), unsigned i, void *arg);

typedef struct {
    const char *server_ns, *client_ns, *address;
    unsigned timeout_ms;
} quic_link_opts;

/* ALPN on both contexts (QUIC requires one) and no address validation by
 * Retry: the server's first flight meets the anti-amplification budget. */
void quic_prepare(SSL_CTX *server, SSL_CTX *client);

/* count handshakes (after one warm-up) between a server in o->server_ns
 * and a client in o->client_ns: JSON lines "quic" (client) and "served". */
int quic_link(SSL_CTX *server, SSL_CTX *client, const char *group, size_t count, const quic_link_opts *o);

#endif
