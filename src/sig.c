/* The public list of signature schemes, derived from algorithms.def (the
 * rows the build selects). */
#include <stddef.h>

#include <kpqc/kpqc.h>

#include "common/ct.h"
#include "internal.h"
#include "names.h"

#define KPQC_FAMILY_NAME_HAETAE "HAETAE"
#define KPQC_FAMILY_NAME_AIMER "AIMer"

#define KPQC_SIG(fam, id, disp, kat, lvl, pk, sk, sig, oid, cp, al)                         \
    KPQC_SELECTED(id, {#id, disp, KPQC_FAMILY_NAME_##fam, kat, al, lvl, pk, sk, sig,       \
                       &kpqc_##id##_ops},)
static const kpqc_sig sigs[] = {
#include "algorithms.def"
    {.name = NULL}, /* end marker: keeps the array non-empty in minimal builds */
};

size_t kpqc_sig_count(void) { return sizeof sigs / sizeof sigs[0] - 1; }

const kpqc_sig *kpqc_sig_at(size_t index) {
    return index < kpqc_sig_count() ? &sigs[index] : NULL;
}

const kpqc_sig *kpqc_sig_by_name(const char *name) {
    if (name == NULL) return NULL;
    for (size_t i = 0; i < kpqc_sig_count(); i++)
        if (kpqc_name_matches(name, sigs[i].name, sigs[i].aliases)) return &sigs[i];
    return NULL;
}

int kpqc_sig_keypair(const kpqc_sig *alg, uint8_t *pk, size_t pk_len, uint8_t *sk,
                     size_t sk_len, const kpqc_rng *rng) {
    if (alg == NULL || pk == NULL || sk == NULL) return KPQC_ERR_ARGUMENT;
    if (pk_len != alg->pk_len || sk_len != alg->sk_len) return KPQC_ERR_LENGTH;
    int rc = alg->ops->keypair(pk, sk, rng);
    if (rc != KPQC_OK) {
        kpqc_wipe(sk, sk_len);
        kpqc_wipe(pk, pk_len);
    }
    return rc;
}

int kpqc_sig_sign(const kpqc_sig *alg, uint8_t *sig, size_t *sig_len, const uint8_t *msg,
                  size_t msg_len, const uint8_t *ctx, size_t ctx_len, const uint8_t *sk,
                  size_t sk_len, const kpqc_rng *rng) {
    if (alg == NULL || sig == NULL || sig_len == NULL || sk == NULL) return KPQC_ERR_ARGUMENT;
    if ((msg == NULL && msg_len != 0) || (ctx == NULL && ctx_len != 0)) return KPQC_ERR_ARGUMENT;
    if (ctx_len > KPQC_SIG_MAX_CONTEXT) return KPQC_ERR_LENGTH;
    if (*sig_len < alg->sig_len || sk_len != alg->sk_len) return KPQC_ERR_LENGTH;
    static const uint8_t empty[1] = {0};
    size_t len = alg->sig_len;
    int rc = alg->ops->sign(sig, &len, msg != NULL ? msg : empty, msg_len,
                            ctx != NULL ? ctx : empty, ctx_len, sk, rng);
    if (rc != KPQC_OK) {
        kpqc_wipe(sig, alg->sig_len);
        return rc;
    }
    *sig_len = len;
    return KPQC_OK;
}

int kpqc_sig_verify(const kpqc_sig *alg, const uint8_t *sig, size_t sig_len, const uint8_t *msg,
                    size_t msg_len, const uint8_t *ctx, size_t ctx_len, const uint8_t *pk,
                    size_t pk_len) {
    if (alg == NULL || sig == NULL || pk == NULL) return KPQC_ERR_ARGUMENT;
    if ((msg == NULL && msg_len != 0) || (ctx == NULL && ctx_len != 0)) return KPQC_ERR_ARGUMENT;
    if (ctx_len > KPQC_SIG_MAX_CONTEXT || pk_len != alg->pk_len) return KPQC_ERR_LENGTH;
    static const uint8_t empty[1] = {0};
    int rc = alg->ops->verify(sig, sig_len, msg != NULL ? msg : empty, msg_len,
                              ctx != NULL ? ctx : empty, ctx_len, pk);
    return rc == KPQC_OK ? KPQC_OK : KPQC_ERR_VERIFY;
}

int kpqc_sig_check_keypair(const kpqc_sig *alg, const uint8_t *pk, size_t pk_len, const uint8_t *sk,
                           size_t sk_len) {
    if (alg == NULL || pk == NULL || sk == NULL) return KPQC_ERR_ARGUMENT;
    if (pk_len != alg->pk_len || sk_len != alg->sk_len) return KPQC_ERR_LENGTH;
    return alg->ops->check_keypair(pk, sk);
}

const char *kpqc_sig_impl_name(const kpqc_sig *alg) { return alg ? alg->ops->impl_name() : NULL; }
