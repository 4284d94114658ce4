/*
 * kpqc-kat: writes the NIST-format Known Answer Test response file of any
 * libkpqc parameter set to stdout, replaying the NIST PQC harness
 * (PQCgenKAT_kem.c / PQCgenKAT_sign.c): a master AES-256-CTR-DRBG seeded
 * with the entropy input 00 01 .. 2F draws each record's 48-byte seed (and,
 * for signatures, its message of 33*(count+1) bytes); each record then
 * re-seeds the DRBG with its seed and runs keypair and encaps/sign.
 *
 *   kpqc-kat ALG [--entropy HEX] [--count N]
 *   kpqc-kat --list
 *   kpqc-kat --table-json   (the algorithm table, tools/table_json.c)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kpqc/drbg.h>
#include <kpqc/kpqc.h>

#include "internal.h"
#include "table_json.h"

#define SEED_LEN 48

static void usage(FILE *f) {
    fprintf(f,
            "usage: kpqc-kat ALG [--entropy HEX] [--count N]\n"
            "       kpqc-kat --list\n"
            "       kpqc-kat --table-json [FILE]  (the algorithm table as JSON)\n"
            "       kpqc-kat --impl     (the code path in use: portable, avx2, avx512)\n"
            "Prints the NIST-format KAT response file of ALG (a name or alias).\n"
            "  --entropy HEX  48-byte DRBG entropy input (default 000102...2F)\n"
            "  --count N      number of records (default 100)\n");
}

static void print_hex(const char *label, const uint8_t *p, size_t len) {
    printf("%s = ", label);
    if (len == 0) printf("00"); /* as the NIST harness writes empty fields */
    for (size_t i = 0; i < len; i++) printf("%02X", p[i]);
    printf("\n");
}

static int parse_hex(uint8_t *out, size_t out_len, const char *hex) {
    if (strlen(hex) != 2 * out_len) return -1;
    for (size_t i = 0; i < out_len; i++) {
        unsigned v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1) return -1;
        out[i] = (uint8_t)v;
    }
    return 0;
}

static void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (p == NULL) {
        fprintf(stderr, "kpqc-kat: out of memory\n");
        exit(2);
    }
    return p;
}

static int fail(const char *alg, const char *what, int rc) {
    fprintf(stderr, "kpqc-kat: %s: %s failed: %s\n", alg, what, kpqc_status_string(rc));
    return 1;
}

static int kem_records(const kpqc_kem *kem, uint8_t (*seeds)[SEED_LEN], unsigned count) {
    uint8_t *pk = xmalloc(kem->pk_len), *sk = xmalloc(kem->sk_len), *ct = xmalloc(kem->ct_len);
    uint8_t *ss = xmalloc(kem->ss_len), *ss2 = xmalloc(kem->ss_len);
    int rc = 0;
    for (unsigned i = 0; i < count && rc == 0; i++) {
        kpqc_nist_drbg d;
        kpqc_nist_drbg_init(&d, seeds[i], NULL);
        kpqc_rng rng = kpqc_nist_drbg_rng(&d);
        printf("count = %u\n", i);
        print_hex("seed", seeds[i], SEED_LEN);
        int r = kpqc_kem_keypair(kem, pk, kem->pk_len, sk, kem->sk_len, &rng);
        if (r != KPQC_OK) { rc = fail(kem->name, "keypair", r); break; }
        print_hex("pk", pk, kem->pk_len);
        print_hex("sk", sk, kem->sk_len);
        r = kpqc_kem_encaps(kem, ct, kem->ct_len, ss, kem->ss_len, pk, kem->pk_len, &rng);
        if (r != KPQC_OK) { rc = fail(kem->name, "encaps", r); break; }
        print_hex("ct", ct, kem->ct_len);
        print_hex("ss", ss, kem->ss_len);
        r = kpqc_kem_decaps(kem, ss2, kem->ss_len, ct, kem->ct_len, sk, kem->sk_len);
        if (r != KPQC_OK) { rc = fail(kem->name, "decaps", r); break; }
        if (memcmp(ss, ss2, kem->ss_len) != 0) {
            fprintf(stderr, "kpqc-kat: %s: record %u: decapsulated secret differs\n", kem->name, i);
            rc = 1;
        }
        printf("\n");
    }
    free(pk), free(sk), free(ct), free(ss), free(ss2);
    return rc;
}

