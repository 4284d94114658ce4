/*
 * The QUIC mode of kpqc-handshake: the handshakes of `link` mode over
 * OpenSSL's QUIC stack (RFC 9000/9001) instead of TCP, between a server
 * (a QUIC listener) in one network namespace and a client in another,
 * with the same groups, certificates and chains:
 *
 *   kpqc-handshake quic --group G --sig S [--count N] [--mutual] [--chain]
 *                       --server-netns NS --client-netns NS --address IP [--timeout-ms T]
 *
 * The server does not validate the client's address by a Retry (that
 * would cost a round trip of its own), so its first flight is bounded by
 * QUIC's anti-amplification limit: three times the bytes it received.
 *
 * Both ends count the UDP datagrams and bytes each way up to their end of
 * the handshake, from OpenSSL's message callback (which reports every
 * datagram and frame).  The server also counts its rounds: a round is a
 * run of datagrams carrying CRYPTO frames that the arrival of a client
 * datagram set off.  A flight within the budget goes out in one round;
 * one beyond it waits for the client's acknowledgements, a round more.
 *
 * Output: one JSON line per handshake of the client ("quic") and of the
 * server ("served"); the first handshake is a warm-up and not printed by
 * the client.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <unistd.h>

#include <openssl/bio.h>
#include <openssl/ssl.h>

#include "clock.h"
#include "handshake_quic.h"

static const unsigned char alpn[] = "\x08kpqc-lab";

static int select_alpn(SSL *ssl, const unsigned char **out, unsigned char *outlen, const unsigned char *in,
                       unsigned inlen, void *arg) {
    (void)ssl, (void)arg;
    unsigned char *chosen;
    if (SSL_select_next_proto(&chosen, outlen, alpn, sizeof alpn - 1, in, inlen) != OPENSSL_NPN_NEGOTIATED)
        return SSL_TLSEXT_ERR_ALERT_FATAL;
    *out = chosen;
    return SSL_TLSEXT_ERR_OK;
}

/* ------------------------------------------------ what crossed the wire */
/* A filter BIO above the datagram BIO counts every datagram the QUIC
 * stack sends and receives, per peer: the server's connection objects only
 * exist once its first flight is out, so the socket is where it can be
 * seen.  Each handshake of a run comes from a fresh client socket, so the
 * n-th peer (by port) is the n-th connection the listener hands out, and
 * a late datagram of an earlier connection is counted there, not in the
 * current one. */
typedef struct {
    unsigned dgrams_out, dgrams_in;
    size_t bytes_out, bytes_in;
    /* The server's view: the client's first flight (datagrams still sent to
     * the connection ID the client chose, before it heard from the server),
     * what the server sent before anything else from the client arrived
     * (its first round, which the anti-amplification limit bounds), and all
     * it sent in long-header (Initial and Handshake) packets. */
    size_t first_in, first_out, flight_out;
    unsigned char odcid[20];
    size_t odcid_len;
    int answered, frozen;
} wire;

#define LONG_HEADER 0x80
#define INITIAL_TYPE 0x00 /* bits 4-5 of a long header's first byte */
#define PEERS 16 /* the last peers counted; a run has one connection at a time */
typedef struct {
    wire w[PEERS];
    unsigned short port[PEERS];
    size_t seen; /* peers so far: the n-th is w[n % PEERS] */
} wires;

/* The counters of peer, new ones for a peer whose first datagram opens a
 * connection (a client's Initial, at least 1,200 bytes, as a server
 * accepts it or the client sends it); NULL for a stray datagram of a
 * connection gone before this run, which no connection of it will count. */
static wire *wire_of(wires *t, const BIO_ADDR *peer, const unsigned char *d, size_t len) {
    unsigned short port = peer ? BIO_ADDR_rawport(peer) : 0;
    for (size_t k = 0; k < t->seen && k < PEERS; k++) {
        size_t n = (t->seen - 1 - k) % PEERS;
        if (t->port[n] == port) return &t->w[n];
    }
    if (len < 1200 || (d[0] & 0xB0) != (LONG_HEADER | INITIAL_TYPE)) return NULL;
    size_t n = t->seen++ % PEERS;
    memset(&t->w[n], 0, sizeof t->w[n]);
    t->port[n] = port;
    return &t->w[n];
}


/* The destination connection ID of a long-header datagram, or 0. */
static size_t dcid_of(const unsigned char *d, size_t len, const unsigned char **id) {
    if (len < 6 || !(d[0] & LONG_HEADER) || d[5] > 20 || len < 6u + d[5]) return 0;
    *id = d + 6;
    return d[5];
}

