/*
 * kpqc-prims: time every primitive operation, KpqC (libkpqc's public API,
 * each code path) next to OpenSSL's ML-KEM, ML-DSA, SLH-DSA, X25519 and
 * ECDSA (EVP).  Prints one JSON object per (algorithm, operation, path)
 * with every sample in ns, TSC cycles and the thread's CPU time in ns
 * (`cpu_ns`, untouched by preemption on a busy machine); statistics are computed by the
 * lab.  Operations are interleaved per iteration so drift hits all alike.
 *
 *   kpqc-prims [--iterations N] [--slow-iterations M] [--filter SUBSTR] [--impl PATH] [--seed N]
 *
 * Every libkpqc path this machine runs is measured (avx512, avx2,
 * portable); --impl PATH measures that one alone and no OpenSSL rows.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/evp.h>

#include <kpqc/kpqc.h>

#include "clock.h"
#include "seeded.h"
#include "paths.h"

typedef struct {
    uint64_t *ns, *cyc, *cpu;
    size_t n;
} series;

static void series_init(series *s, size_t n) {
    s->ns = calloc(n, sizeof *s->ns);
    s->cyc = calloc(n, sizeof *s->cyc);
    s->cpu = calloc(n, sizeof *s->cpu);
    s->n = 0;
}

static void emit(const char *alg, const char *family, const char *kind, unsigned level, const char *op,
                 const char *impl, const series *s) {
    printf("{\"alg\":\"%s\",\"family\":\"%s\",\"kind\":\"%s\",\"level\":%u,\"op\":\"%s\",\"impl\":\"%s\",\"ns\":[",
           alg, family, kind, level, op, impl);
    for (size_t i = 0; i < s->n; i++) printf("%s%llu", i ? "," : "", (unsigned long long)s->ns[i]);
    printf("],\"cycles\":[");
    for (size_t i = 0; i < s->n; i++) printf("%s%llu", i ? "," : "", (unsigned long long)s->cyc[i]);
    printf("],\"cpu_ns\":[");
    for (size_t i = 0; i < s->n; i++) printf("%s%llu", i ? "," : "", (unsigned long long)s->cpu[i]);
    printf("]}\n");
    fflush(stdout);
    free(s->ns);
    free(s->cyc);
    free(s->cpu);
}

#define TIMED(s, stmt)                                                        \
    do {                                                                      \
        uint64_t u0 = bench_cpu_ns(), t0 = bench_ns(), c0 = bench_cycles();   \
        stmt;                                                                 \
        uint64_t c1 = bench_cycles(), t1 = bench_ns(), u1 = bench_cpu_ns();   \
        (s)->ns[(s)->n] = t1 - t0;                                            \
        (s)->cyc[(s)->n] = c1 - c0;                                           \
        (s)->cpu[(s)->n] = u1 - u0;                                           \
        (s)->n++;                                                             \
    } while (0)

static int failed;

static void bench_kpqc_kem(const kpqc_kem *k, const char *impl, size_t iters) {
    const kpqc_rng *rng = rng_for_run();
    uint8_t *pk = malloc(k->pk_len), *sk = malloc(k->sk_len), *ct = malloc(k->ct_len), ss[32], ss2[32];
    series g, e, d;
    series_init(&g, iters), series_init(&e, iters), series_init(&d, iters);
    for (size_t i = 0; i < iters + iters / 10; i++) {
        int warm = i < iters / 10;
        series *G = warm ? NULL : &g, *E = warm ? NULL : &e, *D = warm ? NULL : &d;
        if (warm) {
            kpqc_kem_keypair(k, pk, k->pk_len, sk, k->sk_len, rng);
            kpqc_kem_encaps(k, ct, k->ct_len, ss, 32, pk, k->pk_len, rng);
            kpqc_kem_decaps(k, ss2, 32, ct, k->ct_len, sk, k->sk_len);
            continue;
        }
        TIMED(G, kpqc_kem_keypair(k, pk, k->pk_len, sk, k->sk_len, rng));
        TIMED(E, kpqc_kem_encaps(k, ct, k->ct_len, ss, 32, pk, k->pk_len, rng));
        TIMED(D, kpqc_kem_decaps(k, ss2, 32, ct, k->ct_len, sk, k->sk_len));
        if (memcmp(ss, ss2, 32) != 0) failed = 1;
    }
    emit(k->name, k->family, "kem", k->nist_level, "keygen", impl, &g);
    emit(k->name, k->family, "kem", k->nist_level, "encaps", impl, &e);
    emit(k->name, k->family, "kem", k->nist_level, "decaps", impl, &d);
    free(pk), free(sk), free(ct);
}

static void bench_kpqc_sig(const kpqc_sig *s, const char *impl, size_t iters) {
    const kpqc_rng *rng = rng_for_run();
    uint8_t *pk = malloc(s->pk_len), *sk = malloc(s->sk_len), *sig = malloc(s->sig_len), msg[32] = {1};
    series g, si, v;
    series_init(&g, iters), series_init(&si, iters), series_init(&v, iters);
    for (size_t i = 0; i < iters; i++) {
        size_t len = s->sig_len;
        TIMED(&g, kpqc_sig_keypair(s, pk, s->pk_len, sk, s->sk_len, rng));
        TIMED(&si, kpqc_sig_sign(s, sig, &len, msg, sizeof msg, NULL, 0, sk, s->sk_len, rng));
        int rc;
        TIMED(&v, rc = kpqc_sig_verify(s, sig, len, msg, sizeof msg, NULL, 0, pk, s->pk_len));
        if (rc != KPQC_OK) failed = 1;
    }
    emit(s->name, s->family, "sig", s->nist_level, "keygen", impl, &g);
    emit(s->name, s->family, "sig", s->nist_level, "sign", impl, &si);
    emit(s->name, s->family, "sig", s->nist_level, "verify", impl, &v);
    free(pk), free(sk), free(sig);
}

static EVP_PKEY *evp_keygen(const char *type, const char *group) {
    if (group != NULL) return EVP_PKEY_Q_keygen(NULL, NULL, type, group);
    return EVP_PKEY_Q_keygen(NULL, NULL, type);
}

/* OpenSSL's KEMs (ML-KEM) and key agreements (X25519, ECDH) as KEMs. */
static void bench_evp_kem(const char *name, const char *type, const char *group, const char *family,
                          unsigned level, int is_kem, size_t iters) {
    series g, e, d;
    series_init(&g, iters), series_init(&e, iters), series_init(&d, iters);
    unsigned char ct[2048], ss[128], ss2[128];
    for (size_t i = 0; i < iters; i++) {
        EVP_PKEY *key = NULL, *eph = NULL;
        size_t ctlen = sizeof ct, sslen = sizeof ss, ss2len = sizeof ss2;
        TIMED(&g, key = evp_keygen(type, group));
        if (is_kem) {
            EVP_PKEY_CTX *c = EVP_PKEY_CTX_new(key, NULL);
            TIMED(&e, (EVP_PKEY_encapsulate_init(c, NULL), EVP_PKEY_encapsulate(c, ct, &ctlen, ss, &sslen)));
            EVP_PKEY_CTX_free(c);
            c = EVP_PKEY_CTX_new(key, NULL);
            TIMED(&d, (EVP_PKEY_decapsulate_init(c, NULL), EVP_PKEY_decapsulate(c, ss2, &ss2len, ct, ctlen)));
            EVP_PKEY_CTX_free(c);
        } else { /* encaps = ephemeral keygen + derive; decaps = derive */
            EVP_PKEY_CTX *c = NULL;
            TIMED(&e, (eph = evp_keygen(type, group), c = EVP_PKEY_CTX_new(eph, NULL), EVP_PKEY_derive_init(c),
                       EVP_PKEY_derive_set_peer(c, key), EVP_PKEY_derive(c, ss, &sslen)));
            EVP_PKEY_CTX_free(c);
            c = EVP_PKEY_CTX_new(key, NULL);
            TIMED(&d, (EVP_PKEY_derive_init(c), EVP_PKEY_derive_set_peer(c, eph), EVP_PKEY_derive(c, ss2, &ss2len)));
            EVP_PKEY_CTX_free(c);
            EVP_PKEY_free(eph);
        }
        if (ss2len != sslen || memcmp(ss, ss2, sslen) != 0) failed = 1;
        EVP_PKEY_free(key);
    }
    emit(name, family, "kem", level, "keygen", "openssl", &g);
    emit(name, family, "kem", level, "encaps", "openssl", &e);
    emit(name, family, "kem", level, "decaps", "openssl", &d);
}