/* An rng that hands out bytes drawn earlier, for the detached-context layout. */
struct replay {
    const uint8_t *buf;
    size_t len;
};
static int replay_fill(void *ctx, uint8_t *out, size_t len) {
    struct replay *r = ctx;
    if (len > r->len) return -1;
    memcpy(out, r->buf, len);
    r->buf += len;
    r->len -= len;
    return 0;
}

static int sig_records(const kpqc_sig *alg, uint8_t (*seeds)[SEED_LEN], uint8_t **msgs,
                       unsigned count) {
    const struct kpqc_sig_ops *ops = (const struct kpqc_sig_ops *)alg->ops;
    uint8_t *pk = xmalloc(alg->pk_len), *sk = xmalloc(alg->sk_len), *sig = xmalloc(alg->sig_len);
    uint8_t *sm = xmalloc(alg->sig_len + 33 * (size_t)count);
    int rc = 0;
    for (unsigned i = 0; i < count && rc == 0; i++) {
        size_t mlen = 33 * (size_t)(i + 1), sig_len = alg->sig_len;
        uint8_t ctx[KPQC_SIG_MAX_CONTEXT], rnd[64], ctx_len = 0;
        kpqc_nist_drbg d;
        kpqc_nist_drbg_init(&d, seeds[i], NULL);
        kpqc_rng rng = kpqc_nist_drbg_rng(&d), sign_rng = rng;
        struct replay replay;
        printf("count = %u\n", i);
        print_hex("seed", seeds[i], SEED_LEN);
        printf("mlen = %zu\n", mlen);
        print_hex("msg", msgs[i], mlen);
        int r = kpqc_sig_keypair(alg, pk, alg->pk_len, sk, alg->sk_len, &rng);
        if (r != KPQC_OK) { rc = fail(alg->name, "keypair", r); break; }
        print_hex("pk", pk, alg->pk_len);
        print_hex("sk", sk, alg->sk_len);
        if (ops->kat_layout == KPQC_KAT_DETACHED_CTX) {
            if (ops->kat_sign_rnd_len > sizeof rnd) { rc = fail(alg->name, "kat layout", KPQC_ERR_INTERNAL); break; }
            kpqc_nist_drbg_fill(&d, rnd, ops->kat_sign_rnd_len);
            kpqc_nist_drbg_fill(&d, &ctx_len, 1);
            kpqc_nist_drbg_fill(&d, ctx, ctx_len);
            replay.buf = rnd;
            replay.len = ops->kat_sign_rnd_len;
            sign_rng.fill = replay_fill;
            sign_rng.ctx = &replay;
        }
        r = kpqc_sig_sign(alg, sig, &sig_len, msgs[i], mlen, ctx, ctx_len, sk, alg->sk_len, &sign_rng);
        if (r != KPQC_OK) { rc = fail(alg->name, "sign", r); break; }
        r = kpqc_sig_verify(alg, sig, sig_len, msgs[i], mlen, ctx, ctx_len, pk, alg->pk_len);
        if (r != KPQC_OK) {
            fprintf(stderr, "kpqc-kat: %s: record %u: signature does not verify\n", alg->name, i);
            rc = 1;
        }
        switch (ops->kat_layout) {
        case KPQC_KAT_DETACHED_CTX:
            printf("siglen = %zu\n", sig_len);
            print_hex("sig", sig, sig_len);
            break;
        case KPQC_KAT_SM_MSG_SIG:
            memcpy(sm, msgs[i], mlen);
            memcpy(sm + mlen, sig, sig_len);
            printf("smlen = %zu\n", mlen + sig_len);
            print_hex("sm", sm, mlen + sig_len);
            break;
        case KPQC_KAT_SM_SIG_MSG:
            memcpy(sm, sig, sig_len);
            memcpy(sm + sig_len, msgs[i], mlen);
            printf("smlen = %zu\n", mlen + sig_len);
            print_hex("sm", sm, mlen + sig_len);
            break;
        }
        printf("\n");
    }
    free(pk), free(sk), free(sig), free(sm);
    return rc;
}

