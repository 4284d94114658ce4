/*
 * kpqc-footprint: the stack and the heap one algorithm's operations take,
 * in a program that holds that algorithm alone.  The lab (suite
 * `footprint`) compiles this file once per algorithm and library build,
 * links it statically against libkpqc.a (or OpenSSL's libcrypto.a) with
 * --gc-sections, and reads the linker's map for the code the algorithm
 * adds.  Build with one of
 *   -DFOOTPRINT_KEM=<id>          a KEM of the table (its kpqc_<id>_ops only)
 *   -DFOOTPRINT_SIG=<id>          a signature scheme of the table
 *   -DFOOTPRINT_OPENSSL_KEM=name  an OpenSSL KEM through EVP ("ML-KEM-768")
 *   -DFOOTPRINT_OPENSSL_SIG=name  an OpenSSL signature through EVP ("ML-DSA-44")
 * and link with --wrap for malloc, calloc, realloc, free, aligned_alloc and
 * posix_memalign, so that every allocation of the statically linked code is
 * counted.
 *
 * Stack: every operation runs on one worker thread whose stack (mapped
 * here, a guard page below it) is painted with a byte pattern below the
 * caller's frame before the call; afterwards the lowest byte that no
 * longer holds the pattern is the deepest the operation went.  Each
 * operation is painted and run twice, with two patterns, and the larger
 * depth kept (a byte the operation happened to write with the pattern
 * cannot hide the true depth in both).  The depth of an empty call, taken
 * the same way, is subtracted.  A first round of all operations warms up
 * whatever is set up once (CPU detection, OpenSSL's fetches and per-thread
 * state) and is not reported.
 *
 * Output: one JSON line per operation,
 *   {"op": "keygen", "stack": bytes, "allocs": n, "heap_peak": bytes, "ok": 1}
 */
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#if defined(FOOTPRINT_OPENSSL_KEM) || defined(FOOTPRINT_OPENSSL_SIG)
#include <openssl/evp.h>
#else
#include "internal.h"
#endif

/* ------------------------------------------------------------ heap */

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);
void *__real_aligned_alloc(size_t a, size_t n);
int __real_posix_memalign(void **p, size_t a, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t m);
void *__wrap_realloc(void *p, size_t n);
void __wrap_free(void *p);
void *__wrap_aligned_alloc(size_t a, size_t n);
int __wrap_posix_memalign(void **p, size_t a, size_t n);

static size_t allocs, live, peak;

static void *counted(void *p) {
    if (p != NULL) {
        allocs++;
        live += malloc_usable_size(p);
        if (live > peak) peak = live;
    }
    return p;
}
void *__wrap_malloc(size_t n) { return counted(__real_malloc(n)); }
void *__wrap_calloc(size_t n, size_t m) { return counted(__real_calloc(n, m)); }
void *__wrap_aligned_alloc(size_t a, size_t n) { return counted(__real_aligned_alloc(a, n)); }
int __wrap_posix_memalign(void **p, size_t a, size_t n) {
    int rc = __real_posix_memalign(p, a, n);
    if (rc == 0) counted(*p);
    return rc;
}
void __wrap_free(void *p) {
    if (p != NULL) live -= malloc_usable_size(p);
    __real_free(p);
}
void *__wrap_realloc(void *p, size_t n) {
    size_t old = p != NULL ? malloc_usable_size(p) : 0;
    void *q = __real_realloc(p, n);
    if (q == NULL) return NULL; /* p untouched (or n == 0 and p freed: not reached here) */
    live -= old;
    return counted(q);
}

/* ------------------------------------------------------------ stack */

#define STACK_BYTES ((size_t)16 << 20)
#define PAGE ((size_t)4096)
static uint8_t *stack_lo; /* lowest usable byte of the worker's stack */

/* Paints the stack from its bottom to a little below this frame. */
__attribute__((noinline)) static void paint(uint8_t pattern) {
    volatile uint8_t *p = stack_lo;
    uint8_t *limit = (uint8_t *)__builtin_frame_address(0) - 256;
    while (p < (volatile uint8_t *)limit) *p++ = pattern;
}

/* The lowest byte that lost the pattern. */
__attribute__((noinline)) static uint8_t *deepest(uint8_t pattern) {
    uint8_t *p = stack_lo;
    while (*p == pattern) p++;
    return p;
}

typedef int (*operation)(void);

/* Bytes of stack below this frame that `op` touched (the larger of two
 * paintings); 0 results for *ok when the operation fails. */
__attribute__((noinline)) static size_t depth(operation op, int *ok) {
    static const uint8_t patterns[2] = {0xA5, 0x5A};
    size_t used = 0;
    *ok = 1;
    for (unsigned i = 0; i < 2; i++) {
        paint(patterns[i]);
        *ok &= op() == 0;
        size_t d = (size_t)((uint8_t *)__builtin_frame_address(0) - deepest(patterns[i]));
        if (d > used) used = d;
    }
    return used;
}

static int nothing(void) { return 0; }

/* ------------------------------------------------------- operations */

/* Each variant uses some of these (OpenSSL's keys live in an EVP_PKEY, a
 * signature has no secret); out_len is a signature's or a ciphertext's. */
#define BUFFER static __attribute__((unused))
BUFFER uint8_t pk[1 << 16], sk[1 << 16], out[1 << 16], ss[256], msg[64];
BUFFER size_t out_len;

#if defined(FOOTPRINT_KEM) || defined(FOOTPRINT_SIG)
#define PASTE(a, b, c) a##b##c
#define OPS(id) PASTE(kpqc_, id, _ops)
#endif

