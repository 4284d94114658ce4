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
 *   quic    link over QUIC instead of TCP (handshake_quic.c);
 *   verify  certificate path validation alone: a root -> intermediate -> leaf
 *           chain of S decoded and validated N times.
 *
 *   kpqc-handshake inproc --group G --sig S [--count N] [--mutual] [--chain]
 *   kpqc-handshake tcp    --group G --sig S [--count N] [--chain]
 *   kpqc-handshake load   --group G --sig S [--count N] [--clients C] [--chain]
 *   kpqc-handshake link   --group G --sig S [--count N] [--mutual] [--chain] --server-netns NS
 *                         --client-netns NS --address IP [--timeout-ms T] [--congestion-control CC]
 *   kpqc-handshake pki    --sig S [--chain] --pki DIR
 *   kpqc-handshake verify --sig S [--count N]
 *   kpqc-handshake server --group G --pki DIR [--count N] [--clients W] [--mutual [--client-anchor FILE]]
 *                         --address IP [--port P] [--timeout-ms T] [--server-netns NS]
 *   kpqc-handshake client --group G --pki DIR [--count N] [--clients C] [--mutual] --address IP --port P
 *                         [--timeout-ms T] [--client-netns NS]
 *
 * S is a key type for the certificates (EC:P-256, ML-DSA-65, haetae2 ...).
 * Without --chain the peer's certificate is self-signed and trusted as it
 * is; with --chain it is issued by an intermediate CA that a root CA issued
 * (all of type S), the peer sends its certificate and the intermediate's,
 * and only the root is trusted: the shape of a web server's chain.
 * --client-anchor: the one certificate a mutual-TLS server trusts for its
 * clients' certificates (by default the anchor of --pki DIR), so that clients
 * authenticate with certificates of their own, never with the server's key.
 * NS is a name under /run/netns (`ip netns add`) or a path; IP is the
 * server's address in its namespace (the client connects to it); CC is a
 * TCP congestion control for both ends (the default is the system's).
 * Output: JSON lines, one per handshake, then a summary line.
 *
 * Files, one job each: handshake_die.c (the one way to fail), handshake_setup.c (certificates, contexts),
 * handshake_heap.c (allocation counts), handshake_inproc.c,
 * handshake_net.c (tcp, load, link, server, client), handshake_quic.c,
 * handshake_verify.c; this one reads the options and runs the mode.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/ssl.h>

#include "handshake.h"
#include "handshake_quic.h"

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "", *group = "X25519", *sig = "EC:P-256", *pki_dir = NULL,
               *client_anchor = NULL;
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
        else if (strcmp(argv[i], "--client-anchor") == 0 && i + 1 < argc) client_anchor = argv[++i];
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
        !heap_install())
        die("cannot install the memory hooks");
    if (count == 0 || count > 1000000) die("--count must be 1..1000000");
    if (clients > 256) die("--clients must be 1..256");
    if (net.port < 0 || net.port > 65535) die("--port must be 0..65535");
    if (strcmp(mode, "verify") == 0) return verify_mode(sig, count);
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
    if (client_anchor != NULL && (strcmp(mode, "server") != 0 || !mutual))
        die("--client-anchor is for a server with --mutual");
    tls_pair t = setup(group, sig, mutual, chain, pki_dir, client_anchor, quic);
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
    } else die("mode must be inproc, tcp, load, link, quic, server, client, pki or verify");
    SSL_CTX_free(t.server);
    SSL_CTX_free(t.client);
    return rc;
}
