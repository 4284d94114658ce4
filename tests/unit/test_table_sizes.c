/*
 * The algorithm table's sizes (src/algorithms.def, as the descriptors carry
 * them) against the families' own parameters: NTRU+'s polynomial encoding
 * (pk = ct = one polynomial, sk = two polynomials and the hash of pk),
 * HAETAE's packing functions, SMAUG-T's encodings (pk = seed and b, ct =
 * c1 and c2, sk = s, d and pk) and AIMer's layouts (pk = iv || ct,
 * sk = pt || pk, signature = salt, h1, h2 and T proofs); the fixed
 * buffers sized for the widest set hold every set's data.  A row typed
 * wrong in the table fails here even if the KAT of another set still
 * passes.
 */
#include "harness.h"
#include "kem/ntruplus/ntruplus.h"
#include "kem/smaugt/smaugt.h"
#include "sig/aimer/aimer.h"
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
    static const struct {
        const char *name;
        const smaugt_params *p;
    } smaugt[] = {{"smaugt1", &kpqc_smaugt1_params}, {"smaugt3", &kpqc_smaugt3_params},
                  {"smaugt5", &kpqc_smaugt5_params}, {"timer", &kpqc_timer_params}};
    for (unsigned i = 0; i < 4; i++) {
        const kpqc_kem *k = kpqc_kem_by_name(smaugt[i].name);
        if (k == NULL) continue;
        const smaugt_params *p = smaugt[i].p;
        CHECK_MSG(k->pk_len == smaugt_pk_bytes(p), "%s: pk", k->name);
        CHECK_MSG(k->sk_len == smaugt_sk_bytes(p), "%s: sk", k->name);
        CHECK_MSG(k->ct_len == smaugt_ct_bytes(p), "%s: ct", k->name);
        CHECK_MSG(k->ss_len == SMAUGT_SS_BYTES, "%s: ss", k->name);
        CHECK_MSG(k->ct_len <= SMAUGT_CT_MAX_BYTES && p->k <= SMAUGT_KMAX && p->log_q <= SMAUGT_LOG_Q_MAX &&
                      p->msg_bytes <= SMAUGT_MSG_MAX,
                  "%s: buffers too small", k->name);
        checked++;
    }
    static const struct {
        const char *name;
        const struct aimer_params *p;
    } aimer[] = {{"aimer128f", &kpqc_aimer128f_params}, {"aimer128s", &kpqc_aimer128s_params},
                 {"aimer192f", &kpqc_aimer192f_params}, {"aimer192s", &kpqc_aimer192s_params},
                 {"aimer256f", &kpqc_aimer256f_params}, {"aimer256s", &kpqc_aimer256s_params}};
    for (unsigned i = 0; i < 6; i++) {
        const kpqc_sig *s = kpqc_sig_by_name(aimer[i].name);
        if (s == NULL) continue;
        const struct aimer_params *p = aimer[i].p;
        CHECK_MSG(p->nb == 8 * p->nw, "%s: 64-bit words", s->name);
        CHECK_MSG(s->pk_len == 2 * p->nb, "%s: pk", s->name);
        CHECK_MSG(s->sk_len == 3 * p->nb, "%s: sk", s->name);
        CHECK_MSG(s->sig_len == p->sig_len && p->sig_len == 5 * p->nb + p->T * proof_len(p), "%s: sig", s->name);
        CHECK_MSG(p->N == 1u << p->logn && p->N * mpc_reps(p) % MPC_MAX == 0 && p->N % (2 * PARTY_BATCH) == 0, "%s: parties", s->name);
        CHECK_MSG(p->nw <= NWMAX && p->L <= LMAX && p->T <= AIMER_TMAX, "%s: buffers too small", s->name);
        checked++;
    }
    printf("%u parameter sets checked against their families' constants\n", checked);
    return test_result("test_table_sizes");
}
