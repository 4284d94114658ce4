/*
 * Randomness: the caller's kpqc_rng, or the operating system's.
 *
 *   Linux                      getrandom(2), blocking until the pool is
 *                              seeded, restarted when interrupted
 *   macOS, FreeBSD, OpenBSD,   getentropy(2) (or 3), at most 256 bytes a
 *   NetBSD, DragonFly          call, which never returns less than asked
 *
 * Any other system has no default source: the build stops here rather
 * than fall back to something weaker; pass a kpqc_rng there.
 */
#include <kpqc/kpqc.h>

#include "ct.h"

#if defined(__linux__)
#include <errno.h>
#include <sys/random.h>

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
#elif defined(__APPLE__) || defined(__FreeBSD__) || defined(__OpenBSD__) || defined(__NetBSD__) || \
    defined(__DragonFly__)
#include <unistd.h>
#if defined(__APPLE__)
#include <sys/random.h>
#endif

static int os_fill(uint8_t *out, size_t len) {
    while (len > 0) {
        size_t n = len < 256 ? len : 256; /* getentropy's limit per call */
        if (getentropy(out, n) != 0) return -1;
        out += n;
        len -= n;
    }
    return 0;
}
#else
#error "no operating-system randomness known for this system (see rng.c)"
#endif

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