int main(int argc, char **argv) {
    const char *alg_name = NULL, *entropy_hex = NULL;
    unsigned long count = 100;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--list") == 0) {
            for (size_t k = 0; k < kpqc_kem_count(); k++) printf("%s\n", kpqc_kem_at(k)->name);
            for (size_t k = 0; k < kpqc_sig_count(); k++) printf("%s\n", kpqc_sig_at(k)->name);
            return 0;
        } else if (strcmp(argv[i], "--table-json") == 0) {
            /* to stdout, or to FILE when one follows */
            FILE *out = i + 1 < argc ? fopen(argv[i + 1], "w") : stdout;
            if (out == NULL) {
                perror(argv[i + 1]);
                return 1;
            }
            kpqc_table_json(out);
            return (out != stdout ? fclose(out) : fflush(out)) == 0 ? 0 : 1;
        } else if (strcmp(argv[i], "--impl") == 0) {
            printf("%s\n", kpqc_impl_name());
            return 0;
        } else if (strcmp(argv[i], "--entropy") == 0 && i + 1 < argc) {
            entropy_hex = argv[++i];
        } else if (strcmp(argv[i], "--count") == 0 && i + 1 < argc) {
            char *end;
            count = strtoul(argv[++i], &end, 10);
            if (*end != '\0' || count == 0 || count > 100000) {
                fprintf(stderr, "kpqc-kat: --count must be a number from 1 to 100000\n");
                return 2;
            }
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return 0;
        } else if (argv[i][0] != '-' && alg_name == NULL) {
            alg_name = argv[i];
        } else {
            usage(stderr);
            return 2;
        }
    }
    if (alg_name == NULL) {
        usage(stderr);
        return 2;
    }
    const kpqc_kem *kem = kpqc_kem_by_name(alg_name);
    const kpqc_sig *sig = kem == NULL ? kpqc_sig_by_name(alg_name) : NULL;
    if (kem == NULL && sig == NULL) {
        fprintf(stderr, "kpqc-kat: unknown algorithm '%s' (see kpqc-kat --list)\n", alg_name);
        return 2;
    }

    uint8_t entropy[SEED_LEN];
    for (unsigned i = 0; i < SEED_LEN; i++) entropy[i] = (uint8_t)i;
    if (entropy_hex != NULL && parse_hex(entropy, SEED_LEN, entropy_hex) != 0) {
        fprintf(stderr, "kpqc-kat: --entropy takes exactly 96 hex digits (48 bytes)\n");
        return 2;
    }

    /* The master stream: every seed first, then (signatures) every message. */
    kpqc_nist_drbg master;
    kpqc_nist_drbg_init(&master, entropy, NULL);
    uint8_t (*seeds)[SEED_LEN] = xmalloc(count * SEED_LEN);
    uint8_t **msgs = NULL;
    for (unsigned long i = 0; i < count; i++) {
        kpqc_nist_drbg_fill(&master, seeds[i], SEED_LEN);
        if (sig != NULL) {
            if (i == 0) msgs = xmalloc(count * sizeof *msgs);
            msgs[i] = xmalloc(33 * (i + 1));
            kpqc_nist_drbg_fill(&master, msgs[i], 33 * (i + 1));
        }
    }

    printf("# %s\n\n", kem != NULL ? kem->kat_name : sig->kat_name);
    int rc = kem != NULL ? kem_records(kem, seeds, (unsigned)count)
                         : sig_records(sig, seeds, msgs, (unsigned)count);
    if (msgs != NULL)
        for (unsigned long i = 0; i < count; i++) free(msgs[i]);
    free(msgs);
    free(seeds);
    if (fflush(stdout) != 0) rc = 1;
    return rc;
}
