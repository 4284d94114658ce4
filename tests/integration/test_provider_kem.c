/*
 * kpqcprovider through the public EVP API, for every KEM and hybrid group:
 * key generation, the encoded public key (what TLS sends) set on a fresh
 * key as libssl does, encapsulation/decapsulation round trips, and clean
 * OpenSSL errors (never a crash) for truncated ciphertexts, wrong-length
 * or malformed public keys, EC shares not in uncompressed form, keys of the
 * wrong type and unknown names; the order of a hybrid's halves, checked by
 * an encapsulation put together from its parts.  Then the application's property query
 * reaching the classical halves, and the bound on streamed messages.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

#include "check.h"

static OSSL_LIB_CTX *libctx;

/* The error queue holds an error from kpqcprovider with a reason string. */
static int provider_error_raised(void) {
    const char *lib = NULL, *func = NULL, *data = NULL;
    unsigned long e;
    int found = 0;
    while ((e = ERR_get_error_all(NULL, NULL, &func, &data, NULL)) != 0) {
        lib = ERR_reason_error_string(e);
        if (lib != NULL && data != NULL && data[0] != '\0') found = 1;
    }
    return found;
}

static EVP_PKEY *keygen(const char *name) {
    EVP_PKEY *key = NULL;
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(libctx, name, NULL);
    if (ctx != NULL && EVP_PKEY_keygen_init(ctx) > 0) EVP_PKEY_keygen(ctx, &key);
    EVP_PKEY_CTX_free(ctx);
    return key;
}

/* A peer key made the way libssl makes it: parameters only, then the share. */
static EVP_PKEY *peer_from_share(const char *name, const unsigned char *share, size_t len) {
    EVP_PKEY *key = NULL;
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(libctx, name, NULL);
    if (ctx == NULL || EVP_PKEY_paramgen_init(ctx) <= 0 || EVP_PKEY_paramgen(ctx, &key) <= 0) key = NULL;
    EVP_PKEY_CTX_free(ctx);
    if (key != NULL && EVP_PKEY_set1_encoded_public_key(key, share, len) <= 0) {
        EVP_PKEY_free(key);
        key = NULL;
    }
    return key;
}