static void bench_evp_sig(const char *name, const char *type, const char *group, const char *family,
                          unsigned level, const char *digest, size_t iters) {
    series g, s, v;
    series_init(&g, iters), series_init(&s, iters), series_init(&v, iters);
    unsigned char msg[32] = {1}, sig[50000];
    for (size_t i = 0; i < iters; i++) {
        EVP_PKEY *key = NULL;
        size_t len = sizeof sig;
        int ok = 0;
        TIMED(&g, key = evp_keygen(type, group));
        EVP_MD_CTX *m = EVP_MD_CTX_new();
        TIMED(&s, (EVP_DigestSignInit_ex(m, NULL, digest, NULL, NULL, key, NULL),
                   EVP_DigestSign(m, sig, &len, msg, sizeof msg)));
        EVP_MD_CTX_free(m);
        m = EVP_MD_CTX_new();
        TIMED(&v, (EVP_DigestVerifyInit_ex(m, NULL, digest, NULL, NULL, key, NULL),
                   ok = EVP_DigestVerify(m, sig, len, msg, sizeof msg)));
        EVP_MD_CTX_free(m);
        if (ok != 1) failed = 1;
        EVP_PKEY_free(key);
    }
    emit(name, family, "sig", level, "keygen", "openssl", &g);
    emit(name, family, "sig", level, "sign", "openssl", &s);
    emit(name, family, "sig", level, "verify", "openssl", &v);
}

