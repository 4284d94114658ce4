/*
 * kpqc-linkemu: a packet-level link between two network namespaces, for
 * kernels without sch_netem.  Each namespace gets a TUN device; this
 * program holds both and forwards every IP packet from one to the other
 * through an emulated link, so TCP runs end to end in the two kernels
 * (handshake, initial window, retransmissions are the kernels' own).
 *
 *   kpqc-linkemu --netns-a NS --netns-b NS [--dev NAME]
 *                [--addr-a IP] [--addr-b IP] [--prefix N] [--mtu BYTES]
 *                [--delay-ms D] [--jitter-ms J] [--jitter-dist uniform|normal]
 *                [--loss PERCENT] [--rate-mbit R] [--queue-bytes Q]
 *                [--seed S] [--duration SECONDS] [--spin-us US]
 *
 * Link options take one value for both directions or "A2B/B2A".  Per
 * direction, a packet goes through, in order:
 *   MTU     packets larger than --mtu are dropped (the TUNs' MTU is set too);
 *   rate    a FIFO serialiser: size*8/rate seconds per packet behind the ones
 *           before it; a packet that would make the backlog exceed
 *           --queue-bytes is dropped (tail drop);
 *   loss    Bernoulli, --loss percent of the packets leaving the serialiser;
 *   delay   --delay-ms one way (RTT/2), plus jitter: uniform on [-J, +J] or
 *           normal with sd J/2 clipped to [-J, +J], never below zero.
 *           Without jitter the order of packets is kept; with jitter a
 *           packet may overtake another.
 * Loss and jitter come from a seeded PRNG (xoshiro256**), one stream per
 * direction, so a run can be repeated exactly.
 *
 * Packets wait in one min-heap ordered by due time; a timerfd wakes the
 * program --spin-us (default 50) before the next one is due and it polls
 * through the rest, at real-time priority when it may (as netem runs in
 * softirq), with idle CPUs kept from sleeping deeply.  Its counters say how
 * late packets were written, so a run can show the link kept time.
 *
 * Namespaces are names under /run/netns (as `ip netns add` makes them) or
 * paths.  The TUNs exist as long as this program runs.  It prints one JSON
 * line when the link is up, and one with per-direction counters when it
 * stops: on end of standard input (the caller's control pipe), SIGINT,
 * SIGTERM or after --duration seconds (default 3600).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define MAX_PACKET 65536
#define MAX_IN_FLIGHT 200000 /* packets held by the link at once (both directions) */
#define TUN_QUEUE_PACKETS 20000

static _Noreturn void fail(const char *what) {
    fprintf(stderr, "kpqc-linkemu: %s: %s\n", what, errno ? strerror(errno) : "invalid");
    exit(2);
}

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* ------------------------------------------------ PRNG (xoshiro256**) */
typedef struct { uint64_t s[4]; } rng_t;

static uint64_t splitmix64(uint64_t *x) {
    uint64_t z = (*x += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}
static void rng_seed(rng_t *r, uint64_t seed) {
    for (int i = 0; i < 4; i++) r->s[i] = splitmix64(&seed);
}
static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
static uint64_t rng_next(rng_t *r) {
    uint64_t *s = r->s, out = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0], s[3] ^= s[1], s[1] ^= s[2], s[0] ^= s[3], s[2] ^= t, s[3] = rotl(s[3], 45);
    return out;
}
/* uniform on [0, 1) with 53 bits */
static double rng_unit(rng_t *r) { return (double)(rng_next(r) >> 11) * 0x1.0p-53; }

/* ------------------------------------------------ link configuration */
enum { A2B, B2A };
enum { JITTER_UNIFORM, JITTER_NORMAL };

typedef struct {
    double delay_ns, jitter_ns, loss, rate_bps; /* rate 0: unlimited */
    double queue_bytes;
    int jitter_dist;
    unsigned mtu;
    rng_t rng;
    uint64_t serialiser_free; /* when the serialiser finishes its backlog */
    /* counters */
    uint64_t rx, rx_bytes, forwarded, forwarded_bytes, lost, queue_drops, mtu_drops, write_drops, overflow_drops;
    uint64_t late_ns_sum, late_ns_max; /* how far behind their due time packets were written */
} direction;

