/*
 * libcrypto's allocator (CRYPTO_set_mem_functions) replaced, for the
 * integration tests, by one that watches its blocks:
 *   - where each was allocated (OpenSSL passes the file and line), and how
 *     many have been (a serial number);
 *   - on demand, the n-th allocation from now fails (heap_fail_after);
 *   - a block allocated in provider/ that is released (freed, or moved by
 *     realloc) while it holds a piece of a private key (heap_watch_key) is
 *     a missed wipe: reported and counted.
 * Blocks are handed out zeroed, so that only what is written into one can
 * be found in it.  The allocator keeps no list of its blocks: LeakSanitizer
 * sees a lost block as lost.  Single-threaded tests only.
 */
#ifndef KPQC_TEST_WATCHED_HEAP_H
#define KPQC_TEST_WATCHED_HEAP_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>

typedef struct {
    size_t size;
    const char *file;
    int line;
    int pad[3]; /* the payload stays 16-byte aligned */
} heap_block;
_Static_assert(sizeof(heap_block) % 16 == 0, "heap_block keeps the payload aligned");

#define HEAP_NEEDLE 16
static unsigned long heap_serial;      /* allocations so far */
static long heap_left = -1;            /* allocations before one fails; -1: never */
static unsigned char heap_needles[2][HEAP_NEEDLE];
static int heap_watching, heap_missed_wipes;

static inline int heap_from_provider(const heap_block *h) {
    return h->file != NULL && strstr(h->file, "provider/prov_") != NULL;
}

static inline int heap_holds_secret(const unsigned char *p, size_t n) {
    for (size_t k = 0; k < 2; k++)
        for (size_t i = 0; i + HEAP_NEEDLE <= n; i++)
            if (p[i] == heap_needles[k][0] && memcmp(p + i, heap_needles[k], HEAP_NEEDLE) == 0) return 1;
    return 0;
}

static inline void heap_release(heap_block *h, const char *how) {
    if (heap_watching && heap_from_provider(h) && heap_holds_secret((unsigned char *)(h + 1), h->size)) {
        fprintf(stderr, "secret bytes left in a block of %zu bytes from %s:%d (%s)\n", h->size, h->file, h->line,
                how);
        heap_missed_wipes++;
    }
    free(h);
}

static inline void *heap_malloc(size_t n, const char *file, int line) {
    if (heap_left == 0) return NULL;
    if (heap_left > 0) heap_left--;
    heap_block *h = calloc(1, sizeof *h + (n ? n : 1));
    if (h == NULL) return NULL;
    h->size = n, h->file = file, h->line = line;
    heap_serial++;
    return h + 1;
}

static inline void heap_free(void *p, const char *file, int line) {
    (void)file, (void)line;
    if (p != NULL) heap_release((heap_block *)p - 1, "freed");
}

static inline void *heap_realloc(void *p, size_t n, const char *file, int line) {
    if (p == NULL) return heap_malloc(n, file, line);
    heap_block *old = (heap_block *)p - 1;
    void *q = heap_malloc(n, old->file, old->line);
    if (q == NULL) return NULL;
    memcpy(q, p, old->size < n ? old->size : n);
    heap_release(old, "moved by realloc");
    return q;
}

static inline int heap_install(void) { return CRYPTO_set_mem_functions(heap_malloc, heap_realloc, heap_free); }

/* From now on the allocation after n more fails (n = -1: none fails). */
static inline void heap_fail_after(long n) { heap_left = n; }

/* Two pieces of key's private encoding (KpqC secret key || public key
 * ...) that are not in its public key, secret bytes, are looked for in
 * released provider blocks from now on (key NULL: no more).  0 when the key
 * has no such two pieces. */
static inline int heap_watch_key(EVP_PKEY *key) {
    OSSL_PARAM *params = NULL;
    const OSSL_PARAM *priv = NULL;
    const void *raw = NULL;
    size_t raw_len = 0, pub_len = 0, found = 0;
    unsigned char *pub = NULL;
    heap_watching = 0;
    if (key == NULL || EVP_PKEY_todata(key, EVP_PKEY_KEYPAIR, &params) != 1 ||
        (priv = OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_PRIV_KEY)) == NULL ||
        !OSSL_PARAM_get_octet_string_ptr(priv, &raw, &raw_len) ||
        (pub_len = EVP_PKEY_get1_encoded_public_key(key, &pub)) == 0) {
        OSSL_PARAM_free(params);
        return 0;
    }
    for (size_t off = 0; found < 2 && off + HEAP_NEEDLE <= raw_len; off += HEAP_NEEDLE / 2) {
        const unsigned char *w = (const unsigned char *)raw + off;
        int in_pub = 0;
        for (size_t i = 0; !in_pub && i + HEAP_NEEDLE <= pub_len; i++) in_pub = memcmp(pub + i, w, HEAP_NEEDLE) == 0;
        if (!in_pub) memcpy(heap_needles[found++], w, HEAP_NEEDLE);
    }
    OPENSSL_free(pub);
    OSSL_PARAM_free(params);
    heap_watching = found == 2;
    return heap_watching;
}

#endif