static void on_datagram(wire *w, int out, const unsigned char *d, size_t len) {
    if (w == NULL || w->frozen) return;
    int is_long = (d[0] & LONG_HEADER) != 0;
    if (w->dgrams_in + w->dgrams_out == 0) { /* the client's first Initial names the connection */
        const unsigned char *id = NULL;
        w->odcid_len = dcid_of(d, len, &id);
        if (w->odcid_len > 0) memcpy(w->odcid, id, w->odcid_len);
    }
    if (out) {
        w->dgrams_out++, w->bytes_out += len;
        if (is_long) w->flight_out += len;
        if (!w->answered) w->first_out += len;
        return;
    }
    w->dgrams_in++, w->bytes_in += len;
    const unsigned char *id = NULL;
    size_t n = dcid_of(d, len, &id);
    if (n > 0 && n == w->odcid_len && memcmp(id, w->odcid, n) == 0) w->first_in += len;
    else if (w->first_out > 0) w->answered = 1;
}

static void count_all(BIO *b, int out, BIO_MSG *msg, size_t stride, size_t done) {
    for (size_t i = 0; i < done; i++) {
        BIO_MSG *m = (BIO_MSG *)((char *)msg + i * stride);
        const unsigned char *d = m->data;
        if (m->data_len > 0) on_datagram(wire_of(BIO_get_data(b), m->peer, d, m->data_len), out, d, m->data_len);
    }
}

static int count_send(BIO *b, BIO_MSG *msg, size_t stride, size_t num, uint64_t flags, size_t *done) {
    int ok = BIO_sendmmsg(BIO_next(b), msg, stride, num, flags, done);
    if (ok) count_all(b, 1, msg, stride, *done);
    return ok;
}

static int count_recv(BIO *b, BIO_MSG *msg, size_t stride, size_t num, uint64_t flags, size_t *done) {
    int ok = BIO_recvmmsg(BIO_next(b), msg, stride, num, flags, done);
    if (ok) count_all(b, 0, msg, stride, *done);
    return ok;
}

static long count_ctrl(BIO *b, int cmd, long larg, void *parg) { return BIO_ctrl(BIO_next(b), cmd, larg, parg); }

static int count_create(BIO *b) {
    BIO_set_init(b, 1);
    return 1;
}

static BIO_METHOD *counting_method(void) {
    static BIO_METHOD *m;
    if (m == NULL) {
        m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_FILTER, "datagram counter");
        if (m == NULL || !BIO_meth_set_sendmmsg(m, count_send) || !BIO_meth_set_recvmmsg(m, count_recv) ||
            !BIO_meth_set_ctrl(m, count_ctrl) || !BIO_meth_set_create(m, count_create))
            die("BIO_meth_new");
    }
    return m;
}

static void print_wire(const wire *w) {
    printf("\"dgrams_out\":%u,\"bytes_out\":%zu,\"dgrams_in\":%u,\"bytes_in\":%zu", w->dgrams_out, w->bytes_out,
           w->dgrams_in, w->bytes_in);
}

/* ------------------------------------------------ waiting on a non-blocking QUIC object */
/* Sleeps until a datagram arrives, the object's next timer (loss
 * detection, acknowledgement delay) or the deadline, then lets OpenSSL
 * act; 0 once the deadline has passed. */
static int quic_wait(SSL *s, int fd, uint64_t deadline) {
    uint64_t now = bench_ns();
    if (now >= deadline) return 0;
    uint64_t wait_ns = deadline - now;
    struct timeval tv;
    int infinite = 1;
    if (SSL_get_event_timeout(s, &tv, &infinite) && !infinite) {
        uint64_t t = (uint64_t)tv.tv_sec * 1000000000u + (uint64_t)tv.tv_usec * 1000u;
        if (t < wait_ns) wait_ns = t;
    }
    struct pollfd p = {.fd = fd, .events = (short)(POLLIN | (SSL_net_write_desired(s) ? POLLOUT : 0))};
    struct timespec ts = {.tv_sec = (time_t)(wait_ns / 1000000000u), .tv_nsec = (long)(wait_ns % 1000000000u)};
    ppoll(&p, 1, &ts, NULL);
    SSL_handle_events(s);
    return 1;
}

/* After an SSL call on s returned r: 1 to call it again, 0 when it failed or time is up. */
static int again(SSL *s, int r, int fd, uint64_t deadline) {
    int e = SSL_get_error(s, r);
    return (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) && quic_wait(s, fd, deadline);
}

