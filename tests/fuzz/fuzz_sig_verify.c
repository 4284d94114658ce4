/*
 * libFuzzer target: signature verification with arbitrary signatures,
 * messages, contexts and public keys.  Input: algorithm byte, mode byte,
 * context length byte, then bytes split into signature / public key /
 * message.  Verification must never accept garbage for the fixed key and
 * never read out of bounds for any length.
 */
#include <stdlib.h>
#include <string.h>

#include <kpqc/drbg.h>
#include <kpqc/kpqc.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t *keys_pk[64];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 3 || kpqc_sig_count() == 0) return 0;
    size_t index = data[0] % kpqc_sig_count();
    const kpqc_sig *s = kpqc_sig_at(index);
    uint8_t mode = data[1], ctx_len = data[2];
    data += 3, size -= 3;

    /* One genuine key per algorithm, made once. */
    if (keys_pk[index] == NULL) {
        uint8_t entropy[48] = {(uint8_t)index};
        kpqc_nist_drbg d;
        kpqc_nist_drbg_init(&d, entropy, NULL);
        kpqc_rng rng = kpqc_nist_drbg_rng(&d);
        uint8_t *sk = malloc(s->sk_len);
        keys_pk[index] = malloc(s->pk_len);
        if (kpqc_sig_keypair(s, keys_pk[index], s->pk_len, sk, s->sk_len, &rng) != KPQC_OK) abort();
        free(sk);
    }

    /* Signature of the fuzzer's chosen length (an exact-size heap copy). */
    size_t sig_len = size;
    if (mode & 1) sig_len = size < s->sig_len ? size : s->sig_len;
    uint8_t *sig = malloc(sig_len ? sig_len : 1);
    memcpy(sig, data, sig_len);
    const uint8_t *msg = data + sig_len;
    size_t msg_len = size - sig_len;
    const uint8_t *ctx = msg;
    if (ctx_len > msg_len) ctx_len = (uint8_t)msg_len;

    const uint8_t *pk = keys_pk[index];
    uint8_t *alt_pk = NULL;
    if (mode & 2) { /* an arbitrary public key too */
        alt_pk = malloc(s->pk_len);
        memset(alt_pk, mode, s->pk_len);
        memcpy(alt_pk, data, size < s->pk_len ? size : s->pk_len);
        pk = alt_pk;
    }
    int rc = kpqc_sig_verify(s, sig, sig_len, msg, msg_len, ctx, ctx_len, pk, s->pk_len);
    if (rc != KPQC_OK && rc != KPQC_ERR_VERIFY) abort();
    /* A forgery on the genuine key would be a catastrophic bug. */
    if (rc == KPQC_OK && alt_pk == NULL) abort();
    free(sig);
    free(alt_pk);
    return 0;
}