int main(int argc, char **argv) {
    size_t iters = 2000, slow = 100;
    const char *filter = "", *only_path = NULL;
    for (int i = 1; i < argc; i += 2) {
        if (i + 1 >= argc) {
            fprintf(stderr, "kpqc-prims: unknown option or missing value: %s\n", argv[i]);
            return 2;
        }
        if (strcmp(argv[i], "--iterations") == 0) iters = strtoul(argv[i + 1], NULL, 10);
        else if (strcmp(argv[i], "--impl") == 0) only_path = argv[i + 1];
        else if (strcmp(argv[i], "--seed") == 0) seed_from(argv[i + 1]);
        else if (strcmp(argv[i], "--slow-iterations") == 0) slow = strtoul(argv[i + 1], NULL, 10);
        else if (strcmp(argv[i], "--filter") == 0) filter = argv[i + 1];
        else {
            fprintf(stderr, "kpqc-prims: unknown option or missing value: %s\n", argv[i]);
            return 2;
        }
    }
    if (iters == 0) iters = 1;
    if (slow == 0) slow = 1;
    for (size_t p = 0; p < BENCH_PATH_COUNT; p++) {
        if (!bench_path_select(p, only_path)) continue;
        const char *impl = kpqc_impl_name();
        for (size_t i = 0; i < kpqc_kem_count(); i++)
            if (strstr(kpqc_kem_at(i)->name, filter)) bench_kpqc_kem(kpqc_kem_at(i), impl, iters);
        for (size_t i = 0; i < kpqc_sig_count(); i++)
            if (strstr(kpqc_sig_at(i)->name, filter)) bench_kpqc_sig(kpqc_sig_at(i), impl, slow);
    }
    kpqc_set_impl(KPQC_IMPL_AUTO);
    if (only_path != NULL) return failed; /* one libkpqc path: OpenSSL's rows are not path rows */
    struct { const char *name, *type, *group, *family; unsigned level; int kem; } kems[] = {
        {"X25519", "X25519", NULL, "ECC", 1, 0},      {"P-256", "EC", "P-256", "ECC", 1, 0},
        {"X448", "X448", NULL, "ECC", 3, 0},          {"P-384", "EC", "P-384", "ECC", 3, 0},
        {"P-521", "EC", "P-521", "ECC", 5, 0},        {"ML-KEM-512", "ML-KEM-512", NULL, "ML-KEM", 1, 1},
        {"ML-KEM-768", "ML-KEM-768", NULL, "ML-KEM", 3, 1}, {"ML-KEM-1024", "ML-KEM-1024", NULL, "ML-KEM", 5, 1},
    };
    for (size_t i = 0; i < sizeof kems / sizeof kems[0]; i++)
        if (strstr(kems[i].name, filter))
            bench_evp_kem(kems[i].name, kems[i].type, kems[i].group, kems[i].family, kems[i].level, kems[i].kem,
                          iters / 4 + 1);
    struct { const char *name, *type, *group, *family, *digest; unsigned level, slow; } sigs[] = {
        {"ECDSA-P256", "EC", "P-256", "ECC", "SHA256", 1, 0}, {"ECDSA-P384", "EC", "P-384", "ECC", "SHA384", 3, 0},
        {"ML-DSA-44", "ML-DSA-44", NULL, "ML-DSA", NULL, 2, 0}, {"ML-DSA-65", "ML-DSA-65", NULL, "ML-DSA", NULL, 3, 0},
        {"ML-DSA-87", "ML-DSA-87", NULL, "ML-DSA", NULL, 5, 0},
        {"SLH-DSA-SHA2-128f", "SLH-DSA-SHA2-128f", NULL, "SLH-DSA", NULL, 1, 1},
        {"SLH-DSA-SHA2-128s", "SLH-DSA-SHA2-128s", NULL, "SLH-DSA", NULL, 1, 1},
    };
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        if (strstr(sigs[i].name, filter))
            bench_evp_sig(sigs[i].name, sigs[i].type, sigs[i].group, sigs[i].family, sigs[i].level, sigs[i].digest,
                          sigs[i].slow ? (slow / 10 + 2) : slow);
    if (failed) fprintf(stderr, "kpqc-prims: an operation gave a wrong result\n");
    return failed;
}
