/*
 * The public list of KEMs, derived from algorithms.def, and the checked
 * entry points.  A row the build does not select (KPQC_ALGORITHMS)
 * contributes no descriptor.
 */
#include <stddef.h>

#include <kpqc/kpqc.h>

#include "common/ct.h"
#include "internal.h"
#include "names.h"

#define KPQC_FAMILY_NAME_SMAUGT "SMAUG-T"
#define KPQC_FAMILY_NAME_NTRUPLUS "NTRU+"
#define KPQC_REJECTION_SMAUGT KPQC_REJECT_IMPLICIT
#define KPQC_REJECTION_NTRUPLUS KPQC_REJECT_EXPLICIT

#define KPQC_KEM(fam, id, disp, kat, lvl, pk, sk, ct, ss, oid, cp, al)                     \
    KPQC_SELECTED(id, {#id, disp, KPQC_FAMILY_NAME_##fam, kat, al, lvl, pk, sk, ct, ss,    \
                       &kpqc_##id##_ops, KPQC_REJECTION_##fam},)
static const kpqc_kem kems[] = {
#include "algorithms.def"
    {.name = NULL}, /* end marker: keeps the array non-empty in minimal builds */
};

size_t kpqc_kem_count(void) { return sizeof kems / sizeof kems[0] - 1; }

const kpqc_kem *kpqc_kem_at(size_t index) {
    return index < kpqc_kem_count() ? &kems[index] : NULL;
}

const kpqc_kem *kpqc_kem_by_name(const char *name) {
    if (name == NULL) return NULL;
    for (size_t i = 0; i < kpqc_kem_count(); i++)
        if (kpqc_name_matches(name, kems[i].name, kems[i].aliases)) return &kems[i];
    return NULL;
}

int kpqc_kem_keypair(const kpqc_kem *kem, uint8_t *pk, size_t pk_len, uint8_t *sk,
                     size_t sk_len, const kpqc_rng *rng) {
    if (kem == NULL || pk == NULL || sk == NULL) return KPQC_ERR_ARGUMENT;
    if (pk_len != kem->pk_len || sk_len != kem->sk_len) return KPQC_ERR_LENGTH;
    int rc = kem->ops->keypair(pk, sk, rng);
    if (rc != KPQC_OK) {
        kpqc_wipe(sk, sk_len);
        kpqc_wipe(pk, pk_len);
    }
    return rc;
}

int kpqc_kem_encaps(const kpqc_kem *kem, uint8_t *ct, size_t ct_len, uint8_t *ss,
                    size_t ss_len, const uint8_t *pk, size_t pk_len, const kpqc_rng *rng) {
    if (kem == NULL || ct == NULL || ss == NULL || pk == NULL) return KPQC_ERR_ARGUMENT;
    if (ct_len != kem->ct_len || ss_len != kem->ss_len || pk_len != kem->pk_len)
        return KPQC_ERR_LENGTH;
    int rc = kem->ops->encaps(ct, ss, pk, rng);
    if (rc != KPQC_OK) kpqc_wipe(ss, ss_len);
    return rc;
}

int kpqc_kem_decaps(const kpqc_kem *kem, uint8_t *ss, size_t ss_len, const uint8_t *ct,
                    size_t ct_len, const uint8_t *sk, size_t sk_len) {
    if (kem == NULL || ss == NULL || ct == NULL || sk == NULL) return KPQC_ERR_ARGUMENT;
    if (ss_len != kem->ss_len || ct_len != kem->ct_len || sk_len != kem->sk_len)
        return KPQC_ERR_LENGTH;
    int rc = kem->ops->decaps(ss, ct, sk);
    if (rc != KPQC_OK) kpqc_wipe(ss, ss_len);
    return rc;
}

int kpqc_kem_check_keypair(const kpqc_kem *kem, const uint8_t *pk, size_t pk_len, const uint8_t *sk,
                           size_t sk_len) {
    if (kem == NULL || pk == NULL || sk == NULL) return KPQC_ERR_ARGUMENT;
    if (pk_len != kem->pk_len || sk_len != kem->sk_len) return KPQC_ERR_LENGTH;
    return kem->ops->check_keypair(pk, sk);
}

const char *kpqc_kem_impl_name(const kpqc_kem *kem) { return kem ? kem->ops->impl_name() : NULL; }
