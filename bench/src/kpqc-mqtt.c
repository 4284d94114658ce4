/*
 * kpqc-mqtt: an MQTT 3.1.1 client over mutual TLS 1.3 that times each phase
 * of a connection to a broker, for one key-exchange group chosen per
 * connection:
 *
 *   tcp        TCP connect;
 *   tls        the TLS 1.3 handshake (client side, certificate verified);
 *   connack    CONNECT sent -> CONNACK received (in TLS 1.3 the server checks
 *              the client certificate after the client has finished, so a
 *              rejected certificate shows up here);
 *   roundtrip  PUBLISH to a topic the client subscribed to -> the broker's
 *              copy received (and PUBACK, at QoS 1).
 *
 *   kpqc-mqtt --port P --group G --ca CA.pem [--cert C.pem --key K.pem]
 *             [--host 127.0.0.1] [--servername localhost] [--count N]
 *             [--qos 0|1] [--payload BYTES] [--timeout-ms MS]
 *
 * Every connection is a full handshake (no session resumption).  Output:
 * JSON lines, one per connection ("mode":"mqtt"); a connection that fails
 * carries the phase and OpenSSL's reason.  A configuration the client
 * cannot even set up (an unknown group, an unreadable key) prints one
 * "mode":"setup" line with the reason and exits with status 2.
 */
#include <errno.h>
#include <netdb.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include "clock.h"

typedef struct {
    const char *host, *servername, *port, *group, *ca, *cert, *key;
    unsigned long count;
    int qos, timeout_ms;
    size_t payload;
} options;

/* The reason of the last failure: the first OpenSSL error of the queue,
 * the certificate verification result, or errno. */
static char reason[512];

__attribute__((format(printf, 1, 2))) static void set_reason(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
}

static const char *err_text(unsigned long e) {
    static char full[256];
    const char *r = ERR_reason_error_string(e);
    if (r != NULL) return r;
    ERR_error_string_n(e, full, sizeof full);
    return full;
}

static void set_reason_ssl(const char *what, SSL *ssl) {
    unsigned long e = ERR_peek_error();
    long verify = ssl != NULL ? SSL_get_verify_result(ssl) : X509_V_OK;
    if (verify != X509_V_OK)
        set_reason("%s: %s (%s)", what, e ? err_text(e) : "verification failed", X509_verify_cert_error_string(verify));
    else if (e != 0 && ERR_GET_LIB(e) == ERR_LIB_SYS)
        set_reason("%s: connection closed by the broker (%s)", what, strerror(ERR_GET_REASON(e)));
    else if (e != 0)
        set_reason("%s: %s", what, err_text(e));
    else if (errno == EAGAIN || errno == EWOULDBLOCK)
        set_reason("%s: timed out", what);
    else
        set_reason("%s: %s by the broker", what, errno == ECONNRESET ? "connection reset" : "connection closed");
    ERR_clear_error();
}

static void json_string(const char *s) {
    putchar('"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') printf("\\%c", *s);
        else if ((unsigned char)*s < 0x20) printf("\\u%04x", (unsigned char)*s);
        else putchar(*s);
    }
    putchar('"');
}

/* ------------------------------------------------ MQTT 3.1.1 packets */
static size_t put_length(unsigned char *p, size_t n) {
    size_t i = 0;
    do {
        unsigned char b = n % 128;
        n /= 128;
        p[i++] = (unsigned char)(b | (n ? 0x80 : 0));
    } while (n);
    return i;
}

static size_t put_string(unsigned char *p, const char *s) {
    size_t n = strlen(s);
    p[0] = (unsigned char)(n >> 8), p[1] = (unsigned char)n;
    memcpy(p + 2, s, n);
    return n + 2;
}

/* A broker that refused the client certificate has sent an alert and
 * closed: a write then fails on the reset socket, but the alert, still
 * buffered, says why. */
static void read_pending_alert(SSL *ssl, const char *what) {
    unsigned char byte;
    ERR_clear_error();
    errno = 0;
    SSL_read(ssl, &byte, 1);
    set_reason_ssl(what, ssl);
}

