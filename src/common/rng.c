/* Randomness: the caller's kpqc_rng, or the kernel's getrandom(2). */
#include <errno.h>
#include <sys/random.h>

#include <kpqc/kpqc.h>

#include "ct.h"

static int os_fill(uint8_t *out, size_t len) {
    while (len > 0) {
        /* getrandom returns at most 32 MiB per call and may be interrupted. */
        ssize_t n = getrandom(out, len, 0);
        if (n < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        out += n;
        len -= (size_t)n;
    }
    return 0;
}

int kpqc_randombytes(const kpqc_rng *rng, uint8_t *out, size_t len) {
    int rc;
    if (len == 0) return KPQC_OK;
    if (out == NULL) return KPQC_ERR_ARGUMENT;
    rc = (rng != NULL && rng->fill != NULL) ? rng->fill(rng->ctx, out, len) : os_fill(out, len);
    if (rc != 0) {
        /* Never hand back a partial or stale buffer as if it were random. */
        kpqc_wipe(out, len);
        return KPQC_ERR_RNG;
    }
    return KPQC_OK;
}
