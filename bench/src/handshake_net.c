/* kpqc-handshake's modes over TCP sockets: tcp and load over loopback,
 * link between two network namespaces, server and client across machines. */
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

#include <openssl/err.h>
#include <openssl/ssl.h>

#include "clock.h"
#include "handshake.h"

/* ------------------------------------------------ over TCP */
struct net_options net = {NULL, NULL, "127.0.0.1", NULL, 0, 0};

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

int tcp(tls_pair *t, const char *group, size_t count, unsigned clients) {
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

int link_mode(tls_pair *t, const char *group, size_t count) {
    if (net.server_ns == NULL || net.client_ns == NULL) die("link needs --server-netns and --client-netns");
    if (net.timeout_ms == 0) net.timeout_ms = 30000;
    enter_netns(net.server_ns);
    int port, lfd = listen_any(&port);
    size_t warmup = 1;
    job l = {t, NULL, lfd, 0, count + warmup, 1};
    pid_t server = spawn(serve_job, 0, &l);
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

/* Serves until each worker has served --count connections or the process
 * is stopped; every handshake bounded by --timeout-ms, so that a client
 * that stalls or goes away does not hold a worker. */
int server_mode(tls_pair *t, size_t count, unsigned workers) {
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
int client_mode(tls_pair *t, const char *group, size_t count, unsigned clients) {
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
