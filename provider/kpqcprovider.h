/*
 * kpqcprovider: libkpqc's algorithms behind OpenSSL 3's provider interface.
 * Every algorithm, TLS group and TLS signature algorithm comes from
 * src/algorithms.def; classical halves (ECDH of hybrid groups, ECDSA of
 * composite signatures) are computed by libcrypto itself in a child library
 * context that sees the default provider.
 */
#ifndef KPQC_PROVIDER_H
#define KPQC_PROVIDER_H

#include <openssl/core.h>
#include <openssl/core_dispatch.h>
#include <openssl/evp.h>

#include <kpqc/kpqc.h>

#include "prov_compat.h"

/* Classical half of a hybrid group or a composite signature. */
typedef enum { KPQC_CLASSICAL_NONE, KPQC_X25519, KPQC_X448, KPQC_P256, KPQC_P384, KPQC_P521 } kpqc_classical;

typedef enum { KPQC_PROV_KEM, KPQC_PROV_SIG } kpqc_prov_kind;

/*
 * One algorithm as OpenSSL sees it: a KEM (pure, or hybrid classical ||
 * KpqC) or a signature (pure, or composite KpqC || ECDSA).
 */
typedef struct kpqc_prov_alg {
    const char *name;         /* primary name: algorithm, TLS group or sigalg name */
    char *names;              /* OpenSSL name list "name:alias:...[:OID]" */
    char *decoder_names;      /* the same and Bouncy Castle's OID (prov_bc.c) */
    const char *aliases;      /* comma-separated, from the table */
    char *oid;                /* NULL for hybrid groups (no X.509 use) */
    const char *display;
    kpqc_prov_kind kind;
    const kpqc_kem *kem;      /* KEMs: the KpqC half */
    const kpqc_sig *sig;      /* signatures: the KpqC half */
    kpqc_classical classical;
    const char *digest;       /* composites: the ECDSA digest */
    unsigned codepoint;       /* TLS NamedGroup or SignatureScheme */
    unsigned secbits;         /* 128/192/256 from the NIST level */
    size_t pq_pk_len, pq_sk_len;
    int overridden;           /* OID or code point from the configuration */
} kpqc_prov_alg;

/* The algorithms one provider instance offers, with the OIDs and code points
 * of its library context's configuration. */
typedef struct kpqc_prov_table {
    kpqc_prov_alg *algs;
    size_t len;
} kpqc_prov_table;

/* Builds `t`; `override` (may be NULL) maps "name.oid"/"name.codepoint" to a
 * replacement value, for openssl.cnf overrides.  0 on a malformed or
 * colliding value (`why` then says which, NUL-terminated). */
int kpqc_prov_table_init(kpqc_prov_table *t, const char *(*override)(void *arg, const char *key), void *arg,
                         char *why, size_t why_size);
void kpqc_prov_table_free(kpqc_prov_table *t);
/* 1 when `key` is one the table reads an override under ("name.oid",
 * "ALIAS.codepoint"...), for any algorithm of the table, built or not. */
int kpqc_prov_table_reads_key(const char *key);
const kpqc_prov_alg *kpqc_prov_table_find(const kpqc_prov_table *t, const char *name); /* primary name */

/* Upcalls to the core that loaded an instance. */
typedef struct kpqc_prov_core {
    OSSL_FUNC_core_new_error_fn *new_error;
    OSSL_FUNC_core_set_error_debug_fn *set_error_debug;
    OSSL_FUNC_core_vset_error_fn *vset_error;
    OSSL_FUNC_core_get_params_fn *get_params;
    OSSL_FUNC_core_obj_create_fn *obj_create;
    OSSL_FUNC_core_obj_add_sigid_fn *obj_add_sigid;
} kpqc_prov_core;

/*
 * The provider's context, one per library context that loads the provider
 * (OpenSSL calls OSSL_provider_init once for each, possibly from several
 * threads at once).  Everything an instance needs lives here; nothing
 * mutable is shared between instances.
 */
typedef struct kpqc_prov_ctx {
    const OSSL_CORE_HANDLE *handle;
    kpqc_prov_core core;
    OSSL_LIB_CTX *libctx;  /* child library context: the classical halves */
    kpqc_prov_table table; /* this instance's algorithms */
    int oid_profile;       /* kpqc_oid_profile: whose OIDs and key encodings the encoders write */
    OSSL_ALGORITHM *keymgmt_algs, *kem_algs, *sig_algs, *encoder_algs, *decoder_algs;
    int tls_sigalgs;       /* the core understands the TLS-SIGALG capability (>= 3.2) */
} kpqc_prov_ctx;

