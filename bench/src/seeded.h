/*
 * Seeded randomness for the measurement programs (--seed N): every
 * (algorithm, path) draws its keys and randomness from the KAT DRBG
 * started from that seed, so every path and every run does the same work
 * on the same inputs (HAETAE's rejection loop repeats as often); without a
 * seed, from the operating system.
 */
#ifndef KPQC_BENCH_SEEDED_H
#define KPQC_BENCH_SEEDED_H

#include <stdint.h>
#include <stdlib.h>

#include <kpqc/drbg.h>
#include <kpqc/kpqc.h>

static int seeded;
static uint8_t seed_entropy[48];
static kpqc_nist_drbg drbg;
static kpqc_rng drbg_rng;

static inline void seed_from(const char *text) {
    unsigned long v = strtoul(text, NULL, 10);
    for (unsigned b = 0; b < sizeof v; b++) seed_entropy[b] = (uint8_t)(v >> (8 * b));
    seeded = 1;
}

/* The randomness of one (algorithm, path) run: the DRBG restarted from the
 * seed, or NULL (the operating system's). */
static inline const kpqc_rng *rng_for_run(void) {
    if (!seeded) return NULL;
    kpqc_nist_drbg_init(&drbg, seed_entropy, NULL);
    drbg_rng = kpqc_nist_drbg_rng(&drbg);
    return &drbg_rng;
}

#endif