/* A packet: fixed header byte, remaining length, body. */
static int send_packet(SSL *ssl, unsigned char type, const unsigned char *body, size_t len) {
    unsigned char *buf = malloc(len + 5);
    if (buf == NULL) return 0;
    buf[0] = type;
    size_t h = 1 + put_length(buf + 1, len);
    memcpy(buf + h, body, len);
    int ok = SSL_write(ssl, buf, (int)(h + len)) == (int)(h + len);
    free(buf);
    if (!ok) read_pending_alert(ssl, "write");
    return ok;
}

static int read_exact(SSL *ssl, unsigned char *p, size_t n) {
    size_t got = 0;
    while (got < n) {
        errno = 0;
        int r = SSL_read(ssl, p + got, (int)(n - got));
        if (r <= 0) return 0;
        got += (size_t)r;
    }
    return 1;
}

/* Reads one packet into *body (caller frees); returns its type byte, -1 on error. */
static int read_packet(SSL *ssl, unsigned char **body, size_t *len, const char *waiting_for) {
    unsigned char type, b;
    size_t n = 0, mult = 1;
    *body = NULL;
    if (!read_exact(ssl, &type, 1)) goto fail;
    for (int i = 0; i < 4; i++) {
        if (!read_exact(ssl, &b, 1)) goto fail;
        n += (size_t)(b & 0x7f) * mult;
        mult *= 128;
        if (!(b & 0x80)) break;
    }
    *body = malloc(n ? n : 1);
    if (*body == NULL || !read_exact(ssl, *body, n)) {
        free(*body);
        *body = NULL;
        goto fail;
    }
    *len = n;
    return type;
fail:
    set_reason_ssl(waiting_for, ssl);
    return -1;
}

/* ------------------------------------------------ one connection */
typedef struct {
    uint64_t tcp, tls, connack, roundtrip, total;
    size_t server_cert_der;
    char group[64], cipher[64];
    const char *phase;
} measurement;

static int tcp_connect(const options *o) {
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *ai = NULL;
    if (getaddrinfo(o->host, o->port, &hints, &ai) != 0) {
        set_reason("tcp: cannot resolve %s", o->host);
        return -1;
    }
    int fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
    struct timeval tv = {.tv_sec = o->timeout_ms / 1000, .tv_usec = (o->timeout_ms % 1000) * 1000};
    int one = 1;
    if (fd >= 0) {
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    }
    if (fd < 0 || connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
        set_reason("tcp: %s", strerror(errno));
        if (fd >= 0) close(fd);
        fd = -1;
    }
    freeaddrinfo(ai);
    return fd;
}

static int mqtt_connect(SSL *ssl, unsigned long i) {
    unsigned char body[128];
    char client_id[48];
    snprintf(client_id, sizeof client_id, "kpqc-mqtt-%ld-%lu", (long)getpid(), i);
    size_t n = put_string(body, "MQTT");
    body[n++] = 4;    /* protocol level 3.1.1 */
    body[n++] = 0x02; /* clean session */
    body[n++] = 0, body[n++] = 60;
    n += put_string(body + n, client_id);
    if (!send_packet(ssl, 0x10, body, n)) return 0;
    unsigned char *ack;
    size_t len;
    int type = read_packet(ssl, &ack, &len, "connack");
    if (type < 0) return 0;
    int ok = type == 0x20 && len == 2 && ack[1] == 0;
    if (!ok) set_reason("connack: refused (packet 0x%02x, code %d)", type, len == 2 ? ack[1] : -1);
    free(ack);
    return ok;
}

static int mqtt_subscribe(SSL *ssl, const char *topic, int qos) {
    unsigned char body[300];
    size_t n = 0;
    body[n++] = 0, body[n++] = 1; /* packet id */
    n += put_string(body + n, topic);
    body[n++] = (unsigned char)qos;
    if (!send_packet(ssl, 0x82, body, n)) return 0;
    unsigned char *ack;
    size_t len;
    int type = read_packet(ssl, &ack, &len, "suback");
    if (type < 0) return 0;
    int ok = (type & 0xf0) == 0x90 && len == 3 && ack[2] != 0x80;
    if (!ok) set_reason("suback: subscription refused");
    free(ack);
    return ok;
}