/* Classical helpers (prov_classical.c). */
#define KPQC_CLASSICAL_MAX_PUB 133 /* a P-521 point, uncompressed */
size_t kpqc_classical_pub_len(kpqc_classical c);
size_t kpqc_classical_secret_len(kpqc_classical c);
size_t kpqc_classical_sig_max_len(kpqc_classical c); /* DER ECDSA signature */
/* `propq` is the application's property query, passed on to every fetch. */
EVP_PKEY *kpqc_classical_keygen(OSSL_LIB_CTX *libctx, const char *propq, kpqc_classical c);
int kpqc_classical_get_pub(const EVP_PKEY *key, kpqc_classical c, unsigned char *out);
EVP_PKEY *kpqc_classical_from_pub(OSSL_LIB_CTX *libctx, const char *propq, kpqc_classical c, const unsigned char *pub, size_t len);
int kpqc_classical_derive(OSSL_LIB_CTX *libctx, const char *propq, EVP_PKEY *priv, EVP_PKEY *peer, unsigned char *out, size_t len);
/* ECPrivateKey DER of an EC key, and back (composite private keys). */
int kpqc_classical_priv_der(const EVP_PKEY *key, unsigned char **der, size_t *len);
EVP_PKEY *kpqc_classical_from_priv_der(OSSL_LIB_CTX *libctx, const char *propq, kpqc_classical c, const unsigned char *der, size_t len);

/* A key of one kpqc_prov_alg. */
typedef struct kpqc_key {
    kpqc_prov_ctx *provctx;
    const kpqc_prov_alg *alg;
    unsigned char *pk, *sk;   /* KpqC halves, NULL when absent */
    EVP_PKEY *classical;      /* hybrids and composites only */
    char *propq;              /* the application's property query for the classical half, or NULL */
} kpqc_key;

kpqc_key *kpqc_key_new(kpqc_prov_ctx *provctx, const kpqc_prov_alg *alg);
int kpqc_key_set_propq(kpqc_key *key, const char *propq);
void kpqc_key_free(kpqc_key *key);
int kpqc_key_generate(kpqc_key *key);
size_t kpqc_key_pub_len(const kpqc_prov_alg *alg);   /* encoded public key / key share */
size_t kpqc_key_ct_len(const kpqc_prov_alg *alg);
size_t kpqc_key_secret_len(const kpqc_prov_alg *alg);
size_t kpqc_key_max_output(const kpqc_prov_alg *alg); /* ciphertext or largest signature */
/* 1 when the KpqC half comes first in the key share, ciphertext and secret
 * (X25519/X448 hybrids, composites), 0 when ECDH does (NIST-curve hybrids). */
int kpqc_pq_first(const kpqc_prov_alg *alg);
/*
 * Encodings used by raw import/export and by SPKI/PKCS#8:
 *   public:  hybrid KEM  KpqC pk || X25519/X448 value, or
 *                        EC point || KpqC pk on NIST curves (the TLS key share)
 *            composite   KpqC pk || EC point    (draft-ietf-lamps-pq-composite-sigs)
 *            pure        KpqC pk
 *   private: KpqC sk || KpqC pk [|| ECPrivateKey DER for composites]
 * Hybrid KEM keys have no private encoding (they live for one handshake).
 */
int kpqc_key_encode_pub(const kpqc_key *key, unsigned char *out);
int kpqc_key_decode_pub(kpqc_key *key, const unsigned char *in, size_t len);
int kpqc_key_encode_priv(const kpqc_key *key, unsigned char **out, size_t *len);
int kpqc_key_decode_priv(kpqc_key *key, const unsigned char *in, size_t len);
int kpqc_key_has_priv_encoding(const kpqc_prov_alg *alg);
/* The keymgmt's validate: the public key decodes under the scheme's rules
 * (and EC points lie on their curve), the private key belongs to it. */
int kpqc_key_validate(const void *key, int selection, int checktype);
/* The keymgmt's export: PUB_KEY/PRIV_KEY per `selection` to `cb`. */
int kpqc_key_export(void *key, int selection, OSSL_CALLBACK *cb, void *cbarg);

/* Minimal DER for SubjectPublicKeyInfo and PKCS#8 PrivateKeyInfo (prov_der.c). */
int kpqc_der_oid(const char *dotted, unsigned char *out, size_t *len); /* content bytes */
int kpqc_der_spki(const kpqc_prov_alg *alg, const unsigned char *pub, size_t pub_len, unsigned char **out,
                  size_t *out_len);
int kpqc_der_pkcs8(const kpqc_prov_alg *alg, const unsigned char *priv, size_t priv_len, unsigned char **out,
                   size_t *out_len);
