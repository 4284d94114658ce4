/*
 * kpqc-instructions: instructions per KpqC operation, counted by callgrind
 * (a figure that does not move with machine load, unlike time).  Run it
 * under `valgrind --tool=callgrind --collect-atstart=no`: each operation is
 * repeated N times with collection switched on around the call only, then
 * the counts are dumped under the label "ALG PATH OP N" (the lab reads the
 * dumps and divides by N).  Outside valgrind it just runs the operations.
 *
 * With --seed every run draws the same keys and randomness (seeded.h), so
 * the counts repeat exactly; the DRBG's own work is then counted too.
 *
 *   kpqc-instructions [--iterations N] [--filter SUBSTR] [--seed N]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <valgrind/callgrind.h>

#include <kpqc/kpqc.h>

#include "paths.h"
#include "seeded.h"

#define COUNTED(stmt)                 \
    do {                              \
        CALLGRIND_TOGGLE_COLLECT;     \
        stmt;                         \
        CALLGRIND_TOGGLE_COLLECT;     \
    } while (0)

static void dump(const char *alg, const char *impl, const char *op, size_t n) {
    char label[128];
    snprintf(label, sizeof label, "%s %s %s %zu", alg, impl, op, n);
    CALLGRIND_DUMP_STATS_AT(label);
}

static int kem(const kpqc_kem *k, const char *impl, size_t n) {
    const kpqc_rng *rng = rng_for_run();
    uint8_t *pk = malloc(k->pk_len), *sk = malloc(k->sk_len), *ct = malloc(k->ct_len), ss[64], ss2[64];
    int ok = pk && sk && ct;
    for (size_t i = 0; ok && i < n; i++) COUNTED(ok &= kpqc_kem_keypair(k, pk, k->pk_len, sk, k->sk_len, rng) == 0);
    dump(k->name, impl, "keygen", n);
    for (size_t i = 0; ok && i < n; i++)
        COUNTED(ok &= kpqc_kem_encaps(k, ct, k->ct_len, ss, k->ss_len, pk, k->pk_len, rng) == 0);
    dump(k->name, impl, "encaps", n);
    for (size_t i = 0; ok && i < n; i++)
        COUNTED(ok &= kpqc_kem_decaps(k, ss2, k->ss_len, ct, k->ct_len, sk, k->sk_len) == 0);
    dump(k->name, impl, "decaps", n);
    ok &= memcmp(ss, ss2, k->ss_len) == 0;
    free(pk), free(sk), free(ct);
    return ok;
}

static int sig(const kpqc_sig *s, const char *impl, size_t n) {
    const kpqc_rng *rng = rng_for_run();
    uint8_t *pk = malloc(s->pk_len), *sk = malloc(s->sk_len), *sg = malloc(s->sig_len), msg[32] = {1};
    size_t len = s->sig_len;
    int ok = pk && sk && sg;
    for (size_t i = 0; ok && i < n; i++) COUNTED(ok &= kpqc_sig_keypair(s, pk, s->pk_len, sk, s->sk_len, rng) == 0);
    dump(s->name, impl, "keygen", n);
    for (size_t i = 0; ok && i < n; i++) {
        len = s->sig_len;
        COUNTED(ok &= kpqc_sig_sign(s, sg, &len, msg, sizeof msg, NULL, 0, sk, s->sk_len, rng) == 0);
    }
    dump(s->name, impl, "sign", n);
    for (size_t i = 0; ok && i < n; i++)
        COUNTED(ok &= kpqc_sig_verify(s, sg, len, msg, sizeof msg, NULL, 0, pk, s->pk_len) == 0);
    dump(s->name, impl, "verify", n);
    free(pk), free(sk), free(sg);
    return ok;
}

int main(int argc, char **argv) {
    size_t n = 10;
    const char *filter = "";
    for (int i = 1; i < argc; i += 2) {
        if (i + 1 < argc && strcmp(argv[i], "--iterations") == 0) n = strtoul(argv[i + 1], NULL, 10);
        else if (i + 1 < argc && strcmp(argv[i], "--filter") == 0) filter = argv[i + 1];
        else if (i + 1 < argc && strcmp(argv[i], "--seed") == 0) seed_from(argv[i + 1]);
        else {
            fprintf(stderr, "kpqc-instructions: unknown option or missing value: %s\n", argv[i]);
            return 2;
        }
    }
    if (n == 0) n = 1;
    int ok = 1;
    /* Under valgrind the CPU it emulates decides which paths run (3.19
     * emulates no AVX-512, so that path is refused there). */
    for (size_t p = 0; p < BENCH_PATH_COUNT; p++) {
        if (!bench_path_select(p, NULL)) continue;
        const char *impl = kpqc_impl_name();
        for (size_t i = 0; i < kpqc_kem_count(); i++)
            if (strstr(kpqc_kem_at(i)->name, filter)) ok &= kem(kpqc_kem_at(i), impl, n);
        for (size_t i = 0; i < kpqc_sig_count(); i++)
            if (strstr(kpqc_sig_at(i)->name, filter)) ok &= sig(kpqc_sig_at(i), impl, n);
    }
    if (!ok) fprintf(stderr, "kpqc-instructions: an operation failed\n");
    return !ok;
}
