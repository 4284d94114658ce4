/* kpqc-handshake's heap accounting: OpenSSL's allocations counted through
 * its memory hooks (live bytes, their peak, totals per handshake). */
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "handshake.h"

/* Every allocation carries its size in a 16-byte header so that frees can
 * be counted: live bytes, their peak, and totals per handshake. */
size_t live_bytes, peak_bytes, alloc_count, alloc_bytes;

static void *count_malloc(size_t n, const char *f, int l) {
    (void)f, (void)l;
    unsigned char *p = malloc(n + 16);
    if (p == NULL) return NULL;
    memcpy(p, &n, sizeof n);
    live_bytes += n;
    alloc_bytes += n;
    alloc_count++;
    if (live_bytes > peak_bytes) peak_bytes = live_bytes;
    return p + 16;
}
static void count_free(void *q, const char *f, int l) {
    (void)f, (void)l;
    if (q == NULL) return;
    unsigned char *p = (unsigned char *)q - 16;
    size_t n;
    memcpy(&n, p, sizeof n);
    live_bytes -= n;
    free(p);
}
static void *count_realloc(void *q, size_t n, const char *f, int l) {
    if (q == NULL) return count_malloc(n, f, l);
    if (n == 0) {
        count_free(q, f, l);
        return NULL;
    }
    void *r = count_malloc(n, f, l);
    if (r == NULL) return NULL;
    size_t old;
    memcpy(&old, (unsigned char *)q - 16, sizeof old);
    memcpy(r, q, old < n ? old : n);
    count_free(q, f, l);
    return r;
}

int heap_install(void) {
    return CRYPTO_set_mem_functions(count_malloc, count_realloc, count_free);
}