/* Parse; on success point into `in` at the key bytes. Return 0 when the
 * input is not that structure for `alg`. */
int kpqc_der_parse_spki(const kpqc_prov_alg *alg, const unsigned char *in, size_t len,
                        const unsigned char **pub, size_t *pub_len);
int kpqc_der_parse_pkcs8(const kpqc_prov_alg *alg, const unsigned char *in, size_t len,
                         const unsigned char **priv, size_t *priv_len);
/* The same for any OID; `wrapped`: the key bytes sit in an OCTET STRING of
 * their own inside the BIT STRING or OCTET STRING.  A PrivateKeyInfo with a
 * `pub` is OneAsymmetricKey (RFC 5958) version 1 ending with it. */
typedef struct {
    const unsigned char *key;
    size_t key_len;
    const unsigned char *pub; /* PrivateKeyInfo's public key, or NULL */
    size_t pub_len;
} kpqc_der_key;
int kpqc_der_write_key_info(const char *dotted_oid, int pkcs8, int wrapped, const kpqc_der_key *k, unsigned char **out,
                            size_t *out_len);
int kpqc_der_parse_key_info(const char *dotted_oid, int pkcs8, int wrapped, const unsigned char *in, size_t len,
                            kpqc_der_key *k);

/* Bouncy Castle's identifiers and key encodings (prov_bc.c). */
typedef enum { KPQC_OID_PROFILE_KPQC, KPQC_OID_PROFILE_BOUNCYCASTLE } kpqc_oid_profile;
/* The `oid-profile` line of the provider's configuration (NULL: ours). */
int kpqc_bc_parse_profile(const char *value, kpqc_oid_profile *profile);
/* Bouncy Castle's OID for an algorithm of ours, or NULL. */
const char *kpqc_bc_oid(const char *name);
/* Decodes a SubjectPublicKeyInfo (pkcs8 = 0) or PrivateKeyInfo under one of
 * Bouncy Castle's OIDs: 1 and *key set (with the property query `propq`),
 * 0 when it is not one, -1 when it is but cannot be loaded (error raised). */
int kpqc_bc_decode(kpqc_prov_ctx *provctx, const char *propq, int pkcs8, const unsigned char *der, size_t len,
                   kpqc_key **key);
/* Encodes `key` as Bouncy Castle does when the provider's profile says so:
 * 1 and *der set, 0 when ours applies, -1 on error (raised). */
int kpqc_bc_encode(kpqc_prov_ctx *provctx, const kpqc_key *key, int pkcs8, unsigned char **der, size_t *der_len);

/* Dispatch tables. */
const OSSL_DISPATCH *kpqc_prov_keymgmt_dispatch(const char *name);
extern const OSSL_DISPATCH kpqc_prov_kem_functions[];
extern const OSSL_DISPATCH kpqc_prov_sig_functions[];
/* Encoders and decoders: one entry per (kind, algorithm with an OID). */
typedef struct {
    const char *properties;
    const OSSL_DISPATCH *dispatch;
    int private_only; /* PrivateKeyInfo: only for algorithms with a private encoding */
} kpqc_prov_codec;
extern const kpqc_prov_codec kpqc_prov_encoders[], kpqc_prov_decoders[];
extern const size_t kpqc_prov_encoder_count, kpqc_prov_decoder_count;

int kpqc_prov_tls_groups(const kpqc_prov_ctx *provctx, OSSL_CALLBACK *cb, void *arg);
int kpqc_prov_tls_sigalgs(const kpqc_prov_ctx *provctx, OSSL_CALLBACK *cb, void *arg);
int kpqc_prov_self_test(void); /* the algorithms' known answers, the same for every instance */

/* Upcalls (prov_upcalls.c): an rng drawing from OpenSSL's DRBG of the
 * provider's library context, and errors raised with the provider's reason
 * codes. */
kpqc_rng kpqc_prov_rng(kpqc_prov_ctx *provctx);
void kpqc_prov_raise(kpqc_prov_ctx *provctx, int reason, const char *fmt, ...);
enum {
    KPQC_R_WRONG_LENGTH = 1,
    KPQC_R_MISSING_KEY,
    KPQC_R_OPERATION_FAILED,
    KPQC_R_DECAPSULATION_FAILED,
    KPQC_R_RNG_FAILED,
    KPQC_R_SELF_TEST_FAILED,
    KPQC_R_BAD_ENCODING,
    KPQC_R_CONTEXT_TOO_LONG,
    KPQC_R_BAD_CONFIG,
};

#endif
