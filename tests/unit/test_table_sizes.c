/*
 * The algorithm table's sizes (src/algorithms.def, as the descriptors carry
 * them) against the families' own parameters: NTRU+'s polynomial encoding
 * (pk = ct = one polynomial, sk = two polynomials and the hash of pk) and
 * HAETAE's packing functions; the fixed buffers sized for the widest set
 * hold every set's data.  A row typed wrong in the table fails here
 * even if the KAT of another set still passes.
 */
#include <string.h>

#include "harness.h"
#include "kem/ntruplus/ntruplus.h"
#include "kem/smaugt/smaugt.h"
#include "sig/haetae/haetae.h"

int main(void) {
    static const struct {
        const char *name;
        const kpqc_ntruplus_params *p;
    } ntru[] = {{"ntruplus768", &kpqc_ntruplus_params768},
                {"ntruplus864", &kpqc_ntruplus_params864},
                {"ntruplus1152", &kpqc_ntruplus_params1152}};
    unsigned checked = 0;
    for (unsigned i = 0; i < 3; i++) {
        const kpqc_kem *k = kpqc_kem_by_name(ntru[i].name);
        if (k == NULL) continue;
        const size_t poly = ntru[i].p->polybytes;
        CHECK_MSG(poly == (size_t)ntru[i].p->n * 3 / 2, "%s: 12 bits a coefficient", k->name);
        CHECK_MSG(k->pk_len == poly && k->ct_len == poly, "%s: pk/ct", k->name);
        CHECK_MSG(k->sk_len == 2 * poly + NTRUPLUS_SYMBYTES, "%s: sk", k->name);
        CHECK_MSG(k->ss_len == NTRUPLUS_SSBYTES, "%s: ss", k->name);
        checked++;
    }
    static const struct {
        const char *name;
        const struct haetae_params *p;
    } haetae[] = {{"haetae2", &kpqc_haetae2_params}, {"haetae3", &kpqc_haetae3_params},
                  {"haetae5", &kpqc_haetae5_params}};
    for (unsigned i = 0; i < 3; i++) {
        const kpqc_sig *s = kpqc_sig_by_name(haetae[i].name);
        if (s == NULL) continue;
        CHECK_MSG(s->pk_len == haetae_pk_bytes(haetae[i].p), "%s: pk", s->name);
        CHECK_MSG(s->sk_len == haetae_sk_bytes(haetae[i].p), "%s: sk", s->name);
        CHECK_MSG(s->sig_len == haetae[i].p->sig_bytes, "%s: sig", s->name);
        CHECK_MSG(haetae[i].p->polyq_bytes <= HAETAE_POLYQ_MAX_BYTES, "%s: buffers too small", s->name);
        checked++;
    }
    /* SMAUG-T's buffers are sized for its longest ciphertext */
    for (size_t i = 0; i < kpqc_kem_count(); i++)
        if (strcmp(kpqc_kem_at(i)->family, "SMAUG-T") == 0)
            CHECK_MSG(kpqc_kem_at(i)->ct_len <= SMAUGT_CT_MAX_BYTES, "%s: ct buffer", kpqc_kem_at(i)->name);
    printf("%u parameter sets checked against their families' constants\n", checked);
    return test_result("test_table_sizes");
}
