/*
 * Bouncy Castle's KpqC keys.  Bouncy Castle (bcprov 1.87) names the KpqC
 * algorithms with OIDs of its own and writes each raw key inside an OCTET
 * STRING of its own: SubjectPublicKeyInfo BIT STRING { OCTET STRING pk },
 * PrivateKeyInfo OCTET STRING { OCTET STRING sk }, where sk is the
 * reference implementation's secret key (ours without our copy of pk).
 * SMAUG-T's sk ends with pk; NTRU+'s holds only a hash of it, so under the
 * profile an NTRU+ private key is written as OneAsymmetricKey version 1
 * with its publicKey (which Bouncy Castle reads as well).
 *
 * Its KEMs compute what the reference code computes, so their keys are
 * read here and, with `oid-profile = bouncycastle` in the provider's
 * configuration section, written as Bouncy Castle reads them.  Its
 * signatures are not the specifications' (measured against the official
 * KATs, see docs/interop.md), so their OIDs are recognised only to refuse
 * the key with a reason.
 */
#include <string.h>

#include <openssl/crypto.h>

#include "kpqcprovider.h"

typedef struct {
    const char *name;    /* ours */
    const char *oid;     /* Bouncy Castle's */
    int sk_ends_with_pk; /* the secret key carries the public key at its end (SMAUG-T) */
    const char *refusal; /* why the keys cannot be used, or NULL */
} bc_id;

#define AIMER_V21 "Bouncy Castle 1.87's AIMer is version 2.1 (it verifies the v2.1 KATs, not the current ones)"
#define HAETAE_NOKAT "Bouncy Castle 1.87's HAETAE verifies neither official KAT version"

static const bc_id bc_ids[] = {
    {"smaugt1", "1.3.6.1.4.1.22554.5.11.1", 1, NULL},
    {"smaugt3", "1.3.6.1.4.1.22554.5.11.2", 1, NULL},
    {"smaugt5", "1.3.6.1.4.1.22554.5.11.3", 1, NULL},
    {"timer", "1.3.6.1.4.1.22554.5.11.4", 1, NULL},
    {"ntruplus768", "1.3.6.1.4.1.22554.5.10.1", 0, NULL},
    {"ntruplus864", "1.3.6.1.4.1.22554.5.10.2", 0, NULL},
    {"ntruplus1152", "1.3.6.1.4.1.22554.5.10.3", 0, NULL},
    {"haetae2", "1.3.6.1.4.1.22554.2.18.1", 0, HAETAE_NOKAT},
    {"haetae3", "1.3.6.1.4.1.22554.2.18.2", 0, HAETAE_NOKAT},
    {"haetae5", "1.3.6.1.4.1.22554.2.18.3", 0, HAETAE_NOKAT},
    {"aimer128f", "1.3.6.1.4.1.22554.2.20.1", 0, AIMER_V21},
    {"aimer128s", "1.3.6.1.4.1.22554.2.20.2", 0, AIMER_V21},
    {"aimer192f", "1.3.6.1.4.1.22554.2.20.3", 0, AIMER_V21},
    {"aimer192s", "1.3.6.1.4.1.22554.2.20.4", 0, AIMER_V21},
    {"aimer256f", "1.3.6.1.4.1.22554.2.20.5", 0, AIMER_V21},
    {"aimer256s", "1.3.6.1.4.1.22554.2.20.6", 0, AIMER_V21},
};
#define BC_IDS (sizeof bc_ids / sizeof bc_ids[0])

static const bc_id *bc_by_name(const char *name) {
    for (size_t i = 0; i < BC_IDS; i++)
        if (strcmp(bc_ids[i].name, name) == 0) return &bc_ids[i];
    return NULL;
}

int kpqc_bc_parse_profile(const char *value, kpqc_oid_profile *profile) {
    if (value == NULL || strcmp(value, "kpqc") == 0) *profile = KPQC_OID_PROFILE_KPQC;
    else if (strcmp(value, "bouncycastle") == 0) *profile = KPQC_OID_PROFILE_BOUNCYCASTLE;
    else return 0;
    return 1;
}

const char *kpqc_bc_oid(const char *name) {
    const bc_id *id = bc_by_name(name);
    return id != NULL ? id->oid : NULL;
}

/* A secret key without its public key (an NTRU+ key as Bouncy Castle writes
 * it, carrying only F(pk)): it decapsulates and re-encodes in Bouncy
 * Castle's form; the pair cannot be checked at load. */
static int set_secret_only(kpqc_key *key, const unsigned char *sk) {
    unsigned char *copy = OPENSSL_secure_malloc(key->alg->pq_sk_len);
    if (copy == NULL) return 0;
    memcpy(copy, sk, key->alg->pq_sk_len);
    OPENSSL_secure_clear_free(key->sk, key->alg->pq_sk_len);
    key->sk = copy;
    return 1;
}

