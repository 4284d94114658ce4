/* Key objects: the KpqC half as raw bytes, the classical half as an EVP_PKEY. */
#include <openssl/crypto.h>

#include "kpqcprovider.h"

kpqc_key *kpqc_key_new(kpqc_prov_ctx *provctx, const kpqc_prov_kem *alg) {
    kpqc_key *key = OPENSSL_zalloc(sizeof *key);
    if (key == NULL) return NULL;
    key->provctx = provctx;
    key->alg = alg;
    return key;
}

void kpqc_key_free(kpqc_key *key) {
    if (key == NULL) return;
    OPENSSL_free(key->pk);
    OPENSSL_clear_free(key->sk, key->alg->kem->sk_len);
    EVP_PKEY_free(key->classical);
    OPENSSL_free(key);
}

size_t kpqc_key_pub_len(const kpqc_prov_kem *alg) {
    return kpqc_classical_pub_len(alg->classical) + alg->kem->pk_len;
}
size_t kpqc_key_ct_len(const kpqc_prov_kem *alg) {
    return kpqc_classical_pub_len(alg->classical) + alg->kem->ct_len;
}
size_t kpqc_key_secret_len(const kpqc_prov_kem *alg) {
    return kpqc_classical_secret_len(alg->classical) + alg->kem->ss_len;
}
