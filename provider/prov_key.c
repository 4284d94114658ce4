/*
 * Key objects: the KpqC half as raw bytes, the classical half (of a hybrid
 * group or a composite signature) as an EVP_PKEY of the child library
 * context.  Generation and the encodings shared by raw import/export and
 * by the SPKI/PKCS#8 encoders live here.
 */
#include <string.h>

#include <openssl/crypto.h>

#include "kpqcprovider.h"

kpqc_key *kpqc_key_new(kpqc_prov_ctx *provctx, const kpqc_prov_alg *alg) {
    kpqc_key *key = OPENSSL_zalloc(sizeof *key);
    if (key == NULL) return NULL;
    key->provctx = provctx;
    key->alg = alg;
    return key;
}

void kpqc_key_free(kpqc_key *key) {
    if (key == NULL) return;
    OPENSSL_free(key->pk);
    OPENSSL_secure_clear_free(key->sk, key->alg->pq_sk_len);
    EVP_PKEY_free(key->classical);
    OPENSSL_free(key->propq);
    OPENSSL_free(key);
}

int kpqc_key_set_propq(kpqc_key *key, const char *propq) {
    char *copy = NULL;
    if (propq != NULL && (copy = OPENSSL_strdup(propq)) == NULL) return 0;
    OPENSSL_free(key->propq);
    key->propq = copy;
    return 1;
}

int kpqc_key_generate(kpqc_key *key) {
    const kpqc_prov_alg *alg = key->alg;
    kpqc_rng rng = kpqc_prov_rng(key->provctx);
    key->pk = OPENSSL_malloc(alg->pq_pk_len);
    key->sk = OPENSSL_secure_malloc(alg->pq_sk_len);
    if (key->pk == NULL || key->sk == NULL) return 0;
    int rc = alg->kind == KPQC_PROV_KEM
                 ? kpqc_kem_keypair(alg->kem, key->pk, alg->pq_pk_len, key->sk, alg->pq_sk_len, &rng)
                 : kpqc_sig_keypair(alg->sig, key->pk, alg->pq_pk_len, key->sk, alg->pq_sk_len, &rng);
    if (rc != KPQC_OK) {
        kpqc_prov_raise(key->provctx, rc == KPQC_ERR_RNG ? KPQC_R_RNG_FAILED : KPQC_R_OPERATION_FAILED,
                        "%s key generation: %s", alg->name, kpqc_status_string(rc));
        return 0;
    }
    if (alg->classical != KPQC_CLASSICAL_NONE &&
        (key->classical = kpqc_classical_keygen(key->provctx->libctx, key->propq, alg->classical)) == NULL) {
        kpqc_prov_raise(key->provctx, KPQC_R_OPERATION_FAILED, "%s: classical key generation failed", alg->name);
        return 0;
    }
    return 1;
}

size_t kpqc_key_pub_len(const kpqc_prov_alg *alg) {
    return kpqc_classical_pub_len(alg->classical) + alg->pq_pk_len;
}
size_t kpqc_key_ct_len(const kpqc_prov_alg *alg) {
    return kpqc_classical_pub_len(alg->classical) + alg->kem->ct_len;
}
size_t kpqc_key_secret_len(const kpqc_prov_alg *alg) {
    return kpqc_classical_secret_len(alg->classical) + alg->kem->ss_len;
}

size_t kpqc_key_max_output(const kpqc_prov_alg *alg) {
    return alg->kind == KPQC_PROV_KEM ? kpqc_key_ct_len(alg)
                                      : alg->sig->sig_len + kpqc_classical_sig_max_len(alg->classical);
}

/*
 * Order of the halves, as draft-ietf-tls-ecdhe-mlkem orders X25519MLKEM768
 * and SecP256r1MLKEM768 (and OpenSSL and oqs-provider follow): a hybrid
 * group puts its KpqC half first when the classical half is X25519 or X448
 * and ECDH first on a NIST curve, in key share, ciphertext and secret alike;
 * composite signatures put the KpqC half first.
 */
int kpqc_pq_first(const kpqc_prov_alg *alg) {
    return alg->kind == KPQC_PROV_SIG || alg->classical == KPQC_X25519 || alg->classical == KPQC_X448 ||
           alg->classical == KPQC_CLASSICAL_NONE;
}

/* Where the KpqC and classical parts sit in the public encoding. */
static size_t pq_offset(const kpqc_prov_alg *alg) {
    return kpqc_pq_first(alg) ? 0 : kpqc_classical_pub_len(alg->classical);
}
static size_t classical_offset(const kpqc_prov_alg *alg) {
    return kpqc_pq_first(alg) ? alg->pq_pk_len : 0;
}

int kpqc_key_encode_pub(const kpqc_key *key, unsigned char *out) {
    const kpqc_prov_alg *alg = key->alg;
    if (key->pk == NULL) return 0;
    if (alg->classical != KPQC_CLASSICAL_NONE &&
        (key->classical == NULL ||
         !kpqc_classical_get_pub(key->classical, alg->classical, out + classical_offset(alg))))
        return 0;
    memcpy(out + pq_offset(alg), key->pk, alg->pq_pk_len);
    return 1;
}