static int udp_socket(void) {
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) die("udp socket");
    return fd;
}

static struct sockaddr_in address_of(const char *ip, int port) {
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    if (inet_pton(AF_INET, ip, &a.sin_addr) != 1) die("--address must be an IPv4 address");
    return a;
}

/* A datagram BIO on fd (not closing it) for s, counted into t. */
static void attach(SSL *s, int fd, wires *t) {
    BIO *dgram = BIO_new_dgram(fd, BIO_NOCLOSE), *counter = BIO_new(counting_method());
    if (dgram == NULL || counter == NULL) die("BIO_new");
    BIO_set_data(counter, t);
    SSL_set_bio(s, BIO_push(counter, dgram), counter);
    if (!SSL_set_blocking_mode(s, 0)) die("non-blocking QUIC");
}

void quic_prepare(SSL_CTX *server, SSL_CTX *client) {
    if (SSL_CTX_set_alpn_protos(client, alpn, sizeof alpn - 1) != 0) die("ALPN");
    SSL_CTX_set_alpn_select_cb(server, select_alpn, NULL);
}

/* ------------------------------------------------ server */
static wires served; /* per client socket, in the order the connections came */

static void report_served(int ok, int handshake, const wire *w) {
    printf("{\"mode\":\"served\",\"ok\":%d,\"handshake\":%d,\"first_in\":%zu,\"first_out\":%zu,\"flight_out\":%zu,",
           ok, handshake, w->first_in, w->first_out, w->flight_out);
    print_wire(w);
    printf("}\n");
    fflush(stdout);
}

/* One connection: its handshake and the client's byte answered, within
 * timeout_ms, reported as soon as that is known. */
static void serve_one(SSL *listener, SSL *conn, int fd, wire *w, unsigned timeout_ms) {
    uint64_t deadline = bench_ns() + (uint64_t)timeout_ms * 1000000u;
    int r;
    char b[1];
    size_t n;
    if (!SSL_set_blocking_mode(conn, 0)) die("non-blocking QUIC");
    while ((r = SSL_do_handshake(conn)) != 1)
        if (!again(conn, r, fd, deadline)) {
            report_served(0, 0, w);
            return;
        }
    w->frozen = 1;
    while ((r = SSL_read_ex(conn, b, 1, &n)) != 1)
        if (!again(conn, r, fd, deadline)) {
            report_served(0, 1, w);
            return;
        }
    while ((r = SSL_write_ex2(conn, "k", 1, SSL_WRITE_FLAG_CONCLUDE, &n)) != 1)
        if (!again(conn, r, fd, deadline)) {
            report_served(0, 1, w);
            return;
        }
    report_served(1, 1, w); /* before the client has the reply, which may end its run */
    /* The reply must outlive its losses: keep the connection until the
     * client closes it, or (its close lost) opens the next one, which it
     * does only once it has the reply or has given up. */
    SSL_CONN_CLOSE_INFO closed;
    while (!SSL_get_conn_close_info(conn, &closed, sizeof closed) &&
           SSL_get_accept_connection_queue_len(listener) == 0 && quic_wait(conn, fd, deadline)) {}
}

/* count connections, one at a time. */
static void serve(SSL_CTX *ctx, int fd, size_t count, unsigned timeout_ms) {
    SSL *listener = SSL_new_listener(ctx, SSL_LISTENER_FLAG_NO_VALIDATE);
    if (listener == NULL) die("SSL_new_listener");
    attach(listener, fd, &served);
    if (!SSL_listen(listener)) die("SSL_listen");
    for (size_t i = 0; i < count; i++) {
        SSL *conn;
        while ((conn = SSL_accept_connection(listener, SSL_ACCEPT_CONNECTION_NO_BLOCK)) == NULL)
            quic_wait(listener, fd, UINT64_MAX);
        serve_one(listener, conn, fd, &served.w[i % PEERS], timeout_ms);
        SSL_free(conn);
    }
    SSL_free(listener);
}

typedef struct {
    SSL_CTX *ctx;
    int fd;
    size_t count;
    unsigned timeout_ms;
} quic_server;

static void serve_quic(unsigned i, void *arg) {
    quic_server *q = arg;
    (void)i;
    serve(q->ctx, q->fd, q->count, q->timeout_ms);
}

/* ------------------------------------------------ client */
typedef struct {
    uint64_t handshake_ns, total_ns;
    int ok, timed_out;
    char negotiated[64], peer_sig[64]; /* what the handshake agreed on, as the client saw it */
    wire w; /* up to the end of the client's handshake */
} quic_result;

