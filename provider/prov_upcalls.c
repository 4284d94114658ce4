/*
 * What every part of the provider asks of the core that loaded its
 * instance: raising an error, and randomness from the instance's library
 * context.  A leaf: the entry point and the key, key-management, codec,
 * KEM, signature and Bouncy Castle modules all call it, and it calls none
 * of them.
 */
#include <stdarg.h>

#include <openssl/rand.h>

#include "kpqcprovider.h"

void kpqc_prov_raise(kpqc_prov_ctx *provctx, int reason, const char *fmt, ...) {
    va_list ap;
    if (provctx == NULL || provctx->core.new_error == NULL || provctx->core.set_error_debug == NULL ||
        provctx->core.vset_error == NULL)
        return;
    provctx->core.new_error(provctx->handle);
    provctx->core.set_error_debug(provctx->handle, NULL, 0, "kpqcprovider");
    va_start(ap, fmt);
    provctx->core.vset_error(provctx->handle, (uint32_t)reason, fmt, ap);
    va_end(ap);
}

static int rng_fill(void *ctx, uint8_t *out, size_t len) {
    kpqc_prov_ctx *provctx = ctx;
    return RAND_bytes_ex(provctx->libctx, out, len, 0) == 1 ? 0 : -1;
}

kpqc_rng kpqc_prov_rng(kpqc_prov_ctx *provctx) {
    kpqc_rng rng = {rng_fill, provctx};
    return rng;
}