/* Replaces the key's contents with the public key `in`. */
int kpqc_key_decode_pub(kpqc_key *key, const unsigned char *in, size_t len) {
    const kpqc_prov_alg *alg = key->alg;
    size_t c = kpqc_classical_pub_len(alg->classical);
    EVP_PKEY *classical = NULL;
    if (len != kpqc_key_pub_len(alg)) {
        kpqc_prov_raise(key->provctx, KPQC_R_WRONG_LENGTH, "%s public key must be %zu bytes, got %zu", alg->name,
                        kpqc_key_pub_len(alg), len);
        return 0;
    }
    if (c != 0 && (classical = kpqc_classical_from_pub(key->provctx->libctx, key->propq, alg->classical,
                                                       in + classical_offset(alg), c)) == NULL) {
        kpqc_prov_raise(key->provctx, KPQC_R_BAD_ENCODING, "invalid classical part in %s public key", alg->name);
        return 0;
    }
    unsigned char *pk = OPENSSL_memdup(in + pq_offset(alg), alg->pq_pk_len);
    if (pk == NULL) {
        EVP_PKEY_free(classical);
        return 0;
    }
    OPENSSL_free(key->pk);
    OPENSSL_secure_clear_free(key->sk, alg->pq_sk_len);
    EVP_PKEY_free(key->classical);
    key->pk = pk;
    key->sk = NULL;
    key->classical = classical;
    return 1;
}

int kpqc_key_has_priv_encoding(const kpqc_prov_alg *alg) {
    return alg->kind == KPQC_PROV_SIG || alg->classical == KPQC_CLASSICAL_NONE;
}

int kpqc_key_encode_priv(const kpqc_key *key, unsigned char **out, size_t *len) {
    const kpqc_prov_alg *alg = key->alg;
    unsigned char *der = NULL;
    size_t der_len = 0;
    *out = NULL;
    if (key->sk == NULL || key->pk == NULL || !kpqc_key_has_priv_encoding(alg)) return 0;
    if (alg->classical != KPQC_CLASSICAL_NONE &&
        (key->classical == NULL || !kpqc_classical_priv_der(key->classical, &der, &der_len)))
        return 0;
    *len = alg->pq_sk_len + alg->pq_pk_len + der_len;
    if ((*out = OPENSSL_secure_malloc(*len)) != NULL) {
        memcpy(*out, key->sk, alg->pq_sk_len);
        memcpy(*out + alg->pq_sk_len, key->pk, alg->pq_pk_len);
        if (der_len != 0) memcpy(*out + alg->pq_sk_len + alg->pq_pk_len, der, der_len);
    }
    OPENSSL_clear_free(der, der_len);
    return *out != NULL;
}

/*
 * Whether a loaded private key belongs to its public key, so that a
 * corrupted or spliced file is refused when loaded rather than producing
 * signatures that never verify or secrets that never match.  Signature
 * keys: the library recomputes the public key from the secret one.  KEM
 * keys: the library checks the public key the secret key carries, then an
 * encapsulation round tests the secret polynomials.
 */
static int keys_match(kpqc_prov_ctx *provctx, const kpqc_prov_alg *alg, const unsigned char *pk,
                      const unsigned char *sk) {
    if (pk == NULL || sk == NULL) return 0;
    if (alg->kind == KPQC_PROV_SIG)
        return kpqc_sig_check_keypair(alg->sig, pk, alg->pq_pk_len, sk, alg->pq_sk_len) == KPQC_OK;
    const kpqc_kem *kem = alg->kem;
    kpqc_rng rng = kpqc_prov_rng(provctx);
    unsigned char *ct = OPENSSL_malloc(kem->ct_len), ss[64], ss2[64];
    int ok = ct != NULL && kem->ss_len <= sizeof ss &&
             kpqc_kem_check_keypair(kem, pk, kem->pk_len, sk, kem->sk_len) == KPQC_OK &&
             kpqc_kem_encaps(kem, ct, kem->ct_len, ss, kem->ss_len, pk, kem->pk_len, &rng) == KPQC_OK &&
             kpqc_kem_decaps(kem, ss2, kem->ss_len, ct, kem->ct_len, sk, kem->sk_len) == KPQC_OK &&
             CRYPTO_memcmp(ss, ss2, kem->ss_len) == 0;
    OPENSSL_cleanse(ss, sizeof ss);
    OPENSSL_cleanse(ss2, sizeof ss2);
    OPENSSL_free(ct);
    return ok;
}