/* "X" sets both directions, "X/Y" sets A->B and B->A. */
static void both(const char *arg, double scale, double *a2b, double *b2a) {
    char *end;
    errno = 0;
    double x = strtod(arg, &end), y = x;
    if (*end == '/') y = strtod(end + 1, &end);
    if (*end != '\0' || x < 0 || y < 0 || !isfinite(x) || !isfinite(y)) fail(arg);
    *a2b = x * scale, *b2a = y * scale;
}

static double jitter(direction *d) {
    if (d->jitter_ns <= 0) return 0;
    double j;
    if (d->jitter_dist == JITTER_UNIFORM) {
        j = (2 * rng_unit(&d->rng) - 1) * d->jitter_ns;
    } else { /* Box-Muller, sd J/2, clipped to +-J */
        double u1 = 1 - rng_unit(&d->rng), u2 = rng_unit(&d->rng);
        j = sqrt(-2 * log(u1)) * cos(2 * M_PI * u2) * d->jitter_ns / 2;
        if (j > d->jitter_ns) j = d->jitter_ns;
        if (j < -d->jitter_ns) j = -d->jitter_ns;
    }
    return j;
}

/* ------------------------------------------------ packets in flight: a min-heap on (due, seq) */
typedef struct {
    uint64_t due, seq;
    int dir;
    uint16_t len;
    unsigned char data[];
} packet;

static packet **heap;
static size_t heap_n;

static int earlier(const packet *x, const packet *y) { return x->due < y->due || (x->due == y->due && x->seq < y->seq); }

static void heap_push(packet *p) {
    size_t i = heap_n++;
    while (i > 0 && earlier(p, heap[(i - 1) / 2])) {
        heap[i] = heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    heap[i] = p;
}

static packet *heap_pop(void) {
    packet *top = heap[0], *last = heap[--heap_n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= heap_n) break;
        if (c + 1 < heap_n && earlier(heap[c + 1], heap[c])) c++;
        if (!earlier(heap[c], last)) break;
        heap[i] = heap[c];
        i = c;
    }
    if (heap_n > 0) heap[i] = last;
    return top;
}

/* ------------------------------------------------ TUN devices inside namespaces */
static int enter_netns(const char *ns) {
    char path[512];
    snprintf(path, sizeof path, strchr(ns, '/') ? "%s" : "/run/netns/%s", ns);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) fail(path);
    if (setns(fd, CLONE_NEWNET) != 0) fail("setns");
    close(fd);
    return 0;
}

static void set_in4(struct sockaddr *sa, const char *ip) {
    struct sockaddr_in *in = (struct sockaddr_in *)sa;
    memset(in, 0, sizeof *in);
    in->sin_family = AF_INET;
    if (inet_pton(AF_INET, ip, &in->sin_addr) != 1) fail(ip);
}

/* A TUN device created in namespace `ns`, with its MTU and address set and
 * brought up; returns its file descriptor (non-blocking). */
static int tun_in(const char *ns, const char *dev, unsigned mtu, const char *addr, unsigned prefix) {
    int home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
    if (home < 0) fail("/proc/self/ns/net");
    enter_netns(ns);
    int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) fail("/dev/net/tun");
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    ifr.ifr_flags = IFF_TUN | IFF_NO_PI;
    snprintf(ifr.ifr_name, IFNAMSIZ, "%s", dev);
    if (ioctl(fd, TUNSETIFF, &ifr) != 0) fail("TUNSETIFF");
    int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (s < 0) fail("socket");
    ifr.ifr_mtu = (int)mtu;
    if (ioctl(s, SIOCSIFMTU, &ifr) != 0) fail("SIOCSIFMTU");
    /* The TUN's queue only buffers packets until this program reads them;
     * the link's own queue is --queue-bytes.  A long one means that a moment
     * when this program is not scheduled delays packets instead of dropping
     * them where no counter sees it. */
    ifr.ifr_qlen = TUN_QUEUE_PACKETS;
    if (ioctl(s, SIOCSIFTXQLEN, &ifr) != 0) fail("SIOCSIFTXQLEN");
    set_in4(&ifr.ifr_addr, addr);
    if (ioctl(s, SIOCSIFADDR, &ifr) != 0) fail("SIOCSIFADDR");
    struct sockaddr_in *mask = (struct sockaddr_in *)&ifr.ifr_netmask;
    memset(mask, 0, sizeof *mask);
    mask->sin_family = AF_INET;
    mask->sin_addr.s_addr = htonl(prefix ? 0xffffffffu << (32 - prefix) : 0);
    if (ioctl(s, SIOCSIFNETMASK, &ifr) != 0) fail("SIOCSIFNETMASK");
    if (ioctl(s, SIOCGIFFLAGS, &ifr) != 0) fail("SIOCGIFFLAGS");
    ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
    if (ioctl(s, SIOCSIFFLAGS, &ifr) != 0) fail("SIOCSIFFLAGS");
    close(s);
    if (setns(home, CLONE_NEWNET) != 0) fail("setns back");
    close(home);
    return fd;
}

