/*
 * Known-answer self-test run when the provider loads, one parameter set per
 * built family, from the first record of its official KAT (the NIST DRBG
 * seeded with the record's seed).  KEMs: SHA3-256(pk || ct || ss).
 * Signatures: SHA3-256(pk), then a pairwise test (the signature of a
 * message verifies, with one bit flipped it does not).  A failure keeps the
 * provider from loading.
 */
#include <stdio.h>
#include <string.h>

#include <openssl/crypto.h>

#include <kpqc/drbg.h>

#include "common/keccak.h"
#include "kpqcprovider.h"

/* Seed of record 0 of every NIST PQC KAT file. */
static const char record0_seed[] =
    "061550234D158C5EC95595FE04EF7A25767F2E24CC2BC479D09D86DC9ABCFDE7056A8C266F9EF97ED08541DBD2E1FFA1";

static const struct {
    const char *alg, *digest;
} kem_vectors[] = {
    {"smaugt1", "3361a0d9a6ebd066393725c42f3421ab3cdd8748284baea65c683fd01ec8bb86"},
    {"ntruplus768", "16bd8e28243637e238a783db6ccb80bcdd642b14ed24896ea6a4ba5afa069b87"},
}, sig_vectors[] = {
    {"haetae2", "deb2646bcc87e2111a842900cd4f8bf8b46771f6ff6beba2db01a6fd6226e212"},
    {"aimer128f", "c36c6019de9900fa9c8ba588cdd58582d240c50aab873265782544b51cd9d44b"},
};

static void unhex(unsigned char *out, const char *hex, size_t len) {
    for (size_t i = 0; i < len; i++) {
        unsigned v;
        sscanf(hex + 2 * i, "%2x", &v);
        out[i] = (unsigned char)v;
    }
}

static int check_one(const kpqc_kem *kem, const char *digest_hex) {
    unsigned char seed[48], want[32], got[32], ss2[32];
    unsigned char *buf = OPENSSL_malloc(kem->pk_len + kem->ct_len + kem->ss_len);
    unsigned char *sk = OPENSSL_malloc(kem->sk_len);
    int ok = 0;
    kpqc_nist_drbg d;
    unhex(seed, record0_seed, sizeof seed);
    unhex(want, digest_hex, sizeof want);
    kpqc_nist_drbg_init(&d, seed, NULL);
    kpqc_rng rng = kpqc_nist_drbg_rng(&d);
    unsigned char *pk = buf, *ct = buf + kem->pk_len, *ss = ct + kem->ct_len;
    if (buf != NULL && sk != NULL &&
        kpqc_kem_keypair(kem, pk, kem->pk_len, sk, kem->sk_len, &rng) == KPQC_OK &&
        kpqc_kem_encaps(kem, ct, kem->ct_len, ss, kem->ss_len, pk, kem->pk_len, &rng) == KPQC_OK &&
        kpqc_kem_decaps(kem, ss2, kem->ss_len, ct, kem->ct_len, sk, kem->sk_len) == KPQC_OK &&
        memcmp(ss, ss2, kem->ss_len) == 0) {
        kpqc_sha3_256(got, buf, kem->pk_len + kem->ct_len + kem->ss_len);
        ok = memcmp(got, want, sizeof want) == 0;
    }
    OPENSSL_free(buf);
    OPENSSL_clear_free(sk, kem->sk_len);
    return ok;
}

static int check_sig(const kpqc_sig *alg, const char *digest_hex) {
    static const unsigned char msg[] = "kpqcprovider self-test";
    unsigned char seed[48], want[32], got[32];
    unsigned char *pk = OPENSSL_malloc(alg->pk_len), *sig = OPENSSL_malloc(alg->sig_len);
    unsigned char *sk = OPENSSL_malloc(alg->sk_len);
    size_t sig_len = alg->sig_len;
    int ok = 0;
    kpqc_nist_drbg d;
    unhex(seed, record0_seed, sizeof seed);
    unhex(want, digest_hex, sizeof want);
    kpqc_nist_drbg_init(&d, seed, NULL);
    kpqc_rng rng = kpqc_nist_drbg_rng(&d);
    if (pk != NULL && sk != NULL && sig != NULL &&
        kpqc_sig_keypair(alg, pk, alg->pk_len, sk, alg->sk_len, &rng) == KPQC_OK &&
        kpqc_sig_sign(alg, sig, &sig_len, msg, sizeof msg, NULL, 0, sk, alg->sk_len, &rng) == KPQC_OK &&
        kpqc_sig_verify(alg, sig, sig_len, msg, sizeof msg, NULL, 0, pk, alg->pk_len) == KPQC_OK) {
        sig[sig_len / 2] ^= 1;
        kpqc_sha3_256(got, pk, alg->pk_len);
        ok = memcmp(got, want, sizeof want) == 0 &&
             kpqc_sig_verify(alg, sig, sig_len, msg, sizeof msg, NULL, 0, pk, alg->pk_len) == KPQC_ERR_VERIFY;
    }
    OPENSSL_free(pk);
    OPENSSL_free(sig);
    OPENSSL_clear_free(sk, alg->sk_len);
    return ok;
}

int kpqc_prov_self_test(void) {
    for (size_t i = 0; i < sizeof kem_vectors / sizeof kem_vectors[0]; i++) {
        const kpqc_kem *kem = kpqc_kem_by_name(kem_vectors[i].alg);
        if (kem != NULL && !check_one(kem, kem_vectors[i].digest)) return 0;
    }
    for (size_t i = 0; i < sizeof sig_vectors / sizeof sig_vectors[0]; i++) {
        const kpqc_sig *sig = kpqc_sig_by_name(sig_vectors[i].alg);
        if (sig != NULL && !check_sig(sig, sig_vectors[i].digest)) return 0;
    }
    return 1;
}
