/*
 * libFuzzer target: KEM decapsulation with arbitrary ciphertexts and secret
 * keys.  Input: one byte choosing the algorithm, one byte choosing the
 * mode, then the bytes used as ciphertext (and secret key).  Decapsulation
 * must answer any ciphertext of the right length as its specification says
 * (a secret, or an explicit rejection) and never read or write out of
 * bounds, whatever the secret key holds.
 */
#include <stdlib.h>
#include <string.h>

#include <kpqc/drbg.h>
#include <kpqc/kpqc.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 2 || kpqc_kem_count() == 0) return 0;
    const kpqc_kem *k = kpqc_kem_at(data[0] % kpqc_kem_count());
    uint8_t mode = data[1];
    data += 2, size -= 2;

    uint8_t *pk = malloc(k->pk_len), *sk = malloc(k->sk_len), *ct = malloc(k->ct_len), ss[32];
    uint8_t entropy[48] = {0};
    kpqc_nist_drbg d;
    kpqc_nist_drbg_init(&d, entropy, NULL);
    kpqc_rng rng = kpqc_nist_drbg_rng(&d);
    /* One genuine key pair per algorithm, made once and copied per input. */
    static uint8_t *cached_pk[32], *cached_sk[32];
    size_t index = data[-2] % kpqc_kem_count();
    if (cached_sk[index] == NULL) {
        cached_pk[index] = malloc(k->pk_len);
        cached_sk[index] = malloc(k->sk_len);
        if (kpqc_kem_keypair(k, cached_pk[index], k->pk_len, cached_sk[index], k->sk_len, &rng) != KPQC_OK) abort();
    }
    memcpy(pk, cached_pk[index], k->pk_len);
    memcpy(sk, cached_sk[index], k->sk_len);

    /* The ciphertext: the input, zero-extended or cut to the right length. */
    memset(ct, 0, k->ct_len);
    memcpy(ct, data, size < k->ct_len ? size : k->ct_len);
    if (mode & 1) {
        /* Also an arbitrary secret key, taken from the rest of the input. */
        size_t rest = size > k->ct_len ? size - k->ct_len : 0;
        memset(sk, 0xA5, k->sk_len);
        memcpy(sk, data + (size - rest), rest < k->sk_len ? rest : k->sk_len);
    }
    int rc = kpqc_kem_decaps(k, ss, 32, ct, k->ct_len, sk, k->sk_len);
    if (rc != KPQC_OK && !(rc == KPQC_ERR_DECAPS && k->rejection == KPQC_REJECT_EXPLICIT)) abort();
    /* Wrong lengths are refused, never read. */
    if (kpqc_kem_decaps(k, ss, 32, ct, size % (2 * k->ct_len + 1), sk, k->sk_len) == KPQC_OK &&
        size % (2 * k->ct_len + 1) != k->ct_len)
        abort();
    /* Encapsulation to an arbitrary public key must not crash either. */
    if (mode & 2) {
        memset(pk, 0, k->pk_len);
        memcpy(pk, data, size < k->pk_len ? size : k->pk_len);
        rc = kpqc_kem_encaps(k, ct, k->ct_len, ss, 32, pk, k->pk_len, &rng);
        if (rc != KPQC_OK && rc != KPQC_ERR_DECODE) abort();
    }
    free(pk), free(sk), free(ct);
    return 0;
}
