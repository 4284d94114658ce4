/* The QUIC mode of kpqc-handshake (handshake_quic.c). */
#ifndef KPQC_BENCH_HANDSHAKE_QUIC_H
#define KPQC_BENCH_HANDSHAKE_QUIC_H

#include <stddef.h>
#include <openssl/ssl.h>

#include "handshake.h" /* die, enter_netns, spawn */

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