/* The PM QoS request holds while the descriptor is open: until exit. */
static int hold_zero_wakeup_latency(void) {
    int fd = open("/dev/cpu_dma_latency", O_WRONLY | O_CLOEXEC);
    int32_t zero = 0;
    if (fd < 0) return 0;
    if (write(fd, &zero, sizeof zero) != (ssize_t)sizeof zero) {
        close(fd);
        return 0;
    }
    return 1;
}

/* ------------------------------------------------ forwarding */
static direction link_dir[2];
static uint64_t next_seq;
static volatile sig_atomic_t stop_signal;

static void on_signal(int sig) { stop_signal = sig; }

/* One packet read from the sending side of direction `dir` enters the link. */
static void admit(int dir, const unsigned char *buf, size_t len, uint64_t now) {
    direction *d = &link_dir[dir];
    d->rx++, d->rx_bytes += len;
    if (len > d->mtu) {
        d->mtu_drops++;
        return;
    }
    uint64_t leaves = now;
    if (d->rate_bps > 0) {
        uint64_t start = d->serialiser_free > now ? d->serialiser_free : now;
        double backlog = (double)(start - now) * d->rate_bps / 8e9; /* bytes still to serialise */
        if (backlog + (double)len > d->queue_bytes) {
            d->queue_drops++;
            return;
        }
        d->serialiser_free = start + (uint64_t)((double)len * 8e9 / d->rate_bps + 0.5);
        leaves = d->serialiser_free;
    }
    if (d->loss > 0 && rng_unit(&d->rng) < d->loss) {
        d->lost++;
        return;
    }
    if (heap_n >= MAX_IN_FLIGHT) {
        d->overflow_drops++;
        return;
    }
    double delay = d->delay_ns + jitter(d);
    packet *p = malloc(sizeof *p + len);
    if (p == NULL) {
        d->overflow_drops++;
        return;
    }
    p->due = leaves + (uint64_t)(delay > 0 ? delay + 0.5 : 0);
    p->seq = next_seq++;
    p->dir = dir;
    p->len = (uint16_t)len;
    memcpy(p->data, buf, len);
    heap_push(p);
}

static void deliver_due(const int tun[2], uint64_t now) {
    while (heap_n > 0 && heap[0]->due <= now) {
        packet *p = heap_pop();
        direction *d = &link_dir[p->dir];
        int to = tun[p->dir == A2B ? 1 : 0];
        uint64_t late = now - p->due;
        d->late_ns_sum += late;
        if (late > d->late_ns_max) d->late_ns_max = late;
        if (write(to, p->data, p->len) == (ssize_t)p->len) d->forwarded++, d->forwarded_bytes += p->len;
        else d->write_drops++;
        free(p);
    }
}

