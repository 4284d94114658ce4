/*
 * kpqcprovider: libkpqc's algorithms behind OpenSSL 3's provider interface.
 * Every algorithm and TLS group comes from src/algorithms.def; classical
 * halves of hybrids are computed by libcrypto itself (a child library
 * context sees the default provider's X25519/X448/ECDH).
 */
#ifndef KPQC_PROVIDER_H
#define KPQC_PROVIDER_H

#include <openssl/core.h>
#include <openssl/core_dispatch.h>
#include <openssl/evp.h>

#include <kpqc/kpqc.h>

/* The provider's context: the handle to the core and a child library context. */
typedef struct kpqc_prov_ctx {
    const OSSL_CORE_HANDLE *handle;
    OSSL_LIB_CTX *libctx;
} kpqc_prov_ctx;

/* Classical half of a hybrid group. */
typedef enum { KPQC_CLASSICAL_NONE, KPQC_X25519, KPQC_X448, KPQC_P256, KPQC_P384, KPQC_P521 } kpqc_classical;

/* One KEM as OpenSSL sees it: pure, or hybrid (classical || KpqC). */
typedef struct kpqc_prov_kem {
    const char *name;         /* primary name, also the TLS group name */
    const char *names;        /* OpenSSL name list "name:alias:...:OID" */
    const char *aliases;      /* comma-separated, from the table */
    const kpqc_kem *kem;      /* the KpqC half */
    kpqc_classical classical;
    unsigned group_id;        /* TLS NamedGroup code point */
    unsigned secbits;         /* 128/192/256 from the NIST level */
} kpqc_prov_kem;

size_t kpqc_prov_kem_count(void);
const kpqc_prov_kem *kpqc_prov_kem_at(size_t i);
int kpqc_prov_algorithms_init(void);
void kpqc_prov_algorithms_free(void);

/* Classical helpers (prov_classical.c). */
size_t kpqc_classical_pub_len(kpqc_classical c);
size_t kpqc_classical_secret_len(kpqc_classical c);
EVP_PKEY *kpqc_classical_keygen(OSSL_LIB_CTX *libctx, kpqc_classical c);
int kpqc_classical_get_pub(const EVP_PKEY *key, kpqc_classical c, unsigned char *out);
EVP_PKEY *kpqc_classical_from_pub(OSSL_LIB_CTX *libctx, kpqc_classical c, const unsigned char *pub, size_t len);
int kpqc_classical_derive(OSSL_LIB_CTX *libctx, EVP_PKEY *priv, EVP_PKEY *peer, unsigned char *out, size_t len);

/* A key of one kpqc_prov_kem. */
typedef struct kpqc_key {
    kpqc_prov_ctx *provctx;
    const kpqc_prov_kem *alg;
    unsigned char *pk, *sk;   /* KpqC halves, NULL when absent */
    EVP_PKEY *classical;      /* hybrids only */
} kpqc_key;

kpqc_key *kpqc_key_new(kpqc_prov_ctx *provctx, const kpqc_prov_kem *alg);
void kpqc_key_free(kpqc_key *key);
size_t kpqc_key_pub_len(const kpqc_prov_kem *alg);   /* encoded key share */
size_t kpqc_key_ct_len(const kpqc_prov_kem *alg);
size_t kpqc_key_secret_len(const kpqc_prov_kem *alg);

/* Dispatch tables. */
const OSSL_ALGORITHM *kpqc_prov_keymgmt_algorithms(void);
const OSSL_ALGORITHM *kpqc_prov_kem_algorithms(void);
int kpqc_prov_tls_groups(OSSL_CALLBACK *cb, void *arg);
int kpqc_prov_self_test(void);

/* An rng drawing from OpenSSL's DRBG of the provider's library context. */
kpqc_rng kpqc_prov_rng(kpqc_prov_ctx *provctx);

/* Errors are raised with the provider's reason codes. */
void kpqc_prov_raise(kpqc_prov_ctx *provctx, int reason, const char *fmt, ...);
enum {
    KPQC_R_WRONG_LENGTH = 1,
    KPQC_R_MISSING_KEY,
    KPQC_R_OPERATION_FAILED,
    KPQC_R_DECAPSULATION_FAILED,
    KPQC_R_RNG_FAILED,
    KPQC_R_SELF_TEST_FAILED,
};

#endif