/* Our private encoding sk || pk, checked as ours are (the pair check). */
static int decode_pair(kpqc_key *key, const unsigned char *sk, const unsigned char *pk) {
    const kpqc_prov_alg *alg = key->alg;
    size_t len = alg->pq_sk_len + alg->pq_pk_len;
    unsigned char *both = OPENSSL_secure_malloc(len);
    if (both == NULL) return 0;
    memcpy(both, sk, alg->pq_sk_len);
    memcpy(both + alg->pq_sk_len, pk, alg->pq_pk_len);
    int ok = kpqc_key_decode_priv(key, both, len);
    OPENSSL_secure_clear_free(both, len);
    return ok;
}

/* A private key's public half: the PrivateKeyInfo's own (OneAsymmetricKey
 * version 1, as written under the profile for NTRU+), else the copy at the
 * end of a SMAUG-T secret key, else none. */
static const unsigned char *public_half(const bc_id *id, const kpqc_prov_alg *alg, const kpqc_der_key *k) {
    if (k->pub != NULL) return k->pub;
    return id->sk_ends_with_pk ? k->key + alg->pq_sk_len - alg->pq_pk_len : NULL;
}

int kpqc_bc_decode(kpqc_prov_ctx *provctx, const char *propq, int pkcs8, const unsigned char *der, size_t len,
                   kpqc_key **out) {
    for (size_t i = 0; i < BC_IDS; i++) {
        const bc_id *id = &bc_ids[i];
        kpqc_der_key k;
        if (!kpqc_der_parse_key_info(id->oid, pkcs8, 1, der, len, &k)) continue;
        const kpqc_prov_alg *alg = kpqc_prov_table_find(&provctx->table, id->name);
        if (alg == NULL) {
            kpqc_prov_raise(provctx, KPQC_R_BAD_ENCODING, "Bouncy Castle %s key (%s): family not built in", id->name,
                            id->oid);
            return -1;
        }
        if (id->refusal != NULL) {
            kpqc_prov_raise(provctx, KPQC_R_BAD_ENCODING, "Bouncy Castle %s key (%s) refused: %s", id->name, id->oid,
                            id->refusal);
            return -1;
        }
        size_t want = pkcs8 ? alg->pq_sk_len : alg->pq_pk_len;
        if (k.key_len != want || (k.pub != NULL && k.pub_len != alg->pq_pk_len)) {
            kpqc_prov_raise(provctx, KPQC_R_WRONG_LENGTH, "Bouncy Castle %s %s key must be %zu bytes, got %zu",
                            id->name, pkcs8 ? "private" : "public", want, k.pub != NULL ? k.pub_len : k.key_len);
            return -1;
        }
        const unsigned char *pk = pkcs8 ? public_half(id, alg, &k) : NULL;
        kpqc_key *key = kpqc_key_new(provctx, alg);
        int ok = key != NULL && kpqc_key_set_propq(key, propq) &&
                 (!pkcs8      ? kpqc_key_decode_pub(key, k.key, k.key_len)
                  : pk != NULL ? decode_pair(key, k.key, pk)
                               : set_secret_only(key, k.key));
        if (!ok) {
            kpqc_key_free(key);
            return -1;
        }
        *out = key;
        return 1;
    }
    return 0;
}

int kpqc_bc_encode(kpqc_prov_ctx *provctx, const kpqc_key *key, int pkcs8, unsigned char **der, size_t *der_len) {
    const bc_id *id = bc_by_name(key->alg->name);
    if (provctx->oid_profile != KPQC_OID_PROFILE_BOUNCYCASTLE || id == NULL || id->refusal != NULL) return 0;
    const unsigned char *raw = pkcs8 ? key->sk : key->pk;
    if (raw == NULL) {
        kpqc_prov_raise(provctx, KPQC_R_MISSING_KEY, "%s: no %s key to encode", key->alg->name,
                        pkcs8 ? "private" : "public");
        return -1;
    }
    /* A private key without its public key inside (NTRU+) carries it as
     * OneAsymmetricKey's publicKey, which Bouncy Castle reads too. */
    kpqc_der_key k = {raw, pkcs8 ? key->alg->pq_sk_len : key->alg->pq_pk_len,
                      pkcs8 && !id->sk_ends_with_pk ? key->pk : NULL, key->alg->pq_pk_len};
    if (!kpqc_der_write_key_info(id->oid, pkcs8, 1, &k, der, der_len)) {
        kpqc_prov_raise(provctx, KPQC_R_OPERATION_FAILED, "%s: encoding failed", key->alg->name);
        return -1;
    }
    return 1;
}