/* Publishes to `topic` and waits for the broker's copy (and PUBACK at QoS 1). */
static int mqtt_roundtrip(SSL *ssl, const char *topic, int qos, size_t payload) {
    size_t tlen = strlen(topic);
    unsigned char *body = malloc(tlen + 4 + payload);
    if (body == NULL) return 0;
    size_t n = put_string(body, topic);
    if (qos) body[n++] = 0, body[n++] = 2;
    memset(body + n, 'k', payload);
    n += payload;
    int ok = send_packet(ssl, (unsigned char)(0x30 | (qos << 1)), body, n);
    free(body);
    int got_copy = 0, got_ack = !qos;
    while (ok && !(got_copy && got_ack)) {
        unsigned char *p;
        size_t len;
        int type = read_packet(ssl, &p, &len, "publish");
        if (type < 0) return 0;
        if ((type & 0xf0) == 0x40) got_ack = 1;
        if ((type & 0xf0) == 0x30) {
            got_copy = 1;
            size_t tl = len >= 2 ? ((size_t)p[0] << 8 | p[1]) : 0;
            if ((type & 0x06) && len >= tl + 4) { /* the broker's QoS 1 copy wants its PUBACK */
                unsigned char id[2] = {p[2 + tl], p[3 + tl]};
                ok = send_packet(ssl, 0x40, id, 2);
            }
        }
        free(p);
    }
    return ok;
}

static int one_connection(SSL_CTX *ctx, const options *o, unsigned long i, measurement *m) {
    memset(m, 0, sizeof *m);
    reason[0] = 0;
    uint64_t t0 = bench_ns();
    m->phase = "tcp";
    int fd = tcp_connect(o);
    if (fd < 0) return 0;
    uint64_t t1 = bench_ns();
    SSL *ssl = SSL_new(ctx);
    int ok = 0;
    char topic[64];
    snprintf(topic, sizeof topic, "kpqc/bench/%ld/%lu", (long)getpid(), i);
    SSL_set_fd(ssl, fd);
    SSL_set_tlsext_host_name(ssl, o->servername);
    /* The name the broker's certificate must carry (SSL_set1_host is
     * deprecated in OpenSSL 4.0; this works from 3.0 on). */
    if (X509_VERIFY_PARAM_set1_host(SSL_get0_param(ssl), o->servername, 0) != 1) goto done;
    m->phase = "tls";
    errno = 0;
    if (SSL_connect(ssl) != 1) {
        /* A broker that verifies the client certificate as soon as it
         * arrives may refuse it while the rest of our flight is in transit. */
        if (ERR_GET_LIB(ERR_peek_error()) == ERR_LIB_SYS || ERR_peek_error() == 0) read_pending_alert(ssl, "tls");
        else set_reason_ssl("tls", ssl);
        goto done;
    }
    uint64_t t2 = bench_ns();
    m->phase = "connack";
    if (!mqtt_connect(ssl, i)) goto done;
    uint64_t t3 = bench_ns();
    m->phase = "subscribe";
    if (!mqtt_subscribe(ssl, topic, o->qos)) goto done;
    uint64_t t4 = bench_ns();
    m->phase = "publish";
    if (!mqtt_roundtrip(ssl, topic, o->qos, o->payload)) goto done;
    uint64_t t5 = bench_ns();
    send_packet(ssl, 0xe0, NULL, 0); /* DISCONNECT */
    m->tcp = t1 - t0, m->tls = t2 - t1, m->connack = t3 - t2, m->roundtrip = t5 - t4, m->total = t5 - t0;
    int nid = SSL_get_negotiated_group(ssl);
    const char *g = SSL_group_to_name(ssl, nid);
    snprintf(m->group, sizeof m->group, "%s", g ? g : "?");
    snprintf(m->cipher, sizeof m->cipher, "%s", SSL_get_cipher_name(ssl));
    X509 *peer = SSL_get0_peer_certificate(ssl);
    m->server_cert_der = peer ? (size_t)i2d_X509(peer, NULL) : 0;
    ok = 1;
    SSL_shutdown(ssl);
done:
    SSL_free(ssl);
    close(fd);
    return ok;
}

static _Noreturn void setup_failed(const char *what) {
    unsigned long e = ERR_peek_error();
    set_reason("%s%s%s", what, e ? ": " : "", e ? err_text(e) : "");
    printf("{\"mode\":\"setup\",\"ok\":false,\"error\":");
    json_string(reason);
    printf("}\n");
    exit(2);
}