static void check_kem(const char *name) {
    EVP_PKEY *priv = keygen(name);
    CHECK(priv != NULL);
    if (priv == NULL) return;
    unsigned char *share = NULL;
    size_t share_len = EVP_PKEY_get1_encoded_public_key(priv, &share);
    CHECK(share_len > 0);
    EVP_PKEY *pub = peer_from_share(name, share, share_len);
    CHECK(pub != NULL);

    EVP_PKEY_CTX *enc = EVP_PKEY_CTX_new_from_pkey(libctx, pub, NULL);
    size_t ct_len = 0, ss_len = 0, ss2_len = 0;
    CHECK(EVP_PKEY_encapsulate_init(enc, NULL) > 0);
    CHECK(EVP_PKEY_encapsulate(enc, NULL, &ct_len, NULL, &ss_len) > 0);
    unsigned char *ct = malloc(ct_len), *ss = malloc(ss_len), *ss2 = malloc(ss_len + 8);
    CHECK(EVP_PKEY_encapsulate(enc, ct, &ct_len, ss, &ss_len) > 0);

    EVP_PKEY_CTX *dec = EVP_PKEY_CTX_new_from_pkey(libctx, priv, NULL);
    CHECK(EVP_PKEY_decapsulate_init(dec, NULL) > 0);
    ss2_len = ss_len + 8;
    CHECK(EVP_PKEY_decapsulate(dec, ss2, &ss2_len, ct, ct_len) > 0);
    CHECK(ss2_len == ss_len && memcmp(ss, ss2, ss_len) == 0);

    /* Truncated and oversized ciphertexts: an error with a reason. */
    ss2_len = ss_len + 8;
    CHECK(EVP_PKEY_decapsulate(dec, ss2, &ss2_len, ct, ct_len - 1) <= 0);
    CHECK(provider_error_raised());
    unsigned char *big = calloc(1, ct_len + 1);
    memcpy(big, ct, ct_len);
    ss2_len = ss_len + 8;
    CHECK(EVP_PKEY_decapsulate(dec, ss2, &ss2_len, big, ct_len + 1) <= 0);
    CHECK(provider_error_raised());
    /* A garbage ciphertext of the right length: a secret other than the
     * real one, or (explicit rejection, invalid classical share) an error. */
    memset(big, 0xFF, ct_len);
    ss2_len = ss_len + 8;
    if (EVP_PKEY_decapsulate(dec, ss2, &ss2_len, big, ct_len) > 0)
        CHECK(memcmp(ss, ss2, ss_len) != 0);
    else
        CHECK(provider_error_raised());

    /* EC halves (ECDH first in the NIST-curve hybrids) only as uncompressed
     * points: every other prefix, in key share and ciphertext, is refused. */
    if (strncmp(name, "p256_", 5) == 0 || strncmp(name, "p384_", 5) == 0 || strncmp(name, "p521_", 5) == 0) {
        static const unsigned char prefixes[] = {0x00, 0x02, 0x03, 0x05, 0x06, 0x07, 0xFF};
        CHECK(share[0] == 0x04 && ct[0] == 0x04);
        for (size_t i = 0; i < sizeof prefixes; i++) {
            memcpy(big, ct, ct_len);
            big[0] = prefixes[i];
            ss2_len = ss_len + 8;
            CHECK(EVP_PKEY_decapsulate(dec, ss2, &ss2_len, big, ct_len) <= 0);
            CHECK(provider_error_raised());
            unsigned char saved = share[0];
            share[0] = prefixes[i];
            EVP_PKEY *odd = peer_from_share(name, share, share_len);
            CHECK(odd == NULL);
            EVP_PKEY_free(odd);
            share[0] = saved;
            ERR_clear_error();
        }
    }

    /* Public keys of the wrong length, or all 0xFF, are refused. */
    CHECK(peer_from_share(name, share, share_len - 1) == NULL);
    CHECK(provider_error_raised());
    memset(share, 0xFF, share_len);
    EVP_PKEY *junk = peer_from_share(name, share, share_len);
    if (junk == NULL) CHECK(provider_error_raised()); /* hybrids: not a curve point */
    EVP_PKEY_free(junk);
    /* Decapsulation needs a private key. */
    EVP_PKEY_CTX *nopriv = EVP_PKEY_CTX_new_from_pkey(libctx, pub, NULL);
    CHECK(EVP_PKEY_decapsulate_init(nopriv, NULL) <= 0);
    ERR_clear_error();

    printf("%-26s share %5zu  ciphertext %5zu  secret %3zu\n", name, share_len, ct_len, ss_len);
    EVP_PKEY_CTX_free(nopriv);
    EVP_PKEY_CTX_free(enc);
    EVP_PKEY_CTX_free(dec);
    EVP_PKEY_free(pub);
    EVP_PKEY_free(priv);
    OPENSSL_free(share);
    free(ct), free(ss), free(ss2), free(big);
}

static int encaps_to(EVP_PKEY *peer, unsigned char *ct, size_t *ct_len, unsigned char *ss, size_t *ss_len) {
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(libctx, peer, NULL);
    int ok = ctx != NULL && EVP_PKEY_encapsulate_init(ctx, NULL) > 0 && EVP_PKEY_encapsulate(ctx, ct, ct_len, ss, ss_len) > 0;
    EVP_PKEY_CTX_free(ctx);
    return ok;
}

static int derive(EVP_PKEY *priv, EVP_PKEY *peer, unsigned char *ss, size_t *ss_len) {
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(libctx, priv, NULL);
    int ok = ctx != NULL && EVP_PKEY_derive_init(ctx) > 0 && EVP_PKEY_derive_set_peer(ctx, peer) > 0 &&
             EVP_PKEY_derive(ctx, ss, ss_len) > 0;
    EVP_PKEY_CTX_free(ctx);
    return ok;
}

/*
 * The order of a hybrid's halves: KpqC first for X25519/X448 (as
 * X25519MLKEM768), ECDH first on NIST curves (as SecP256r1MLKEM768).  A
 * ciphertext assembled by hand in that order, from an encapsulation to the
 * pure group's half of the key share and an ECDH with its classical half,
 * must decapsulate to the two secrets in the same order.
 */
