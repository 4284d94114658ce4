/*
 * Shared by the decoder fuzz targets: input byte 0 picks a parameter set,
 * the rest is the encoding.  Each input is parsed twice: at the set's exact
 * length (cut or zero-padded into an exact-size heap copy, so ASan sees any
 * read past the end) and, when it differs, at its own length (which must be
 * refused).
 */
#ifndef FUZZ_UNPACK_COMMON_H
#define FUZZ_UNPACK_COMMON_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <kpqc/kpqc.h>

#include "decoders.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct {
    const char *name;                                       /* the table's name, for its length */
    int (*parse)(unsigned set, const uint8_t *in, size_t len); /* src/decoders.h */
    unsigned set;
} fuzz_decoder;

/* The encoded length of the table's ciphertext or signature `name`. */
static size_t encoded_length(const char *name) {
    const kpqc_kem *kem = kpqc_kem_by_name(name);
    const kpqc_sig *sig = kpqc_sig_by_name(name);
    if (kem != NULL) return kem->ct_len;
    if (sig != NULL) return sig->sig_len;
    abort(); /* a target names what the build does not have */
}

static void fuzz_decode(const fuzz_decoder *d, const uint8_t *data, size_t size) {
    size_t want = encoded_length(d->name);
    uint8_t *exact = calloc(1, want);
    if (exact == NULL) abort();
    memcpy(exact, data, size < want ? size : want);
    int rc = d->parse(d->set, exact, want);
    if (rc != 0 && rc != -1) abort();
    free(exact);
    if (size != want) {
        uint8_t *raw = malloc(size ? size : 1);
        if (raw == NULL) abort();
        memcpy(raw, data, size);
        if (d->parse(d->set, raw, size) != -1) abort(); /* a wrong length is never parsed */
        free(raw);
    }
}

/* A target's entry: `decoders` lists n built parameter sets (n may be 0). */
static int fuzz_decoders(const fuzz_decoder *decoders, size_t n, const uint8_t *data, size_t size) {
    if (size < 1 || n == 0) return 0;
    fuzz_decode(&decoders[data[0] % n], data + 1, size - 1);
    return 0;
}

#endif