static void print_counters(FILE *out, const char *name, const direction *d) {
    fprintf(out,
            "\"%s\":{\"rx\":%llu,\"rx_bytes\":%llu,\"forwarded\":%llu,\"forwarded_bytes\":%llu,\"lost\":%llu,"
            "\"queue_drops\":%llu,\"mtu_drops\":%llu,\"write_drops\":%llu,\"overflow_drops\":%llu,"
            "\"late_us_mean\":%.1f,\"late_us_max\":%.1f}",
            name, (unsigned long long)d->rx, (unsigned long long)d->rx_bytes, (unsigned long long)d->forwarded,
            (unsigned long long)d->forwarded_bytes, (unsigned long long)d->lost, (unsigned long long)d->queue_drops,
            (unsigned long long)d->mtu_drops, (unsigned long long)d->write_drops,
            (unsigned long long)d->overflow_drops,
            d->forwarded + d->write_drops ? (double)d->late_ns_sum / 1e3 / (double)(d->forwarded + d->write_drops) : 0.0,
            (double)d->late_ns_max / 1e3);
}

int main(int argc, char **argv) {
    const char *ns[2] = {NULL, NULL}, *dev = "kpqc0", *addr[2] = {"10.77.0.1", "10.77.0.2"};
    double delay[2] = {0, 0}, jit[2] = {0, 0}, loss[2] = {0, 0}, rate[2] = {0, 0}, queue[2] = {-1, -1};
    double duration = 3600, spin_us = 50;
    unsigned prefix = 24, mtu = 1500;
    uint64_t seed = 1;
    int dist = JITTER_UNIFORM;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (v == NULL) fail(o);
        i++;
        if (strcmp(o, "--netns-a") == 0) ns[0] = v;
        else if (strcmp(o, "--netns-b") == 0) ns[1] = v;
        else if (strcmp(o, "--dev") == 0) dev = v;
        else if (strcmp(o, "--addr-a") == 0) addr[0] = v;
        else if (strcmp(o, "--addr-b") == 0) addr[1] = v;
        else if (strcmp(o, "--prefix") == 0) prefix = (unsigned)strtoul(v, NULL, 10);
        else if (strcmp(o, "--mtu") == 0) mtu = (unsigned)strtoul(v, NULL, 10);
        else if (strcmp(o, "--delay-ms") == 0) both(v, 1e6, &delay[0], &delay[1]);
        else if (strcmp(o, "--jitter-ms") == 0) both(v, 1e6, &jit[0], &jit[1]);
        else if (strcmp(o, "--loss") == 0) both(v, 0.01, &loss[0], &loss[1]);
        else if (strcmp(o, "--rate-mbit") == 0) both(v, 1e6, &rate[0], &rate[1]);
        else if (strcmp(o, "--queue-bytes") == 0) both(v, 1, &queue[0], &queue[1]);
        else if (strcmp(o, "--seed") == 0) seed = strtoull(v, NULL, 0);
        else if (strcmp(o, "--duration") == 0) duration = strtod(v, NULL);
        else if (strcmp(o, "--spin-us") == 0) spin_us = strtod(v, NULL);
        else if (strcmp(o, "--jitter-dist") == 0) {
            if (strcmp(v, "uniform") == 0) dist = JITTER_UNIFORM;
            else if (strcmp(v, "normal") == 0) dist = JITTER_NORMAL;
            else fail(v);
        } else fail(o);
    }
    errno = 0;
    if (ns[0] == NULL || ns[1] == NULL) fail("--netns-a and --netns-b are required");
    if (prefix > 32 || mtu < 576 || mtu > MAX_PACKET - 1 || loss[0] > 1 || loss[1] > 1 || !(duration > 0))
        fail("option out of range");
    for (int d = 0; d < 2; d++) {
        direction *l = &link_dir[d];
        l->delay_ns = delay[d], l->jitter_ns = jit[d], l->loss = loss[d], l->rate_bps = rate[d];
        l->jitter_dist = dist, l->mtu = mtu;
        /* default queue: 100 ms at the link rate, at least 64 KiB */
        l->queue_bytes = queue[d] >= 0 ? queue[d] : fmax(65536, rate[d] * 0.1 / 8);
        rng_seed(&l->rng, seed * 2 + (uint64_t)d);
    }
    if (!(spin_us >= 0 && spin_us <= 10000)) fail("--spin-us must be 0..10000");
    uint64_t spin_ns = (uint64_t)(spin_us * 1000);
    heap = malloc(sizeof *heap * MAX_IN_FLIGHT);
    if (heap == NULL) fail("malloc");
    prctl(PR_SET_TIMERSLACK, 1UL); /* wake-ups on time to the microsecond, not 50 us late */
    /* netem runs in the kernel's softirq, ahead of every task; the closest a
     * program gets is a real-time priority.  Best effort: without it the link
     * still works, with the machine's scheduling latency added. */
    struct sched_param prio = {.sched_priority = 10};
    int realtime = sched_setscheduler(0, SCHED_FIFO, &prio) == 0;
    /* An idle CPU (a halted virtual CPU above all) takes 50-150 us to wake
     * up for a packet the kernel hands over; that would be added to every
     * hop, unmeasured, since a TUN read carries no arrival time.  A
     * latency request of 0 us keeps idle CPUs polling instead of halting
     * for as long as this program holds it (what cyclictest does).  Best
     * effort, like the priority: it needs root. */
    int low_latency = hold_zero_wakeup_latency();

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    int tun[2];
    for (int d = 0; d < 2; d++) tun[d] = tun_in(ns[d], dev, mtu, addr[d], prefix);
    printf("{\"ready\":true,\"dev\":\"%s\",\"addr_a\":\"%s\",\"addr_b\":\"%s\",\"mtu\":%u,\"realtime\":%d,"
           "\"low_latency\":%d}\n",
           dev, addr[0], addr[1], mtu, realtime, low_latency);
    fflush(stdout);

    static unsigned char buf[MAX_PACKET];
    uint64_t deadline = now_ns() + (uint64_t)(duration * 1e9);
    /* The next due packet wakes us through an absolute timerfd (a poll()
     * timeout may fire 0.1 % of its length late), --spin-us before it is
     * due: waking an idle CPU (in a virtual machine above all) takes tens
     * to hundreds of microseconds, so the last stretch is polled. */
    int timer = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (timer < 0) fail("timerfd_create");
    struct pollfd pf[4] = {{.fd = tun[0], .events = POLLIN}, {.fd = tun[1], .events = POLLIN},
                           {.fd = STDIN_FILENO, .events = POLLIN}, {.fd = timer, .events = POLLIN}};
    while (!stop_signal) {
        uint64_t now = now_ns();
        deliver_due(tun, now);
        if (now >= deadline) break;
        uint64_t wake = heap_n > 0 && heap[0]->due < deadline ? heap[0]->due : deadline;
        int n;
        if (wake > now + spin_ns) {
            uint64_t at = wake - spin_ns;
            struct itimerspec its = {.it_value = {.tv_sec = (time_t)(at / 1000000000u),
                                                  .tv_nsec = (long)(at % 1000000000u)}};
            if (timerfd_settime(timer, TFD_TIMER_ABSTIME, &its, NULL) != 0) fail("timerfd_settime");
            n = poll(pf, 4, -1);
        } else {
            n = poll(pf, 4, 0); /* the last stretch before a due packet: keep polling */
        }
        if (n < 0) {
            if (errno == EINTR) continue;
            fail("poll");
        }
        if (pf[3].revents) {
            uint64_t expirations;
            if (read(timer, &expirations, sizeof expirations) < 0 && errno != EAGAIN) fail("timerfd read");
        }
        if (pf[2].revents) { /* the control pipe: any input is ignored, its end stops the link */
            ssize_t r = read(STDIN_FILENO, buf, sizeof buf);
            if (r <= 0) break;
        }
        for (int d = 0; d < 2; d++) {
            if (!(pf[d].revents & POLLIN)) continue;
            /* a bounded batch per wake-up, so one busy side cannot starve the timers */
            for (int k = 0; k < 256; k++) {
                ssize_t r = read(tun[d], buf, sizeof buf);
                if (r <= 0) break;
                admit(d == 0 ? A2B : B2A, buf, (size_t)r, now_ns());
            }
        }
    }
    printf("{\"stopped\":true,\"in_flight\":%zu,", heap_n);
    print_counters(stdout, "a2b", &link_dir[A2B]);
    putchar(',');
    print_counters(stdout, "b2a", &link_dir[B2A]);
    printf("}\n");
    fflush(stdout);
    close(timer);
    while (heap_n > 0) free(heap_pop());
    free(heap);
    return 0;
}