/* One handshake from a fresh socket fd, which the caller closes. */
static quic_result client_once(SSL_CTX *ctx, const struct sockaddr_in *server, unsigned timeout_ms, int fd) {
    quic_result res;
    memset(&res, 0, sizeof res);
    int r;
    size_t n;
    SSL *c = SSL_new(ctx);
    BIO_ADDR *peer = BIO_ADDR_new();
    if (c == NULL || peer == NULL ||
        !BIO_ADDR_rawmake(peer, AF_INET, &server->sin_addr, sizeof server->sin_addr, server->sin_port))
        die("QUIC client");
    wires seen; /* one peer: the server */
    memset(&seen, 0, sizeof seen);
    attach(c, fd, &seen);
    if (!SSL_set1_initial_peer_addr(c, peer)) die("SSL_set1_initial_peer_addr");
    uint64_t t0 = bench_ns(), deadline = t0 + (uint64_t)timeout_ms * 1000000u;
    while ((r = SSL_connect(c)) != 1)
        if (!again(c, r, fd, deadline)) goto done;
    res.handshake_ns = bench_ns() - t0;
    seen.w[0].frozen = 1;
    const char *g = SSL_group_to_name(c, SSL_get_negotiated_group(c)), *sig = NULL;
    snprintf(res.negotiated, sizeof res.negotiated, "%s", g ? g : "?");
    snprintf(res.peer_sig, sizeof res.peer_sig, "%s", SSL_get0_peer_signature_name(c, &sig) && sig ? sig : "?");
    while ((r = SSL_write_ex2(c, "h", 1, SSL_WRITE_FLAG_CONCLUDE, &n)) != 1)
        if (!again(c, r, fd, deadline)) goto done;
    char b[1];
    while ((r = SSL_read_ex(c, b, 1, &n)) != 1)
        if (!again(c, r, fd, deadline)) goto done;
    res.ok = 1;
done:
    res.total_ns = bench_ns() - t0;
    res.timed_out = !res.ok && bench_ns() >= deadline;
    res.w = seen.w[0];
    /* an immediate close: the server learns of it from one datagram */
    SSL_shutdown_ex(c, SSL_SHUTDOWN_FLAG_RAPID | SSL_SHUTDOWN_FLAG_NO_BLOCK, NULL, 0);
    SSL_free(c);
    BIO_ADDR_free(peer);
    return res;
}

int quic_link(SSL_CTX *server, SSL_CTX *client, const char *group, size_t count, const quic_link_opts *o) {
    if (o->server_ns == NULL || o->client_ns == NULL) die("quic needs --server-netns and --client-netns");
    unsigned timeout_ms = o->timeout_ms ? o->timeout_ms : 30000;
    enter_netns(o->server_ns);
    int fd = udp_socket();
    struct sockaddr_in a = address_of(o->address, 0);
    socklen_t len = sizeof a;
    if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || getsockname(fd, (struct sockaddr *)&a, &len) != 0)
        die("bind");
    size_t warmup = 1;
    quic_server q = {server, fd, count + warmup, timeout_ms};
    pid_t child = spawn(serve_quic, 0, &q);
    close(fd);
    enter_netns(o->client_ns);
    /* The server tells connections apart by the client's port: the last
     * PEERS sockets stay open, so the kernel cannot give their ports out again. */
    int recent[PEERS];
    for (size_t k = 0; k < PEERS; k++) recent[k] = -1;
    for (size_t i = 0; i < count + warmup; i++) {
        if (recent[i % PEERS] >= 0) close(recent[i % PEERS]);
        recent[i % PEERS] = udp_socket();
        quic_result r = client_once(client, &a, timeout_ms, recent[i % PEERS]);
        if (i < warmup) continue;
        printf("{\"mode\":\"quic\",\"group\":\"%s\",\"negotiated\":\"%s\",\"peer_sig\":\"%s\",\"ok\":%d,"
               "\"timeout\":%d,\"hs_ns\":%llu,\"ns\":%llu,", group, r.negotiated, r.peer_sig, r.ok, r.timed_out,
               (unsigned long long)r.handshake_ns, (unsigned long long)r.total_ns);
        print_wire(&r.w);
        printf("}\n");
        fflush(stdout);
    }
    for (size_t k = 0; k < PEERS; k++)
        if (recent[k] >= 0) close(recent[k]);
    kill(child, SIGTERM);
    waitpid(child, NULL, 0);
    return 0;
}