#if defined(FOOTPRINT_KEM)
#define OP_NAMES {"keygen", "encaps", "decaps"}
static int op1(void) { return OPS(FOOTPRINT_KEM).keypair(pk, sk, NULL); }
static int op2(void) { return OPS(FOOTPRINT_KEM).encaps(out, ss, pk, NULL); }
static int op3(void) { return OPS(FOOTPRINT_KEM).decaps(ss, out, sk); }
#elif defined(FOOTPRINT_SIG)
#define OP_NAMES {"keygen", "sign", "verify"}
static int op1(void) { return OPS(FOOTPRINT_SIG).keypair(pk, sk, NULL); }
static int op2(void) {
    out_len = sizeof out;
    return OPS(FOOTPRINT_SIG).sign(out, &out_len, msg, sizeof msg, NULL, 0, sk, NULL);
}
static int op3(void) { return OPS(FOOTPRINT_SIG).verify(out, out_len, msg, sizeof msg, NULL, 0, pk); }
#elif defined(FOOTPRINT_OPENSSL_KEM) || defined(FOOTPRINT_OPENSSL_SIG)
/* The key lives in an EVP_PKEY; each operation makes and frees its context,
 * as a TLS stack does per handshake. */
static EVP_PKEY *key;
/* The new key is made before the old one is freed, so that its heap counts. */
static int op1(void) {
#ifdef FOOTPRINT_OPENSSL_KEM
    EVP_PKEY *fresh = EVP_PKEY_Q_keygen(NULL, NULL, FOOTPRINT_OPENSSL_KEM);
#else
    EVP_PKEY *fresh = EVP_PKEY_Q_keygen(NULL, NULL, FOOTPRINT_OPENSSL_SIG);
#endif
    if (fresh == NULL) return -1;
    EVP_PKEY_free(key);
    key = fresh;
    return 0;
}
#ifdef FOOTPRINT_OPENSSL_KEM
#define OP_NAMES {"keygen", "encaps", "decaps"}
static int op2(void) {
    EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_pkey(NULL, key, NULL);
    size_t ct_len = sizeof out, ss_len = sizeof ss;
    int ok = c != NULL && EVP_PKEY_encapsulate_init(c, NULL) == 1 &&
             EVP_PKEY_encapsulate(c, out, &ct_len, ss, &ss_len) == 1;
    out_len = ct_len;
    EVP_PKEY_CTX_free(c);
    return ok ? 0 : -1;
}
static int op3(void) {
    EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_pkey(NULL, key, NULL);
    size_t ss_len = sizeof ss;
    int ok = c != NULL && EVP_PKEY_decapsulate_init(c, NULL) == 1 &&
             EVP_PKEY_decapsulate(c, ss, &ss_len, out, out_len) == 1;
    EVP_PKEY_CTX_free(c);
    return ok ? 0 : -1;
}
#else
#define OP_NAMES {"keygen", "sign", "verify"}
static int op2(void) {
    EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_pkey(NULL, key, NULL);
    EVP_SIGNATURE *alg = EVP_SIGNATURE_fetch(NULL, FOOTPRINT_OPENSSL_SIG, NULL);
    out_len = sizeof out;
    int ok = c != NULL && alg != NULL && EVP_PKEY_sign_message_init(c, alg, NULL) == 1 &&
             EVP_PKEY_sign(c, out, &out_len, msg, sizeof msg) == 1;
    EVP_SIGNATURE_free(alg);
    EVP_PKEY_CTX_free(c);
    return ok ? 0 : -1;
}
static int op3(void) {
    EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_pkey(NULL, key, NULL);
    EVP_SIGNATURE *alg = EVP_SIGNATURE_fetch(NULL, FOOTPRINT_OPENSSL_SIG, NULL);
    int ok = c != NULL && alg != NULL && EVP_PKEY_verify_message_init(c, alg, NULL) == 1 &&
             EVP_PKEY_verify(c, out, out_len, msg, sizeof msg) == 1;
    EVP_SIGNATURE_free(alg);
    EVP_PKEY_CTX_free(c);
    return ok ? 0 : -1;
}
#endif
#else
/* The harness alone: the baseline program of the code-size comparison. */
#define OP_NAMES {"keygen", "encaps", "decaps"}
static int op1(void) { return 0; }
static int op2(void) { return 0; }
static int op3(void) { return 0; }
#endif

static void *worker(void *arg) {
    (void)arg;
    static const operation ops[3] = {op1, op2, op3};
    static const char *const names[3] = OP_NAMES;
    int ok;
    for (unsigned i = 0; i < 3; i++) ops[i](); /* warm-up */
    const size_t floor = depth(nothing, &ok);
    for (unsigned i = 0; i < 3; i++) {
        allocs = 0, peak = live;
        const size_t base = live, used = depth(ops[i], &ok);
        printf("{\"op\": \"%s\", \"stack\": %zu, \"allocs\": %zu, \"heap_peak\": %zu, \"ok\": %d}\n", names[i],
               used > floor ? used - floor : 0, allocs / 2, peak - base, ok);
    }
    return NULL;
}

int main(void) {
    uint8_t *map = mmap(NULL, STACK_BYTES + PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED || mprotect(map, PAGE, PROT_NONE) != 0) return perror("kpqc-footprint: stack"), 1;
    stack_lo = map + PAGE;
    memset(msg, 0x42, sizeof msg);
    pthread_attr_t attr;
    pthread_t t;
    if (pthread_attr_init(&attr) != 0 || pthread_attr_setstack(&attr, stack_lo, STACK_BYTES) != 0 ||
        pthread_create(&t, &attr, worker, NULL) != 0 || pthread_join(t, NULL) != 0)
        return fputs("kpqc-footprint: worker thread failed\n", stderr), 1;
    return fflush(stdout) == 0 ? 0 : 1;
}