static SSL_CTX *client_context(const options *o) {
    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
    if (ctx == NULL) setup_failed("SSL_CTX_new");
    SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION);
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
    char what[160];
    snprintf(what, sizeof what, "group %s not accepted", o->group);
    if (SSL_CTX_set1_groups_list(ctx, o->group) != 1) setup_failed(what);
    if (SSL_CTX_load_verify_locations(ctx, o->ca, NULL) != 1) setup_failed("cannot read the CA file");
    if (o->cert != NULL && SSL_CTX_use_certificate_chain_file(ctx, o->cert) != 1)
        setup_failed("cannot read the client certificate");
    if (o->key != NULL && SSL_CTX_use_PrivateKey_file(ctx, o->key, SSL_FILETYPE_PEM) != 1)
        setup_failed("cannot read the client key");
    return ctx;
}

int main(int argc, char **argv) {
    options o = {.host = "127.0.0.1", .servername = "localhost", .port = NULL, .group = "X25519",
                 .count = 1, .qos = 1, .timeout_ms = 10000, .payload = 64};
    /* Every option takes a value: options and values come in pairs. */
    for (int i = 1; i < argc; i += 2) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (v == NULL) {
            fprintf(stderr, "kpqc-mqtt: unknown option or missing value: %s\n", a);
            return 1;
        }
        if (strcmp(a, "--host") == 0) o.host = v;
        else if (strcmp(a, "--servername") == 0) o.servername = v;
        else if (strcmp(a, "--port") == 0) o.port = v;
        else if (strcmp(a, "--group") == 0) o.group = v;
        else if (strcmp(a, "--ca") == 0) o.ca = v;
        else if (strcmp(a, "--cert") == 0) o.cert = v;
        else if (strcmp(a, "--key") == 0) o.key = v;
        else if (strcmp(a, "--count") == 0) o.count = strtoul(v, NULL, 10);
        else if (strcmp(a, "--qos") == 0) o.qos = atoi(v) ? 1 : 0;
        else if (strcmp(a, "--payload") == 0) o.payload = strtoul(v, NULL, 10);
        else if (strcmp(a, "--timeout-ms") == 0) o.timeout_ms = atoi(v);
        else {
            fprintf(stderr, "kpqc-mqtt: unknown option or missing value: %s\n", a);
            return 1;
        }
    }
    if (o.port == NULL || o.ca == NULL || o.payload > 65536 || o.timeout_ms <= 0) {
        fprintf(stderr, "usage: kpqc-mqtt --port P --group G --ca CA.pem [--cert C --key K] [--count N] "
                        "[--qos 0|1] [--payload BYTES] [--timeout-ms MS] [--host H] [--servername NAME]\n");
        return 1;
    }
    signal(SIGPIPE, SIG_IGN); /* a broker that refuses us closes the socket: a failed write, not death */
    SSL_CTX *ctx = client_context(&o);
    unsigned long failures = 0;
    for (unsigned long i = 0; i < o.count; i++) {
        measurement m;
        if (one_connection(ctx, &o, i, &m)) {
            printf("{\"mode\":\"mqtt\",\"i\":%lu,\"ok\":true,\"group\":\"%s\",\"cipher\":\"%s\",\"tcp_ns\":%llu,"
                   "\"tls_ns\":%llu,\"connack_ns\":%llu,\"roundtrip_ns\":%llu,\"total_ns\":%llu,"
                   "\"server_cert_der\":%zu}\n",
                   i, m.group, m.cipher, (unsigned long long)m.tcp, (unsigned long long)m.tls,
                   (unsigned long long)m.connack, (unsigned long long)m.roundtrip, (unsigned long long)m.total,
                   m.server_cert_der);
        } else {
            failures++;
            printf("{\"mode\":\"mqtt\",\"i\":%lu,\"ok\":false,\"phase\":\"%s\",\"error\":", i, m.phase);
            json_string(reason);
            printf("}\n");
        }
        fflush(stdout);
    }
    SSL_CTX_free(ctx);
    return failures ? 3 : 0;
}