static void check_layout(const char *name) {
    static const struct {
        const char *prefix, *keytype, *curve;
        size_t pub_len;
        int pq_first;
    } kinds[] = {{"x25519_", "X25519", NULL, 32, 1}, {"x448_", "X448", NULL, 56, 1},
                 {"p256_", "EC", "P-256", 65, 0},    {"p384_", "EC", "P-384", 97, 0},
                 {"p521_", "EC", "P-521", 133, 0}};
    size_t k = 0;
    while (k < sizeof kinds / sizeof kinds[0] && strncmp(name, kinds[k].prefix, strlen(kinds[k].prefix)) != 0) k++;
    if (k == sizeof kinds / sizeof kinds[0]) return; /* a pure group */
    const char *pure = name + strlen(kinds[k].prefix);
    size_t cpub = kinds[k].pub_len;
    int pq_first = kinds[k].pq_first;

    EVP_PKEY *priv = keygen(name), *pq_peer = NULL, *ec_peer = NULL, *eph = NULL;
    unsigned char *share = NULL, *eph_pub = NULL;
    size_t share_len = priv != NULL ? EVP_PKEY_get1_encoded_public_key(priv, &share) : 0;
    unsigned char ct[4096], ct_pq[4096], ss[256], ss_pq[128], ss_ec[128], want[256];
    size_t ct_pq_len = sizeof ct_pq, ss_pq_len = sizeof ss_pq, ss_ec_len = sizeof ss_ec, ss_len = sizeof ss;
    CHECK(share_len > cpub);
    if (share_len <= cpub) goto done;
    size_t pq_len = share_len - cpub;
    const unsigned char *pq_pub = share + (pq_first ? 0 : cpub), *ec_pub = share + (pq_first ? pq_len : 0);
    CHECK((pq_peer = peer_from_share(pure, pq_pub, pq_len)) != NULL);
    CHECK(pq_peer != NULL && encaps_to(pq_peer, ct_pq, &ct_pq_len, ss_pq, &ss_pq_len));
    eph = kinds[k].curve != NULL ? EVP_PKEY_Q_keygen(libctx, NULL, "EC", kinds[k].curve)
                                 : EVP_PKEY_Q_keygen(libctx, NULL, kinds[k].keytype);
    ec_peer = kinds[k].curve != NULL ? EVP_PKEY_Q_keygen(libctx, NULL, "EC", kinds[k].curve)
                                     : EVP_PKEY_Q_keygen(libctx, NULL, kinds[k].keytype);
    CHECK(eph != NULL && ec_peer != NULL && EVP_PKEY_set1_encoded_public_key(ec_peer, ec_pub, cpub) > 0);
    CHECK(derive(eph, ec_peer, ss_ec, &ss_ec_len));
    CHECK(EVP_PKEY_get1_encoded_public_key(eph, &eph_pub) == cpub);
    if (failures != 0 || eph_pub == NULL || ct_pq_len + cpub > sizeof ct) goto done;
    memcpy(ct + (pq_first ? 0 : cpub), ct_pq, ct_pq_len);
    memcpy(ct + (pq_first ? ct_pq_len : 0), eph_pub, cpub);
    memcpy(want + (pq_first ? 0 : ss_ec_len), ss_pq, ss_pq_len);
    memcpy(want + (pq_first ? ss_pq_len : 0), ss_ec, ss_ec_len);
    EVP_PKEY_CTX *dec = EVP_PKEY_CTX_new_from_pkey(libctx, priv, NULL);
    CHECK(dec != NULL && EVP_PKEY_decapsulate_init(dec, NULL) > 0 &&
          EVP_PKEY_decapsulate(dec, ss, &ss_len, ct, ct_pq_len + cpub) > 0);
    CHECK(ss_len == ss_pq_len + ss_ec_len && memcmp(ss, want, ss_len) == 0);
    EVP_PKEY_CTX_free(dec);
done:
    EVP_PKEY_free(priv);
    EVP_PKEY_free(pq_peer);
    EVP_PKEY_free(ec_peer);
    EVP_PKEY_free(eph);
    OPENSSL_free(share);
    OPENSSL_free(eph_pub);
}

/* A property query no classical implementation satisfies (only our own
 * provider) must reach the classical half: its fetches then fail, where a
 * NULL query would have used the default provider unasked. */
#define ONLY_KPQC "provider=kpqcprovider"