int kpqc_key_decode_priv(kpqc_key *key, const unsigned char *in, size_t len) {
    const kpqc_prov_alg *alg = key->alg;
    size_t fixed = alg->pq_sk_len + alg->pq_pk_len;
    EVP_PKEY *classical = NULL;
    int composite = alg->classical != KPQC_CLASSICAL_NONE;
    if (!kpqc_key_has_priv_encoding(alg)) {
        kpqc_prov_raise(key->provctx, KPQC_R_BAD_ENCODING, "%s keys have no private key encoding", alg->name);
        return 0;
    }
    if (composite ? len <= fixed : len != fixed) {
        kpqc_prov_raise(key->provctx, KPQC_R_WRONG_LENGTH, "%s private key must be %s%zu bytes, got %zu",
                        alg->name, composite ? "more than " : "", fixed, len);
        return 0;
    }
    if (composite && (classical = kpqc_classical_from_priv_der(key->provctx->libctx, key->propq, alg->classical,
                                                               in + fixed, len - fixed)) == NULL) {
        kpqc_prov_raise(key->provctx, KPQC_R_BAD_ENCODING, "invalid ECDSA part in %s private key", alg->name);
        return 0;
    }
    unsigned char *sk = OPENSSL_secure_malloc(alg->pq_sk_len);
    unsigned char *pk = OPENSSL_memdup(in + alg->pq_sk_len, alg->pq_pk_len);
    if (sk == NULL || pk == NULL) {
        OPENSSL_secure_clear_free(sk, alg->pq_sk_len);
        OPENSSL_free(pk);
        EVP_PKEY_free(classical);
        return 0;
    }
    memcpy(sk, in, alg->pq_sk_len);
    if (!keys_match(key->provctx, alg, pk, sk)) {
        kpqc_prov_raise(key->provctx, KPQC_R_BAD_ENCODING, "%s private key does not match its public key",
                        alg->name);
        OPENSSL_secure_clear_free(sk, alg->pq_sk_len);
        OPENSSL_free(pk);
        EVP_PKEY_free(classical);
        return 0;
    }
    OPENSSL_free(key->pk);
    OPENSSL_secure_clear_free(key->sk, alg->pq_sk_len);
    EVP_PKEY_free(key->classical);
    key->sk = sk;
    key->pk = pk;
    key->classical = classical;
    return 1;
}

/*
 * The KpqC public key decodes under the scheme's rules: an encapsulation to
 * it succeeds (NTRU+ refuses coefficients that are not canonical; every
 * SMAUG-T encoding decodes).  Signature public keys of the right length
 * always decode, and loading enforces the length.
 */
static int pq_public_ok(kpqc_prov_ctx *provctx, const kpqc_prov_alg *alg, const unsigned char *pk) {
    if (alg->kind == KPQC_PROV_SIG) return 1;
    const kpqc_kem *kem = alg->kem;
    kpqc_rng rng = kpqc_prov_rng(provctx);
    unsigned char *ct = OPENSSL_malloc(kem->ct_len), ss[64];
    int ok = ct != NULL && kem->ss_len <= sizeof ss &&
             kpqc_kem_encaps(kem, ct, kem->ct_len, ss, kem->ss_len, pk, kem->pk_len, &rng) == KPQC_OK;
    OPENSSL_cleanse(ss, sizeof ss);
    OPENSSL_free(ct);
    return ok;
}

/* The classical half: its point on the curve (public), its scalar's range and
 * the scalar against the point (pair).  X25519/X448 values are all valid. */
static int classical_ok(kpqc_prov_ctx *provctx, const char *propq, EVP_PKEY *classical, int selection) {
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(provctx->libctx, classical, propq);
    int ok = ctx != NULL;
    if (ok && (selection & OSSL_KEYMGMT_SELECT_PUBLIC_KEY)) ok = EVP_PKEY_public_check(ctx) == 1;
    if (ok && (selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY))
        ok = (selection & OSSL_KEYMGMT_SELECT_PUBLIC_KEY) ? EVP_PKEY_pairwise_check(ctx) == 1
                                                          : EVP_PKEY_private_check(ctx) == 1;
    EVP_PKEY_CTX_free(ctx);
    return ok;
}

int kpqc_key_validate(const void *keydata, int selection, int checktype) {
    const kpqc_key *key = keydata;
    const kpqc_prov_alg *alg = key->alg;
    int ok = 1;
    (void)checktype; /* every check is the full one */
    if ((selection & OSSL_KEYMGMT_SELECT_KEYPAIR) == 0) return 1; /* no domain parameters */
    if (alg->classical != KPQC_CLASSICAL_NONE &&
        (key->classical == NULL || !classical_ok(key->provctx, key->propq, key->classical, selection)))
        ok = 0;
    if (ok && (selection & OSSL_KEYMGMT_SELECT_PUBLIC_KEY))
        ok = key->pk != NULL && pq_public_ok(key->provctx, alg, key->pk);
    /* A KpqC secret key always carries (a hash of) its public key, so the
     * private check is the pair check. */
    if (ok && (selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY)) ok = keys_match(key->provctx, alg, key->pk, key->sk);
    if (!ok)
        kpqc_prov_raise(key->provctx, KPQC_R_BAD_ENCODING, "%s key is not valid", alg->name);
    return ok;
}