static void check_propq(const char *hybrid, const char *composite) {
    EVP_PKEY *key = NULL;
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(libctx, hybrid, NULL);
    OSSL_PARAM params[] = {OSSL_PARAM_utf8_string(OSSL_PKEY_PARAM_PROPERTIES, ONLY_KPQC, 0), OSSL_PARAM_END};
    if (ctx != NULL) { /* NULL: family not built */
        CHECK(EVP_PKEY_keygen_init(ctx) > 0 && EVP_PKEY_CTX_set_params(ctx, params) > 0);
        CHECK(EVP_PKEY_keygen(ctx, &key) <= 0); /* no ECDH key generation under that query */
    }
    EVP_PKEY_CTX_free(ctx);
    EVP_PKEY_free(key);
    ERR_clear_error();

    EVP_PKEY *sig_key = keygen(composite);
    if (sig_key == NULL) { /* family not built */
        ERR_clear_error();
        return;
    }
    static const unsigned char msg[] = "property query";
    unsigned char sig[16384];
    size_t sig_len = sizeof sig;
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    CHECK(EVP_DigestSignInit_ex(md, NULL, NULL, libctx, NULL, sig_key, NULL) == 1 &&
          EVP_DigestSign(md, sig, &sig_len, msg, sizeof msg) == 1);
    EVP_MD_CTX_free(md);
    md = EVP_MD_CTX_new();
    sig_len = sizeof sig;
    CHECK(EVP_DigestSignInit_ex(md, NULL, NULL, libctx, ONLY_KPQC, sig_key, NULL) != 1 ||
          EVP_DigestSign(md, sig, &sig_len, msg, sizeof msg) != 1);
    EVP_MD_CTX_free(md);
    EVP_PKEY_free(sig_key);
    ERR_clear_error();
}

/* Streamed messages are buffered up to 64 MiB; one byte more is refused. */
static void check_stream_bound(const char *alg) {
    EVP_PKEY *key = keygen(alg);
    if (key == NULL) {
        ERR_clear_error();
        return;
    }
    size_t chunk = (size_t)1 << 20;
    unsigned char *buf = calloc(1, chunk);
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    int ok = buf != NULL && EVP_DigestSignInit_ex(md, NULL, NULL, libctx, NULL, key, NULL) == 1;
    for (int i = 0; ok && i < 64; i++) ok = EVP_DigestSignUpdate(md, buf, chunk) == 1;
    CHECK(ok);
    CHECK(EVP_DigestSignUpdate(md, buf, 1) != 1);
    CHECK(provider_error_raised());
    EVP_MD_CTX_free(md);
    EVP_PKEY_free(key);
    free(buf);
}

int main(int argc, char **argv) {
    libctx = OSSL_LIB_CTX_new();
    if (argc > 1) OSSL_PROVIDER_set_default_search_path(libctx, argv[1]);
    OSSL_PROVIDER *def = OSSL_PROVIDER_load(libctx, "default");
    OSSL_PROVIDER *kpqc = OSSL_PROVIDER_load(libctx, "kpqcprovider");
    CHECK(def != NULL && kpqc != NULL);
    if (kpqc == NULL) return 1;
    /* Every group the provider announces, by its names from the table. */
    for (int i = 2; i < argc; i++) {
        check_kem(argv[i]);
        check_layout(argv[i]);
    }
    check_propq("p256_smaugt1", "p256_haetae2");
    check_propq("p256_ntruplus768", "p256_aimer128f");
    check_stream_bound("aimer128f");
    check_stream_bound("haetae2");
    /* Unknown names and wrong key types fail cleanly. */
    CHECK(keygen("no_such_kem") == NULL);
    ERR_clear_error();
    EVP_PKEY *ec = keygen("X25519");
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(libctx, ec, "provider=kpqcprovider");
    CHECK(ctx == NULL || EVP_PKEY_encapsulate_init(ctx, NULL) <= 0);
    EVP_PKEY_CTX_free(ctx);
    EVP_PKEY_free(ec);
    ERR_clear_error();
    OSSL_PROVIDER_unload(kpqc);
    OSSL_PROVIDER_unload(def);
    OSSL_LIB_CTX_free(libctx);
    printf("test_provider_kem: %s\n", failures ? "FAILED" : "all checks passed");
    return failures != 0;
}
